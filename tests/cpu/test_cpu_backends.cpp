// Every CPU backend against the f64 oracle (cpu-naive), and the properties of the definitions: round trip,
// linearity, impulse response, Parseval, block mode. One body per check runs over every registered backend
// whose runtime is the host; a backend that refuses a case is counted and reported (WARN), never passed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/metrics.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Axis;
using core::Backend;
using core::HostTensor;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;
using core::TransformDesc;
using test::desc;

// README "Development" allows 1e-5 (f32) and 1e-12 (f64) relative L2; these are tighter and pass.
constexpr double kTolF32 = 1e-6;
constexpr double kTolF64 = 1e-13;
double tol(Precision p) { return p == Precision::kF32 ? kTolF32 : kTolF64; }

constexpr Op kOps[] = {Op::kDct2, Op::kIdct2, Op::kDct4, Op::kIdct4};
constexpr Norm kNorms[] = {Norm::kNone, Norm::kOrtho};
constexpr Axis kAxes[] = {Axis::kBoth, Axis::kRows, Axis::kCols};
constexpr Precision kPrecs[] = {Precision::kF32, Precision::kF64};

// The host backends listing `op`; refusals are collected and reported once per test case.
class HostBackends {
 public:
  explicit HostBackends(Op op) {
    for (const Backend* b : test::backends_listing(op))
      if (b->runtime().memory() == core::Memory::kHost) list_.push_back(b);
  }
  std::vector<const Backend*> list() const { return list_; }
  // Calls f(b) for every backend that supports d; counts the others.
  template <class F>
  void each(const TransformDesc& d, F&& f) {
    for (const Backend* b : list_) {
      if (core::Support s = b->supports(d); !s) {
        auto& [count, example] = skipped_[std::string(b->name())];
        if (count++ == 0) example = d.to_string() + ": " + s.reason;
        continue;
      }
      ++ran_;
      f(*b);
    }
  }
  // WARNs about every backend that skipped cases; fails when nothing ran at all.
  void report() const {
    for (const auto& [name, skip] : skipped_)
      WARN(name << " skipped " << skip.first << " case(s) it does not support, e.g. " << skip.second);
    CHECK(ran_ > 0);
  }

 private:
  std::vector<const Backend*> list_;
  std::map<std::string, std::pair<int, std::string>> skipped_;
  int ran_ = 0;
};

HostTensor f64(const HostTensor& t) { return t.to(Precision::kF64); }

TEST_CASE("the registry lists cpu-fftw and cpu-naive for every DCT op", "[cpu]") {
  for (Op op : kOps) {
    std::vector<std::string> names;
    for (const Backend* b : HostBackends(op).list()) names.emplace_back(b->name());
    INFO(core::to_string(op));
    CHECK(std::find(names.begin(), names.end(), "cpu-fftw") != names.end());
    CHECK(std::find(names.begin(), names.end(), "cpu-naive") != names.end());
  }
}

// ---- against the oracle ------------------------------------------------------------------------------

void check_against_oracle(Op op) {
  const Shape2 shapes[] = {{1, 1}, {1, 7}, {7, 1}, {1, 64}, {64, 1}, {5, 3}, {17, 31}, {64, 48}, {128, 128}};
  HostBackends backends(op);
  std::uint64_t seed = 1000 + static_cast<std::uint64_t>(op);
  for (Precision prec : kPrecs)
    for (Norm norm : kNorms)
      for (Axis axis : kAxes)
        for (std::int64_t batch : {1, 3})
          for (Shape2 shape : shapes) {
            const TransformDesc d = desc(op, norm, axis, shape, batch, prec);
            const HostTensor in = test::random_tensor(shape, batch, prec, seed++);
            const HostTensor ref = test::oracle(d, in);
            backends.each(d, [&](const Backend& b) {
              INFO(b.name() << ": " << d.to_string());
              const HostTensor out = test::run_backend(b, d, in);
              CHECK(core::relative_l2(f64(out), ref) <= tol(prec));
            });
          }
  backends.report();
}

TEST_CASE("cpu backends match the oracle: dct2", "[cpu][oracle]") { check_against_oracle(Op::kDct2); }
TEST_CASE("cpu backends match the oracle: idct2", "[cpu][oracle]") { check_against_oracle(Op::kIdct2); }
TEST_CASE("cpu backends match the oracle: dct4", "[cpu][oracle]") { check_against_oracle(Op::kDct4); }
TEST_CASE("cpu backends match the oracle: idct4", "[cpu][oracle]") { check_against_oracle(Op::kIdct4); }

