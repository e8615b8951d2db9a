/* Pre- and post-processing kernels of the FFT-based DCT-II and its inverse ([1] Jiang, Gu, Pan,
 * §II-C, §II-D, §III; [5] Makhoul 1980; docs/algorithms.md §2).
 *
 * Notation: W_k = exp(-i pi k / 2N). Unnormalized DCT-II (norm none, FFTW REDFT10):
 *   Y(k) = 2 sum_n x(n) cos(pi k (2n+1) / 2N).
 *
 * 1-D, N-point (eqs. 9-11). Reorder v(n) = x(2n) for n <= (N-1)/2, v(n) = x(2N-2n-1) otherwise
 * (even samples ascending, odd samples descending). Then sum_n x(n) cos(pi k(2n+1)/2N) = Re(W_k V(k)),
 * V = FFT_N(v), so Y(k) = 2 Re(W_k V(k)). The real FFT stores V(0..N/2); for k > N/2 Hermitian
 * symmetry V(N-k) = conj V(k) gives, with c = W_k V(k):
 *   Y(k) = 2 Re(c),   Y(N-k) = 2 Re(W_{N-k} conj V(k)) = 2 Re(-i conj c) = -2 Im(c)      (eq. 11)
 * so one thread reads V(k) once and writes Y(k) and Y(N-k).
 * Inverse (DCT-III, scipy idct type 2): from the two lines above, c = (Y(k) - i Y(N-k)) / 2 with
 * Y(N) = 0, hence V(k) = conj(W_k) (Y(k) - i Y(N-k)) / 2, v = IFFT(V) (1/N), x = reorder^-1(v).
 * This V is Hermitian for any real Y, so a C2R of the half k = 0..N/2 is exact.
 *
 * 2-D (eqs. 13-18). Reorder both axes (eq. 13), V = RFFT2D (n1 x (n2/2+1) stored). Applying the 1-D
 * identity along axis 2 then axis 1 (Re is not linear over complex weights, so expand Re A =
 * (A + conj A)/2 before the axis-1 FFT, using FFT[conj A](k) = conj FFT[A](-k)):
 *   Y(k1,k2) = 4 sum sum x cos cos = 2 Re(s),  s = W2 (W1 V(k1,k2) + conj(W1) V(N1-k1, k2))  (eq. 14)
 * with the index N1-k1 taken modulo N1 (k1 = 0 reads V(0,k2) twice; the paper's "X(N1,.) = 0" reads
 * as a factor 2 at k1 = 0 that our tests pin down). Using W_{N-k} = -i conj(W_k) and
 * V(k1, N2-k2) = conj V(N1-k1, k2), with t = W2 (W1 V(k1,k2) - conj(W1) V(N1-k1,k2)):
 *   Y(k1,k2) = 2 Re s,  Y(N1-k1,k2) = -2 Im t,  Y(k1,N2-k2) = -2 Im s,  Y(N1-k1,N2-k2) = -2 Re t  (eq. 17)
 * One thread per (k1,k2), 0 <= k1 <= N1/2, 0 <= k2 <= N2/2, reads V(k1,k2) and V(N1-k1,k2) (both in
 * the stored half) and writes up to four outputs; outputs whose mirror coincides (k = 0, 2k = N) are
 * written once ([1]'s footnote 5: odd sizes fall out of the same index rules).
 * Inverse (eq. 15): compose the 1-D inverse along both axes (zero convention Y(N1,.) = Y(.,N2) = 0):
 *   V(k1,k2) = conj(W1 W2)/4 [ Y(k1,k2) - Y(N1-k1,N2-k2) - i (Y(k1,N2-k2) + Y(N1-k1,k2)) ]
 *   V(N1-k1,k2) = i W1 conj(W2)/4 [ Y(N1-k1,k2) - Y(k1,N2-k2) - i (Y(N1-k1,N2-k2) + Y(k1,k2)) ]
 * (conj W1_{N1-k1} = i W1): four reads, two complex writes per thread; C2R (1/(N1 N2)); reorder^-1
 * (eq. 16).
 *
 * Norms: the ortho output is f(k1) f(k2) times the unnormalized one, f(k) = sqrt(1/(2N)) c_k, so the
 * forward kernels multiply each output by per-axis table entries fs1[k1] fs2[k2] (fs includes the
 * constant 2 on one axis); the inverse kernels multiply each input by ia1[k1] ia2[k2], ia = g/(2N),
 * g = 1/f (ortho) or 1 (none), which also carries the 1/N of the inverse FFT and the 1/2 above.
 *
 * The other 1-D algorithms of Table IV (L*N-point FFTs), with X = RFFT_{LN}(x'):
 *   4N (eq. 3-4): x'(2n+1) = x'(4N-2n-1) = x(n), even samples 0:  X(k) = 2 sum x cos(.) = Y(k) (real).
 *     Inverse: X(k) = Y(k) (k<N), 0 (k=N), -Y(2N-k) (N<k<=2N), real and even; x(n) = x'(2n+1).
 *   mirrored 2N (eq. 5-6): x' = [x, reverse x]:  X(k) = conj(W_k) Y(k), Y(k) = Re(W_k X(k)).
 *     Inverse: X(k) = conj(W_k) Y(k), X(N) = 0; C2R of 2N; x = first N samples.
 *   padded 2N (eq. 7-8): x' = [x, 0]:  Y(k) = 2 Re(W_k X(k)).
 *     Inverse (no Hermitian structure): z = IFFT_2N(Z), Z(k) = w_k conj(W_k) Y(k) (k<N, w_0 = 1,
 *     w_k = 2), Z = 0 above; x(n) = Re z(n) / (2N) (a C2C inverse).
 */
