// The 8x8 block backends (cpu-8x8-naive, -aan, -flmad) against cpu-fftw --block 8 and the f64 oracle
// (cpu-naive), round trips, and their refusals (block mode; the tolerances of README "Development").
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "cpu/block8.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;
using core::TransformDesc;
using test::backend;
using test::tol;

const char* const kBlockBackends[] = {"cpu-8x8-naive", "cpu-8x8-aan", "cpu-8x8-flmad"};

TransformDesc block_desc(Op op, Norm norm, Shape2 shape, std::int64_t batch, Precision prec) {
  TransformDesc d;
  d.op = op;
  d.norm = norm;
  d.block = 8;
  d.shape = shape;
  d.batch = batch;
  d.prec = prec;
  return d;
}

}  // namespace

TEST_CASE("block8: every 8x8 backend agrees with cpu-fftw --block 8 and the oracle", "[block8]") {
  const std::string name = GENERATE(values<std::string>({kBlockBackends[0], kBlockBackends[1], kBlockBackends[2]}));
  const core::Backend& b = backend(name);
  const core::Backend& fftw = backend("cpu-fftw");
  std::uint64_t seed = 1;
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (Op op : {Op::kDct2, Op::kIdct2})
      for (Norm norm : {Norm::kOrtho, Norm::kNone})
        for (Shape2 shape : {Shape2{8, 8}, Shape2{16, 24}, Shape2{64, 64}, Shape2{512, 512}})
          for (std::int64_t batch : {1, 3}) {
            const TransformDesc d = block_desc(op, norm, shape, batch, prec);
            INFO(name << ": " << d.to_string());
            REQUIRE(b.supports(d).ok);
            const core::HostTensor in = test::random_tensor(shape, batch, prec, seed++);
            const core::HostTensor got = test::run_backend(b, d, in);
            const core::HostTensor ref = test::oracle(d, in);
            const core::HostTensor via_fftw = test::run_backend(fftw, d, in);
            const double e_oracle = core::relative_l2(got.to(Precision::kF64), ref);
            const double e_fftw = core::relative_l2(got.to(Precision::kF64), via_fftw.to(Precision::kF64));
            INFO("rel L2 vs oracle " << e_oracle << ", vs cpu-fftw " << e_fftw);
            CHECK(e_oracle <= tol(prec));
            CHECK(e_fftw <= tol(prec));
          }
}

TEST_CASE("block8: the portable f32 lane kernels (used without AVX2) are the orthonormal 8-point DCT", "[block8]") {
  // C = diag(fwd_scale) K and C^T = K' diag(inv_scale) (cpu/block8.hpp): check K and K' on n lanes directly.
  const double pi = std::acos(-1.0);
  double c[8][8];
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 8; ++n) c[k][n] = (k == 0 ? std::sqrt(0.125) : 0.5) * std::cos(pi * k * (2 * n + 1) / 16);
  const cpu::block8::Algorithm* algs[] = {&cpu::block8::naive_algorithm(), &cpu::block8::aan_algorithm(),
                                          &cpu::block8::flmad_algorithm()};
  constexpr std::ptrdiff_t kLanes = 37;
  std::vector<float> x(8 * kLanes), y(8 * kLanes), back(8 * kLanes);
  std::uint64_t state = 12345;
  for (float& v : x)
    v = static_cast<float>((state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 40) / 16777216.f - 0.5f;
  for (const cpu::block8::Algorithm* a : algs) {
    INFO(a->name);
    a->fwd_f32(x.data(), kLanes, y.data(), kLanes, kLanes);
    double err = 0, norm = 0;
    for (std::ptrdiff_t l = 0; l < kLanes; ++l)
      for (int k = 0; k < 8; ++k) {
        double want = 0;
        for (int n = 0; n < 8; ++n) want += c[k][n] * x[n * kLanes + l];
        const double got = a->fwd_scale[k] * y[k * kLanes + l];
        err += (got - want) * (got - want);
        norm += want * want;
      }
    CHECK(std::sqrt(err / norm) <= 1e-6);
    for (int k = 0; k < 8; ++k)
      for (std::ptrdiff_t l = 0; l < kLanes; ++l)
        y[k * kLanes + l] = static_cast<float>(a->fwd_scale[k] * y[k * kLanes + l] * a->inv_scale[k]);
    a->inv_f32(y.data(), kLanes, back.data(), kLanes, kLanes);
    double e2 = 0, n2 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      e2 += (back[i] - x[i]) * (back[i] - x[i]);
      n2 += x[i] * x[i];
    }
    CHECK(std::sqrt(e2 / n2) <= 1e-6);
  }
}

