// core/compress: the Annex K tables scaled as libjpeg, the colour conversion, the keep count, the entropy of a
// histogram; and the CPU compressor's invariants on small synthetic images (sizes not multiples of 8, alpha).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "app/registry.hpp"
#include "core/compress.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "cpu/compress_jpeg.hpp"
#include "math/jpeg.hpp"

namespace {

using namespace dct;

core::Dataset image(std::int64_t h, std::int64_t w, std::int64_t c, unsigned seed) {
  core::Dataset d;
  d.kind = core::SourceKind::kImage8;
  d.tensor = core::HostTensor(core::Shape2{h, w}, c, core::Precision::kF32);
  std::uint32_t s = seed;
  for (std::int64_t i = 0; i < d.tensor.elements(); ++i) {
    s = s * 1664525u + 1013904223u;
    const std::int64_t p = i % (h * w);
    d.tensor.set(i, std::floor(100 + 60 * std::sin(p * 0.01) + (s >> 28)));
  }
  return d;
}

const core::Compressor& cpu_compressor() { return *app::compressors().back(); }

}  // namespace

TEST_CASE("compress core: quality scaling reproduces libjpeg's tables", "[compress]") {
  CHECK(core::quality_scale(50) == 100);
  CHECK(core::quality_scale(75) == 50);
  CHECK(core::quality_scale(10) == 500);
  CHECK(core::quality_scale(0) == 5000);  // clamped to 1
  CHECK(core::quality_scale(150) == 0);   // clamped to 100
  CHECK(core::quant_table(50, false) == core::kLumaQuantBase);
  CHECK(core::quant_table(50, true) == core::kChromaQuantBase);
  // cjpeg -quality 75 (libjpeg's default): luminance row 0 = 8 6 5 8 12 20 26 31, chrominance 9 9 12 24 50...
  const auto l75 = core::quant_table(75, false), c75 = core::quant_table(75, true);
  CHECK((std::array<int, 8>{l75[0], l75[1], l75[2], l75[3], l75[4], l75[5], l75[6], l75[7]}) ==
        std::array<int, 8>{8, 6, 5, 8, 12, 20, 26, 31});
  CHECK((std::array<int, 5>{c75[0], c75[1], c75[2], c75[3], c75[4]}) == std::array<int, 5>{9, 9, 12, 24, 50});
  for (int v : core::quant_table(100, false)) CHECK(v == 1);
  for (int v : core::quant_table(1, true)) CHECK(v == 255);  // baseline clamp
}

TEST_CASE("compress core: JFIF colour conversion round trip within 1 level", "[compress]") {
  for (int r = 0; r < 256; r += 15)
    for (int g = 0; g < 256; g += 17)
      for (int b = 0; b < 256; b += 19) {
        const auto ycc = core::rgb_to_ycc(r, g, b);
        const auto rgb = core::ycc_to_rgb(ycc[0], ycc[1], ycc[2]);
        CHECK(std::abs(rgb[0] - r) <= 2);
        CHECK(std::abs(rgb[1] - g) <= 2);
        CHECK(std::abs(rgb[2] - b) <= 2);
      }
  const auto gray = core::rgb_to_ycc(77, 77, 77);
  CHECK(gray[0] == 77);
  CHECK(gray[1] == 128);
  CHECK(gray[2] == 128);
}

TEST_CASE("compress core: keep count and histogram entropy", "[compress]") {
  CHECK(core::keep_count(0.0, {10, 10}) == 0);
  CHECK(core::keep_count(1.0, {301, 453}) == 301 * 453);
  CHECK(core::keep_count(0.013, {512, 512}) == static_cast<std::int64_t>(std::ceil(0.013 * 262144.0)));
  CHECK(core::keep_count(1e-9, {8, 8}) == 1);
  const std::int64_t uniform[4] = {5, 5, 5, 5};
  CHECK(core::entropy_of_histogram(uniform) == Approx(2.0));
  const std::int64_t one[3] = {0, 7, 0};
  CHECK(core::entropy_of_histogram(one) == 0.0);
}

