// The host runtime (buffers, copies, timer, the FFTW baselines), and cpu-fftw's plumbing: effort, views
// FFTW's SIMD codelets cannot take, thread counts, concurrent planning, view checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "app/registry.hpp"
#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "cpu/backends.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Axis;
using core::HostTensor;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;
using core::TransformDesc;
using Baseline = core::Runtime::Baseline;
using test::desc;

const core::Backend& fftw() { return test::backend("cpu-fftw"); }

TEST_CASE("host runtime: identity and buffers and copies", "[cpu][runtime]") {
  const core::Runtime& rt = cpu::host_runtime();
  CHECK(rt.name() == "host");
  CHECK(rt.memory() == core::Memory::kHost);
  CHECK(rt.usable());
  CHECK_THAT(rt.device_name(), Catch::Contains("threads)"));
  CHECK(rt.cache_bytes() == rt.cache_bytes());
  CHECK(&fftw().runtime() == &rt);
  CHECK(&app::registry().find("cpu-naive")->runtime() == &rt);

  auto a = rt.allocate(1000), b = rt.allocate(1000);
  REQUIRE(a->bytes() == 1000);
  CHECK(reinterpret_cast<std::uintptr_t>(a->data()) % 64 == 0);
  std::vector<unsigned char> src(1000), dst(1000);
  for (int i = 0; i < 1000; ++i) src[i] = static_cast<unsigned char>(i * 7);
  rt.upload(*a, src.data(), 1000);
  rt.copy(*b, *a, 1000);
  rt.download(dst.data(), *b, 1000);
  CHECK(src == dst);
  rt.fill_bytes(*b, 0xAB);
  rt.download(dst.data(), *b, 1000);
  CHECK(std::all_of(dst.begin(), dst.end(), [](unsigned char c) { return c == 0xAB; }));
  CHECK_THROWS_AS(rt.upload(*a, src.data(), 1001), Error);
  CHECK(rt.allocate(0)->bytes() == 0);
  rt.synchronize();

  auto t = rt.make_timer();
  t->start();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  t->stop();
  CHECK(t->elapsed_ms() >= 4.0);
}

TEST_CASE("host baseline: plain REDFT10 equals cpu-fftw dct2 none", "[cpu][runtime]") {
  const core::Runtime& rt = cpu::host_runtime();
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (core::Effort effort : {core::Effort::kEstimate, core::Effort::kMeasure}) {
      const Shape2 shape{12, 20};
      const HostTensor x = test::random_tensor(shape, 2, prec, 3);
      HostTensor y(shape, 2, prec);
      auto plain = rt.make_baseline(Baseline::kPlainDct2, shape, 2, prec, effort);
      REQUIRE(plain != nullptr);
      CHECK(plain->memory() == core::Memory::kHost);
      plain->execute(x.view(), y.view());
      const HostTensor ref = test::run_backend(fftw(), desc(Op::kDct2, Norm::kNone, Axis::kBoth, shape, 2, prec), x);
      CHECK(core::relative_l2(y, ref) <= (prec == Precision::kF32 ? 1e-6 : 1e-14));
    }
}

// The 2-D DFT of each matrix of x (f64), the half spectrum r2c returns: (rows, cols/2 + 1) per matrix.
std::vector<std::complex<double>> half_dft(const HostTensor& x) {
  const std::int64_t h = x.rows(), w = x.cols(), wc = w / 2 + 1;
  std::vector<std::complex<double>> out;
  for (std::int64_t m = 0; m < x.channels(); ++m)
    for (std::int64_t k = 0; k < h; ++k)
      for (std::int64_t l = 0; l < wc; ++l) {
        std::complex<double> s = 0;
        for (std::int64_t i = 0; i < h; ++i)
          for (std::int64_t j = 0; j < w; ++j)
            s += x.get(m * h * w + i * w + j) * std::polar(1.0, -2 * M_PI * (double(k * i) / h + double(l * j) / w));
        out.push_back(s);
      }
  return out;
}

