// Bad input through the CLI, one test per failure class (README "Exit codes"): each asserts the exit code, that
// stderr is exactly one line "dctool: error: ..." naming the file, and that nothing was left behind (no
// output file, no temporary sibling: the scratch directory holds exactly what it held before).
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "app_support.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

std::string camera() { return source_dir() + "/data/camera.png"; }

// Runs `args`, expecting failure with `code`, a one-line message naming `names`, and no new files in `dir`.
RunResult expect_failure(const TempDir& dir, const std::string& args, int code, const std::vector<std::string>& names,
                         const std::string& out = "") {
  const auto before = list_dir(dir.path().string());
  const RunResult r = run_dctool(args);
  INFO("dctool " << args);
  check_one_line_error(r, code, names);
  CHECK(list_dir(dir.path().string()) == before);
  if (!out.empty()) CHECK_FALSE(exists(out));
  return r;
}

// A float64 4x4 npy with one replaced value.
std::string npy_4x4_with(double v) {
  std::vector<double> d(16);
  for (int i = 0; i < 16; ++i) d[i] = 0.5 * i - 2;
  d[9] = v;
  return npy_bytes(npy_header("<f8", "(4, 4)"), raw_bytes(d));
}

std::string dct2(const TempDir& dir, const std::string& in, const std::string& extra = "") {
  return "dct2 " + q(dir.file(in)) + " -o " + q(dir.file("out.npy")) + extra;
}

}  // namespace

TEST_CASE("bad input: missing input file -> exit 3", "[app][bad-input]") {
  TempDir dir;
  for (const std::string in : {"missing.npy", "missing.png", "missing.txt"})
    expect_failure(dir, dct2(dir, in), 3, {in}, dir.file("out.npy"));
  expect_failure(dir, "-p f64 dct2 " + q(dir.file("missing.f64")) + " --shape 4x4 -o " + q(dir.file("out.npy")), 3,
                 {"missing.f64"}, dir.file("out.npy"));
  // A directory is that (exit 3) whatever its name, not an unknown file type.
  std::filesystem::create_directory(dir.file("folder"));
  expect_failure(dir, dct2(dir, "folder"), 3, {"folder", "is a directory"}, dir.file("out.npy"));
  std::filesystem::remove(dir.file("folder"));
}

TEST_CASE("bad input: empty file (.png .npy .txt) -> exit 3", "[app][bad-input]") {
  TempDir dir;
  for (const std::string in : {"empty.png", "empty.npy", "empty.txt"}) {
    spit(dir.file(in), "");
    expect_failure(dir, dct2(dir, in), 3, {in}, dir.file("out.npy"));
  }
}

TEST_CASE("bad input: truncated PNG (first 200 bytes of camera.png) -> exit 3", "[app][bad-input]") {
  TempDir dir;
  const std::string png = slurp(camera());
  REQUIRE(png.size() > 1000);
  spit(dir.file("trunc.png"), png.substr(0, 200));
  expect_failure(dir, dct2(dir, "trunc.png"), 3, {"trunc.png"}, dir.file("out.npy"));
  // Cut in the middle of the image data too.
  spit(dir.file("half.png"), png.substr(0, png.size() / 2));
  expect_failure(dir, dct2(dir, "half.png"), 3, {"half.png"}, dir.file("out.npy"));
  // psnr reads images through the same path.
  expect_failure(dir, "psnr " + q(camera()) + " " + q(dir.file("trunc.png")), 3, {"trunc.png"});
}

TEST_CASE("bad input: a PNG whose zlib stream is corrupt -> exit 3, not a crash", "[app][bad-input]") {
  // A corrupt zlib stream once crashed the reader; the message must be one line naming the file.
  TempDir dir;
  std::string png = slurp(camera());
  const std::size_t idat = png.find("IDAT");
  REQUIRE(idat != std::string::npos);
  for (std::size_t k = idat + 6; k < idat + 40; ++k) png[k] = '\xff';
  spit(dir.file("badzlib.png"), png);
  expect_failure(dir, dct2(dir, "badzlib.png"), 3, {"badzlib.png"}, dir.file("out.npy"));
  expect_failure(dir, "psnr " + q(camera()) + " " + q(dir.file("badzlib.png")), 3, {"badzlib.png"});
}

