// End to end: dctool dct / dst / r2r agree with scipy.fft.dctn / dstn / idctn / idstn through the CLI: every type
// 1-4 of both families, forward and inverse, norms backward/ortho/forward, 1-D, 2-D and 3-D .npy arrays, every axis,
// single axes and axis pairs (negative too), odd, prime and 1-point extents, cpu-fftw in f32 and f64 and cpu-naive
// in f64; mixed kinds per axis (r2r --kinds ... --inverse) against scipy's axis-by-axis composition; DREAMPlace's
// IDCT_IDXST; DCT-I on a 1-point axis (exit 3); 1-D stays 1-D; float64 input keeps float64 without -p.
// The scipy oracle: tests/app/r2r_oracle.hpp.
#include <string>
#include <vector>

#include "app_support.hpp"
#include "r2r_oracle.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

struct Input {
  std::string name;
  int rank;
  std::vector<std::string> axis_sets;  // "-" = default (every axis)
  bool one_point;                      // an axis of length 1: DCT-I refused there
};

// 1-D (odd, prime, 1 point), 2-D (every axis, single axes, negative), 3-D (every axis, pairs, a single axis), in
// both dtypes.
const std::vector<Input> kInputs = {
    {"v7", 1, {"-"}, false},
    {"v1", 1, {"-"}, true},
    {"m5x3", 2, {"-", "0", "-1"}, false},
    {"m1x13", 2, {"-"}, true},
    {"c4x3x5", 3, {"-", "1,2", "0,2", "-2"}, false},
};
const std::vector<std::string> kGen = {
    "v7_f64 7 float64 1",         "v1_f64 1 float64 2",         "m5x3_f64 5x3 float64 3", "m1x13_f64 1x13 float64 4",
    "c4x3x5_f64 4x3x5 float64 5", "v7_f32 7 float32 6",         "v1_f32 1 float32 7",     "m5x3_f32 5x3 float32 8",
    "m1x13_f32 1x13 float32 9",   "c4x3x5_f32 4x3x5 float32 10"};

// Every family, type, norm and direction on every input of kInputs (`inputs_of` filters), with `backend` and `prec`.
void sweep(const std::string& backend, const std::string& prec, bool all_inputs) {
  TempDir dir;
  generate(dir, kGen);
  std::vector<R2rCase> cases;
  int n = 0;
  const std::string tol = prec == "f32" ? "1e-5" : "1e-12";
  for (const Input& in : kInputs) {
    if (!all_inputs && in.rank == 2) continue;
    const std::string file = dir.file(in.name + "_" + prec + ".npy");
    for (const std::string fam : {"dct", "dst"})
      for (int t = 1; t <= 4; ++t) {
        if (fam == "dct" && t == 1 && in.one_point) continue;  // refused: see the DCT-I test
        for (const std::string norm : {"backward", "ortho", "forward"})
          for (const bool inv : {false, true})
            for (const std::string& axes : in.axis_sets) {
              if (!all_inputs && axes != "-" && axes != "1,2") continue;
              R2rCase c;
              c.out = dir.file("o" + std::to_string(n++) + ".npy");
              c.in = file;
              c.kinds = fam + std::to_string(t);
              c.axes = axes;
              c.inverse = inv ? "1" : "0";
              c.norm = norm;
              c.dtype = prec == "f32" ? "float32" : "float64";
              c.tol = tol;
              // -p only for f32 (the f32 files): f64 inputs keep f64 without it.
              c.args = "-b " + backend + (prec == "f32" ? " -p f32 " : " ") + fam + " " + q(file) + " -o " + q(c.out) +
                       " --type " + std::to_string(t) + " --norm " + norm + (inv ? " --inverse" : "") +
                       (axes == "-" ? "" : " --axes " + axes);
              cases.push_back(c);
            }
      }
  }
  run_all(dir, cases);
}

}  // namespace

TEST_CASE("r2r scipy agreement: cpu-fftw f64, every type, norm, direction, rank and axis set", "[app][scipy][r2r]") {
  sweep("cpu-fftw", "f64", true);
}
TEST_CASE("r2r scipy agreement: cpu-fftw f32, every type, norm and direction (1-D, 3-D)", "[app][scipy][r2r]") {
  sweep("cpu-fftw", "f32", false);
}
TEST_CASE("r2r scipy agreement: cpu-naive f64, every type, norm and direction (1-D, 3-D)", "[app][scipy][r2r]") {
  sweep("cpu-naive", "f64", false);
}