template <class T>
void check_fft_baselines(core::Effort effort) {
  const core::Runtime& rt = cpu::host_runtime();
  const Precision prec = sizeof(T) == 4 ? Precision::kF32 : Precision::kF64;
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  const Shape2 shape{6, 9};
  const std::int64_t batch = 2;
  const HostTensor x = test::random_tensor(shape, batch, prec, 11);
  const std::size_t cbytes = core::Runtime::fft_complex_bytes(shape, batch, prec);
  const auto expect = half_dft(x);
  REQUIRE(cbytes == expect.size() * 2 * sizeof(T));

  auto spectrum = rt.allocate(cbytes);
  auto fwd = rt.make_baseline(Baseline::kFftForward, shape, batch, prec, effort);
  fwd->execute(x.view(), core::View{spectrum->data(), shape, batch, prec});
  const T* s = static_cast<const T*>(spectrum->data());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < expect.size(); ++i) {
    num += std::norm(std::complex<double>(s[2 * i], s[2 * i + 1]) - expect[i]);
    den += std::norm(expect[i]);
  }
  CHECK(std::sqrt(num / den) <= tol);

  // c2r is the unnormalized inverse: c2r(r2c(x)) = H W x. It overwrites its input (documented).
  HostTensor back(shape, batch, prec);
  auto inv = rt.make_baseline(Baseline::kFftInverse, shape, batch, prec, effort);
  inv->execute(core::ConstView{spectrum->data(), shape, batch, prec}, back.view());
  HostTensor scaled(shape, batch, Precision::kF64);
  for (std::int64_t i = 0; i < x.elements(); ++i) scaled.set(i, x.get(i) * static_cast<double>(shape.count()));
  CHECK(core::relative_l2(back.to(Precision::kF64), scaled) <= tol);
}

TEST_CASE("host baseline: r2c and c2r are FFTW's 2-D real FFTs", "[cpu][runtime]") {
  for (core::Effort effort : {core::Effort::kEstimate, core::Effort::kMeasure}) {
    check_fft_baselines<float>(effort);
    check_fft_baselines<double>(effort);
  }
}

TEST_CASE("cpu-fftw: FFTW_MEASURE plans give the same results", "[cpu][fftw]") {
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (Op op : {Op::kDct2, Op::kIdct2, Op::kDct4, Op::kIdct4})
      for (Norm norm : {Norm::kNone, Norm::kOrtho}) {
        TransformDesc d = desc(op, norm, Axis::kBoth, {24, 40}, 2, prec);
        const HostTensor x = test::random_tensor(d.shape, 2, prec, 5);
        const HostTensor est = test::run_backend(fftw(), d, x);
        d.effort = core::Effort::kMeasure;
        const HostTensor meas = test::run_backend(fftw(), d, x);
        INFO(d.to_string());
        CHECK(core::relative_l2(meas, est) <= (prec == Precision::kF32 ? 1e-6 : 1e-14));
      }
}

// Views one element off FFTW's alignment (f32: 4 bytes, f64: 8 bytes past a 64-byte boundary) take the
// FFTW_UNALIGNED plan; every scaling path (none, post-scale, pre-scale) must give the aligned result.
TEST_CASE("cpu-fftw: views that are not 16-byte aligned", "[cpu][fftw]") {
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (Op op : {Op::kDct2, Op::kIdct2, Op::kDct4})
      for (Norm norm : {Norm::kNone, Norm::kOrtho})
        for (Axis axis : {Axis::kBoth, Axis::kCols}) {
          const TransformDesc d = desc(op, norm, axis, {16, 36}, 2, prec);
          const HostTensor x = test::random_tensor(d.shape, 2, prec, 9);
          const HostTensor aligned = test::run_backend(fftw(), d, x);
          const std::size_t es = core::element_size(prec), bytes = d.bytes();
          core::AlignedBuffer ibuf(bytes + 64), obuf(bytes + 64);
          char* ip = static_cast<char*>(ibuf.data()) + es;
          char* op_ = static_cast<char*>(obuf.data()) + es * 3;
          std::memcpy(ip, x.raw(), bytes);
          auto plan = fftw().make_plan(d);
          for (int rep = 0; rep < 2; ++rep)  // the second run reuses the lazily made plan
            plan->execute(core::ConstView{ip, d.shape, 2, prec}, core::View{op_, d.shape, 2, prec});
          HostTensor got(d.shape, 2, prec);
          std::memcpy(got.raw(), op_, bytes);
          INFO(d.to_string());
          CHECK(core::relative_l2(got, aligned) <= (prec == Precision::kF32 ? 1e-6 : 1e-14));
          // The input is left as it was.
          CHECK(std::memcmp(ip, x.raw(), bytes) == 0);
        }
}

