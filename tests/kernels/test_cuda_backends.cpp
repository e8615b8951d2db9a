// Every CUDA backend against the f64 CPU oracle (label gpu: needs a GPU).
// Fresh random inputs per case, poisoned outputs (0xFF bytes = NaN), both execute() on device buffers
// and execute_host(); unsupported cases are counted and reported with WARN, never passed silently.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Axis;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;

// The CUDA DCT-II/III backends (the 8x8 and DCT-IV CUDA backends have their own tests).
std::vector<const core::Backend*> cuda_backends() {
  std::vector<const core::Backend*> v;
  for (const char* name :
       {"cuda-fft2d", "cuda-rowcol", "cuda-1d-n", "cuda-1d-2n-mirror", "cuda-1d-2n-pad", "cuda-1d-4n"})
    if (const core::Backend* b = app::registry().find(name)) v.push_back(b);
  return v;
}

void require_device() {
  const auto backends = cuda_backends();
  REQUIRE(!backends.empty());
  const core::Support u = backends.front()->runtime().usable();
  INFO("cuda runtime: " << u.reason);
  REQUIRE(u.ok);
}

// f64 reference: cpu-naive (long double, direct) where it is cheap, cpu-fftw in f64 otherwise.
core::HostTensor reference(core::TransformDesc d, const core::HostTensor& in64) {
  d.prec = Precision::kF64;
  const core::Backend* b = nullptr;
  if (d.shape.count() <= 64 * 64) b = app::registry().find("cpu-naive");
  if (b == nullptr) b = app::registry().find("cpu-fftw");
  if (b == nullptr) b = app::registry().find("cpu-naive");
  REQUIRE(b != nullptr);
  return test::run_backend(*b, d, in64);
}

core::HostTensor poisoned(const core::TransformDesc& d) {
  core::HostTensor t(d.out_shape(), d.batch, d.prec);
  std::memset(t.raw(), 0xFF, t.bytes());
  return t;
}

// Runs `plan` both ways and checks each result; `other_stream` (another plan's stream) exercises a
// non-null Stream argument.
void check_plan(const core::Backend& b, const core::Plan& plan, const core::TransformDesc& d,
                const core::HostTensor& in, const core::HostTensor& ref, core::Stream other_stream) {
  const double tol = test::tol(d.prec);
  // 1. host to host through the plan's pinned staging
  {
    core::HostTensor out = poisoned(d);
    const core::StageTimes t = plan.execute_host(in.view(), out.view());
    const double err = test::rel_l2_finite(out, ref);
    INFO("execute_host: rel L2 " << err << " (tolerance " << tol << ")");
    CHECK(err <= tol);
    CHECK(t.e2e_ms >= t.device_ms);
    CHECK(t.device_ms >= 0);
  }
  // 2. device buffers, on the plan's stream and on another stream
  const core::Runtime& rt = b.runtime();
  const std::size_t bytes = d.bytes();
  auto din = rt.allocate(bytes);
  auto dout = rt.allocate(bytes);
  rt.upload(*din, in.raw(), bytes);
  for (int pass = 0; pass < 2; ++pass) {
    rt.fill_bytes(*dout, 0xFF);
    core::ConstView vin{din->data(), d.shape, d.batch, d.prec, core::Memory::kDevice};
    core::View vout{dout->data(), d.out_shape(), d.batch, d.prec, core::Memory::kDevice};
    plan.execute(vin, vout, pass == 0 ? core::Stream{} : other_stream);
    rt.synchronize();
    core::HostTensor out(d.out_shape(), d.batch, d.prec);
    rt.download(out.raw(), *dout, bytes);
    const double err = test::rel_l2_finite(out, ref);
    INFO("execute (" << (pass == 0 ? "plan stream" : "other stream") << "): rel L2 " << err << " (tolerance " << tol
                     << ")");
    CHECK(err <= tol);
  }
  // 3. the input is left as it was (the row kernels and the fused column passes read the caller's buffer directly)
  core::HostTensor after(d.shape, d.batch, d.prec);
  rt.download(after.raw(), *din, bytes);
  CHECK(std::memcmp(after.raw(), in.raw(), bytes) == 0);
}

struct Skips {
  std::map<std::string, std::pair<int, std::string>> by_backend;  // count, one reason
  void add(const core::Backend& b, const std::string& why) {
    auto& e = by_backend[std::string(b.name())];
    ++e.first;
    if (e.second.empty()) e.second = why;
  }
  void report() const {
    for (const auto& [name, e] : by_backend)
      WARN("skipped " << e.first << " cases on " << name << " (unsupported: " << e.second << ")");
  }
};

