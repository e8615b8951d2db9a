// Batch mode of the transform commands (dct2, idct2, dct4, lot, dct, dst, r2r with several inputs or -o DIR):
// outputs byte-identical to each input run alone, whatever --jobs; a bad input is one line and the others go on
// (exit 3); colliding outputs, an output over an input and a --report over either are refused before any work
// (exit 2); the report keeps input order; --format; the summary line; tensors reused from input to input.
#include <cstdint>
#include <string>
#include <vector>

#include "app_support.hpp"

namespace {

using namespace dct::test;
using namespace dct::test::cli;

std::vector<double> random_values(std::int64_t n, unsigned seed) { return random_vector<double>(n, seed); }

// A C-order float64 .npy of any shape ("(N,)", "(H, W)", "(A, B, C)") holding `count` random values.
void write_npy_shape(const std::string& path, const std::string& shape_tuple, std::int64_t count, unsigned seed) {
  spit(path, npy_bytes(npy_header("<f8", shape_tuple), raw_bytes(random_values(count, seed))));
}

// A text matrix of rows x cols random values.
void write_text(const std::string& path, int rows, int cols, unsigned seed) {
  const auto v = random_values(rows * cols, seed);
  std::string s;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      s += std::to_string(v[static_cast<std::size_t>(r * cols + c)]) + (c + 1 < cols ? " " : "\n");
  spit(path, s);
}

// Inputs under DIR/in: a.npy 16x24, b.txt 8x8, c.npy 32x16; all multiples of 8 (the LOT takes them too).
struct Inputs {
  TempDir dir;
  std::string in, a, b, c;
  Inputs() : in(dir.file("in")) {
    fs::create_directories(in);
    a = in + "/a.npy";
    b = in + "/b.txt";
    c = in + "/c.npy";
    write_npy_f64(a, 16, 24, random_values(16 * 24, 1));
    write_text(b, 8, 8, 2);
    write_npy_f64(c, 32, 16, random_values(32 * 16, 3));
  }
  std::vector<std::string> all() const { return {a, b, c}; }
  static std::string words(const std::vector<std::string>& files) {
    std::string s;
    for (const auto& f : files) s += " " + q(f);
    return s;
  }
  std::string out(const std::string& name) const { return dir.file(name); }
};

std::string stem(const std::string& path) { return fs::path(path).stem().string(); }

// Runs `cmd` with every input alone (-o a file) and as one batch into a directory; the bytes must agree.
void check_batch_equals_alone(const Inputs& in, const std::vector<std::string>& files, const std::string& cmd,
                              const std::string& ext = ".npy", const std::string& batch_opts = "") {
  INFO(cmd);
  const std::string dir = in.out("batch"), alone = in.out("alone");
  fs::remove_all(dir);
  fs::remove_all(alone);
  fs::create_directories(alone);
  const RunResult r = run_dctool("-q " + cmd + Inputs::words(files) + " -o " + q(dir) + batch_opts);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  std::set<std::string> expected;
  for (const auto& f : files) {
    const std::string name = stem(f) + ext, one = alone + "/" + name;
    expected.insert(name);
    const RunResult s = run_dctool("-q " + cmd + " " + q(f) + " -o " + q(one));
    INFO(f << ": " << s.err);
    REQUIRE(s.code == 0);
    CHECK(slurp(dir + "/" + name) == slurp(one));
  }
  CHECK(list_dir(dir) == expected);
}

}  // namespace