TEST_CASE("compress cpu: every mode keeps shape and channels, values are 8-bit integers, alpha passes through",
          "[compress]") {
  for (std::int64_t c : {1, 2, 3, 4}) {
    const core::Dataset in = image(21, 35, c, 3);
    for (auto mode : {core::CompressMode::kJpeg, core::CompressMode::kThreshold, core::CompressMode::kKeep}) {
      core::CompressRequest r;
      r.mode = mode;
      r.quality = 60;
      r.threshold = 5;
      r.keep = 0.2;
      const core::CompressResult res = cpu_compressor().run(r, in);
      INFO("channels " << c << " mode " << core::to_string(mode));
      REQUIRE(res.image.shape() == in.tensor.shape());
      REQUIRE(res.image.channels() == c);
      for (std::int64_t i = 0; i < res.image.elements(); ++i) {
        const double v = res.image.get(i);
        REQUIRE(v == std::floor(v));
        REQUIRE(v >= 0);
        REQUIRE(v <= 255);
      }
      CHECK(res.nonzero_fraction() > 0);
      CHECK(res.nonzero_fraction() <= 1);
      CHECK(res.entropy_bpp(res.image.shape().count()) > 0);
      CHECK(core::psnr_db(core::mse(in.tensor, res.image), 255) > 25);
      if (mode == core::CompressMode::kJpeg && (c == 2 || c == 4)) {
        const std::int64_t hw = 21 * 35, a = (c - 1) * hw;
        for (std::int64_t i = 0; i < hw; ++i) REQUIRE(res.image.get(a + i) == in.tensor.get(a + i));
      }
      if (mode == core::CompressMode::kKeep) CHECK(res.nonzero == c * core::keep_count(0.2, in.tensor.shape()));
      if (mode == core::CompressMode::kJpeg) CHECK(res.coefficients == 24 * 40 * core::coded_planes(c));
    }
  }
}

TEST_CASE("compress cpu: jpeg at quality 100 is near lossless, the transform backend is selectable", "[compress]") {
  const core::Dataset in = image(64, 48, 3, 9);
  core::CompressRequest r;
  r.quality = 100;
  for (const char* b : {"auto", "cpu-8x8-flmad", "cpu-8x8-aan", "cpu-fftw", "cpu-8x8-naive"}) {
    r.backend = b;
    const core::CompressResult res = cpu_compressor().run(r, in);
    INFO(b << " -> " << res.backend);
    CHECK(core::psnr_db(core::mse(in.tensor, res.image), 255) > 40);
    if (std::string(b) != "auto") CHECK(res.backend == b);
  }
  const core::Dataset m{in.tensor.clone(), core::SourceKind::kMatrix};  // compress takes images only
  CHECK_THROWS_AS(cpu_compressor().run(r, m), Error);
}

