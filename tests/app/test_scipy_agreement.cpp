// End to end: dctool dct2 / idct2 / dct4 (--inverse) agree with scipy.fft.dctn / idctn through the CLI:
// both CPU backends, both precisions, norms none/ortho, --axis
// both/rows/cols, shapes 1x1, 1xN, Nx1, odd/prime, 64x64 and >= 1000x1000, inputs .npy, .txt and raw.
// Relative L2 against scipy in f64: f32 <= 1e-5, f64 <= 1e-11. The output .npy must be float32 for
// -p f32 and float64 for -p f64.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app_support.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

struct ShapeSpec {
  int h, w;
};
const std::vector<ShapeSpec> kShapes = {{1, 1}, {1, 17}, {17, 1}, {31, 29}, {64, 64}};

struct OpSpec {
  const char* cli;    // the subcommand
  const char* extra;  // extra flags
  const char* scipy;  // the oracle's op
};
const std::vector<OpSpec> kOps = {
    {"dct2", "", "dct2"}, {"idct2", "", "idct2"}, {"dct4", "", "dct4"}, {"dct4", " --inverse", "idct4"}};
const std::vector<std::string> kNorms = {"none", "ortho"};
const std::vector<std::string> kAxes = {"both", "rows", "cols"};

std::string shape_str(int h, int w) { return std::to_string(h) + "x" + std::to_string(w); }

// Generates inputs with dctest.py gen; lines are "NAME H W C DTYPE SEED [notext]" (NAME relative to dir).
void generate(const TempDir& dir, const std::vector<std::string>& lines) {
  const std::string manifest = dir.file("gen.txt");
  std::string text;
  for (const auto& l : lines) text += dir.file(l) + "\n";
  spit(manifest, text);
  const RunResult r = run_cmd(dctest_py(dir) + " gen " + q(manifest));
  INFO("generator stderr: " << r.err);
  REQUIRE(r.code == 0);
}

// The full cross product for one backend and precision: 4 ops x 2 norms x 3 axes x 5 shapes x 3 formats.
void agreement(const std::string& backend, const std::string& prec) {
  TempDir dir;
  std::vector<std::string> gen;
  int seed = 100;
  for (const auto& s : kShapes)
    gen.push_back("in_" + shape_str(s.h, s.w) + " " + std::to_string(s.h) + " " + std::to_string(s.w) + " 1 " + prec +
                  " " + std::to_string(seed++));
  generate(dir, gen);

  std::vector<Case> cases;
  int n = 0;
  for (const auto& op : kOps)
    for (const auto& norm : kNorms)
      for (const auto& axis : kAxes)
        for (const auto& s : kShapes)
          for (const std::string fmt : {"npy", "txt", "raw"}) {
            const std::string base = dir.file("in_" + shape_str(s.h, s.w));
            std::string in = base + "." + (fmt == "npy" ? "npy" : fmt == "txt" ? "txt" : prec);
            Case c;
            c.out = dir.file("out_" + std::to_string(n++) + ".npy");
            c.ref = base + ".ref.npy";
            c.op = op.scipy;
            c.norm = norm;
            c.axis = axis;
            c.prec = prec;
            c.args = "-b " + backend + " -p " + prec + " " + op.cli + " " + q(in) + " -o " + q(c.out) + " --norm " +
                     norm + " --axis " + axis + op.extra;
            if (fmt == "raw") c.args += " --shape " + shape_str(s.h, s.w);
            cases.push_back(c);
          }
  run_cases(dir, cases);
}

}  // namespace

