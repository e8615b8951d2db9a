#pragma once
/* Single-pass DCT-IV along rows for even N = 2M, M = 2^p with 8 <= M <= 2048 (N = 16 .. 4096): one read
   and one write of the data, everything else in registers and shared memory. Used by cuda-dct4-fft
   (kernels/dct4_fft.cu) for those lengths; the three-pass route (pre kernel, cuFFT, post kernel) covers
   the rest.

   The algorithm is the even case of dct4_fft.cu (z_n = (x_2n + i x_{N-1-2n}) σ e^{-iπ(4n+1)/4N},
   Z = FFT_M(z), Y_2k = Re(Z_k e^{-iπk/N}), Y_{N-1-2k} = −Im(·)); the FFT is a Stockham autosort FFT
   (Govindaraju et al., "High performance discrete Fourier transforms on graphics processors", SC'08) with
   8 complex values per thread in registers:

     pass (radix R, span Ns = product of the radices before it): butterfly j (0 <= j < M/R) reads
       v_r = d[j + r·M/R] (r < R), multiplies v_r by W_{Ns·R}^{r·(j mod Ns)}, takes the R-point DFT in
       registers and writes its output q to d[(j div Ns)·Ns·R + (j mod Ns) + q·Ns].

   The first pass has radix 2, 4 or 8 (p mod 3) and reads the input line straight from the staging
   buffer, forming z_n on the fly (its span is 1: no twiddle); the others are radix 8. After the last
   radix-8 pass (span M/8 = threads per line) thread j holds Z_{j + q·M/8}, q = 0..7, in natural order, so
   the post-twiddle is applied in registers and the two outputs per Z_k are scattered into a line buffer.

   Memory: a CTA of 256 threads owns L = 2048/M lines (M/8 threads each), contiguous in memory; they are
   loaded and stored with 16-byte vectors over the CTA's whole span (coalesced). Per line two shared
   buffers of M + M/8 complex, rounded up to even (ping-pong between passes, so one barrier per pass; complex
   index i lives at i + i/8, which makes the radix-8 scatters bank-conflict free); the input staging and
   the output line buffer alias them. At most 40 KiB per CTA in f32, 80 KiB in f64.

   Twiddles: tw[t] = e^{-2πit/M} (t < M), pre[n] and post[k] as dct4_fft.cu, all built in long double at
   plan time and read through the read-only cache; a radix-8 pass reads W, W^2, W^4 (coalesced) and
   multiplies out the other powers.

   That is dct4_rows_kernel ("v2"). The fixed-size kernels dct4_rows_fixed<T, LGM, VPT, DIRECT> (fourth
   session, notes/dct4.md) do the same with M a template parameter, so that every index is a shift, a mask or
   an immediate address offset and the pass loop is unrolled (no runtime division; more than half of v2's
   instructions are index arithmetic), VPT = 8 or 16 complex values per thread (radix-16 passes = 4 x 4 in
   registers: 3 shared passes instead of 4 at M = 2048, 2 instead of 3 at M = 128) and a CTA of 2048/VPT
   threads holding 2048 complex points. DIRECT kernels skip the staging: z_k and z_{M-1-k} are read as the
   pairs (x_2k, x_2k+1) and (x_{N-2-2k}, x_{N-1-2k}) by two lanes of one warp, which swap the halves with a
   shuffle (and the same for the outputs Y_2k, Y_2k+1), so global access is 8/16-byte coalesced runs with
   no shared round trip and two barriers fewer. Environment DCTOOL_DCT4_ROWS (read at plan creation by
   dct4_fft.cu) selects:
     v2  dct4_rows_kernel (runtime M)
     v4  fixed, staged, VPT 8
     v5  fixed, staged, VPT 16 where it saves a shared pass (M = 16, 128, 256, 1024, 2048), else 8
     v6  fixed, direct, VPT as v5
     v7  fixed, direct, VPT 16 for every M >= 16
     v8  v6 with per-pass twiddle tables: a pass of span ns reads W^1, W^2, W^4 (, W^8) for k = j mod ns from
         contiguous runs appended to tw (rows_twiddles), one or two L1 wavefronts per warp and load instead of
         up to 32 for the strided tw[e·k·step] reads (ncu on the H200 showed v2 L1/shared-bound at 77–86%);
         the values are the same table entries, so the results are bit-identical to v6. The default: the
         fastest in every case of the A/B run (H200, 2026-11-21, notes/dct4.md: f32 x_copy 1.14-1.32 at N = 256,
         1024, 4096 against v2's 1.47-2.08)

   This header is plain CUDA C++ with no host dependencies so that scripts/dct4-emulate.sh can compile the
   kernels as C++ and run them on the host against the long-double definition (machines without a GPU). */

