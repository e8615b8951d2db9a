// cpu-lot (the fast type-I LOT, cpu/lot.cpp) against the matrix definition (test::lot_definition, built from
// P, Z and the zero extension in long double): forward and inverse, perfect reconstruction, energy
// preservation, refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "app/registry.hpp"
#include "core/formats.hpp"
#include "core/metrics.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Op;
using core::Precision;
using core::Shape2;
using core::TransformDesc;
using Ld = long double;

core::HostTensor lot_oracle(const core::HostTensor& in, bool forward) { return test::lot_definition(in, forward); }

TransformDesc lot_desc(Op op, Shape2 shape, std::int64_t batch, Precision prec) {
  TransformDesc d;
  d.op = op;
  d.shape = shape;
  d.batch = batch;
  d.prec = prec;
  return d;
}

double norm2(const core::HostTensor& t) {
  long double s = 0;
  for (std::int64_t i = 0; i < t.elements(); ++i) s += static_cast<long double>(t.get(i)) * t.get(i);
  return double(std::sqrt(s));
}

// Forward and inverse against the definition, round trip and energy, on `x` (any precision).
void check_all(const core::HostTensor& x64, Precision prec) {
  const core::Backend& b = test::backend("cpu-lot");
  const core::HostTensor x = x64.to(prec);
  const TransformDesc fd = lot_desc(Op::kLot, x.shape(), x.channels(), prec);
  REQUIRE(fd.out_shape() == Shape2{x.rows() + 8, x.cols() + 8});
  const core::HostTensor y = test::run_backend(b, fd, x);
  REQUIRE(y.shape() == fd.out_shape());
  const core::HostTensor yref = lot_oracle(x.to(Precision::kF64), true);
  CHECK(core::relative_l2(y.to(Precision::kF64), yref) <= test::tol(prec));
  // Energy: ||y|| = ||x|| (T has orthonormal columns).
  CHECK(std::abs(norm2(y) - norm2(x)) <= 10 * test::tol(prec) * norm2(x));
  CHECK(std::abs(norm2(yref) - norm2(x)) <= 1e-13 * norm2(x));
  // Inverse against the definition, on the forward's output and on arbitrary coefficients.
  const TransformDesc id = lot_desc(Op::kIlot, fd.out_shape(), x.channels(), prec);
  REQUIRE(id.out_shape() == x.shape());
  const core::HostTensor z = test::run_backend(b, id, y);
  CHECK(core::relative_l2(z.to(Precision::kF64), lot_oracle(y.to(Precision::kF64), false)) <= test::tol(prec));
  CHECK(core::relative_l2(z.to(Precision::kF64), x.to(Precision::kF64)) <= test::tol(prec));  // perfect reconstruction
  const core::HostTensor c = test::random_tensor(fd.out_shape(), x.channels(), prec, 99);
  CHECK(core::relative_l2(test::run_backend(b, id, c).to(Precision::kF64), lot_oracle(c.to(Precision::kF64), false)) <=
        test::tol(prec));
}

}  // namespace

TEST_CASE("lot: cpu-lot equals the matrix definition on random matrices", "[lot]") {
  const Shape2 shape = GENERATE(Shape2{8, 8}, Shape2{16, 24}, Shape2{64, 64}, Shape2{40, 8});
  const Precision prec = GENERATE(Precision::kF64, Precision::kF32);
  const std::int64_t batch = GENERATE(1, 2);
  CAPTURE(core::to_string(shape), core::to_string(prec), batch);
  check_all(test::random_tensor(shape, batch, Precision::kF64, 7 + shape.rows * 3 + shape.cols), prec);
}

TEST_CASE("lot: cpu-lot equals the matrix definition on data/camera.png", "[lot]") {
  core::ReadOptions ro;
  ro.prec = Precision::kF64;
  const core::Dataset cam = core::read_any(test::source_dir() + "/data/camera.png", ro, &app::image_codec());
  REQUIRE(cam.tensor.rows() % 8 == 0);
  REQUIRE(cam.tensor.cols() % 8 == 0);
  const Precision prec = GENERATE(Precision::kF64, Precision::kF32);
  CAPTURE(core::to_string(prec));
  check_all(cam.tensor, prec);
}

TEST_CASE("lot: the definition's matrix T has orthonormal columns", "[lot]") {
  const std::vector<std::vector<Ld>> t = test::lot_matrix(24);
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b < 24; ++b) {
      Ld s = 0;
      for (int r = 0; r < 32; ++r) s += t[r][a] * t[r][b];
      CHECK(std::abs(double(s) - (a == b ? 1.0 : 0.0)) < 1e-15);
    }
}

TEST_CASE("lot: cpu-lot refuses shapes that are not multiples of 8 and other ops", "[lot]") {
  const core::Backend& b = test::backend("cpu-lot");
  CHECK_FALSE(b.supports(lot_desc(Op::kLot, Shape2{12, 16}, 1, Precision::kF32)));
  CHECK_FALSE(b.supports(lot_desc(Op::kLot, Shape2{16, 20}, 1, Precision::kF32)));
  CHECK_FALSE(b.supports(lot_desc(Op::kIlot, Shape2{8, 16}, 1, Precision::kF32)));
  CHECK(b.supports(lot_desc(Op::kIlot, Shape2{16, 16}, 1, Precision::kF32)));
  CHECK_FALSE(b.supports(lot_desc(Op::kDct2, Shape2{16, 16}, 1, Precision::kF32)));
  const auto s = b.supports(lot_desc(Op::kLot, Shape2{12, 16}, 1, Precision::kF32));
  CHECK(s.reason.find("multiples of 8") != std::string::npos);
}
