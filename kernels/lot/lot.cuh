#pragma once
// The device code of cuda-lot (kernels/lot/lot.cu derives it): the constants, the per-block flowgraph pieces and the
// forward and inverse kernels. Included by lot.cu and, compiled as host C++, by tests/emulate/emulate_lot.cpp.
#include <array>
#include <cmath>
#include <cstdint>

#include "kernels/block8/block8.cuh"
#include "math/block8.hpp"
#include "math/lot.hpp"

namespace dct::cuda {

template <class T>
struct LotConsts {
  T dh[8];  // Feig-Linzer D / 2
  T c[3], s[3];
};

template <class T>
LotConsts<T> lot_consts() {
  const double pi = std::acos(-1.0);
  const std::array<double, 8> d = math::block8::fl_scale();
  LotConsts<T> k{};
  for (int i = 0; i < 8; ++i) k.dh[i] = static_cast<T>(d[i] / 2);
  for (int i = 0; i < 3; ++i) {
    k.c[i] = static_cast<T>(std::cos(math::lot::kTheta[i] * pi));
    k.s[i] = static_cast<T>(std::sin(math::lot::kTheta[i] * pi));
  }
  return k;
}

// CTA shape: 32 x 8 threads, one 8x8 block each; 31 x 7 of them produce output (the rest are the halo).
constexpr int kCtaX = 32, kCtaY = 8, kThreads = kCtaX * kCtaY;
constexpr int kStepX = kCtaX - 1, kStepY = kCtaY - 1;

// 16-byte vectors: global loads / stores of block rows and the shared-memory slots.
template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

// Published halves go through shared memory in rounds of kLines rows (or columns) x 4 values: 32 KiB.
template <class T>
struct Pub {
  using V = typename Vec16<T>::type;
  static constexpr int kLines = sizeof(T) == 4 ? 8 : 4;
  static constexpr int kSlots = kLines * 4 * static_cast<int>(sizeof(T)) / 16;  // 16-byte slots per thread
};

// One 8-value block row from / to global memory (16-byte aligned).
__device__ __forceinline__ void load8(const float* p, float (&v)[8]) {
  const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
  v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}
__device__ __forceinline__ void load8(const double* p, double (&v)[8]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const double2 a = reinterpret_cast<const double2*>(p)[i];
    v[2 * i] = a.x, v[2 * i + 1] = a.y;
  }
}
__device__ __forceinline__ void store8(float* p, const float (&v)[8]) {
  reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
  reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
}
__device__ __forceinline__ void store8(double* p, const double (&v)[8]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) reinterpret_cast<double2*>(p)[i] = make_double2(v[2 * i], v[2 * i + 1]);
}

// The 8x8 block at row y, column x of the matrix at base (row stride `stride`, 16-byte aligned rows) when
// `inside`, else zeros.
template <class T>
__device__ __forceinline__ void load_block(T (&v)[8][8], const T* base, int y, int x, int stride, bool inside) {
  if (inside) {
    const T* src = base + static_cast<std::int64_t>(y) * stride + x;
#pragma unroll
    for (int r = 0; r < 8; ++r) load8(src + static_cast<std::int64_t>(r) * stride, v[r]);
  } else {
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
      for (int c = 0; c < 8; ++c) v[r][c] = T(0);
  }
}

// Four values to / from publication slot group g (4 values = 1 float4 or 2 double2 slots) of thread t.
__device__ __forceinline__ void put4(float4 (*sh)[kThreads], int g, int t, float a, float b, float c, float d) {
  sh[g][t] = make_float4(a, b, c, d);
}
__device__ __forceinline__ void put4(double2 (*sh)[kThreads], int g, int t, double a, double b, double c, double d) {
  sh[2 * g][t] = make_double2(a, b);
  sh[2 * g + 1][t] = make_double2(c, d);
}
__device__ __forceinline__ void get4(const float4 (*sh)[kThreads], int g, int t, float (&v)[4]) {
  const float4 a = sh[g][t];
  v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
}
__device__ __forceinline__ void get4(const double2 (*sh)[kThreads], int g, int t, double (&v)[4]) {
  const double2 a = sh[2 * g][t], b = sh[2 * g + 1][t];
  v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
}

