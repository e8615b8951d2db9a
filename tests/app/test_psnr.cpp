// dctool psnr REF TEST [--peak P] [--alpha]: the text and JSON formats (README "Commands"), known MSE / PSNR / max|err|
// on hand-made inputs, the peak rule (255 for 8-bit, 65535 for 16-bit, max|REF| for float matrices, --peak), "inf"
// (text) and null (JSON) for identical inputs, different shapes as an input error (exit 3), alpha and gray/RGB.
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "app_support.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

const std::regex kTextLine(R"(^PSNR (inf|-?[0-9]+\.[0-9]{2}) dB  MSE ([-+0-9.eE]+|0)  max\|err\| ([-+0-9.eE]+)\n?$)");

struct Parsed {
  bool ok = false;
  double psnr = NAN, mse = NAN, maxerr = NAN;
};

Parsed parse_text(const std::string& out) {
  Parsed p;
  std::smatch m;
  if (!std::regex_match(out, m, kTextLine)) return p;
  p.ok = true;
  p.psnr = m[1] == "inf" ? INFINITY : std::stod(m[1]);
  p.mse = std::stod(m[2]);
  p.maxerr = std::stod(m[3]);
  return p;
}

struct Expect {
  double mse, maxerr, peak;
  double psnr() const { return 10.0 * std::log10(peak * peak / mse); }
};

Expect expect(const std::vector<double>& a, const std::vector<double>& b, double peak) {
  double s = 0, mx = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    s += (a[i] - b[i]) * (a[i] - b[i]);
    mx = std::max(mx, std::abs(a[i] - b[i]));
  }
  return {s / static_cast<double>(a.size()), mx, peak};
}

// Runs `psnr` in text and JSON form and checks both against `e`.
void check_psnr(const TempDir& dir, const std::string& args, const Expect& e) {
  INFO("dctool psnr " << args << "\nexpected PSNR " << e.psnr() << " MSE " << e.mse << " max|err| " << e.maxerr);
  const RunResult t = run_dctool("psnr " + args);
  INFO("text: " << t.out << t.err);
  REQUIRE(t.code == 0);
  const Parsed p = parse_text(t.out);
  CHECK(p.ok);
  CHECK(std::abs(p.psnr - e.psnr()) <= 0.0051);
  CHECK(std::abs(p.mse - e.mse) <= 0.01 * e.mse);
  CHECK(std::abs(p.maxerr - e.maxerr) <= 1e-6 + 0.01 * e.maxerr);

  const RunResult j = run_dctool("--json psnr " + args);
  INFO("json: " << j.out << j.err);
  REQUIRE(j.code == 0);
  const FlatJson fj = parse_json_text(dir, j.out);
  INFO(fj.error);
  REQUIRE(fj.type == "dict");
  REQUIRE(fj.has("psnr_db"));
  REQUIRE(fj.has("mse"));
  REQUIRE(fj.has("max_abs_err"));
  CHECK(std::abs(std::stod(fj.at("psnr_db")) - e.psnr()) <= 0.0051);
  CHECK(std::abs(std::stod(fj.at("mse")) - e.mse) <= 0.01 * e.mse);
  CHECK(std::abs(std::stod(fj.at("max_abs_err")) - e.maxerr) <= 1e-6 + 0.01 * e.maxerr);
}

// 3x2 float matrices: diffs 0, 0.5, 0, 1, -3, 0 -> MSE 10.25/6, max|err| 3; max|REF| = 4.
const std::vector<double> kRef = {1.5, -4, 2, 0.25, 3, 3};
const std::vector<double> kTest = {1.5, -3.5, 2, 1.25, 0, 3};

}  // namespace

TEST_CASE("psnr: float npy matrices give the known MSE and max abs error with peak max abs REF", "[app][psnr]") {
  TempDir dir;
  write_npy_f64(dir.file("ref.npy"), 3, 2, kRef);
  write_npy_f64(dir.file("test.npy"), 3, 2, kTest);
  check_psnr(dir, q(dir.file("ref.npy")) + " " + q(dir.file("test.npy")), expect(kRef, kTest, 4.0));
  // Swapping the arguments changes the peak (max|REF| = 3.5 now), not the MSE.
  check_psnr(dir, q(dir.file("test.npy")) + " " + q(dir.file("ref.npy")), expect(kRef, kTest, 3.5));
}

