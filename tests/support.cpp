#include "support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "app/registry.hpp"

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
  core::HostTensor out(d.out_shape(), d.batch, d.prec);
  plan->execute_host(in.view(), out.view());
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

core::HostTensor oracle(const core::TransformDesc& d, const core::HostTensor& in) {
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
