// cpu-lot (the fast type-I LOT, cpu/lot.cpp) against the matrix definition of DESIGN §4, built here from
// P, Z and the zero extension in long double: forward and inverse, perfect reconstruction, energy
// preservation, refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <string>
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
using Matrix = std::vector<std::vector<Ld>>;  // [row][col]

// P0 = P·Z (16x8), DESIGN §4 verbatim.
Matrix lot_p0() {
  const Ld pi = std::acos(Ld(-1));
  Ld c[8][8];  // orthonormal DCT-II, c[k][n]
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 8; ++n)
      c[k][n] = std::sqrt(Ld(2) / 8) * (k == 0 ? 1 / std::sqrt(Ld(2)) : Ld(1)) * std::cos(pi * k * (2 * n + 1) / 16);
  Ld m[8][4];  // De − Do
  for (int n = 0; n < 8; ++n)
    for (int i = 0; i < 4; ++i) m[n][i] = c[2 * i][n] - c[2 * i + 1][n];
  Matrix p(16, std::vector<Ld>(8, 0));
  for (int n = 0; n < 8; ++n)
    for (int i = 0; i < 4; ++i) {
      p[n][i] = m[n][i] / 2;
      p[n][4 + i] = m[n][i] / 2;
      p[8 + n][i] = m[7 - n][i] / 2;  // J(De − Do)
      p[8 + n][4 + i] = -m[7 - n][i] / 2;
    }
  Matrix zt = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};  // Z̃ = R1·R2·R3
  const Ld theta[3] = {Ld(0.13) * pi, Ld(0.16) * pi, Ld(0.13) * pi};
  for (int r = 1; r <= 3; ++r) {
    Matrix rr = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    rr[r - 1][r - 1] = std::cos(theta[r - 1]);
    rr[r - 1][r] = std::sin(theta[r - 1]);
    rr[r][r - 1] = -std::sin(theta[r - 1]);
    rr[r][r] = std::cos(theta[r - 1]);
    Matrix next(4, std::vector<Ld>(4, 0));
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int t = 0; t < 4; ++t) next[a][b] += zt[a][t] * rr[t][b];
    zt = next;
  }
  Matrix z(8, std::vector<Ld>(8, 0));
  for (int i = 0; i < 4; ++i) z[i][i] = 1;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) z[4 + a][4 + b] = zt[a][b];
  Matrix p0(16, std::vector<Ld>(8, 0));
  for (int r = 0; r < 16; ++r)
    for (int col = 0; col < 8; ++col)
      for (int t = 0; t < 8; ++t) p0[r][col] += p[r][t] * z[t][col];
  return p0;
}

// T: (L+8) x L, y_j = P0ᵀ x̃[8j : 8j+16] with x̃ = [0₈, x, 0₈].
Matrix lot_t(std::int64_t len) {
  static const Matrix p0 = lot_p0();
  Matrix t(len + 8, std::vector<Ld>(len, 0));
  for (std::int64_t j = 0; j <= len / 8; ++j)
    for (int k = 0; k < 8; ++k)
      for (int r = 0; r < 16; ++r) {
        const std::int64_t n = 8 * j - 8 + r;
        if (n >= 0 && n < len) t[8 * j + k][n] = p0[r][k];
      }
  return t;
}

// Where row k of T (forward) or of Tᵀ (inverse) can be nonzero, within [0, len).
std::pair<std::int64_t, std::int64_t> band(std::int64_t k, std::int64_t len, bool forward) {
  const std::int64_t lo = forward ? 8 * (k / 8) - 8 : 8 * (k / 8);
  return {std::max<std::int64_t>(lo, 0), std::min<std::int64_t>(lo + 16, len)};
}

// The 2-D definition on every channel: forward Y = T_H X T_Wᵀ, inverse X = T_Hᵀ Y T_W (f64 result).
core::HostTensor lot_oracle(const core::HostTensor& in, bool forward) {
  const std::int64_t h = forward ? in.rows() : in.rows() - 8, w = forward ? in.cols() : in.cols() - 8;
  const Matrix th = lot_t(h), tw = lot_t(w);
  const Shape2 os = forward ? Shape2{h + 8, w + 8} : Shape2{h, w};
  core::HostTensor out(os, in.channels(), Precision::kF64);
  const std::int64_t ir = in.rows(), ic = in.cols();
  for (std::int64_t ch = 0; ch < in.channels(); ++ch) {
    const std::int64_t base = ch * ir * ic;
    // rows: tmp = X T_Wᵀ (forward, ir x (w+8)) or Y T_W (inverse, ir x w)
    const std::int64_t tc = forward ? w + 8 : w;
    std::vector<Ld> tmp(ir * tc, 0);
    for (std::int64_t r = 0; r < ir; ++r)
      for (std::int64_t k = 0; k < tc; ++k) {
        Ld s = 0;  // T's zeros skipped: row k of T spans x[8(k/8)−8, 8(k/8)+8), column k rows [8(k/8), +16)
        const auto [n0, n1] = band(k, ic, forward);
        for (std::int64_t n = n0; n < n1; ++n)
          s += Ld(in.get(base + r * ic + n)) * (forward ? tw[k][n] : tw[n][k]);
        tmp[r * tc + k] = s;
      }
    for (std::int64_t k = 0; k < os.rows; ++k)
      for (std::int64_t col = 0; col < tc; ++col) {
        Ld s = 0;
        const auto [r0, r1] = band(k, ir, forward);
        for (std::int64_t r = r0; r < r1; ++r) s += (forward ? th[k][r] : th[r][k]) * tmp[r * tc + col];
        out.set(ch * os.count() + k * tc + col, double(s));
      }
  }
  return out;
}

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
  const Matrix t = lot_t(24);
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
