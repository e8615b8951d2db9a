// Independent checks of the oracle (cpu-naive): a 4-point vector against the definitions (README "Transform
// definitions and norms") written out here and against scipy's values; then every CPU backend against the
// scipy golden vectors of data/golden/ (scripts/make_golden.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "core/formats.hpp"
#include "core/metrics.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Axis;
using core::Backend;
using core::HostTensor;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;
using core::TransformDesc;
using test::desc;

// The 1-D definitions, straight from the text (double precision, no tables, no index reduction).
std::vector<double> definition(Op op, Norm norm, const std::vector<double>& x) {
  const double pi = 3.14159265358979323846;
  const std::size_t n = x.size();
  const double nn = static_cast<double>(n);
  std::vector<double> y(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) {
      switch (op) {
        case Op::kDct2:  // X_k = 2 Σ x_n cos(π k (2n+1) / 2N); ortho √(2/N) c_k Σ ...
          s += x[i] * std::cos(pi * k * (2 * i + 1) / (2 * nn));
          break;
        case Op::kIdct2:  // DCT-III: x_n = (X_0 + 2 Σ_{k>=1} X_k cos(π k (2n+1) / 2N)) / 2N; ortho √(2/N) Σ c_k X_k cos
          s += (norm == Norm::kOrtho ? (i == 0 ? std::sqrt(0.5) : 1.0) : (i == 0 ? 1.0 : 2.0)) * x[i] *
               std::cos(pi * i * (2 * k + 1) / (2 * nn));
          break;
        default:  // DCT-IV: Y_k = 2 Σ x_n cos(π (2n+1)(2k+1) / 4N)
          s += x[i] * std::cos(pi * (2 * i + 1) * (2 * k + 1) / (4 * nn));
      }
    }
    const bool ortho = norm == Norm::kOrtho;
    switch (op) {
      case Op::kDct2:
        y[k] = ortho ? std::sqrt(2 / nn) * (k == 0 ? std::sqrt(0.5) : 1.0) * s : 2 * s;
        break;
      case Op::kIdct2:
        y[k] = ortho ? std::sqrt(2 / nn) * s : s / (2 * nn);
        break;
      case Op::kDct4:
        y[k] = ortho ? std::sqrt(2 / nn) * s : 2 * s;
        break;
      default:
        y[k] = ortho ? std::sqrt(2 / nn) * s : s / nn;
        break;  // idct4 = dct4 / 2N
    }
  }
  return y;
}

struct Known {
  Op op;
  Norm norm;
  std::vector<double> y;
};

// scipy.fft.dct / idct of [1, 2, -1, 3] (types 2 and 4, norm None and "ortho"), printed with %.17g.
const std::vector<Known> kScipy4 = {
    {Op::kDct2, Norm::kNone, {10, -1.3994175358546084, 4.2426406871192848, -7.0740109245280802}},
    {Op::kDct2, Norm::kOrtho, {2.5000000000000004, -0.494768814657081, 1.5, -2.5010405474607618}},
    {Op::kIdct2, Norm::kNone, {0.69717564523282383, -0.19979123790428333, 0.80334462849755706, -0.80072903582609756}},
    {Op::kIdct2, Norm::kOrtho, {2.1183571150956721, -0.41864834716836796, 2.418648347168368, -2.1183571150956721}},
    {Op::kDct4, Norm::kNone, {5.3468504760742066, -0.48927290077057539, 1.7866363742092977, -9.3797511950706269}},
    {Op::kDct4, Norm::kOrtho, {1.8903971148112961, -0.17298409299284334, 0.63167134785897039, -3.3162428379385318}},
    {Op::kIdct4, Norm::kNone, {0.66835630950927583, -0.061159112596321924, 0.22332954677616221, -1.1724688993838284}},
    {Op::kIdct4, Norm::kOrtho, {1.8903971148112961, -0.17298409299284334, 0.63167134785897039, -3.3162428379385318}},
};

