// cuda-compress-whole (kernels/compress/whole.cu): threshold and keep modes on the device against the CPU
// compressor (cpu/compress_cpu.cpp `whole` on cpu-fftw), and its keep selection on its own against the CPU
// rule (std::nth_element, ties to the lower index). The [host] cases check the radix-select digit logic
// (kernels/compress/topk_select.h) without a device; the others need one (label gpu).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "core/compress.hpp"
#include "core/metrics.hpp"
#include "kernels/compress/topk_select.h"
#include "kernels/compress/whole.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::CompressMode;
using core::Precision;
using core::Shape2;

// The CPU compressor's keep set: the k largest |c|, ties to the lower index (std::nth_element, as `whole`).
template <class T>
std::vector<char> cpu_keep_mask(const T* c, std::int64_t n, std::int64_t k) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), std::int64_t{0});
  auto larger = [c](std::int64_t a, std::int64_t b) {
    const T x = std::abs(c[a]), y = std::abs(c[b]);
    return x > y || (x == y && a < b);
  };
  if (k > 0 && k < n) std::nth_element(idx.begin(), idx.begin() + k, idx.end(), larger);
  std::vector<char> keep(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < k; ++i) keep[idx[i]] = 1;
  return keep;
}

// The rule |c| > thr or (|c| == thr and i <= last) as a mask.
template <class T>
std::vector<char> rule_mask(const T* c, std::int64_t n, T thr, std::int64_t last) {
  std::vector<char> keep(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const T a = std::abs(c[i]);
    keep[i] = a > thr || (a == thr && i <= last);
  }
  return keep;
}

// Values with many exact ties: magnitudes from a small set, random signs, +-0 included; or continuous.
template <class T>
std::vector<T> tie_heavy(std::int64_t n, int levels, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    const T m =
        levels > 0 ? static_cast<T>(rng() % levels) * T(0.75) : static_cast<T>(std::ldexp(double(rng() >> 11), -40));
    x = (rng() & 1) ? -m : m;
  }
  return v;
}

// The host reference of the selection (topk::reference_select) turned into (thr, last).
template <class T>
std::pair<T, std::int64_t> reference_rule(const T* c, std::int64_t n, std::int64_t k,
                                          dct::cuda::topk::SelectState<T>* out = nullptr) {
  const auto st = dct::cuda::topk::reference_select(c, n, k);
  if (out != nullptr) *out = st;
  const T thr = dct::cuda::topk::value_of_key<T>(st.prefix);
  std::int64_t last = n - 1;
  if (st.rank < st.count) {
    unsigned long long r = st.rank;
    for (std::int64_t i = 0; i < n; ++i)
      if (std::abs(c[i]) == thr && --r == 0) {
        last = i;
        break;
      }
  }
  return {thr, last};
}

template <class T>
void check_reference_select() {
  std::uint64_t seed = 11;
  for (std::int64_t n : {1, 2, 7, 255, 256, 1000, 5000})
    for (int levels : {0, 1, 2, 5, 300})
      for (double f : {0.0, 0.01, 0.3, 0.5, 0.99, 1.0}) {
        const std::vector<T> c = tie_heavy<T>(n, levels, seed++);
        const std::int64_t k = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(f * double(n))), 1, n);
        dct::cuda::topk::SelectState<T> st;
        const auto [thr, last] = reference_rule(c.data(), n, k, &st);
        INFO("n " << n << " levels " << levels << " k " << k << " thr " << thr << " rank " << st.rank << " of "
                  << st.count);
        CHECK(st.rank >= 1);
        CHECK(st.rank <= st.count);
        CHECK(rule_mask(c.data(), n, thr, last) == cpu_keep_mask(c.data(), n, k));
      }
}

// An image dataset of `ch` channels from f(c, i, j).
template <class F>
core::Dataset make_image(std::int64_t h, std::int64_t w, std::int64_t ch, core::SourceKind kind, F f) {
  core::Dataset d;
  d.kind = kind;
  d.tensor = core::HostTensor(Shape2{h, w}, ch, Precision::kF32);
  for (std::int64_t c = 0; c < ch; ++c)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) d.tensor.set((c * h + i) * w + j, f(c, i, j));
  return d;
}

