// core/compress: the Annex K tables scaled as libjpeg, the colour conversion, the keep count, the entropy of a
// histogram; and the CPU compressor's invariants on small synthetic images (sizes not multiples of 8, alpha).
#include <catch2/catch.hpp>

#include <cmath>

#include "app/registry.hpp"
#include "core/compress.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"

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

const core::Compressor& cpu() { return *app::compressors().back(); }

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
      const core::CompressResult res = cpu().run(r, in);
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
      CHECK(res.entropy_bpp() > 0);
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

TEST_CASE("compress cpu: jpeg at quality 100 is near lossless; the transform backend is selectable", "[compress]") {
  const core::Dataset in = image(64, 48, 3, 9);
  core::CompressRequest r;
  r.quality = 100;
  for (const char* b : {"auto", "cpu-8x8-flmad", "cpu-8x8-aan", "cpu-fftw", "cpu-8x8-naive"}) {
    r.backend = b;
    const core::CompressResult res = cpu().run(r, in);
    INFO(b << " -> " << res.backend);
    CHECK(core::psnr_db(core::mse(in.tensor, res.image), 255) > 40);
    if (std::string(b) != "auto") CHECK(res.backend == b);
  }
  const core::Dataset m{in.tensor.clone(), core::SourceKind::kMatrix};  // compress takes images only
  CHECK_THROWS_AS(cpu().run(r, m), Error);
}
