// race_canary: a kernel with a deliberate shared-memory race (each thread of two warps writes one word, then reads a
// word of the other warp without a barrier). scripts/gpu-check.sh's sanitize phase runs it under racecheck first and
// requires a hazard: the positive control of the tests' clean racecheck lines.
#include <cuda_runtime.h>

#include <cstdio>

namespace dct::cuda {
__global__ void race_canary(int* out) {
  __shared__ int words[64];
  volatile int* w = words;  // every access goes to shared memory
  w[threadIdx.x] = static_cast<int>(threadIdx.x);
  out[threadIdx.x] = w[(threadIdx.x + 32) % 64];  // the other warp's word, with no barrier in between
}
}  // namespace dct::cuda

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) return 1;
  dct::cuda::race_canary<<<1, 64>>>(out);
  const cudaError_t e = cudaDeviceSynchronize();
  cudaFree(out);
  std::printf("race_canary: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
