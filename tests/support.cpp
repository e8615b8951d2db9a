#include "support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "app/registry.hpp"
#include "core/error.hpp"

namespace dct::test {

core::HostTensor random_tensor(core::Shape2 shape, std::int64_t batch, core::Precision prec, std::uint64_t seed) {
  core::HostTensor t(shape, batch, prec);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, u(rng));
  return t;
}

std::string source_dir() { return DCTOOL_SOURCE_DIR; }
std::string python() { return DCTOOL_PYTHON; }

std::string io::slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

RunResult run_dctool(const std::string& args) {
  TempDir tmp;
  const std::string out = tmp.file("stdout"), err = tmp.file("stderr");
  const std::string cmd = std::string("'") + DCTOOL_BINARY + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = io::slurp(out);
  r.err = io::slurp(err);
  return r;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "dctool-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

core::HostTensor run_backend(const core::Backend& b, const core::TransformDesc& d, const core::HostTensor& in) {
  auto plan = b.make_plan(d);
  // Poisoned (0xFF bytes: NaN in both precisions), so that an element the plan does not write fails the check.
  core::HostTensor out = core::HostTensor::uninitialized(d.out_shape(), d.batch, d.prec);
  if (out.bytes() != 0) std::memset(out.raw(), 0xFF, out.bytes());
  plan->execute_host(in.view(), out.view());
  return out;
}

namespace {
// Counts how often each byte of a range of `bytes` was touched.
class Coverage {
 public:
  explicit Coverage(std::size_t bytes) : n_(bytes) {}
  void add(std::size_t at, std::size_t bytes) {
    const std::lock_guard<std::mutex> lock(mu_);
    spans_.emplace_back(at, bytes);
  }
  bool once_each() const {  // the spans tile [0, n) with no overlap
    auto s = spans_;
    std::sort(s.begin(), s.end());
    std::size_t end = 0;
    for (const auto& [at, bytes] : s) {
      if (at != end) return false;
      end = at + bytes;
    }
    return end == n_;
  }

 private:
  std::size_t n_;
  std::mutex mu_;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;
};

class MemorySource final : public core::ByteSource {
 public:
  MemorySource(const core::HostTensor& t, Coverage& c) : t_(t), c_(c) {}
  void read(std::size_t at, void* dst, std::size_t bytes) const override {
    if (at + bytes > t_.bytes()) throw Error(ErrorCode::kRuntime, "read past the input");
    std::memcpy(dst, static_cast<const char*>(t_.raw()) + at, bytes);
    c_.add(at, bytes);
  }

 private:
  const core::HostTensor& t_;
  Coverage& c_;
};

class MemorySink final : public core::ByteSink {
 public:
  MemorySink(core::HostTensor& t, Coverage& c) : t_(t), c_(c) {}
  void write(std::size_t at, const void* src, std::size_t bytes) const override {
    if (at + bytes > t_.bytes()) throw Error(ErrorCode::kRuntime, "write past the output");
    std::memcpy(static_cast<char*>(t_.raw()) + at, src, bytes);
    c_.add(at, bytes);
  }

 private:
  core::HostTensor& t_;
  Coverage& c_;
};
}  // namespace

core::HostTensor run_backend_streamed(const core::Plan& plan, const core::HostTensor& in, int threads,
                                      bool* ranges_ok) {
  const core::TransformDesc& d = plan.desc();
  core::HostTensor out = core::HostTensor::uninitialized(d.out_shape(), d.batch, d.prec);
  if (out.bytes() != 0) std::memset(out.raw(), 0xFF, out.bytes());
  Coverage cin(in.bytes()), cout(out.bytes());
  const MemorySource source(in, cin);
  const MemorySink sink(out, cout);
  plan.execute_streamed(source, sink, threads);
  if (ranges_ok != nullptr) *ranges_ok = cin.once_each() && cout.once_each();
  return out;
}

core::HostTensor execute_on_device(const core::Plan& plan, const core::Runtime& rt, const core::TransformDesc& d,
                                   const core::HostTensor& in) {
  core::HostTensor out(d.out_shape(), d.batch, d.prec);
  auto din = rt.allocate(d.bytes());
  auto dout = rt.allocate(out.bytes());
  rt.upload(*din, in.raw(), d.bytes());
  rt.fill_bytes(*dout, 0xFF);
  plan.execute(core::ConstView{din->data(), d.shape, d.batch, d.prec, core::Memory::kDevice},
               core::View{dout->data(), d.out_shape(), d.batch, d.prec, core::Memory::kDevice});
  rt.synchronize();
  rt.download(out.raw(), *dout, out.bytes());
  return out;
}

namespace {
using Ld = long double;
using Matrix = std::vector<std::vector<Ld>>;  // [row][col]

// P0 = P·Z (16x8), the LOT's matrix definition (README, Transform definitions) verbatim.
Matrix lot_p0() {
  const Ld pi = std::acos(Ld(-1));
  Ld c[8][8];  // orthonormal DCT-II, c[k][n]
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 8; ++n)
      c[k][n] = std::sqrt(Ld(2) / 8) * (k == 0 ? 1 / std::sqrt(Ld(2)) : Ld(1)) * std::cos(pi * k * (2 * n + 1) / 16);
  Ld m[8][4];  // De − Do
  for (int n = 0; n < 8; ++n)
    for (int i = 0; i < 4; ++i) m[n][i] = c[2 * i][n] - c[2 * i + 1][n];
  Matrix p(16, std::vector<Ld>(8, 0));
  for (int n = 0; n < 8; ++n)
    for (int i = 0; i < 4; ++i) {
      p[n][i] = m[n][i] / 2;
      p[n][4 + i] = m[n][i] / 2;
      p[8 + n][i] = m[7 - n][i] / 2;  // J(De − Do)
      p[8 + n][4 + i] = -m[7 - n][i] / 2;
    }
  Matrix zt = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};  // Z̃ = R1·R2·R3
  const Ld theta[3] = {Ld(0.13) * pi, Ld(0.16) * pi, Ld(0.13) * pi};
  for (int r = 1; r <= 3; ++r) {
    Matrix rr = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    rr[r - 1][r - 1] = std::cos(theta[r - 1]);
    rr[r - 1][r] = std::sin(theta[r - 1]);
    rr[r][r - 1] = -std::sin(theta[r - 1]);
    rr[r][r] = std::cos(theta[r - 1]);
    Matrix next(4, std::vector<Ld>(4, 0));
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int t = 0; t < 4; ++t) next[a][b] += zt[a][t] * rr[t][b];
    zt = next;
  }
  Matrix z(8, std::vector<Ld>(8, 0));
  for (int i = 0; i < 4; ++i) z[i][i] = 1;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) z[4 + a][4 + b] = zt[a][b];
  Matrix p0(16, std::vector<Ld>(8, 0));
  for (int r = 0; r < 16; ++r)
    for (int col = 0; col < 8; ++col)
      for (int t = 0; t < 8; ++t) p0[r][col] += p[r][t] * z[t][col];
  return p0;
}

}  // namespace

