#include "kernels/common/cuda_util.cuh"

#include <algorithm>
#include <cstdio>
#include <string>

namespace dct::cuda {
namespace {

std::string where(const char* call, const char* file, int line) {
  std::string f = file;
  if (auto slash = f.find_last_of('/'); slash != std::string::npos) f = f.substr(slash + 1);
  return std::string(call) + " (" + f + ":" + std::to_string(line) + ")";
}

}  // namespace

std::string bytes_text(std::size_t bytes) {
  char b[64];
  std::snprintf(b, sizeof b, "%zu bytes (%.2f GiB)", bytes, static_cast<double>(bytes) / (1u << 30));
  return b;
}

std::string device_memory_text() {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return "free device memory unknown";
  }
  return bytes_text(free_b) + " free of " + bytes_text(total_b) + " on the device";
}

void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear a sticky launch error so later calls report their own
  std::string msg;
  const bool memory = e == cudaErrorMemoryAllocation;
  msg = memory ? "out of GPU memory: " : "CUDA error: ";
  msg += std::string(cudaGetErrorString(e)) + " [" + cudaGetErrorName(e) + "] in " + where(call, file, line);
  throw Error(ErrorCode::kRuntime, "", msg, memory ? Fault::kDeviceMemory : Fault::kDevice);
}

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA:
      return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY:
      return "CUFFT_MISSING_DEPENDENCY";
    default:
      return "CUFFT_ERROR";
  }
}

void throw_cufft_error(cufftResult r, const char* call, const char* file, int line) {
  const bool memory = r == CUFFT_ALLOC_FAILED;
  std::string msg = memory ? "out of GPU memory: " : "cuFFT error: ";
  msg += std::string(cufft_result_name(r)) + " in " + where(call, file, line);
  throw Error(ErrorCode::kRuntime, "", msg, memory ? Fault::kDeviceMemory : Fault::kDevice);
}

// ---- RAII ----------------------------------------------------------------------------------------

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw Error(ErrorCode::kRuntime, "",
                "out of GPU memory: a buffer of " + bytes_text(bytes) + " does not fit (" + device_memory_text() + ")",
                Fault::kDeviceMemory);
  }
  if (e != cudaSuccess) throw_cuda_error(e, "cudaMalloc", __FILE__, __LINE__);
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

PinnedBuffer::PinnedBuffer(std::size_t bytes, unsigned flags) : bytes_(bytes) {
  if (bytes > 0) DCT_CUDA_CHECK(cudaHostAlloc(&ptr_, bytes, flags));
}
PinnedBuffer::~PinnedBuffer() {
  if (ptr_ != nullptr) cudaFreeHost(ptr_);
}
PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

CudaStream::CudaStream() { DCT_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamDefault)); }
CudaStream::~CudaStream() {
  if (s_ != nullptr) cudaStreamDestroy(s_);
}
CudaStream& CudaStream::operator=(CudaStream&& o) noexcept {
  if (this != &o) {
    if (s_ != nullptr) cudaStreamDestroy(s_);
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

CudaEvent::CudaEvent() { DCT_CUDA_CHECK(cudaEventCreate(&e_)); }
CudaEvent::~CudaEvent() {
  if (e_ != nullptr) cudaEventDestroy(e_);
}
CudaEvent& CudaEvent::operator=(CudaEvent&& o) noexcept {
  if (this != &o) {
    if (e_ != nullptr) cudaEventDestroy(e_);
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}
void CudaEvent::record(cudaStream_t s) const { DCT_CUDA_CHECK(cudaEventRecord(e_, s)); }
float CudaEvent::since(const CudaEvent& start) const {
  DCT_CUDA_CHECK(cudaEventSynchronize(e_));
  float ms = 0;
  DCT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
  return ms;
}

cudaLaunchConfig_t dependent_config(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                                    cudaLaunchAttribute* attr) {
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

void launch_dependent(const void* fn, dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, void** args) {
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = dependent_config(grid, block, smem, stream, attr);
  DCT_CUDA_CHECK(cudaLaunchKernelExC(&cfg, fn, args));
}

CufftPlan::CufftPlan() {
  DCT_CUFFT_CHECK(cufftCreate(&h_));
  valid_ = true;
}
CufftPlan::~CufftPlan() {
  if (valid_) cufftDestroy(h_);
}
CufftPlan& CufftPlan::operator=(CufftPlan&& o) noexcept {
  if (this != &o) {
    if (valid_) cufftDestroy(h_);
    h_ = std::exchange(o.h_, 0);
    valid_ = std::exchange(o.valid_, false);
  }
  return *this;
}

DeviceInfo query_device(int ordinal) {
  cudaDeviceProp p{};
  DCT_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  DeviceInfo d;
  d.name = p.name;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.global_bytes = p.totalGlobalMem;
  d.sm_count = p.multiProcessorCount;
  d.major = p.major;
  d.minor = p.minor;
  return d;
}

int current_sm_count() {
  int dev = 0, sms = 0;
  DCT_CUDA_CHECK(cudaGetDevice(&dev));
  DCT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return std::max(sms, 1);
}

}  // namespace dct::cuda
