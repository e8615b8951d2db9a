#pragma once
// CUDA plumbing for the kernels/ backends: checked calls, checked launches, move-only RAII owners
// (device and pinned buffers, streams, events, cuFFT plans) and the device query. Only kernels/ sees it.
#include <cuda_runtime.h>
#include <cufft.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace dct::cuda {

// Throw dct::Error(kRuntime) naming the call, the file and the line ("out of GPU memory" when it is one).
[[noreturn]] void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_cufft_error(cufftResult r, const char* call, const char* file, int line);
// "1234567890 bytes (1.15 GiB)"
std::string bytes_text(std::size_t bytes);
// "X free of Y on the device" (cudaMemGetInfo)
std::string device_memory_text();
const char* cufft_result_name(cufftResult r);

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda_error(e, call, file, line);
}
inline void check_cufft(cufftResult r, const char* call, const char* file, int line) {
  if (r != CUFFT_SUCCESS) throw_cufft_error(r, call, file, line);
}

}  // namespace dct::cuda

#define DCT_CUDA_CHECK(call) ::dct::cuda::check_cuda((call), #call, __FILE__, __LINE__)
#define DCT_CUFFT_CHECK(call) ::dct::cuda::check_cufft((call), #call, __FILE__, __LINE__)
// A kernel launch followed by cudaGetLastError (release builds too). Wrap a template kernel's name in
// parentheses: DCT_LAUNCH((my_kernel<float, 2>), grid, block, stream, args...).
#define DCT_LAUNCH(kernel, grid, block, stream, ...) \
  ::dct::cuda::launch_checked(#kernel, __FILE__, __LINE__, kernel, grid, block, stream, __VA_ARGS__)

namespace dct::cuda {

template <class... KArgs, class... Args>
void launch_checked(const char* name, const char* file, int line, void (*kernel)(KArgs...), dim3 grid, dim3 block,
                    cudaStream_t stream, Args&&... args) {
  kernel<<<grid, block, 0, stream>>>(std::forward<Args>(args)...);
  check_cuda(cudaGetLastError(), name, file, line);
}

// Launch `fn` with the programmatic-stream-serialization attribute (kernels/common/pdl.cuh): it is launched while the
// kernel before it on `stream` completes, so `fn` must call wait_previous_grid() before touching global memory. Plain
// stream order before sm_90.
void launch_dependent(const void* fn, dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, void** args);
// Its configuration; `attr` (one element) must live until the launch call returns.
cudaLaunchConfig_t dependent_config(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                                    cudaLaunchAttribute* attr);
// The same for a typed kernel, its arguments converted as by <<<>>>.
template <class... KArgs, class... Args>
void launch_dependent(void (*kernel)(KArgs...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                      Args&&... args) {
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = dependent_config(grid, block, smem, stream, attr);
  DCT_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

// ---- RAII owners (move-only; destructors never throw) -------------------------------------------

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  // cudaHostAlloc with `flags` (cudaHostAllocPortable: page-locked for every device's context, not only the
  // current one's).
  explicit PinnedBuffer(std::size_t bytes, unsigned flags = cudaHostAllocDefault);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class CudaStream {
 public:
  // A blocking stream: legacy-default-stream copies (cudaMemcpy) order after its work.
  CudaStream();
  ~CudaStream();
  CudaStream(CudaStream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  CudaStream& operator=(CudaStream&& o) noexcept;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent();
  ~CudaEvent();
  CudaEvent(CudaEvent&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const;
  // Milliseconds from `start` to this event (waits for this event).
  float since(const CudaEvent& start) const;

 private:
  cudaEvent_t e_ = nullptr;
};

class CufftPlan {
 public:
  CufftPlan();  // cufftCreate
  ~CufftPlan();
  CufftPlan(CufftPlan&& o) noexcept : h_(std::exchange(o.h_, 0)), valid_(std::exchange(o.valid_, false)) {}
  CufftPlan& operator=(CufftPlan&& o) noexcept;
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  cufftHandle get() const { return h_; }

 private:
  cufftHandle h_ = 0;
  bool valid_ = false;
};

// ---- device query --------------------------------------------------------------------------------

struct DeviceInfo {
  std::string name;
  std::size_t l2_bytes = 0;
  std::size_t global_bytes = 0;
  int sm_count = 0;
  int major = 0, minor = 0;
};
DeviceInfo query_device(int ordinal);  // throws kRuntime
int current_sm_count();                // SMs of the current device (>= 1); throws kRuntime

}  // namespace dct::cuda
