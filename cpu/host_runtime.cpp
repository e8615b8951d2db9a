// The host runtime: 64-byte aligned buffers, memcpy transfers, a steady-clock timer, and the FFTW
// baselines bench divides by (r2c / c2r 2-D FFTs, and FFTW's own REDFT10 2-D DCT-II).
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/tensor.hpp"
#include "cpu/backends.hpp"
#include "cpu/common.hpp"
#include "cpu/fftw_util.hpp"

namespace dct::cpu {
namespace {

constexpr std::string_view kName = "host";

class HostBuffer final : public core::Buffer {
 public:
  explicit HostBuffer(std::size_t bytes) : buf_(bytes) {}
  void* data() const override { return buf_.data(); }
  std::size_t bytes() const override { return buf_.bytes(); }

 private:
  core::AlignedBuffer buf_;
};

class HostTimer final : public core::Timer {
 public:
  void start(core::Stream) override { t0_ = std::chrono::steady_clock::now(); }
  void stop(core::Stream) override { t1_ = std::chrono::steady_clock::now(); }
  double elapsed_ms() override { return std::chrono::duration<double, std::milli>(t1_ - t0_).count(); }

 private:
  std::chrono::steady_clock::time_point t0_{}, t1_{};
};

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) break;
    auto start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) return line.substr(start);
  }
  return "unknown CPU";
}

// The size of the largest (last-level) cache of cpu0 from sysfs, 0 when unknown.
std::size_t last_level_cache_bytes() {
  std::size_t best = 0;
  int best_level = -1;
  std::error_code ec;
  const std::filesystem::path dir = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("index", 0) != 0) continue;
    std::ifstream lf(e.path() / "level"), sf(e.path() / "size"), tf(e.path() / "type");
    int level = 0;
    std::string size, type;
    if (!(lf >> level) || !(sf >> size) || !(tf >> type) || type == "Instruction") continue;
    std::size_t v = 0, i = 0;
    while (i < size.size() && size[i] >= '0' && size[i] <= '9') v = v * 10 + (size[i++] - '0');
    if (i < size.size() && (size[i] == 'K' || size[i] == 'k')) v <<= 10;
    if (i < size.size() && (size[i] == 'M' || size[i] == 'm')) v <<= 20;
    if (level > best_level) best_level = level, best = v;
  }
  if (best == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    best = static_cast<std::size_t>(l3 > 0 ? l3 : (l2 > 0 ? l2 : 0));
  }
  return best;
}

void require_room(const core::Buffer& b, std::size_t bytes, const char* what) {
  if (bytes > b.bytes())
    throw Error(ErrorCode::kRuntime, std::string(kName),
                std::string("internal: ") + what + " of " + std::to_string(bytes) + " bytes into a buffer of " +
                    std::to_string(b.bytes()));
}