// The host emulator (scripts/dct4-emulate.sh) defines this to check the 16-byte vector accesses.
#ifndef DCT_ASSERT_ALIGNED16
#define DCT_ASSERT_ALIGNED16(p)
#endif

#include <cmath>
#include <vector>

namespace dct::cuda::dct4 {

template <class T>
struct RowsTypes;
template <>
struct RowsTypes<float> {
  using cx = float2;
  using vec = float4;  // 16-byte global access
};
template <>
struct RowsTypes<double> {
  using cx = double2;
  using vec = double2;
};

constexpr int kRowsThreads = 256;
constexpr int kRowsMinM = 8, kRowsMaxM = 2048;

// Complex per shared buffer of a line: M + M/8 (the padding), rounded up to even so that every line's
// buffers start on a 16-byte boundary (the staging and the output pass use 16-byte vectors).
__host__ __device__ constexpr int rows_buf(int m) { return (m + m / 8 + 1) & ~1; }

// The same for the fixed kernels (below): M + M/VPT, VPT = 8 or 16 complex values per thread.
__host__ __device__ constexpr int rows_buf_fixed(int m, int vpt) { return (m + m / vpt + 1) & ~1; }

// Shared memory per CTA for element type T: (2048/M lines) x 2 buffers x rows_buf(M) complex, largest at
// M = 8 (256 lines x 2 x 10).
template <class T>
constexpr int rows_smem_bytes() {
  return (2048 / kRowsMinM) * 2 * rows_buf(kRowsMinM) * 2 * static_cast<int>(sizeof(T));
}

namespace rows_detail {

__device__ __forceinline__ int pad(int i) { return i + (i >> 3); }

template <class C>
__device__ __forceinline__ C add(C a, C b) {
  return C{a.x + b.x, a.y + b.y};
}
template <class C>
__device__ __forceinline__ C sub(C a, C b) {
  return C{a.x - b.x, a.y - b.y};
}
template <class C>
__device__ __forceinline__ C mul(C a, C b) {
  return C{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}

// In place, natural order: X_m = Σ b_n W_4^{nm}, W_4 = -i.
template <class C>
__device__ __forceinline__ void dft4(C& b0, C& b1, C& b2, C& b3) {
  const C c0 = add(b0, b2), c2 = sub(b0, b2), c1 = add(b1, b3), d = sub(b1, b3);
  b0 = add(c0, c1);
  b2 = sub(c0, c1);
  b1 = C{c2.x + d.y, c2.y - d.x};  // c2 − i d
  b3 = C{c2.x - d.y, c2.y + d.x};  // c2 + i d
}

template <class C>
__device__ __forceinline__ void dft2(C& a, C& b) {
  const C t = sub(a, b);
  a = add(a, b);
  b = t;
}

// In place, natural order, decimation in frequency: X_2m = DFT4(v_n + v_{n+4})_m,
// X_{2m+1} = DFT4((v_n − v_{n+4}) W_8^n)_m.
template <class C>
__device__ __forceinline__ void dft8(C* v) {
  using S = decltype(v[0].x);
  const S h = S(0.70710678118654752440084436210485);
  C a[8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    a[i] = add(v[i], v[i + 4]);
    a[i + 4] = sub(v[i], v[i + 4]);
  }
  a[5] = C{(a[5].x + a[5].y) * h, (a[5].y - a[5].x) * h};     // W_8 = (1 − i)/√2
  a[6] = C{a[6].y, -a[6].x};                                   // W_8^2 = −i
  a[7] = C{(a[7].y - a[7].x) * h, -(a[7].x + a[7].y) * h};     // W_8^3 = (−1 − i)/√2
  dft4(a[0], a[1], a[2], a[3]);
  dft4(a[4], a[5], a[6], a[7]);
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    v[2 * m] = a[m];
    v[2 * m + 1] = a[m + 4];
  }
}

// Radix-R DFTs on the 8 registers: 8/R butterflies, butterfly b in v[b·R .. b·R + R − 1].
template <int R, class C>
__device__ __forceinline__ void dft_groups(C (&v)[8]) {
  if constexpr (R == 8) {
    dft8(v);
  } else if constexpr (R == 4) {
    dft4(v[0], v[1], v[2], v[3]);
    dft4(v[4], v[5], v[6], v[7]);
  } else {
#pragma unroll
    for (int b = 0; b < 4; ++b) dft2(v[2 * b], v[2 * b + 1]);
  }
}

// The first pass (span 1): z from the staged line xs, DFT_R, scatter to dst (unless it is the only pass).
template <int R, class T, class C>
__device__ __forceinline__ void first_pass(const T* xs, C* dst, C (&v)[8], const C* __restrict__ pre, int n, int j,
                                           int tpl, bool only) {
  const int m = n / 2;
#pragma unroll
  for (int b = 0; b < 8 / R; ++b) {
    const int jj = j + b * tpl;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int k = jj + r * (m / R);
      const T a = xs[2 * k], c = xs[n - 1 - 2 * k];
      const C w = pre[k];
      v[b * R + r] = C{a * w.x - c * w.y, a * w.y + c * w.x};
    }
  }
  dft_groups<R>(v);
  if (only) return;
#pragma unroll
  for (int b = 0; b < 8 / R; ++b) {
    const int jj = j + b * tpl;
#pragma unroll
    for (int q = 0; q < R; ++q) dst[pad(jj * R + q)] = v[b * R + q];
  }
}

// A radix-8 pass of span ns (one butterfly per thread): read src, twiddle, DFT8, scatter to dst (unless last).
template <class C>
__device__ __forceinline__ void radix8_pass(const C* src, C* dst, C (&v)[8], const C* __restrict__ tw, int m, int j,
                                            int ns, bool last) {
  const int tpl = m / 8, k = j & (ns - 1), step = m / (8 * ns);
#pragma unroll
  for (int r = 0; r < 8; ++r) v[r] = src[pad(j + r * tpl)];
  // W^r for r = 1..7, W = W_{8ns}^k: W, W^2, W^4 from the table (neighbouring threads read neighbouring
  // entries: coalesced; reading all seven scatters a warp's loads over up to 7·32 cache lines), the rest
  // as products of two or three rounded table values.
  const C w1 = tw[k * step], w2 = tw[2 * k * step], w4 = tw[4 * k * step];
  const C w3 = mul(w1, w2);
  v[1] = mul(v[1], w1);
  v[2] = mul(v[2], w2);
  v[3] = mul(v[3], w3);
  v[4] = mul(v[4], w4);
  v[5] = mul(v[5], mul(w1, w4));
  v[6] = mul(v[6], mul(w2, w4));
  v[7] = mul(v[7], mul(w3, w4));
  dft8(v);
  if (last) return;
  const int base = (j - k) * 8 + k;
#pragma unroll
  for (int q = 0; q < 8; ++q) dst[pad(base + q * ns)] = v[q];
}

// ---- v4/v5/v6 helpers (compile-time M, VPT complex values per thread) ----

// In place, natural order, 4 x 4 Cooley-Tukey (n = n1 + 4 n2, k = k1 + 4 k2): DFT4 over n2, the inner
// twiddles W_16^{n1 k1}, DFT4 over n1, then the register transpose k1 + 4 k2 <- slot 4 k1 + k2.
template <class C>
__device__ __forceinline__ void dft16(C* v) {
  using S = decltype(v[0].x);
  const S h = S(0.70710678118654752440084436210485), c = S(0.92387953251128675612818318939679),
          s = S(0.38268343236508977172845998403040);
#pragma unroll
  for (int n1 = 0; n1 < 4; ++n1) dft4(v[n1], v[n1 + 4], v[n1 + 8], v[n1 + 12]);  // v[n1 + 4 k1]
  const auto w1 = [&](C a) { return C{a.x * c + a.y * s, a.y * c - a.x * s}; };   // W_16 = c − i s
  const auto w3 = [&](C a) { return C{a.x * s + a.y * c, a.y * s - a.x * c}; };   // W_16^3 = s − i c
  v[5] = w1(v[5]);
  v[9] = C{(v[9].x + v[9].y) * h, (v[9].y - v[9].x) * h};     // W_16^2 = (1 − i)/√2
  v[13] = w3(v[13]);
  v[6] = C{(v[6].x + v[6].y) * h, (v[6].y - v[6].x) * h};     // W_16^2
  v[10] = C{v[10].y, -v[10].x};                                 // W_16^4 = −i
  v[14] = C{(v[14].y - v[14].x) * h, -(v[14].x + v[14].y) * h};  // W_16^6 = (−1 − i)/√2
  v[7] = w3(v[7]);
  v[11] = C{(v[11].y - v[11].x) * h, -(v[11].x + v[11].y) * h};  // W_16^6
  const C t = w1(v[15]);
  v[15] = C{-t.x, -t.y};  // W_16^9 = −W_16
  C o[16];
#pragma unroll
  for (int k1 = 0; k1 < 4; ++k1) {
    dft4(v[4 * k1], v[4 * k1 + 1], v[4 * k1 + 2], v[4 * k1 + 3]);
#pragma unroll
    for (int k2 = 0; k2 < 4; ++k2) o[k1 + 4 * k2] = v[4 * k1 + k2];
  }
#pragma unroll
  for (int i = 0; i < 16; ++i) v[i] = o[i];
}

// In place, natural order, R = 2, 4, 8 or 16 points at v.
template <int R, class C>
__device__ __forceinline__ void dft(C* v) {
  if constexpr (R == 16)
    dft16(v);
  else if constexpr (R == 8)
    dft8(v);
  else if constexpr (R == 4)
    dft4(v[0], v[1], v[2], v[3]);
  else
    dft2(v[0], v[1]);
}

constexpr int ilog2(int v) { return v <= 1 ? 0 : 1 + ilog2(v / 2); }

// Per-pass twiddle tables (v8): pass p >= 1 of a kernel with first radix r0 and 2^lgv values per thread has
// span ns_p = r0·2^(lgv·(p-1)) and lgv runs of ns_p entries (W^1, W^2, W^4 (, W^8) of W = W_{VPT·ns}^k);
// this is where pass p's runs start after the M entries of tw.
__host__ __device__ constexpr int pass_tw_offset(int p, int r0, int lgv) {
  int off = 0;
  for (int q = 1; q < p; ++q) off += lgv * (r0 << (lgv * (q - 1)));
  return off;
}

// The other powers W^r (r < VPT) from the table values W, W^2, W^4 (and W^8 when VPT = 16) in w[1], w[2], w[4],
// w[8]: products of two or three rounded table values (shared with kernels/rfft_rows.cuh).
template <int VPT, class C, int K>
__device__ __forceinline__ void twiddle_powers(C (&w)[K]) {
  static_assert(K >= VPT && (VPT == 8 || VPT == 16), "VPT 8 or 16 values in w");
  w[3] = mul(w[1], w[2]);
  w[5] = mul(w[1], w[4]);
  w[6] = mul(w[2], w[4]);
  w[7] = mul(w[3], w[4]);
  if constexpr (VPT == 16) {
#pragma unroll
    for (int e = 1; e < 8; ++e) w[8 + e] = mul(w[e], w[8]);
  }
}

// Padding of the fixed kernels: complex index i at i + i/VPT. A radix-VPT scatter then writes a warp's
// 8- or 16-byte values at word strides that cover every bank once per wavefront (VPT + 1 complex apart).
// Every index they pad is a + b with b a multiple of a power of two P and a mod P's own carry into VPT
// absent (see the callers), so pad(a + b) = pad(a) + pad(b) and the constant part folds into the address.
template <int VPT>
__device__ __forceinline__ int padv(int i) {
  return i + (i >> ilog2(VPT));
}

}  // namespace rows_detail

