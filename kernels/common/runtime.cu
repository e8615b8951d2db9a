// core::Runtime "cuda": device selection and query, device buffers, copies, CUDA-event timers, and the
// cuFFT R2C / C2R baselines bench divides by.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/error.hpp"
#include "kernels/backends.hpp"
#include "kernels/common/plan.cuh"

namespace dct::cuda {
namespace {

std::atomic<int> g_ordinal{0};         // --device: the process's device
thread_local int t_ordinal = -1;       // bind_thread_device: this thread's device (-1: the process's)
thread_local bool t_cpu_only = false;  // set_thread_cpu_only: this thread's work stays off the GPU
std::atomic<bool> g_retired{false};    // retire_devices: no GPU work for the rest of the process

// cudaGetDeviceCount once per process (it loads the driver; on a machine without one it fails cleanly).
struct DeviceCount {
  cudaError_t err = cudaSuccess;
  int count = 0;
};
const DeviceCount& device_count() {
  static const DeviceCount dc = [] {
    DeviceCount d;
    d.err = cudaGetDeviceCount(&d.count);
    if (d.err != cudaSuccess) {
      cudaGetLastError();
      d.count = 0;
    }
    return d;
  }();
  return dc;
}

core::Support usable_device(int ordinal) {
  if (t_cpu_only) return core::Support::no("the GPU is set aside for this input");
  if (g_retired.load()) return core::Support::no("the GPU is set aside after a device error");
  const DeviceCount& dc = device_count();
  if (dc.err != cudaSuccess)
    return core::Support::no(std::string("no CUDA device: cudaGetDeviceCount: ") + cudaGetErrorString(dc.err));
  if (dc.count < 1) return core::Support::no("no CUDA device: cudaGetDeviceCount found none");
  if (ordinal < 0 || ordinal >= dc.count)
    return core::Support::no("no CUDA device " + std::to_string(ordinal) + " (" + std::to_string(dc.count) +
                             " device(s) present)");
  return core::Support::yes();
}

class CudaBuffer final : public core::Buffer {
 public:
  explicit CudaBuffer(std::size_t bytes) : buf_(bytes) {}
  void* data() const override { return buf_.get(); }
  std::size_t bytes() const override { return buf_.bytes(); }

 private:
  DeviceBuffer buf_;
};

class CudaTimer final : public core::Timer {
 public:
  void start(core::Stream s) override { start_.record(static_cast<cudaStream_t>(s.handle)); }
  void stop(core::Stream s) override { stop_.record(static_cast<cudaStream_t>(s.handle)); }
  double elapsed_ms() override { return stop_.since(start_); }

 private:
  CudaEvent start_, stop_;
};

// cuFFT R2C (D2Z) / C2R (Z2D) 2-D over `batch` matrices: the reference stage of the three-stage method.
template <class T>
class FftBaselinePlan final : public GpuPlan {
 public:
  FftBaselinePlan(const core::TransformDesc& d, bool forward)
      : GpuPlan(d, forward ? d.bytes() : core::Runtime::fft_complex_bytes(d.shape, d.batch, d.prec),
                forward ? core::Runtime::fft_complex_bytes(d.shape, d.batch, d.prec) : d.bytes(), false),
        fft_(FftStage<T>::matrix(forward ? FftType::kR2C : FftType::kC2R, d.shape.rows, d.shape.cols, d.batch)) {}

