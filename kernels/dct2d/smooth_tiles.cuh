#pragma once
/* 2-D DCT-II / DCT-III of a batch of small matrices, one CTA per matrix held whole in shared memory: one read and one
   write of the data, where the separable smooth route (kernels/dct2d/smooth.cuh, rows pass then columns pass) reads and
   writes it twice and the r2c route three times plus cuFFT's passes. The matrix sides are any smooth lengths (prime
   factors 2..13) whose buffers fit the CTA (tile_config()).

   The line math is smooth.cuh's, applied along both axes inside the CTA (W = row length, H = column length):
     forward  rows: z_p(inv_nat(c)) = x(2p, c) + i x(2p+1, c)  (p < ceil(H/2)),  Z_p = FFT_W(z_p),
                    U(r, k) = fs_W[k] Re(tw_W[k] V_r(k))   (post(): V of row 2p / 2p+1 from Z_p(k), Z_p(W−k))
              cols: w_q(inv_nat(r)) = U(r, 2q) + i U(r, 2q+1)  (q < ceil(W/2); written by the row post directly),
                    Y(k1, c) = fs_H[k1] Re(tw_H[k1] V_c(k1))   (the store)
     inverse  the same backwards: the column pre (pre(), conj(V_a + i V_b) as in smooth.cuh) from the raw input, the
              conjugated FFT_H, U(r, c) from its real / −imaginary parts, the row pre, FFT_W, x from the parts.
   A DST axis (mask bit kFlipAxis0: DST along the columns, kFlipAxis1: along the rows) is its DCT with the input
   signs alternated and the output reversed (DST-II(x)_k = DCT-II((−1)^n x_n)_{N−1−k}; DST-III the transpose): the
   signs and the reversal are folded into the loads and stores (math/dct2d.hpp flip_sign / flip_row /
   flip_col).
   Shared memory: two padded buffers (smooth.cuh's pad()) of max(ceil(H/2)·W, ceil(W/2)·H) complex elements; the FFTs
   ping-pong between them, the row post writes the column layout into the buffer the row FFT's result is not in.

   Plain CUDA C++ with no host-runtime dependencies: tests/emulate/emulate_smooth.cpp compiles it on the host. */

#include <algorithm>

#include "kernels/dct2d/smooth.cuh"