// cuda-compress-whole against the CPU compressor on cpu-fftw. f64: the same decisions (a coefficient would
// have to lie within ~1e-11 of E or of the k-th magnitude to flip), so nonzero and entropy agree exactly (up
// to summation order). f32: cuFFT and FFTW round differently (~1e-7 of the image norm, ~1e-2 absolute on a
// 512 x 512 image), so the few coefficients that close to E (threshold) or to the k-th magnitude (keep) may be
// decided the other way: the kept fraction within 1e-3 and the entropy within 1e-2 bits (as the cuda-fft2d
// case of test_block8_gpu.cpp); keep's count is exact by construction.
void compare(const core::Dataset& in, const core::CompressRequest& r, const std::string& what) {
  const core::Compressor* gpu = app::find_compressor("cuda-compress-whole");
  const core::Compressor* cpu = app::find_compressor("cpu");
  REQUIRE(gpu != nullptr);
  REQUIRE(cpu != nullptr);
  const core::Support s = gpu->supports(r, in);
  INFO(what << ": " << s.reason);
  REQUIRE(s.ok);
  core::CompressRequest rc = r;
  rc.backend = "cpu-fftw";
  const core::CompressResult want = cpu->run(rc, in);
  const core::CompressResult got = gpu->run(r, in);
  const double peak = in.kind == core::SourceKind::kImage16 ? 65535.0 : 255.0;
  const double p = core::psnr_db(core::mse(want.image, got.image), peak);
  INFO(what << " " << core::to_string(r.mode) << " " << (r.mode == CompressMode::kKeep ? r.keep : r.threshold)
            << (r.prec == Precision::kF32 ? " f32" : " f64") << ": PSNR(CPU, GPU) " << p << " dB; nonzero "
            << want.nonzero << " / " << got.nonzero << ", entropy " << want.entropy_bits << " / " << got.entropy_bits);
  CHECK(got.backend == "cuda-compress-whole");
  CHECK(p > 50.0);
  CHECK(got.coefficients == want.coefficients);
  CHECK(got.image.shape() == in.tensor.shape());
  CHECK(got.image.channels() == in.tensor.channels());
  if (r.mode == CompressMode::kKeep) {
    const std::int64_t k = core::keep_count(r.keep, in.tensor.shape());
    CHECK(got.nonzero == k * in.tensor.channels());
    CHECK(want.nonzero == got.nonzero);
  }
  if (r.prec == Precision::kF64) {
    CHECK(got.nonzero == want.nonzero);
    CHECK(std::abs(got.entropy_bits - want.entropy_bits) < 1e-9);
  } else {
    CHECK(std::abs(want.nonzero_fraction() - got.nonzero_fraction()) < 1e-3);
    CHECK(std::abs(want.entropy_bits - got.entropy_bits) < 1e-2);
  }
  bool range_ok = true;
  for (std::int64_t i = 0; i < got.image.elements(); ++i) {
    const double v = got.image.get(i);
    range_ok = range_ok && v >= 0 && v <= peak && v == std::floor(v);
  }
  CHECK(range_ok);
}

core::CompressRequest request(CompressMode m, double param, Precision prec) {
  core::CompressRequest r;
  r.mode = m;
  if (m == CompressMode::kKeep)
    r.keep = param;
  else
    r.threshold = param;
  r.prec = prec;
  return r;
}

}  // namespace

TEST_CASE("compress whole: the radix-select reference reproduces the CPU keep rule, ties included",
          "[compress][host]") {
  check_reference_select<float>();
  check_reference_select<double>();
  // Keys: magnitudes order like their bits; -0 is +0.
  using dct::cuda::topk::magnitude_key;
  CHECK(magnitude_key(-0.0f) == magnitude_key(0.0f));
  CHECK(magnitude_key(-2.5) == magnitude_key(2.5));
  CHECK(magnitude_key(1e-30f) < magnitude_key(1.0f));
  CHECK(magnitude_key(std::numeric_limits<float>::denorm_min()) > magnitude_key(0.0f));
  CHECK(magnitude_key(3.0) < magnitude_key(-3.0000000000000004));
}

