// Edges of the formats and bench (README "Formats", "Exit codes"): one-byte .npy dtypes in any byte order, and a
// bench where nothing can run.
#include <cstring>

#include "app_support.hpp"

namespace {
using namespace dct::test;
using namespace dct::test::cli;
}  // namespace

TEST_CASE(
    ".npy: one-byte dtypes are read whatever their byte-order character ('|u1', '<u1', '>u1'), big-endian ones swapped",
    "[npy]") {
  TempDir dir;
  std::string data;
  for (int i = 0; i < 16; ++i) data += static_cast<char>(i * 7);
  for (const char* descr : {"|u1", "<u1", ">u1"}) {
    const std::string in = dir.file("u1.npy"), out = dir.file("o.npy");
    spit(in, npy_bytes(npy_header(descr, "(4, 4)"), data));
    const RunResult r = run_dctool("dct2 " + q(in) + " -o " + q(out) + " -b cpu-naive --json");
    INFO(descr << ": " << r.err);
    CHECK(r.code == 0);
  }
  // A multi-byte big-endian type is read too (its byte-swapped value); a big-endian complex one is refused, naming the
  // file.
  const std::string be = dir.file("be.npy"), out = dir.file("x.npy");
  spit(be, npy_bytes(npy_header(">f4", "(1, 1)"), std::string("\x40\x40\0\0", 4)));      // 3.0f
  REQUIRE(run_dctool("-p f64 dct2 --norm ortho " + q(be) + " -o " + q(out)).code == 0);  // 1x1 ortho: y = x
  const std::string o = slurp(out);
  double y = 0;
  std::memcpy(&y, o.data() + o.size() - 8, 8);
  CHECK(y == 3.0);
  const std::string bc = dir.file("bc.npy");
  spit(bc, npy_bytes(npy_header(">c8", "(1, 1)"), std::string(8, '\0')));
  check_one_line_error(run_dctool("dct2 " + q(bc) + " -o " + q(dir.file("y.npy"))), 3, {"bc.npy"});
}

TEST_CASE("bench: nothing measurable is exit 4 with the reason, not an empty table", "[bench]") {
  // lot only runs on multiples of 8: every case is skipped.
  const RunResult r = run_dctool("-q bench --ops lot --sizes 12x12 --backends cpu-lot --reps 1 --warmup 0");
  check_one_line_error(r, 4, {"bench"});
  CHECK(r.out.empty());
}

TEST_CASE("plan: measured FFTW plans go to the wisdom cache, a broken cache is ignored", "[plan]") {
  TempDir dir;
  const std::string env = "XDG_CACHE_HOME=" + q(dir.file("cache")) + " ";
  const std::string wisdom = dir.file("cache/dctool/fftw-wisdom-f32");
  RunResult r = run_cmd(env + q(DCTOOL_BINARY) + " plan --sizes 16x16,12x20 --ops dct2,idct2");
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(exists(wisdom));
  CHECK(slurp(wisdom).rfind("(fftw-3", 0) == 0);
  CHECK(split_lines(r.err).size() == 4);  // one note per planned case
  // One-shot commands read it (and stay correct when it is garbage).
  const std::string in = dir.file("x.npy"), out = dir.file("y.npy");
  write_npy_f64(in, 16, 16, std::vector<double>(256, 1.0));
  r = run_cmd(env + q(DCTOOL_BINARY) + " dct2 " + q(in) + " -o " + q(out));
  CHECK(r.code == 0);
  spit(wisdom, "(fftw-3.3.10 fftwf_wisdom #x garbage");
  r = run_cmd(env + q(DCTOOL_BINARY) + " dct2 " + q(in) + " -o " + q(out));
  CHECK(r.code == 0);
  check_one_line_error(run_dctool("plan --ops dct2"), 2);
  // --json: one object per planned case on stdout, naming the request and the backend.
  r = run_cmd(env + q(DCTOOL_BINARY) + " --json plan --sizes 16x16,12x20 --ops dct2");
  INFO(r.out);
  CHECK(r.code == 0);
  const auto count = [&](const std::string& needle) {
    int n = 0;
    for (auto at = r.out.find(needle); at != std::string::npos; at = r.out.find(needle, at + 1)) ++n;
    return n;
  };
  CHECK(r.out.rfind("[", 0) == 0);
  CHECK(count("\"backend\": \"cpu-fftw\"") == 2);
  CHECK(count("\"plan_ms\": ") == 2);
  CHECK(contains(r.out, "\"request\": \"dct2 none both 12x20 f32\""));
}