// 1000x1000, axis both (none for dct2/idct4, ortho for idct2/dct4): one oracle run per op on
// f32-representable data, compared with every backend in both precisions. cpu-naive costs seconds here and
// its f64 run is the oracle itself (same code, same input), so it runs once, in f32, for dct2 only; the
// other cases say so (WARN).
void check_large(Op op, Norm norm, bool run_naive_f32) {
  const Shape2 shape{1000, 1000};
  HostBackends backends(op);
  const HostTensor in32 = test::random_tensor(shape, 1, Precision::kF32, 77 + static_cast<std::uint64_t>(op));
  const HostTensor ref = test::oracle(desc(op, norm, Axis::kBoth, shape, 1, Precision::kF64), in32);
  for (Precision prec : kPrecs) {
    const TransformDesc d = desc(op, norm, Axis::kBoth, shape, 1, prec);
    backends.each(d, [&](const Backend& b) {
      if (b.name() == "cpu-naive" && (prec == Precision::kF64 || !run_naive_f32)) {
        WARN("cpu-naive not run for " << d.to_string() << " (the oracle itself; covered by the dct2 f32 case)");
        return;
      }
      INFO(b.name() << ": " << d.to_string());
      const HostTensor out = test::run_backend(b, d, in32.to(prec));
      CHECK(core::relative_l2(f64(out), ref) <= tol(prec));
    });
  }
  backends.report();
}

TEST_CASE("cpu backends match the oracle at 1000x1000: dct2", "[cpu][oracle][large]") {
  check_large(Op::kDct2, Norm::kNone, true);
}
TEST_CASE("cpu backends match the oracle at 1000x1000: idct2", "[cpu][oracle][large]") {
  check_large(Op::kIdct2, Norm::kOrtho, false);
}
TEST_CASE("cpu backends match the oracle at 1000x1000: dct4", "[cpu][oracle][large]") {
  check_large(Op::kDct4, Norm::kOrtho, false);
}
TEST_CASE("cpu backends match the oracle at 1000x1000: idct4", "[cpu][oracle][large]") {
  check_large(Op::kIdct4, Norm::kNone, false);
}

// ---- properties --------------------------------------------------------------------------------------

const Shape2 kPropertyShapes[] = {{1, 1}, {1, 7}, {6, 1}, {17, 31}, {64, 48}};

TEST_CASE("round trip: the inverse op undoes the forward op", "[cpu][property]") {
  for (Op fwd : {Op::kDct2, Op::kDct4}) {
    const Op inv = core::inverse_of(fwd);
    HostBackends backends(fwd);
    std::uint64_t seed = 1;
    for (Precision prec : kPrecs)
      for (Norm norm : kNorms)
        for (Axis axis : kAxes)
          for (Shape2 shape : kPropertyShapes) {
            const TransformDesc d = desc(fwd, norm, axis, shape, 2, prec);
            TransformDesc di = d;
            di.op = inv;
            const HostTensor x = test::random_tensor(shape, 2, prec, seed++);
            backends.each(d, [&](const Backend& b) {
              if (core::Support s = b.supports(di); !s) {
                WARN(b.name() << " runs " << d.to_string() << " but not its inverse: " << s.reason);
                return;
              }
              INFO(b.name() << ": " << d.to_string() << " then " << core::to_string(inv));
              const HostTensor y = test::run_backend(b, di, test::run_backend(b, d, x));
              CHECK(core::relative_l2(f64(y), f64(x)) <= 2 * tol(prec));
            });
          }
    backends.report();
  }
}