// Every CUDA backend x op x norm x axis x precision over `shapes` x batch {1, 3}.
void sweep(const std::vector<Shape2>& shapes, std::uint64_t seed0,
           const std::vector<Op>& ops = {Op::kDct2, Op::kIdct2}) {
  require_device();
  const auto backends = cuda_backends();
  Skips skips;
  std::uint64_t seed = seed0;
  // A small plan whose stream serves as "another stream" for execute().
  core::TransformDesc od;
  od.shape = {8, 8};
  const auto other = backends.front()->make_plan(od);
  int checked = 0, capped = 0;
  for (const Shape2 shape : shapes) {
    if (test::over_size_cap(shape.count(), capped)) continue;
    for (const std::int64_t batch : {std::int64_t{1}, std::int64_t{3}}) {
      for (const Op op : ops) {
        for (const Norm norm : {Norm::kNone, Norm::kOrtho}) {
          for (const Axis axis : {Axis::kBoth, Axis::kRows, Axis::kCols}) {
            core::TransformDesc d;
            d.op = op;
            d.norm = norm;
            d.axis = axis;
            d.shape = shape;
            d.batch = batch;
            d.prec = Precision::kF64;
            bool any = false;
            for (const auto* b : backends) any = any || b->supports(d);
            if (!any) {
              for (const auto* b : backends) skips.add(*b, b->supports(d).reason);
              continue;
            }
            // f32-representable inputs, so the f32 and f64 runs see identical values.
            const core::HostTensor in32 = test::random_tensor(shape, batch, Precision::kF32, ++seed);
            const core::HostTensor in64 = in32.to(Precision::kF64);
            const core::HostTensor ref = reference(d, in64);
            for (const auto* b : backends) {
              for (const Precision prec : {Precision::kF32, Precision::kF64}) {
                d.prec = prec;
                if (core::Support s = b->supports(d); !s) {
                  skips.add(*b, s.reason);
                  continue;
                }
                INFO(b->name() << " " << d.to_string() << " seed " << seed);
                try {
                  auto plan = b->make_plan(d);
                  check_plan(*b, *plan, d, prec == Precision::kF32 ? in32 : in64, ref, other->stream());
                  ++checked;
                } catch (const Error& e) {
                  FAIL_CHECK("dct::Error: " << e.message());
                }
              }
            }
          }
        }
      }
    }
  }
  skips.report();
  test::report_size_cap(capped);
  INFO("cases checked: " << checked);
  CHECK(checked + capped > 0);
}

}  // namespace

TEST_CASE("cuda runtime: usable, device query, buffers, timer", "[gpu][dct2gpu]") {
  require_device();
  const core::Runtime& rt = cuda_backends().front()->runtime();
  CHECK(rt.name() == "cuda");
  CHECK(rt.memory() == core::Memory::kDevice);
  CHECK(!rt.device_name().empty());
  CHECK(rt.cache_bytes() > 0);
  std::vector<float> h(1000), back(1000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(i) * 0.5f;
  auto a = rt.allocate(h.size() * sizeof(float));
  auto c = rt.allocate(h.size() * sizeof(float));
  rt.upload(*a, h.data(), a->bytes());
  rt.fill_bytes(*c, 0xFF);
  auto timer = rt.make_timer();
  timer->start();
  rt.copy(*c, *a, a->bytes());
  timer->stop();
  CHECK(timer->elapsed_ms() >= 0);
  rt.synchronize();
  rt.download(back.data(), *c, c->bytes());
  CHECK(back == h);
  for (auto* b : cuda_backends()) CHECK(&b->runtime() == &rt);
}

TEST_CASE("cuda backends: unsupported requests are refused with kUnsupported", "[gpu][dct2gpu]") {
  require_device();
  for (const auto* b : cuda_backends()) {
    core::TransformDesc d;
    d.op = Op::kDct4;
    d.shape = {8, 8};
    CHECK_FALSE(b->supports(d));
    try {
      b->make_plan(d);
      FAIL_CHECK(b->name() << " made a plan for dct4");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kUnsupported);
      CHECK(e.subject() == b->name());
    }
    d.op = Op::kDct2;
    d.block = 8;
    CHECK_FALSE(b->supports(d));
  }
}

