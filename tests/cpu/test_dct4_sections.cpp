// The sectioned N = 17 DCT-IV of [3] on the host (cpu-dct4-sec4, cpu-dct4-sec8): equal to the DCT-IV
// definition (cpu-naive, long double) for both norms, dct4 and idct4, f64 <= 1e-12 and f32 <= 1e-5 relative
// L2, batches up to 10^6 rows; exact round trips; refusal of other sizes and axes (exit 4); and the paper's
// error figure (L2 error against the classical eq. (1) over 1000 random inputs in [-1, 1]).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "app/registry.hpp"
#include "core/error.hpp"
#include "support.hpp"

using namespace dct;
using core::Op;
using test::tol;

namespace {

const core::Backend& sec_backend(int sections) { return test::backend("cpu-dct4-sec" + std::to_string(sections)); }

// Relative L2 of a against the f64 reference r (both read as double).
double rel_l2(const core::HostTensor& a, const core::HostTensor& r) {
  REQUIRE(a.elements() == r.elements());
  long double num = 0, den = 0;
  for (std::int64_t i = 0; i < a.elements(); ++i) {
    const long double d = static_cast<long double>(a.get(i)) - r.get(i);
    num += d * d;
    den += static_cast<long double>(r.get(i)) * r.get(i);
  }
  return den > 0 ? static_cast<double>(std::sqrt(num / den)) : static_cast<double>(std::sqrt(num));
}

core::TransformDesc desc17(Op op, core::Norm norm, std::int64_t rows, std::int64_t batch, core::Precision prec) {
  core::TransformDesc d;
  d.op = op;
  d.norm = norm;
  d.axis = core::Axis::kRows;
  d.shape = {rows, 17};
  d.batch = batch;
  d.prec = prec;
  return d;
}

// Runs the backend on a NaN-poisoned output; every element must be written and finite.
core::HostTensor run_poisoned(const core::Backend& b, const core::TransformDesc& d, const core::HostTensor& in) {
  auto plan = b.make_plan(d);
  core::HostTensor out(d.out_shape(), d.batch, d.prec);
  std::memset(out.raw(), 0xff, out.bytes());  // NaN bytes in both precisions
  plan->execute_host(in.view(), out.view());
  for (std::int64_t i = 0; i < out.elements(); ++i)
    if (!std::isfinite(out.get(i))) FAIL("element " << i << " not written (or not finite)");
  return out;
}

}  // namespace

TEST_CASE("dct4 sections: N=17 DCT-IV equals the definition", "[dct4][sections]") {
  const int sections = GENERATE(4, 8);
  const auto prec = GENERATE(core::Precision::kF64, core::Precision::kF32);
  const auto norm = GENERATE(core::Norm::kNone, core::Norm::kOrtho);
  const Op op = GENERATE(Op::kDct4, Op::kIdct4);
  const std::int64_t rows = GENERATE(1, 2, 3, 1000);
  const std::int64_t batch = GENERATE(1, 3);
  const core::TransformDesc d = desc17(op, norm, rows, batch, prec);
  INFO("sec" << sections << " " << d.to_string());
  const core::HostTensor in = test::random_tensor(d.shape, d.batch, prec, 1000 + rows * 7 + batch);
  const core::HostTensor got = run_poisoned(sec_backend(sections), d, in);
  const double err = rel_l2(got, test::oracle(d, in));
  INFO("relative L2 error " << err);
  CHECK(err <= tol(prec));
}

TEST_CASE("dct4 sections: N=17 DCT-IV: 10^6 rows in one call", "[dct4][sections][large]") {
  const int sections = GENERATE(4, 8);
  const auto prec = GENERATE(core::Precision::kF64, core::Precision::kF32);
  const core::TransformDesc d = desc17(Op::kDct4, core::Norm::kOrtho, 1000, 1000, prec);  // 10^6 rows
  const core::HostTensor in = test::random_tensor(d.shape, d.batch, prec, 77 + sections);
  const core::HostTensor got = run_poisoned(sec_backend(sections), d, in);
  const double err = rel_l2(got, test::oracle(d, in));
  INFO("sec" << sections << " " << d.to_string() << " relative L2 error " << err);
  CHECK(err <= tol(prec));
}

TEST_CASE("dct4 sections: N=17 DCT-IV: inverse after forward is the identity", "[dct4][sections]") {
  const int sections = GENERATE(4, 8);
  const auto norm = GENERATE(core::Norm::kNone, core::Norm::kOrtho);
  const auto prec = GENERATE(core::Precision::kF64, core::Precision::kF32);
  const core::TransformDesc fwd = desc17(Op::kDct4, norm, 64, 2, prec);
  core::TransformDesc inv = fwd;
  inv.op = Op::kIdct4;
  const core::HostTensor x = test::random_tensor(fwd.shape, fwd.batch, prec, 5);
  const core::HostTensor back =
      test::run_backend(sec_backend(sections), inv, test::run_backend(sec_backend(sections), fwd, x));
  CHECK(rel_l2(back, x.to(core::Precision::kF64)) <= tol(prec));
}

