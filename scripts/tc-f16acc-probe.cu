// How mma.sync m16n8k16 with f16 accumulator and result (".f16.f16.f16.f16") rounds, on this GPU: each row m of
// D = A·B + C is one probe (B all ones, so row m's result is c_m + the sum of row m of A); the expected values under
// round-to-nearest-even (RN), round-toward-zero (RZ) and per-step f16 accumulation are printed beside the result.
// Build: nvcc -O2 -arch=sm_90 -o tc-f16acc-probe scripts/tc-f16acc-probe.cu. Used to decide v6's step-4 set-up
// (kernels/compress/jpeg_fused_tc.cuh); not part of the build.
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>

__global__ void probe(const __half* a, const __half* b, const __half* c, __half* d) {
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  auto pk = [](__half lo, __half hi) {
    unsigned short l, h;
    std::memcpy(&l, &lo, 2);
    std::memcpy(&h, &hi, 2);
    return unsigned(l) | (unsigned(h) << 16);
  };
  auto at = [&](int m, int k) { return pk(a[m * 16 + k], a[m * 16 + k + 1]); };  // A row m, columns k, k + 1
  const unsigned a0 = at(g, 2 * t), a1 = at(g + 8, 2 * t), a2 = at(g, 2 * t + 8), a3 = at(g + 8, 2 * t + 8);
  const unsigned b0 = pk(b[(2 * t) * 8 + g], b[(2 * t + 1) * 8 + g]);
  const unsigned b1 = pk(b[(2 * t + 8) * 8 + g], b[(2 * t + 9) * 8 + g]);
  const unsigned c0 = pk(c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1]), c1 = pk(c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1]);
  unsigned d0, d1;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
               : "=r"(d0), "=r"(d1)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1));
  auto st = [&](int m, unsigned v) {
    unsigned short l = v & 0xffff, h = v >> 16;
    std::memcpy(&d[m * 8 + 2 * t], &l, 2);
    std::memcpy(&d[m * 8 + 2 * t + 1], &h, 2);
  };
  st(g, d0);
  st(g + 8, d1);
}

int main() {
  struct Case {
    const char* what;
    float c;
    float a[16];
  };
  // f16 ulp: 1 in [1024, 2048), 2 in [2048, 4096); the expected results are computed below.
  const Case cases[] = {
      {"1024 + 0.75", 1024, {0.75f}},
      {"1024 + 0.5 (tie)", 1024, {0.5f}},
      {"1025 + 0.5 (tie)", 1025, {0.5f}},
      {"1024 + 0.25", 1024, {0.25f}},
      {"-1024 - 0.75", -1024, {-0.75f}},
      {"1152 - 0.25", 1152, {-0.25f}},
      {"1152 - 0.75", 1152, {-0.75f}},
      {"1024 + 4 x 0.25 (f16 steps: 1024)", 1024, {0.25f, 0.25f, 0.25f, 0.25f}},
      {"1024 + 3 x 0.25", 1024, {0.25f, 0.25f, 0.25f}},
      {"0 + 16 x 64.25 (1028)", 0, {64.25f, 64.25f, 64.25f, 64.25f, 64.25f, 64.25f, 64.25f, 64.25f, 64.25f, 64.25f,
                                   64.25f, 64.25f, 64.25f, 64.25f, 64.25f, 64.25f}},
      {"0 + 0.1 + 1000 - 1000", 0, {0.0999755859375f, 1000.f, -1000.f}},
      {"3 x 0.3 (0.900)", 0, {0.300048828125f, 0.300048828125f, 0.300048828125f}},
      {"2048 + 1 (tie) + 0", 2048, {1.f}},
      {"2048 + 1.5", 2048, {1.5f}},
      {"1100 + 0.5 - 0.25 + 0.25 (tie)", 1100, {0.5f, -0.25f, 0.25f}},
      {"1100 + 0.5 + 0.25", 1100, {0.5f, 0.25f}},
  };
  const int n = sizeof cases / sizeof cases[0];
  __half ha[256], hb[128], hc[128], hd[128];
  for (int i = 0; i < 256; ++i) ha[i] = __float2half(0.f);
  for (int i = 0; i < 128; ++i) hb[i] = __float2half(1.f), hc[i] = __float2half(0.f);
  for (int m = 0; m < n && m < 16; ++m) {
    for (int k = 0; k < 16; ++k) ha[m * 16 + k] = __float2half(cases[m].a[k]);
    for (int j = 0; j < 8; ++j) hc[m * 8 + j] = __float2half(cases[m].c);
  }
  __half *da, *db, *dc, *dd;
  cudaMalloc(&da, sizeof ha), cudaMalloc(&db, sizeof hb), cudaMalloc(&dc, sizeof hc), cudaMalloc(&dd, sizeof hd);
  cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice), cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice);
  probe<<<1, 32>>>(da, db, dc, dd);
  if (cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("probe: CUDA error %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# %s: mma.sync m16n8k16 f16 accumulate\n%-36s %12s %12s %12s %s\n", prop.name, "case", "result", "RN",
              "RZ", "matches");
  int rn_all = 1, rz_all = 1;
  for (int m = 0; m < n && m < 16; ++m) {
    float r = __half2float(hd[m * 8]);
    bool same_cols = true;
    for (int j = 1; j < 8; ++j) same_cols &= __half2float(hd[m * 8 + j]) == r;
    double exact = cases[m].c;  // the exact sum (every case is exact in f32), rounded to f16 once
    for (float v : cases[m].a) exact += v;
    const float ern = __half2float(__float2half_rn(float(exact))), erz = __half2float(__float2half_rz(float(exact)));
    const bool rn = r == ern, rz = r == erz;
    rn_all &= rn, rz_all &= rz;
    std::printf("%-36s %12.6f %12.6f %12.6f %s%s%s\n", cases[m].what, r, ern, erz, rn ? "RN " : "",
                rz ? "RZ" : "", same_cols ? "" : " (columns differ!)");
  }
  std::printf("all RN: %s, all RZ: %s\n", rn_all ? "yes" : "no", rz_all ? "yes" : "no");
  return 0;
}