// x, y: `lines` rows of n = 2m elements (may alias). lgm = log2 m. Block: kRowsThreads threads; dynamic
// shared memory rows_smem_bytes<T>().
template <class T>
__global__ void __launch_bounds__(kRowsThreads) dct4_rows_kernel(const T* x, T* y,
                                                                 const typename RowsTypes<T>::cx* __restrict__ pre,
                                                                 const typename RowsTypes<T>::cx* __restrict__ post,
                                                                 const typename RowsTypes<T>::cx* __restrict__ tw,
                                                                 int n, int lgm, long long lines) {
  using namespace rows_detail;
  using C = typename RowsTypes<T>::cx;
  using V = typename RowsTypes<T>::vec;
  constexpr int kEv = static_cast<int>(sizeof(V) / sizeof(T));  // elements per vector
  extern __shared__ __align__(16) unsigned char rows_smem[];
  const int m = n / 2, tpl = m / 8, lpb = kRowsThreads / tpl;
  const int tid = static_cast<int>(threadIdx.x), sub_line = tid / tpl, j = tid - sub_line * tpl;
  const int buf = rows_buf(m);  // complex per buffer
  C* base = reinterpret_cast<C*>(rows_smem);
  C* bufa = base + sub_line * 2 * buf;
  C* bufb = bufa + buf;

  const long long first = static_cast<long long>(blockIdx.x) * lpb;
  const long long left = lines - first;
  const int nl = left < lpb ? static_cast<int>(left) : lpb;
  const int vpl = n / kEv;          // vectors per line
  const int nvec = nl * vpl;        // vectors in this CTA's span
  // Load: every vector of the span (lpb·n/kEv = 16·256/kEv vectors at most: 16/kEv per thread), all loads
  // issued before the shared stores.
  {
    constexpr int kIt = 16 / kEv;
    const V* src = reinterpret_cast<const V*>(x + first * n);
    V r[kIt];
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int i = tid + it * kRowsThreads;
      if (i < nvec) r[it] = src[i];
    }
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int i = tid + it * kRowsThreads;
      if (i < nvec) {
        const int l = i / vpl, e = i - l * vpl;
        DCT_ASSERT_ALIGNED16(reinterpret_cast<V*>(base + l * 2 * buf) + e);
        reinterpret_cast<V*>(base + l * 2 * buf)[e] = r[it];
      }
    }
  }
  __syncthreads();

  C v[8];
  const T* xs = reinterpret_cast<const T*>(bufa);
  const int r0 = lgm % 3 == 0 ? 3 : lgm % 3;  // bits of the first radix
  const int passes = 1 + (lgm - r0) / 3;
  if (r0 == 3)
    first_pass<8>(xs, bufb, v, pre, n, j, tpl, passes == 1);
  else if (r0 == 2)
    first_pass<4>(xs, bufb, v, pre, n, j, tpl, passes == 1);
  else
    first_pass<2>(xs, bufb, v, pre, n, j, tpl, passes == 1);
  int ns = 1 << r0;
  C* src = bufb;
  C* dst = bufa;
  for (int p = 1; p < passes; ++p) {
    __syncthreads();
    radix8_pass(src, dst, v, tw, m, j, ns, p == passes - 1);
    ns *= 8;
    C* t = src;
    src = dst;
    dst = t;
  }
  // v[q] = Z_{j + q·tpl}. The last pass read `src` (or the staged input), so `dst` is free: the line buffer.
  const int out_off = passes % 2 == 1 ? buf : 0;  // offset of the free buffer inside a line's pair
  T* ys = reinterpret_cast<T*>((passes % 2 == 1 ? bufb : bufa));
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const int k = j + q * tpl;
    const C u = mul(v[q], post[k]);
    ys[2 * k] = u.x;
    ys[n - 1 - 2 * k] = -u.y;
  }
  __syncthreads();
  {
    constexpr int kIt = 16 / kEv;
    V* out = reinterpret_cast<V*>(y + first * n);
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int i = tid + it * kRowsThreads;
      if (i < nvec) {
        const int l = i / vpl, e = i - l * vpl;
        DCT_ASSERT_ALIGNED16(reinterpret_cast<const V*>(base + l * 2 * buf + out_off) + e);
        out[i] = reinterpret_cast<const V*>(base + l * 2 * buf + out_off)[e];
      }
    }
  }
}