TEST_CASE("transform batch: every output equals the input transformed alone", "[app][batch]") {
  Inputs in;
  for (const std::string cmd : {"dct2", "dct2 --norm ortho --axis rows", "dct2 --block 8", "idct2 --norm ortho",
                                "dct4 --norm ortho", "dct4 --inverse --axis both", "lot", "-p f64 dct2"})
    check_batch_equals_alone(in, in.all(), cmd);
  // Other formats, and the inverse LOT of the forward's coefficients.
  check_batch_equals_alone(in, in.all(), "dct2", ".txt", " --format txt");
  check_batch_equals_alone(in, in.all(), "-p f64 dct4", ".f64", " --format f64");
  REQUIRE(run_dctool("-q lot " + Inputs::words(in.all()) + " -o " + q(in.out("coef"))).code == 0);
  check_batch_equals_alone(in, {in.out("coef/a.npy"), in.out("coef/c.npy")}, "lot --inverse");
  // A JPEG file's stored coefficients, and images in and out.
  const std::string j1 = in.in + "/cam.jpg", j2 = in.in + "/ast.jpg";
  REQUIRE(run_dctool("-q compress " + q(source_dir() + "/data/camera.png") + " -o " + q(j1) + " --quality 50").code ==
          0);
  REQUIRE(run_dctool("-q compress " + q(source_dir() + "/data/astronaut.png") + " -o " + q(j2)).code == 0);
  check_batch_equals_alone(in, {j1, j2}, "dct2 --block 8 --jpeg-coefficients");
  check_batch_equals_alone(in, {j1, j2}, "dct2 --block 8");
  check_batch_equals_alone(in, {j1, j2}, "dct2 --visualize", ".png", " --format png");
}

TEST_CASE("transform batch: --jobs 1 and --jobs 4 write the same bytes", "[app][batch]") {
  Inputs in;
  std::vector<std::string> files;
  for (int i = 0; i < 8; ++i) {
    files.push_back(in.in + "/m" + std::to_string(i) + ".npy");
    write_npy_f64(files.back(), 8 * (i + 1), 16, random_values(8 * (i + 1) * 16, 10u + i));
  }
  for (const std::string cmd : {"dct2", "lot", "dct --type 3 --norm ortho"}) {
    INFO(cmd);
    const std::string one = in.out("j1"), four = in.out("j4");
    fs::remove_all(one);
    fs::remove_all(four);
    REQUIRE(run_dctool("-q " + cmd + Inputs::words(files) + " -o " + q(one) + " --jobs 1").code == 0);
    REQUIRE(run_dctool("-q " + cmd + Inputs::words(files) + " -o " + q(four) + " --jobs 4").code == 0);
    REQUIRE(list_dir(one).size() == files.size());
    CHECK(list_dir(one) == list_dir(four));
    for (const auto& f : list_dir(one)) {
      INFO(f);
      CHECK(slurp(one + "/" + f) == slurp(four + "/" + f));
    }
  }
}

TEST_CASE("transform batch: a bad input is one line naming it, the others are written (exit 3)", "[app][batch]") {
  Inputs in;
  const std::string broken = in.in + "/broken.npy", odd = in.in + "/odd.npy", out = in.out("out");
  spit(broken, "not an npy file at all");
  write_npy_f64(odd, 12, 16, random_values(12 * 16, 4));  // not a multiple of 8: the LOT refuses it
  const std::string rep = in.out("r.json");
  const RunResult r =
      run_dctool("lot " + Inputs::words({in.a, broken, in.b, odd, in.c}) + " -o " + q(out) + " --report " + q(rep));
  INFO(r.err);
  CHECK(r.code == 3);
  std::vector<std::string> errors;
  for (const auto& l : split_lines(r.err))
    if (l.rfind("dctool: error: ", 0) == 0) errors.push_back(l);
  REQUIRE(errors.size() == 2);
  CHECK((contains(errors[0], "broken.npy") != contains(errors[1], "broken.npy")));
  CHECK((contains(errors[0], "odd.npy") != contains(errors[1], "odd.npy")));
  CHECK(contains(r.err, "dctool: transformed 3 of 5 inputs (2 failed) in "));
  CHECK(list_dir(out) == std::set<std::string>{"a.npy", "b.npy", "c.npy"});
  for (const auto& f : list_dir(in.dir.path().string())) CHECK(f.find(".tmp.") == std::string::npos);
  const FlatJson j = parse_json_text(in.dir, slurp(rep));
  REQUIRE(j.type == "list");
  REQUIRE(j.size == 5);
  CHECK(j.has("1.error"));
  CHECK(contains(j.at("1.error"), "broken.npy"));
  CHECK(j.has("3.error"));
  CHECK(contains(j.at("3.error"), "multiples of 8"));
  CHECK(unquote(j.at("3.op")) == "lot");
  CHECK(j.has("4.backend"));
  // Good outputs are those of the inputs alone.
  REQUIRE(run_dctool("-q lot " + q(in.a) + " -o " + q(in.out("a1.npy"))).code == 0);
  CHECK(slurp(in.out("a1.npy")) == slurp(out + "/a.npy"));
}

