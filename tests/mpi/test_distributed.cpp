// One transform across the processes of mpirun (docs/distributed.md): dct, dst, r2r, dct2 and idct2 of odd 2-D and 3-D
// shapes (first axes not divisible by the process count, and 3-D arrays of fewer planes than processes) on 1 to 4
// processes agree with scipy.fft; a broken input is
// one error line from rank 0, exit 3, every process failing and no output left; more processes than rows is exit 4;
// bench --distributed reports the exchange beside a plain all-to-all.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "app/app_support.hpp"
#include "app/r2r_oracle.hpp"

namespace {

using namespace dct::test;
using namespace dct::test::cli;

// mpirun refuses to start as root without these (CI runs as root).
std::string mpirun(int np) {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") + q(DCTOOL_MPIEXEC) +
         " --oversubscribe -np " + std::to_string(np) + " " + q(DCTOOL_BINARY);
}

std::vector<std::string> dctool_lines(const std::string& err) {
  std::vector<std::string> out;
  for (const auto& line : split_lines(err))
    if (line.rfind("dctool:", 0) == 0) out.push_back(line);
  return out;
}

// Global options, the command and its options, the input's name in the test's directory, then the oracle's view of
// it (r2r_oracle.hpp).
struct Cmd {
  std::string global, op, opts, in, kinds, axes, inverse, norm, dtype, tol;
};

// Every command (with `extra` options) on `np` processes, its output named `prefix` and its index, checked against
// scipy.
void run_on(int np, const TempDir& dir, const std::vector<Cmd>& cmds, const std::string& extra,
            const std::string& prefix) {
  std::vector<R2rCase> cases;
  for (const Cmd& c : cmds) {
    const std::string in = dir.file(c.in + ".npy"), out = dir.file(prefix + std::to_string(cases.size()) + ".npy");
    cases.push_back({c.global + " " + c.op + " " + q(in) + " -o " + q(out) + " " + c.opts + extra, out, in, c.kinds,
                     c.axes, c.inverse, c.norm, c.dtype, c.tol});
  }
  run_all(dir, cases, [np](const std::string& args) { return run_cmd(mpirun(np) + " " + args); });
}

// Every command on `np` processes (--distributed: mpirun -np 1 runs the slab path too), checked against scipy.
void agree_with_scipy(int np) {
  TempDir dir;
  generate(dir,
           {"m7x5 7x5 float64 1", "m5x17 5x17 float64 2", "c13x9x6 13x9x6 float64 3", "c13x9x6_f32 13x9x6 float32 4"});
  const std::vector<Cmd> cmds = {
      {"", "dct", "--type 2", "m7x5", "dct2", "-", "0", "backward", "float64", "1e-12"},
      {"", "dct", "--type 3 --norm ortho", "c13x9x6", "dct3", "-", "0", "ortho", "float64", "1e-12"},
      {"", "dct2", "", "m7x5", "dct2", "-", "0", "backward", "float32", "1e-5"},  // dct2 writes f32 without -p
      {"-p f64", "idct2", "--norm ortho", "c13x9x6", "dct2", "0,1", "1", "ortho", "float64", "1e-12"},  // (H, W, C)
      {"-p f64", "dct2", "--axis cols", "m5x17", "dct2", "0", "0", "backward", "float64", "1e-12"},
      {"", "r2r", "--kinds dct2,dst3", "m5x17", "dct2,dst3", "-", "0", "backward", "float64", "1e-12"},
      {"", "r2r", "--kinds dct2,dst3,dct1 --norm forward --inverse", "c13x9x6", "dct2,dst3,dct1", "-", "1", "forward",
       "float64", "1e-12"},
      {"", "dst", "--type 4 --norm ortho --axes 0,2", "c13x9x6", "dst4", "0,2", "0", "ortho", "float64", "1e-12"},
      {"", "dst", "--type 2 --axes 1,2", "c13x9x6", "dst2", "1,2", "0", "backward", "float64", "1e-12"},  // no exchange
      {"", "dst", "--type 1 --axes 0", "m5x17", "dst1", "0", "0", "backward", "float64", "1e-12"},
      {"-p f32", "dct", "--type 2 --norm ortho", "c13x9x6_f32", "dct2", "-", "0", "ortho", "float32", "1e-5"},
  };
  run_on(np, dir, cmds, " --distributed", "out");
}

}  // namespace

TEST_CASE("mpirun -np 1 --distributed: the slab path agrees with scipy.fft on odd 2-D and 3-D shapes", "[mpi]") {
  agree_with_scipy(1);
}

TEST_CASE("mpirun -np 2: distributed dct, dst, r2r, dct2 and idct2 agree with scipy.fft on odd shapes", "[mpi]") {
  agree_with_scipy(2);
}

TEST_CASE("mpirun -np 3: distributed transforms agree with scipy.fft (first axes not divisible by 3)", "[mpi]") {
  agree_with_scipy(3);
}

TEST_CASE("mpirun -np 4: distributed transforms agree with scipy.fft (first axes not divisible by 4)", "[mpi]") {
  agree_with_scipy(4);
}