#include "kernels/dct2d/prepost.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>

#include "kernels/common/cuda_util.cuh"
#include "math/dct2d.hpp"

namespace dct::cuda {
namespace {

namespace cg = cooperative_groups;
using i64 = std::int64_t;

template <class C>
__device__ __forceinline__ C cmul(C a, C b) {
  return C{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
// conj(a) * b
template <class C>
__device__ __forceinline__ C cmulc(C a, C b) {
  return C{a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x};
}

// Block of 256 threads shaped to the contiguous extent `width`; grid.y/z capped (kernels stride).
struct Launch {
  dim3 grid, block;
};
constexpr int kUnroll = 4;  // rows per thread, loads issued before stores (bytes in flight)
Launch shape_launch(i64 width, i64 height, i64 depth, int unroll = 1) {
  height = (height + unroll - 1) / unroll;
  unsigned bx = 1;
  while (bx < 256 && static_cast<i64>(bx) < width) bx *= 2;
  const unsigned by = 256 / bx;
  Launch l;
  l.block = dim3(bx, by, 1);
  l.grid = dim3(static_cast<unsigned>((width + bx - 1) / bx),
                static_cast<unsigned>(std::min<i64>((height + by - 1) / by, 65535)),
                static_cast<unsigned>(std::min<i64>(std::max<i64>(depth, 1), 65535)));
  if (l.grid.y == 0) l.grid.y = 1;
  return l;
}

__device__ __forceinline__ i64 reorder_row(i64 m, i64 n) { return (m & 1) ? n - ((m + 1) >> 1) : (m >> 1); }

// ---- reorder (eqs. 9, 13, 16) ----------------------------------------------------------------------
// One thread per pair of natural-order columns (2p, 2p+1) of one row: coalesced on both sides (the odd
// sample goes to column n2-1-p, reversed but contiguous across the warp). kVec: n2 even, pair loaded /
// stored as one 8- or 16-byte vector.
template <class T, bool kPermRows, bool kPermCols, bool kVec>
__global__ void reorder_scatter_kernel(const T* __restrict__ in, T* __restrict__ out, i64 n1, i64 n2, i64 batch,
                                       i64 in_mat, i64 out_mat, unsigned sign) {
  const i64 p = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= ((n2 + 1) >> 1)) return;
  const bool odd_ok = 2 * p + 1 < n2;
  const i64 pe = kPermCols ? p : 2 * p;
  const i64 po = kPermCols ? n2 - 1 - p : 2 * p + 1;
  const i64 sy = static_cast<i64>(gridDim.y) * blockDim.y;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    for (i64 m0 = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; m0 < n1; m0 += kUnroll * sy) {
      T v0[kUnroll], v1[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const i64 m = m0 + u * sy;
        if (m >= n1) break;
        const T* src = in + b * in_mat + m * n2;
        if constexpr (kVec) {
          const cx_t<T> v = *reinterpret_cast<const cx_t<T>*>(src + 2 * p);
          v0[u] = v.x;
          v1[u] = v.y;
        } else {
          v0[u] = src[2 * p];
          v1[u] = odd_ok ? src[2 * p + 1] : T(0);
        }
        if (sign != 0) {  // natural (m, 2p), (m, 2p+1): DST-II (math/dct2d.hpp, kFlipAxis0/1)
          if (dct2d::flip_sign(sign, m, i64(0))) v0[u] = -v0[u];
          if (dct2d::flip_sign(sign, m, i64(1))) v1[u] = -v1[u];
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const i64 m = m0 + u * sy;
        if (m >= n1) break;
        const i64 r = kPermRows ? reorder_row(m, n1) : m;
        T* dst = out + b * out_mat + r * n2;
        if constexpr (kVec && !kPermCols) {
          *reinterpret_cast<cx_t<T>*>(dst + 2 * p) = cx_t<T>{v0[u], v1[u]};
        } else {
          dst[pe] = v0[u];
          if (odd_ok) dst[po] = v1[u];
        }
      }
    }
  }
}

template <class T, bool kPermRows, bool kPermCols, bool kVec>
__global__ void reorder_gather_kernel(const T* __restrict__ in, T* __restrict__ out, i64 n1, i64 n2, i64 batch,
                                      i64 in_mat, i64 out_mat, unsigned sign) {
  const i64 p = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= ((n2 + 1) >> 1)) return;
  const bool odd_ok = 2 * p + 1 < n2;
  const i64 pe = kPermCols ? p : 2 * p;
  const i64 po = kPermCols ? n2 - 1 - p : 2 * p + 1;
  const i64 sy = static_cast<i64>(gridDim.y) * blockDim.y;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    for (i64 m0 = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; m0 < n1; m0 += kUnroll * sy) {
      T v0[kUnroll], v1[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const i64 m = m0 + u * sy;
        if (m >= n1) break;
        const i64 r = kPermRows ? reorder_row(m, n1) : m;
        const T* src = in + b * in_mat + r * n2;
        if constexpr (kVec && !kPermCols) {
          const cx_t<T> v = *reinterpret_cast<const cx_t<T>*>(src + 2 * p);
          v0[u] = v.x;
          v1[u] = v.y;
        } else {
          v0[u] = src[pe];
          v1[u] = odd_ok ? src[po] : T(0);
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const i64 m = m0 + u * sy;
        if (m >= n1) break;
        T* dst = out + b * out_mat + m * n2;
        if (sign != 0) {  // natural (m, 2p), (m, 2p+1): DST-III
          if (dct2d::flip_sign(sign, m, i64(0))) v0[u] = -v0[u];
          if (dct2d::flip_sign(sign, m, i64(1))) v1[u] = -v1[u];
        }
        if constexpr (kVec) {
          *reinterpret_cast<cx_t<T>*>(dst + 2 * p) = cx_t<T>{v0[u], v1[u]};
        } else {
          dst[2 * p] = v0[u];
          if (odd_ok) dst[2 * p + 1] = v1[u];
        }
      }
    }
  }
}

template <class T, bool kPermRows, bool kPermCols>
void reorder_dispatch(const T* in, T* out, i64 n1, i64 n2, i64 batch, bool inverse, i64 in_mat, i64 out_mat,
                      unsigned sign, cudaStream_t s) {
  const Launch l = shape_launch((n2 + 1) / 2, n1, batch, kUnroll);
  const bool vec = n2 % 2 == 0 && in_mat % 2 == 0 && out_mat % 2 == 0;
  if (!inverse) {
    if (vec)
      DCT_LAUNCH((reorder_scatter_kernel<T, kPermRows, kPermCols, true>), l.grid, l.block, s, in, out, n1, n2, batch,
                 in_mat, out_mat, sign);
    else
      DCT_LAUNCH((reorder_scatter_kernel<T, kPermRows, kPermCols, false>), l.grid, l.block, s, in, out, n1, n2, batch,
                 in_mat, out_mat, sign);
  } else {
    if (vec)
      DCT_LAUNCH((reorder_gather_kernel<T, kPermRows, kPermCols, true>), l.grid, l.block, s, in, out, n1, n2, batch,
                 in_mat, out_mat, sign);
    else
      DCT_LAUNCH((reorder_gather_kernel<T, kPermRows, kPermCols, false>), l.grid, l.block, s, in, out, n1, n2, batch,
                 in_mat, out_mat, sign);
  }
}

// ---- N-point post / pre along lines (eqs. 10-11 and inverse) ---------------------------------------
template <class T>
__global__ void post_rows_kernel(const cx_t<T>* __restrict__ V, T* __restrict__ y, const cx_t<T>* __restrict__ tw,
                                 const T* __restrict__ fs, i64 n, i64 lines) {
  const i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  const i64 h = n >> 1;
  if (k > h) return;
  const i64 nc = h + 1;
  const cx_t<T> w = tw[k];
  const T fa = fs[k];
  const bool mir = k != 0 && 2 * k != n;
  const T fb = mir ? fs[n - k] : T(0);
  const i64 sy = static_cast<i64>(gridDim.y) * blockDim.y;
  for (i64 l0 = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; l0 < lines; l0 += kUnroll * sy) {
    cx_t<T> v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (l0 + u * sy < lines) v[u] = V[(l0 + u * sy) * nc + k];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const i64 l = l0 + u * sy;
      if (l >= lines) break;
      const cx_t<T> c = cmul(w, v[u]);
      y[l * n + k] = fa * c.x;
      if (mir) y[l * n + n - k] = -fb * c.y;
    }
  }
}

template <class T>
__global__ void post_cols_kernel(const cx_t<T>* __restrict__ V, T* __restrict__ y, const cx_t<T>* __restrict__ tw,
                                 const T* __restrict__ fs, i64 n, i64 width, i64 batch) {
  const i64 c = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= width) return;
  const i64 h = n >> 1;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    const cx_t<T>* Vb = V + b * (h + 1) * width;
    T* yb = y + b * n * width;
    for (i64 k = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; k <= h;
         k += static_cast<i64>(gridDim.y) * blockDim.y) {
      const cx_t<T> v = cmul(tw[k], Vb[k * width + c]);
      yb[k * width + c] = fs[k] * v.x;
      if (k != 0 && 2 * k != n) yb[(n - k) * width + c] = -fs[n - k] * v.y;
    }
  }
}

