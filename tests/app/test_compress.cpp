// compress (README "Compression modes and the report"): jpeg mode against libjpeg-turbo's cjpeg/djpeg -dct float,
// threshold/keep against an independent scipy implementation (scripts/compress-reference.py), the exact keep count, the
// report, and batch mode with a corrupt file.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app_support.hpp"

namespace {

using namespace dct::test;
using namespace dct::test::cli;

std::string ref_py(const TempDir& dir) {
  return "DCTEST_PY=" + q(dir.file("dctest.py")) + " " + q(python()) + " " +
         q(source_dir() + "/scripts/compress-reference.py");
}

std::string format_f(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

double number(const RunResult& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  return std::stod(r.out);
}

// Inputs: the sample images as PGM/PPM (cjpeg reads those; so does dctool through stb), and a crop of
// camera.png whose sides are not multiples of 8, made without dctool.
struct Inputs {
  TempDir dir;
  std::string gray, rgb, odd;
  Inputs() {
    dctest_py(dir);
    gray = dir.file("camera.pgm");
    rgb = dir.file("astronaut.ppm");
    odd = dir.file("camera_301x453.pgm");
    const std::string py = ref_py(dir);
    REQUIRE(run_cmd(py + " topnm " + q(source_dir() + "/data/camera.png") + " " + q(gray)).code == 0);
    REQUIRE(run_cmd(py + " topnm " + q(source_dir() + "/data/astronaut.png") + " " + q(rgb)).code == 0);
    REQUIRE(run_cmd(py + " crop " + q(source_dir() + "/data/camera.png") + " 301 453 " + q(odd)).code == 0);
  }
};

void require_libjpeg_tools() {
  const RunResult r = run_cmd("command -v cjpeg && command -v djpeg");
  INFO(
      "cjpeg/djpeg (Debian libjpeg-turbo-progs, installed by scripts/setup.sh) are the jpeg-mode oracle: "
      "they were not found on PATH");
  REQUIRE(r.code == 0);
}

}  // namespace

TEST_CASE("compress jpeg: PSNR matches cjpeg/djpeg -dct float (gray 0.05 dB, RGB 4:4:4 0.3 dB)", "[compress]") {
  require_libjpeg_tools();
  Inputs in;
  const std::string py = ref_py(in.dir);
  struct Img {
    std::string path;
    bool rgb;
  };
  for (const Img& img : {Img{in.gray, false}, Img{in.odd, false}, Img{in.rgb, true}})
    for (int quality : {10, 50, 90}) {
      const std::string jpg = in.dir.file("ref.jpg"), dec = in.dir.file(img.rgb ? "ref.ppm" : "ref.pgm");
      const std::string opts = img.rgb ? "-sample 1x1" : "-grayscale";
      REQUIRE(run_cmd("cjpeg -quality " + std::to_string(quality) + " -dct float " + opts + " " + q(img.path) + " > " +
                      q(jpg))
                  .code == 0);
      REQUIRE(run_cmd("djpeg -dct float " + q(jpg) + " > " + q(dec)).code == 0);
      const double want = number(run_cmd(py + " psnr " + q(img.path) + " " + q(dec)));
      const std::string out = in.dir.file("out.png");
      const RunResult r =
          run_dctool("compress " + q(img.path) + " -o " + q(out) + " --quality " + std::to_string(quality) + " --json");
      INFO(img.path << " q" << quality << ": " << r.err);
      REQUIRE(r.code == 0);
      const FlatJson j = parse_json_text(in.dir, r.out);
      const double got = std::stod(j.at("psnr_db"));
      const double file_psnr = number(run_cmd(py + " psnr " + q(img.path) + " " + q(out)));
      INFO("dctool " << got << " dB (file " << file_psnr << "), libjpeg-turbo " << want << " dB");
      CHECK(std::abs(got - want) <= (img.rgb ? 0.3 : 0.05));
      CHECK(std::abs(file_psnr - got) < 1e-6);
      CHECK(j.at("mode") == "\"jpeg\"");
      CHECK(j.at("quality") == std::to_string(quality));
    }
}

TEST_CASE("compress threshold/keep: equal the scipy whole-image reference (PSNR > 45 dB)", "[compress]") {
  Inputs in;
  const std::string py = ref_py(in.dir);
  struct Case {
    std::string image, mode, param;
  };
  const std::vector<Case> cases = {{in.gray, "threshold", "20"}, {in.rgb, "threshold", "50"},
                                   {in.odd, "threshold", "10"},  {in.gray, "keep", "0.05"},
                                   {in.rgb, "keep", "0.1"},      {in.odd, "keep", "0.02"}};
  for (const Case& c : cases) {
    const std::string out = in.dir.file("out.png"), ref = in.dir.file("ref.npy");
    const RunResult r = run_dctool("compress " + q(c.image) + " -o " + q(out) + " --mode " + c.mode + " --" + c.mode +
                                   " " + c.param + " --json");
    INFO(c.image << " " << c.mode << " " << c.param << ": " << r.err);
    REQUIRE(r.code == 0);
    REQUIRE(run_cmd(py + " whole " + q(c.image) + " " + c.mode + " " + c.param + " " + q(ref)).code == 0);
    const double p = number(run_cmd(py + " compare " + q(ref) + " " + q(out)));
    INFO("PSNR against scipy: " << p);
    CHECK(p > 45.0);
    const FlatJson j = parse_json_text(in.dir, r.out);
    CHECK(j.at("mode") == "\"" + c.mode + "\"");
    CHECK(j.has(c.mode));
    for (const char* k :
         {"input", "output", "psnr_db", "mse", "nonzero_fraction", "entropy_bpp", "backend", "timing_ms"})
      CHECK(j.has(k));
    check_json_typed(in.dir, r.out);
  }
}

TEST_CASE("compress JSON: typed keys and values, identical output gives psnr_db null", "[compress]") {
  TempDir dir;
  const std::string img = source_dir() + "/data/camera.png";
  // The CPU compressor's stages, named without spaces.
  const RunResult r = run_dctool("-b cpu-8x8-flmad compress " + q(img) + " -o " + q(dir.file("a.png")) +
                                 " --quality 50 --json --report " + q(dir.file("a.json")));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  check_json_typed(dir, r.out);
  CHECK(slurp(dir.file("a.json")) == r.out);
  const FlatJson j = parse_json_text(dir, r.out);
  CHECK(j.at("backend") == "\"cpu-8x8-flmad\"");
  CHECK(contains(j.at("timing_ms"), "\"prepare\": "));  // jpeg's block loop: prepare, blocks_8x8, finish
  CHECK(contains(j.at("timing_ms"), "\"blocks_8x8\": "));
  CHECK(contains(j.at("timing_ms"), "\"finish\": "));
  // --mode none writes the input again: PSNR infinite, null in JSON, inf in text.
  const RunResult n = run_dctool("compress " + q(img) + " -o " + q(dir.file("b.png")) + " --mode none --json");
  INFO(n.out << n.err);
  REQUIRE(n.code == 0);
  check_json_typed(dir, n.out);
  CHECK(parse_json_text(dir, n.out).at("psnr_db") == "null");
  const RunResult t = run_dctool("compress " + q(img) + " -o " + q(dir.file("c.png")) + " --mode none");
  CHECK(t.out.rfind("PSNR inf dB", 0) == 0);
  // To a .jpg the file is lossy: the PSNR and the rate are the file's, as `psnr` measures them.
  for (const char* name : {"camera.png", "astronaut.png"}) {
    const std::string in = source_dir() + "/data/" + name, out = dir.file(std::string(name) + ".jpg");
    const RunResult jn = run_dctool("compress " + q(in) + " -o " + q(out) + " --mode none --json");
    INFO(jn.out << jn.err);
    REQUIRE(jn.code == 0);
    const FlatJson f = parse_json_text(dir, jn.out);
    REQUIRE(f.at("psnr_db") != "null");
    const RunResult p = run_dctool("--json psnr " + q(in) + " " + q(out));
    INFO(p.out << p.err);
    REQUIRE(p.code == 0);
    const double own = std::stod(f.at("psnr_db")), measured = std::stod(parse_json_text(dir, p.out).at("psnr_db"));
    CHECK(std::abs(own - measured) < 0.01);
    CHECK(own < 60.0);
    const double bytes = std::stod(f.at("bytes"));
    CHECK(bytes == static_cast<double>(fs::file_size(out)));
    CHECK(std::abs(std::stod(f.at("bpp")) - 8.0 * bytes / (512.0 * 512.0)) < 1e-9);  // both samples are 512 x 512
  }
}

// README's backends table: `cpu` is the CPU compressor in every mode, its transforms by auto (a compressor's name is
// not a transform backend's), to any output.
TEST_CASE("compress -b cpu: the CPU compressor in every mode, to a .png as to a .jpg", "[compress]") {
  TempDir dir;
  const std::string img = source_dir() + "/data/camera.png";
  for (const std::string mode : {"jpeg", "lot", "threshold", "keep", "none"})
    for (const std::string ext : {".png", ".jpg"}) {
      if (ext == ".jpg" && mode != "jpeg" && mode != "none") continue;  // their coefficients are not JPEG's
      const std::string extra = mode == "threshold" ? " --threshold 5" : mode == "keep" ? " --keep 0.1" : "";
      const RunResult r = run_dctool("-b cpu compress " + q(img) + " -o " + q(dir.file(mode + ext)) + " --mode " +
                                     mode + extra + " --json");
      INFO(mode << ext << ": " << r.out << r.err);
      REQUIRE(r.code == 0);
      CHECK(fs::exists(dir.file(mode + ext)));
      const std::string backend = parse_json_text(dir, r.out).at("backend");
      CHECK((mode == "none" || contains(backend, "cpu")));
    }
}

TEST_CASE("compress keep F keeps exactly ceil(F*H*W) coefficients per channel", "[compress]") {
  Inputs in;
  struct Case {
    std::string image;
    long long h, w, c;
    double f;
  };
  for (const Case& c : {Case{in.gray, 512, 512, 1, 0.013}, Case{in.odd, 301, 453, 1, 0.1},
                        Case{in.rgb, 512, 512, 3, 0.0007}, Case{in.odd, 301, 453, 1, 1.0}}) {
    const RunResult r = run_dctool("compress " + q(c.image) + " -o " + q(in.dir.file("k.png")) +
                                   " --mode keep --keep " + format_f(c.f) + " --json");
    REQUIRE(r.code == 0);
    const FlatJson j = parse_json_text(in.dir, r.out);
    const double frac = std::stod(j.at("nonzero_fraction"));
    const long long total = c.h * c.w * c.c;
    const long long k = static_cast<long long>(std::ceil(c.f * static_cast<double>(c.h * c.w)));
    INFO(c.image << " F=" << c.f << " nonzero_fraction " << frac);
    CHECK(std::llround(frac * static_cast<double>(total)) == k * c.c);
  }
}

TEST_CASE("compress: usage errors for missing mode parameters", "[compress]") {
  TempDir dir;
  const std::string img = source_dir() + "/data/camera.png";
  check_one_line_error(run_dctool("compress " + q(img) + " -o " + q(dir.file("a.png")) + " --mode threshold"), 2,
                       {"--threshold"});
  check_one_line_error(run_dctool("compress " + q(img) + " -o " + q(dir.file("a.png")) + " --mode keep --keep 2"), 2,
                       {"--keep"});
  check_one_line_error(run_dctool("compress " + q(img) + " -o " + q(dir.file("a.png")) + " --mode zip"), 2, {"zip"});
  CHECK_FALSE(exists(dir.file("a.png")));
  check_one_line_error(run_dctool("compress " + q(img) + " " + q(img) + " -o " + q(dir.file("nodir"))), 2);
}

TEST_CASE("compress batch: good files written, the corrupt one named on one line, exit 3, report array", "[compress]") {
  TempDir dir;
  const std::string src = dir.file("in"), out = dir.file("out");
  fs::create_directories(src);
  fs::create_directories(out);
  fs::copy_file(source_dir() + "/data/camera.png", src + "/a.png");
  fs::copy_file(source_dir() + "/data/astronaut.png", src + "/c.png");
  spit(src + "/b.png", std::string("\x89PNG\r\n\x1a\n this is not really a png file"));  // 38 bytes, no NUL
  const std::string rep = dir.file("report.json");
  const RunResult r = run_dctool("compress " + q(src + "/a.png") + " " + q(src + "/b.png") + " " + q(src + "/c.png") +
                                 " -o " + q(out) + " --jobs 2 --report " + q(rep));
  INFO("stderr: " << r.err);
  CHECK(r.code == 3);
  CHECK(exists(out + "/a.jpg"));
  CHECK(exists(out + "/c.jpg"));
  CHECK_FALSE(exists(out + "/b.jpg"));
  const auto lines = split_lines(r.err);
  int error_lines = 0;
  for (const auto& l : lines)
    if (l.rfind("dctool: error: ", 0) == 0) {
      ++error_lines;
      CHECK(contains(l, "b.png"));
    }
  CHECK(error_lines == 1);
  CHECK(contains(r.err, "2 of 3"));
  CHECK(list_dir(out) == std::set<std::string>{"a.jpg", "c.jpg"});  // no temporaries left behind
  const FlatJson j = parse_json_text(dir, slurp(rep));
  CHECK(j.type == "list");
  CHECK(j.size == 3);
  CHECK(j.has("1.error"));
  CHECK(j.has("0.psnr_db"));
  CHECK(j.has("2.psnr_db"));
}

TEST_CASE("compress --mode none: no transform, outputs equal the inputs, report and summary line", "[compress]") {
  TempDir dir;
  const std::string out = dir.file("out");
  fs::create_directories(out);
  fs::copy_file(source_dir() + "/data/camera.png", dir.file("a.png"));
  fs::copy_file(source_dir() + "/data/astronaut.png", dir.file("b.png"));
  const std::string rep = dir.file("report.json");
  const RunResult r = run_dctool("compress " + q(dir.file("a.png")) + " " + q(dir.file("b.png")) + " -o " + q(out) +
                                 " --mode none --quality 50 --jobs 2 --report " + q(rep));
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.err, "compressed 2 of 2"));
  CHECK(contains(r.err, "images/s"));
  for (const char* f : {"a.png", "b.png"}) {
    const RunResult p = run_dctool("--json psnr " + q(dir.file(f)) + " " + q(out + "/" + f));
    INFO("psnr: " << p.out << p.err);
    CHECK(p.code == 0);
    CHECK(contains(p.out, "\"max_abs_err\": 0,"));
  }
  const FlatJson j = parse_json_text(dir, slurp(rep));
  CHECK(j.type == "list");
  CHECK(j.size == 2);
  CHECK(j.at("0.mode") == "\"none\"");
  CHECK(j.at("1.backend") == "\"none\"");
  CHECK_FALSE(j.has("0.quality"));
}

TEST_CASE("compress batch: a progress bar on a terminal, none when stderr is not one", "[compress]") {
  if (run_cmd("command -v script").code != 0) {
    WARN("util-linux `script` not found: the terminal half of this test is skipped");
    return;
  }
  TempDir dir;
  const std::string out = dir.file("out");
  fs::create_directories(out);
  const std::string img = source_dir() + "/data/camera.png";
  fs::copy_file(img, dir.file("a.png"));
  fs::copy_file(img, dir.file("b.png"));
  const std::string args = "compress " + q(dir.file("a.png")) + " " + q(dir.file("b.png")) + " -o " + q(out);
  // `script` gives the child a pseudo-terminal; its transcript holds what the terminal saw.
  const RunResult tty = run_cmd("script -qec " + q(std::string("'") + DCTOOL_BINARY + "' " + args) + " /dev/null");
  INFO("terminal transcript: " << tty.out);
  CHECK(tty.code == 0);
  CHECK(contains(tty.out, "[##"));
  CHECK(contains(tty.out, "2/2"));
  const RunResult plain = run_dctool(args);
  CHECK(plain.code == 0);
  CHECK_FALSE(contains(plain.err, "[#"));
  CHECK(contains(plain.err, "compressed 2 of 2"));
}
