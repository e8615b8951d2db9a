// `dctool lot IN -o OUT [--inverse]`: output shape, round trip, and the refusal of shapes
// that are not multiples of 8 (exit 3, one line, no output left behind).
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "app_support.hpp"
#include "core/formats.hpp"
#include "core/metrics.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

std::vector<double> random_values(std::int64_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = u(g);
  return v;
}

dct::core::HostTensor load(const std::string& path) {
  dct::core::ReadOptions ro;
  ro.prec = dct::core::Precision::kF64;
  return dct::core::read_any(path, ro, nullptr).tensor;
}

}  // namespace

TEST_CASE("lot cli: lot -> lot --inverse round trip, output shape (H+8)x(W+8)", "[app][lot]") {
  TempDir dir;
  using Hw = std::pair<std::int64_t, std::int64_t>;
  const Hw hw = GENERATE(Hw{16, 24}, Hw{64, 64}, Hw{8, 40});
  const std::int64_t h = hw.first, w = hw.second;
  const std::string prec = GENERATE("f32", "f64");
  CAPTURE(h, w, prec);
  const auto x = random_values(h * w, static_cast<unsigned>(h * 131 + w));
  write_npy_f64(dir.file("x.npy"), h, w, x);
  RunResult r = run_dctool("-p " + prec + " lot " + q(dir.file("x.npy")) + " -o " + q(dir.file("y.npy")));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto y = load(dir.file("y.npy"));
  CHECK(y.rows() == h + 8);
  CHECK(y.cols() == w + 8);
  r = run_dctool("-p " + prec + " --json lot --inverse " + q(dir.file("y.npy")) + " -o " + q(dir.file("z.npy")));
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "\"op\": \"ilot\""));
  const auto z = load(dir.file("z.npy"));
  REQUIRE(z.shape() == (dct::core::Shape2{h, w}));
  dct::core::HostTensor ref(dct::core::Shape2{h, w}, 1, dct::core::Precision::kF64);
  for (std::int64_t i = 0; i < h * w; ++i) ref.set(i, x[static_cast<std::size_t>(i)]);
  CHECK(dct::core::relative_l2(z, ref) <= (prec == "f32" ? 1e-5 : 1e-12));
}

TEST_CASE("lot cli: an image round trips exactly (camera.png -> coefficients -> png)", "[app][lot]") {
  TempDir dir;
  const std::string cam = source_dir() + "/data/camera.png";
  REQUIRE(run_dctool("lot " + q(cam) + " -o " + q(dir.file("c.npy"))).code == 0);
  REQUIRE(run_dctool("lot --inverse " + q(dir.file("c.npy")) + " -o " + q(dir.file("c.png"))).code == 0);
  const RunResult r = run_dctool("--json psnr " + q(cam) + " " + q(dir.file("c.png")));
  CHECK(contains(r.out, "\"psnr_db\": null"));
}

TEST_CASE("lot cli: shapes that are not multiples of 8 -> exit 3 with the reason", "[app][lot][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("bad.npy"), 12, 16, random_values(12 * 16, 1));
  RunResult r = run_dctool("lot " + q(dir.file("bad.npy")) + " -o " + q(dir.file("out.npy")));
  check_one_line_error(r, 3, {"bad.npy", "12x16", "multiples of 8"});
  CHECK_FALSE(exists(dir.file("out.npy")));
  // --inverse needs both dims >= 16 as well (an 8x16 input is no LOT output).
  write_npy_f64(dir.file("small.npy"), 8, 16, random_values(8 * 16, 2));
  r = run_dctool("lot --inverse " + q(dir.file("small.npy")) + " -o " + q(dir.file("out.npy")));
  check_one_line_error(r, 3, {"small.npy", ">= 16"});
  CHECK_FALSE(exists(dir.file("out.npy")));
  // Coefficients are not an image.
  write_npy_f64(dir.file("ok.npy"), 16, 16, random_values(16 * 16, 3));
  r = run_dctool("lot " + q(dir.file("ok.npy")) + " -o " + q(dir.file("out.png")));
  check_one_line_error(r, 2, {"out.png"});
  CHECK_FALSE(exists(dir.file("out.png")));
}

TEST_CASE("lot cli: bench runs the lot ops on cpu-lot", "[app][lot]") {
  const RunResult r =
      run_dctool("bench --ops lot,ilot --sizes 64x64 --backends cpu-lot --reps 2 --warmup 1 --format csv");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "lot,cpu-lot"));
  CHECK(contains(r.out, "ilot,cpu-lot"));
}