TEST_CASE("transform batch: tensors reused from input to input give the bytes of each input alone", "[app][batch]") {
  // Sizes up and down and dtypes in turn, so that a reused block holds an earlier input's values: with --jobs 1
  // every input lands in a block of one before it.
  Inputs in;
  auto f32 = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  auto i16 = [](const std::vector<double>& v) {
    std::vector<std::int16_t> out;
    for (double x : v) out.push_back(static_cast<std::int16_t>(x * 3000));
    return out;
  };
  auto u8 = [](const std::vector<double>& v) {
    std::vector<std::uint8_t> out;
    for (double x : v) out.push_back(static_cast<std::uint8_t>((x + 1) * 127));
    return out;
  };
  const std::string big = in.in + "/big.npy", small = in.in + "/small.npy", gray = in.in + "/gray.npy",
                    rgb = in.in + "/rgb.npy", ints = in.in + "/ints.npy", wide = in.in + "/wide.npy",
                    mid = in.in + "/mid.npy";
  spit(big, npy_bytes(npy_header("<f4", "(48, 64)"), raw_bytes(f32(random_values(48 * 64, 31)))));
  spit(mid, npy_bytes(npy_header("<f4", "(40, 56)"), raw_bytes(f32(random_values(40 * 56, 37)))));
  write_npy_f64(small, 8, 8, random_values(64, 32));
  spit(gray, npy_bytes(npy_header("|u1", "(24, 16)"), raw_bytes(u8(random_values(24 * 16, 33)))));
  spit(rgb, npy_bytes(npy_header("<f4", "(16, 24, 3)"), raw_bytes(f32(random_values(16 * 24 * 3, 34)))));
  spit(ints, npy_bytes(npy_header("<i2", "(40, 32)"), raw_bytes(i16(random_values(40 * 32, 35)))));
  write_npy_f64(wide, 56, 72, random_values(56 * 72, 36));
  const std::vector<std::string> files = {wide, big, small, gray, rgb, ints, in.b, mid, in.a};
  for (const std::string cmd : {"dct2", "-p f64 dct2", "idct2 --norm ortho", "dct2 --block 8", "dct4 --axis both"})
    for (const std::string jobs : {" --jobs 1", " --jobs 3"}) check_batch_equals_alone(in, files, cmd, ".npy", jobs);
  check_batch_equals_alone(in, {wide, big, gray, ints, mid}, "dct --type 2", ".npy", " --jobs 1");
  check_batch_equals_alone(in, {wide, big, small, gray, ints, mid}, "dct2", ".f32", " --format f32 --jobs 1");
}

TEST_CASE("transform batch: a truncated file in the middle fails alone, named, with no partial output (exit 3)",
          "[app][batch]") {
  Inputs in;
  const std::string cut = in.in + "/cut.npy";
  // The header says 64x64 float32 (16 KiB); the file holds 1000 bytes of it.
  spit(cut, npy_bytes(npy_header("<f4", "(64, 64)"), std::string(1000, '\x01')));
  for (const std::string jobs : {"1", "2"}) {
    const std::string out = in.out("out" + jobs);
    const RunResult r = run_dctool("dct2 " + Inputs::words({in.a, cut, in.c}) + " -o " + q(out) + " --jobs " + jobs);
    INFO(r.err);
    CHECK(r.code == 3);
    std::vector<std::string> errors;
    for (const auto& l : split_lines(r.err))
      if (l.rfind("dctool: error: ", 0) == 0) errors.push_back(l);
    REQUIRE(errors.size() == 1);
    CHECK(contains(errors[0], "cut.npy"));
    CHECK(contains(errors[0], "truncated"));
    CHECK(contains(r.err, "dctool: transformed 2 of 3 inputs (1 failed) in "));
    CHECK(list_dir(out) == std::set<std::string>{"a.npy", "c.npy"});
    REQUIRE(run_dctool("-q dct2 " + q(in.c) + " -o " + q(in.out("c1.npy"))).code == 0);
    CHECK(slurp(in.out("c1.npy")) == slurp(out + "/c.npy"));
  }
  for (const auto& f : list_dir(in.dir.path().string())) CHECK(f.find(".tmp.") == std::string::npos);
}