template <class T>
__global__ void pre_rows_kernel(const T* __restrict__ y, cx_t<T>* __restrict__ V, const cx_t<T>* __restrict__ tw,
                                const T* __restrict__ ia, i64 n, i64 lines) {
  const i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  const i64 h = n >> 1;
  if (k > h) return;
  const i64 nc = h + 1;
  const cx_t<T> w = tw[k];
  const T fa = ia[k];
  const T fb = k != 0 ? ia[n - k] : T(0);
  const i64 sy = static_cast<i64>(gridDim.y) * blockDim.y;
  for (i64 l0 = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; l0 < lines; l0 += kUnroll * sy) {
    T p[kUnroll], q[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const i64 l = l0 + u * sy;
      if (l >= lines) break;
      p[u] = y[l * n + k];
      q[u] = k != 0 ? y[l * n + n - k] : T(0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const i64 l = l0 + u * sy;
      if (l >= lines) break;
      V[l * nc + k] = cmulc(w, cx_t<T>{fa * p[u], -(fb * q[u])});
    }
  }
}

template <class T>
__global__ void pre_cols_kernel(const T* __restrict__ y, cx_t<T>* __restrict__ V, const cx_t<T>* __restrict__ tw,
                                const T* __restrict__ ia, i64 n, i64 width, i64 batch) {
  const i64 c = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= width) return;
  const i64 h = n >> 1;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    const T* yb = y + b * n * width;
    cx_t<T>* Vb = V + b * (h + 1) * width;
    for (i64 k = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; k <= h;
         k += static_cast<i64>(gridDim.y) * blockDim.y) {
      const T p = ia[k] * yb[k * width + c];
      const T q = k != 0 ? ia[n - k] * yb[(n - k) * width + c] : T(0);
      Vb[k * width + c] = cmulc(tw[k], cx_t<T>{p, -q});
    }
  }
}