TEST_CASE("r2r scipy agreement: mixed kinds per axis equal scipy's axis-by-axis composition", "[app][scipy][r2r]") {
  TempDir dir;
  generate(dir, {"f 6x5 float64 31", "g 3x4x7 float64 32", "h 9x8 float32 33", "e 2x1x13 float64 34"});
  std::vector<R2rCase> cases;
  int n = 0;
  auto add = [&](const std::string& backend, const std::string& in, const std::string& kinds, const std::string& axes,
                 bool inv, const std::string& norm, const std::string& dtype, const std::string& tol) {
    R2rCase c{"", dir.file("o" + std::to_string(n++) + ".npy"), dir.file(in), kinds, axes, inv ? "1" : "0", norm, dtype,
              tol};
    c.args = (backend.empty() ? "" : "-b " + backend + " ") + "r2r " + q(c.in) + " -o " + q(c.out) + " --kinds " +
             kinds + " --norm " + norm + (inv ? " --inverse" : "") + (axes == "-" ? "" : " --axes " + axes);
    cases.push_back(c);
  };
  for (const std::string b : {"", "cpu-fftw", "cpu-naive"})
    for (const std::string norm : {"backward", "ortho", "forward"})
      for (const bool inv : {true, false}) {
        add(b, "f.npy", "dct3,dst3", "-", inv, norm, "float64", "1e-12");
        add(b, "f.npy", "dst2,dct1", "-", inv, norm, "float64", "1e-12");
        add(b, "g.npy", "dct3,dst3", "1,2", inv, norm, "float64", "1e-12");  // a batch of 3 2-D transforms
        add(b, "g.npy", "dst4,dct2,dst1", "-", inv, norm, "float64", "1e-12");
        add(b, "g.npy", "dct1,dst2", "2,0", inv, norm, "float64", "1e-12");
        add(b, "h.npy", "dct3,dst3", "-", inv, norm, "float32", "1e-5");
        add(b, "e.npy", "dct1,dst1", "0,2", inv, norm, "float64", "1e-12");  // DCT-I at N = 2 (ortho: both ends)
      }
  run_all(dir, cases);
}

TEST_CASE("r2r: DREAMPlace's IDCT_IDXST is r2r --kinds dct2,dst2 --inverse of the shifted field", "[app][scipy][r2r]") {
  TempDir dir;
  generate(dir, {"field 12x10 float64 41"});
  const RunResult prep = run_cmd(oracle_py(dir) + " dreamplace " + q(dir.file("field.npy")) + " " +
                                 q(dir.file("w.npy")) + " " + q(dir.file("ref.npy")));
  INFO(prep.out << prep.err);
  REQUIRE(prep.code == 0);
  // The field with its DC row doubled and shifted left along axis 1 (see the oracle's dreamplace()), through
  // scipy's idctn/idstn of type 2 (DCT-III / 2M, DST-III / 2N) equals IDCT_IDXST / (M N).
  const std::string out = dir.file("e.npy");
  const RunResult r = run_dctool("r2r " + q(dir.file("w.npy")) + " -o " + q(out) + " --kinds dct2,dst2 --inverse");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const RunResult chk =
      run_cmd(q(python()) + " -c " +
              q("import numpy as np,sys; y=np.load(sys.argv[1]); r=np.load(sys.argv[2]); "
                "e=np.linalg.norm(y-r)/np.linalg.norm(r); print(e); sys.exit(0 if e<=1e-12 and y.dtype==np.float64 "
                "else 1)") +
              " " + q(out) + " " + q(dir.file("ref.npy")));
  INFO(chk.out << chk.err);
  CHECK(chk.code == 0);
}

