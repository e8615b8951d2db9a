// compress with a .jpg/.jpeg output (README "Compression modes and the report"): a baseline JFIF file of dctool's
// own quantized coefficients, against libjpeg-turbo's cjpeg -dct float -sample 1x1 (size within 2%, baseline and
// -optimize) and djpeg -dct float (PSNR within 0.05 dB of cjpeg's file; the report's psnr_db is that of the
// decoded file); --sampling 420 against cjpeg -sample 2x2 (size within 3%, PSNR within 0.1 dB); --progressive
// decodes to the same pixels; bytes/bpp; gray stays one component; the usage and write errors leave no file.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "app_support.hpp"

namespace {

using namespace dct::test;
using namespace dct::test::cli;

std::string ref_py(const TempDir& dir) {
  return "DCTEST_PY=" + q(dir.file("dctest.py")) + " " + q(python()) + " " +
         q(source_dir() + "/scripts/compress-reference.py");
}

double number(const RunResult& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  return std::stod(r.out);
}

std::int64_t file_size(const std::string& path) { return static_cast<std::int64_t>(std::filesystem::file_size(path)); }

std::string format_fixed2(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

TEST_CASE(
    "compress .jpg: size within 2% of cjpeg -dct float -sample 1x1, PSNR within 0.05 dB, 4:2:0 within 3% and "
    "0.1 dB of -sample 2x2",
    "[compress][jpeg]") {
  REQUIRE(run_cmd("command -v cjpeg && command -v djpeg").code == 0);
  TempDir dir;
  dctest_py(dir);
  const std::string py = ref_py(dir);
  struct Img {
    std::string name;
    bool rgb;
    std::int64_t pixels;
  };
  for (const Img& img : {Img{"camera", false, 512 * 512}, Img{"astronaut", true, 512 * 512}}) {
    const std::string png = source_dir() + "/data/" + img.name + ".png";
    const std::string pnm = dir.file(img.name + (img.rgb ? ".ppm" : ".pgm"));
    const std::string dec_ext = img.rgb ? ".ppm" : ".pgm";
    REQUIRE(run_cmd(py + " topnm " + q(png) + " " + q(pnm)).code == 0);
    for (int quality : {10, 50, 90})
      for (bool optimize : {false, true})
        for (const std::string sampling : {"444", "420"}) {
          if (sampling == "420" && !img.rgb) continue;
          const bool s420 = sampling == "420";
          const std::string qs = std::to_string(quality);
          const std::string ours = dir.file("ours.jpg"), theirs = dir.file("theirs.jpg");
          const std::string ours_dec = dir.file("ours" + dec_ext), theirs_dec = dir.file("theirs" + dec_ext);
          REQUIRE(run_cmd("cjpeg -dct float -sample " + std::string(s420 ? "2x2 " : "1x1 ") +
                          std::string(optimize ? "-optimize " : "") + "-quality " + qs + " " + q(pnm) + " > " +
                          q(theirs) + " 2>/dev/null")
                      .code == 0);
          const RunResult r = run_dctool("compress " + q(png) + " -o " + q(ours) + " --quality " + qs +
                                         (optimize ? " --optimize" : "") + " --sampling " + sampling + " --json");
          INFO(img.name << " q" << quality << (optimize ? " -optimize" : "") << " " << sampling << ": " << r.err);
          REQUIRE(r.code == 0);
          check_json_typed(dir, r.out);
          // Any standard decoder opens it; gray stays one component (djpeg writes PGM: P5).
          REQUIRE(run_cmd("djpeg -dct float " + q(ours) + " > " + q(ours_dec)).code == 0);
          REQUIRE(run_cmd("djpeg -dct float " + q(theirs) + " > " + q(theirs_dec)).code == 0);
          CHECK(slurp(ours_dec).substr(0, 2) == (img.rgb ? "P6" : "P5"));
          const std::int64_t ob = file_size(ours), tb = file_size(theirs);
          const double ours_psnr = number(run_cmd(py + " psnr " + q(pnm) + " " + q(ours_dec)));
          const double theirs_psnr = number(run_cmd(py + " psnr " + q(pnm) + " " + q(theirs_dec)));
          const FlatJson j = parse_json_text(dir, r.out);
          INFO("dctool " << ob << " bytes " << ours_psnr << " dB; cjpeg " << tb << " bytes " << theirs_psnr << " dB");
          CHECK(std::abs(double(ob) / double(tb) - 1.0) <= (s420 ? 0.03 : 0.02));
          CHECK(std::abs(ours_psnr - theirs_psnr) <= (s420 ? 0.1 : 0.05));
          CHECK(j.at("bytes") == std::to_string(ob));
          CHECK(std::abs(std::stod(j.at("bpp")) - 8.0 * double(ob) / double(img.pixels)) < 1e-9);
          CHECK(std::abs(std::stod(j.at("psnr_db")) - ours_psnr) <= 0.01);
          // Without --json (no reconstruction image asked for) the text line shows the same PSNR.
          const RunResult t = run_dctool("compress " + q(png) + " -o " + q(dir.file("t.jpg")) + " --quality " + qs +
                                         (optimize ? " --optimize" : "") + " --sampling " + sampling);
          REQUIRE(t.code == 0);
          CHECK(contains(t.out, "PSNR " + format_fixed2(std::stod(j.at("psnr_db"))) + " dB"));
          CHECK(slurp(dir.file("t.jpg")) == slurp(ours));
          CHECK(j.has("entropy_bpp"));
          CHECK(contains(j.at("backend"), "compressor: .jpg output"));  // cpu, or cuda-jpeg-fused on a GPU
        }
  }
}

TEST_CASE("compress .jpg: --progressive holds the same coefficients (identical decode), odd 4:2:0 sizes",
          "[compress][jpeg]") {
  TempDir dir;
  dctest_py(dir);
  const std::string py = ref_py(dir);
  const std::string odd = dir.file("odd.ppm");
  REQUIRE(run_cmd(py + " crop " + q(source_dir() + "/data/astronaut.png") + " 301 453 " + q(odd)).code == 0);
  for (const std::string sampling : {"444", "420"})
    for (const std::string& src : {odd, source_dir() + "/data/camera.png"}) {
      const std::string base = dir.file("base.jpg"), prog = dir.file("prog.jpg");
      const RunResult b = run_dctool("compress " + q(src) + " -o " + q(base) + " --quality 60 --sampling " + sampling);
      const RunResult p =
          run_dctool("compress " + q(src) + " -o " + q(prog) + " --quality 60 --progressive --sampling " + sampling);
      INFO(src << " " << sampling << ": " << b.err << p.err);
      REQUIRE(b.code == 0);
      REQUIRE(p.code == 0);
      const std::string pf = slurp(prog), bf = slurp(base);
      CHECK(pf.find("\xFF\xC2") != std::string::npos);  // SOF2: progressive
      CHECK(bf.find("\xFF\xC0") != std::string::npos);  // SOF0: baseline
      REQUIRE(run_cmd("djpeg -dct float " + q(base) + " > " + q(dir.file("b.pnm"))).code == 0);
      REQUIRE(run_cmd("djpeg -dct float " + q(prog) + " > " + q(dir.file("p.pnm"))).code == 0);
      CHECK(slurp(dir.file("b.pnm")) == slurp(dir.file("p.pnm")));
    }
  // 4:2:0 on odd sizes (a partial MCU both ways) against cjpeg -sample 2x2.
  for (int quality : {30, 75}) {
    const std::string qs = std::to_string(quality);
    REQUIRE(run_cmd("cjpeg -dct float -sample 2x2 -quality " + qs + " " + q(odd) + " > " + q(dir.file("t.jpg"))).code ==
            0);
    REQUIRE(run_dctool("compress " + q(odd) + " -o " + q(dir.file("o.jpg")) + " --sampling 420 --quality " + qs).code ==
            0);
    REQUIRE(run_cmd("djpeg -dct float " + q(dir.file("t.jpg")) + " > " + q(dir.file("t.ppm"))).code == 0);
    REQUIRE(run_cmd("djpeg -dct float " + q(dir.file("o.jpg")) + " > " + q(dir.file("o.ppm"))).code == 0);
    const double po = number(run_cmd(py + " psnr " + q(odd) + " " + q(dir.file("o.ppm"))));
    const double pt = number(run_cmd(py + " psnr " + q(odd) + " " + q(dir.file("t.ppm"))));
    const std::int64_t ob = file_size(dir.file("o.jpg")), tb = file_size(dir.file("t.jpg"));
    INFO("q" << quality << ": dctool " << ob << " bytes " << po << " dB; cjpeg " << tb << " bytes " << pt << " dB");
    CHECK(std::abs(double(ob) / double(tb) - 1.0) <= 0.03);
    CHECK(std::abs(po - pt) <= 0.1);
  }
  // An odd number of 8-pixel block rows (the last 16-row MCU half outside the image), down to one pixel: libjpeg
  // reads the block row it was not given (a 4:2:0 file of 1080 rows failed so once).
  for (const auto& [h, w] : {std::pair{17, 17}, std::pair{33, 9}, std::pair{1, 1}}) {
    const std::string small = dir.file("small.ppm"), out = dir.file("small.jpg");
    REQUIRE(run_cmd(py + " crop " + q(source_dir() + "/data/astronaut.png") + " " + std::to_string(h) + " " +
                    std::to_string(w) + " " + q(small))
                .code == 0);
    const RunResult r = run_dctool("compress " + q(small) + " -o " + q(out) + " --sampling 420 --quality 50");
    INFO(h << "x" << w << ": " << r.err);
    REQUIRE(r.code == 0);
    CHECK(run_cmd("djpeg -dct float " + q(out) + " > " + q(dir.file("small_dec.ppm"))).code == 0);
  }
}

TEST_CASE("compress .jpg: odd sizes and RGBA (alpha dropped with a note)", "[compress][jpeg]") {
  TempDir dir;
  dctest_py(dir);
  const std::string py = ref_py(dir);
  const std::string odd = dir.file("odd.pgm");
  REQUIRE(run_cmd(py + " crop " + q(source_dir() + "/data/camera.png") + " 301 453 " + q(odd)).code == 0);
  const RunResult r = run_dctool("compress " + q(odd) + " -o " + q(dir.file("odd.JPEG")) + " --quality 75 --json");
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(run_cmd("djpeg -dct float " + q(dir.file("odd.JPEG")) + " > " + q(dir.file("odd_dec.pgm"))).code == 0);
  const double p = number(run_cmd(py + " psnr " + q(odd) + " " + q(dir.file("odd_dec.pgm"))));
  const FlatJson j = parse_json_text(dir, r.out);
  CHECK(std::abs(std::stod(j.at("psnr_db")) - p) <= 0.01);
  CHECK(std::abs(std::stod(j.at("bpp")) - 8.0 * double(file_size(dir.file("odd.JPEG"))) / (301.0 * 453.0)) < 1e-9);
  // RGBA: the .jpg holds the colour (3 components), alpha is dropped with a note; PSNR over the colour channels.
  const std::string rgba = dir.file("rgba.png");
  REQUIRE(run_cmd(q(python()) +
                  " -c \"import sys; from PIL import Image; Image.open(sys.argv[1]).convert('RGBA')"
                  ".save(sys.argv[2])\" " +
                  q(source_dir() + "/data/astronaut.png") + " " + q(rgba))
              .code == 0);
  const RunResult a = run_dctool("compress " + q(rgba) + " -o " + q(dir.file("rgba.jpg")) + " --quality 50 --json");
  INFO(a.err);
  REQUIRE(a.code == 0);
  CHECK(contains(a.err, "alpha"));
  REQUIRE(run_cmd("djpeg -dct float " + q(dir.file("rgba.jpg")) + " > " + q(dir.file("rgba_dec.ppm"))).code == 0);
  CHECK(slurp(dir.file("rgba_dec.ppm")).substr(0, 2) == "P6");
  const double pa =
      number(run_cmd(py + " psnr " + q(source_dir() + "/data/astronaut.png") + " " + q(dir.file("rgba_dec.ppm"))));
  CHECK(std::abs(std::stod(parse_json_text(dir, a.out).at("psnr_db")) - pa) <= 0.01);
  // A named transform backend (the CPU compressor's generic jpeg route, not its block loop): an RGB .jpg of its
  // coefficients, decoding to about the block loop's PSNR.
  for (const char* b : {"cpu-fftw", "cpu-8x8-aan"}) {
    const std::string out = dir.file(std::string("rgb_") + b + ".jpg");
    const RunResult nb = run_dctool("compress " + q(source_dir() + "/data/astronaut.png") + " -o " + q(out) +
                                    " --quality 50 --json -b " + b);
    INFO(b << ": " << nb.err);
    REQUIRE(nb.code == 0);
    REQUIRE(run_cmd("djpeg -dct float " + q(out) + " > " + q(dir.file("nb_dec.ppm"))).code == 0);
    const double pb =
        number(run_cmd(py + " psnr " + q(source_dir() + "/data/astronaut.png") + " " + q(dir.file("nb_dec.ppm"))));
    CHECK(std::abs(std::stod(parse_json_text(dir, nb.out).at("psnr_db")) - pb) <= 0.01);
    CHECK(std::abs(pb - pa) <= 0.05);  // rgba.jpg: the same colour through the block loop
  }
  // The text line prints bpp beside the PSNR.
  const RunResult t = run_dctool("compress " + q(odd) + " -o " + q(dir.file("t.jpg")));
  REQUIRE(t.code == 0);
  CHECK(contains(t.out, " bpp ("));
}

TEST_CASE("compress .jpg: lot/threshold/keep are usage errors, an unwritable directory leaves nothing",
          "[compress][jpeg]") {
  TempDir dir;
  const std::string img = source_dir() + "/data/camera.png";
  for (const std::string mode : {"lot", "threshold --threshold 5", "keep --keep 0.1"}) {
    const RunResult r = run_dctool("compress " + q(img) + " -o " + q(dir.file("x.jpg")) + " --mode " + mode);
    INFO(mode << ": " << r.err);
    check_one_line_error(r, 2, {"x.jpg"});
    CHECK(contains(r.err, "--mode jpeg"));
    CHECK(list_dir(dir.path().string()).empty());
  }
  const RunResult opt = run_dctool("compress " + q(img) + " -o " + q(dir.file("x.png")) + " --optimize");
  check_one_line_error(opt, 2, {"--optimize"});
  CHECK(list_dir(dir.path().string()).empty());
  const RunResult prog = run_dctool("compress " + q(img) + " -o " + q(dir.file("x.png")) + " --progressive");
  check_one_line_error(prog, 2, {"--progressive"});
  const RunResult smp = run_dctool("compress " + q(img) + " -o " + q(dir.file("x.jpg")) + " --sampling 422");
  check_one_line_error(smp, 2, {"--sampling", "422"});
  const RunResult thr = run_dctool("compress " + q(img) + " -o " + q(dir.file("x.png")) +
                                   " --mode threshold --threshold 5 --sampling 420");
  check_one_line_error(thr, 2, {"--sampling"});
  CHECK(list_dir(dir.path().string()).empty());
  const std::string missing = dir.file("no-such-dir/x.jpg");
  const RunResult m = run_dctool("compress " + q(img) + " -o " + q(missing));
  CHECK(m.code != 0);
  CHECK_FALSE(exists(missing));
  // A read-only directory: root writes there anyway, so as root dctool runs as nobody (setpriv, util-linux).
  const std::string ro = dir.file("ro");
  std::filesystem::permissions(dir.path(), std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
  std::filesystem::create_directory(ro);
  std::filesystem::permissions(ro, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                       std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  const std::string as_user = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const RunResult r = run_cmd(as_user + q(DCTOOL_BINARY) + " compress " + q(img) + " -o " + q(ro + "/x.jpg"));
  std::filesystem::permissions(ro, std::filesystem::perms::owner_all);
  INFO(r.err);
  check_one_line_error(r, 3, {"x.jpg"});
  CHECK(contains(r.err, "cannot create a file in"));
  CHECK(list_dir(ro).empty());
}
