// One matrix .npy to a .npy on its own (the streamed route, core::Plan::execute_streamed): the same bytes as the same
// input in a batch (which reads and writes whole arrays), the timing stages it reports, and its input errors — a NaN
// or Inf mid-file, a truncated file — one line naming the file, exit 3, no output and no temporary left.
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "app_support.hpp"

namespace {

using namespace dct::test;
using namespace dct::test::cli;

std::vector<float> random_floats(std::int64_t n, unsigned seed) { return random_vector<float>(n, seed); }

void write_npy_f32(const std::string& path, const std::string& shape_tuple, const std::vector<float>& v) {
  spit(path, npy_bytes(npy_header("<f4", shape_tuple), raw_bytes(v)));
}

}  // namespace

TEST_CASE("streamed one-shot: the bytes of a batch run, 1-D and 2-D, f32 and f64, every transform", "[app][streamed]") {
  TempDir dir;
  const std::string a = dir.file("a.npy"), b = dir.file("b.npy"), v = dir.file("v.npy");
  write_npy_f32(a, "(1208, 2048)", random_floats(1208 * 2048, 1));  // 9.9 MB: two of a GPU's 8 MiB parts
  write_npy_f64(b, 96, 72, random_vector<double>(96 * 72, 2));
  write_npy_f32(v, "(1000,)", random_floats(1000, 3));
  for (const std::string cmd :
       {"dct2", "idct2 --norm ortho", "dct2 --block 8", "dct4", "dct4 --inverse --axis cols", "-p f64 dct2", "lot"}) {
    for (const std::string& in : {a, b, v}) {
      if (cmd == "lot" && in != b) continue;
      if (cmd == "dct2 --block 8" && in == v) continue;
      INFO(cmd << " " << in);
      const std::string one = dir.file("one.npy"), batch = dir.file("batch");
      fs::remove_all(batch);
      const RunResult s = run_dctool("-q " + cmd + " " + q(in) + " -o " + q(one));
      REQUIRE(s.code == 0);
      const RunResult r = run_dctool("-q " + cmd + " " + q(in) + " -o " + q(batch + "/"));
      REQUIRE(r.code == 0);
      CHECK(slurp(one) == slurp(batch + "/" + fs::path(in).filename().string()));
    }
  }
  // A 1-D input gives a (1, N) output, as in a batch and as before.
  REQUIRE(run_dctool("-q dct2 " + q(v) + " -o " + q(dir.file("v1.npy"))).code == 0);
  CHECK(contains(slurp(dir.file("v1.npy")).substr(0, 128), "'shape': (1, 1000)"));
}

TEST_CASE("streamed one-shot: --json names its stages, which add up to less than the total", "[app][streamed]") {
  TempDir dir;
  const std::string a = dir.file("a.npy");
  write_npy_f32(a, "(64, 80)", random_floats(64 * 80, 4));
  const RunResult r = run_dctool("--json dct2 " + q(a) + " -o " + q(dir.file("o.npy")));
  REQUIRE(r.code == 0);
  for (const std::string key : {"\"open\"", "\"plan\"", "\"read\"", "\"device\"", "\"write\"", "\"total\""})
    CHECK(contains(r.out, key));
}

TEST_CASE("streamed one-shot: a NaN mid-file or a truncated file is one line, exit 3, nothing left behind",
          "[app][streamed]") {
  TempDir dir;
  const std::string out = dir.file("out.npy");
  std::vector<float> x = random_floats(2100 * 2000, 5);
  x[static_cast<std::size_t>(1900) * 2000 + 17] = std::numeric_limits<float>::infinity();  // in the last 8 MiB part
  write_npy_f32(dir.file("inf.npy"), "(2100, 2000)", x);
  const RunResult r = run_dctool("dct2 " + q(dir.file("inf.npy")) + " -o " + q(out));
  check_one_line_error(r, 3, {"inf.npy", "Inf at row 1901, column 18"});
  CHECK(list_dir(dir.path().string()) == std::set<std::string>{"inf.npy"});
  // Two, at the end of the first of two parts and at the start of the second (a 36 MB file: two 18 MB parts on the
  // CPU, five 8 MiB ones on a GPU): the parts are read at once, and the first in the file is the one named, as a
  // whole-array read names it.
  std::vector<float> y = random_floats(3000 * 3000, 7);
  y[static_cast<std::size_t>(1490) * 3000 + 3] = std::numeric_limits<float>::quiet_NaN();
  y[static_cast<std::size_t>(1510) * 3000 + 8] = std::numeric_limits<float>::infinity();
  write_npy_f32(dir.file("two.npy"), "(3000, 3000)", y);
  for (int run = 0; run < 3; ++run)
    check_one_line_error(run_dctool("dct2 " + q(dir.file("two.npy")) + " -o " + q(out)), 3,
                         {"two.npy", "NaN at row 1491, column 4"});
  fs::remove(dir.file("two.npy"));
  // The header says more values than the file holds.
  std::string bytes = npy_bytes(npy_header("<f4", "(300, 300)"), raw_bytes(random_floats(300 * 299, 6)));
  spit(dir.file("short.npy"), bytes);
  check_one_line_error(run_dctool("dct2 " + q(dir.file("short.npy")) + " -o " + q(out)), 3, {"short.npy"});
  CHECK(list_dir(dir.path().string()) == std::set<std::string>{"inf.npy", "short.npy"});
}

TEST_CASE("streamed one-shot: where the file system has no fallocate the pwrite route writes the same bytes",
          "[app][streamed]") {
  TempDir dir;
  const std::string a = dir.file("a.npy"), b = dir.file("b.npy");
  write_npy_f32(a, "(1208, 2048)", random_floats(1208 * 2048, 5));  // several parts
  write_npy_f64(b, 96, 72, random_vector<double>(96 * 72, 6));
  for (const std::string& in : {a, b})
    for (const std::string cmd : {"dct2", "dct --type 3 --norm ortho"}) {
      INFO(cmd << " " << in);
      const std::string mapped = dir.file("mapped.npy"), written = dir.file("written.npy");
      REQUIRE(run_dctool("-q " + cmd + " " + q(in) + " -o " + q(mapped)).code == 0);
      // (ASan built with gcc insists on coming first among the libraries; the preloaded one goes before it.)
      const RunResult r =
          run_cmd("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0\" LD_PRELOAD=" +
                  q(DCTOOL_NO_FALLOCATE) + " " + q(DCTOOL_BINARY) + " -q " + cmd + " " + q(in) + " -o " + q(written));
      REQUIRE(r.code == 0);
      CHECK(contains(r.err, "no_fallocate: fallocate refused"));  // the route was taken
      CHECK(slurp(written) == slurp(mapped));
      for (const std::string& e : list_dir(dir.path().string())) CHECK(!contains(e, ".tmp."));  // nothing left behind
    }
}
