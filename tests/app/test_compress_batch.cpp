// compress batch mode (README "compress"): output names and --format, the output directory created when missing,
// colliding outputs refused before any work, mode-specific options without their mode, --quality ranges and
// lists (one report entry per input and quality, in order, with the true rate), per-stage timing that adds up,
// and the summary line.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "app_support.hpp"

namespace {

using namespace dct::test;
using namespace dct::test::cli;

// Two inputs: camera.png (gray) and astronaut.png (RGB), both 512x512, under DIR/in as a.png and b.png.
struct Inputs {
  TempDir dir;
  std::string in, a, b;
  Inputs() : in(dir.file("in")) {
    fs::create_directories(in);
    a = in + "/a.png";
    b = in + "/b.png";
    fs::copy_file(source_dir() + "/data/camera.png", a);
    fs::copy_file(source_dir() + "/data/astronaut.png", b);
  }
  std::string both() const { return q(a) + " " + q(b); }
};

std::string magic(const std::string& path) { return slurp(path).substr(0, 4); }
bool is_jpeg_file(const std::string& path) { return magic(path).substr(0, 2) == "\xFF\xD8"; }
bool is_png_file(const std::string& path) { return magic(path) == "\x89PNG"; }

double num(const FlatJson& j, const std::string& key) {
  INFO("key " << key);
  REQUIRE(j.has(key));
  return std::stod(j.at(key));
}

// A JSON object's keys and numbers, as "key" -> value (the timing_ms object of an entry).
std::vector<std::pair<std::string, double>> timing_rows(const TempDir& dir, const std::string& timing_json) {
  const FlatJson t = parse_json_text(dir, timing_json);
  std::vector<std::pair<std::string, double>> rows;
  for (const auto& [k, v] : t.v) rows.emplace_back(k, std::stod(v));
  return rows;
}

}  // namespace

TEST_CASE("compress batch --format: jpg by default in jpeg mode, png otherwise, png, same", "[compress][batch]") {
  Inputs in;
  const std::string out = in.dir.file("out");
  REQUIRE(run_dctool("-q compress " + in.both() + " -o " + q(out)).code == 0);
  CHECK(list_dir(out) == std::set<std::string>{"a.jpg", "b.jpg"});
  CHECK(is_jpeg_file(out + "/a.jpg"));
  CHECK(is_jpeg_file(out + "/b.jpg"));

  const std::string png = in.dir.file("png");
  REQUIRE(run_dctool("-q compress " + in.both() + " -o " + q(png) + " --format png").code == 0);
  CHECK(list_dir(png) == std::set<std::string>{"a.png", "b.png"});
  CHECK(is_png_file(png + "/a.png"));

  const std::string lot = in.dir.file("lot");
  REQUIRE(run_dctool("-q compress " + in.both() + " -o " + q(lot) + " --mode lot --quality 50").code == 0);
  CHECK(list_dir(lot) == std::set<std::string>{"a.png", "b.png"});

  // same: each output keeps its input's format (a .jpg input gives a real .jpg in jpeg mode).
  const std::string c = in.in + "/c.jpg";
  REQUIRE(run_dctool("-q compress " + q(in.b) + " -o " + q(c)).code == 0);
  const std::string same = in.dir.file("same");
  REQUIRE(run_dctool("-q compress " + q(in.a) + " " + q(c) + " -o " + q(same) + " --format same").code == 0);
  CHECK(list_dir(same) == std::set<std::string>{"a.png", "c.jpg"});
  CHECK(is_png_file(same + "/a.png"));
  CHECK(is_jpeg_file(same + "/c.jpg"));

  // jpg outside jpeg mode, directly or through same: usage errors before anything is written.
  const std::string bad = in.dir.file("bad");
  for (const std::string args : {" --mode lot --format jpg", " --mode threshold --threshold 5 --format jpg",
                                 " --mode keep --keep 0.1 --format jpg"}) {
    INFO(args);
    check_one_line_error(run_dctool("compress " + in.both() + " -o " + q(bad) + args), 2, {"--format"});
  }
  check_one_line_error(run_dctool("compress " + q(in.a) + " " + q(c) + " -o " + q(bad) + " --mode lot --format same"),
                       2, {"c.jpg", "--mode jpeg"});
  check_one_line_error(run_dctool("compress " + in.both() + " -o " + q(bad) + " --format gif"), 2);
  CHECK_FALSE(exists(bad));
  // A single file output names its own format.
  check_one_line_error(run_dctool("compress " + q(in.a) + " -o " + q(in.dir.file("x.png")) + " --format jpg"), 2,
                       {"--format"});
  CHECK_FALSE(exists(in.dir.file("x.png")));
}