// The jpeg block loop's stages (cpu/compress_jpeg.hpp): the AVX2 ones give the portable ones' bits, and those are
// the definitions (math::jpeg's colour conversion on all 2^24 colours, from f32 planes and from interleaved 8-bit
// samples; core::ycc_to_rgb on all 2^24 samples, as f32 and as 8-bit planes, and the squared error against 8-bit
// samples).
TEST_CASE("compress cpu: the jpeg stages, AVX2 and portable, are bit-identical to the definitions", "[compress]") {
  const cpu::jpeg::Stages& port = cpu::jpeg::portable_stages();
  const cpu::jpeg::Stages& fast = cpu::jpeg::stages();
  constexpr std::int64_t kRow = 4096 + 3;  // not a multiple of 4: the tails too
  std::vector<float> r(kRow), g(kRow), b(kRow), o1(3 * kRow), o2(3 * kRow);
  std::vector<std::uint8_t> y1(kRow), cb1(kRow), cr1(kRow), y2(kRow), cb2(kRow), cr2(kRow);
  std::vector<std::uint8_t> px(3 * kRow);
  std::int64_t bad_ycc = 0, bad_rgb = 0, bad_def = 0, bad_sse = 0;
  for (std::int64_t c0 = 0; c0 < (1 << 24); c0 += kRow) {
    const std::int64_t n = std::min<std::int64_t>(kRow, (1 << 24) - c0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t c = c0 + i;
      r[i] = float(c >> 16), g[i] = float((c >> 8) & 255), b[i] = float(c & 255);
      y1[i] = std::uint8_t(c >> 16), cb1[i] = std::uint8_t((c >> 8) & 255), cr1[i] = std::uint8_t(c & 255);
    }
    fast.rgb_row(y1.data(), cb1.data(), cr1.data(), n, false, o1.data(), o1.data() + kRow, o1.data() + 2 * kRow);
    port.rgb_row(y1.data(), cb1.data(), cr1.data(), n, false, o2.data(), o2.data() + kRow, o2.data() + 2 * kRow);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto want = core::ycc_to_rgb(y1[i], cb1[i], cr1[i]);
      for (int k = 0; k < 3; ++k) {
        bad_rgb += o1[k * kRow + i] != o2[k * kRow + i];
        bad_def += o2[k * kRow + i] != want[k];
      }
    }
    // rgb_row8 (8-bit planes): rgb_row's values, 4:4:4 and 4:2:0 (odd lengths: the tails).
    for (const bool half : {false, true}) {
      const std::int64_t m = half ? n - 5 : n;
      port.rgb_row(y1.data(), cb1.data(), cr1.data(), m, half, o2.data(), o2.data() + kRow, o2.data() + 2 * kRow);
      for (const cpu::jpeg::Stages* st : {&fast, &port}) {
        st->rgb_row8(y1.data(), cb1.data(), cr1.data(), m, half, y2.data(), cb2.data(), cr2.data());
        for (std::int64_t i = 0; i < m; ++i)
          bad_rgb += y2[i] != o2[i] || cb2[i] != o2[kRow + i] || cr2[i] != o2[2 * kRow + i];
      }
    }
    port.rgb_row(y1.data(), cb1.data(), cr1.data(), n, false, o2.data(), o2.data() + kRow, o2.data() + 2 * kRow);
    // The 8-bit interleaved source's error: the sum of the squares of rgb_row's output against a shifted copy of
    // the colours (so that the differences span -255..255), over the whole row and over odd pieces of it.
    for (std::int64_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) px[3 * i + k] = std::uint8_t((c0 + i) >> (8 * (2 - k)) & 255) ^ std::uint8_t(i * 37);
    std::int64_t want_sse = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        const std::int64_t d = std::int64_t(o2[k * kRow + i]) - px[3 * i + k];
        want_sse += d * d;
      }
    bad_sse += fast.rgb_sse_row8(y1.data(), cb1.data(), cr1.data(), n, false, px.data()) != want_sse;
    bad_sse += port.rgb_sse_row8(y1.data(), cb1.data(), cr1.data(), n, false, px.data()) != want_sse;
    bad_sse += fast.rgb_sse_row8(y1.data(), cb1.data(), cr1.data(), 13, false, px.data()) !=
               port.rgb_sse_row8(y1.data(), cb1.data(), cr1.data(), 13, false, px.data());
    bad_sse += fast.rgb_sse_row8(y1.data(), cb1.data(), cr1.data(), n - 5, true, px.data()) !=
               port.rgb_sse_row8(y1.data(), cb1.data(), cr1.data(), n - 5, true, px.data());
    fast.ycc_row(r.data(), g.data(), b.data(), n, y1.data(), cb1.data(), cr1.data());
    port.ycc_row(r.data(), g.data(), b.data(), n, y2.data(), cb2.data(), cr2.data());
    for (std::int64_t i = 0; i < n; ++i) {
      bad_ycc += y1[i] != y2[i] || cb1[i] != cb2[i] || cr1[i] != cr2[i];
      const auto want = core::rgb_to_ycc(r[i], g[i], b[i]);
      bad_def += y2[i] != want[0] || cb2[i] != want[1] || cr2[i] != want[2];
    }
    // The same colours interleaved as 8-bit samples.
    for (std::int64_t i = 0; i < n; ++i)
      px[3 * i] = std::uint8_t(r[i]), px[3 * i + 1] = std::uint8_t(g[i]), px[3 * i + 2] = std::uint8_t(b[i]);
    fast.ycc_row8(px.data(), n, y2.data(), cb2.data(), cr2.data());
    for (std::int64_t i = 0; i < n; ++i) bad_ycc += y1[i] != y2[i] || cb1[i] != cb2[i] || cr1[i] != cr2[i];
    port.ycc_row8(px.data(), n, y2.data(), cb2.data(), cr2.data());
    for (std::int64_t i = 0; i < n; ++i) bad_ycc += y1[i] != y2[i] || cb1[i] != cb2[i] || cr1[i] != cr2[i];
  }
  CHECK(bad_sse == 0);
  CHECK(bad_ycc == 0);
  CHECK(bad_rgb == 0);
  CHECK(bad_def == 0);
  // Blocks: random samples, smooth ramps and flat blocks (exact ties at the DC) at qualities with Q = 1 and Q = 255.
  float scale[64];
  math::jpeg::fl_scale_table(scale);
  std::uint32_t s = 12345;
  std::int64_t bad_q = 0, bad_s = 0;
  for (int quality : {1, 10, 50, 75, 90, 97, 100})
    for (int chroma = 0; chroma < 2; ++chroma) {
      float qt[64];
      const auto t = core::quant_table(quality, chroma == 1);
      for (int k = 0; k < 64; ++k) qt[k] = float(t[k]);
      for (int trial = 0; trial < 3000; ++trial) {
        std::uint8_t from[8 * 11], to1[8 * 11], to2[8 * 11];
        for (int i = 0; i < 88; ++i) {
          s = s * 1664525u + 1013904223u;
          const int kind = trial % 3;
          from[i] = kind == 0   ? std::uint8_t(s >> 24)
                    : kind == 1 ? std::uint8_t((trial + 3 * (i % 11) + 5 * (i / 11)) & 255)
                                : std::uint8_t(trial & 255);
        }
        std::int16_t q1[64], q2[64];
        const std::uint64_t n1 = fast.block(from, 11, scale, qt, q1, to1, 11);
        const std::uint64_t n2 = port.block(from, 11, scale, qt, q2, to2, 11);
        bad_q += n1 != n2;
        for (int k = 0; k < 64; ++k) bad_q += q1[k] != q2[k];
        for (int i = 0; i < 8; ++i)
          for (int j = 0; j < 8; ++j) bad_s += to1[i * 11 + j] != to2[i * 11 + j];
        // Two blocks at once (the AVX-512 stage where the CPU has it): the second block starts 3 samples on.
        for (const cpu::jpeg::Stages* two : {&fast, &port}) {
          std::uint8_t from2[8 * 19], to3[8 * 19] = {};
          for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 19; ++j) from2[i * 19 + j] = from[(i * 19 + j) % 88];
          std::int16_t qa[64], qb[64], q3[128];
          std::uint8_t ta[8 * 19], tb[8 * 19];
          std::uint64_t nz[2];
          two->block2(from2 + 3, 19, scale, qt, q3, to3 + 3, 19, nz);
          bad_q += nz[0] != port.block(from2 + 3, 19, scale, qt, qa, ta, 19);
          bad_q += nz[1] != port.block(from2 + 11, 19, scale, qt, qb, tb, 19);
          for (int k = 0; k < 64; ++k) bad_q += q3[k] != qa[k] || q3[64 + k] != qb[k];
          for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j)
              bad_s += to3[i * 19 + 3 + j] != ta[i * 19 + j] || to3[i * 19 + 11 + j] != tb[i * 19 + j];
        }
      }
    }
  CHECK(bad_q == 0);
  CHECK(bad_s == 0);
}