// ---- Fixed-size kernels (v4 .. v7; see the header comment) ----

// Threads per CTA of the fixed kernels: a CTA always holds 2048 complex points (2048/M lines).
constexpr int rows_fixed_threads(int vpt) { return 2048 / vpt; }

// Shared passes with 2^lgm points and VPT = 2^lgv values per thread.
constexpr int rows_fixed_passes(int lgm, int lgv) { return (lgm + lgv - 1) / lgv; }

// Shared buffers per line: staged kernels ping-pong between two (the staging and the output line buffer
// alias them); direct ones need one per scatter, at most two.
constexpr int rows_fixed_bufs(int lgm, int lgv, bool direct) {
  const int scatters = rows_fixed_passes(lgm, lgv) - 1;
  return !direct ? 2 : scatters < 2 ? scatters : 2;
}

template <class T>
constexpr int rows_fixed_smem_bytes(int lgm, int lgv, bool direct) {
  return (2048 >> lgm) * rows_fixed_bufs(lgm, lgv, direct) * rows_buf_fixed(1 << lgm, 1 << lgv) * 2 *
         static_cast<int>(sizeof(T));
}

// M = 2^LGM, VPT = 8 or 16 complex values per thread (VPT <= M), DIRECT: global access without staging.
// Same arguments as dct4_rows_kernel (n and lgm are implied by LGM and unused), so both share one launch path.
template <class T, int LGM, int VPT, bool DIRECT, bool PT>
__global__ void __launch_bounds__(rows_fixed_threads(VPT))
    dct4_rows_fixed(const T* x, T* y, const typename RowsTypes<T>::cx* __restrict__ pre,
                    const typename RowsTypes<T>::cx* __restrict__ post,
                    const typename RowsTypes<T>::cx* __restrict__ tw, int, int, long long lines) {
  using namespace rows_detail;
  using C = typename RowsTypes<T>::cx;
  using V = typename RowsTypes<T>::vec;
  static_assert((VPT == 8 || VPT == 16) && (1 << LGM) >= VPT && LGM <= 11);
  constexpr int M = 1 << LGM, N = 2 * M, kThreads = rows_fixed_threads(VPT), TPL = M / VPT, LPB = 2048 / M;
  constexpr int kLgV = ilog2(VPT), kPasses = rows_fixed_passes(LGM, kLgV);
  constexpr int kR0 = 1 << (LGM - (kPasses - 1) * kLgV);  // first radix: 2 .. VPT
  constexpr int kBuf = rows_buf_fixed(M, VPT), kBufs = rows_fixed_bufs(LGM, kLgV, DIRECT);
  constexpr int kEv = static_cast<int>(sizeof(V) / sizeof(T));    // elements per vector
  constexpr int kVpl = N / kEv, kIt = 2 * 2048 / kEv / kThreads;  // vectors per line, per thread
  extern __shared__ __align__(16) unsigned char rows_smem[];
  const int tid = static_cast<int>(threadIdx.x), t = tid & (TPL - 1), line = tid >> ilog2(TPL);
  C* base = reinterpret_cast<C*>(rows_smem);
  C* const lbuf = base + line * kBufs * kBuf;
  // Buffer i of this line (staged: the input is staged in 0, pass p >= 1 reads p and writes p + 1;
  // direct: pass p reads p - 1 and writes p).
  const auto buf = [&](int i) { return lbuf + (i % 2) * kBuf; };
  constexpr int kSh = DIRECT ? 0 : 1;

  const long long first = static_cast<long long>(blockIdx.x) * LPB;
  const long long left = lines - first;
  const int nl = left < LPB ? static_cast<int>(left) : LPB;  // lines in this CTA

  // Direct kernels pair z_k = (x_2k, x_{N-1-2k}) with z_{M-1-k} = (x_{N-2-2k}, x_{2k+1}): the pair (x_2k,
  // x_2k+1) read (or, for Y, written) as one 8/16-byte value carries the real part of one and the imaginary
  // part of the other. Butterfly jp of the first and of the last pass touches the points k = jp + i·TPL
  // (and jp + b·TPL + r·M/R0 in the first pass), whose mirrors M-1-k belong to butterfly TPL-1-jp at index
  // VPT-1-i; jp is laid out so that this partner is lane ^ kH of the same warp (lanes < kH take butterflies
  // g·kH + l, the others their mirrors; each half-warp then touches one contiguous 128- or 256-byte run).
  constexpr int kH = TPL >= 32 ? 16 : TPL / 2;
  const int jp = [&] {
    if constexpr (kH == 0) {
      return 0;
    } else {
      const int b = (t >> ilog2(2 * kH)) * kH + (t & (kH - 1));
      return (t & kH) != 0 ? TPL - 1 - b : b;
    }
  }();
  const auto mirror = [&](auto val) {  // the partner's value of val
    if constexpr (kH == 0)
      return val;
    else
      return __shfl_xor_sync(0xffffffffu, val, kH);
  };
  const bool valid = line < nl;

  if constexpr (!DIRECT) {
    const V* src = reinterpret_cast<const V*>(x + first * N);
    const int nvec = nl * kVpl;  // vectors in this CTA's span
    V r[kIt];
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int i = tid + it * kThreads;
      if (i < nvec) r[it] = src[i];
    }
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int i = tid + it * kThreads;
      if (i < nvec) {
        V* d = reinterpret_cast<V*>(base + (i >> ilog2(kVpl)) * kBufs * kBuf) + (i & (kVpl - 1));
        DCT_ASSERT_ALIGNED16(d);
        *d = r[it];
      }
    }
    __syncthreads();
  }

  // First pass (span 1, radix kR0, VPT/kR0 butterflies jj = j0 + b·TPL): z from the input line.
  C v[VPT];
  const int j0 = DIRECT ? jp : t;
  {
    const auto kof = [&](int i) { return j0 + (i / kR0) * TPL + (i % kR0) * (M / kR0); };
    if constexpr (DIRECT) {
      const C* xl = reinterpret_cast<const C*>(x + (first + line) * N);  // (x_2k, x_2k+1) at xl[k]
#pragma unroll
      for (int i = 0; i < VPT; ++i) v[i] = valid ? xl[kof(i)] : C{};
#pragma unroll
      for (int i = 0; i < VPT / 2; ++i) {  // v[i].y <- x_{N-1-2k_i}, the partner's v[VPT-1-i].y (and back)
        const auto lo = mirror(v[VPT - 1 - i].y), hi = mirror(v[i].y);
        v[i].y = lo;
        v[VPT - 1 - i].y = hi;
      }
    } else {
      const T* xs = reinterpret_cast<const T*>(buf(0));
#pragma unroll
      for (int i = 0; i < VPT; ++i) v[i] = C{xs[2 * kof(i)], xs[N - 1 - 2 * kof(i)]};
    }
#pragma unroll
    for (int i = 0; i < VPT; ++i) {
      const C w = pre[kof(i)];
      v[i] = C{v[i].x * w.x - v[i].y * w.y, v[i].x * w.y + v[i].y * w.x};
    }
#pragma unroll
    for (int b = 0; b < VPT / kR0; ++b) dft<kR0>(v + b * kR0);
    if constexpr (kPasses > 1) {
      C* dst = buf(kSh);
#pragma unroll
      for (int b = 0; b < VPT / kR0; ++b) {
        const int o = padv<VPT>((j0 + b * TPL) * kR0);  // jj·kR0 is a multiple of kR0: + q stays in its row
#pragma unroll
        for (int q = 0; q < kR0; ++q) dst[o + q] = v[b * kR0 + q];
      }
    }
  }
  // Radix-VPT passes of span ns = kR0·VPT^(p-1), one butterfly per thread (j = t; the last one of a direct
  // kernel j = jp).
