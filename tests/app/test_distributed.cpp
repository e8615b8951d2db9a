// --distributed without an MPI launcher (docs/distributed.md): the slab path in one process gives the plain run's
// values to rounding and scipy's; what it refuses (several inputs, files other than .npy, 1-D arrays, block mode);
// its --json result and --report; bench --distributed in one process; and, in a build without MPI, the refusal of a
// launcher of several processes (exit 4).
#include <cstdlib>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "app_support.hpp"
#include "r2r_oracle.hpp"

using namespace dct::test;
using namespace dct::test::cli;

TEST_CASE("distributed in one process (--distributed): the plain run's values to rounding, and scipy's",
          "[app][distributed]") {
  TempDir dir;
  generate(dir, {"m 7x5 float64 1", "c 13x9x6 float64 2"});
  const std::string m = dir.file("m.npy"), c = dir.file("c.npy");
  // Global options, the command and its options, then the oracle's view of it (r2r_oracle.hpp).
  struct Pair {
    std::string global, op, opts, in, kinds, axes, inverse, norm;
  };
  const std::vector<Pair> pairs = {
      {"", "dct", "--type 2 --norm ortho", c, "dct2", "-", "0", "ortho"},
      {"", "r2r", "--kinds dct2,dst3,dct1 --inverse", c, "dct2,dst3,dct1", "-", "1", "backward"},
      {"-p f64", "idct2", "", c, "dct2", "0,1", "1", "backward"},
      {"-p f64", "dct4", "--axis both --norm ortho", m, "dct4", "-", "0", "ortho"},
      {"", "dst", "--type 1 --axes 1", m, "dst1", "1", "0", "backward"},
  };
  std::vector<R2rCase> cases;
  std::string compare;
  for (const Pair& p : pairs) {
    const std::string n = std::to_string(cases.size());
    const std::string plain = dir.file("plain" + n + ".npy"), slab = dir.file("slab" + n + ".npy");
    const std::string cmd = p.global + " " + p.op + " " + q(p.in) + " -o ";
    const RunResult r = run_dctool(cmd + q(plain) + " " + p.opts);
    INFO(r.err);
    REQUIRE(r.code == 0);
    cases.push_back({cmd + q(slab) + " " + p.opts + " --distributed", slab, p.in, p.kinds, p.axes, p.inverse, p.norm,
                     "float64", "1e-12"});
    compare += plain + " " + slab + "\n";
  }
  run_all(dir, cases);
  spit(dir.file("pairs.txt"), compare);
  spit(dir.file("cmp.py"),
       "import sys, numpy as np\n"
       "worst = 0\n"
       "for line in open(sys.argv[1]):\n"
       "    a, b = (np.load(f) for f in line.split())\n"
       "    assert a.shape == b.shape and a.dtype == b.dtype, line\n"
       "    worst = max(worst, np.linalg.norm(a - b) / np.linalg.norm(a))\n"
       "print(worst)\n"
       "sys.exit(0 if worst <= 1e-14 else 1)\n");
  const RunResult cmp = run_cmd(q(python()) + " " + q(dir.file("cmp.py")) + " " + q(dir.file("pairs.txt")));
  INFO(cmp.out << cmp.err);
  CHECK(cmp.code == 0);
}

TEST_CASE("distributed (--distributed): one .npy of 2 or 3 dimensions into one .npy, whole-array transforms only",
          "[app][distributed]") {
  TempDir dir;
  generate(dir, {"m 6x4 float64 1", "v 9 float64 2"});
  const std::string m = dir.file("m.npy"), out = dir.file("o.npy");
  spit(dir.file("m.txt"), "1 2\n3 4\n");
  check_one_line_error(run_dctool("dct " + q(m) + " " + q(m) + " -o " + q(dir.file("d/")) + " --type 2 --distributed"),
                       2, {"--distributed"});
  check_one_line_error(run_dctool("dct " + q(dir.file("m.txt")) + " -o " + q(out) + " --type 2 --distributed"), 4,
                       {dir.file("m.txt"), ".npy"});
  check_one_line_error(run_dctool("dct " + q(m) + " -o " + q(dir.file("o.txt")) + " --type 2 --distributed"), 4,
                       {dir.file("o.txt")});
  check_one_line_error(run_dctool("dct " + q(dir.file("v.npy")) + " -o " + q(out) + " --type 2 --distributed"), 4,
                       {dir.file("v.npy"), "1-D"});
  check_one_line_error(run_dctool("dct2 " + q(m) + " -o " + q(out) + " --block 2 --distributed"), 4, {m, "--block"});
  check_one_line_error(run_dctool("dct " + q(m) + " -o " + q(m) + " --type 2 --distributed"), 3, {m});
  CHECK(run_dctool("lot " + q(m) + " -o " + q(out) + " --distributed").code == 2);
  CHECK_FALSE(exists(out));

  const RunResult r = run_dctool("--json dct " + q(m) + " -o " + q(out) + " --type 2 --distributed --report " +
                                 q(dir.file("rep.json")));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const FlatJson j = parse_json_text(dir, r.out);
  CHECK(unquote(j.at("op")) == "dct");
  CHECK(unquote(j.at("kinds")) == "dct2+dct2");
  CHECK(j.at("processes") == "1");
  CHECK(unquote(j.at("backend")) == "cpu-fftw");
  CHECK(unquote(j.at("dims")) == "6x4");
  CHECK(j.at("shape") == "[6, 4]");
  CHECK(slurp(dir.file("rep.json")) == r.out);
}