// 4:2:0 against its definition: the chroma planes' q are math::jpeg::forward_quantize of the h2v2 box averages
// (libjpeg's bias 1, 2, 1, 2, ...) of the edge-replicated image; luma as 4:4:4; the reconstruction repeats chroma.
TEST_CASE("compress cpu: 4:2:0 coefficients are those of libjpeg's h2v2 downsampling", "[compress]") {
  for (const auto& size : {std::pair<std::int64_t, std::int64_t>{21, 35}, {16, 16}, {1, 1}, {40, 17}}) {
    const std::int64_t h = size.first, w = size.second;  // not a structured binding: the lambda below uses them
    const core::Dataset in = image(h, w, 3, 5);
    core::CompressRequest r;
    r.quality = 60;
    r.keep_coefficients = true;
    const core::CompressResult full = cpu_compressor().run(r, in);
    r.sampling = core::ChromaSampling::k420;
    const core::CompressResult sub = cpu_compressor().run(r, in);
    const core::QuantizedCoefficients& q = sub.quantized;
    INFO(h << "x" << w);
    REQUIRE(q.planes.size() == 3);
    CHECK(q.sampling == core::ChromaSampling::k420);
    CHECK(q.chroma_blocks_high == (h + 15) / 16);
    CHECK(q.chroma_blocks_wide == (w + 15) / 16);
    CHECK(q.planes[0] == full.quantized.planes[0]);
    CHECK(sub.coefficients == (q.blocks_high * q.blocks_wide + 2 * q.chroma_blocks_high * q.chroma_blocks_wide) * 64);
    float scale[64], qt[64];
    math::jpeg::fl_scale_table(scale);
    const auto t = core::quant_table(60, true);
    for (int k = 0; k < 64; ++k) qt[k] = float(t[k]);
    auto sample = [&](int pl, std::int64_t y, std::int64_t x) {
      y = std::min(y, h - 1), x = std::min(x, w - 1);
      const auto ycc = core::rgb_to_ycc(in.tensor.get(y * w + x), in.tensor.get(h * w + y * w + x),
                                        in.tensor.get(2 * h * w + y * w + x));
      return int(ycc[pl]);
    };
    std::int64_t bad = 0;
    for (int pl = 1; pl < 3; ++pl)
      for (std::int64_t by = 0; by < q.chroma_blocks_high; ++by)
        for (std::int64_t bx = 0; bx < q.chroma_blocks_wide; ++bx) {
          float x[64];
          for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j) {
              const std::int64_t yy = 8 * by + i, xx = 8 * bx + j;
              const int a = sample(pl, 2 * yy, 2 * xx), b = sample(pl, 2 * yy, 2 * xx + 1);
              const int c = sample(pl, 2 * yy + 1, 2 * xx), d = sample(pl, 2 * yy + 1, 2 * xx + 1);
              x[8 * i + j] = float((a + b + c + d + 1 + int(xx & 1)) >> 2) - 128.f;
            }
          std::int16_t want[64];
          math::jpeg::forward_quantize(x, scale, qt, want);
          const std::int16_t* got = q.planes[pl].data() + (by * q.chroma_blocks_wide + bx) * 64;
          for (int k = 0; k < 64; ++k) bad += got[k] != want[k];
        }
    CHECK(bad == 0);
    CHECK(sub.image.empty());  // with the coefficients kept, the caller decodes them: no reconstruction here
    r.keep_coefficients = false;
    const core::CompressResult rec = cpu_compressor().run(r, in);
    CHECK(rec.quantized.planes.empty());
    CHECK(core::psnr_db(core::mse(in.tensor, rec.image), 255) > 20);
  }
  // Other modes refuse it.
  core::CompressRequest r;
  r.mode = core::CompressMode::kThreshold;
  r.threshold = 1;
  r.sampling = core::ChromaSampling::k420;
  CHECK_THROWS_AS(cpu_compressor().run(r, image(8, 8, 3, 1)), Error);
}

