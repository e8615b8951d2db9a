// race_canary: a kernel with a deliberate shared-memory race (every thread writes one word, then reads it back
// without a barrier). scripts/gpu-check.sh's sanitize phase runs it under racecheck first and requires a hazard: the
// positive control of the tests' clean racecheck lines.
#include <cuda_runtime.h>

#include <cstdio>

namespace dct::cuda {
__global__ void race_canary(int* out) {
  __shared__ int word;
  word = static_cast<int>(threadIdx.x);
  out[threadIdx.x] = word;
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