#pragma unroll
  for (int p = 1; p < kPasses; ++p) {
    const int ns = kR0 << (kLgV * (p - 1));
    const int j = DIRECT && p == kPasses - 1 ? jp : t;
    const C* src = buf(p - 1 + kSh);
    C* dst = buf(p + kSh);
    __syncthreads();
    const int pj = padv<VPT>(j);
#pragma unroll
    for (int r = 0; r < VPT; ++r) v[r] = src[pj + padv<VPT>(r * TPL)];
    // W^r, W = W_{VPT·ns}^k = tw[k·step]: W, W^2, W^4 (, W^8) from the table (coalesced), the rest products.
    const int k = j & (ns - 1), step = M / (VPT * ns);
    C w[VPT];
    if constexpr (PT) {
      const C* tp = tw + M + pass_tw_offset(p, kR0, kLgV) + k;
      w[1] = tp[0];
      w[2] = tp[ns];
      w[4] = tp[2 * ns];
      if constexpr (VPT == 16) w[8] = tp[3 * ns];
    } else {
      w[1] = tw[k * step];
      w[2] = tw[2 * k * step];
      w[4] = tw[4 * k * step];
      if constexpr (VPT == 16) w[8] = tw[8 * k * step];
    }
    twiddle_powers<VPT>(w);
#pragma unroll
    for (int r = 1; r < VPT; ++r) v[r] = mul(v[r], w[r]);
    dft<VPT>(v);
    if (p < kPasses - 1) {
      const int o = padv<VPT>((j - k) * VPT + k);
#pragma unroll
      for (int q = 0; q < VPT; ++q) dst[o + padv<VPT>(q * ns)] = v[q];
    }
  }
  // v[q] = Z_{j + q·TPL} (j = jp for direct kernels): the post-twiddle in registers.
  const int jl = DIRECT ? jp : t;