// 8 samples -> (p0..p3, q0..q3).
template <class T>
__device__ __forceinline__ void to_pq(T (&v)[8], const LotConsts<T>& k) {
  block8::fl_forward<T>(v);
  T e[4], o[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    e[i] = v[2 * i] * k.dh[2 * i];
    o[i] = v[2 * i + 1] * k.dh[2 * i + 1];
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    v[i] = e[i] - o[i];
    v[4 + i] = e[i] + o[i];
  }
}

// p of the lower block and q of the upper one -> the window's 8 coefficients.
template <class T>
__device__ __forceinline__ void window(const T (&p)[4], const T (&q)[4], T (&y)[8], const LotConsts<T>& k) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    y[i] = p[i] + q[i];
    y[4 + i] = p[i] - q[i];
  }
#pragma unroll
  for (int r = 0; r < 3; ++r) {
    const T u = y[4 + r], w = y[5 + r];
    y[4 + r] = k.c[r] * u - k.s[r] * w;
    y[5 + r] = k.s[r] * u + k.c[r] * w;
  }
}

// A window's 8 coefficients -> (A0..A3, B0..B3).
template <class T>
__device__ __forceinline__ void to_ab(T (&y)[8], const LotConsts<T>& k) {
#pragma unroll
  for (int r = 2; r >= 0; --r) {
    const T u = y[4 + r], w = y[5 + r];
    y[4 + r] = k.c[r] * u + k.s[r] * w;
    y[5 + r] = k.c[r] * w - k.s[r] * u;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const T t = y[i], b = y[4 + i];
    y[i] = t + b;
    y[4 + i] = t - b;
  }
}

// B of the block's own window and A of the next -> the block's 8 samples.
template <class T>
__device__ __forceinline__ void block_of(const T (&b)[4], const T (&a)[4], T (&x)[8], const LotConsts<T>& k) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    x[2 * i] = (b[i] + a[i]) * k.dh[2 * i];
    x[2 * i + 1] = (b[i] - a[i]) * k.dh[2 * i + 1];
  }
  block8::fl_inverse<T>(x);
}

// Forward: in h x w (data), out (h+8) x (w+8); blockIdx.z = matrix. Thread layout: see the header.
template <class T>
__global__ void __launch_bounds__(kThreads, sizeof(T) == 4 ? 2 : 1)
    lot_forward_kernel(const T* __restrict__ in, T* __restrict__ out, int h, int w, LotConsts<T> k) {
  using P = Pub<T>;
  __shared__ typename P::V sh[P::kSlots][kThreads];
  const int t = static_cast<int>(threadIdx.x), tx = t % kCtaX, ty = t / kCtaX;
  // This thread's data block and (the same indices) its coefficient window.
  const int bj = kStepY * static_cast<int>(blockIdx.y) - 1 + ty, bi = kStepX * static_cast<int>(blockIdx.x) - 1 + tx;
  const int ow = w + 8;
  in += static_cast<std::int64_t>(blockIdx.z) * h * w;
  out += static_cast<std::int64_t>(blockIdx.z) * (h + 8) * ow;
  T v[8][8];
  const bool inside = bj >= 0 && 8 * bj < h && bi >= 0 && 8 * bi < w;
  load_block(v, in, 8 * bj, 8 * bi, w, inside);
  // Rows: (p, q) per row; window(p of the left block, q of this one).
#pragma unroll
  for (int r = 0; r < 8; ++r) to_pq(v[r], k);
#pragma unroll
  for (int r0 = 0; r0 < 8; r0 += P::kLines) {
#pragma unroll
    for (int r = 0; r < P::kLines; ++r) put4(sh, r, t, v[r0 + r][0], v[r0 + r][1], v[r0 + r][2], v[r0 + r][3]);
    __syncthreads();
    if (tx > 0) {
#pragma unroll
      for (int r = 0; r < P::kLines; ++r) {
        T p[4], q[4];
        get4(sh, r, t - 1, p);
#pragma unroll
        for (int i = 0; i < 4; ++i) q[i] = v[r0 + r][4 + i];
        window(p, q, v[r0 + r], k);
      }
    }
    __syncthreads();
  }
  // Columns: (p, q) per column; window(p of the block above, q of this one).
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    T col[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) col[i] = v[i][c];
    to_pq(col, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i][c] = col[i];
  }