 private:
  void run(const void* in, void* out, cudaStream_t s) const override { fft_.run(in, out, s); }
  FftStage<T> fft_;
};

class CudaRuntime final : public core::Runtime {
 public:
  std::string_view name() const override { return "cuda"; }
  core::Memory memory() const override { return core::Memory::kDevice; }
  core::Support usable() const override { return usable_device(current_device()); }
  std::string device_name() const override {
    if (!usable()) return "none";
    try {
      return query_device(current_device()).name;
    } catch (const Error&) {
      return "unknown CUDA device";
    }
  }
  std::size_t cache_bytes() const override {
    if (!usable()) return 0;
    return query_device(current_device()).l2_bytes;
  }
  std::unique_ptr<core::Buffer> allocate(std::size_t bytes) const override {
    activate_device();
    return std::make_unique<CudaBuffer>(bytes);
  }
  void warm_up() const override {
    try {
      if (!usable()) return;
      activate_device();
      cudaFree(nullptr);  // creates the context
      cudaGetLastError();
    } catch (...) {
    }
  }
  std::unique_ptr<core::Buffer> allocate_host(std::size_t bytes) const override {
    if (bytes > 0 && usable()) {
      try {
        activate_device();
        return std::make_unique<PortablePinnedBuffer>(bytes);
      } catch (const Error&) {
        cudaGetLastError();  // no page-locked memory to be had: ordinary memory works too, through the staging
      }
    }
    return core::Runtime::allocate_host(bytes);
  }
  void upload(core::Buffer& dst, const void* src, std::size_t bytes) const override {
    activate_device();
    DCT_CUDA_CHECK(cudaMemcpy(dst.data(), src, bytes, cudaMemcpyHostToDevice));
  }
  void download(void* dst, const core::Buffer& src, std::size_t bytes) const override {
    activate_device();
    DCT_CUDA_CHECK(cudaMemcpy(dst, src.data(), bytes, cudaMemcpyDeviceToHost));
  }
  void copy(core::Buffer& dst, const core::Buffer& src, std::size_t bytes, core::Stream s) const override {
    activate_device();
    DCT_CUDA_CHECK(
        cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(s.handle)));
  }
  void fill_bytes(core::Buffer& dst, unsigned char value) const override {
    activate_device();
    DCT_CUDA_CHECK(cudaMemset(dst.data(), value, dst.bytes()));
    DCT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::unique_ptr<core::Timer> make_timer() const override {
    activate_device();
    return std::make_unique<CudaTimer>();
  }
  void synchronize() const override {
    activate_device();
    DCT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::unique_ptr<core::Plan> make_baseline(Baseline kind, core::Shape2 shape, std::int64_t batch, core::Precision prec,
                                            core::Effort effort) const override {
    if (kind == Baseline::kPlainDct2) return nullptr;  // cuFFT has no DCT
    activate_device();
    core::TransformDesc d;
    d.op = kind == Baseline::kFftForward ? core::Op::kDct2 : core::Op::kIdct2;
    d.shape = shape;
    d.batch = batch;
    d.prec = prec;
    d.effort = effort;
    const bool fwd = kind == Baseline::kFftForward;
    if (prec == core::Precision::kF32) return std::make_unique<FftBaselinePlan<float>>(d, fwd);
    return std::make_unique<FftBaselinePlan<double>>(d, fwd);
  }
};

}  // namespace

int current_device() { return t_ordinal >= 0 ? t_ordinal : g_ordinal.load(); }

void activate_device() {
  const int ord = current_device();
  if (core::Support u = usable_device(ord); !u) throw Error(ErrorCode::kRuntime, "cuda", u.reason);
  DCT_CUDA_CHECK(cudaSetDevice(ord));
}

const core::Runtime& cuda_runtime() {
  static const CudaRuntime rt;
  return rt;
}

void set_device(int ordinal) { g_ordinal.store(ordinal); }

void bind_thread_device(int ordinal) { t_ordinal = ordinal; }

void set_thread_cpu_only(bool on) { t_cpu_only = on; }

void retire_devices() { g_retired.store(true); }

int visible_devices() { return device_count().count; }

std::string version_info() {
  // CUDA encodes versions as 1000 * major + 10 * minor.
  auto dotted = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  int runtime = 0, driver = 0, cufft = 0;
  std::string out = "runtime ";
  out += cudaRuntimeGetVersion(&runtime) == cudaSuccess ? dotted(runtime) : std::string("unknown");
  out += ", cuFFT ";
  out += cufftGetVersion(&cufft) == CUFFT_SUCCESS ? std::to_string(cufft) : std::string("unknown");
  // 0 (or an error, with some runtimes) when no driver is installed.
  const cudaError_t e = cudaDriverGetVersion(&driver);
  if (e != cudaSuccess) cudaGetLastError();
  out += ", driver ";
  out += e == cudaSuccess && driver > 0 ? dotted(driver) : std::string("none");
  return out;
}

}  // namespace dct::cuda
