// Images through the CLI: multi-channel input is transformed per channel (astronaut.png is 512x512 RGB),
// the dct2 -> idct2 -> .png round trip of camera.png is lossless or nearly so, and writing a float matrix
// to an image rounds to nearest and clamps to 0..255.
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "app_support.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

std::string data(const std::string& name) { return source_dir() + "/data/" + name; }

// Decodes `png` with dctest.py (no PIL needed) into a .npy next to it.
std::string decode_png(const TempDir& dir, const std::string& png, const std::string& npy) {
  const RunResult r = run_cmd(dctest_py(dir) + " pngread " + q(png) + " " + q(npy));
  INFO("pngread " << png << ": " << r.err);
  REQUIRE(r.code == 0);
  return npy;
}

// Parses the PSNR (dB, +inf for "inf") from `dctool psnr` text output; NaN when the format is wrong.
double parse_psnr(const std::string& out) {
  std::smatch m;
  static const std::regex re(R"(PSNR (inf|[-+0-9.eE]+) dB)");
  if (!std::regex_search(out, m, re)) return std::nan("");
  return m[1] == "inf" ? INFINITY : std::stod(m[1]);
}

}  // namespace

TEST_CASE("images: astronaut.png (RGB) dct2 gives a (512 512 3) npy matching scipy per channel", "[app][image]") {
  TempDir dir;
  const std::string ref = decode_png(dir, data("astronaut.png"), dir.file("astronaut.ref.npy"));
  const std::string cref = decode_png(dir, data("camera.png"), dir.file("camera.ref.npy"));
  // The reference decoder must agree with what the data claims to be.
  std::vector<Case> cases;
  int n = 0;
  auto add = [&](const std::string& pre, const std::string& in, const std::string& post, const std::string& r,
                 const std::string& op, const std::string& norm, const std::string& axis, const std::string& prec,
                 int block = 0) {
    const std::string out = dir.file("o" + std::to_string(n++) + ".npy");
    cases.push_back({pre + " " + q(in) + " -o " + q(out) + post, out, r, op, norm, axis, prec, block});
  };
  add("-b cpu-fftw -p f32 dct2", data("astronaut.png"), "", ref, "dct2", "none", "both", "f32");
  add("-b cpu-fftw -p f64 dct2", data("astronaut.png"), " --norm ortho", ref, "dct2", "ortho", "both", "f64");
  add("-p f64 dct4", data("astronaut.png"), " --axis cols", ref, "dct4", "none", "cols", "f64");
  add("-p f32 dct2", data("astronaut.png"), " --block 8", ref, "dct2", "ortho", "both", "f32", 8);
  add("-b cpu-fftw -p f64 dct2", data("camera.png"), " --norm ortho", cref, "dct2", "ortho", "both", "f64");
  run_cases(dir, cases);

  // Explicitly: the output of the first case is a (512, 512, 3) array.
  const RunResult shp =
      run_cmd(q(python()) + " -c " +
              q("import numpy as np; a = np.load('" + dir.file("o0.npy") + "'); print(a.shape, a.dtype)"));
  CHECK(shp.out == "(512, 512, 3) float32\n");
}

TEST_CASE("images: pgm/ppm input reads as the same 8-bit values as the png", "[app][image]") {
  TempDir dir;
  const std::string py = dctest_py(dir);
  REQUIRE(run_cmd(py + " png2pnm " + q(data("camera.png")) + " " + q(dir.file("camera.pgm"))).code == 0);
  REQUIRE(run_cmd(py + " png2pnm " + q(data("astronaut.png")) + " " + q(dir.file("astro.ppm"))).code == 0);
  const std::string cref = decode_png(dir, data("camera.png"), dir.file("camera.ref.npy"));
  const std::string aref = decode_png(dir, data("astronaut.png"), dir.file("astronaut.ref.npy"));
  std::vector<Case> cases = {
      {"-p f64 dct2 " + q(dir.file("camera.pgm")) + " -o " + q(dir.file("c.npy")) + " --norm ortho", dir.file("c.npy"),
       cref, "dct2", "ortho", "both", "f64"},
      {"-p f64 dct2 " + q(dir.file("astro.ppm")) + " -o " + q(dir.file("a.npy")) + " --norm ortho", dir.file("a.npy"),
       aref, "dct2", "ortho", "both", "f64"},
  };
  run_cases(dir, cases);
}