#pragma unroll
  for (int c0 = 0; c0 < 8; c0 += P::kLines) {
    if (c0 > 0) __syncthreads();
#pragma unroll
    for (int c = 0; c < P::kLines; ++c) put4(sh, c, t, v[0][c0 + c], v[1][c0 + c], v[2][c0 + c], v[3][c0 + c]);
    __syncthreads();
    if (tx > 0 && ty > 0) {
#pragma unroll
      for (int c = 0; c < P::kLines; ++c) {
        T p[4], q[4], y[8];
        get4(sh, c, t - kCtaX, p);
#pragma unroll
        for (int i = 0; i < 4; ++i) q[i] = v[4 + i][c0 + c];
        window(p, q, y, k);
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i][c0 + c] = y[i];
      }
    }
  }
  if (tx > 0 && ty > 0 && bj <= h / 8 && bi <= w / 8) {
    T* dst = out + static_cast<std::int64_t>(8 * bj) * ow + 8 * bi;
#pragma unroll
    for (int r = 0; r < 8; ++r) store8(dst + static_cast<std::int64_t>(r) * ow, v[r]);
  }
}

// Inverse: in (h+8) x (w+8) coefficients, out h x w; blockIdx.z = matrix. Thread layout: see the header.
template <class T>
__global__ void __launch_bounds__(kThreads, sizeof(T) == 4 ? 2 : 1)
    lot_inverse_kernel(const T* __restrict__ in, T* __restrict__ out, int h, int w, LotConsts<T> k) {
  using P = Pub<T>;
  __shared__ typename P::V sh[P::kSlots][kThreads];
  const int t = static_cast<int>(threadIdx.x), tx = t % kCtaX, ty = t / kCtaX;
  // This thread's coefficient window and (the same indices) its data block.
  const int m = kStepY * static_cast<int>(blockIdx.y) + ty, n = kStepX * static_cast<int>(blockIdx.x) + tx;
  const int iw = w + 8;
  in += static_cast<std::int64_t>(blockIdx.z) * (h + 8) * iw;
  out += static_cast<std::int64_t>(blockIdx.z) * h * w;
  T v[8][8];
  const bool inside = m <= h / 8 && n <= w / 8;
  load_block(v, in, 8 * m, 8 * n, iw, inside);
  // Columns: (A, B) per column; block_of(B of this window, A of the window below).
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    T col[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) col[i] = v[i][c];
    to_ab(col, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i][c] = col[i];
  }
#pragma unroll
  for (int c0 = 0; c0 < 8; c0 += P::kLines) {
#pragma unroll
    for (int c = 0; c < P::kLines; ++c) put4(sh, c, t, v[0][c0 + c], v[1][c0 + c], v[2][c0 + c], v[3][c0 + c]);
    __syncthreads();
    if (ty < kCtaY - 1) {
#pragma unroll
      for (int c = 0; c < P::kLines; ++c) {
        T a[4], b[4], x[8];
        get4(sh, c, t + kCtaX, a);
#pragma unroll
        for (int i = 0; i < 4; ++i) b[i] = v[4 + i][c0 + c];
        block_of(b, a, x, k);
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i][c0 + c] = x[i];
      }
    }
    __syncthreads();
  }
  // Rows: (A, B) per row; block_of(B of this window, A of the right one). The last warp (ty = 7) is halo
  // only: nobody reads what it would publish here, so it skips the work (warp-uniform).
  const bool live = ty < kCtaY - 1;
  if (live) {
#pragma unroll
    for (int r = 0; r < 8; ++r) to_ab(v[r], k);
  }
#pragma unroll
  for (int r0 = 0; r0 < 8; r0 += P::kLines) {
    if (r0 > 0) __syncthreads();
    if (live) {
#pragma unroll
      for (int r = 0; r < P::kLines; ++r) put4(sh, r, t, v[r0 + r][0], v[r0 + r][1], v[r0 + r][2], v[r0 + r][3]);
    }
    __syncthreads();
    if (live && tx < kCtaX - 1) {
#pragma unroll
      for (int r = 0; r < P::kLines; ++r) {
        T a[4], b[4];
        get4(sh, r, t + 1, a);
#pragma unroll
        for (int i = 0; i < 4; ++i) b[i] = v[r0 + r][4 + i];
        block_of(b, a, v[r0 + r], k);
      }
    }
  }
  if (live && tx < kCtaX - 1 && 8 * m < h && 8 * n < w) {
    T* dst = out + static_cast<std::int64_t>(8 * m) * w + 8 * n;
#pragma unroll
    for (int r = 0; r < 8; ++r) store8(dst + static_cast<std::int64_t>(r) * w, v[r]);
  }
}

}  // namespace dct::cuda
