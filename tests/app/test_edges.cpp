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