#pragma unroll
  for (int q = 0; q < VPT; ++q) {
    const C u = mul(v[q], post[jl + q * TPL]);
    v[q] = C{u.x, -u.y};
  }
  if constexpr (DIRECT) {
    // Y_2k = Re u_k, Y_2k+1 = -Im u_{M-1-k}: the partner's v[VPT-1-q].y.
#pragma unroll
    for (int q = 0; q < VPT / 2; ++q) {
      const auto lo = mirror(v[VPT - 1 - q].y), hi = mirror(v[q].y);
      v[q].y = lo;
      v[VPT - 1 - q].y = hi;
    }
    C* yl = reinterpret_cast<C*>(y + (first + line) * N);
    if (valid) {
#pragma unroll
      for (int q = 0; q < VPT; ++q) yl[jl + q * TPL] = v[q];
    }
  } else {
    // The last pass read buffer kPasses - 1 (mod 2; the staged input when it is the only one): kPasses is free.
    T* ys = reinterpret_cast<T*>(buf(kPasses));
#pragma unroll
    for (int q = 0; q < VPT; ++q) {
      const int k = jl + q * TPL;
      ys[2 * k] = v[q].x;
      ys[N - 1 - 2 * k] = v[q].y;
    }
    __syncthreads();
    constexpr int kOut = kPasses % 2 * kBuf;
    V* out = reinterpret_cast<V*>(y + first * N);
    const int nvec = nl * kVpl;
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int i = tid + it * kThreads;
      if (i < nvec) {
        const V* s = reinterpret_cast<const V*>(base + (i >> ilog2(kVpl)) * kBufs * kBuf + kOut) + (i & (kVpl - 1));
        DCT_ASSERT_ALIGNED16(s);
        out[i] = *s;
      }
    }
  }
}

