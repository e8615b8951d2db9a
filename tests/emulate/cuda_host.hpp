#pragma once
// Host stand-ins for the CUDA built-ins the kernels use, shared by the host emulators (tests/emulate/emulate_*.cpp),
// which compile a kernel header as plain C++ and run each CTA as one std::thread per CUDA thread:
//   - vector types with CUDA's alignment, threadIdx (per thread) / blockIdx / blockDim;
//   - __syncthreads as a std::barrier of the CTA's threads (g_barrier, set by emu_run_cta);
//   - __syncwarp as a std::barrier of the thread's warp (32 threads, fewer in a partial last warp; g_warp_barriers,
//     set by emu_run_cta);
//   - __shfl_xor_sync through an exchange array between two barriers (every thread of the CTA calls the
//     shuffles the same number of times, as the kernels do; lane ^ mask stays in the warp for mask < 32);
//   - __umulhi; __ldg and the qualifiers as no-ops. __shared__ is left to each emulator (static or plain).
// Include it before the kernel header (tests/emulate/include/cuda_runtime.h forwards here, for headers that include
// <cuda_runtime.h>).
#include <algorithm>
#include <barrier>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) double2 {
  double x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }

struct Dim {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local Dim threadIdx;
inline Dim blockIdx, blockDim, gridDim;

inline std::barrier<>* g_barrier = nullptr;
inline void __syncthreads() { g_barrier->arrive_and_wait(); }
inline std::vector<std::unique_ptr<std::barrier<>>>* g_warp_barriers = nullptr;
inline void __syncwarp() { (*g_warp_barriers)[threadIdx.x / 32]->arrive_and_wait(); }

alignas(16) inline unsigned char g_xchg[1024][16];
template <class V>
V __shfl_xor_sync(unsigned, V v, int mask) {
  assert(mask > 0 && mask < 32);
  std::memcpy(g_xchg[threadIdx.x], &v, sizeof v);
  __syncthreads();
  V r;
  std::memcpy(&r, g_xchg[threadIdx.x ^ static_cast<unsigned>(mask)], sizeof r);
  __syncthreads();
  return r;
}

inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}

template <class V>
V __ldg(const V* p) {
  return *p;
}

#define __global__
#define __launch_bounds__(...)
#define __grid_constant__
#define __device__
#define __host__
#define __forceinline__ inline
#define __align__(x)
#define __restrict__

// One CTA of `threads` threads: body(t) on thread t (threadIdx = {t, 0, 0}), __syncthreads across them.
// blockIdx and the CTA's shared memory are the caller's to set before.
template <class F>
void emu_run_cta(unsigned threads, F&& body) {
  std::barrier<> bar(threads);
  g_barrier = &bar;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  for (unsigned w0 = 0; w0 < threads; w0 += 32)
    warps.push_back(std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(std::min(32u, threads - w0))));
  g_warp_barriers = &warps;
  std::vector<std::thread> cta;
  cta.reserve(threads);
  for (unsigned t = 0; t < threads; ++t)
    cta.emplace_back([&body, t] {
      threadIdx = {t, 0, 0};
      body(t);
    });
  for (auto& th : cta) th.join();
}