TEST_CASE("compress batch: -o DIR is created when missing, a file there is a usage error", "[compress][batch]") {
  Inputs in;
  const std::string out = in.dir.file("new/deeper/out");
  const RunResult r = run_dctool("compress " + in.both() + " -o " + q(out) + " --format png");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(list_dir(out) == std::set<std::string>{"a.png", "b.png"});
  const std::string file = in.dir.file("afile");
  spit(file, "x");
  check_one_line_error(run_dctool("compress " + in.both() + " -o " + q(file)), 2, {"afile"});
  CHECK(slurp(file) == "x");
  // One input and a name ending in '/': a directory too.
  const std::string slash = in.dir.file("slash") + "/";
  REQUIRE(run_dctool("-q compress " + q(in.a) + " -o " + q(slash)).code == 0);
  CHECK(list_dir(slash) == std::set<std::string>{"a.jpg"});
}

TEST_CASE("compress batch: colliding outputs are refused up front (exit 2, one line, nothing written)",
          "[compress][batch]") {
  Inputs in;
  fs::create_directories(in.in + "/d1");
  fs::create_directories(in.in + "/d2");
  const std::string x1 = in.in + "/d1/x.png", x2 = in.in + "/d2/x.png", xj = in.in + "/d1/x.jpg";
  fs::copy_file(in.a, x1);
  fs::copy_file(in.a, x2);
  REQUIRE(run_dctool("-q compress " + q(in.b) + " -o " + q(xj)).code == 0);
  const std::string out = in.dir.file("out");
  // Same basename from two directories.
  check_one_line_error(run_dctool("compress " + q(in.a) + " " + q(x1) + " " + q(x2) + " -o " + q(out)), 2,
                       {"d1/x.png", "d2/x.png", "x.jpg"});
  CHECK_FALSE(exists(out));
  // x.png and x.jpg both give x.jpg (and x.png with --format png); --format same keeps them apart.
  check_one_line_error(run_dctool("compress " + q(x1) + " " + q(xj) + " -o " + q(out)), 2, {"--format same"});
  check_one_line_error(run_dctool("compress " + q(x1) + " " + q(xj) + " -o " + q(out) + " --format png"), 2);
  CHECK_FALSE(exists(out));
  fs::create_directories(out);
  check_one_line_error(run_dctool("compress " + q(x1) + " " + q(x1) + " -o " + q(out)), 2, {"x.png"});
  CHECK(list_dir(out).empty());
  const RunResult ok = run_dctool("-q compress " + q(x1) + " " + q(xj) + " -o " + q(out) + " --format same");
  INFO(ok.err);
  CHECK(ok.code == 0);
  CHECK(list_dir(out) == std::set<std::string>{"x.png", "x.jpg"});
}