// ---- 2-D post (eqs. 14, 17, 18) and pre (eq. 15) ---------------------------------------------------
// Index math in I: int when a matrix's element counts fit (the launcher's choice), which with the occupancy
// bound keeps f32 at 64 registers (4 CTAs per SM) and f64 at 80 (3) instead of 104 (25% occupancy), with which the
// i64 kernel was latency-bound at 1.8× the copy time (Nsight Compute, 4096² f32, H200: DRAM 38% busy;
// docs/decisions.md §3.1).
template <class I>
__device__ __forceinline__ I stored_row(I k, RowMap m) {
  return (k >> m.lg_hi) | ((k & static_cast<I>(m.mask)) << m.lg_lo);
}

template <class T, class I>
__global__ void __launch_bounds__(256, sizeof(I) == 4 ? (sizeof(T) == 4 ? 4 : 3) : 1)
    post_2d_kernel(const cx_t<T>* __restrict__ V, T* __restrict__ y, const cx_t<T>* __restrict__ tw1,
                   const T* __restrict__ fs1, const cx_t<T>* __restrict__ tw2, const T* __restrict__ fs2, I n1, I n2,
                   I nc, i64 batch, RowMap rm, unsigned rev) {
  const I k2 = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
  const I h2 = n2 >> 1, h1 = n1 >> 1;
  if (k2 > h2) return;
  const cx_t<T> w2 = tw2[k2];
  const bool mir2 = k2 != 0 && 2 * k2 != n2;
  const I m2 = mir2 ? n2 - k2 : k2;
  const T f2a = fs2[k2];
  const T f2b = fs2[m2];
  const I sy = static_cast<I>(gridDim.y) * blockDim.y;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    const cx_t<T>* Vb = V + b * static_cast<i64>(n1) * nc + k2;
    T* yb = y + b * static_cast<i64>(n1) * n2;
    for (I k10 = static_cast<I>(blockIdx.y) * blockDim.y + threadIdx.y; k10 <= h1; k10 += kUnroll * sy) {
      cx_t<T> A[kUnroll], B[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const I k1 = k10 + u * sy;
        if (k1 > h1) break;
        const I m1 = k1 == 0 ? 0 : n1 - k1;
        A[u] = Vb[stored_row(k1, rm) * nc];
        B[u] = Vb[stored_row(m1, rm) * nc];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const I k1 = k10 + u * sy;
        if (k1 > h1) break;
        const dct2d::Quad<cx_t<T>> o = dct2d::post_quad(A[u], B[u], tw1[k1], w2);
        dct2d::store_quad(
            yb, k1, n1, n2, k2, m2, mir2, o, fs1[k1], f2a, f2b, [&] { return fs1[n1 - k1]; }, rev);
      }
    }
  }
}
// kMask: the compress keep rule and its statistics (KeepRule in kernels/dct2d/prepost.cuh); false is the
// plain inverse (the rule's branches are compiled out).
template <class T>
__device__ __noinline__ void record_symbol(T v, const KeepRule<T>& rule) {
  // floor(v + 0.5) in double, as the CPU compressor's symbol_of: exact for every float and double v of
  // interest (an f32 floorf(v + 0.5f) would round 0.49999997f up and odd integers above 2^23 to even).
  const double r = fmin(fmax(floor(static_cast<double>(v) + 0.5), -2147483648.0), 2147483647.0);
  const long long sym = static_cast<long long>(r);
  if (sym == 0) return;
  if (sym >= -rule.half && sym < rule.half) {
    // Warp-aggregated: lanes with the same symbol add once (small symbols are hot bins at low thresholds).
    const cg::coalesced_group active = cg::coalesced_threads();
    const cg::coalesced_group same = cg::labeled_partition(active, static_cast<int>(sym));
    if (same.thread_rank() == 0) atomicAdd(rule.hist + (sym + rule.half), static_cast<unsigned long long>(same.size()));
  } else {
    const unsigned long long at = atomicAdd(rule.overflow_count, 1ull);
    rule.overflow[at] = static_cast<int>(sym);
  }
}

// The keep rule on one coefficient: v if kept, else 0; `counted` marks the one read of each coefficient
// that feeds the statistics (a thread reads a coefficient twice at k = N/2 of an even axis).
template <class T>
__device__ __forceinline__ T keep_filter(T v, i64 idx, bool counted, T thr, i64 last, const KeepRule<T>& rule,
                                         unsigned& kept) {
  const T a = v < T(0) ? -v : v;
  if (!(a > thr || (a == thr && idx <= last))) return T(0);
  if (counted) {
    ++kept;
    if (rule.hist != nullptr) record_symbol(v, rule);
  }
  return v;
}