TEST_CASE("scipy agreement: cpu-fftw f32 (all ops norms axes and small shapes via npy/txt/raw)", "[app][scipy]") {
  agreement("cpu-fftw", "f32");
}
TEST_CASE("scipy agreement: cpu-fftw f64 (all ops norms axes and small shapes via npy/txt/raw)", "[app][scipy]") {
  agreement("cpu-fftw", "f64");
}
TEST_CASE("scipy agreement: cpu-naive f32 (all ops norms axes and small shapes via npy/txt/raw)", "[app][scipy]") {
  agreement("cpu-naive", "f32");
}
TEST_CASE("scipy agreement: cpu-naive f64 (all ops norms axes and small shapes via npy/txt/raw)", "[app][scipy]") {
  agreement("cpu-naive", "f64");
}

TEST_CASE("scipy agreement: 1000x1000 and up with one case per op (cpu-fftw)", "[app][scipy][large]") {
  TempDir dir;
  generate(dir, {"big32 1000 1000 1 f32 7 notext", "big64 1000 1003 1 f64 8 notext"});
  const std::string b32 = dir.file("big32"), b64 = dir.file("big64");
  std::vector<Case> cases = {
      {"-b cpu-fftw -p f32 dct2 " + q(b32 + ".npy") + " -o " + q(dir.file("o1.npy")) + " --norm ortho --axis both",
       dir.file("o1.npy"), b32 + ".ref.npy", "dct2", "ortho", "both", "f32"},
      {"-b cpu-fftw -p f64 idct2 " + q(b64 + ".f64") + " --shape 1000x1003 -o " + q(dir.file("o2.npy")) +
           " --norm none --axis both",
       dir.file("o2.npy"), b64 + ".ref.npy", "idct2", "none", "both", "f64"},
      {"-b cpu-fftw -p f64 dct4 " + q(b64 + ".npy") + " -o " + q(dir.file("o3.npy")) + " --norm none --axis both",
       dir.file("o3.npy"), b64 + ".ref.npy", "dct4", "none", "both", "f64"},
      {"-b cpu-fftw -p f32 dct4 " + q(b32 + ".f32") + " --shape 1000x1000 -o " + q(dir.file("o4.npy")) +
           " --norm ortho --axis cols --inverse",
       dir.file("o4.npy"), b32 + ".ref.npy", "idct4", "ortho", "cols", "f32"},
  };
  run_cases(dir, cases);
}

TEST_CASE("scipy agreement: cpu-naive at 1000x1000 (one case)", "[app][scipy][large]") {
  TempDir dir;
  generate(dir, {"big 1000 1000 1 f64 9 notext"});
  const std::string b = dir.file("big");
  std::vector<Case> cases = {
      {"-b cpu-naive -p f64 dct2 " + q(b + ".npy") + " -o " + q(dir.file("o.npy")) + " --norm ortho --axis both",
       dir.file("o.npy"), b + ".ref.npy", "dct2", "ortho", "both", "f64"},
  };
  run_cases(dir, cases);
}

TEST_CASE("scipy agreement: defaults (norm none and axis both for dct2/idct2 and rows for dct4)", "[app][scipy]") {
  TempDir dir;
  generate(dir, {"a 12 10 1 f64 11"});
  const std::string a = dir.file("a");
  std::vector<Case> cases;
  for (const std::string b : {"cpu-fftw", "cpu-naive", "auto"}) {
    const std::string bb = b == "auto" ? "" : "-b " + b + " ";
    const std::string o = dir.file("o_" + b);
    cases.push_back({bb + "-p f64 dct2 " + q(a + ".npy") + " -o " + q(o + "_1.npy"), o + "_1.npy", a + ".ref.npy",
                     "dct2", "none", "both", "f64"});
    cases.push_back({bb + "-p f64 idct2 " + q(a + ".npy") + " -o " + q(o + "_2.npy"), o + "_2.npy", a + ".ref.npy",
                     "idct2", "none", "both", "f64"});
    cases.push_back({bb + "-p f64 dct4 " + q(a + ".npy") + " -o " + q(o + "_3.npy"), o + "_3.npy", a + ".ref.npy",
                     "dct4", "none", "rows", "f64"});
    cases.push_back({bb + "-p f64 dct4 --inverse " + q(a + ".npy") + " -o " + q(o + "_4.npy"), o + "_4.npy",
                     a + ".ref.npy", "idct4", "none", "rows", "f64"});
  }
  // No -p: the default precision is f32 (float32 output).
  cases.push_back({"dct2 " + q(a + ".npy") + " -o " + q(dir.file("d.npy")), dir.file("d.npy"), a + ".ref.npy", "dct2",
                   "none", "both", "f32"});
  // Long option spellings and the --threads global.
  cases.push_back({"--backend cpu-fftw --precision f64 --threads 2 dct2 " + q(a + ".npy") + " -o " +
                       q(dir.file("t.npy")) + " --norm ortho",
                   dir.file("t.npy"), a + ".ref.npy", "dct2", "ortho", "both", "f64"});
  run_cases(dir, cases);
}

