#pragma once
// Shared test helpers: random inputs, the CLI runner, temporary directories, the oracle, error capture,
// descriptors and file helpers.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/tensor.hpp"

namespace dct::test {

// Uniform in [-1, 1], deterministic per seed.
core::HostTensor random_tensor(core::Shape2 shape, std::int64_t batch, core::Precision prec, std::uint64_t seed);

// Runs `build/dctool <args>` through the shell; captures stdout, stderr and the exit code.
struct RunResult {
  int code = -1;
  std::string out, err;
};
RunResult run_dctool(const std::string& args);
std::string source_dir();  // the repository root
std::string python();      // /usr/bin/python3 (with numpy/scipy)

// A fresh directory removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The f64 oracle: cpu-naive (direct definitions, long double accumulation) on `in` converted to f64; for lot and
// ilot, lot_definition.

core::HostTensor oracle(const core::TransformDesc& d, const core::HostTensor& in);
// The 2-D LOT of every channel of `in` by its matrix definition in long double (forward: H x W -> (H+8) x (W+8);
// inverse: the transpose), f64 result.
core::HostTensor lot_definition(const core::HostTensor& in, bool forward);
// The 1-D LOT of a length-L signal (L a multiple of 8) as its (L+8) x L matrix T: y_j = P0ᵀ x̃[8j : 8j+16] with
// x̃ = [0₈, x, 0₈].
std::vector<std::vector<long double>> lot_matrix(std::int64_t len);
// Runs `backend` on `in` for `d` (host to host) and returns the output.
core::HostTensor run_backend(const core::Backend& b, const core::TransformDesc& d, const core::HostTensor& in);
// The same through Plan::execute_streamed on `threads` threads, the bytes from and into memory; `ranges_ok` (if not
// null) is set to whether every byte of the input was asked for once and every byte of the output given once.
core::HostTensor run_backend_streamed(const core::Plan& plan, const core::HostTensor& in, int threads,
                                      bool* ranges_ok = nullptr);
// plan.execute() on device buffers of runtime rt (the GPU tests): `in` uploaded, the output buffer poisoned
// (0xFF bytes, NaN in both precisions), executed on the plan's stream and downloaded.
core::HostTensor execute_on_device(const core::Plan& plan, const core::Runtime& rt, const core::TransformDesc& d,
                                   const core::HostTensor& in);
// Names of every registered backend that lists `op` (usable here or not).
std::vector<const core::Backend*> backends_listing(core::Op op);
// The registered backend called `name` (REQUIREs that there is one; usable here or not).
const core::Backend& backend(const std::string& name);
// The same, and REQUIREs that its runtime is usable here (the GPU tests: the reason is reported).
const core::Backend& usable_backend(const std::string& name);
// Relative L2 error of `got` against `ref` (absolute when ref is all zero); a NaN or Inf anywhere in
// `got` (an unwritten element of a poisoned output buffer) gives +inf.
double rel_l2_finite(const core::HostTensor& got, const core::HostTensor& ref);

// A descriptor with these fields (block 0: the whole matrix); the others keep their defaults.
core::TransformDesc desc(core::Op op, core::Norm norm, core::Axis axis, core::Shape2 shape, std::int64_t batch,
                         core::Precision prec, int block = 0);
// The relative L2 tolerance against the f64 oracle: 1e-5 (f32), 1e-12 (f64).
double tol(core::Precision p);
// The GPU tests' size cap: arrays above DCTOOL_TEST_MAX_ELEMENTS elements (per batch item) are left out of the
// sweeps that honour it, each counted in `skipped`; unset, nothing is left out. scripts/gpu-check.sh's sanitize phase
// sets it for compute-sanitizer's racecheck, whose cost grows with every shared-memory access (docs/development.md).
bool over_size_cap(std::int64_t elements, int& skipped);
// WARNs how many arrays the cap left out (none: nothing).
void report_size_cap(int skipped);
// WriteOptions with precision `p`, the rest default.
core::WriteOptions wopt(core::Precision p);

// Runs `f` and returns the dct::Error it throws; FAILs the test case when it throws none.
template <class F>
dct::Error error_of(F&& f) {
  try {
    f();
  } catch (const dct::Error& e) {
    return e;
  }
  FAIL("no dct::Error thrown");
  throw std::logic_error("unreachable");
}

// Runs a Python program (python(), with numpy/scipy/Pillow) with `dir` as sys.argv[1] and the repository
// root as sys.argv[2]; the script is written to dir/script.py. Returns std::system's status.
int run_python(const TempDir& dir, const std::string& program);

// File helpers. In their own namespace because tests/app brings both dct::test and dct::test::cli (which
// has a slurp of its own) in with using-directives.
namespace io {
// The whole file, bytes as they are ("" when it cannot be read).
std::string slurp(const std::string& path);
}  // namespace io

}  // namespace dct::test