TEST_CASE("r2r: DCT-I along an axis of one point is an input error (exit 3), no output", "[app][r2r]") {
  TempDir dir;
  generate(dir, {"v1 1 float64 51", "m 1x6 float64 52"});
  for (const std::string& args :
       {std::string("dct ") + q(dir.file("v1.npy")) + " --type 1",
        std::string("dct ") + q(dir.file("m.npy")) + " --type 1",
        std::string("r2r ") + q(dir.file("m.npy")) + " --kinds dct1,dst2",
        std::string("-b cpu-naive dct ") + q(dir.file("m.npy")) + " --type 1 --inverse --norm ortho"}) {
    const std::string out = dir.file("o.npy");
    const RunResult r = run_dctool(args + " -o " + q(out));
    INFO(args << ": " << r.err);
    CHECK(r.code == 3);
    CHECK(r.err.find("DCT-I needs at least 2 points") != std::string::npos);
    CHECK_FALSE(exists(out));
  }
  // Along the other axis it is fine.
  const RunResult ok = run_dctool("dct " + q(dir.file("m.npy")) + " --type 1 --axes 1 -o " + q(dir.file("ok.npy")));
  CHECK(ok.code == 0);
}

TEST_CASE("r2r: usage errors (bad type, kinds, axes, norm, forward norm on dct2)", "[app][r2r]") {
  TempDir dir;
  generate(dir, {"m 4x6 float64 61"});
  const std::string in = q(dir.file("m.npy")), out = " -o " + q(dir.file("o.npy"));
  for (const std::string& args :
       {"dct " + in + out + " --type 5", "dst " + in + out + " --type 0", "r2r " + in + out + " --kinds dct5",
        "r2r " + in + out + " --kinds dct2,dct2,dct2", "r2r " + in + out + " --kinds dct2 --axes 0,1",
        "dct " + in + out + " --type 2 --axes 2", "dct " + in + out + " --type 2 --axes 0,-2",
        "dct " + in + out + " --type 2 --norm unitary", "dct2 " + in + out + " --norm forward",
        "dct " + in + out + " --axes 0,,1", "dct " + in + out + " --axes 1,", "r2r " + in + out + " --kinds dct2,",
        "r2r " + in + out + " --kinds -,dct2", "--device -1 dct " + in + out, "-q -v dct " + in + out,
        "--devices 0,x dct " + in + out, "--devices 0,0 dct " + in + out, "--devices 1024 dct " + in + out}) {
    const RunResult r = run_dctool(args);
    INFO(args << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_FALSE(exists(dir.file("o.npy")));
  }
  // The messages name what is accepted: scipy's default norm, and only the eight kinds.
  const RunResult norm = run_dctool("dct " + in + out + " --norm unitary");
  CHECK(contains(norm.err, "backward"));
  const RunResult kinds = run_dctool("r2r " + in + out + " --kinds dct5");
  CHECK(contains(kinds.err, "dst4"));
  CHECK_FALSE(contains(kinds.err, "-|"));
  // --devices is checked on a command that does not spread work too (one line naming the option and the item).
  const RunResult devices = run_dctool("--devices 0,x dct " + in + out);
  check_one_line_error(devices, 2, {"--devices", "'x'"});
}

TEST_CASE("r2r: a 3-D array is refused by text output (exit 2, no output), 1-D and 2-D are written", "[app][r2r]") {
  TempDir dir;
  generate(dir, {"c 2x3x4 float64 63", "v 5 float64 64", "m 3x4 float64 65"});
  const RunResult r = run_dctool("dct " + q(dir.file("c.npy")) + " -o " + q(dir.file("c.txt")));
  check_one_line_error(r, 2, {"c.txt"});
  CHECK(contains(r.err, "(2, 3, 4)"));
  CHECK_FALSE(exists(dir.file("c.txt")));
  for (const char* name : {"v", "m"}) {
    const std::string out = dir.file(std::string(name) + ".txt");
    const RunResult ok = run_dctool("dct " + q(dir.file(std::string(name) + ".npy")) + " -o " + q(out));
    INFO(ok.err);
    CHECK(ok.code == 0);
    CHECK(exists(out));
  }
}

TEST_CASE("r2r: a 3-D array (H, W, C) written as an image is H x W with C channels, other last axes exit 2",
          "[app][r2r]") {
  TempDir dir;
  const std::string img = source_dir() + "/data/astronaut.png";
  const RunResult f = run_dctool("dct " + q(img) + " -o " + q(dir.file("c.npy")) + " -p f64");
  INFO(f.err);
  REQUIRE(f.code == 0);
  // The coefficients' (H, W, 3) array back to an image through axes 0 and 1: the image again.
  for (const char* cmd : {"dct --inverse", "r2r --kinds dct2,dct2 --inverse"}) {
    const std::string back = dir.file("back.png");
    const RunResult b = run_dctool(std::string(cmd) + " " + q(dir.file("c.npy")) + " --axes 0,1 -o " + q(back));
    INFO(cmd << ": " << b.err);
    REQUIRE(b.code == 0);
    const RunResult p = run_dctool("--json psnr " + q(img) + " " + q(back));
    INFO(p.out << p.err);
    CHECK(p.code == 0);
    CHECK(contains(p.out, "\"max_abs_err\": 0,"));
    fs::remove(back);
  }
  generate(dir, {"v5 6x4x5 float64 66"});
  const RunResult bad = run_dctool("dct --inverse " + q(dir.file("v5.npy")) + " -o " + q(dir.file("v5.png")));
  check_one_line_error(bad, 2, {"v5.png"});
  CHECK(contains(bad.err, "(6, 4, 5)"));
  CHECK_FALSE(exists(dir.file("v5.png")));
}

TEST_CASE("r2r: dct and dst without --type are type 2 (scipy's default)", "[app][r2r]") {
  TempDir dir;
  generate(dir, {"m 5x6 float64 62"});
  for (const char* cmd : {"dct", "dst"})
    for (const char* more : {"", " --inverse --norm ortho"}) {
      const std::string args = std::string(cmd) + " " + q(dir.file("m.npy")) + more;
      const RunResult a = run_dctool(args + " -o " + q(dir.file("a.npy")));
      const RunResult b = run_dctool(args + " --type 2 -o " + q(dir.file("b.npy")));
      INFO(args << ": " << a.err << b.err);
      REQUIRE(a.code == 0);
      REQUIRE(b.code == 0);
      CHECK(slurp(dir.file("a.npy")) == slurp(dir.file("b.npy")));
    }
}

TEST_CASE("r2r: shapes and dtypes of the output (1-D stays 1-D, 3-D stays 3-D, f64 kept, -p wins)", "[app][r2r]") {
  TempDir dir;
  generate(dir, {"v 9 float64 71", "c 4x3x2 float64 72", "s 5x4 float32 73"});
  struct Expect {
    std::string args, shape, dtype;
  };
  const std::vector<Expect> expects = {
      {"dct " + q(dir.file("v.npy")) + " --type 2", "(9,)", "float64"},
      {"-p f32 dst " + q(dir.file("v.npy")) + " --type 3", "(9,)", "float32"},
      {"dct " + q(dir.file("c.npy")) + " --type 4 --axes 1,2", "(4, 3, 2)", "float64"},
      {"dct " + q(dir.file("s.npy")) + " --type 2", "(5, 4)", "float32"},
      {"-p f64 dct " + q(dir.file("s.npy")) + " --type 2", "(5, 4)", "float64"},
  };
  for (const Expect& e : expects) {
    const std::string out = dir.file("o.npy");
    const RunResult r = run_dctool(e.args + " -o " + q(out));
    INFO(e.args << ": " << r.err);
    REQUIRE(r.code == 0);
    const RunResult chk =
        run_cmd(q(python()) + " -c " + q("import numpy as np,sys; a=np.load(sys.argv[1]); print(a.shape, a.dtype)") +
                " " + q(out));
    CHECK(chk.out == e.shape + " " + e.dtype + "\n");
  }
}

TEST_CASE("r2r: an image's channels are not an axis (axes 0,1 of each channel)", "[app][r2r]") {
  TempDir dir;
  // A 3-channel PNG through the shared dctest.py codec; dct --type 2 of it equals dct2 (the 2-D DCT-II per channel).
  const std::string png = dir.file("rgb.png");
  const std::string raw = dir.file("rgb.npy");
  REQUIRE(run_cmd(q(python()) + " -c " +
                  q("import numpy as np,sys; np.save(sys.argv[1], np.random.default_rng(5).integers(0, 256, (6, 5, "
                    "3)).astype(np.uint8))") +
                  " " + q(raw))
              .code == 0);
  REQUIRE(run_cmd(dctest_py(dir) + " pngwrite " + q(raw) + " " + q(png)).code == 0);
  const std::string a = dir.file("a.npy"), b = dir.file("b.npy");
  REQUIRE(run_dctool("-p f64 dct " + q(png) + " --type 2 --norm ortho -o " + q(a)).code == 0);
  REQUIRE(run_dctool("-p f64 dct2 " + q(png) + " --norm ortho -o " + q(b)).code == 0);
  const RunResult chk = run_cmd(q(python()) + " -c " +
                                q("import numpy as np,sys; a=np.load(sys.argv[1]); b=np.load(sys.argv[2]); "
                                  "sys.exit(0 if a.shape==b.shape==(6,5,3) and np.allclose(a,b,rtol=0,atol=1e-9) "
                                  "else 1)") +
                                " " + q(a) + " " + q(b));
  CHECK(chk.code == 0);
  CHECK(run_dctool("dct " + q(png) + " --type 2 --axes 2 -o " + q(dir.file("c.npy"))).code == 2);
}

TEST_CASE("r2r: bench times the real-to-real ops on 1-D to 3-D sizes and verifies them", "[app][r2r][bench]") {
  const RunResult r = run_dctool(
      "bench --ops dct1,dst2,r2r:dct3+dst3,dct2 --sizes 8x6x5,16,6x4 --precision f32,f64 --backends cpu-fftw "
      "--reps 2 --warmup 0 --verify --format csv");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::vector<std::string> lines = split_lines(r.out);
  REQUIRE(!lines.empty());
  int r2r_rows = 0, dct2_rows = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("dct2,", 0) == 0) ++dct2_rows;
    if (l.rfind("dct1,", 0) == 0 || l.rfind("dst2,", 0) == 0 || l.rfind("r2r:dct3+dst3,", 0) == 0) ++r2r_rows;
  }
  CHECK(r2r_rows == (3 + 3 + 2) * 2);  // dct1 and dst2 on three sizes, dct3+dst3 on the two of rank >= 2; f32, f64
  CHECK(dct2_rows >= 2 * 2);           // the 2-D op on the sizes of rank <= 2 (plus its baseline rows)
  CHECK(r.out.find(",8x6x5,") != std::string::npos);
  CHECK(r.err.find("skip r2r:dct3+dst3 16: more kinds than axes") != std::string::npos);
  // --verify: every row's max_rel_err (column 15) within the f32 tolerance.
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cols;
    std::stringstream ss(lines[i]);
    for (std::string c; std::getline(ss, c, ',');) cols.push_back(c);
    if (cols.size() < 15 || cols[1] != "cpu-fftw") continue;
    INFO(lines[i]);
    CHECK(std::stod(cols[14]) <= 1e-5);
  }
  CHECK(r.err.find("skip r2r:dct3+dst3 16: more kinds than axes") != std::string::npos);
  // --verify: every row's max_rel_err (column 15) within the f32 tolerance.
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cols;
    std::stringstream ss(lines[i]);
    for (std::string c; std::getline(ss, c, ',');) cols.push_back(c);
    if (cols.size() < 15 || cols[1] != "cpu-fftw") continue;
    INFO(lines[i]);
    CHECK(std::stod(cols[14]) <= 1e-5);
  }
  // A 3-D size alone with an older op is a usage error.
  CHECK(run_dctool("bench --ops dct2 --sizes 4x4x4 --backends cpu-fftw --reps 1").code == 2);
  CHECK(run_dctool("bench --ops r2r:dct5 --sizes 4x4 --backends cpu-fftw --reps 1").code == 2);
}

TEST_CASE("r2r: dct2 on a 3-D .npy keeps its (H, W, C) meaning and says so when C looks like an axis", "[app][r2r]") {
  TempDir dir;
  generate(dir, {"vol 6x5x8 float64 81", "rgb 6x5x3 float64 82"});
  const RunResult v = run_dctool("dct2 " + q(dir.file("vol.npy")) + " -o " + q(dir.file("a.npy")));
  CHECK(v.code == 0);
  CHECK(v.err.find("read as (H, W, C): 8 channels of 6x5") != std::string::npos);
  const RunResult c = run_dctool("dct2 " + q(dir.file("rgb.npy")) + " -o " + q(dir.file("b.npy")));
  CHECK(c.code == 0);
  CHECK(c.err.empty());
}