TEST_CASE("scipy agreement: --block B (per-tile 2-D transform with default norm ortho)", "[app][scipy][block]") {
  TempDir dir;
  generate(dir, {"a 16 24 1 f64 12", "c 16 24 3 f32 13"});
  const std::string a = dir.file("a"), c = dir.file("c");
  std::vector<Case> cases;
  int n = 0;
  for (const std::string b : {"-b cpu-fftw ", ""}) {
    for (const std::string prec : {"f32", "f64"}) {
      auto o = [&] { return dir.file("o" + std::to_string(n++) + ".npy"); };
      std::string out = o();
      cases.push_back({b + "-p " + prec + " dct2 " + q(a + ".npy") + " -o " + q(out) + " --block 8", out,
                       a + ".ref.npy", "dct2", "ortho", "both", prec, 8});
      out = o();
      cases.push_back({b + "-p " + prec + " idct2 " + q(a + ".npy") + " -o " + q(out) + " --block 8", out,
                       a + ".ref.npy", "idct2", "ortho", "both", prec, 8});
      out = o();
      cases.push_back({b + "-p " + prec + " dct2 " + q(a + ".npy") + " -o " + q(out) + " --block 4 --norm none", out,
                       a + ".ref.npy", "dct2", "none", "both", prec, 4});
      out = o();
      cases.push_back({b + "-p " + prec + " dct2 " + q(a + ".txt") + " -o " + q(out) + " --block 8 --norm ortho", out,
                       a + ".ref.npy", "dct2", "ortho", "both", prec, 8});
      out = o();
      cases.push_back({b + "-p " + prec + " dct2 " + q(c + ".npy") + " -o " + q(out) + " --block 8", out,
                       c + ".ref.npy", "dct2", "ortho", "both", prec, 8});
    }
  }
  run_cases(dir, cases);
}