TEST_CASE("dct4 sections: N=17 DCT-IV: impulses give the basis functions", "[dct4][sections]") {
  // Column i of the none-normalized matrix is 2 cos(π (2i+1)(2k+1) / 68).
  const int sections = GENERATE(4, 8);
  const core::TransformDesc d = desc17(Op::kDct4, core::Norm::kNone, 17, 1, core::Precision::kF64);
  core::HostTensor eye(d.shape, 1, d.prec);
  for (int i = 0; i < 17; ++i) eye.set(i * 17 + i, 1.0);
  const core::HostTensor got = test::run_backend(sec_backend(sections), d, eye);
  const double pi = 3.14159265358979323846;
  double worst = 0;
  for (int i = 0; i < 17; ++i)
    for (int k = 0; k < 17; ++k)
      worst = std::max(worst, std::abs(got.get(i * 17 + k) - 2 * std::cos(pi * (2 * i + 1) * (2 * k + 1) / 68.0)));
  CHECK(worst <= 1e-13);
}

TEST_CASE("dct4 sections: DCT-IV refuses sizes other than 17 and other axes", "[dct4][sections]") {
  const int sections = GENERATE(4, 8);
  const core::Backend& b = sec_backend(sections);
  for (std::int64_t n : {1, 2, 16, 18, 34, 1024}) {
    const core::TransformDesc d = desc17(Op::kDct4, core::Norm::kNone, 4, 1, core::Precision::kF64);
    core::TransformDesc bad = d;
    bad.shape.cols = n;
    const core::Support s = b.supports(bad);
    CHECK_FALSE(s.ok);
    CHECK(s.reason.find("N = 17") != std::string::npos);
    try {
      app::registry().select(bad, b.name());
      FAIL("select accepted N = " << n);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kUnsupported);
    }
  }
  core::TransformDesc cols = desc17(Op::kDct4, core::Norm::kNone, 17, 1, core::Precision::kF64);
  cols.axis = core::Axis::kCols;
  CHECK_FALSE(b.supports(cols).ok);
  cols.axis = core::Axis::kBoth;
  CHECK_FALSE(b.supports(cols).ok);
  core::TransformDesc dct2 = desc17(Op::kDct2, core::Norm::kNone, 1, 1, core::Precision::kF64);
  CHECK_FALSE(b.supports(dct2).ok);
}

TEST_CASE("dct4 sections: DCT-IV through the CLI: N = 17 works, other N exit 4", "[dct4][sections][cli]") {
  const int sections = GENERATE(4, 8);
  const std::string name = "cpu-dct4-sec" + std::to_string(sections);
  test::TempDir dir;
  auto write = [&](const std::string& f, int rows, int cols) {
    std::ofstream o(dir.file(f));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) o << (c ? " " : "") << ((r * 31 + c * 7) % 13) / 6.5 - 1.0;
      o << "\n";
    }
  };
  write("ok.txt", 3, 17);
  write("bad.txt", 3, 16);
  const auto ok =
      test::run_dctool("-b " + name + " -p f64 dct4 " + dir.file("ok.txt") + " -o " + dir.file("ok_out.txt"));
  INFO(ok.err);
  CHECK(ok.code == 0);
  const auto bad =
      test::run_dctool("-b " + name + " -p f64 dct4 " + dir.file("bad.txt") + " -o " + dir.file("bad_out.txt"));
  INFO(bad.err);
  CHECK(bad.code == 4);
  CHECK(bad.err.find("N = 17") != std::string::npos);
  CHECK_FALSE(std::ifstream(dir.file("bad_out.txt")).good());
}

TEST_CASE("dct4 sections: Chiper-Dobrea error figure: L2 error against the classical DCT-IV over 1000 random inputs",
          "[dct4][sections][figure]") {
  // The paper's accuracy check (§5): 1000 random inputs in [-1, 1], length 17, L2 norm of the difference
  // from the classical eq. (1) (here cpu-naive, long double). Printed (scripts/bench-dct4.sh collects it).
  for (auto prec : {core::Precision::kF64, core::Precision::kF32}) {
    for (int sections : {4, 8}) {
      const core::TransformDesc d = desc17(Op::kDct4, core::Norm::kNone, 1, 1000, prec);
      const core::HostTensor in = test::random_tensor(d.shape, d.batch, prec, 2024);
      const core::HostTensor got = test::run_backend(sec_backend(sections), d, in);
      const core::HostTensor ref = test::oracle(d, in);
      double worst = 0, sum = 0, worst_rel = 0;
      for (std::int64_t t = 0; t < d.batch; ++t) {
        long double e2 = 0, r2 = 0;
        for (int k = 0; k < 17; ++k) {
          const long double diff = static_cast<long double>(got.get(t * 17 + k)) - ref.get(t * 17 + k);
          e2 += diff * diff;
          r2 += static_cast<long double>(ref.get(t * 17 + k)) * ref.get(t * 17 + k);
        }
        const double e = static_cast<double>(std::sqrt(e2));
        worst = std::max(worst, e);
        worst_rel = std::max(worst_rel, static_cast<double>(std::sqrt(e2 / r2)));
        sum += e;
      }
      std::cout << "seed003-error sec" << sections << " " << core::to_string(prec)
                << ": L2 error vs classical over 1000 inputs: mean " << sum / d.batch << " max " << worst
                << " (max relative " << worst_rel << ")\n";
      CHECK(worst_rel <= tol(prec));
    }
  }
}