TEST_CASE("images: camera.png dct2 then idct2 to png round trip has psnr inf or > 60 dB", "[app][image][psnr]") {
  TempDir dir;
  const std::string cam = data("camera.png");
  for (const std::string prec : {"f32", "f64"}) {
    for (const std::string norm : {"none", "ortho"}) {
      // (.bmp is left out: stb_image_write stores gray as 24-bit BMP, which reads back as 3 channels.)
      for (const std::string ext : {".png", ".tga"}) {
        const std::string coef = dir.file("c_" + prec + norm + ".npy"), rt = dir.file("rt_" + prec + norm + ext);
        INFO("precision " << prec << ", norm " << norm << ", output " << ext);
        const RunResult a = run_dctool("-p " + prec + " dct2 " + q(cam) + " -o " + q(coef) + " --norm " + norm);
        INFO(a.err);
        REQUIRE(a.code == 0);
        const RunResult b = run_dctool("-p " + prec + " idct2 " + q(coef) + " -o " + q(rt) + " --norm " + norm);
        INFO(b.err);
        REQUIRE(b.code == 0);
        REQUIRE(exists(rt));
        const RunResult p = run_dctool("psnr " + q(cam) + " " + q(rt));
        INFO("psnr: " << p.out << p.err);
        REQUIRE(p.code == 0);
        const double db = parse_psnr(p.out);
        CHECK((std::isinf(db) || db > 60.0));
        if (ext == ".png") {
          // Independently of dctool's reader: decode the written png and compare to the original pixels.
          decode_png(dir, rt, dir.file("rt.npy"));
          const RunResult cmp =
              run_cmd(q(python()) + " -c " +
                      q("import numpy as np; a = np.load('" + dir.file("rt.npy") + "'); b = np.load('" +
                        decode_png(dir, cam, dir.file("cam.npy")) +
                        "'); print(a.shape, a.dtype, int(np.abs(a.astype(int) - b.astype(int)).max()))"));
          INFO(cmp.err);
          // Same shape, 8-bit gray, at most one level off anywhere.
          CHECK((cmp.out == "(512, 512) uint8 0\n" || cmp.out == "(512, 512) uint8 1\n"));
        }
      }
    }
  }
}

TEST_CASE("images: astronaut.png (RGB) round trip through dct2/idct2 keeps 3 channels", "[app][image]") {
  TempDir dir;
  const std::string coef = dir.file("c.npy"), rt = dir.file("rt.png");
  const RunResult a = run_dctool("-p f64 dct2 " + q(data("astronaut.png")) + " -o " + q(coef));
  INFO(a.err);
  REQUIRE(a.code == 0);
  const RunResult b = run_dctool("-p f64 idct2 " + q(coef) + " -o " + q(rt));
  INFO(b.err);
  REQUIRE(b.code == 0);
  decode_png(dir, rt, dir.file("rt.npy"));
  decode_png(dir, data("astronaut.png"), dir.file("ref.npy"));
  const RunResult cmp = run_cmd(q(python()) + " -c " +
                                q("import numpy as np; a = np.load('" + dir.file("rt.npy") + "'); b = np.load('" +
                                  dir.file("ref.npy") + "'); print(a.shape, int(np.abs(a.astype(int) - b).max()))"));
  CHECK(cmp.out == "(512, 512, 3) 0\n");
  const RunResult p = run_dctool("psnr " + q(data("astronaut.png")) + " " + q(rt));
  CHECK(p.code == 0);
  CHECK(std::isinf(parse_psnr(p.out)));
}

TEST_CASE("images: idct2 output to .png rounds to nearest and clamps to 0..255", "[app][image]") {
  TempDir dir;
  const std::string py = dctest_py(dir);
  // Coefficients whose inverse spans about -150..400 (so some values clamp at both ends).
  const std::string gen =
      "import numpy as np, scipy.fft as F\n"
      "rng = np.random.default_rng(5)\n"
      "x = rng.uniform(-150, 400, (16, 12))\n"
      "np.save('" +
      dir.file("coef.npy") +
      "', F.dctn(x, type=2, norm='ortho'))\n"
      "np.save('" +
      dir.file("want.npy") +
      "', np.clip(np.rint(x), 0, 255).astype(np.uint8))\n"
      "print(int((x < -0.5).sum() + (x >= 255.5).sum()))\n";
  spit(dir.file("gen.py"), gen);
  const RunResult g = run_cmd(q(python()) + " " + q(dir.file("gen.py")));
  INFO(g.err);
  REQUIRE(g.code == 0);
  const int n_clamped = std::stoi(g.out);
  REQUIRE(n_clamped > 0);
  const std::string out = dir.file("out.png");
  const RunResult r = run_dctool("-p f64 idct2 " + q(dir.file("coef.npy")) + " -o " + q(out) + " --norm ortho");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  decode_png(dir, out, dir.file("got.npy"));
  const RunResult cmp = run_cmd(q(python()) + " -c " +
                                q("import numpy as np; a = np.load('" + dir.file("got.npy") + "'); b = np.load('" +
                                  dir.file("want.npy") + "'); print(a.shape, a.dtype, int((a != b).sum()))"));
  CHECK(cmp.out == "(16, 12) uint8 0\n");
  // Writing a float matrix to an image "says how many values were clamped".
  INFO("expected a note with the clamp count " << n_clamped);
  CHECK(contains(lower(r.out + r.err), "clamp"));
  CHECK(contains(r.out + r.err, std::to_string(n_clamped)));
}
