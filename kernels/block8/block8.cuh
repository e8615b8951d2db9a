#pragma once
/* Device side of the 8x8 family: the Feig-Linzer multiply-add 8-point kernel K and its transpose K^T
   (derivation: cpu/block8_flmad.cpp; [7], [4] §3.2.4 eqs. 3.15-3.18), on 8 values in registers, and the
   scale tables (C = diag(D)·K, so a 2-D block is S ∘ (K X K^T) with S[i][j] = D_i D_j). */
#include <cuda_runtime.h>

#include "core/types.hpp"

namespace dct::cuda::block8 {

// 64-entry tables passed by value as kernel parameters.
template <class T>
struct Table64 {
  T v[64];
};
template <class T>
struct Table8 {
  T v[8];
};

// S[i][j] for op dct2 (forward) or idct2 (inverse) in `norm` (cpu::block8 flmad scales, `none` folded in).
template <class T>
Table64<T> scale_table(core::Op op, core::Norm norm);

template <class T>
__device__ __forceinline__ void fl_forward(T (&v)[8]) {
  const T t1 = T(0.19891236737965800691), t2 = T(0.41421356237309504880), t3 = T(0.66817863791929891999);
  const T r = T(1.1795804271032746);  // cos(π/16) / cos(3π/16)
  const T s0 = v[0] + v[7], s1 = v[1] + v[6], s2 = v[2] + v[5], s3 = v[3] + v[4];
  const T d0 = v[0] - v[7], d1 = v[1] - v[6], d2 = v[2] - v[5], d3 = v[3] - v[4];
  const T e0 = s0 + s3, e2 = s0 - s3, e1 = s1 + s2, e3 = s1 - s2;
  const T u4 = d3 + t3 * d0, u7 = d0 - t3 * d3, u5 = d2 + t1 * d1, u6 = d1 - t1 * d2;
  const T v4 = u4 + r * u6, v6 = u4 - r * u6, v7 = u7 + r * u5, v5 = u7 - r * u5;
  v[0] = e0 + e1;
  v[1] = v7 + v4;
  v[2] = e2 + t2 * e3;
  v[3] = v5;
  v[4] = e0 - e1;
  v[5] = v6;
  v[6] = t2 * e2 - e3;
  v[7] = v7 - v4;
}

template <class T>
__device__ __forceinline__ void fl_inverse(T (&v)[8]) {
  const T t1 = T(0.19891236737965800691), t2 = T(0.41421356237309504880), t3 = T(0.66817863791929891999);
  const T r = T(1.1795804271032746);
  const T v7 = v[1] + v[7], v4 = v[1] - v[7];
  const T u4 = v4 + v[5], u6 = r * (v4 - v[5]), u7 = v7 + v[3], u5 = r * (v7 - v[3]);
  const T d0 = t3 * u4 + u7, d3 = u4 - t3 * u7, d1 = t1 * u5 + u6, d2 = u5 - t1 * u6;
  const T e0 = v[0] + v[4], e1 = v[0] - v[4], e2 = v[2] + t2 * v[6], e3 = t2 * v[2] - v[6];
  const T s0 = e0 + e2, s3 = e0 - e2, s1 = e1 + e3, s2 = e1 - e3;
  v[0] = s0 + d0;
  v[1] = s1 + d1;
  v[2] = s2 + d2;
  v[3] = s3 + d3;
  v[4] = s3 - d3;
  v[5] = s2 - d2;
  v[6] = s1 - d1;
  v[7] = s0 - d0;
}

// Shared-memory tile of 8 rows x kTileCols columns; column c of row r at r*kStride + c + c/32 (the pad
// makes both the column pass (lane = column) and the row pass (lane = block, stride 8) conflict-free).
constexpr int kTileCols = 256;
constexpr int kThreads = 256;
constexpr int kStride = kTileCols + kTileCols / 32;
__device__ __forceinline__ int tile_index(int r, int c) { return r * kStride + c + (c >> 5); }

}  // namespace dct::cuda::block8
