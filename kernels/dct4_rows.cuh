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

   This header is plain CUDA C++ with no host dependencies so that scripts/dct4-emulate.sh can compile the
   kernel as C++ and run it on the host against cpu-fftw (machines without a GPU). */

// The host emulator (scripts/dct4-emulate.sh) defines this to check the 16-byte vector accesses.
#ifndef DCT_ASSERT_ALIGNED16
#define DCT_ASSERT_ALIGNED16(p)
#endif

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
__device__ __forceinline__ void dft8(C (&v)[8]) {
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

}  // namespace dct::cuda::dct4