TEST_CASE("transform batch: colliding outputs and an output over an input are refused before any work (exit 2)",
          "[app][batch]") {
  Inputs in;
  const std::string out = in.out("out");
  // a.npy and a.txt both give out/a.npy.
  const std::string at = in.in + "/a.txt";
  write_text(at, 4, 4, 5);
  check_one_line_error(run_dctool("dct2 " + Inputs::words({in.a, in.b, at}) + " -o " + q(out)), 2,
                       {"a.npy", "a.txt", "collide"});
  CHECK_FALSE(exists(out));
  // The same name from two directories, and one input given twice.
  fs::create_directories(in.in + "/x");
  const std::string xa = in.in + "/x/a.npy";
  fs::copy_file(in.a, xa);
  check_one_line_error(run_dctool("dct --type 2 " + Inputs::words({in.a, xa}) + " -o " + q(out)), 2, {"x/a.npy"});
  check_one_line_error(run_dctool("dct4 " + Inputs::words({in.c, in.c}) + " -o " + q(out)), 2, {"c.npy"});
  CHECK_FALSE(exists(out));
  // --format same into the inputs' own directory: each output is its input.
  const auto before = list_dir(in.in);
  const std::string a_bytes = slurp(in.a);
  check_one_line_error(run_dctool("dct2 " + Inputs::words(in.all()) + " -o " + q(in.in) + " --format same"), 2,
                       {"a.npy", "overwrite"});
  check_one_line_error(run_dctool("r2r --kinds dct2 " + Inputs::words({in.a, in.c}) + " -o " + q(in.in)), 2,
                       {"overwrite"});
  CHECK(list_dir(in.in) == before);
  CHECK(slurp(in.a) == a_bytes);
  // -o a file with several inputs.
  spit(in.out("afile"), "x");
  check_one_line_error(run_dctool("dct2 " + Inputs::words(in.all()) + " -o " + q(in.out("afile"))), 2, {"afile"});
  CHECK(slurp(in.out("afile")) == "x");
}

TEST_CASE("transform batch: --report over an input or an output is exit 2, entries keep input order", "[app][batch]") {
  Inputs in;
  const std::string out = in.out("out");
  check_one_line_error(run_dctool("dct2 " + Inputs::words(in.all()) + " -o " + q(out) + " --report " + q(in.b)), 2,
                       {"--report", "input"});
  check_one_line_error(
      run_dctool("dct2 " + Inputs::words(in.all()) + " -o " + q(out) + " --report " + q(out + "/c.npy")), 2,
      {"--report", "output"});
  CHECK_FALSE(exists(out));
  // A report that cannot be made fails before any input is transformed.
  check_one_line_error(
      run_dctool("dct2 " + Inputs::words(in.all()) + " -o " + q(out) + " --report " + q(in.out("no/r.json"))), 3,
      {"no/r.json"});
  CHECK_FALSE(exists(out));

  const std::string rep = in.out("r.json");
  const std::vector<std::string> order = {in.c, in.a, in.b};
  const RunResult r =
      run_dctool("--json -q dct2 " + Inputs::words(order) + " -o " + q(out) + " --report " + q(rep) + " --jobs 3");
  INFO(r.err);
  REQUIRE(r.code == 0);
  check_json_typed(in.dir, slurp(rep));
  CHECK(r.out == slurp(rep));
  const FlatJson j = parse_json_text(in.dir, slurp(rep));
  REQUIRE(j.size == 3);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string k = std::to_string(i) + ".";
    CHECK(unquote(j.at(k + "input")) == order[i]);
    CHECK(unquote(j.at(k + "output")) == out + "/" + stem(order[i]) + ".npy");
    CHECK(unquote(j.at(k + "op")) == "dct2");
    CHECK(unquote(j.at(k + "precision")) == "f32");
    CHECK(unquote(j.at(k + "backend")) == "cpu-fftw");
    CHECK(j.has(k + "shape"));
    CHECK(contains(j.at(k + "timing_ms"), "\"total\""));
  }
  CHECK(j.at("0.shape") == "[32, 16]");
  // One input, -o FILE: the report is that input's object.
  const RunResult one = run_dctool("-q dct2 " + q(in.a) + " -o " + q(in.out("one.npy")) + " --report " + q(rep));
  REQUIRE(one.code == 0);
  const FlatJson o = parse_json_text(in.dir, slurp(rep));
  CHECK(o.type == "dict");
  CHECK(unquote(o.at("output")) == in.out("one.npy"));
}