TEST_CASE("cuda baselines: R2C of an impulse is flat, C2R inverts it up to N", "[gpu][dct2gpu]") {
  require_device();
  const core::Runtime& rt = cuda_backends().front()->runtime();
  const Shape2 shape{6, 10};
  for (const Precision prec : {Precision::kF32, Precision::kF64}) {
    core::HostTensor x(shape, 1, prec);
    x.set(0, 1.0);
    auto fwd = rt.make_baseline(core::Runtime::Baseline::kFftForward, shape, 1, prec, core::Effort::kEstimate);
    REQUIRE(fwd);
    CHECK(rt.make_baseline(core::Runtime::Baseline::kPlainDct2, shape, 1, prec, core::Effort::kEstimate) == nullptr);
    const std::size_t cbytes = core::Runtime::fft_complex_bytes(shape, 1, prec);
    auto din = rt.allocate(x.bytes());
    auto dc = rt.allocate(cbytes);
    rt.upload(*din, x.raw(), x.bytes());
    fwd->execute(core::ConstView{din->data(), shape, 1, prec, core::Memory::kDevice},
                 core::View{dc->data(), shape, 1, prec, core::Memory::kDevice});
    rt.synchronize();
    const std::int64_t nc = shape.rows * (shape.cols / 2 + 1);
    core::HostTensor spec(Shape2{1, 2 * nc}, 1, prec);
    rt.download(spec.raw(), *dc, cbytes);
    for (std::int64_t i = 0; i < nc; ++i) {
      CHECK(spec.get(2 * i) == Approx(1.0).margin(1e-6));
      CHECK(spec.get(2 * i + 1) == Approx(0.0).margin(1e-6));
    }
    auto inv = rt.make_baseline(core::Runtime::Baseline::kFftInverse, shape, 1, prec, core::Effort::kEstimate);
    REQUIRE(inv);
    inv->execute(core::ConstView{dc->data(), shape, 1, prec, core::Memory::kDevice},
                 core::View{din->data(), shape, 1, prec, core::Memory::kDevice});
    rt.synchronize();
    core::HostTensor back(shape, 1, prec);
    rt.download(back.raw(), *din, x.bytes());
    for (std::int64_t i = 0; i < shape.count(); ++i) CHECK(back.get(i) == Approx(i == 0 ? 60.0 : 0.0).margin(1e-5));
  }
}

TEST_CASE("cuda-fft2d and cuda-rowcol round trip: idct2(dct2(x)) = x", "[gpu][dct2gpu]") {
  require_device();
  for (const char* name : {"cuda-fft2d", "cuda-rowcol"}) {
    const core::Backend* b = app::registry().find(name);
    REQUIRE(b != nullptr);
    for (const Precision prec : {Precision::kF32, Precision::kF64}) {
      core::TransformDesc d;
      d.norm = Norm::kOrtho;
      d.shape = {33, 20};
      d.batch = 2;
      d.prec = prec;
      const core::HostTensor x = test::random_tensor(d.shape, d.batch, prec, 77);
      const core::HostTensor y = test::run_backend(*b, d, x);
      d.op = Op::kIdct2;
      const core::HostTensor z = test::run_backend(*b, d, y);
      INFO(name << " " << core::to_string(prec));
      CHECK(test::rel_l2_finite(z, x) <= test::tol(prec));
    }
  }
}

namespace {
// A 2-D backend against the f64 oracle: dct2 (norm none) and idct2 (ortho), f32 and f64, batch 2, fresh inputs per
// case; `what` names the backend in failure messages.
void fft2d_matches_oracle(const std::vector<Shape2>& shapes, std::uint64_t& seed, const std::string& what,
                          core::Effort effort = core::Effort::kEstimate, Axis axis = Axis::kBoth,
                          std::int64_t batch = 2,
                          const std::vector<Precision>& precisions = {Precision::kF32, Precision::kF64}) {
  const core::Backend* b = app::registry().find(what);
  REQUIRE(b != nullptr);
  int capped = 0;
  for (const Shape2 shape : shapes) {
    if (test::over_size_cap(shape.count(), capped)) {
      seed += 4;  // the shapes that run see the inputs they see uncapped
      continue;
    }
    for (const Op op : {Op::kDct2, Op::kIdct2})
      for (const Precision prec : precisions) {
        core::TransformDesc d;
        d.op = op;
        d.norm = op == Op::kDct2 ? Norm::kNone : Norm::kOrtho;
        d.shape = shape;
        d.batch = batch;
        d.prec = Precision::kF64;
        d.effort = effort;
        d.axis = axis;
        const core::HostTensor in = test::random_tensor(shape, d.batch, Precision::kF32, ++seed).to(Precision::kF64);
        const core::HostTensor ref = reference(d, in);
        d.prec = prec;
        const core::HostTensor got = test::run_backend(*b, d, in.to(prec));
        INFO(what << " " << d.to_string());
        CHECK(test::rel_l2_finite(got, ref) <= test::tol(prec));
      }
  }
  test::report_size_cap(capped);
}
}  // namespace