// ---- Variant selection (environment DCTOOL_DCT4_ROWS, read by kernels/dct4_fft.cu at plan creation) ----

enum class RowsVariant { kV2, kV4, kV5, kV6, kV7, kV8 };

template <class T>
using RowsFn = void (*)(const T*, T*, const typename RowsTypes<T>::cx*, const typename RowsTypes<T>::cx*,
                        const typename RowsTypes<T>::cx*, int, int, long long);

// One launch: kernel, threads per CTA, dynamic shared memory, lines per CTA; values per thread and whether the
// kernel reads per-pass twiddle tables after tw's M entries (rows_twiddles builds them).
template <class T>
struct RowsLaunch {
  RowsFn<T> fn = nullptr;
  int threads = 0, smem_bytes = 0, lines_per_cta = 0;
  int vpt = 8;
  bool pass_tables = false;
};

namespace rows_detail {
template <class T, int VPT, bool DIRECT, bool PT, int LGM>
RowsLaunch<T> fixed_launch(int lgm) {
  if constexpr (LGM > 11) {
    return {};
  } else {
    if (lgm != LGM) return fixed_launch<T, VPT, DIRECT, PT, LGM + 1>(lgm);
    return {&dct4_rows_fixed<T, LGM, VPT, DIRECT, PT>, rows_fixed_threads(VPT),
            rows_fixed_smem_bytes<T>(LGM, ilog2(VPT), DIRECT), 2048 >> LGM, VPT, PT};
  }
}
template <class T, bool DIRECT, bool PT = false>
RowsLaunch<T> fixed_launch(int lgm, bool v16) {
  return v16 ? fixed_launch<T, 16, DIRECT, PT, 4>(lgm) : fixed_launch<T, 8, DIRECT, PT, 3>(lgm);
}
}  // namespace rows_detail