TEST_CASE("linearity: T of a x + b y is a T x + b T y", "[cpu][property]") {
  const double a = 2.5, c = -0.75;
  for (Op op : kOps) {
    HostBackends backends(op);
    std::uint64_t seed = 100;
    for (Precision prec : kPrecs)
      for (Norm norm : kNorms)
        for (Axis axis : kAxes) {
          const Shape2 shape{17, 31};
          const TransformDesc d = desc(op, norm, axis, shape, 2, prec);
          const HostTensor x = test::random_tensor(shape, 2, Precision::kF64, seed++);
          const HostTensor y = test::random_tensor(shape, 2, Precision::kF64, seed++);
          HostTensor mix(shape, 2, Precision::kF64);
          for (std::int64_t i = 0; i < mix.elements(); ++i) mix.set(i, a * x.get(i) + c * y.get(i));
          backends.each(d, [&](const Backend& b) {
            INFO(b.name() << ": " << d.to_string());
            const HostTensor tx = f64(test::run_backend(b, d, x.to(prec)));
            const HostTensor ty = f64(test::run_backend(b, d, y.to(prec)));
            const HostTensor tm = f64(test::run_backend(b, d, mix.to(prec)));
            HostTensor expect(shape, 2, Precision::kF64);
            for (std::int64_t i = 0; i < expect.elements(); ++i) expect.set(i, a * tx.get(i) + c * ty.get(i));
            CHECK(core::relative_l2(tm, expect) <= 4 * tol(prec));
          });
        }
    backends.report();
  }
}

// The 1-D response to a unit impulse at index 0 (k = output index), from the definitions (README "Transform
// definitions and norms").
double impulse_1d(Op op, Norm norm, std::int64_t n, std::int64_t k) {
  const double pi = 3.14159265358979323846, nn = static_cast<double>(n);
  const bool ortho = norm == Norm::kOrtho;
  switch (op) {
    case Op::kDct2:  // 2 cos(π k / 2N); ortho √(2/N) c_k cos(π k / 2N)
      return (ortho ? std::sqrt(2 / nn) * (k == 0 ? std::sqrt(0.5) : 1.0) : 2.0) * std::cos(pi * k / (2 * nn));
    case Op::kIdct2:  // a constant: X_0 / 2N, or X_0 / √N for ortho
      return ortho ? 1 / std::sqrt(nn) : 1 / (2 * nn);
    case Op::kDct4:
      return (ortho ? std::sqrt(2 / nn) : 2.0) * std::cos(pi * (2 * k + 1) / (4 * nn));
    default:  // idct4: the dct4 response divided by 2N (none), the same (ortho)
      return (ortho ? std::sqrt(2 / nn) : 1 / nn) * std::cos(pi * (2 * k + 1) / (4 * nn));
  }
}

TEST_CASE("impulse response: a delta at the origin gives the known closed form", "[cpu][property]") {
  const Shape2 shape{6, 10};
  for (Op op : kOps) {
    HostBackends backends(op);
    for (Precision prec : kPrecs)
      for (Norm norm : kNorms)
        for (Axis axis : kAxes) {
          const TransformDesc d = desc(op, norm, axis, shape, 2, prec);
          HostTensor in(shape, 2, prec);
          in.set(0, 1.0);
          in.set(shape.count(), 1.0);
          HostTensor expect(shape, 2, Precision::kF64);
          for (std::int64_t b = 0; b < 2; ++b)
            for (std::int64_t i = 0; i < shape.rows; ++i)
              for (std::int64_t j = 0; j < shape.cols; ++j) {
                double v = 0;
                if (axis == Axis::kBoth) v = impulse_1d(op, norm, shape.rows, i) * impulse_1d(op, norm, shape.cols, j);
                if (axis == Axis::kRows) v = i == 0 ? impulse_1d(op, norm, shape.cols, j) : 0.0;
                if (axis == Axis::kCols) v = j == 0 ? impulse_1d(op, norm, shape.rows, i) : 0.0;
                expect.set(b * shape.count() + i * shape.cols + j, v);
              }
          backends.each(d, [&](const Backend& b) {
            INFO(b.name() << ": " << d.to_string());
            CHECK(core::relative_l2(f64(test::run_backend(b, d, in)), expect) <= tol(prec));
          });
        }
    backends.report();
  }
}

TEST_CASE("dct2 of a constant is an impulse at the origin", "[cpu][property]") {
  const Shape2 shape{5, 12};
  HostBackends backends(Op::kDct2);
  for (Precision prec : kPrecs)
    for (Norm norm : kNorms) {
      const TransformDesc d = desc(Op::kDct2, norm, Axis::kBoth, shape, 1, prec);
      HostTensor in(shape, 1, prec);
      for (std::int64_t i = 0; i < in.elements(); ++i) in.set(i, 1.0);
      HostTensor expect(shape, 1, Precision::kF64);
      // 1-D: X_0 = 2N (none) or √N (ortho), X_k = 0 otherwise.
      expect.set(0, norm == Norm::kNone ? 4.0 * shape.rows * shape.cols : std::sqrt(double(shape.count())));
      backends.each(d, [&](const Backend& b) {
        INFO(b.name() << ": " << d.to_string());
        CHECK(core::relative_l2(f64(test::run_backend(b, d, in)), expect) <= tol(prec));
      });
    }
  backends.report();
}

