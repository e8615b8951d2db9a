#pragma once
/* Device side of the 8x8 family: the Feig-Linzer multiply-add 8-point kernel K and its transpose K^T
   (math/block8.hpp; derivation: cpu/block8_flmad.cpp; [7], [4] §3.2.4 eqs. 3.15-3.18), on 8 values in registers,
   and the scale tables (C = diag(D)·K, so a 2-D block is S ∘ (K X K^T) with S[i][j] = D_i D_j). */
#include <cuda_runtime.h>

#include "core/types.hpp"
#include "math/block8.hpp"

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

// The Feig-Linzer graphs of math/block8.hpp (the one copy, shared with the CPU backends) on 8 values in registers.
template <class T>
__device__ __forceinline__ math::block8::Consts4<T> fl_consts() {
  return {T(math::block8::kFlT1), T(math::block8::kFlT2), T(math::block8::kFlT3), T(math::block8::kFlR)};
}
template <class T>
__device__ __forceinline__ void fl_forward(T (&v)[8]) {
  math::block8::fl_forward(v, fl_consts<T>());
}
template <class T>
__device__ __forceinline__ void fl_inverse(T (&v)[8]) {
  math::block8::fl_inverse(v, fl_consts<T>());
}

// Shared-memory tile of 8 rows x kTileCols columns; column c of row r at r*kStride + c + c/32 (the pad
// makes both the column pass (lane = column) and the row pass (lane = block, stride 8) conflict-free).
constexpr int kTileCols = 256;
constexpr int kThreads = 256;
constexpr int kStride = kTileCols + kTileCols / 32;
__device__ __forceinline__ int tile_index(int r, int c) { return r * kStride + c + (c >> 5); }

}  // namespace dct::cuda::block8