TEST_CASE("compress whole gpu: the device keep selection equals the CPU rule", "[compress][gpu]") {
  (void)test::usable_backend("cuda-fft2d");  // REQUIREs a usable device, with the reason
  std::uint64_t seed = 101;
  for (std::int64_t n : {1, 5, 4096, 4097, 10000, 70001})
    for (int ch : {1, 3})
      for (int levels : {0, 1, 3, 50})
        for (double f : {0.001, 0.05, 0.5, 1.0}) {
          const std::int64_t k = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(f * double(n))), 1, n);
          const std::vector<float> cf = tie_heavy<float>(n * ch, levels, seed++);
          const std::vector<double> cd = tie_heavy<double>(n * ch, levels, seed++);
          const auto gf = dct::cuda::gpu_keep_select(cf, n, ch, k);
          const auto gd = dct::cuda::gpu_keep_select(cd, n, ch, k);
          REQUIRE(gf.size() == static_cast<std::size_t>(ch));
          REQUIRE(gd.size() == static_cast<std::size_t>(ch));
          for (int p = 0; p < ch; ++p) {
            INFO("n " << n << " channel " << p << " of " << ch << " levels " << levels << " k " << k);
            const float* pf = cf.data() + p * n;
            const double* pd = cd.data() + p * n;
            const auto [tf, lf] = reference_rule(pf, n, k);
            const auto [td, ld] = reference_rule(pd, n, k);
            CHECK(static_cast<float>(gf[p].thr) == tf);
            CHECK(gf[p].last == lf);
            CHECK(gd[p].thr == td);
            CHECK(gd[p].last == ld);
            CHECK(rule_mask(pf, n, static_cast<float>(gf[p].thr), gf[p].last) == cpu_keep_mask(pf, n, k));
            CHECK(rule_mask(pd, n, gd[p].thr, gd[p].last) == cpu_keep_mask(pd, n, k));
          }
        }
}

TEST_CASE("compress whole gpu: threshold and keep agree with the CPU compressor", "[compress][gpu]") {
  (void)test::usable_backend("cuda-fft2d");
  for (const char* file : {"camera.png", "astronaut.png"}) {
    const core::Dataset src = app::image_codec().read(test::source_dir() + "/data/" + file, Precision::kF32);
    const std::int64_t H = src.tensor.rows(), W = src.tensor.cols();
    // The whole image and an odd crop (odd on both axes: no k = N/2 row or column in the symmetric kernels).
    const core::Dataset crop = make_image(203, 301, src.tensor.channels(), src.kind,
                                          [&](auto c, auto i, auto j) { return src.tensor.get((c * H + i) * W + j); });
    for (const core::Dataset* in : {&src, &crop})
      for (Precision prec : {Precision::kF32, Precision::kF64}) {
        const std::string what = std::string(file) + (in == &crop ? " 203x301" : "");
        compare(*in, request(CompressMode::kThreshold, 20, prec), what);
        compare(*in, request(CompressMode::kThreshold, 2.5, prec), what);
        compare(*in, request(CompressMode::kKeep, 0.05, prec), what);
        compare(*in, request(CompressMode::kKeep, 0.3, prec), what);
      }
  }
}