double energy(const HostTensor& t) {
  long double e = 0;
  for (std::int64_t i = 0; i < t.elements(); ++i) e += static_cast<long double>(t.get(i)) * t.get(i);
  return static_cast<double>(e);
}

TEST_CASE("Parseval: ortho transforms preserve energy", "[cpu][property]") {
  for (Op op : kOps) {
    HostBackends backends(op);
    std::uint64_t seed = 500;
    for (Precision prec : kPrecs) {
      std::vector<TransformDesc> cases;
      for (Axis axis : kAxes)
        for (Shape2 shape : kPropertyShapes) cases.push_back(desc(op, Norm::kOrtho, axis, shape, 2, prec));
      cases.push_back(desc(op, Norm::kOrtho, Axis::kBoth, {16, 24}, 2, prec, 8));  // block mode
      for (const TransformDesc& d : cases) {
        const HostTensor x = test::random_tensor(d.shape, d.batch, prec, seed++);
        backends.each(d, [&](const Backend& b) {
          INFO(b.name() << ": " << d.to_string());
          const double ex = energy(x), ey = energy(test::run_backend(b, d, x));
          CHECK(std::fabs(ey - ex) <= 2 * tol(prec) * ex);
        });
      }
    }
    backends.report();
  }
}

// ---- block mode --------------------------------------------------------------------------------------

// The B x B tile (ti, tj) of matrix m, as its own tensor; and its inverse.
HostTensor tile_of(const HostTensor& t, std::int64_t m, std::int64_t ti, std::int64_t tj, std::int64_t bs) {
  HostTensor out({bs, bs}, 1, t.precision());
  for (std::int64_t i = 0; i < bs; ++i)
    for (std::int64_t j = 0; j < bs; ++j)
      out.set(i * bs + j, t.get(m * t.shape().count() + (ti * bs + i) * t.cols() + tj * bs + j));
  return out;
}

void put_tile(HostTensor& t, const HostTensor& tile, std::int64_t m, std::int64_t ti, std::int64_t tj,
              std::int64_t bs) {
  for (std::int64_t i = 0; i < bs; ++i)
    for (std::int64_t j = 0; j < bs; ++j)
      t.set(m * t.shape().count() + (ti * bs + i) * t.cols() + tj * bs + j, tile.get(i * bs + j));
}

TEST_CASE("block mode: block 8 on 16x24 equals the 2-D transform of each tile", "[cpu][block]") {
  const Shape2 shape{16, 24};
  const std::int64_t bs = 8;
  for (Op op : {Op::kDct2, Op::kIdct2}) {
    HostBackends backends(op);
    std::uint64_t seed = 900;
    for (Precision prec : kPrecs)
      for (Norm norm : kNorms)
        for (std::int64_t batch : {1, 2}) {
          const TransformDesc d = desc(op, norm, Axis::kBoth, shape, batch, prec, static_cast<int>(bs));
          const TransformDesc dt = desc(op, norm, Axis::kBoth, {bs, bs}, 1, prec);
          const HostTensor x = test::random_tensor(shape, batch, prec, seed++);
          // The expected result, tile by tile: the oracle's whole-matrix 2-D transform of each 8x8 slice.
          HostTensor expect(shape, batch, Precision::kF64);
          for (std::int64_t m = 0; m < batch; ++m)
            for (std::int64_t ti = 0; ti < shape.rows / bs; ++ti)
              for (std::int64_t tj = 0; tj < shape.cols / bs; ++tj)
                put_tile(expect, test::oracle(dt, tile_of(x, m, ti, tj, bs)), m, ti, tj, bs);
          backends.each(d, [&](const Backend& b) {
            INFO(b.name() << ": " << d.to_string());
            const HostTensor y = test::run_backend(b, d, x);
            CHECK(core::relative_l2(f64(y), expect) <= tol(prec));
            // And the backend's own whole-matrix transform of each tile, where it has one.
            if (b.supports(dt)) {
              HostTensor own(shape, batch, prec);
              for (std::int64_t m = 0; m < batch; ++m)
                for (std::int64_t ti = 0; ti < shape.rows / bs; ++ti)
                  for (std::int64_t tj = 0; tj < shape.cols / bs; ++tj)
                    put_tile(own, test::run_backend(b, dt, tile_of(x, m, ti, tj, bs)), m, ti, tj, bs);
              CHECK(core::relative_l2(f64(y), f64(own)) <= tol(prec));
            }
          });
        }
    backends.report();
  }
}