std::vector<std::vector<long double>> lot_matrix(std::int64_t len) {
  static const Matrix p0 = lot_p0();
  Matrix t(len + 8, std::vector<Ld>(len, 0));
  for (std::int64_t j = 0; j <= len / 8; ++j)
    for (int k = 0; k < 8; ++k)
      for (int r = 0; r < 16; ++r) {
        const std::int64_t n = 8 * j - 8 + r;
        if (n >= 0 && n < len) t[8 * j + k][n] = p0[r][k];
      }
  return t;
}

namespace {

// Where row k of T (forward) or of Tᵀ (inverse) can be nonzero, within [0, len).
std::pair<std::int64_t, std::int64_t> band(std::int64_t k, std::int64_t len, bool forward) {
  const std::int64_t lo = forward ? 8 * (k / 8) - 8 : 8 * (k / 8);
  return {std::max<std::int64_t>(lo, 0), std::min<std::int64_t>(lo + 16, len)};
}

}  // namespace

// The 2-D definition on every channel: forward Y = T_H X T_Wᵀ, inverse X = T_Hᵀ Y T_W (f64 result).
core::HostTensor lot_definition(const core::HostTensor& in, bool forward) {
  const std::int64_t h = forward ? in.rows() : in.rows() - 8, w = forward ? in.cols() : in.cols() - 8;
  const Matrix th = lot_matrix(h), tw = lot_matrix(w);
  const core::Shape2 os = forward ? core::Shape2{h + 8, w + 8} : core::Shape2{h, w};
  core::HostTensor out(os, in.channels(), core::Precision::kF64);
  const std::int64_t ir = in.rows(), ic = in.cols();
  for (std::int64_t ch = 0; ch < in.channels(); ++ch) {
    const std::int64_t base = ch * ir * ic;
    // rows: tmp = X T_Wᵀ (forward, ir x (w+8)) or Y T_W (inverse, ir x w)
    const std::int64_t tc = forward ? w + 8 : w;
    std::vector<Ld> tmp(ir * tc, 0);
    for (std::int64_t r = 0; r < ir; ++r)
      for (std::int64_t k = 0; k < tc; ++k) {
        Ld s = 0;  // T's zeros skipped: row k of T spans x[8(k/8)−8, 8(k/8)+8), column k rows [8(k/8), +16)
        const auto [n0, n1] = band(k, ic, forward);
        for (std::int64_t n = n0; n < n1; ++n) s += Ld(in.get(base + r * ic + n)) * (forward ? tw[k][n] : tw[n][k]);
        tmp[r * tc + k] = s;
      }
    for (std::int64_t k = 0; k < os.rows; ++k)
      for (std::int64_t col = 0; col < tc; ++col) {
        Ld s = 0;
        const auto [r0, r1] = band(k, ir, forward);
        for (std::int64_t r = r0; r < r1; ++r) s += (forward ? th[k][r] : th[r][k]) * tmp[r * tc + col];
        out.set(ch * os.count() + k * tc + col, double(s));
      }
  }
  return out;
}

