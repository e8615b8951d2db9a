// v6's forward colour conversion on this GPU's tensor cores (kernels/compress/jpeg_fused_tc.cuh, ycc_h2: two mma.sync with
// f32 accumulation per plane, then one FFMA) against its integer definition, for all 2^24 colours: Y = ⌊(299 R + 587 G
// + 114 B + 500) / 1000⌋, Cb = min(255, 128 + ⌊(886 B − 299 R − 587 G + 886) / 1772⌋), Cr = min(255, 128 + ⌊(701 R
// − 587 G − 114 B + 701) / 1402⌋) (what run12-run14's dp2a form computed exactly; scripts/jpeg-emulate.sh ties both to
// the CPU's doubles). The kernel's derivation assumes the tensor core adds these integer products exactly in f32;
// this checks it where it runs. Prints the count of differing samples per plane (expected 0, 0, 0).
// Build: nvcc -O2 -std=c++20 --expt-relaxed-constexpr -arch=sm_90 -I. -o tc-ycc-probe scripts/tc-ycc-probe.cu
// (from the repo root). Not part of the build.
#include <cstdio>
#include <cuda_fp16.h>

#include "kernels/compress/jpeg_fused_tc.cuh"

namespace tc = dct::cuda::jpeg_fused::tc;

__global__ void probe(const tc::LaneSetup* ls, unsigned long long* bad) {
  const int lane = threadIdx.x & 31;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, c0 = warp * 128 + 4 * lane;
  unsigned w[3][4], word[3] = {0, 0, 0};
  for (int p = 0; p < 3; ++p)
    for (int i = 0; i < 4; ++i) w[p][i] = ls[lane].ycc[p][i];
  for (int k = 0; k < 4; ++k)
    for (int ch = 0; ch < 3; ++ch) word[ch] |= (((c0 + k) >> (16 - 8 * ch)) & 0xFFu) << (8 * k);
  unsigned out[3][2];
  tc::ycc_h2(word[0], word[1], word[2], w, out[0], out[1], out[2]);
  for (int k = 0; k < 4; ++k) {
    const int r = (c0 + k) >> 16, g = ((c0 + k) >> 8) & 255, b = (c0 + k) & 255;
    const int want[3] = {(299 * r + 587 * g + 114 * b + 500) / 1000,
                         min(255, (886 * b - 299 * r - 587 * g + 886 + 128 * 1772) / 1772),
                         min(255, (701 * r - 587 * g - 114 * b + 701 + 128 * 1402) / 1402)};
    for (int p = 0; p < 3; ++p) {
      const unsigned short hb = static_cast<unsigned short>(out[p][k >> 1] >> (16 * (k & 1)));
      const float got = __half2float(__ushort_as_half(hb)) - 1024.f;  // f16x2 of 1024 + the sample
      if (got != static_cast<float>(want[p])) atomicAdd(bad + p, 1ull);
    }
  }
}

int main() {
  float cp[64];
  tc::make_cprime(cp);
  dct::cuda::jpeg_fused::Table tab[2] = {};  // the quantizer part of the set-up is not used here
  tc::LaneSetup host[32];
  tc::make_lane_setup(cp, tab, host);
  tc::LaneSetup* ls = nullptr;
  unsigned long long* bad = nullptr;
  cudaMalloc(&ls, sizeof host);
  cudaMalloc(&bad, 3 * sizeof(unsigned long long));
  cudaMemcpy(ls, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(bad, 0, 3 * sizeof(unsigned long long));
  probe<<<(1 << 24) / 128 / 8, 256>>>(ls, bad);  // 8 warps per CTA, 128 colours per warp
  unsigned long long h[3];
  const cudaError_t e = cudaMemcpy(h, bad, sizeof h, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 2;
  }
  std::printf("2^24 colours on the tensor cores: Y %llu, Cb %llu, Cr %llu samples differ from the integer "
              "definition: %s\n", h[0], h[1], h[2], h[0] + h[1] + h[2] == 0 ? "ok" : "FAIL");
  return h[0] + h[1] + h[2] == 0 ? 0 : 1;
}