// Every route of cuda-fft2d, fixed by the shape when the plan is made (kernels/dct2d/pipelines.cu): the tiles route
// (smooth sides, at most 4096 values: 2 x 2, 64 x 48, 8 x 16, 256 x 1 computed as 1 x 256), the rows route (n2 = 2^p
// >= 16: 17 x 64, 5 x 1024, 33 x 4096, where the batch or n1 allows), the 2-D cuFFT plan (the other n2), and the rows
// route's column stages: ColumnFft with the post/preprocess fused at n1 = 1024 (32 x 32), 2048 (one-pass kernels for
// f32 and the f64 inverse, two kernels for the f64 forward), 4096 and 8192, cuFFT's strided C2C at 16384; partial
// column tiles (n2/2+1 = 2, 9, 25, 33, 129 columns). cuda-fft2d-cufft (reorder + cuFFT 2-D plan + post) on the same.
TEST_CASE("cuda-fft2d and cuda-fft2d-cufft: every FFT route matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4000;
  for (const char* name : {"cuda-fft2d", "cuda-fft2d-cufft"})
    fft2d_matches_oracle(
        {Shape2{2, 2},      Shape2{17, 31},    Shape2{64, 48},    Shape2{1001, 999}, Shape2{256, 1},
         Shape2{8, 16},     Shape2{17, 64},    Shape2{5, 1024},   Shape2{33, 4096},  Shape2{8192, 16},
         Shape2{8192, 64},  Shape2{4096, 32},  Shape2{4096, 256}, Shape2{2048, 48},  Shape2{2048, 2},
         Shape2{2048, 256}, Shape2{16384, 16}, Shape2{1024, 64},  Shape2{1024, 2},   Shape2{1024, 256}},
        seed, name);
}

namespace {
// `count` shapes with both sides random smooth sizes (2^a 3^b 5^c 7^d 11^e 13^f) in [16, max_side], at most 2^22
// elements, from a fixed seed.
std::vector<Shape2> random_smooth_shapes(int count, std::uint64_t seed, std::int64_t max_side,
                                         std::int64_t min_side = 16) {
  std::vector<std::int64_t> smooth;
  for (std::int64_t n = min_side; n <= max_side; ++n) {
    std::int64_t m = n;
    for (const std::int64_t p : {2, 3, 5, 7, 11, 13})
      while (m % p == 0) m /= p;
    if (m == 1) smooth.push_back(n);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, smooth.size() - 1);
  std::vector<Shape2> shapes;
  while (static_cast<int>(shapes.size()) < count) {
    const Shape2 s{smooth[pick(rng)], smooth[pick(rng)]};
    if (s.count() <= (std::int64_t{1} << 22)) shapes.push_back(s);
  }
  return shapes;
}
}  // namespace

// The smooth route (kernels/dct2d/smooth.cuh: one kernel per axis for any 2^a 3^b 5^c 7^d 11^e 13^f size), as the named
// backend cuda-fft2d-smooth: the photograph shapes, odd sizes with every odd radix, long thin matrices, N x 1, and
// random smooth sizes up to its f64 limit (6456); then cuda-fft2d (whichever route it takes) on random smooth sizes to
// 16384.
namespace {
const std::vector<Shape2> kImageShapes{Shape2{1080, 1920}, Shape2{1920, 1080}, Shape2{720, 1280}, Shape2{1000, 1000},
                                       Shape2{1536, 1536}, Shape2{100, 6000},  Shape2{6000, 100}, Shape2{3000, 4000},
                                       Shape2{375, 1125},  Shape2{143, 169},   Shape2{77, 6},     Shape2{3, 5},
                                       Shape2{1, 1080},    Shape2{1080, 1}};
}  // namespace