TEST_CASE("bad input: --threads, --jobs and bench sizes past their bounds -> exit 2", "[app][bad-input]") {
  TempDir dir;
  const std::string out = dir.file("out.png");
  for (const std::string& args :
       {"--threads 100000 compress " + q(camera()) + " -o " + q(out),
        "compress " + q(camera()) + " " + q(camera()) + " -o " + q(dir.path().string()) + " --jobs 5000",
        std::string("bench --sizes 3037000500x3037000500 --backends cpu-fftw --reps 1"),
        std::string("bench --sizes 65536x65536 --batch 2 --backends cpu-fftw --reps 1")}) {
    const auto before = list_dir(dir.path().string());
    const RunResult r = run_dctool(args);
    INFO("dctool " << args << "\n" << r.err);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("dctool: error: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(list_dir(dir.path().string()) == before);
  }
}

TEST_CASE("bad input: garbage bytes with an image extension -> exit 3", "[app][bad-input]") {
  TempDir dir;
  std::mt19937 rng(42);
  std::string junk(4096, '\0');
  for (auto& c : junk) c = static_cast<char>(rng() & 0xff);
  for (const std::string in : {"garbage.png", "garbage.jpg", "garbage.bmp"}) {
    spit(dir.file(in), junk);
    expect_failure(dir, dct2(dir, in), 3, {in}, dir.file("out.npy"));
  }
  // A PNG signature followed by junk.
  spit(dir.file("sig.png"), std::string("\x89PNG\r\n\x1a\n", 8) + junk);
  expect_failure(dir, dct2(dir, "sig.png"), 3, {"sig.png"}, dir.file("out.npy"));
}

TEST_CASE("bad input: truncated npy (valid header with short data) -> exit 3", "[app][bad-input]") {
  TempDir dir;
  std::vector<double> ten(10, 1.0);
  spit(dir.file("short.npy"), npy_bytes(npy_header("<f8", "(4, 4)"), raw_bytes(ten)));
  expect_failure(dir, dct2(dir, "short.npy"), 3, {"short.npy"}, dir.file("out.npy"));
  // Cut inside the header.
  const std::string full = npy_4x4_with(1.0);
  spit(dir.file("head.npy"), full.substr(0, 30));
  expect_failure(dir, dct2(dir, "head.npy"), 3, {"head.npy"}, dir.file("out.npy"));
  // Magic only.
  spit(dir.file("magic.npy"), full.substr(0, 6));
  expect_failure(dir, dct2(dir, "magic.npy"), 3, {"magic.npy"}, dir.file("out.npy"));
}

TEST_CASE("bad input: absurd npy header is rejected fast (< 2 s) with exit 3", "[app][bad-input]") {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> files = {
      {"huge.npy", npy_header("<f8", "(1000000000000, 1000000000000)")},
      {"huge3.npy", npy_header("<f4", "(4294967296, 4294967296, 3)")},
      {"big.npy", npy_header("<f8", "(100000, 100000)")},  // 80 GB: over the element limit
      {"negative.npy", npy_header("<f8", "(-1, 4)")},
      {"fourd.npy", npy_header("<f8", "(2, 2, 2, 2)")},
      {"nodescr.npy", "{'fortran_order': False, 'shape': (2, 2), }"},
      {"notdict.npy", "this is not a header"},
  };
  for (const auto& [name, header] : files) {
    spit(dir.file(name), npy_bytes(header, std::string(128, '\0')));
    const auto t0 = std::chrono::steady_clock::now();
    expect_failure(dir, dct2(dir, name), 3, {name}, dir.file("out.npy"));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(name << " took " << s << " s");
    CHECK(s < 2.0);
  }
  // A header length field claiming more bytes than the file holds.
  std::string lie = npy_4x4_with(1.0);
  lie[8] = '\xff';
  lie[9] = '\xff';
  spit(dir.file("lie.npy"), lie);
  expect_failure(dir, dct2(dir, "lie.npy"), 3, {"lie.npy"}, dir.file("out.npy"));
}

TEST_CASE("bad input: unsupported npy dtype (complex64 complex128 unicode) -> exit 3", "[app][bad-input]") {
  TempDir dir;
  for (const auto& [name, descr, size] : std::vector<std::tuple<std::string, std::string, int>>{
           {"c64.npy", "<c8", 8}, {"c128.npy", "<c16", 16}, {"u3.npy", "<U3", 12}}) {
    spit(dir.file(name), npy_bytes(npy_header(descr, "(4, 4)"), std::string(16 * size, '\0')));
    expect_failure(dir, dct2(dir, name), 3, {name}, dir.file("out.npy"));
  }
}

TEST_CASE("bad input: NaN or Inf in npy or text or raw -> exit 3", "[app][bad-input]") {
  TempDir dir;
  spit(dir.file("nan.npy"), npy_4x4_with(std::nan("")));
  spit(dir.file("inf.npy"), npy_4x4_with(INFINITY));
  spit(dir.file("ninf.npy"), npy_4x4_with(-INFINITY));
  spit(dir.file("nan.txt"), "1 2 3\n4 nan 6\n");
  spit(dir.file("inf.txt"), "1 2 3\n4 5 inf\n");
  spit(dir.file("ninf.csv"), "1,2,3\n-inf,5,6\n");
  for (const std::string in : {"nan.npy", "inf.npy", "ninf.npy", "nan.txt", "inf.txt", "ninf.csv"})
    expect_failure(dir, dct2(dir, in), 3, {in}, dir.file("out.npy"));
  std::vector<float> f(16, 1.0f);
  f[3] = std::nanf("");
  spit(dir.file("nan.f32"), raw_bytes(f));
  expect_failure(dir, dct2(dir, "nan.f32", " --shape 4x4"), 3, {"nan.f32"}, dir.file("out.npy"));
  // psnr too.
  expect_failure(dir, "psnr " + q(dir.file("nan.npy")) + " " + q(dir.file("inf.npy")), 3, {"nan.npy"});
}

TEST_CASE("bad input: ragged text -> exit 3", "[app][bad-input]") {
  TempDir dir;
  spit(dir.file("ragged.txt"), "1 2 3\n4 5\n6 7 8\n");
  spit(dir.file("ragged.csv"), "1,2\n3\n");
  spit(dir.file("longer.txt"), "1 2\n3 4 5\n");
  for (const std::string in : {"ragged.txt", "ragged.csv", "longer.txt"})
    expect_failure(dir, dct2(dir, in), 3, {in}, dir.file("out.npy"));
}

TEST_CASE("bad input: non-numeric text -> exit 3", "[app][bad-input]") {
  TempDir dir;
  spit(dir.file("words.txt"), "1 2\nabc 4\n");
  spit(dir.file("suffix.txt"), "1 2x\n3 4\n");
  spit(dir.file("words.csv"), "1,2\n3,four\n");
  for (const std::string in : {"words.txt", "suffix.txt", "words.csv"})
    expect_failure(dir, dct2(dir, in), 3, {in}, dir.file("out.npy"));
}

TEST_CASE("bad input: raw file without --shape -> exit 2 (usage)", "[app][bad-input]") {
  TempDir dir;
  spit(dir.file("a.raw"), std::string(64, '\0'));
  spit(dir.file("a.f32"), std::string(64, '\0'));
  spit(dir.file("a.f64"), std::string(128, '\0'));
  for (const std::string in : {"a.raw", "a.f32", "a.f64"})
    expect_failure(dir, dct2(dir, in), 2, {in}, dir.file("out.npy"));
}

TEST_CASE("bad input: --shape or --dtype with no raw input -> exit 2 naming the input", "[app][bad-input]") {
  TempDir dir;
  spit(dir.file("a.npy"), npy_4x4_with(1.0));
  spit(dir.file("b.npy"), npy_4x4_with(2.0));
  expect_failure(dir, dct2(dir, "a.npy", " --dtype u8"), 2, {"a.npy", "--dtype"}, dir.file("out.npy"));
  expect_failure(dir, dct2(dir, "a.npy", " --shape 2x8"), 2, {"a.npy", "--shape"}, dir.file("out.npy"));
  expect_failure(dir, "dct " + q(dir.file("a.npy")) + " --type 1 -o " + q(dir.file("out.npy")) + " --shape 2x8", 2,
                 {"a.npy", "--shape"}, dir.file("out.npy"));
  expect_failure(dir, "psnr " + q(dir.file("a.npy")) + " " + q(dir.file("b.npy")) + " --dtype f64", 2,
                 {"a.npy", "--dtype"});
  expect_failure(dir, "dct2 " + q(camera()) + " -o " + q(dir.file("out.npy")) + " --shape 512x512", 2,
                 {"camera.png", "--shape"}, dir.file("out.npy"));
  // Among several inputs one raw file is enough: the options are for it.
  spit(dir.file("c.f32"), raw_bytes(std::vector<float>(16, 1.0f)));
  const RunResult r = run_dctool("dct2 " + q(dir.file("a.npy")) + " " + q(dir.file("c.f32")) + " -o " +
                                 q(dir.file("outdir")) + " --shape 4x4");
  CHECK(r.code == 0);
}

TEST_CASE("bad input: raw file with the wrong --shape -> exit 3 and malformed --shape -> exit 2", "[app][bad-input]") {
  TempDir dir;
  spit(dir.file("a.f32"), raw_bytes(std::vector<float>(12, 1.0f)));  // 12 values
  spit(dir.file("b.f64"), raw_bytes(std::vector<double>(12, 1.0)));
  expect_failure(dir, dct2(dir, "a.f32", " --shape 4x4"), 3, {"a.f32"}, dir.file("out.npy"));  // too few bytes
  expect_failure(dir, dct2(dir, "a.f32", " --shape 3x3"), 3, {"a.f32"}, dir.file("out.npy"));  // too many bytes
  expect_failure(dir, dct2(dir, "b.f64", " --shape 4x4"), 3, {"b.f64"}, dir.file("out.npy"));
  // 12 f32 values (48 bytes) in a .raw read with --dtype f64 are 6 values: 3x4 does not fit.
  spit(dir.file("c.raw"), raw_bytes(std::vector<float>(12, 1.0f)));
  expect_failure(dir, dct2(dir, "c.raw", " --shape 3x4 --dtype f64"), 3, {"c.raw"}, dir.file("out.npy"));
  // .raw defaults to f32: 4x4 needs 64 bytes.
  expect_failure(dir, dct2(dir, "c.raw", " --shape 4x4"), 3, {"c.raw"}, dir.file("out.npy"));
  const RunResult r = expect_failure(dir, dct2(dir, "a.f32", " --shape 4by3"), 2, {"4by3"}, dir.file("out.npy"));
  (void)r;
}

TEST_CASE("bad input: missing output directory -> exit 3", "[app][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 2, 2, {1, 2, 3, 4});
  const std::string out = dir.file("nope/out.npy");
  expect_failure(dir, "dct2 " + q(dir.file("in.npy")) + " -o " + q(out), 3, {"nope"}, out);
  CHECK_FALSE(exists(dir.file("nope")));
}

TEST_CASE("bad input: output path is an existing directory -> exit 3", "[app][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 2, 2, {1, 2, 3, 4});
  std::filesystem::create_directory(dir.file("d.npy"));
  std::filesystem::create_directory(dir.file("e.png"));
  expect_failure(dir, "dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("d.npy")), 3, {"d.npy"});
  expect_failure(dir, "idct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("e.png")), 3, {"e.png"});
  CHECK(std::filesystem::is_empty(dir.file("d.npy")));
  CHECK(std::filesystem::is_empty(dir.file("e.png")));
}

TEST_CASE("bad input: output path equal to the input -> exit 3 with the input unchanged", "[app][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 2, 3, {1, 2, 3, 4, 5, 6});
  spit(dir.file("in.txt"), "1 2 3\n4 5 6\n");
  const std::string npy = slurp(dir.file("in.npy")), txt = slurp(dir.file("in.txt"));
  std::filesystem::create_symlink(dir.file("in.npy"), dir.file("link.npy"));
  const std::vector<std::pair<std::string, std::string>> spellings = {
      {dir.file("in.npy"), dir.file("in.npy")},   {dir.file("in.npy"), (dir.path() / "." / "in.npy").string()},
      {dir.file("in.npy"), dir.file("link.npy")}, {dir.file("link.npy"), dir.file("in.npy")},
      {dir.file("in.txt"), dir.file("in.txt")},
  };
  for (const auto& [in, out] : spellings) {
    const RunResult r = expect_failure(dir, "dct2 " + q(in) + " -o " + q(out), 3, {});
    CHECK((contains(r.err, std::filesystem::path(in).filename().string()) ||
           contains(r.err, std::filesystem::path(out).filename().string())));
    CHECK(slurp(dir.file("in.npy")) == npy);
    CHECK(slurp(dir.file("in.txt")) == txt);
  }
  // psnr-free ops too: dct4 and idct2.
  expect_failure(dir, "dct4 " + q(dir.file("in.npy")) + " -o " + q(dir.file("in.npy")), 3, {"in.npy"});
  expect_failure(dir, "idct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("in.npy")), 3, {"in.npy"});
  CHECK(slurp(dir.file("in.npy")) == npy);
}

TEST_CASE("bad input: usage errors (unknown subcommand or option or value or missing -o) -> exit 2",
          "[app][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 2, 2, {1, 2, 3, 4});
  const std::string in = q(dir.file("in.npy")), out = q(dir.file("out.npy"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"frobnicate " + in + " -o " + out, "frobnicate"},
      {"dct2 " + in + " -o " + out + " --frobnicate", "--frobnicate"},
      {"--frobnicate dct2 " + in + " -o " + out, "--frobnicate"},
      {"dct2 " + in + " -o " + out + " --norm sideways", "sideways"},
      {"dct2 " + in + " -o " + out + " --axis diagonal", "diagonal"},
      {"-p f16 dct2 " + in + " -o " + out, "f16"},
      {"dct4 " + in + " -o " + out + " --norm 1", ""},
      {"dct2 " + in + " -o " + out + " --block x", ""},
      {"dct2 " + in, "-o"},
      {"dct2 -o " + out, ""},
  };
  for (const auto& [args, name] : cases) {
    std::vector<std::string> names;
    if (!name.empty()) names.push_back(name);
    expect_failure(dir, args, 2, names, dir.file("out.npy"));
  }
  // No subcommand at all is a usage error too (help may follow on stderr, so only the code is asserted).
  const RunResult none = run_dctool("");
  CHECK(none.code == 2);
  // An input extension no reader knows (core/formats.hpp: kUsage naming the file).
  spit(dir.file("in.xyz"), "1 2\n3 4\n");
  expect_failure(dir, dct2(dir, "in.xyz"), 2, {"in.xyz"}, dir.file("out.npy"));
}

TEST_CASE("bad input: transform coefficients to an image file -> exit 2 naming it", "[app][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 8, 8, std::vector<double>(64, 100.0));
  for (const auto& [op, ext] : std::vector<std::pair<std::string, std::string>>{
           {"dct2", ".png"}, {"dct2", ".bmp"}, {"dct4", ".jpg"}, {"dct4", ".tga"}, {"dct2 --block 8", ".jpeg"}}) {
    const std::string out = dir.file("coef" + ext);
    expect_failure(dir, op + " " + q(dir.file("in.npy")) + " -o " + q(out), 2, {"coef" + ext}, out);
  }
  // Also from an image input (the natural mistake).
  expect_failure(dir, "dct2 " + q(camera()) + " -o " + q(dir.file("cam.png")), 2, {"cam.png"}, dir.file("cam.png"));
}

TEST_CASE("bad input: block 8 on a 12x16 input fails naming the block size", "[app][bad-input][block]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 12, 16, std::vector<double>(12 * 16, 1.0));
  const auto before = list_dir(dir.path().string());
  const RunResult r = run_dctool("dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("out.npy")) + " --block 8");
  INFO("exit " << r.code << " stderr: " << r.err);
  CHECK(r.code != 0);
  CHECK((r.code == 3 || r.code == 4));
  WARN("--block 8 on 12x16 exited with code " << r.code << ": " << r.err);
  check_one_line_error(r, r.code);
  CHECK(std::regex_search(r.err, std::regex(R"(\b8\b)")));
  CHECK(list_dir(dir.path().string()) == before);
  // A block that does divide both sides works.
  const RunResult ok = run_dctool("dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("out.npy")) + " --block 4");
  INFO(ok.err);
  CHECK(ok.code == 0);
}