TEST_CASE("scipy agreement: input and output formats (csv tsv raw integer npy HxWxC npy txt out and spaces in paths)",
          "[app][scipy][formats]") {
  TempDir dir;
  generate(dir, {"a 9 7 1 f64 21", "s 5 6 1 f32 22", "u8 6 5 1 u8 23", "u16 6 5 1 u16 24", "i16 6 5 1 i16 25",
                 "i32 6 5 1 i32 26", "rgb 10 12 3 f32 27", "two 8 6 2 f64 28", "ci 7 9 3 u8 29"});
  // A file name with a space, and a raw file with the generic .raw extension.
  const std::string a = dir.file("a"), s = dir.file("s");
  spit(dir.file("my input.npy"), slurp(a + ".npy"));
  spit(dir.file("s.raw"), slurp(s + ".f32"));
  spit(dir.file("a64.raw"), slurp(a + ".f64"));
  std::vector<Case> cases;
  int n = 0;
  auto o = [&](const std::string& ext = ".npy") { return dir.file("o" + std::to_string(n++) + ext); };
  auto add = [&](const std::string& pre, const std::string& in, const std::string& post, const std::string& ref,
                 const std::string& op, const std::string& norm, const std::string& axis, const std::string& prec,
                 const std::string& ext = ".npy") {
    const std::string out = o(ext);
    cases.push_back({pre + " " + q(in) + " -o " + q(out) + post, out, ref, op, norm, axis, prec});
  };
  for (const std::string b : {"cpu-fftw", "cpu-naive"}) {
    const std::string p64 = "-b " + b + " -p f64 dct2", p32 = "-b " + b + " -p f32 dct2";
    add(p64, a + ".csv", " --norm ortho", a + ".ref.npy", "dct2", "ortho", "both", "f64");
    add(p64, a + ".tab.txt", " --norm ortho", a + ".ref.npy", "dct2", "ortho", "both", "f64");
    add(p32, dir.file("s.raw"), " --shape 5x6", s + ".ref.npy", "dct2", "none", "both", "f32");
    add(p64, dir.file("a64.raw"), " --shape 9x7 --dtype f64", a + ".ref.npy", "dct2", "none", "both", "f64");
    add(p64, dir.file("my input.npy"), "", a + ".ref.npy", "dct2", "none", "both", "f64");
    for (const std::string t : {"u8", "u16", "i16", "i32"})
      add(p64, dir.file(t) + ".npy", " --norm ortho", dir.file(t) + ".ref.npy", "dct2", "ortho", "both", "f64");
    // Multi-channel npy (H,W,C): each channel independently, output (H,W,C).
    add(p32, dir.file("rgb.npy"), " --norm ortho", dir.file("rgb.ref.npy"), "dct2", "ortho", "both", "f32");
    add("-b " + b + " -p f64 dct4", dir.file("rgb.npy"), " --axis cols", dir.file("rgb.ref.npy"), "dct4", "none",
        "cols", "f64");
    add("-b " + b + " -p f64 idct2", dir.file("two.npy"), " --axis rows", dir.file("two.ref.npy"), "idct2", "none",
        "rows", "f64");
    add(p64, dir.file("ci.npy"), "", dir.file("ci.ref.npy"), "dct2", "none", "both", "f64");
  }
  // Output formats: .txt (%.17g for f64, %.9g for f32) and raw .f64/.f32, and an output path with a space.
  add("-b cpu-fftw -p f64 dct2", a + ".npy", " --norm ortho", a + ".ref.npy", "dct2", "ortho", "both", "f64", ".txt");
  add("-b cpu-fftw -p f32 dct2", a + ".npy", " --norm ortho", a + ".ref.npy", "dct2", "ortho", "both", "f32", ".txt");
  add("-b cpu-fftw -p f64 dct4", a + ".npy", "", a + ".ref.npy", "dct4", "none", "rows", "f64", ".f64");
  add("-b cpu-fftw -p f32 dct4", a + ".npy", "", a + ".ref.npy", "dct4", "none", "rows", "f32", ".f32");
  {
    const std::string out = dir.file("my output.npy");
    cases.push_back(
        {"-p f64 dct2 " + q(a + ".npy") + " -o " + q(out), out, a + ".ref.npy", "dct2", "none", "both", "f64"});
  }
  run_cases(dir, cases);
}