TEST_CASE("bench --distributed in one process: the transform timed, no exchange to compare", "[app][distributed]") {
  TempDir dir;
  const RunResult r =
      run_dctool("bench --distributed --sizes 32x16,8x6x4 --ops idct2 --reps 2 --warmup 1 --format csv");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const FlatJson t = parse_csv_text(dir, r.out);
  CHECK(t.header ==
        "op,backend,precision,dims,processes,gpus,reps,median_ms,min_ms,max_ms,exchange_ms,exchange_share,"
        "exchange_gbps,alltoall_gbps,x_alltoall,device");
  REQUIRE(t.size == 2);
  CHECK(unquote(t.at("0.dims")) == "32x16");
  CHECK(unquote(t.at("1.dims")) == "8x6x4");
  CHECK(unquote(t.at("0.processes")) == "1");
  CHECK(unquote(t.at("0.gpus")) == "0");
  CHECK(std::stod(unquote(t.at("0.median_ms"))) > 0);
  CHECK(unquote(t.at("0.alltoall_gbps")).empty());
  const RunResult naive =
      run_dctool("bench --distributed --sizes 8x6 --ops dst2 --backends cpu-naive --reps 1 --warmup 0 --format csv");
  INFO(naive.err);
  REQUIRE(naive.code == 0);
  CHECK(unquote(parse_csv_text(dir, naive.out).at("0.backend")) == "cpu-naive");
  CHECK(run_dctool("bench --distributed --sizes 8x6 --backends all").code == 2);
  CHECK(run_dctool("bench --distributed --sizes 8x6 --verify").code == 2);
  CHECK(run_dctool("bench --distributed --sizes 64 --ops dct2").code == 2);
  CHECK(run_dctool("bench --distributed --sizes 8x8 --ops lot").code == 2);
}

TEST_CASE("one array over GPUs (--distributed --devices) needs GPUs: exit 4 without them, no output",
          "[app][distributed]") {
  if (dct::app::cuda_compiled()) {
    WARN("SKIPPED: built with CUDA (the gpu test [group] covers this path)");
    return;
  }
  TempDir dir;
  generate(dir, {"c 9x6x4 float64 1"});
  const std::string in = dir.file("c.npy"), out = dir.file("o.npy");
  const RunResult r = run_dctool("--devices 0,1 dct " + q(in) + " -o " + q(out) + " --type 2 --distributed");
  check_one_line_error(r, 4, {"--devices", "CUDA"});
  CHECK_FALSE(exists(out));
  CHECK(run_dctool("--devices all bench --distributed --sizes 8x6 --reps 1").code != 0);
}

#ifndef DCTOOL_HAVE_MPI
namespace {
// dctool with launcher variables set, as mpirun would set them for one of its processes.
RunResult run_as_rank(int rank, const std::string& args) {
  return run_cmd("OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + " " + q(DCTOOL_BINARY) + " " +
                 args);
}
}  // namespace

TEST_CASE("a build without MPI refuses a distributed transform under a launcher of several processes",
          "[app][distributed]") {
  TempDir dir;
  generate(dir, {"m 6x4 float64 1"});
  const std::string out = dir.file("o.npy");
  // What mpirun -np 3 sets: rank 0 tells (exit 4); the others leave it to rank 0.
  const std::string args = "dct " + q(dir.file("m.npy")) + " -o " + q(out) + " --type 2";
  check_one_line_error(run_as_rank(0, args), 4, {"MPI"});
  const RunResult other = run_as_rank(2, args);
  CHECK(other.code == 0);
  CHECK(other.err.empty());
  CHECK_FALSE(exists(out));
}
#endif
