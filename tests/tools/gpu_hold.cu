// gpu_hold FREE_MIB: takes device 0's memory until about FREE_MIB MiB are left free, prints "held H MiB, free F MiB",
// then holds it until its standard input closes. The GPU check (scripts/gpu-check.sh, phase faults) runs a batch
// beside it to see dctool fall back to the CPU when an input does not fit the device memory that is left.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpu_hold FREE_MIB\n");
    return 2;
  }
  const std::size_t leave = std::strtoull(argv[1], nullptr, 10) << 20;
  std::vector<void*> held;
  std::size_t total_held = 0;
  for (std::size_t chunk = std::size_t{1} << 30; chunk >= (std::size_t{1} << 20);) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 1;
    if (free_b < leave + chunk) {
      chunk /= 2;
      continue;
    }
    void* p = nullptr;
    if (cudaMalloc(&p, chunk) != cudaSuccess) {
      cudaGetLastError();
      chunk /= 2;
      continue;
    }
    held.push_back(p);
    total_held += chunk;
  }
  std::size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  std::printf("held %zu MiB, free %zu MiB\n", total_held >> 20, free_b >> 20);
  std::fflush(stdout);
  while (std::getchar() != EOF) {
  }
  for (void* p : held) cudaFree(p);
  return 0;
}
