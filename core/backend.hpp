#pragma once
// The interfaces every implementation provides:
//   Runtime  - where a backend's plans run (host, or a CUDA device): buffers, copies, timers, the FFT baseline;
//   Backend  - one algorithm: says what it supports (with a reason) and makes plans;
//   Plan     - immutable after construction; owns twiddles, workspaces, library plans.
// cpu/ and kernels/ implement these; app/ only sees them through the registry.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"
#include "core/types.hpp"

namespace dct::core {

// A value with a reason; never an exception.
struct Support {
  bool ok = false;
  std::string reason;  // why not (empty when ok)
  static Support yes() { return {true, {}}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

// An opaque execution queue: a cudaStream_t for CUDA runtimes, null for the host. Null means the
// plan's own stream.
struct Stream {
  void* handle = nullptr;
};

// Times of one host-to-host execution (milliseconds).
struct StageTimes {
  double device_ms = 0;  // device work only (CUDA events); equals compute time for host plans
  double e2e_ms = 0;     // host memory to host memory, transfers included
  double h2d_ms = 0;     // upload (0 for host plans)
  double d2h_ms = 0;     // download (0 for host plans)
  double load_ms = 0;    // CUDA plans, first execute_host only: one untimed run on the plan's own buffers that
                         // makes CUDA load the kernels (lazy module loading), kept out of device_ms and e2e_ms
};

// Where a streamed execution (Plan::execute_streamed) takes its input's bytes from and puts its output's: byte ranges
// of the plan's host layout (desc().batch matrices of desc().shape in, of desc().out_shape() out) at their offsets,
// asked for from several threads at once, each range once. They throw dct::Error (a file's read or write error, a NaN).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual void read(std::size_t at, void* dst, std::size_t bytes) const = 0;
};
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(std::size_t at, const void* src, std::size_t bytes) const = 0;
};

// Times of one streamed execution (milliseconds): the input taken (read and, on a device, uploaded), the transform, the
// output given (downloaded and written).
struct StreamTimes {
  double in_ms = 0;
  double device_ms = 0;
  double out_ms = 0;
};

class Plan {
 public:
  virtual ~Plan() = default;
  virtual const TransformDesc& desc() const = 0;
  // Where execute() expects its views (host memory for CPU plans, device memory for CUDA plans).
  virtual Memory memory() const = 0;
  // out must not alias in. in: desc().batch matrices of desc().shape; out: of desc().out_shape().
  // May return before device work completes (it is ordered on the plan's stream / `s`).
  // Plans are not thread-safe: one execute at a time per plan.
  virtual void execute(ConstView in, View out, Stream s = {}) const = 0;
  // Host memory in, host memory out, synchronous. CUDA plans stage through pinned buffers and time each
  // stage; the default (host plans) runs execute() and times it.
  virtual StageTimes execute_host(ConstView in, View out) const;
  // The input from `in` and the output to `out` (a file's values: one input on its own), by parts on up to `threads`
  // threads at once, synchronous. CUDA plans move each part through a page-locked chunk to or from their device
  // buffers, so no host array of the whole is made and the file's reads and writes overlap the copies. The default
  // (host plans) reads into ordinary memory by parts, executes and writes by parts.
  virtual StreamTimes execute_streamed(const ByteSource& in, const ByteSink& out, int threads) const;
  // The stream execute() queues on when given a null Stream (bench records its timing events there).
  virtual Stream stream() const { return {}; }
};

// Owned memory in a runtime's address space (device memory for CUDA). Move-only via unique_ptr.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual void* data() const = 0;
  virtual std::size_t bytes() const = 0;
};

// Measures elapsed time of work queued on a stream: CUDA events on the device, a steady clock on the host.
class Timer {
 public:
  virtual ~Timer() = default;
  virtual void start(Stream s = {}) = 0;
  virtual void stop(Stream s = {}) = 0;
  virtual double elapsed_ms() = 0;  // waits for the stop mark
};

// Ordinary host memory as a Buffer, 64-byte aligned (Runtime::allocate_host's default).
std::unique_ptr<Buffer> allocate_heap(std::size_t bytes);

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual std::string_view name() const = 0;  // "host", "cuda"
  virtual Memory memory() const = 0;
  // Is it usable on this machine (a CUDA device present, a driver new enough)? With the reason if not.
  virtual Support usable() const = 0;
  virtual std::string device_name() const = 0;  // "NVIDIA H100 80GB HBM3", or the CPU model
  virtual std::size_t cache_bytes() const = 0;  // L2 for devices (inputs are rotated when they fit)
  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) const = 0;
  // Host memory (64-byte aligned) suited to this runtime's transfers: page-locked for CUDA, which moves it to and from
  // the device at full speed (ordinary memory goes through the driver's own chunks); ordinary memory on the host (the
  // default), and wherever page-locked memory cannot be had. Slow to make on CUDA: callers keep it for reuse
  // (core::TensorPool).
  virtual std::unique_ptr<Buffer> allocate_host(std::size_t bytes) const;
  // Makes the runtime ready for its first plan (CUDA: the driver and the device's context, 100-300 ms), so that a
  // caller can pay that on another thread while it reads its input; never throws (a failure shows again when a plan
  // is made). Nothing on the host (the default).
  virtual void warm_up() const {}
  virtual void upload(Buffer& dst, const void* src, std::size_t bytes) const = 0;                 // synchronous
  virtual void download(void* dst, const Buffer& src, std::size_t bytes) const = 0;               // synchronous
  virtual void copy(Buffer& dst, const Buffer& src, std::size_t bytes, Stream s = {}) const = 0;  // same space
  virtual void fill_bytes(Buffer& dst, unsigned char value) const = 0;                            // poison
  virtual std::unique_ptr<Timer> make_timer() const = 0;
  virtual void synchronize() const = 0;
  // Baselines for bench's ratio columns, on `batch` matrices of `shape`:
  //   kFftForward: real-to-complex 2-D FFT (cuFFT R2C/D2Z, FFTW r2c); output batch*rows*(cols/2+1) complex
  //   kFftInverse: its complex-to-real inverse (input complex as above, output real)
  //   kPlainDct2:  the library's own unnormalized 2-D DCT-II with no extra passes (FFTW REDFT10 2-D);
  //                nullptr where the runtime has none (CUDA)
  // Buffers for the complex side are sized by fft_complex_bytes().
  enum class Baseline { kFftForward, kFftInverse, kPlainDct2 };
  virtual std::unique_ptr<Plan> make_baseline(Baseline kind, Shape2 shape, std::int64_t batch, Precision prec,
                                              Effort effort) const = 0;
  static std::size_t fft_complex_bytes(Shape2 shape, std::int64_t batch, Precision prec) {
    return static_cast<std::size_t>(shape.rows * (shape.cols / 2 + 1) * batch) * 2 * element_size(prec);
  }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;         // "cpu-fftw", "cuda-fft2d", ...
  virtual std::string_view description() const = 0;  // one line for `dctool backends`
  virtual std::vector<Op> ops() const = 0;           // ops it implements (for listing)
  virtual std::string_view sizes() const = 0;        // "any", "8x8 blocks", "N = 17", "<= 4096 per axis"
  virtual const Runtime& runtime() const = 0;
  // Whether this backend implements `d` (independent of the hardware present); never throws.
  virtual Support supports(const TransformDesc& d) const = 0;
  // Throws dct::Error on failure (kUnsupported if !supports(d), kRuntime for library/device failures).
  virtual std::unique_ptr<Plan> make_plan(const TransformDesc& d) const = 0;
};

}  // namespace dct::core