// core::blockiness against its definition (per channel, mean |difference| across 8-pixel block boundaries minus
// inside), integer images (the integer path) and non-integer ones (the double path), odd sizes.
TEST_CASE("compress core: blockiness equals its definition", "[compress]") {
  auto reference = [](const core::HostTensor& img) {
    const std::int64_t h = img.rows(), w = img.cols();
    double total = 0;
    for (std::int64_t c = 0; c < img.channels(); ++c) {
      double edge = 0, inner = 0;
      std::int64_t ne = 0, ni = 0;
      auto add = [&](std::int64_t a, std::int64_t b, bool at_edge) {
        const double d = std::abs(img.get(c * h * w + a) - img.get(c * h * w + b));
        (at_edge ? edge : inner) += d;
        ++(at_edge ? ne : ni);
      };
      for (std::int64_t i = 0; i < h; ++i)
        for (std::int64_t j = 1; j < w; ++j) add(i * w + j, i * w + j - 1, j % 8 == 0);
      for (std::int64_t i = 1; i < h; ++i)
        for (std::int64_t j = 0; j < w; ++j) add(i * w + j, (i - 1) * w + j, i % 8 == 0);
      total += (ne ? edge / double(ne) : 0.0) - (ni ? inner / double(ni) : 0.0);
    }
    return total / double(img.channels());
  };
  for (auto [h, w] : {std::pair<std::int64_t, std::int64_t>{21, 35}, {64, 64}, {9, 3}, {1, 40}}) {
    const core::Dataset in = image(h, w, 3, 11);
    CHECK(core::blockiness(in.tensor) == reference(in.tensor));
    core::HostTensor f = in.tensor.clone();
    for (std::int64_t i = 0; i < f.elements(); ++i) f.set(i, f.get(i) * 0.37 - 3.1);
    CHECK(core::blockiness(f) == reference(f));
    const core::HostTensor d = in.tensor.to(core::Precision::kF64);
    CHECK(core::blockiness(d) == reference(d));
  }
}