TEST_CASE("plan: the real-to-real ops of bench on sizes of rank 1 to 3 go to the wisdom cache", "[plan][r2r]") {
  TempDir dir;
  const std::string env = "XDG_CACHE_HOME=" + q(dir.file("cache")) + " ";
  RunResult r = run_cmd(env + q(DCTOOL_BINARY) + " -p f64 plan --sizes 8x6,4x5x6 --ops dct1,dst2,r2r:dct2+dst3");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(exists(dir.file("cache/dctool/fftw-wisdom-f64")));
  CHECK(split_lines(r.err).size() == 6);  // one note per planned case
  CHECK(contains(r.err, "4x5x6"));
  // A one-shot transform of a planned shape reads the cache.
  const std::string in = dir.file("x.npy"), out = dir.file("y.npy");
  write_npy_f64(in, 8, 6, std::vector<double>(48, 1.0));
  r = run_cmd(env + q(DCTOOL_BINARY) + " dct --type 1 " + q(in) + " -o " + q(out));
  CHECK(r.code == 0);
  // More kinds than the size has axes, and a 3-D size for the 2-D ops: usage errors, nothing planned.
  for (const char* args : {"plan --sizes 10 --ops r2r:dct2+dst3", "plan --sizes 4x5x6 --ops dct2"}) {
    const RunResult bad = run_cmd(env + q(DCTOOL_BINARY) + " " + args);
    INFO(args << ": " << bad.err);
    CHECK(bad.code == 2);
    CHECK_FALSE(contains(bad.err, "planned"));
  }
  // An unknown op: the message names the forms plan takes (not bench's lot).
  const RunResult op = run_dctool("plan --sizes 8x8 --ops bogus");
  check_one_line_error(op, 2, {"bogus", "r2r:KIND+KIND"});
  CHECK_FALSE(contains(op.err, "lot"));
}

TEST_CASE("compress --report: naming an input or an output is exit 2, an unwritable report fails before any image",
          "[compress]") {
  TempDir dir;
  const std::string in = dir.file("a.png"), out = dir.file("a.out.png");
  fs::copy_file(source_dir() + "/data/camera.png", in);
  check_one_line_error(run_dctool("compress " + q(in) + " -o " + q(out) + " --report " + q(out)), 2, {"--report"});
  CHECK_FALSE(exists(out));
  check_one_line_error(run_dctool("compress " + q(in) + " -o " + q(out) + " --report " + q(in)), 2, {"--report"});
  CHECK(slurp(in) == slurp(source_dir() + "/data/camera.png"));
  // Batch: the report may not be one of DIR's outputs either.
  const std::string outdir = dir.file("o");
  check_one_line_error(run_dctool("compress " + q(in) + " " + q(source_dir() + "/data/astronaut.png") + " -o " +
                                  q(outdir) + " --format png --report " + q(outdir + "/a.png")),
                       2, {"--report"});
  check_one_line_error(run_dctool("compress " + q(in) + " -o " + q(out) + " --report " + q(dir.file("no/r.json"))), 3,
                       {"r.json"});
  CHECK_FALSE(exists(out));
  const std::set<std::string> left = list_dir(dir.path().string());
  CHECK(left.count("a.out.png") == 0);
  CHECK(left.size() <= 2);  // a.png, and o/ if the batch made it before refusing
}

TEST_CASE("a .npy of shape (H, W, 1) keeps its channel axis through dct2, dct4 and lot", "[edges]") {
  TempDir dir;
  const std::string in = dir.file("x.npy");
  spit(in, npy_bytes(npy_header("<f8", "(16, 8, 1)"), raw_bytes(random_vector<double>(128, 7))));
  for (const std::string cmd : {"dct2", "idct2", "dct4", "lot"}) {
    const std::string out = dir.file(cmd + ".npy");
    const RunResult r = run_dctool(cmd + " " + q(in) + " -o " + q(out));
    INFO(cmd << ": " << r.err);
    REQUIRE(r.code == 0);
    // lot's output is its lapped layout (H + 8) x (W + 8); the others keep H x W.
    CHECK(contains(slurp(out), cmd == "lot" ? "'shape': (24, 16, 1)" : "'shape': (16, 8, 1)"));
  }
  // Two dimensions stay two.
  const std::string in2 = dir.file("y.npy"), out2 = dir.file("y.out.npy");
  write_npy_f64(in2, 16, 8, random_vector<double>(128, 8));
  REQUIRE(run_dctool("dct2 " + q(in2) + " -o " + q(out2)).code == 0);
  CHECK(contains(slurp(out2), "'shape': (16, 8)"));
}