TEST_CASE("block mode: shapes that are not multiples of B and other axes are refused", "[cpu][block]") {
  for (Op op : {Op::kDct2, Op::kIdct2}) {
    for (const Backend* b : HostBackends(op).list()) {
      INFO(b->name());
      const TransformDesc bad_shape = desc(op, Norm::kOrtho, Axis::kBoth, {16, 20}, 1, Precision::kF32, 8);
      core::Support s = b->supports(bad_shape);
      CHECK_FALSE(s);
      CHECK_FALSE(s.reason.empty());
      if (b->name() == "cpu-fftw" || b->name() == "cpu-naive") CHECK_THAT(s.reason, Catch::Contains("multiple"));
      try {
        b->make_plan(bad_shape);
        FAIL("make_plan accepted " << bad_shape.to_string());
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::kUnsupported);
      }
      CHECK_FALSE(b->supports(desc(op, Norm::kOrtho, Axis::kRows, {16, 16}, 1, Precision::kF32, 8)));
      CHECK_FALSE(b->supports(desc(op, Norm::kOrtho, Axis::kBoth, {16, 16}, 1, Precision::kF32, -8)));
    }
  }
  const Backend* fftw = nullptr;
  for (const Backend* b : HostBackends(Op::kDct4).list())
    if (b->name() == "cpu-fftw") fftw = b;
  REQUIRE(fftw != nullptr);
  const core::Support s = fftw->supports(desc(Op::kDct4, Norm::kOrtho, Axis::kBoth, {16, 16}, 1, Precision::kF32, 8));
  CHECK_FALSE(s);
  CHECK_THAT(s.reason, Catch::Contains("dct2"));
}

TEST_CASE("cpu backends refuse the LOT and empty shapes with a reason", "[cpu]") {
  for (const Backend* b : HostBackends(Op::kDct2).list()) {
    if (b->name() != "cpu-fftw" && b->name() != "cpu-naive") continue;
    INFO(b->name());
    const TransformDesc lot = desc(Op::kLot, Norm::kNone, Axis::kBoth, {16, 16}, 1, Precision::kF32);
    const core::Support s = b->supports(lot);
    CHECK_FALSE(s);
    CHECK_FALSE(s.reason.empty());
    CHECK_THROWS_AS(b->make_plan(lot), Error);
    CHECK_FALSE(b->supports(desc(Op::kDct2, Norm::kNone, Axis::kBoth, {0, 4}, 1, Precision::kF32)));
    CHECK_FALSE(b->supports(desc(Op::kDct2, Norm::kNone, Axis::kBoth, {4, 4}, 0, Precision::kF32)));
  }
}

}  // namespace

// Plan::execute_streamed on the host (the default): a 36 MB input read and its output written in parts of at least
// 16 MiB by up to `threads` threads, the same bytes as execute_host; a failing source's error comes out unchanged.
TEST_CASE("host plans streamed by parts give execute_host's bytes", "[cpu][streamed]") {
  const TransformDesc d = desc(Op::kDct2, Norm::kOrtho, Axis::kBoth, {3000, 3001}, 1, Precision::kF32);
  const auto plan = test::backend("cpu-fftw").make_plan(d);
  const HostTensor in = test::random_tensor(d.shape, d.batch, d.prec, 21);
  HostTensor want(d.out_shape(), d.batch, d.prec);
  plan->execute_host(in.view(), want.view());
  for (int threads : {1, 2, 5}) {
    INFO("threads " << threads);
    bool ranges = false;
    const HostTensor got = test::run_backend_streamed(*plan, in, threads, &ranges);
    CHECK(ranges);
    CHECK(std::memcmp(got.raw(), want.raw(), want.bytes()) == 0);
  }
  struct Failing final : core::ByteSource {
    void read(std::size_t, void*, std::size_t) const override {
      throw Error(ErrorCode::kInput, "x.npy", "truncated file");
    }
  };
  struct Discard final : core::ByteSink {
    void write(std::size_t, const void*, std::size_t) const override {}
  };
  try {
    plan->execute_streamed(Failing{}, Discard{}, 3);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInput);
    CHECK(e.subject() == "x.npy");
  }
}