// I as in post_2d_kernel (int indices and an occupancy bound for the plain inverse: f32 64 registers, f64 at
// most 128 — 3 CTAs would spill; the keep variant keeps its registers).
template <class T, bool kMask, class I>
__global__ void __launch_bounds__(256, (!kMask && sizeof(I) == 4) ? (sizeof(T) == 4 ? 4 : 2) : 1)
    pre_2d_kernel(const T* __restrict__ y, cx_t<T>* __restrict__ V, const cx_t<T>* __restrict__ tw1,
                  const T* __restrict__ ia1, const cx_t<T>* __restrict__ tw2, const T* __restrict__ ia2, I n1, I n2,
                  I nc, i64 batch, const KeepRule<T> rule, RowMap rm, unsigned rev) {
  const I k2 = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
  const I h2 = n2 >> 1, h1 = n1 >> 1;
  if (k2 > h2) return;
  const cx_t<T> w2 = tw2[k2];
  const bool has2 = k2 != 0;
  const I m2 = n2 - k2;
  const T g2a = ia2[k2];
  const T g2b = has2 ? ia2[m2] : T(0);
  // rev: the inputs of row k (column k) read from row n1−1−k (column n2−1−k): DST-III (math/dct2d.hpp, kFlipAxis0/1).
  const I c2 = dct2d::flip_col(k2, n2, rev), cm2 = dct2d::flip_col(m2, n2, rev);
  const auto row = [&](I k) { return dct2d::flip_row(k, n1, rev) * n2; };
  const I sy = static_cast<I>(gridDim.y) * blockDim.y;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    const T* yb = y + b * static_cast<i64>(n1) * n2;
    cx_t<T>* Vb = V + b * static_cast<i64>(n1) * nc;
    [[maybe_unused]] T thr{};
    [[maybe_unused]] i64 last = 0;
    [[maybe_unused]] unsigned kept = 0;
    if constexpr (kMask) {
      thr = rule.thr[b];
      last = rule.last[b];
    }
    for (I k10 = static_cast<I>(blockIdx.y) * blockDim.y + threadIdx.y; k10 <= h1; k10 += kUnroll * sy) {
      T r00[kUnroll], r01[kUnroll], r10[kUnroll], r11[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const I k1 = k10 + u * sy;
        if (k1 > h1) break;
        const bool has1 = k1 != 0;
        const I m1 = n1 - k1;
        r00[u] = yb[row(k1) + c2];
        r01[u] = has2 ? yb[row(k1) + cm2] : T(0);
        r10[u] = has1 ? yb[row(m1) + c2] : T(0);
        r11[u] = (has1 && has2) ? yb[row(m1) + cm2] : T(0);
      }
      if constexpr (kMask) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const I k1 = k10 + u * sy;
          if (k1 > h1) break;
          const bool has1 = k1 != 0, own1 = has1 && n1 - k1 != k1, own2 = has2 && m2 != k2;
          const I m1 = n1 - k1;
          r00[u] = keep_filter(r00[u], k1 * n2 + k2, true, thr, last, rule, kept);
          if (has2) r01[u] = keep_filter(r01[u], k1 * n2 + m2, own2, thr, last, rule, kept);
          if (has1) r10[u] = keep_filter(r10[u], m1 * n2 + k2, own1, thr, last, rule, kept);
          if (has1 && has2) r11[u] = keep_filter(r11[u], m1 * n2 + m2, own1 && own2, thr, last, rule, kept);
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const I k1 = k10 + u * sy;
        if (k1 > h1) break;
        const bool has1 = k1 != 0;
        const I m1 = n1 - k1;
        const T g1a = ia1[k1];
        const T g1b = has1 ? ia1[m1] : T(0);
        const T y00 = g1a * g2a * r00[u];
        const T y01 = g1a * g2b * r01[u];
        const T y10 = g1b * g2a * r10[u];
        const T y11 = g1b * g2b * r11[u];
        const dct2d::Quad<cx_t<T>> v = dct2d::pre_pair(y00, y01, y10, y11, tw1[k1], w2);
        Vb[stored_row(k1, rm) * nc + k2] = v.k1;
        if (has1 && 2 * k1 != n1) Vb[stored_row(m1, rm) * nc + k2] = v.m1;
      }
    }
    if constexpr (kMask) {
      if (kept != 0) {  // one atomic per coalesced group of threads that kept something
        const cg::coalesced_group g = cg::coalesced_threads();
        const unsigned total = cg::reduce(g, kept, cg::plus<unsigned>());
        if (g.thread_rank() == 0) atomicAdd(rule.kept + b, static_cast<unsigned long long>(total));
      }
    }
  }
}

// ---- the L*N-point family (eqs. 3-8) ----------------------------------------------------------------
template <class T, Family F>
__global__ void family_expand_kernel(const T* __restrict__ x, T* __restrict__ xp, i64 n, i64 lines) {
  constexpr i64 L = F == Family::kZero4N ? 4 : 2;
  const i64 m = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= L * n) return;
  i64 src;
  if constexpr (F == Family::kMirror2N)
    src = m < n ? m : 2 * n - 1 - m;
  else if constexpr (F == Family::kPad2N)
    src = m < n ? m : -1;
  else
    src = (m & 1) ? (m < 2 * n ? (m - 1) >> 1 : (4 * n - m - 1) >> 1) : -1;
  for (i64 l = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; l < lines;
       l += static_cast<i64>(gridDim.y) * blockDim.y)
    xp[l * L * n + m] = src >= 0 ? x[l * n + src] : T(0);
}