// A 3-D array with fewer planes than processes: pencils of axis 2, then slabs of axis 2 (docs/distributed.md).
TEST_CASE("mpirun -np 3 and 4: 3-D arrays of 1 and 2 planes (pencils) agree with scipy.fft", "[mpi]") {
  TempDir dir;
  generate(dir, {"c2x5x7 2x5x7 float64 11", "c1x6x5 1x6x5 float64 12", "c2x3x4_f32 2x3x4 float32 13"});
  const std::vector<Cmd> cmds = {
      {"", "dct", "", "c2x5x7", "dct2", "-", "0", "backward", "float64", "1e-12"},  // --type 2 by default
      {"", "r2r", "--kinds dct2,dst3,dct1 --norm forward --inverse", "c2x5x7", "dct2,dst3,dct1", "-", "1", "forward",
       "float64", "1e-12"},
      {"", "dst", "--type 4 --norm ortho --axes 0,2", "c2x5x7", "dst4", "0,2", "0", "ortho", "float64", "1e-12"},
      {"", "dst", "--type 2 --axes 1", "c2x5x7", "dst2", "1", "0", "backward", "float64", "1e-12"},
      {"", "dct", "--type 3 --norm ortho", "c1x6x5", "dct3", "-", "0", "ortho", "float64", "1e-12"},
      {"", "dct", "--type 2 --axes 2", "c1x6x5", "dct2", "2", "0", "backward", "float64", "1e-12"},  // no exchange
      {"", "dct", "--type 2 --norm ortho", "c2x3x4_f32", "dct2", "-", "0", "ortho", "float32", "1e-5"},
  };
  for (const int np : {3, 4}) run_on(np, dir, cmds, "", "p" + std::to_string(np) + "_");
}

TEST_CASE("mpirun -np 3 with one broken input: one error line from rank 0, exit 3 on every rank, no output", "[mpi]") {
  TempDir dir;
  generate(dir, {"m 9x4 float64 1"});
  const std::string good = slurp(dir.file("m.npy"));
  const std::string truncated = dir.file("truncated.npy"), nan = dir.file("nan.npy");
  spit(truncated, good.substr(0, good.size() - 40));  // the last rank's rows are missing
  std::string with_nan = good;
  const double v = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(with_nan.data() + with_nan.size() - 8, &v, 8);  // the last value, on the last rank
  spit(nan, with_nan);
  for (const auto& [in, what] : std::vector<std::pair<std::string, std::string>>{
           {truncated, "truncated"}, {nan, "NaN at index (8, 3)"}, {dir.file("missing.npy"), "no such file"}}) {
    const std::string out = dir.file("out.npy");
    const RunResult r = run_cmd(mpirun(3) + " dct " + q(in) + " -o " + q(out) + " --type 2");
    INFO(r.err);
    CHECK(r.code == 3);
    const auto lines = dctool_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind("dctool: error: " + in + ": ", 0) == 0);
    CHECK(contains(lines[0], what));
    CHECK(list_dir(dir.path().string()) ==
          std::set<std::string>{"m.npy", "truncated.npy", "nan.npy", "gen.txt", "r2r_oracle.py"});
  }
  // Block mode has no distributed form: exit 4.
  CHECK(run_cmd(mpirun(3) + " dct2 " + q(dir.file("m.npy")) + " -o " + q(dir.file("o.npy")) + " --block 3").code == 4);
  // More processes than rows of a 2-D array: exit 4, naming the file and the limit.
  TempDir small;
  generate(small, {"s 3x8 float64 5"});
  const RunResult over =
      run_cmd(mpirun(4) + " dct " + q(small.file("s.npy")) + " -o " + q(small.file("o.npy")) + " --type 2");
  INFO(over.err);
  CHECK(over.code == 4);
  const auto lines = dctool_lines(over.err);
  REQUIRE(lines.size() == 1);
  CHECK(contains(lines[0], small.file("s.npy") + ": "));
  CHECK(contains(lines[0], "at most 3 processes"));
  CHECK_FALSE(exists(small.file("o.npy")));
}

TEST_CASE("mpirun -np 2 bench --distributed: the exchange's share and bytes/s beside a plain all-to-all", "[mpi]") {
  TempDir dir;
  const RunResult r = run_cmd(mpirun(2) +
                              " bench --distributed --sizes 64x48,16x12x10 --ops dct2,r2r:dst2+dct3 "
                              "--reps 3 --warmup 1 --format csv");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const FlatJson t = parse_csv_text(dir, r.out);
  CHECK(t.size == 4);  // two ops, two sizes, printed once
  for (const std::string k : {"0", "1", "2"}) {
    INFO(k);
    CHECK(unquote(t.at(k + ".processes")) == "2");
    CHECK(std::stod(unquote(t.at(k + ".median_ms"))) > 0);
    CHECK(std::stod(unquote(t.at(k + ".exchange_gbps"))) > 0);
    CHECK(std::stod(unquote(t.at(k + ".alltoall_gbps"))) > 0);
    CHECK(std::stod(unquote(t.at(k + ".exchange_share"))) < 1);
  }
  // r2r:dst2+dct3 on the 3-D size transforms its last two axes: no exchange, so nothing to compare.
  CHECK(unquote(t.at("3.dims")) == "16x12x10");
  CHECK(unquote(t.at("3.exchange_gbps")).empty());
}