// The baselines. execute() takes raw pointers from the views; their shapes are not looked at (the complex
// side of r2c/c2r is sized by Runtime::fft_complex_bytes). Planned on scratch arrays with the requested
// effort. FFTW's multi-dimensional c2r has no input-preserving algorithm: kFftInverse OVERWRITES its
// input (as cuFFT's C2R does); bench restores the input before each run.
template <class T>
class BaselinePlan final : public core::Plan {
 public:
  using Kind = core::Runtime::Baseline;
  BaselinePlan(Kind kind, core::Shape2 shape, std::int64_t batch, core::Precision prec, core::Effort effort)
      : kind_(kind) {
    desc_.op = core::Op::kDct2;  // nominal: baselines are not DCT requests
    desc_.shape = shape;
    desc_.batch = batch;
    desc_.prec = prec;
    desc_.effort = effort;
    const int n[2] = {static_cast<int>(shape.rows), static_cast<int>(shape.cols)};
    const int howmany = static_cast<int>(batch);
    const int real_dist = static_cast<int>(shape.count());
    const int cplx_dist = static_cast<int>(shape.rows * (shape.cols / 2 + 1));
    const std::size_t real_bytes = static_cast<std::size_t>(shape.count() * batch) * sizeof(T);
    const std::size_t cplx_bytes = core::Runtime::fft_complex_bytes(shape, batch, prec);
    const unsigned flags = detail::fftw_flags(effort);
    const bool pow2 = detail::all_powers_of_two(n, n + 2, [](int e) { return e; });
    const std::string what = "the baseline for " + core::to_string(shape) + " x" + std::to_string(batch);
    using F = detail::Fftw<T>;
    using C = typename F::Complex;
    if (kind == Kind::kPlainDct2) {
      core::AlignedBuffer a(real_bytes), b(real_bytes);
      const fftw_r2r_kind kinds[2] = {FFTW_REDFT10, FFTW_REDFT10};
      plan_ = detail::make_fftw_plan<T>(desc_.elements(), pow2, effort, "host", what, [&] {
        return F::many_r2r(2, n, howmany, static_cast<T*>(a.data()), real_dist, static_cast<T*>(b.data()), real_dist,
                           kinds, flags);
      });
    } else if (kind == Kind::kFftForward) {
      core::AlignedBuffer a(real_bytes), b(cplx_bytes);
      plan_ = detail::make_fftw_plan<T>(desc_.elements(), pow2, effort, "host", what, [&] {
        return F::many_r2c(2, n, howmany, static_cast<T*>(a.data()), real_dist, static_cast<C*>(b.data()), cplx_dist,
                           flags);
      });
    } else {
      core::AlignedBuffer a(cplx_bytes), b(real_bytes);
      plan_ = detail::make_fftw_plan<T>(desc_.elements(), pow2, effort, "host", what, [&] {
        return F::many_c2r(2, n, howmany, static_cast<C*>(a.data()), cplx_dist, static_cast<T*>(b.data()), real_dist,
                           flags | FFTW_DESTROY_INPUT);
      });
    }
  }

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    using F = detail::Fftw<T>;
    using C = typename F::Complex;
    if (in.data == nullptr || out.data == nullptr)
      throw Error(ErrorCode::kRuntime, std::string(kName), "internal: null view for a baseline plan");
    void* src = const_cast<void*>(in.data);
    if (F::alignment_of(static_cast<const T*>(src)) != 0 || F::alignment_of(static_cast<T*>(out.data)) != 0)
      throw Error(ErrorCode::kRuntime, std::string(kName), "internal: baseline views must be 16-byte aligned");
    switch (kind_) {
      case Kind::kPlainDct2:
        F::execute_r2r(plan_.get(), static_cast<T*>(src), static_cast<T*>(out.data));
        break;
      case Kind::kFftForward:
        F::execute_r2c(plan_.get(), static_cast<T*>(src), static_cast<C*>(out.data));
        break;
      case Kind::kFftInverse:
        F::execute_c2r(plan_.get(), static_cast<C*>(src), static_cast<T*>(out.data));
        break;
    }
  }

 private:
  Kind kind_;
  core::TransformDesc desc_;
  detail::FftwPlan<T> plan_;
};

class HostRuntime final : public core::Runtime {
 public:
  std::string_view name() const override { return kName; }
  core::Memory memory() const override { return core::Memory::kHost; }
  core::Support usable() const override { return core::Support::yes(); }
  std::string device_name() const override {
    static const std::string model = cpu_model();
    return model + " (" + std::to_string(detail::thread_count()) + " threads)";
  }
  std::size_t cache_bytes() const override {
    static const std::size_t bytes = last_level_cache_bytes();
    return bytes;
  }
  std::unique_ptr<core::Buffer> allocate(std::size_t bytes) const override {
    return std::make_unique<HostBuffer>(bytes);
  }
  void upload(core::Buffer& dst, const void* src, std::size_t bytes) const override {
    require_room(dst, bytes, "upload");
    if (bytes != 0) std::memcpy(dst.data(), src, bytes);
  }
  void download(void* dst, const core::Buffer& src, std::size_t bytes) const override {
    require_room(src, bytes, "download");
    if (bytes != 0) std::memcpy(dst, src.data(), bytes);
  }
  void copy(core::Buffer& dst, const core::Buffer& src, std::size_t bytes, core::Stream) const override {
    require_room(dst, bytes, "copy");
    require_room(src, bytes, "copy");
    if (bytes != 0) std::memcpy(dst.data(), src.data(), bytes);
  }
  void fill_bytes(core::Buffer& dst, unsigned char value) const override {
    if (dst.bytes() != 0) std::memset(dst.data(), value, dst.bytes());
  }
  std::unique_ptr<core::Timer> make_timer() const override { return std::make_unique<HostTimer>(); }
  void synchronize() const override {}
  std::unique_ptr<core::Plan> make_baseline(Baseline kind, core::Shape2 shape, std::int64_t batch, core::Precision prec,
                                            core::Effort effort) const override {
    if (shape.rows < 1 || shape.cols < 1 || batch < 1)
      throw Error(ErrorCode::kRuntime, std::string(kName), "internal: empty baseline shape " + core::to_string(shape));
    // FFTW's advanced interface counts in int.
    if (shape.rows * (shape.cols / 2 + 1) * 2 * batch > std::numeric_limits<int>::max() ||
        shape.count() * batch > std::numeric_limits<int>::max())
      throw Error(ErrorCode::kUnsupported, std::string(kName), "baseline too large: " + core::to_string(shape));
    if (prec == core::Precision::kF32) return std::make_unique<BaselinePlan<float>>(kind, shape, batch, prec, effort);
    return std::make_unique<BaselinePlan<double>>(kind, shape, batch, prec, effort);
  }
};

}  // namespace

const core::Runtime& host_runtime() {
  static const HostRuntime rt;
  return rt;
}

}  // namespace dct::cpu