TEST_CASE("compress: mode-specific options without their mode are usage errors", "[compress][batch]") {
  Inputs in;
  const std::string out = in.dir.file("o.png");
  struct Case {
    std::string args, names;
  };
  for (const Case& c :
       {Case{"--threshold 5", "--threshold"}, Case{"--mode lot --threshold 5", "--threshold"},
        Case{"--keep 0.1", "--keep"}, Case{"--mode threshold --threshold 5 --keep 0.1", "--keep"},
        Case{"--mode threshold --threshold 5 --quality 50", "--quality"},
        Case{"--mode keep --keep 0.1 --quality 50", "--quality"}, Case{"--mode lot --optimize", "--optimize"}}) {
    INFO(c.args);
    check_one_line_error(run_dctool("compress " + q(in.a) + " -o " + q(out) + " " + c.args), 2, {c.names});
    CHECK_FALSE(exists(out));
  }
  // lot is quantized with the quality-scaled tables: --quality is its parameter.
  CHECK(run_dctool("-q compress " + q(in.a) + " -o " + q(out) + " --mode lot --quality 30").code == 0);
}

TEST_CASE("compress --quality: ranges and lists, bad values are usage errors", "[compress][batch]") {
  Inputs in;
  const std::string out = in.dir.file("out");
  for (const std::string bad : {"0", "101", "abc", "50.5", "10:95", "10:95:0", "95:10:5", "10:95:-5", "10,,20", "10,10",
                                "5:200:5", "1:2:3:4", ""}) {
    INFO("--quality '" << bad << "'");
    check_one_line_error(run_dctool("compress " + in.both() + " -o " + q(out) + " --quality " + q(bad)), 2,
                         {"--quality"});
  }
  check_one_line_error(run_dctool("compress " + in.both() + " -o " + q(out) + " --mode none --quality 10,50"), 2,
                       {"--quality"});
  CHECK_FALSE(exists(out));
  // One input, one file output, several qualities: NAME-qQQ.EXT beside it; a range is inclusive.
  const std::string one = in.dir.file("one");
  fs::create_directories(one);
  const RunResult r = run_dctool("-q compress " + q(in.a) + " -o " + q(one + "/cam.jpg") + " --quality 5:25:10");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(list_dir(one) == std::set<std::string>{"cam-q05.jpg", "cam-q15.jpg", "cam-q25.jpg"});
}

TEST_CASE("compress --quality list: one entry per (input, quality) in order, true bpp, stages that add up",
          "[compress][batch]") {
  Inputs in;
  const std::string out = in.dir.file("out"), rep = in.dir.file("r.json");
  const RunResult r =
      run_dctool("compress " + in.both() + " -o " + q(out) + " --quality 20,60,90 --jobs 2 --report " + q(rep));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(list_dir(out) ==
        std::set<std::string>{"a-q20.jpg", "a-q60.jpg", "a-q90.jpg", "b-q20.jpg", "b-q60.jpg", "b-q90.jpg"});
  const std::string text = slurp(rep);
  check_json_typed(in.dir, text);
  const FlatJson j = parse_json_text(in.dir, text);
  REQUIRE(j.type == "list");
  REQUIRE(j.size == 6);
  const std::vector<std::string> inputs{in.a, in.a, in.a, in.b, in.b, in.b};
  const std::vector<int> qualities{20, 60, 90, 20, 60, 90};
  for (std::size_t e = 0; e < 6; ++e) {
    const std::string k = std::to_string(e) + ".";
    INFO("entry " << e);
    CHECK(unquote(j.at(k + "input")) == inputs[e]);
    CHECK(num(j, k + "quality") == qualities[e]);
    const std::string output = unquote(j.at(k + "output"));
    CHECK(output == out + "/" + (e < 3 ? "a" : "b") + "-q" + std::to_string(qualities[e]) + ".jpg");
    const double bytes = num(j, k + "bytes");
    CHECK(bytes == static_cast<double>(fs::file_size(output)));
    CHECK(num(j, k + "bpp") == Approx(8.0 * bytes / (512.0 * 512.0)).epsilon(1e-12));
    CHECK(num(j, k + "entropy_bpp") > 0);
    if (e % 3 > 0) {  // higher quality: more bits, higher PSNR
      const std::string p = std::to_string(e - 1) + ".";
      CHECK(num(j, k + "bpp") > num(j, p + "bpp"));
      CHECK(num(j, k + "psnr_db") > num(j, p + "psnr_db"));
    }
    // Every stage is in the entry, and they add up to its total (the time from its read to its metrics). A 4:4:4
    // .jpg is decoded in the compressor's own loop: no libjpeg decode.
    const auto rows = timing_rows(in.dir, j.at(k + "timing_ms"));
    double sum = 0, total = -1;
    std::set<std::string> keys;
    for (const auto& [stage, ms] : rows) {
      keys.insert(stage);
      CHECK(ms >= 0);
      if (stage == "total")
        total = ms;
      else
        sum += ms;
    }
    for (const char* s : {"read", "queue", "prepare", "blocks_8x8", "queue_write", "encode", "write", "metrics"})
      CHECK(keys.count(s) == 1);
    CHECK(keys.count("decode") == 0);
    CHECK(sum == Approx(total).margin(0.5 + 0.01 * total));
  }
  // The entry for (b, 60) is the file a one-quality run writes.
  const std::string single = in.dir.file("b60.jpg");
  REQUIRE(run_dctool("-q compress " + q(in.b) + " -o " + q(single) + " --quality 60").code == 0);
  CHECK(slurp(single) == slurp(out + "/b-q60.jpg"));
  CHECK(contains(r.err, "compressed 6 of 6 outputs (2 images x 3 qualities, 0 failed)"));
}