// core::blockiness8 (interleaved) and blockiness8_planes on 8-bit samples equal core::blockiness of the same image's
// planes, bit for bit (the
// report gives the same value whichever route measured it): 1 to 4 channels, odd sizes, rows longer than one int32
// block of lanes, extreme values.
TEST_CASE("compress core: blockiness8 of 8-bit samples (interleaved, planes) equals blockiness", "[compress]") {
  std::mt19937 rng(8);
  for (std::int64_t c = 1; c <= 4; ++c)
    for (auto [h, w] :
         {std::pair<std::int64_t, std::int64_t>{21, 35}, {64, 64}, {9, 3}, {1, 40}, {17, 1}, {3, 70001}, {40, 17}}) {
      std::vector<std::uint8_t> s(static_cast<std::size_t>(h * w * c));
      const int mode = static_cast<int>(rng() % 3);  // random, blocky, or 0/255 stripes
      for (std::size_t k = 0; k < s.size(); ++k) {
        const std::int64_t px = static_cast<std::int64_t>(k) / c, i = px / w, j = px % w;
        s[k] = mode == 0 ? static_cast<std::uint8_t>(rng() % 256)
               : mode == 1
                   ? static_cast<std::uint8_t>((i / 8 * 37 + j / 8 * 91 + static_cast<std::int64_t>(k % c) * 13) % 256)
                   : static_cast<std::uint8_t>((j + i) % 2 == 0 ? 255 : 0);
      }
      core::HostTensor planes(core::Shape2{h, w}, c, core::Precision::kF32);
      for (std::int64_t q = 0; q < c; ++q)
        for (std::int64_t p = 0; p < h * w; ++p) planes.set(q * h * w + p, s[static_cast<std::size_t>(p * c + q)]);
      INFO(h << "x" << w << "x" << c << " mode " << mode);
      CHECK(core::blockiness8(s.data(), h, w, c) == core::blockiness(planes));
      std::vector<std::uint8_t> p8(s.size());
      for (std::int64_t q = 0; q < c; ++q)
        for (std::int64_t p = 0; p < h * w; ++p)
          p8[static_cast<std::size_t>(q * h * w + p)] = s[static_cast<std::size_t>(p * c + q)];
      CHECK(core::blockiness8_planes(p8.data(), h, w, c) == core::blockiness(planes));
    }
}