TEST_CASE("psnr: --timing prints the stage table on stderr, stdout unchanged", "[app][psnr]") {
  TempDir dir;
  write_npy_f64(dir.file("ref.npy"), 3, 2, kRef);
  write_npy_f64(dir.file("test.npy"), 3, 2, kTest);
  const RunResult r = run_dctool("--timing psnr " + q(dir.file("ref.npy")) + " " + q(dir.file("test.npy")));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(parse_text(r.out).ok);
  for (const char* stage : {"read_ref", "read_test", "metrics", "total"}) CHECK(contains(r.err, stage));
  CHECK(run_dctool("psnr " + q(dir.file("ref.npy")) + " " + q(dir.file("test.npy"))).err.empty());
}

TEST_CASE("psnr: --peak overrides the default peak", "[app][psnr]") {
  TempDir dir;
  write_npy_f64(dir.file("ref.npy"), 3, 2, kRef);
  write_npy_f64(dir.file("test.npy"), 3, 2, kTest);
  check_psnr(dir, q(dir.file("ref.npy")) + " " + q(dir.file("test.npy")) + " --peak 10", expect(kRef, kTest, 10.0));
  check_psnr(dir, q(dir.file("ref.npy")) + " " + q(dir.file("test.npy")) + " --peak 255", expect(kRef, kTest, 255.0));
}

TEST_CASE("psnr: text input and float32 npy work like float64 npy", "[app][psnr]") {
  TempDir dir;
  spit(dir.file("ref.txt"), "1.5 -4\n2 0.25\n3 3\n");
  std::vector<float> t32(kTest.begin(), kTest.end());
  spit(dir.file("test.npy"), npy_bytes(npy_header("<f4", "(3, 2)"), raw_bytes(t32)));
  check_psnr(dir, q(dir.file("ref.txt")) + " " + q(dir.file("test.npy")), expect(kRef, kTest, 4.0));
}

TEST_CASE("psnr: 8-bit images use peak 255 and 16-bit images peak 65535", "[app][psnr][image]") {
  TempDir dir;
  const std::string py = dctest_py(dir);
  // 8-bit gray 4x4 pair, written as png (and as pgm) by the test's own encoder.
  std::vector<double> a8(16), b8(16);
  for (int i = 0; i < 16; ++i) {
    a8[i] = 10 * i + 3;
    b8[i] = a8[i] + ((i % 3) - 1) * (i % 5);
  }
  write_npy_f64(dir.file("a8.npy"), 4, 4, a8);
  write_npy_f64(dir.file("b8.npy"), 4, 4, b8);
  REQUIRE(run_cmd(py + " pngwrite " + q(dir.file("a8.npy")) + " " + q(dir.file("a8.png")) + " 8").code == 0);
  REQUIRE(run_cmd(py + " pngwrite " + q(dir.file("b8.npy")) + " " + q(dir.file("b8.png")) + " 8").code == 0);
  REQUIRE(run_cmd(py + " pgmwrite " + q(dir.file("b8.npy")) + " " + q(dir.file("b8.pgm"))).code == 0);
  check_psnr(dir, q(dir.file("a8.png")) + " " + q(dir.file("b8.png")), expect(a8, b8, 255.0));
  check_psnr(dir, q(dir.file("a8.png")) + " " + q(dir.file("b8.pgm")), expect(a8, b8, 255.0));

  // 16-bit gray 3x3 pair.
  std::vector<double> a16 = {0, 1000, 65535, 30000, 123, 4567, 8910, 11, 40000};
  std::vector<double> b16 = a16;
  b16[1] += 300;
  b16[4] += 7;
  b16[8] -= 2000;
  write_npy_f64(dir.file("a16.npy"), 3, 3, a16);
  write_npy_f64(dir.file("b16.npy"), 3, 3, b16);
  REQUIRE(run_cmd(py + " pngwrite " + q(dir.file("a16.npy")) + " " + q(dir.file("a16.png")) + " 16").code == 0);
  REQUIRE(run_cmd(py + " pngwrite " + q(dir.file("b16.npy")) + " " + q(dir.file("b16.png")) + " 16").code == 0);
  check_psnr(dir, q(dir.file("a16.png")) + " " + q(dir.file("b16.png")), expect(a16, b16, 65535.0));
}

TEST_CASE("psnr: multi-channel MSE is over all samples", "[app][psnr]") {
  TempDir dir;
  std::vector<double> a(12), b(12);
  for (int i = 0; i < 12; ++i) {
    a[i] = i * 1.25 - 3;
    b[i] = a[i] + (i == 5 ? 2.0 : i == 10 ? -1.0 : 0.0);
  }
  spit(dir.file("a.npy"), npy_bytes(npy_header("<f8", "(2, 2, 3)"), raw_bytes(a)));
  spit(dir.file("b.npy"), npy_bytes(npy_header("<f8", "(2, 2, 3)"), raw_bytes(b)));
  check_psnr(dir, q(dir.file("a.npy")) + " " + q(dir.file("b.npy")), expect(a, b, 10.75));
}