// The kernel for M = 2^lgm (3 <= lgm <= 11) under variant v.
template <class T>
RowsLaunch<T> rows_launch(RowsVariant v, int lgm) {
  const bool fewer = rows_fixed_passes(lgm, 4) < rows_fixed_passes(lgm, 3);  // 16 values per thread save a pass
  switch (v) {
    case RowsVariant::kV2:
      return {&dct4_rows_kernel<T>, kRowsThreads, rows_smem_bytes<T>(), kRowsThreads / ((1 << lgm) / 8)};
    case RowsVariant::kV4:
      return rows_detail::fixed_launch<T, false>(lgm, false);
    case RowsVariant::kV5:
      return rows_detail::fixed_launch<T, false>(lgm, fewer);
    case RowsVariant::kV6:
      return rows_detail::fixed_launch<T, true>(lgm, fewer);
    case RowsVariant::kV8:
      return rows_detail::fixed_launch<T, true, true>(lgm, fewer);
    default:
      return rows_detail::fixed_launch<T, true>(lgm, lgm >= 4);
  }
}

// The twiddle table of kernel l for M = 2^lgm, in long double rounded to T: tw[t] = e^{-2πit/M} (t < M), then
// for l.pass_tables the runs of pass_tw_offset (each entry one of the first M, so the same rounded values).
template <class T>
std::vector<typename RowsTypes<T>::cx> rows_twiddles(int lgm, const RowsLaunch<T>& l) {
  const int m = 1 << lgm;
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<typename RowsTypes<T>::cx> tw(m);
  for (int t = 0; t < m; ++t) {
    const long double a = -2 * pi * t / static_cast<long double>(m);
    tw[t] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  if (!l.pass_tables) return tw;
  const int lgv = rows_detail::ilog2(l.vpt), passes = rows_fixed_passes(lgm, lgv);
  const int r0 = 1 << (lgm - (passes - 1) * lgv);
  for (int p = 1; p < passes; ++p) {
    const int ns = r0 << (lgv * (p - 1)), step = m / (l.vpt * ns);
    for (int e = 1; e < l.vpt; e *= 2)
      for (int k = 0; k < ns; ++k) tw.push_back(tw[e * k * step]);
  }
  return tw;
}

}  // namespace dct::cuda::dct4
