// cuda-lot (label gpu): forward and inverse against cpu-lot in f64 (itself checked against the matrix
// definition in tests/cpu/test_lot.cpp) to relative L2 1e-5 (f32) / 1e-12 (f64), poisoned outputs (0xFF = NaN,
// so an unwritten element fails), execute() on device views and execute_host() through the staging, round trip,
// compress.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "app/registry.hpp"
#include "core/compress.hpp"
#include "core/metrics.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Op;
using core::Precision;
using core::Shape2;

core::TransformDesc lot_desc(Op op, Shape2 shape, std::int64_t batch, Precision prec) {
  core::TransformDesc d;
  d.op = op;
  d.shape = shape;
  d.batch = batch;
  d.prec = prec;
  return d;
}

// cpu-lot in f64 on `in`.
core::HostTensor reference(const core::TransformDesc& d, const core::HostTensor& in) {
  core::TransformDesc d64 = d;
  d64.prec = Precision::kF64;
  return test::run_backend(test::backend("cpu-lot"), d64, in.to(Precision::kF64));
}

// execute_host into a poisoned output, and execute on device views into a poisoned device buffer.
void check_both_ways(const core::Backend& b, const core::TransformDesc& d, const core::HostTensor& in,
                     const core::HostTensor& ref) {
  const double tol = d.prec == Precision::kF32 ? 1e-5 : 1e-12;
  auto plan = b.make_plan(d);
  {
    core::HostTensor out(d.out_shape(), d.batch, d.prec);
    std::memset(out.raw(), 0xFF, out.bytes());
    const core::StageTimes t = plan->execute_host(in.view(), out.view());
    const double err = test::rel_l2_finite(out, ref);
    INFO("execute_host: rel L2 " << err);
    CHECK(err <= tol);
    CHECK(t.e2e_ms >= t.device_ms);
  }
  const core::HostTensor out = test::execute_on_device(*plan, b.runtime(), d, in);
  const double err = test::rel_l2_finite(out, ref);
  INFO("execute on device views: rel L2 " << err);
  CHECK(err <= tol);
}

}  // namespace

TEST_CASE("lot gpu: cuda-lot forward and inverse equal cpu-lot f64", "[gpu][lot]") {
  const core::Backend& b = test::usable_backend("cuda-lot");
  std::uint64_t seed = 11;
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (Shape2 shape : {Shape2{8, 8}, Shape2{16, 24}, Shape2{64, 64}, Shape2{40, 8}, Shape2{136, 264},
                         Shape2{256, 512}, Shape2{2048, 2048}})
      for (std::int64_t batch : {1, 3}) {
        if (shape.rows == 2048 && batch != 1) continue;
        const core::TransformDesc fd = lot_desc(Op::kLot, shape, batch, prec);
        INFO(fd.to_string());
        REQUIRE(b.supports(fd).ok);
        const core::HostTensor x = test::random_tensor(shape, batch, prec, seed++);
        check_both_ways(b, fd, x, reference(fd, x));
        // Inverse on arbitrary coefficients (not only on a forward's output).
        const core::TransformDesc id = lot_desc(Op::kIlot, fd.out_shape(), batch, prec);
        const core::HostTensor c = test::random_tensor(id.shape, batch, prec, seed++);
        check_both_ways(b, id, c, reference(id, c));
      }
}

TEST_CASE("lot gpu: cuda-lot round trip and energy", "[gpu][lot]") {
  const core::Backend& b = test::usable_backend("cuda-lot");
  for (Precision prec : {Precision::kF32, Precision::kF64}) {
    const Shape2 shape{512, 768};
    const core::HostTensor x = test::random_tensor(shape, 2, prec, 5);
    const core::TransformDesc fd = lot_desc(Op::kLot, shape, 2, prec);
    const core::HostTensor y = test::run_backend(b, fd, x);
    const core::HostTensor z = test::run_backend(b, lot_desc(Op::kIlot, fd.out_shape(), 2, prec), y);
    const double tol = prec == Precision::kF32 ? 1e-5 : 1e-12;
    CHECK(test::rel_l2_finite(z.to(Precision::kF64), x.to(Precision::kF64)) <= tol);
    long double ex = 0, ey = 0;
    for (std::int64_t i = 0; i < x.elements(); ++i) ex += static_cast<long double>(x.get(i)) * x.get(i);
    for (std::int64_t i = 0; i < y.elements(); ++i) ey += static_cast<long double>(y.get(i)) * y.get(i);
    CHECK(std::abs(double(std::sqrt(ey) - std::sqrt(ex))) <= 10 * tol * double(std::sqrt(ex)));
  }
}

TEST_CASE("lot gpu: compress --mode lot on the GPU transform matches the CPU one (PSNR > 50 dB)", "[gpu][lot]") {
  test::usable_backend("cuda-lot");
  const core::Compressor* cpu = app::find_compressor("cpu");
  REQUIRE(cpu != nullptr);
  const core::Dataset in = app::image_codec().read(test::source_dir() + "/data/camera.png", Precision::kF32);
  core::CompressRequest r;
  r.mode = core::CompressMode::kLot;
  r.quality = 30;
  r.backend = "cuda-lot";
  const core::CompressResult g = cpu->run(r, in);
  r.backend = "cpu-lot";
  const core::CompressResult c = cpu->run(r, in);
  CHECK(g.backend == "cuda-lot");
  CHECK(core::psnr_db(core::mse(g.image, c.image), 255.0) > 50.0);
}