TEST_CASE("compress batch: the summary line has images/s, mean PSNR and mean bpp, none with -q", "[compress][batch]") {
  Inputs in;
  const std::string out = in.dir.file("out");
  const RunResult r = run_dctool("compress " + in.both() + " -o " + q(out) + " --quality 50");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("dctool: compressed 2 of 2 images (0 failed) in ", 0) == 0);
  CHECK(contains(lines[0], " images/s, mean PSNR "));
  CHECK(contains(lines[0], " dB, mean "));
  CHECK(contains(lines[0], " bpp"));
  const RunResult quiet = run_dctool("-q compress " + in.both() + " -o " + q(out) + " --quality 50");
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
  // --timing adds the per-stage table and the cores' load.
  const RunResult t = run_dctool("--timing compress " + in.both() + " -o " + q(out) + " --quality 50");
  CHECK(t.code == 0);
  CHECK(contains(t.err, "median_ms"));
  CHECK(contains(t.err, "cores busy"));
}

TEST_CASE("compress batch: an unreadable input at several qualities is one line, the others go on (exit 3)",
          "[compress][batch]") {
  Inputs in;
  const std::string bad = in.in + "/bad.png", out = in.dir.file("out"), rep = in.dir.file("r.json");
  spit(bad, std::string("\x89PNG\r\n\x1a\n not a png at all", 26));
  const RunResult r = run_dctool("compress " + q(in.a) + " " + q(bad) + " " + q(in.b) + " -o " + q(out) +
                                 " --quality 30,70 --report " + q(rep));
  INFO(r.err);
  CHECK(r.code == 3);
  int error_lines = 0;
  for (const auto& l : split_lines(r.err))
    if (l.rfind("dctool: error: ", 0) == 0) {
      ++error_lines;
      CHECK(contains(l, "bad.png"));
    }
  CHECK(error_lines == 1);
  CHECK(contains(r.err, "compressed 4 of 6 outputs (3 images x 2 qualities, 2 failed)"));
  CHECK(list_dir(out) == std::set<std::string>{"a-q30.jpg", "a-q70.jpg", "b-q30.jpg", "b-q70.jpg"});
  const FlatJson j = parse_json_text(in.dir, slurp(rep));
  REQUIRE(j.size == 6);
  CHECK(j.has("2.error"));
  CHECK(j.has("3.error"));
  CHECK(num(j, "3.quality") == 70);
  CHECK(j.has("4.psnr_db"));
}