// Five cases, so that compute-sanitizer's tools can run them side by side.
TEST_CASE("cuda-fft2d-smooth on image shapes matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4500;
  fft2d_matches_oracle(kImageShapes, seed, "cuda-fft2d-smooth");
}

TEST_CASE("cuda-fft2d-smooth on random smooth sizes matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4600;
  fft2d_matches_oracle(random_smooth_shapes(20, 2027, 6456), seed, "cuda-fft2d-smooth");
}

// Long columns: the smooth route's two-kernel column stage (SmoothCols4, kernels/dct2d/smooth_cols4.cuh) past the
// one-kernel limit (f32 13673, f64 6456 rows) and where it replaces the one-pair one-kernel tiles: odd and even splits,
// one and many tiles of pairs, odd widths (the scalar loads) and even ones (the asynchronous pair copies), a batch of 3
// and random smooth heights 3300 .. 40000 with random smooth widths up to 64.
TEST_CASE("cuda-fft2d-smooth on long columns matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4620;
  std::vector<Shape2> shapes{Shape2{10010, 33},  Shape2{20000, 6}, Shape2{8748, 15},   Shape2{6144, 100},
                             Shape2{3584, 1001}, Shape2{16807, 2}, Shape2{10000, 100}, Shape2{12740, 520}};
  std::vector<std::int64_t> smooth;
  for (std::int64_t n = 1; n <= 40000; ++n) {
    std::int64_t m = n;
    for (const std::int64_t p : {2, 3, 5, 7, 11, 13})
      while (m % p == 0) m /= p;
    if (m == 1) smooth.push_back(n);
  }
  const auto first_from = [&](std::int64_t lo) { return std::lower_bound(smooth.begin(), smooth.end(), lo); };
  const std::size_t tall0 = static_cast<std::size_t>(first_from(3300) - smooth.begin());
  const std::size_t narrow = static_cast<std::size_t>(first_from(65) - smooth.begin());
  std::mt19937_64 rng(2033);
  for (int k = 0; k < 6; ++k)
    shapes.push_back(Shape2{smooth[tall0 + rng() % (smooth.size() - tall0)], smooth[rng() % narrow]});
  fft2d_matches_oracle(shapes, seed, "cuda-fft2d-smooth");
  fft2d_matches_oracle({Shape2{3500, 20}, Shape2{4374, 35}}, seed, "cuda-fft2d-smooth", core::Effort::kEstimate,
                       Axis::kBoth, 3);
}

// Every length with a kernel compiled for it (smooth::CompiledLengths in kernels/dct2d/smooth.cuh), once along rows and
// once down columns: the list paired with itself reversed.
TEST_CASE("cuda-fft2d-smooth on every length with a compiled kernel matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4650;
  const std::int64_t lengths[] = {240,  360,  480,  540,  576,  600,  720,  768,  960,  1000,
                                  1080, 1200, 1280, 1440, 1536, 1600, 1920, 2000, 2160, 2400,
                                  2560, 2880, 3000, 3024, 3840, 4000, 4032, 4320, 6000};
  const std::size_t count = std::size(lengths);
  std::vector<Shape2> shapes;
  for (std::size_t k = 0; k < count; ++k) shapes.push_back(Shape2{lengths[k], lengths[count - 1 - k]});
  fft2d_matches_oracle(shapes, seed, "cuda-fft2d-smooth", core::Effort::kEstimate, Axis::kBoth, 1);
}

TEST_CASE("cuda-fft2d on image shapes matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4700;
  fft2d_matches_oracle(kImageShapes, seed, "cuda-fft2d");
}

TEST_CASE("cuda-fft2d on random smooth sizes matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4800;
  fft2d_matches_oracle(random_smooth_shapes(12, 2028, 16384), seed, "cuda-fft2d");
}