TEST_CASE("block8: idct2(dct2(x)) = x in both norms", "[block8]") {
  const std::string name = GENERATE(values<std::string>({kBlockBackends[0], kBlockBackends[1], kBlockBackends[2]}));
  const core::Backend& b = backend(name);
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (Norm norm : {Norm::kOrtho, Norm::kNone}) {
      const Shape2 shape{40, 72};
      const core::HostTensor x = test::random_tensor(shape, 2, prec, 99);
      const core::HostTensor y = test::run_backend(b, block_desc(Op::kDct2, norm, shape, 2, prec), x);
      const core::HostTensor z = test::run_backend(b, block_desc(Op::kIdct2, norm, shape, 2, prec), y);
      INFO(name << " " << core::to_string(prec) << " " << core::to_string(norm));
      CHECK(core::relative_l2(z, x) <= tol(prec));
    }
}

TEST_CASE("block8: ortho blocks are orthonormal (Parseval per block) and a DC block maps to one coefficient",
          "[block8]") {
  const std::string name = GENERATE(values<std::string>({kBlockBackends[0], kBlockBackends[1], kBlockBackends[2]}));
  const core::Backend& b = backend(name);
  core::HostTensor x(Shape2{8, 16}, 1, Precision::kF64);
  for (std::int64_t i = 0; i < x.elements(); ++i) x.set(i, (i % 16) < 8 ? 3.0 : 0.0);  // block 0 constant 3
  const core::HostTensor y =
      test::run_backend(b, block_desc(Op::kDct2, Norm::kOrtho, Shape2{8, 16}, 1, Precision::kF64), x);
  INFO(name);
  CHECK(y.get(0) == Approx(24.0).epsilon(1e-14));  // 3 * 8 (orthonormal DC gain is 8 for 8x8)
  double rest = 0;
  for (std::int64_t i = 1; i < y.elements(); ++i) rest += y.get(i) * y.get(i);
  CHECK(rest < 1e-24);
}

TEST_CASE("block8: backends refuse what is not an 8x8 block dct2/idct2, with a reason", "[block8]") {
  const std::string name = GENERATE(values<std::string>({kBlockBackends[0], kBlockBackends[1], kBlockBackends[2]}));
  const core::Backend& b = backend(name);
  TransformDesc d = block_desc(Op::kDct2, Norm::kOrtho, Shape2{16, 16}, 1, Precision::kF32);
  CHECK(b.supports(d).ok);
  TransformDesc whole = d;
  whole.block = 0;
  TransformDesc b16 = d;
  b16.block = 16;
  TransformDesc dct4 = d;
  dct4.op = Op::kDct4;
  TransformDesc odd = d;
  odd.shape = Shape2{16, 20};
  TransformDesc rows = d;
  rows.axis = core::Axis::kRows;
  for (const TransformDesc& bad : {whole, b16, dct4, odd, rows}) {
    const core::Support s = b.supports(bad);
    INFO(name << ": " << bad.to_string() << " -> " << s.reason);
    CHECK_FALSE(s.ok);
    CHECK_FALSE(s.reason.empty());
  }
  CHECK_THROWS_AS(b.make_plan(whole), Error);
}

TEST_CASE("block8: auto picks an 8x8 backend for --block 8 on the host", "[block8]") {
  TransformDesc d = block_desc(Op::kDct2, Norm::kOrtho, Shape2{64, 64}, 1, Precision::kF32);
  const core::Backend& chosen = app::registry().select(d, "auto");
  if (chosen.runtime().memory() == core::Memory::kHost) CHECK(chosen.name() == "cpu-8x8-flmad");
}