// CompressRequest::blockiness: the CPU compressor's loop on 8-bit samples (no planes) measures the reconstruction's
// blockiness; 4:4:4 and gray equal core::blockiness of the image the planar route reconstructs (the same decoder
// values), and the squared error is the same; 4:2:0 (libjpeg's fancy upsampling in the loop) is finite and near the
// 4:4:4 value's order of magnitude.
TEST_CASE("compress cpu: the reconstruction's blockiness measured in the loop on 8-bit samples", "[compress]") {
  for (std::int64_t c : {1, 3})
    for (auto [h, w] : {std::pair<std::int64_t, std::int64_t>{37, 53}, {64, 80}}) {
      const core::Dataset planes = image(h, w, c, 21);
      auto s = std::make_shared<core::Samples8>();
      s->rows = h;
      s->cols = w;
      s->channels = static_cast<int>(c);
      s->bytes = core::AlignedBuffer(static_cast<std::size_t>(h * w * c));
      for (std::int64_t p = 0; p < h * w; ++p)
        for (std::int64_t q = 0; q < c; ++q)
          s->data()[p * c + q] = static_cast<unsigned char>(planes.tensor.get(q * h * w + p));
      const core::Dataset eight(core::HostTensor(), core::SourceKind::kImage8, s);
      for (auto sampling : {core::ChromaSampling::k444, core::ChromaSampling::k420}) {
        if (c == 1 && sampling == core::ChromaSampling::k420) continue;
        core::CompressRequest r;
        r.quality = 35;
        r.sampling = sampling;
        r.keep_coefficients = true;
        core::CompressRequest ri = r, rb = r;
        ri.keep_image = true;
        rb.blockiness = true;
        const core::CompressResult with_image = cpu_compressor().run(ri, planes);
        const core::CompressResult measured = cpu_compressor().run(rb, eight);
        INFO(h << "x" << w << "x" << c << (sampling == core::ChromaSampling::k420 ? " 4:2:0" : " 4:4:4"));
        REQUIRE(std::isfinite(measured.blockiness));
        CHECK(measured.image.elements() == 0);
        CHECK(measured.quantized.planes == with_image.quantized.planes);
        if (sampling == core::ChromaSampling::k444) {
          CHECK(measured.blockiness == core::blockiness(with_image.image));
          CHECK(measured.mse == with_image.mse);
        } else {
          CHECK(std::abs(measured.blockiness - core::blockiness(with_image.image)) < 0.5);
        }
      }
    }
}

// A batch under -b auto sends its .jpg entries to the GPU's coefficient path once warm_up() says the device is ready;
// where it has none (a CUDA build on a host without a GPU), the inputs must stay pixels for the CPU compressor.
TEST_CASE("compressors: warm_up says whether the compressor can run here", "[compress]") {
  const core::Backend* cuda = app::registry().find("cuda-fft2d");
  const bool gpu = cuda != nullptr && cuda->runtime().usable().ok;
  for (const core::Compressor* c : app::compressors()) {
    INFO(c->name());
    CHECK(c->warm_up() == (c->on_gpu() ? gpu : true));
  }
}