// Batches of small matrices (the tiles of an image, a dataset's crops): the routes cuda-fft2d takes for batch > 1 (the
// tiles route where a matrix fits one CTA, as 32 x 32 and f32 128 x 128; the 2-D cuFFT plan, or the rows route with
// ColumnFft, elsewhere) and cuda-fft2d-smooth's two passes, on the benchmarks' tile shapes, odd and thin ones and
// random smooth sizes 2 .. 512, with a batch of 2 and of 37.
TEST_CASE("cuda-fft2d on batches of small smooth matrices matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 8300;
  std::vector<Shape2> shapes{Shape2{240, 240}, Shape2{32, 32}, Shape2{128, 128}, Shape2{256, 256}, Shape2{120, 128},
                             Shape2{2, 2},     Shape2{3, 5},   Shape2{2, 390},   Shape2{390, 2},   Shape2{243, 245}};
  for (const Shape2 s : random_smooth_shapes(12, 2031, 512, 2)) shapes.push_back(s);
  for (const std::int64_t batch : {std::int64_t{2}, std::int64_t{37}}) {
    fft2d_matches_oracle(shapes, seed, "cuda-fft2d", core::Effort::kEstimate, Axis::kBoth, batch);
    fft2d_matches_oracle(shapes, seed, "cuda-fft2d-smooth", core::Effort::kEstimate, Axis::kBoth, batch);
  }
}

// cuda-fft2d-tiles (one CTA per matrix, kernels/dct2d/smooth_tiles.cuh): 1 x 1, one row, odd, prime and mixed sides,
// random smooth sizes up to 90 (every matrix fits f64's CTA), batches of 1, 3 and 130 (more CTAs than SMs).
TEST_CASE("cuda-fft2d-tiles on batches of small matrices matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 8400;
  std::vector<Shape2> shapes{Shape2{1, 1},   Shape2{1, 9},   Shape2{2, 3},   Shape2{7, 13},  Shape2{8, 8},
                             Shape2{24, 20}, Shape2{32, 32}, Shape2{45, 77}, Shape2{64, 64}, Shape2{100, 90}};
  for (const Shape2 s : random_smooth_shapes(10, 2032, 90, 2)) shapes.push_back(s);
  for (const std::int64_t batch : {std::int64_t{1}, std::int64_t{3}, std::int64_t{130}})
    fft2d_matches_oracle(shapes, seed, "cuda-fft2d-tiles", core::Effort::kEstimate, Axis::kBoth, batch);
}

// Planned with --effort measure, cuda-fft2d times the cuFFT route against the smooth one and keeps the faster.
TEST_CASE("cuda-fft2d planned with --effort measure on smooth sizes matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 4900;
  fft2d_matches_oracle({Shape2{154, 1815}, Shape2{1080, 1920}, Shape2{1920, 1080}}, seed, "cuda-fft2d",
                       core::Effort::kMeasure);
}

// One axis (--axis rows|cols): cuda-fft2d-smooth's single SmoothLines kernel, and cuda-fft2d under --effort measure
// (which times it against the N-point cuFFT lines), on photograph and random smooth shapes.
TEST_CASE("cuda-fft2d-smooth and cuda-fft2d measured along rows and columns match the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 5000;
  std::vector<Shape2> shapes = random_smooth_shapes(8, 2029, 6456);
  shapes.insert(shapes.end(), {Shape2{1080, 1920}, Shape2{1000, 1000}, Shape2{77, 6}, Shape2{3, 5}, Shape2{1, 1080}});
  for (const Axis axis : {Axis::kRows, Axis::kCols}) {
    fft2d_matches_oracle(shapes, seed, "cuda-fft2d-smooth", core::Effort::kEstimate, axis);
    fft2d_matches_oracle({Shape2{154, 1815}, Shape2{1080, 1920}, Shape2{1000, 1000}}, seed, "cuda-fft2d",
                         core::Effort::kMeasure, axis);
  }
}