TEST_CASE("the oracle matches the written-out definitions and scipy on a 4-point vector", "[cpu][oracle-check]") {
  const Backend* naive = app::registry().find("cpu-naive");
  REQUIRE(naive != nullptr);
  const std::vector<double> x = {1, 2, -1, 3};
  for (const Known& k : kScipy4) {
    const std::vector<double> def = definition(k.op, k.norm, x);
    // Rows (a 1x4 matrix) and columns (4x1) must give the same vector.
    for (Axis axis : {Axis::kRows, Axis::kCols, Axis::kBoth}) {
      const Shape2 shape = axis == Axis::kCols ? Shape2{4, 1} : Shape2{1, 4};
      const TransformDesc d = desc(k.op, k.norm, axis, shape, 1, Precision::kF64);
      HostTensor in(shape, 1, Precision::kF64);
      for (int i = 0; i < 4; ++i) in.set(i, x[i]);
      const HostTensor out = test::run_backend(*naive, d, in);
      // axis both on a 1x4 matrix also applies the length-1 transform along the columns: its factor.
      double one = 1.0;
      if (axis == Axis::kBoth) one = definition(k.op, k.norm, {1.0})[0];
      for (int i = 0; i < 4; ++i) {
        INFO(d.to_string() << " index " << i);
        CHECK(out.get(i) == Approx(k.y[i] * one).epsilon(1e-14).margin(1e-14));
        CHECK(out.get(i) == Approx(def[i] * one).epsilon(1e-14).margin(1e-14));
      }
    }
  }
}

TEST_CASE("the written-out definitions match scipy (the check above checks something)", "[cpu][oracle-check]") {
  for (const Known& k : kScipy4) {
    const std::vector<double> def = definition(k.op, k.norm, {1, 2, -1, 3});
    for (int i = 0; i < 4; ++i) CHECK(def[i] == Approx(k.y[i]).epsilon(1e-14).margin(1e-14));
  }
}

// ---- golden vectors ----------------------------------------------------------------------------------

struct GoldenCase {
  std::string name, input, output;
  Op op;
  Norm norm;
  Axis axis;
};

std::vector<GoldenCase> read_manifest(const std::string& dir) {
  std::ifstream f(dir + "/manifest.txt");
  REQUIRE(f.good());
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, op, norm, axis, shape, input, output;
    ss >> name >> op >> norm >> axis >> shape >> input >> output;
    REQUIRE(!output.empty());
    cases.push_back({name, input, output, core::parse_op(op), core::parse_norm(norm), core::parse_axis(axis)});
  }
  return cases;
}

HostTensor load(const std::string& path) {
  core::ReadOptions opt;
  opt.prec = Precision::kF64;
  return core::read_npy(path, opt).tensor;
}

TEST_CASE("cpu backends reproduce the scipy golden vectors", "[cpu][golden]") {
  const std::string dir = test::source_dir() + "/data/golden";
  const std::vector<GoldenCase> cases = read_manifest(dir);
  REQUIRE(cases.size() == 120);  // 4 ops x 2 norms x 3 axes x 5 shapes
  std::map<std::string, int> checked, skipped;
  for (const GoldenCase& c : cases) {
    const HostTensor in = load(dir + "/" + c.input);
    const HostTensor expect = load(dir + "/" + c.output);
    REQUIRE(in.shape() == expect.shape());
    for (Precision prec : {Precision::kF32, Precision::kF64}) {
      const TransformDesc d = desc(c.op, c.norm, c.axis, in.shape(), 1, prec);
      for (const Backend* b : test::backends_listing(c.op)) {
        if (b->runtime().memory() != core::Memory::kHost) continue;
        if (!b->supports(d)) {
          ++skipped[std::string(b->name())];
          continue;
        }
        ++checked[std::string(b->name())];
        INFO(b->name() << ": " << c.name << " " << core::to_string(prec));
        const HostTensor out = test::run_backend(*b, d, in.to(prec));
        // f32: the input itself is rounded to f32, which the expected output (from f64) does not see.
        CHECK(core::relative_l2(out.to(Precision::kF64), expect) <= (prec == Precision::kF32 ? 1e-6 : 1e-13));
      }
    }
  }
  for (const auto& [name, n] : skipped) WARN(name << " skipped " << n << " golden case(s) it does not support");
  CHECK(checked["cpu-fftw"] == 240);
  CHECK(checked["cpu-naive"] == 240);
}

}  // namespace