namespace dct::cuda::smooth {

// One axis of the tile transform: its length, FFT passes, FFT twiddles and axis tables (gain 2, AxisTableBuffers).
template <class T>
struct TileAxis {
  using C = typename Cx<T>::type;
  const C* fft_tw = nullptr;
  const C* tw = nullptr;
  const T* fs = nullptr;
  const T* ia = nullptr;
  const Pass* passes = nullptr;
  int n = 1, npass = 0;
};

// One launch: `tiles` matrices of cols.n rows x rows.n columns, contiguous; rows: the transform along each row (length
// W), cols: down each column (length H); dst: kFlipAxis0 / kFlipAxis1 mask of DST axes.
template <class T>
struct TileArgs {
  const T* in = nullptr;
  T* out = nullptr;
  TileAxis<T> rows, cols;
  FastDiv dw, dh;  // W, H
  unsigned dst = 0;
};

// In place is allowed (in == out): a CTA reads its whole matrix before it writes any of it. LW, LH: the row and column
// lengths with their FFTs (detail::RtLen at run time, detail::CtLen compiled), as smooth_body's L.
template <class T, bool kInverse, class LW, class LH>
__device__ __forceinline__ void tiles_body(const TileArgs<T>& a, const LW lw, const LH lh) {
  using namespace detail;
  using C = typename Cx<T>::type;
  const int w = lw.len(), h = lh.len(), hw = h * w, pr = (h + 1) / 2, pc = (w + 1) / 2;
  const int tid = static_cast<int>(threadIdx.x), nth = lw.threads();
  const int most = pr * w > pc * h ? pr * w : pc * h;
  C* const buf0 = reinterpret_cast<C*>(smooth_smem);
  C* const buf1 = buf0 + padded<C>(most);
  const long long base = static_cast<long long>(blockIdx.x) * hw;
  const T* const in = a.in + base;
  T* const out = a.out + base;
  const Tabs<T, C> rt{a.rows.tw, a.rows.fs, a.rows.ia}, ct{a.cols.tw, a.cols.fs, a.cols.ia};
  const auto row_of = [&](int e) { return lw.div(e); };
  const auto part = [](C* b, int i, int p) -> T& { return reinterpret_cast<T*>(b + pad<C>(i))[p]; };
  const auto sign = [&](int r, int c) { return dct2d::flip_sign(a.dst, r, c); };
  const auto fft_rows = [&](C* b0, C* b1) { return lw.template run_fft<C>(a.rows.fft_tw, b0, b1, pr); };
  const auto fft_cols = [&](C* b0, C* b1) { return lh.template run_fft<C>(a.cols.fft_tw, b0, b1, pc); };
  constexpr int kU = sizeof(T) == 4 ? 8 : 4;  // global loads in flight per thread before their shared stores

  if constexpr (!kInverse) {
    load_staged<kU>(in, hw, tid, nth, [&](int e, T v) {
      const int r = row_of(e), c = e - r * w;
      part(buf0, (r >> 1) * w + inv_nat(c, w), r & 1) = sign(r, c) ? -v : v;
    });
    if (h & 1)
      for (int m = tid; m < w; m += nth) part(buf0, (h >> 1) * w + m, 1) = T(0);
    __syncthreads();
    C* const z = fft_rows(buf0, buf1);
    C* const u = z == buf0 ? buf1 : buf0;
    for (int e = tid; e < hw; e += nth) {
      const int r = row_of(e), k = e - r * w;
      part(u, (k >> 1) * h + inv_nat(r, h), k & 1) = post(z, (r >> 1) * w, k, w, r & 1, rt);
    }
    if (w & 1)
      for (int m = tid; m < h; m += nth) part(u, (w >> 1) * h + m, 1) = T(0);
    __syncthreads();
    const C* const y = fft_cols(u, z);
    for (int e = tid; e < hw; e += nth) {
      const int k1 = row_of(e), c = e - k1 * w;
      out[dct2d::flip_row(k1, h, a.dst) * w + dct2d::flip_col(c, w, a.dst)] = post(y, (c >> 1) * h, k1, h, c & 1, ct);
    }
  } else {
    T* const yr = reinterpret_cast<T*>(buf1);  // the raw input, row-major (H·W reals fit a buffer)
    load_staged<kU>(in, hw, tid, nth, [&](int e, T v) {
      const int r = row_of(e), c = e - r * w;
      yr[dct2d::flip_row(r, h, a.dst) * w + dct2d::flip_col(c, w, a.dst)] = v;
    });
    __syncthreads();
    // Column pre, column pair q at k1: conj(V_2q + i V_2q+1).
    for (int e = tid; e < pc * h; e += nth) {
      const int k1 = e / pc, q = e - k1 * pc, km = k1 == 0 ? 0 : h - k1;
      const T* const col = yr + 2 * q;
      const C va = pre<T, C>(col[k1 * w], k1 == 0 ? T(0) : col[km * w], k1, h, ct);
      C vb{T(0), T(0)};
      if (2 * q + 1 < w) vb = pre<T, C>(col[k1 * w + 1], k1 == 0 ? T(0) : col[km * w + 1], k1, h, ct);
      buf0[pad<C>(q * h + k1)] = C{va.x - vb.y, -(va.y + vb.x)};
    }
    __syncthreads();
    C* const z = fft_cols(buf0, buf1);
    C* const other = z == buf0 ? buf1 : buf0;
    T* const ur = reinterpret_cast<T*>(other);  // U row-major
    for (int e = tid; e < hw; e += nth) {
      const int r = row_of(e), c = e - r * w;
      const C v = z[pad<C>((c >> 1) * h + inv_nat(r, h))];
      ur[e] = (c & 1) ? -v.y : v.x;
    }
    __syncthreads();
    // Row pre, row pair p at k.
    for (int e = tid; e < pr * w; e += nth) {
      const int p = row_of(e), k = e - p * w, km = k == 0 ? 0 : w - k;
      const T* const row = ur + 2 * p * w;
      const C va = pre<T, C>(row[k], k == 0 ? T(0) : row[km], k, w, rt);
      C vb{T(0), T(0)};
      if (2 * p + 1 < h) vb = pre<T, C>(row[w + k], k == 0 ? T(0) : row[w + km], k, w, rt);
      z[pad<C>(e)] = C{va.x - vb.y, -(va.y + vb.x)};
    }
    __syncthreads();
    const C* const x = fft_rows(z, other);
    for (int e = tid; e < hw; e += nth) {
      const int r = row_of(e), c = e - r * w;
      const C v = x[pad<C>((r >> 1) * w + inv_nat(c, w))];
      const T s = (r & 1) ? -v.y : v.x;
      out[e] = sign(r, c) ? -s : s;
    }
  }
}

template <class T, bool kInverse>
__global__ void __launch_bounds__(1024) smooth_tiles(const TileArgs<T> a) {
  tiles_body<T, kInverse>(a, detail::RtLen{a.rows.n, a.dw, a.rows.passes, a.rows.npass},
                          detail::RtLen{a.cols.n, a.dh, a.cols.passes, a.cols.npass});
}

// The same kernel for H x W known at compile time (CompiledTiles), NT = tile_threads(H, W) threads: every index a
// constant or a multiply-shift and every loop of fixed count (the run-time kernel is bound by its integer work).
template <class T, bool kInverse, int H, int W, int NT>
__global__ void __launch_bounds__(NT) smooth_tiles_ct(const TileArgs<T> a) {
  tiles_body<T, kInverse>(a, detail::CtLen<W, (H + 1) / 2, NT>{}, detail::CtLen<H, (W + 1) / 2, NT>{});
}

// ---- Host side -----------------------------------------------------------------------------------------------------

// Launch shape: threads (a radix-8 butterfly each of the larger FFT stage, 64 .. 1024) and dynamic shared memory;
// threads = 0 when the sides are not smooth or the buffers do not fit one CTA.
struct TileConfig {
  int threads = 0, smem_bytes = 0;
};
constexpr long long tile_points(long long h, long long w) {
  return (h + 1) / 2 * w > (w + 1) / 2 * h ? (h + 1) / 2 * w : (w + 1) / 2 * h;
}
constexpr int tile_threads(long long h, long long w) {
  const long long th = (tile_points(h, w) / 8 + 31) / 32 * 32;
  return static_cast<int>(th < 64 ? 64 : th > 1024 ? 1024 : th);
}
template <class T>
TileConfig tile_config(long long h, long long w) {
  TileConfig t;
  unsigned char radix[kMaxPasses];
  int np = 0;
  if (h < 1 || w < 1 || !factor(h, radix, np) || !factor(w, radix, np)) return t;
  const long long smem = smem_bytes<T>(1, tile_points(h, w));
  if (smem > kMaxSmem) return t;
  t.threads = tile_threads(h, w);
  t.smem_bytes = static_cast<int>(smem);
  return t;
}

// ---- Matrix shapes compiled ahead (smooth_tiles_ct) -------------------------------------------------------------

// Square tiles of the common batch shapes (the blocks and patches of images; docs/decisions.md §10). Every other
// shape that fits takes smooth_tiles.
using CompiledTiles = std::integer_sequence<int, 8, 16, 32, 64, 128>;

// Calls f(kernel) with smooth_tiles_ct for h x w (a pointer); false if there is none (or the matrix does not fit T's
// CTA).
template <class T, bool kInverse, class F, int... Ns>
bool with_compiled_tile_in(long long h, long long w, F&& f, std::integer_sequence<int, Ns...>) {
  const auto one = [&]<int N>(std::integral_constant<int, N>) {
    if constexpr (smem_bytes<T>(1, tile_points(N, N)) <= kMaxSmem) {
      if (h != N || w != N) return false;
      f(&smooth_tiles_ct<T, kInverse, N, N, tile_threads(N, N)>);
      return true;
    } else {
      return false;
    }
  };
  return (one(std::integral_constant<int, Ns>{}) || ...);
}
template <class T, bool kInverse, class F>
bool with_compiled_tile(long long h, long long w, F&& f) {
  return with_compiled_tile_in<T, kInverse>(h, w, f, CompiledTiles{});
}

}  // namespace dct::cuda::smooth