TEST_CASE("transform batch: dct, dst and r2r keep each array's shape (1-D, 2-D, 3-D .npy)", "[app][batch][r2r]") {
  Inputs in;
  const std::string v = in.in + "/v.npy", m = in.in + "/m.npy", t = in.in + "/t.npy";
  write_npy_shape(v, "(12,)", 12, 21);
  write_npy_shape(m, "(6, 10)", 60, 22);
  write_npy_shape(t, "(4, 6, 5)", 120, 23);
  const std::vector<std::string> files = {v, m, t};
  for (const std::string cmd : {"dct --type 2", "dst --type 4 --norm ortho", "dct --type 1 --axes -1",
                                "dct --type 3 --inverse", "r2r --kinds dst2", "-p f32 dst --type 1"})
    check_batch_equals_alone(in, files, cmd);
  const std::string out = in.out("batch");
  CHECK(contains(slurp(out + "/v.npy").substr(0, 128), "(12,)"));
  CHECK(contains(slurp(out + "/t.npy").substr(0, 128), "(4, 6, 5)"));
  // Axes that fit one input and not another: that input fails, the others are written.
  const std::string bad = in.out("bad");
  const RunResult r = run_dctool("r2r --kinds dct2,dst2,dct3 " + Inputs::words(files) + " -o " + q(bad));
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(contains(r.err, "dctool: transformed 1 of 3 inputs (2 failed)"));
  CHECK(list_dir(bad) == std::set<std::string>{"t.npy"});
}

TEST_CASE("transform batch: --format same and images follow the single-input rules", "[app][batch]") {
  Inputs in;
  const std::string cam = in.in + "/cam.png";
  fs::copy_file(source_dir() + "/data/camera.png", cam);
  const std::string out = in.out("out");
  // Coefficients cannot go into an image without --visualize (exit 2, nothing written)...
  check_one_line_error(run_dctool("dct2 " + Inputs::words({in.a, cam}) + " -o " + q(out) + " --format same"), 2,
                       {"cam.png", "--visualize"});
  check_one_line_error(run_dctool("dct --type 2 " + Inputs::words({cam, in.a}) + " -o " + q(out) + " --format png"), 2,
                       {".png"});
  CHECK_FALSE(exists(out));
  // ... with it, a picture; the text input keeps .txt.
  REQUIRE(
      run_dctool("-q dct2 " + Inputs::words({in.a, in.b, cam}) + " -o " + q(out) + " --format same --visualize").code ==
      0);
  CHECK(list_dir(out) == std::set<std::string>{"a.npy", "b.txt", "cam.png"});
  CHECK(slurp(out + "/cam.png").substr(1, 3) == "PNG");
  // An inverse may write images: the round trip of the image through a batch.
  const std::string coef = in.out("coef"), back = in.out("back");
  REQUIRE(run_dctool("-q dct2 " + Inputs::words({cam, in.a}) + " -o " + q(coef)).code == 0);
  REQUIRE(run_dctool("-q idct2 " + q(coef + "/cam.npy") + " -o " + q(back) + "/ --format png").code == 0);
  const RunResult p = run_dctool("psnr " + q(cam) + " " + q(back + "/cam.png"));
  CHECK(contains(p.out, "PSNR inf"));
  // A format no writer has, and --format beside -o FILE that disagrees with it.
  check_one_line_error(run_dctool("dct2 " + Inputs::words(in.all()) + " -o " + q(out) + " --format gif"), 2,
                       {"--format"});
  check_one_line_error(run_dctool("dct2 " + q(in.a) + " -o " + q(in.out("x.npy")) + " --format txt"), 2, {"--format"});
  CHECK_FALSE(exists(in.out("x.npy")));
}