TEST_CASE("compress whole gpu: 16-bit images, alpha, edge shapes and parameters", "[compress][gpu]") {
  (void)test::usable_backend("cuda-fft2d");
  const core::Dataset cam = app::image_codec().read(test::source_dir() + "/data/camera.png", Precision::kF32);
  const std::int64_t W = cam.tensor.cols();
  // 16-bit: symbols far outside the bins (the overflow path) and the 65535 clamp.
  const core::Dataset c16 = make_image(256, 250, 1, core::SourceKind::kImage16, [&](auto, auto i, auto j) {
    return std::min(65535.0, cam.tensor.get(i * W + j) * 257.0 + double((i * 7 + j) % 3));
  });
  for (Precision prec : {Precision::kF32, Precision::kF64}) {
    compare(c16, request(CompressMode::kThreshold, 20 * 257.0, prec), "camera 16-bit");
    compare(c16, request(CompressMode::kKeep, 0.02, prec), "camera 16-bit");
  }
  // Gray + alpha (every channel is coded in these modes), and even sizes with k = N/2 rows and columns.
  const core::Dataset ga = make_image(128, 96, 2, core::SourceKind::kImage8, [&](auto c, auto i, auto j) {
    return c == 0 ? cam.tensor.get((2 * i) * W + 3 * j) : double((5 * i + 3 * j) % 256);
  });
  compare(ga, request(CompressMode::kKeep, 0.1, Precision::kF32), "gray+alpha 128x96");
  compare(ga, request(CompressMode::kThreshold, 10, Precision::kF64), "gray+alpha 128x96");
  // Degenerate shapes (1 x N runs as is, N x 1 as 1 x N) and the parameter ends.
  for (const Shape2 sh : {Shape2{1, 1}, Shape2{1, 37}, Shape2{37, 1}, Shape2{3, 5}, Shape2{2, 64}})
    for (Precision prec : {Precision::kF32, Precision::kF64}) {
      const core::Dataset in = make_image(sh.rows, sh.cols, 1, core::SourceKind::kImage8, [&](auto, auto i, auto j) {
        return double((i * 37 + j * 11 + (i * j) % 5) % 256);
      });
      const std::string what = std::to_string(sh.rows) + "x" + std::to_string(sh.cols);
      for (double f : {0.0, 0.3, 1.0}) compare(in, request(CompressMode::kKeep, f, prec), what);
      for (double e : {0.0, 5.0, 1e9}) compare(in, request(CompressMode::kThreshold, e, prec), what);
    }
}

TEST_CASE("compress whole gpu: keep on images with many equal magnitudes", "[compress][gpu]") {
  (void)test::usable_backend("cuda-fft2d");
  struct Img {
    const char* name;
    double (*f)(std::int64_t, std::int64_t, std::int64_t);
  };
  const Img imgs[] = {
      {"zero", [](std::int64_t, std::int64_t, std::int64_t) { return 0.0; }},  // every coefficient exactly 0
      {"constant", [](std::int64_t c, std::int64_t, std::int64_t) { return 100.0 + 20.0 * double(c); }},
      {"checkerboard", [](std::int64_t, std::int64_t i, std::int64_t j) { return ((i + j) & 1) ? 200.0 : 30.0; }},
  };
  for (const Img& im : imgs)
    for (const Shape2 sh : {Shape2{64, 48}, Shape2{33, 65}})
      for (std::int64_t ch : {1, 3}) {
        const core::Dataset in = make_image(sh.rows, sh.cols, ch, core::SourceKind::kImage8, im.f);
        for (Precision prec : {Precision::kF32, Precision::kF64})
          for (double f : {0.001, 0.1, 0.5}) compare(in, request(CompressMode::kKeep, f, prec), im.name);
      }
}

TEST_CASE("compress whole gpu: auto picks cuda-compress-whole for threshold and keep only", "[compress][gpu]") {
  (void)test::usable_backend("cuda-fft2d");
  const core::Dataset in =
      make_image(16, 16, 1, core::SourceKind::kImage8, [](auto, auto i, auto j) { return double(i * 16 + j); });
  auto first = [&](const core::CompressRequest& r) -> std::string {
    for (const core::Compressor* c : app::compressors())
      if (c->supports(r, in)) return std::string(c->name());
    return "";
  };
  CHECK(first(request(CompressMode::kThreshold, 5, Precision::kF32)) == "cuda-compress-whole");
  CHECK(first(request(CompressMode::kKeep, 0.1, Precision::kF64)) == "cuda-compress-whole");
  core::CompressRequest jpeg;
  CHECK(first(jpeg) != "cuda-compress-whole");
  core::Dataset mat;
  mat.tensor = in.tensor.clone();
  mat.kind = core::SourceKind::kMatrix;
  const core::Compressor* whole = app::find_compressor("cuda-compress-whole");
  CHECK_FALSE(whole->supports(request(CompressMode::kKeep, 0.1, Precision::kF32), mat).ok);
}
