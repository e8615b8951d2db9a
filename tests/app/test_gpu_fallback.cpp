// app/common.hpp run_with_gpu_fallback: the batch policy for GPU faults (README "GPU faults", docs/decisions.md §7),
// driven by errors of each kind without a GPU: out of device memory runs the work again (once, with a note naming the
// input), any other device error stands and sets the GPUs aside once, other errors and disabled fallbacks pass through.
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "app/common.hpp"
#include "core/error.hpp"

namespace {

using dct::Error;
using dct::ErrorCode;
using dct::Fault;
using dct::app::run_with_gpu_fallback;

struct Probe {
  int calls = 0;
  std::vector<std::string> notes;
  std::function<void(const std::string&)> tell() {
    return [this](const std::string& s) { notes.push_back(s); };
  }
};

}  // namespace

TEST_CASE("GPU fallback: out of device memory runs the work again with one note naming the input", "[app][faults]") {
  Probe p;
  run_with_gpu_fallback(
      true, "big.npy",
      [&] {
        if (++p.calls == 1) throw Error(ErrorCode::kRuntime, "", "out of GPU memory: a buffer …", Fault::kDeviceMemory);
      },
      p.tell());
  CHECK(p.calls == 2);
  REQUIRE(p.notes.size() == 1);
  CHECK(p.notes[0].rfind("big.npy: out of GPU memory", 0) == 0);
  CHECK(p.notes[0].find("done on the CPU instead") != std::string::npos);
}

TEST_CASE("GPU fallback: a second failure on the CPU stands", "[app][faults]") {
  Probe p;
  CHECK_THROWS_AS(run_with_gpu_fallback(
                      true, "big.npy",
                      [&] {
                        ++p.calls;
                        throw Error(ErrorCode::kRuntime, "", "out of GPU memory", Fault::kDeviceMemory);
                      },
                      p.tell()),
                  Error);
  CHECK(p.calls == 2);
}

TEST_CASE("GPU fallback: another device error fails the input and sets the GPUs aside once", "[app][faults]") {
  Probe p;
  auto fail = [&] {
    ++p.calls;
    throw Error(ErrorCode::kRuntime, "", "CUDA error: an illegal memory access", Fault::kDevice);
  };
  for (int k = 0; k < 3; ++k) {
    try {
      run_with_gpu_fallback(true, "x.npy", fail, p.tell());
      FAIL("the device error should stand");
    } catch (const Error& e) {
      CHECK(e.fault() == Fault::kDevice);
      CHECK(e.exit_code() == 1);
    }
  }
  CHECK(p.calls == 3);  // never retried
  REQUIRE(p.notes.size() == 1);
  CHECK(p.notes[0] == "after a device error the rest of the batch runs on the CPU");
}

TEST_CASE("GPU fallback: disabled, or an error that is not the GPU's, passes through untouched", "[app][faults]") {
  Probe p;
  CHECK_THROWS_AS(run_with_gpu_fallback(
                      false, "a.npy",
                      [&] {
                        ++p.calls;
                        throw Error(ErrorCode::kRuntime, "", "out of GPU memory", Fault::kDeviceMemory);
                      },
                      p.tell()),
                  Error);
  CHECK_THROWS_AS(run_with_gpu_fallback(
                      true, "a.npy",
                      [&] {
                        ++p.calls;
                        throw Error(ErrorCode::kInput, "a.npy", "truncated");
                      },
                      p.tell()),
                  Error);
  CHECK(p.calls == 2);
  CHECK(p.notes.empty());
}

TEST_CASE("Errors keep their fault kind when a file name is added", "[app][faults]") {
  try {
    dct::rethrow_with_subject(Error(ErrorCode::kRuntime, "", "out of GPU memory", Fault::kDeviceMemory), "m.npy");
  } catch (const Error& e) {
    CHECK(e.subject() == "m.npy");
    CHECK(e.fault() == Fault::kDeviceMemory);
  }
}
