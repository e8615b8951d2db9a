// execute_host of the CUDA plans on page-locked and on ordinary host memory (label gpu): tensors from a TensorPool on
// the CUDA runtime's allocate_host and ordinary tensors, in every pairing, give the same bytes; outputs poisoned
// (0xFF = NaN) so that an unwritten element shows; the pool's blocks are reused from call to call.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/tensor_pool.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Axis;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;

std::string bytes_of(const core::HostTensor& t) { return std::string(static_cast<const char*>(t.raw()), t.bytes()); }

void poison(core::HostTensor& t) { std::memset(t.raw(), 0xFF, t.bytes()); }

struct Case {
  const char* backend;
  core::TransformDesc desc;
};

}  // namespace

TEST_CASE("cuda plans: page-locked and ordinary host tensors give the same bytes", "[gpu][pinned]") {
  const std::vector<Case> cases{
      {"cuda-fft2d", test::desc(Op::kDct2, Norm::kOrtho, Axis::kBoth, {96, 80}, 2, Precision::kF32)},
      {"cuda-fft2d", test::desc(Op::kIdct2, Norm::kNone, Axis::kBoth, {33, 47}, 1, Precision::kF64)},
      {"cuda-8x8", test::desc(Op::kDct2, Norm::kOrtho, Axis::kBoth, {64, 48}, 3, Precision::kF32, 8)},
      {"cuda-dct4-fft", test::desc(Op::kDct4, Norm::kNone, Axis::kRows, {40, 56}, 1, Precision::kF32)},
      {"cuda-lot", test::desc(Op::kLot, Norm::kNone, Axis::kBoth, {64, 40}, 1, Precision::kF64)},
  };
  const core::Runtime& rt = test::usable_backend("cuda-fft2d").runtime();
  core::TensorPool pool([&rt](std::size_t bytes) { return rt.allocate_host(bytes); });
  for (int pass = 0; pass < 2; ++pass) {
    for (const Case& c : cases) {
      const core::Backend& b = test::usable_backend(c.backend);
      const core::TransformDesc& d = c.desc;
      INFO(c.backend << " " << d.to_string() << " pass " << pass);
      REQUIRE(b.supports(d).ok);
      const auto plan = b.make_plan(d);
      const core::HostTensor in = test::random_tensor(d.shape, d.batch, d.prec, 7 + pass);

      core::HostTensor staged = core::HostTensor::uninitialized(d.out_shape(), d.batch, d.prec);
      poison(staged);
      plan->execute_host(in.view(), staged.view());
      CHECK(test::rel_l2_finite(staged, staged) == 0);  // every element written (no NaN left)

      core::HostTensor pin_in = pool.take(d.shape, d.batch, d.prec);
      std::memcpy(pin_in.raw(), in.raw(), in.bytes());
      core::HostTensor pin_out = pool.take(d.out_shape(), d.batch, d.prec);
      poison(pin_out);
      const core::StageTimes tp = plan->execute_host(pin_in.view(), pin_out.view());
      CHECK(tp.e2e_ms >= tp.device_ms);
      CHECK(bytes_of(pin_out) == bytes_of(staged));

      // One side page-locked, the other ordinary.
      poison(pin_out);
      plan->execute_host(in.view(), pin_out.view());
      CHECK(bytes_of(pin_out) == bytes_of(staged));
      core::HostTensor plain_out = core::HostTensor::uninitialized(d.out_shape(), d.batch, d.prec);
      poison(plain_out);
      plan->execute_host(pin_in.view(), plain_out.view());
      CHECK(bytes_of(plain_out) == bytes_of(staged));
    }
  }
  CHECK(pool.allocations() == 2);  // one input and one output block, reused by every later case
}

// execute_streamed (one input file on its own): each 8 MiB part through a page-locked chunk, by up to 8 workers; the
// same bytes as execute_host, every byte of the input asked for once and of the output given once, whatever the
// thread count; an error of the source stops the run and comes out as it was thrown, and the plan runs again after.
TEST_CASE("cuda plans: streamed execution by parts gives execute_host's bytes", "[gpu][pinned]") {
  const std::vector<Case> cases{
      {"cuda-fft2d", test::desc(Op::kDct2, Norm::kOrtho, Axis::kBoth, {2900, 1901}, 1, Precision::kF32)},
      {"cuda-fft2d", test::desc(Op::kIdct2, Norm::kNone, Axis::kBoth, {1500, 1100}, 1, Precision::kF64)},
      {"cuda-fft2d", test::desc(Op::kDct2, Norm::kNone, Axis::kBoth, {4096, 1024}, 1, Precision::kF32)},
      {"cuda-8x8", test::desc(Op::kDct2, Norm::kOrtho, Axis::kBoth, {2048, 1536}, 1, Precision::kF32, 8)},
      {"cuda-dct4-fft", test::desc(Op::kDct4, Norm::kNone, Axis::kRows, {3000, 1000}, 1, Precision::kF32)},
      {"cuda-dct4-small", test::desc(Op::kDct4, Norm::kOrtho, Axis::kRows, {1 << 18, 17}, 1, Precision::kF32)},
      {"cuda-lot", test::desc(Op::kLot, Norm::kNone, Axis::kBoth, {1600, 1600}, 1, Precision::kF64)},
  };
  for (const Case& c : cases) {
    const core::Backend& b = test::usable_backend(c.backend);
    const core::TransformDesc& d = c.desc;
    REQUIRE(b.supports(d).ok);
    const auto plan = b.make_plan(d);
    const core::HostTensor in = test::random_tensor(d.shape, d.batch, d.prec, 11);
    core::HostTensor want = core::HostTensor::uninitialized(d.out_shape(), d.batch, d.prec);
    poison(want);
    plan->execute_host(in.view(), want.view());
    for (int threads : {1, 3, 8, 16}) {
      INFO(c.backend << " " << d.to_string() << " threads " << threads);
      bool ranges = false;
      const core::HostTensor got = test::run_backend_streamed(*plan, in, threads, &ranges);
      CHECK(ranges);
      CHECK(bytes_of(got) == bytes_of(want));
    }
  }
  // A source that fails at one part: its error, unchanged; then the plan streams again.
  struct Failing final : core::ByteSource {
    void read(std::size_t at, void*, std::size_t) const override {
      if (at >= (std::size_t{16} << 20)) throw Error(ErrorCode::kInput, "in.npy", "truncated file");
    }
  };
  struct Discard final : core::ByteSink {
    void write(std::size_t, const void*, std::size_t) const override {}
  };
  const Case& c = cases.front();
  const auto plan = test::usable_backend(c.backend).make_plan(c.desc);
  try {
    plan->execute_streamed(Failing{}, Discard{}, 4);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInput);
    CHECK(std::string(e.what()) == "truncated file");
  }
  const core::HostTensor in = test::random_tensor(c.desc.shape, c.desc.batch, c.desc.prec, 12);
  core::HostTensor want = core::HostTensor::uninitialized(c.desc.out_shape(), c.desc.batch, c.desc.prec);
  plan->execute_host(in.view(), want.view());
  CHECK(bytes_of(test::run_backend_streamed(*plan, in, 4)) == bytes_of(want));
}