TEST_CASE("formats: npy with fortran_order True (np.save of a transpose) gives what its C-ordered copy gives",
          "[app][formats]") {
  TempDir dir;
  // The matrix [[1, 2, 3], [4, 5, 6]] stored in Fortran order: 1 4 2 5 3 6.
  const std::vector<double> fdata = {1, 4, 2, 5, 3, 6};
  spit(dir.file("f.npy"), npy_bytes(npy_header("<f8", "(2, 3)", true), raw_bytes(fdata)));
  write_npy_f64(dir.file("c.ref.npy"), 2, 3, {1, 2, 3, 4, 5, 6});
  const std::string out = dir.file("out.npy");
  std::vector<Case> cases = {{"-p f64 dct2 " + q(dir.file("f.npy")) + " -o " + q(out), out, dir.file("c.ref.npy"),
                              "dct2", "none", "both", "f64"}};
  run_cases(dir, cases);
  // A 3-D array, Fortran and C order, through dct (a volume) and dct2 (H, W, C): the same output bytes.
  std::vector<double> c3(2 * 3 * 4), f3(c3.size());
  for (std::size_t k = 0; k < c3.size(); ++k) c3[k] = static_cast<double>((k * 7) % 11) - 3.5;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int l = 0; l < 4; ++l)
        f3[static_cast<std::size_t>(i + 2 * (j + 3 * l))] = c3[static_cast<std::size_t>((i * 3 + j) * 4 + l)];
  spit(dir.file("c3.npy"), npy_bytes(npy_header("<f8", "(2, 3, 4)"), raw_bytes(c3)));
  spit(dir.file("f3.npy"), npy_bytes(npy_header("<f8", "(2, 3, 4)", true), raw_bytes(f3)));
  for (const std::string cmd : {"-p f64 dct --type 2", "-p f64 dct2"}) {
    INFO(cmd);
    REQUIRE(run_dctool(cmd + " " + q(dir.file("c3.npy")) + " -o " + q(dir.file("c3.out.npy"))).code == 0);
    REQUIRE(run_dctool(cmd + " " + q(dir.file("f3.npy")) + " -o " + q(dir.file("f3.out.npy"))).code == 0);
    CHECK(slurp(dir.file("c3.out.npy")) == slurp(dir.file("f3.out.npy")));
  }
}

TEST_CASE("formats: a big-endian npy gives what its little-endian copy gives (streamed, batch and volume)",
          "[app][formats]") {
  TempDir dir;
  std::vector<double> v(6 * 10);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 13) % 17) * 0.375 - 2;
  std::string le = raw_bytes(v), be = le;
  for (std::size_t k = 0; k < be.size(); k += 8)
    std::reverse(be.begin() + static_cast<std::ptrdiff_t>(k), be.begin() + static_cast<std::ptrdiff_t>(k + 8));
  spit(dir.file("le.npy"), npy_bytes(npy_header("<f8", "(6, 10)"), le));
  spit(dir.file("be.npy"), npy_bytes(npy_header(">f8", "(6, 10)"), be));
  spit(dir.file("le3.npy"), npy_bytes(npy_header("<f8", "(3, 4, 5)"), le));
  spit(dir.file("be3.npy"), npy_bytes(npy_header(">f8", "(3, 4, 5)"), be));
  // One .npy to a .npy is streamed; two inputs are a batch (read whole); dct of a 3-D array is a volume.
  for (const std::string cmd :
       {"-p f64 dct2 {in} -o {out}", "-p f64 dct2 {in} {in2} -o {dir}", "dct --type 2 {in3} -o {out}"}) {
    INFO(cmd);
    for (const std::string e : {"le", "be"}) {
      std::string c = cmd;
      const auto sub = [&](const std::string& key, const std::string& val) {
        if (const auto at = c.find(key); at != std::string::npos) c.replace(at, key.size(), val);
      };
      std::filesystem::create_directories(dir.file(e + ".d"));
      sub("{in}", q(dir.file(e + ".npy")));
      sub("{in2}", q(dir.file(e + "3.npy")));
      sub("{in3}", q(dir.file(e + "3.npy")));
      sub("{out}", q(dir.file(e + ".out.npy")));
      sub("{dir}", q(dir.file(e + ".d")));
      REQUIRE(run_dctool(c).code == 0);
    }
    if (cmd.find("{dir}") != std::string::npos) {
      CHECK(slurp(dir.file("le.d/le.npy")) == slurp(dir.file("be.d/be.npy")));
      CHECK(slurp(dir.file("le.d/le3.npy")) == slurp(dir.file("be.d/be3.npy")));
    } else {
      CHECK(slurp(dir.file("le.out.npy")) == slurp(dir.file("be.out.npy")));
    }
  }
}