template <class T, Family F>
__global__ void family_post_kernel(const cx_t<T>* __restrict__ V, T* __restrict__ y, const cx_t<T>* __restrict__ tw,
                                   const T* __restrict__ fs, i64 n, i64 lines) {
  constexpr i64 L = F == Family::kZero4N ? 4 : 2;
  const i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const i64 nc = L * n / 2 + 1;
  const cx_t<T> w = tw[k];
  const T f = fs[k];
  for (i64 l = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; l < lines;
       l += static_cast<i64>(gridDim.y) * blockDim.y) {
    const cx_t<T> X = V[l * nc + k];
    if constexpr (F == Family::kZero4N)
      y[l * n + k] = f * X.x;
    else
      y[l * n + k] = f * (w.x * X.x - w.y * X.y);
  }
}

template <class T, Family F>
__global__ void family_pre_kernel(const T* __restrict__ y, cx_t<T>* __restrict__ V, const cx_t<T>* __restrict__ tw,
                                  const T* __restrict__ ia, i64 n, i64 lines) {
  // spectrum length: mirror N+1 (Hermitian half of 2N), 4N: 2N+1, pad: 2N (full, C2C)
  constexpr bool kPad = F == Family::kPad2N;
  const i64 len = F == Family::kMirror2N ? n + 1 : (F == Family::kZero4N ? 2 * n + 1 : 2 * n);
  const i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= len) return;
  for (i64 l = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; l < lines;
       l += static_cast<i64>(gridDim.y) * blockDim.y) {
    const T* yl = y + l * n;
    cx_t<T> v{T(0), T(0)};
    if constexpr (F == Family::kZero4N) {
      if (k < n)
        v.x = T(0.5) * ia[k] * yl[k];
      else if (k > n)
        v.x = T(-0.5) * ia[2 * n - k] * yl[2 * n - k];
    } else if (k < n) {
      const cx_t<T> w = tw[k];
      T a = ia[k] * yl[k];
      if (kPad && k != 0) a *= T(2);
      v = cx_t<T>{w.x * a, -w.y * a};  // conj(W_k) * a
    }
    V[l * len + k] = v;
  }
}

template <class T, Family F>
__global__ void family_contract_kernel(const void* __restrict__ xp, T* __restrict__ x, i64 n, i64 lines) {
  const i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  for (i64 l = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; l < lines;
       l += static_cast<i64>(gridDim.y) * blockDim.y) {
    if constexpr (F == Family::kPad2N)
      x[l * n + k] = static_cast<const cx_t<T>*>(xp)[l * 2 * n + k].x;
    else if constexpr (F == Family::kMirror2N)
      x[l * n + k] = static_cast<const T*>(xp)[l * 2 * n + k];
    else
      x[l * n + k] = static_cast<const T*>(xp)[l * 4 * n + 2 * k + 1];
  }
}

// ---- transpose and identity FFTs ----------------------------------------------------------------------
constexpr int kTile = 32;
constexpr int kTileRows = 8;

template <class T>
__global__ void transpose_kernel(const T* __restrict__ in, T* __restrict__ out, i64 rows, i64 cols, i64 batch) {
  __shared__ T tile[kTile][kTile + 1];
  const i64 bx = static_cast<i64>(blockIdx.x) * kTile, by = static_cast<i64>(blockIdx.y) * kTile;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    const T* ib = in + b * rows * cols;
    T* ob = out + b * rows * cols;
    const i64 x = bx + threadIdx.x;
#pragma unroll
    for (int j = 0; j < kTile; j += kTileRows) {
      const i64 yy = by + threadIdx.y + j;
      if (x < cols && yy < rows) tile[threadIdx.y + j][threadIdx.x] = ib[yy * cols + x];
    }
    __syncthreads();
    const i64 ox = by + threadIdx.x;  // column of out = row of in
#pragma unroll
    for (int j = 0; j < kTile; j += kTileRows) {
      const i64 oy = bx + threadIdx.y + j;  // row of out = column of in
      if (ox < rows && oy < cols) ob[oy * rows + ox] = tile[threadIdx.x][threadIdx.y + j];
    }
    __syncthreads();
  }
}

template <class T>
__global__ void identity_r2c_kernel(const T* __restrict__ in, cx_t<T>* __restrict__ out, i64 count) {
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<i64>(gridDim.x) * blockDim.x)
    out[i] = cx_t<T>{in[i], T(0)};
}
template <class T>
__global__ void identity_c2r_kernel(const cx_t<T>* __restrict__ in, T* __restrict__ out, i64 count) {
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<i64>(gridDim.x) * blockDim.x)
    out[i] = in[i].x;
}

dim3 flat_grid(i64 count) { return dim3(static_cast<unsigned>(std::min<i64>((count + 255) / 256, 1 << 20))); }

}  // namespace

namespace {
// Whether a matrix's real and half-spectrum element indices (rows nc apart) fit in int (the 2-D pre/post kernels'
// index type).
bool int_indices(i64 n1, i64 n2, i64 nc) { return n1 * n2 < (i64(1) << 31) && n1 * nc < (i64(1) << 31); }
}  // namespace

int family_factor(Family f) { return f == Family::kZero4N ? 4 : 2; }

template <class T>
void reorder(const T* in, T* out, i64 n1, i64 n2, i64 batch, bool perm_rows, bool perm_cols, bool inverse,
             cudaStream_t s, i64 in_mat, i64 out_mat, unsigned sign) {
  if (in_mat <= 0) in_mat = n1 * n2;
  if (out_mat <= 0) out_mat = n1 * n2;
  if (perm_rows && perm_cols)
    reorder_dispatch<T, true, true>(in, out, n1, n2, batch, inverse, in_mat, out_mat, sign, s);
  else if (perm_rows)
    reorder_dispatch<T, true, false>(in, out, n1, n2, batch, inverse, in_mat, out_mat, sign, s);
  else if (perm_cols)
    reorder_dispatch<T, false, true>(in, out, n1, n2, batch, inverse, in_mat, out_mat, sign, s);
  else
    reorder_dispatch<T, false, false>(in, out, n1, n2, batch, inverse, in_mat, out_mat, sign, s);
}