core::HostTensor oracle(const core::TransformDesc& d, const core::HostTensor& in) {
  if (d.op == core::Op::kLot || d.op == core::Op::kIlot) {
    return lot_definition(in.to(core::Precision::kF64), d.op == core::Op::kLot);
  }
  const core::Backend* naive = app::registry().find("cpu-naive");
  core::TransformDesc d64 = d;
  d64.prec = core::Precision::kF64;
  return run_backend(*naive, d64, in.to(core::Precision::kF64));
}

std::vector<const core::Backend*> backends_listing(core::Op op) {
  std::vector<const core::Backend*> out;
  for (const auto* b : app::registry().all()) {
    auto ops = b->ops();
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) out.push_back(b);
  }
  return out;
}

const core::Backend& backend(const std::string& name) {
  const core::Backend* b = app::registry().find(name);
  REQUIRE(b != nullptr);
  return *b;
}

const core::Backend& usable_backend(const std::string& name) {
  const core::Backend& b = backend(name);
  const core::Support u = b.runtime().usable();
  INFO(name << " not usable here: " << u.reason);
  REQUIRE(u.ok);
  return b;
}

double rel_l2_finite(const core::HostTensor& got, const core::HostTensor& ref) {
  REQUIRE(got.elements() == ref.elements());
  long double num = 0, den = 0;
  for (std::int64_t i = 0; i < ref.elements(); ++i) {
    const double g = got.get(i), r = ref.get(i);
    if (!std::isfinite(g)) return INFINITY;
    num += static_cast<long double>(g - r) * (g - r);
    den += static_cast<long double>(r) * r;
  }
  return den == 0 ? std::sqrt(static_cast<double>(num)) : std::sqrt(static_cast<double>(num / den));
}

core::TransformDesc desc(core::Op op, core::Norm norm, core::Axis axis, core::Shape2 shape, std::int64_t batch,
                         core::Precision prec, int block) {
  core::TransformDesc d;
  d.op = op;
  d.norm = norm;
  d.axis = axis;
  d.block = block;
  d.shape = shape;
  d.batch = batch;
  d.prec = prec;
  return d;
}

double tol(core::Precision p) { return p == core::Precision::kF32 ? 1e-5 : 1e-12; }

bool over_size_cap(std::int64_t elements, int& skipped) {
  static const std::int64_t cap = [] {
    const char* v = std::getenv("DCTOOL_TEST_MAX_ELEMENTS");
    return v != nullptr && *v != '\0' ? std::atoll(v) : std::int64_t{0};
  }();
  if (cap <= 0 || elements <= cap) return false;
  ++skipped;
  return true;
}

void report_size_cap(int skipped) {
  if (skipped > 0)
    WARN(skipped << " arrays above DCTOOL_TEST_MAX_ELEMENTS=" << std::getenv("DCTOOL_TEST_MAX_ELEMENTS")
                 << " elements left out");
}

core::WriteOptions wopt(core::Precision p) {
  core::WriteOptions o;
  o.prec = p;
  return o;
}

int run_python(const TempDir& dir, const std::string& program) {
  const std::string script = dir.file("script.py");
  std::ofstream(script) << program;
  const std::string cmd = python() + " '" + script + "' '" + dir.path().string() + "' '" + source_dir() + "'";
  return std::system(cmd.c_str());
}

}  // namespace dct::test
