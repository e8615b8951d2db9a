// compress --mode lot (jpeg with the 8x8 LOT) and the report's blockiness measure
// (core::blockiness): PSNR in a sane range, report fields, LOT less blocky than jpeg at Q10.
#include <regex>
#include <string>

#include "app_support.hpp"
#include "core/compress.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

double field(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\": ([-0-9.eE+]+)");
  std::smatch m;
  INFO(json << " should hold " << key);
  REQUIRE(std::regex_search(json, m, re));
  return std::stod(m[1].str());
}

std::string compress(const TempDir& dir, const std::string& image, const std::string& mode, int quality) {
  const std::string tag = mode + std::to_string(quality);
  const RunResult r = run_dctool("compress " + q(image) + " -o " + q(dir.file(tag + ".png")) + " --mode " + mode +
                                 " --quality " + std::to_string(quality) + " --report " + q(dir.file(tag + ".json")));
  INFO(r.err);
  REQUIRE(r.code == 0);
  return slurp(dir.file(tag + ".json"));
}

}  // namespace

TEST_CASE("lot compress: camera.png at Q 10 and 50, report fields, blockiness below jpeg's", "[app][lot]") {
  TempDir dir;
  const std::string cam = source_dir() + "/data/camera.png";
  for (int quality : {10, 50}) {
    CAPTURE(quality);
    const std::string lot = compress(dir, cam, "lot", quality), jpeg = compress(dir, cam, "jpeg", quality);
    CHECK(contains(lot, "\"mode\": \"lot\""));
    CHECK(contains(lot, "\"quality\": " + std::to_string(quality)));
    CHECK(contains(lot, "\"backend\": \"cpu-lot\""));
    for (const char* k : {"psnr_db", "mse", "nonzero_fraction", "entropy_bpp", "blockiness", "blockiness_input"}) {
      field(lot, k);
      field(jpeg, k);
    }
    const double p = field(lot, "psnr_db"), pj = field(jpeg, "psnr_db");
    CHECK(p > (quality == 10 ? 25.0 : 30.0));
    CHECK(p < (quality == 10 ? 32.0 : 38.0));
    CHECK(std::abs(p - pj) < 1.5);  // same tables, comparable rate
    CHECK(field(lot, "entropy_bpp") > 0.1);
    CHECK(field(lot, "entropy_bpp") < 1.5 * field(jpeg, "entropy_bpp"));
    // Measured (camera.png): blockiness jpeg 5.30 / lot 1.53 at Q10, 2.41 / 0.97 at Q50.
    CHECK(field(lot, "blockiness") < field(jpeg, "blockiness"));
    CHECK(field(lot, "blockiness_input") == field(jpeg, "blockiness_input"));
  }
}

TEST_CASE("lot compress: an RGB image (astronaut.png) and odd sizes are handled", "[app][lot]") {
  TempDir dir;
  const std::string json = compress(dir, source_dir() + "/data/astronaut.png", "lot", 30);
  CHECK(field(json, "psnr_db") > 25.0);
  // 13x21 (not multiples of 8): padded, transformed, cropped back.
  std::string pgm = "P5\n21 13\n255\n";
  for (int i = 0; i < 13 * 21; ++i) pgm += static_cast<char>((i * 37) % 251);
  spit(dir.file("odd.pgm"), pgm);
  const RunResult r = run_dctool("--json compress " + q(dir.file("odd.pgm")) + " -o " + q(dir.file("odd.png")) +
                                 " --mode lot --quality 90");
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(run_dctool("--json psnr " + q(dir.file("odd.pgm")) + " " + q(dir.file("odd.png"))).code == 0);
}

TEST_CASE("lot compress: blockiness is 0 on flat images and positive on 8x8 blocks", "[lot]") {
  using dct::core::HostTensor;
  HostTensor flat(dct::core::Shape2{32, 32}, 1, dct::core::Precision::kF64);
  for (std::int64_t i = 0; i < flat.elements(); ++i) flat.set(i, 100);
  CHECK(dct::core::blockiness(flat) == 0.0);
  HostTensor tiles = flat.clone();
  for (std::int64_t i = 0; i < 32; ++i)
    for (std::int64_t j = 0; j < 32; ++j) tiles.set(i * 32 + j, double((i / 8 + j / 8) % 2) * 10);
  // Every boundary pair differs by 10, no pair inside a block does.
  CHECK(dct::core::blockiness(tiles) == Approx(10.0));
}