TEST_CASE("psnr: identical inputs give inf in text and null in JSON", "[app][psnr]") {
  TempDir dir;
  write_npy_f64(dir.file("ref.npy"), 3, 2, kRef);
  const std::string cam = source_dir() + "/data/camera.png";
  for (const std::string& args : {q(dir.file("ref.npy")) + " " + q(dir.file("ref.npy")), q(cam) + " " + q(cam)}) {
    INFO("psnr " << args);
    const RunResult t = run_dctool("psnr " + args);
    INFO(t.out << t.err);
    CHECK(t.code == 0);
    CHECK(std::regex_match(t.out, kTextLine));
    const Parsed p = parse_text(t.out);
    CHECK(std::isinf(p.psnr));
    CHECK(p.mse == 0.0);
    CHECK(p.maxerr == 0.0);
    const RunResult j = run_dctool("--json psnr " + args);
    INFO(j.out << j.err);
    CHECK(j.code == 0);
    const FlatJson fj = parse_json_text(dir, j.out);
    REQUIRE(fj.type == "dict");
    CHECK(fj.at("psnr_db") == "null");
    check_json_typed(dir, j.out);
    CHECK(std::stod(fj.at("mse")) == 0.0);
    CHECK(std::stod(fj.at("max_abs_err")) == 0.0);
  }
}

TEST_CASE("psnr: different shapes are an input error (exit 3)", "[app][psnr][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("ref.npy"), 3, 2, kRef);
  write_npy_f64(dir.file("test.npy"), 2, 3, kTest);
  const RunResult r = run_dctool("psnr " + q(dir.file("ref.npy")) + " " + q(dir.file("test.npy")));
  check_one_line_error(r, 3);
  CHECK((contains(r.err, "test.npy") || contains(r.err, "ref.npy")));
  CHECK(r.out.empty());
  // Channels differ: camera (gray) against astronaut (RGB).
  const RunResult c =
      run_dctool("psnr " + q(source_dir() + "/data/camera.png") + " " + q(source_dir() + "/data/astronaut.png"));
  check_one_line_error(c, 3);
  // A missing file is an input error naming it.
  const RunResult m = run_dctool("psnr " + q(dir.file("ref.npy")) + " " + q(dir.file("nope.npy")));
  check_one_line_error(m, 3, {"nope.npy"});
}

TEST_CASE("psnr: images compare colour planes (alpha with --alpha) and gray against RGB with equal planes",
          "[app][psnr]") {
  TempDir dir;
  // Two RGBA images with the same colours and different alpha; an RGB one whose planes differ.
  REQUIRE(run_python(dir, R"(
import sys
import numpy as np
from PIL import Image
d = sys.argv[1]
rng = np.random.default_rng(5)
rgb = rng.integers(0, 256, size=(24, 40, 3), dtype=np.uint8)
for name, a in (("a7.png", 7), ("a200.png", 200)):
    Image.fromarray(np.concatenate([rgb, np.full((24, 40, 1), a, np.uint8)], 2), "RGBA").save(d + "/" + name)
Image.fromarray(rgb, "RGB").save(d + "/rgb.png")
Image.fromarray(rgb[:, :, 0], "L").save(d + "/gray.png")
Image.fromarray(np.repeat(rgb[:, :, :1], 3, axis=2), "RGB").save(d + "/gray_rgb.png")
)") == 0);
  const auto psnr = [&](const std::string& args) { return run_dctool("psnr " + args); };
  RunResult r = psnr(q(dir.file("a7.png")) + " " + q(dir.file("a200.png")));
  CHECK(r.code == 0);
  CHECK(parse_text(r.out).psnr == INFINITY);  // alpha ignored
  r = psnr("--alpha " + q(dir.file("a7.png")) + " " + q(dir.file("a200.png")));
  CHECK(r.code == 0);
  CHECK(parse_text(r.out).mse == Approx(193.0 * 193.0 / 4));  // one plane of four differs by 193
  r = psnr(q(dir.file("rgb.png")) + " " + q(dir.file("a7.png")));
  CHECK(r.code == 0);
  CHECK(parse_text(r.out).psnr == INFINITY);
  r = psnr(q(dir.file("gray.png")) + " " + q(dir.file("gray_rgb.png")));
  CHECK(r.code == 0);
  CHECK(parse_text(r.out).psnr == INFINITY);
  r = psnr(q(dir.file("gray_rgb.png")) + " " + q(dir.file("gray.png")));
  CHECK(r.code == 0);
  r = psnr(q(dir.file("gray.png")) + " " + q(dir.file("rgb.png")));  // planes differ: a shape mismatch
  CHECK(r.code == 3);
}