// Sides with a prime factor above 13, by Bluestein's FFT inside the line kernels (smooth_lines_bluestein) where
// smooth::bluestein_pays: largest prime factor 47 .. 127 (97, 254 = 2·127, 53, 106, 1007 = 19·53, 2209 = 47²) in both
// precisions, above 127 in lines of more than 16 KiB: f32 4097 = 17·241 (to 6823), f64 2053 and 3217 (its limit); along
// both axes, rows and columns, each side alone and both, with smooth sides beside them.
TEST_CASE("cuda-fft2d-smooth on sides with a large prime factor (Bluestein's FFT) matches the oracle",
          "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 5050;
  const std::vector<Shape2> both{Shape2{97, 254}, Shape2{53, 1080}, Shape2{1080, 106}, Shape2{3, 1007},
                                 Shape2{2209, 5}};
  fft2d_matches_oracle(both, seed, "cuda-fft2d-smooth");
  for (const Axis axis : {Axis::kRows, Axis::kCols})
    fft2d_matches_oracle({Shape2{97, 254}, Shape2{1007, 3}}, seed, "cuda-fft2d-smooth", core::Effort::kEstimate, axis);
  fft2d_matches_oracle({Shape2{4097, 33}, Shape2{35, 4097}, Shape2{4097, 4097}, Shape2{6823, 6}}, seed,
                       "cuda-fft2d-smooth", core::Effort::kEstimate, Axis::kBoth, 1, {Precision::kF32});
  fft2d_matches_oracle({Shape2{2053, 10}, Shape2{7, 3217}}, seed, "cuda-fft2d-smooth", core::Effort::kEstimate,
                       Axis::kBoth, 2, {Precision::kF64});
  // cuda-fft2d's own pick: the smooth route where a side's prime is above 127 (pipelines.cuh), else the cuFFT route.
  fft2d_matches_oracle({Shape2{4097, 40}, Shape2{24, 4097}, Shape2{2209, 8}}, seed, "cuda-fft2d",
                       core::Effort::kEstimate, Axis::kBoth, 1, {Precision::kF32});
  fft2d_matches_oracle({Shape2{2053, 24}}, seed, "cuda-fft2d", core::Effort::kEstimate, Axis::kBoth, 1,
                       {Precision::kF64});
}

// Few lines of a length without a compiled kernel: grids of fewer CTAs than SMs, which the run-time kernel launches
// one line pair (columns: a tile of two) per CTA (SmoothLines::pick), along rows, down columns and both; beside them
// the same lengths with enough lines for config()'s shape.
TEST_CASE("cuda-fft2d-smooth with few lines per launch matches the oracle", "[gpu][dct2gpu]") {
  require_device();
  std::uint64_t seed = 5100;
  const std::vector<Shape2> shapes{Shape2{180, 154}, Shape2{5120, 143}, Shape2{220, 637},   Shape2{33, 2475},
                                   Shape2{6, 154},   Shape2{143, 7},    Shape2{1215, 1152}, Shape2{2, 1815}};
  for (const Axis axis : {Axis::kBoth, Axis::kRows, Axis::kCols})
    fft2d_matches_oracle(shapes, seed, "cuda-fft2d-smooth", core::Effort::kEstimate, axis);
}

TEST_CASE("cuda backends match the f64 oracle: small and odd shapes", "[gpu][dct2gpu]") {
  sweep({{1, 1}, {1, 7}, {7, 1}, {5, 3}, {17, 31}, {64, 48}, {128, 128}}, 1000);
}

TEST_CASE("cuda backends match the f64 oracle: long vectors", "[gpu][dct2gpu]") {
  sweep({{1, 65536}, {65536, 1}}, 2000);
}

// The large shapes one case per shape and direction, so that each finishes under compute-sanitizer's tools in the
// GPU check's time limit (the cases run side by side there).
TEST_CASE("cuda backends match the f64 oracle: large shapes, 1000x1000 forward", "[gpu][dct2gpu]") {
  sweep({{1000, 1000}}, 3000, {Op::kDct2});
}
TEST_CASE("cuda backends match the f64 oracle: large shapes, 1001x999 forward", "[gpu][dct2gpu]") {
  sweep({{1001, 999}}, 3050, {Op::kDct2});
}
TEST_CASE("cuda backends match the f64 oracle: large shapes, 1000x1000 inverse", "[gpu][dct2gpu]") {
  sweep({{1000, 1000}}, 3100, {Op::kIdct2});
}
TEST_CASE("cuda backends match the f64 oracle: large shapes, 1001x999 inverse", "[gpu][dct2gpu]") {
  sweep({{1001, 999}}, 3150, {Op::kIdct2});
}
TEST_CASE("cuda backends match the f64 oracle: large shapes, 2048x2048 forward", "[gpu][dct2gpu]") {
  sweep({{2048, 2048}}, 3200, {Op::kDct2});
}
TEST_CASE("cuda backends match the f64 oracle: large shapes, 2048x2048 inverse", "[gpu][dct2gpu]") {
  sweep({{2048, 2048}}, 3300, {Op::kIdct2});
}
TEST_CASE("cuda backends match the f64 oracle: large shapes, 4096x1000 forward", "[gpu][dct2gpu]") {
  sweep({{4096, 1000}}, 3400, {Op::kDct2});
}
TEST_CASE("cuda backends match the f64 oracle: large shapes, 4096x1000 inverse", "[gpu][dct2gpu]") {
  sweep({{4096, 1000}}, 3500, {Op::kIdct2});
}