template <class T>
void post_lines(const cx_t<T>* V, T* y, AxisTables<T> t, LineGeom g, cudaStream_t s) {
  if (!g.along_cols) {
    const Launch l = shape_launch(g.n / 2 + 1, g.count, 1, kUnroll);
    DCT_LAUNCH((post_rows_kernel<T>), l.grid, l.block, s, V, y, t.tw, t.fs, g.n, g.count);
  } else {
    const Launch l = shape_launch(g.width, g.n / 2 + 1, g.count);
    DCT_LAUNCH((post_cols_kernel<T>), l.grid, l.block, s, V, y, t.tw, t.fs, g.n, g.width, g.count);
  }
}

template <class T>
void pre_lines(const T* y, cx_t<T>* V, AxisTables<T> t, LineGeom g, cudaStream_t s) {
  if (!g.along_cols) {
    const Launch l = shape_launch(g.n / 2 + 1, g.count, 1, kUnroll);
    DCT_LAUNCH((pre_rows_kernel<T>), l.grid, l.block, s, y, V, t.tw, t.ia, g.n, g.count);
  } else {
    const Launch l = shape_launch(g.width, g.n / 2 + 1, g.count);
    DCT_LAUNCH((pre_cols_kernel<T>), l.grid, l.block, s, y, V, t.tw, t.ia, g.n, g.width, g.count);
  }
}

// pitch: complex elements between rows of V (<= 0: n2/2+1); the matrices of a batch are n1 * pitch apart.
template <class T>
void post_2d(const cx_t<T>* V, T* y, AxisTables<T> t1, AxisTables<T> t2, i64 n1, i64 n2, i64 batch, cudaStream_t s,
             i64 pitch, RowMap rows, unsigned rev) {
  const Launch l = shape_launch(n2 / 2 + 1, n1 / 2 + 1, batch, kUnroll);
  const i64 nc = pitch > 0 ? pitch : n2 / 2 + 1;
  if (int_indices(n1, n2, nc))
    DCT_LAUNCH((post_2d_kernel<T, int>), l.grid, l.block, s, V, y, t1.tw, t1.fs, t2.tw, t2.fs, static_cast<int>(n1),
               static_cast<int>(n2), static_cast<int>(nc), batch, rows, rev);
  else
    DCT_LAUNCH((post_2d_kernel<T, i64>), l.grid, l.block, s, V, y, t1.tw, t1.fs, t2.tw, t2.fs, n1, n2, nc, batch, rows,
               rev);
}

template <class T>
void pre_2d(const T* y, cx_t<T>* V, AxisTables<T> t1, AxisTables<T> t2, i64 n1, i64 n2, i64 batch, cudaStream_t s,
            i64 pitch, RowMap rows, unsigned rev) {
  const Launch l = shape_launch(n2 / 2 + 1, n1 / 2 + 1, batch, kUnroll);
  const i64 nc = pitch > 0 ? pitch : n2 / 2 + 1;
  if (int_indices(n1, n2, nc))
    DCT_LAUNCH((pre_2d_kernel<T, false, int>), l.grid, l.block, s, y, V, t1.tw, t1.ia, t2.tw, t2.ia,
               static_cast<int>(n1), static_cast<int>(n2), static_cast<int>(nc), batch, KeepRule<T>{}, rows, rev);
  else
    DCT_LAUNCH((pre_2d_kernel<T, false, i64>), l.grid, l.block, s, y, V, t1.tw, t1.ia, t2.tw, t2.ia, n1, n2, nc, batch,
               KeepRule<T>{}, rows, rev);
}

template <class T>
void pre_2d_keep(const T* y, cx_t<T>* V, AxisTables<T> t1, AxisTables<T> t2, i64 n1, i64 n2, i64 batch,
                 const KeepRule<T>& rule, cudaStream_t s) {
  const Launch l = shape_launch(n2 / 2 + 1, n1 / 2 + 1, batch, kUnroll);
  const i64 nc = n2 / 2 + 1;
  if (int_indices(n1, n2, nc))
    DCT_LAUNCH((pre_2d_kernel<T, true, int>), l.grid, l.block, s, y, V, t1.tw, t1.ia, t2.tw, t2.ia,
               static_cast<int>(n1), static_cast<int>(n2), static_cast<int>(nc), batch, rule, RowMap{}, 0u);
  else
    DCT_LAUNCH((pre_2d_kernel<T, true, i64>), l.grid, l.block, s, y, V, t1.tw, t1.ia, t2.tw, t2.ia, n1, n2, nc, batch,
               rule, RowMap{}, 0u);
}

template <class T>
void family_expand(Family f, const T* x, T* xp, i64 n, i64 lines, cudaStream_t s) {
  const Launch l = shape_launch(family_factor(f) * n, lines, 1);
  switch (f) {
    case Family::kMirror2N:
      DCT_LAUNCH((family_expand_kernel<T, Family::kMirror2N>), l.grid, l.block, s, x, xp, n, lines);
      break;
    case Family::kPad2N:
      DCT_LAUNCH((family_expand_kernel<T, Family::kPad2N>), l.grid, l.block, s, x, xp, n, lines);
      break;
    case Family::kZero4N:
      DCT_LAUNCH((family_expand_kernel<T, Family::kZero4N>), l.grid, l.block, s, x, xp, n, lines);
      break;
  }
}