TEST_CASE("cpu backends leave their input untouched", "[cpu]") {
  for (const char* name : {"cpu-fftw", "cpu-naive"})
    for (Op op : {Op::kDct2, Op::kIdct2, Op::kDct4, Op::kIdct4})
      for (Norm norm : {Norm::kNone, Norm::kOrtho}) {
        const TransformDesc d = desc(op, norm, Axis::kBoth, {33, 20}, 1, Precision::kF64);
        const HostTensor x = test::random_tensor(d.shape, 1, d.prec, 21);
        const HostTensor copy = x.clone();
        test::run_backend(*app::registry().find(name), d, x);
        INFO(name << ": " << d.to_string());
        CHECK(std::memcmp(x.raw(), copy.raw(), x.bytes()) == 0);
      }
}

TEST_CASE("cpu-fftw: one thread and all threads agree", "[cpu][fftw]") {
  const TransformDesc d = desc(Op::kDct2, Norm::kOrtho, Axis::kBoth, {256, 384}, 2, Precision::kF64);
  const HostTensor x = test::random_tensor(d.shape, 2, d.prec, 13);
  cpu::set_threads(1);
  const HostTensor one = test::run_backend(fftw(), d, x);
  const HostTensor naive1 = test::run_backend(*app::registry().find("cpu-naive"), d, x);
  cpu::set_threads(0);
  const HostTensor all = test::run_backend(fftw(), d, x);
  const HostTensor naive_all = test::run_backend(*app::registry().find("cpu-naive"), d, x);
  CHECK(core::relative_l2(one, all) <= 1e-14);
  CHECK(core::relative_l2(naive1, naive_all) == 0.0);
  CHECK_THAT(cpu::host_runtime().device_name(),
             Catch::Contains("(" + std::to_string(core::usable_cores()) + " threads)"));
}

TEST_CASE("cpu-fftw: plans made and destroyed on several threads at once", "[cpu][fftw]") {
  const TransformDesc d = desc(Op::kIdct2, Norm::kOrtho, Axis::kBoth, {40, 56}, 1, Precision::kF32);
  const HostTensor x = test::random_tensor(d.shape, 1, d.prec, 17);
  const HostTensor ref = test::oracle(d, x);
  const core::Backend& fb = fftw();  // Catch2 assertions are not thread-safe: none inside the threads
  std::vector<double> err(4, 1.0);
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      double worst = 0;
      for (int i = 0; i < 25; ++i) {
        TransformDesc di = d;
        di.shape.cols = 56 + (i % 5);  // different problems: the planner does real work
        if (di.shape != d.shape) {
          auto p = fb.make_plan(di);
          continue;
        }
        HostTensor out(d.shape, 1, d.prec);
        fb.make_plan(d)->execute(x.view(), out.view());
        worst = std::max(worst, core::relative_l2(out.to(Precision::kF64), ref));
      }
      err[t] = worst;
    });
  for (auto& th : pool) th.join();
  for (double e : err) CHECK(e <= 1e-6);
}

TEST_CASE("cpu plans reject views that do not match", "[cpu]") {
  for (const char* name : {"cpu-fftw", "cpu-naive"}) {
    INFO(name);
    const TransformDesc d = desc(Op::kDct2, Norm::kNone, Axis::kBoth, {8, 8}, 1, Precision::kF32);
    auto plan = app::registry().find(name)->make_plan(d);
    HostTensor a(d.shape, 1, Precision::kF32), b(d.shape, 1, Precision::kF32), c(d.shape, 1, Precision::kF64);
    HostTensor small({4, 8}, 1, Precision::kF32);
    CHECK_NOTHROW(plan->execute(a.view(), b.view()));
    CHECK_THROWS_AS(plan->execute(c.view(), b.view()), Error);
    CHECK_THROWS_AS(plan->execute(small.view(), b.view()), Error);
    CHECK_THROWS_AS(plan->execute(a.view(), a.view()), Error);  // in and out alias
    CHECK(plan->desc() == d);
    CHECK(plan->memory() == core::Memory::kHost);
  }
}

TEST_CASE("cpu backends describe themselves", "[cpu]") {
  for (const char* name : {"cpu-fftw", "cpu-naive"}) {
    const core::Backend* b = app::registry().find(name);
    REQUIRE(b != nullptr);
    CHECK_FALSE(b->description().empty());
    CHECK_FALSE(b->sizes().empty());
    CHECK(b->ops() == std::vector<Op>{Op::kDct2, Op::kIdct2, Op::kDct4, Op::kIdct4, Op::kR2r});
  }
}

}  // namespace
