// libgpu_fault.so: a real device fault in the middle of a dctool batch, for the GPU check (scripts/gpu-check.sh,
// phase faults). Preloaded (LD_PRELOAD) into dctool, it wraps cuFFT's execution functions (cuFFT is a shared library
// of dctool's, so the dynamic linker routes its calls here): the GPU_FAULT_AT-th call (default 3) first launches a
// kernel that executes a trap instruction, which leaves the CUDA context in a sticky error state, as a real device
// fault does; every call then goes on to cuFFT's own function. dctool is expected to fail the input in flight and to
// finish the batch off the GPU (README "GPU faults").
#include <cuda_runtime.h>
#include <cufft.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

__global__ void trap_kernel() { __trap(); }

std::atomic<long> g_calls{0};

void maybe_fault(const char* fn) {
  static const long at = [] {
    const char* e = std::getenv("GPU_FAULT_AT");
    return e != nullptr ? std::atol(e) : 3L;
  }();
  if (++g_calls != at) return;
  std::fprintf(stderr, "gpu_fault: call %ld (%s): launching a trapping kernel\n", at, fn);
  trap_kernel<<<1, 1>>>();
  cudaDeviceSynchronize();  // the fault is raised now; the context is unusable from here on
}

template <class F>
F real(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (p == nullptr) {
    std::fprintf(stderr, "gpu_fault: no %s after this library\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}

}  // namespace

#define DCT_WRAP(NAME, IN_T, OUT_T)                                                     \
  extern "C" cufftResult NAME(cufftHandle plan, IN_T* in, OUT_T* out) {                 \
    static const auto f = real<cufftResult (*)(cufftHandle, IN_T*, OUT_T*)>(#NAME);     \
    maybe_fault(#NAME);                                                                 \
    return f(plan, in, out);                                                            \
  }
#define DCT_WRAP_DIR(NAME, T)                                                           \
  extern "C" cufftResult NAME(cufftHandle plan, T* in, T* out, int direction) {         \
    static const auto f = real<cufftResult (*)(cufftHandle, T*, T*, int)>(#NAME);       \
    maybe_fault(#NAME);                                                                 \
    return f(plan, in, out, direction);                                                 \
  }

DCT_WRAP(cufftExecR2C, cufftReal, cufftComplex)
DCT_WRAP(cufftExecC2R, cufftComplex, cufftReal)
DCT_WRAP(cufftExecD2Z, cufftDoubleReal, cufftDoubleComplex)
DCT_WRAP(cufftExecZ2D, cufftDoubleComplex, cufftDoubleReal)
DCT_WRAP_DIR(cufftExecC2C, cufftComplex)
DCT_WRAP_DIR(cufftExecZ2Z, cufftDoubleComplex)