TEST_CASE("transform batch: -o DIR is created, and one input with DIR/ or an existing directory is a batch too",
          "[app][batch]") {
  Inputs in;
  const std::string deep = in.out("new/deeper");
  REQUIRE(run_dctool("-q dct4 " + Inputs::words(in.all()) + " -o " + q(deep)).code == 0);
  CHECK(list_dir(deep) == std::set<std::string>{"a.npy", "b.npy", "c.npy"});
  const std::string slash = in.out("slash") + "/";
  REQUIRE(run_dctool("-q dct2 " + q(in.a) + " -o " + q(slash)).code == 0);
  CHECK(list_dir(slash) == std::set<std::string>{"a.npy"});
  const std::string existing = in.out("existing");
  fs::create_directories(existing);
  REQUIRE(run_dctool("-q dct2 " + q(in.b) + " -o " + q(existing)).code == 0);
  CHECK(list_dir(existing) == std::set<std::string>{"b.npy"});
}

TEST_CASE("transform batch: one summary line, none with -q, and --timing adds the stage table", "[app][batch]") {
  Inputs in;
  const std::string out = in.out("out");
  const RunResult r = run_dctool("dct2 " + Inputs::words(in.all()) + " -o " + q(out));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("dctool: transformed 3 of 3 inputs (0 failed) in ", 0) == 0);
  CHECK(contains(lines[0], " inputs/s"));
  CHECK(r.out.empty());
  const RunResult quiet = run_dctool("-q dct2 " + Inputs::words(in.all()) + " -o " + q(out));
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
  const RunResult t = run_dctool("--timing dct2 " + Inputs::words(in.all()) + " -o " + q(out));
  CHECK(t.code == 0);
  CHECK(contains(t.err, "median_ms"));
  CHECK(contains(t.err, "execute_e2e"));
  CHECK(contains(t.err, "cores busy"));
}

TEST_CASE("transform batch: an unknown or unusable --backend is refused before any work", "[app][batch]") {
  Inputs in;
  const std::string out = in.out("out");
  check_one_line_error(run_dctool("-b no-such dct2 " + Inputs::words(in.all()) + " -o " + q(out)), 2, {"no-such"});
  CHECK_FALSE(exists(out));
  // A backend that cannot do one input's request fails that input only (the sectioned DCT-IV: rows of 17).
  const std::string s17 = in.in + "/s17.npy";
  write_npy_f64(s17, 4, 17, random_values(4 * 17, 6));
  const RunResult r = run_dctool("-b cpu-dct4-sec4 dct4 " + Inputs::words({in.a, s17}) + " -o " + q(out) +
                                 " --report " + q(in.out("r.json")));
  INFO(r.err);
  CHECK(r.code == 3);
  const auto lines = split_lines(r.err);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind("dctool: error: " + in.a + ": cpu-dct4-sec4: ", 0) == 0);
  CHECK(list_dir(out) == std::set<std::string>{"s17.npy"});
  const FlatJson j = parse_json_text(in.dir, slurp(in.out("r.json")));
  REQUIRE(j.size == 2);
  CHECK(j.has("0.error"));
  CHECK(unquote(j.at("1.backend")) == "cpu-dct4-sec4");
}