template <class T>
void family_post(Family f, const cx_t<T>* V, T* y, AxisTables<T> t, i64 n, i64 lines, cudaStream_t s) {
  const Launch l = shape_launch(n, lines, 1);
  switch (f) {
    case Family::kMirror2N:
      DCT_LAUNCH((family_post_kernel<T, Family::kMirror2N>), l.grid, l.block, s, V, y, t.tw, t.fs, n, lines);
      break;
    case Family::kPad2N:
      DCT_LAUNCH((family_post_kernel<T, Family::kPad2N>), l.grid, l.block, s, V, y, t.tw, t.fs, n, lines);
      break;
    case Family::kZero4N:
      DCT_LAUNCH((family_post_kernel<T, Family::kZero4N>), l.grid, l.block, s, V, y, t.tw, t.fs, n, lines);
      break;
  }
}

template <class T>
void family_pre(Family f, const T* y, cx_t<T>* V, AxisTables<T> t, i64 n, i64 lines, cudaStream_t s) {
  const Launch l = shape_launch(2 * n + 1, lines, 1);
  switch (f) {
    case Family::kMirror2N:
      DCT_LAUNCH((family_pre_kernel<T, Family::kMirror2N>), l.grid, l.block, s, y, V, t.tw, t.ia, n, lines);
      break;
    case Family::kPad2N:
      DCT_LAUNCH((family_pre_kernel<T, Family::kPad2N>), l.grid, l.block, s, y, V, t.tw, t.ia, n, lines);
      break;
    case Family::kZero4N:
      DCT_LAUNCH((family_pre_kernel<T, Family::kZero4N>), l.grid, l.block, s, y, V, t.tw, t.ia, n, lines);
      break;
  }
}

template <class T>
void family_contract(Family f, const void* xp, T* x, i64 n, i64 lines, cudaStream_t s) {
  const Launch l = shape_launch(n, lines, 1);
  switch (f) {
    case Family::kMirror2N:
      DCT_LAUNCH((family_contract_kernel<T, Family::kMirror2N>), l.grid, l.block, s, xp, x, n, lines);
      break;
    case Family::kPad2N:
      DCT_LAUNCH((family_contract_kernel<T, Family::kPad2N>), l.grid, l.block, s, xp, x, n, lines);
      break;
    case Family::kZero4N:
      DCT_LAUNCH((family_contract_kernel<T, Family::kZero4N>), l.grid, l.block, s, xp, x, n, lines);
      break;
  }
}

template <class T>
void transpose(const T* in, T* out, i64 rows, i64 cols, i64 batch, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile),
                  static_cast<unsigned>(std::min<i64>(batch, 65535)));
  DCT_LAUNCH((transpose_kernel<T>), grid, dim3(kTile, kTileRows), s, in, out, rows, cols, batch);
}

template <class T>
void identity_r2c(const T* in, cx_t<T>* out, i64 count, cudaStream_t s) {
  DCT_LAUNCH((identity_r2c_kernel<T>), flat_grid(count), dim3(256), s, in, out, count);
}
template <class T>
void identity_c2r(const cx_t<T>* in, T* out, i64 count, cudaStream_t s) {
  DCT_LAUNCH((identity_c2r_kernel<T>), flat_grid(count), dim3(256), s, in, out, count);
}

#define DCT_INSTANTIATE(T)                                                                                             \
  template void reorder<T>(const T*, T*, i64, i64, i64, bool, bool, bool, cudaStream_t, i64, i64, unsigned);           \
  template void post_lines<T>(const cx_t<T>*, T*, AxisTables<T>, LineGeom, cudaStream_t);                              \
  template void pre_lines<T>(const T*, cx_t<T>*, AxisTables<T>, LineGeom, cudaStream_t);                               \
  template void post_2d<T>(const cx_t<T>*, T*, AxisTables<T>, AxisTables<T>, i64, i64, i64, cudaStream_t, i64, RowMap, \
                           unsigned);                                                                                  \
  template void pre_2d<T>(const T*, cx_t<T>*, AxisTables<T>, AxisTables<T>, i64, i64, i64, cudaStream_t, i64, RowMap,  \
                          unsigned);                                                                                   \
  template void pre_2d_keep<T>(const T*, cx_t<T>*, AxisTables<T>, AxisTables<T>, i64, i64, i64, const KeepRule<T>&,    \
                               cudaStream_t);                                                                          \
  template void family_expand<T>(Family, const T*, T*, i64, i64, cudaStream_t);                                        \
  template void family_post<T>(Family, const cx_t<T>*, T*, AxisTables<T>, i64, i64, cudaStream_t);                     \
  template void family_pre<T>(Family, const T*, cx_t<T>*, AxisTables<T>, i64, i64, cudaStream_t);                      \
  template void family_contract<T>(Family, const void*, T*, i64, i64, cudaStream_t);                                   \
  template void transpose<T>(const T*, T*, i64, i64, i64, cudaStream_t);                                               \
  template void identity_r2c<T>(const T*, cx_t<T>*, i64, cudaStream_t);                                                \
  template void identity_c2r<T>(const cx_t<T>*, T*, i64, cudaStream_t);
DCT_INSTANTIATE(float)
DCT_INSTANTIATE(double)
#undef DCT_INSTANTIATE

}  // namespace dct::cuda
