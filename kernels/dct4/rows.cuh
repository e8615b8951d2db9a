#pragma once
/* Single-pass DCT-IV along rows for even N = 2M, M = 2^p with 4 <= M <= 2048 (N = 8 .. 4096): one read
   and one write of the data, everything else in registers and shared memory. Used by cuda-dct4-fft
   (kernels/dct4/fft.cu) for those lengths (and by cuda-dct4-small for N = 8, 16, 32); the three-pass route (pre
   kernel, cuFFT, post kernel) covers the rest. M <= 16: dct4_rows_short (below), one line per thread; M >= 32:
   dct4_rows_fixed, described here.

   The algorithm is the even case of kernels/dct4/fft.cu (z_n = (x_2n + i x_{N-1-2n}) σ e^{-iπ(4n+1)/4N},
   Z = FFT_M(z), Y_2k = Re(Z_k e^{-iπk/N}), Y_{N-1-2k} = −Im(·)); the FFT is a Stockham autosort FFT
   (Govindaraju et al., "High performance discrete Fourier transforms on graphics processors", SC'08) with
   VPT complex values per thread in registers:

     pass (radix R, span Ns = product of the radices before it): butterfly j (0 <= j < M/R) reads
       v_r = d[j + r·M/R] (r < R), multiplies v_r by W_{Ns·R}^{r·(j mod Ns)}, takes the R-point DFT in
       registers and writes its output q to d[(j div Ns)·Ns·R + (j mod Ns) + q·Ns].

   dct4_rows_fixed<T, LGM, VPT>: M = 2^LGM is a template parameter, so every index is a shift, a mask or an
   immediate address offset and the pass loop is unrolled. VPT = 16 where that saves a shared pass (M = 16,
   128, 256, 1024, 2048; radix-16 DFTs as 4 x 4 in registers), else 8 (rows_vpt). The first pass has radix
   R0 = M / VPT^(passes−1) (2 .. VPT; span 1: no twiddle) and forms z_n on the fly from the input line; the
   others are radix VPT. After the last pass (span M/VPT = threads per line) thread j holds Z_{j + q·M/VPT},
   q < VPT, in natural order, so the post-twiddle is applied in registers.

   Global access without staging: z_k and z_{M-1-k} are read as the pairs (x_2k, x_2k+1) and (x_{N-2-2k},
   x_{N-1-2k}) by two lanes of one warp, which swap the halves with a shuffle (the same for the outputs Y_2k,
   Y_2k+1): 8/16-byte values in contiguous 128/256-byte runs per half-warp, no shared round trip.

   Memory: a CTA of 2048/VPT threads owns 2048/M lines (M/VPT threads each), contiguous in memory. Per line
   one shared buffer per scatter (passes − 1 of them, at most two, used ping-pong: one barrier per pass; none
   for M <= 16) of M + M/VPT complex rounded up to even (complex index i lives at i + i/VPT, which makes the
   radix-VPT scatters bank-conflict free). At most 36 KiB per CTA in f32, 72 KiB in f64 (M = 512).

   Twiddles: pre[n] and post[k] as kernels/dct4/fft.cu; tw[t] = e^{-2πit/M} (t < M) followed by per-pass runs
   (rows_twiddles): a pass of span ns reads W^1, W^2, W^4 (, W^8) of W = W_{VPT·ns}^k for k = j mod ns from
   contiguous runs, one or two L1 wavefronts per warp and load, and multiplies out the other powers. The runs
   are copies of entries of the first M, all built in long double at plan time and read through the
   read-only cache.

   Row kernels that were not kept (runtime M with radix-8 passes and input and output staged through shared
   memory; fixed M and staged; strided twiddle reads tw[e·k·step] of the first M entries instead of the runs;
   VPT 16 for every M >= 16) and their measurements: docs/decisions.md §3.2.

   This header is plain CUDA C++ with no host dependencies so that tests/emulate/emulate_dct4.cpp (and
   tests/emulate/emulate_rfft.cpp, through kernels/dct2d/row_fft.cuh, which shares the FFT helpers below) can
   compile the kernels as C++ and run them on the host against the definition (machines without a GPU). */

// The host emulator of kernels/dct2d/row_fft.cuh (tests/emulate/emulate_rfft.cpp) defines this to check its 16-byte
// vector accesses.
#ifndef DCT_ASSERT_ALIGNED16
#define DCT_ASSERT_ALIGNED16(p)
#endif

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace dct::cuda::dct4 {

template <class T>
struct RowsTypes;
template <>
struct RowsTypes<float> {
  using cx = float2;
};
template <>
struct RowsTypes<double> {
  using cx = double2;
};

constexpr int kRowsMinM = 4, kRowsMaxM = 2048;

// Complex per shared buffer of a line: M + M/VPT (the padding), rounded up to even so that every line's
// buffers start on a 16-byte boundary.
__host__ __device__ constexpr int rows_buf_fixed(int m, int vpt) { return (m + m / vpt + 1) & ~1; }

namespace rows_detail {

// ---- Complex arithmetic, DFTs in registers, twiddle powers, padding (also used by kernels/dct2d/row_fft.cuh) ----

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
  a[5] = C{(a[5].x + a[5].y) * h, (a[5].y - a[5].x) * h};   // W_8 = (1 − i)/√2
  a[6] = C{a[6].y, -a[6].x};                                // W_8^2 = −i
  a[7] = C{(a[7].y - a[7].x) * h, -(a[7].x + a[7].y) * h};  // W_8^3 = (−1 − i)/√2
  dft4(a[0], a[1], a[2], a[3]);
  dft4(a[4], a[5], a[6], a[7]);
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    v[2 * m] = a[m];
    v[2 * m + 1] = a[m + 4];
  }
}

// In place, natural order, 4 x 4 Cooley-Tukey (n = n1 + 4 n2, k = k1 + 4 k2): DFT4 over n2, the inner
// twiddles W_16^{n1 k1}, DFT4 over n1, then the register transpose k1 + 4 k2 <- slot 4 k1 + k2.
template <class C>
__device__ __forceinline__ void dft16(C* v) {
  using S = decltype(v[0].x);
  const S h = S(0.70710678118654752440084436210485), c = S(0.92387953251128675612818318939679),
          s = S(0.38268343236508977172845998403040);
#pragma unroll
  for (int n1 = 0; n1 < 4; ++n1) dft4(v[n1], v[n1 + 4], v[n1 + 8], v[n1 + 12]);  // v[n1 + 4 k1]
  const auto w1 = [&](C a) { return C{a.x * c + a.y * s, a.y * c - a.x * s}; };  // W_16 = c − i s
  const auto w3 = [&](C a) { return C{a.x * s + a.y * c, a.y * s - a.x * c}; };  // W_16^3 = s − i c
  v[5] = w1(v[5]);
  v[9] = C{(v[9].x + v[9].y) * h, (v[9].y - v[9].x) * h};  // W_16^2 = (1 − i)/√2
  v[13] = w3(v[13]);
  v[6] = C{(v[6].x + v[6].y) * h, (v[6].y - v[6].x) * h};        // W_16^2
  v[10] = C{v[10].y, -v[10].x};                                  // W_16^4 = −i
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

// Per-pass twiddle tables: pass p >= 1 of a kernel with first radix r0 and 2^lgv values per thread has span
// ns_p = r0·2^(lgv·(p-1)) and lgv runs of ns_p entries (W^1, W^2, W^4 (, W^8) of W = W_{VPT·ns}^k); this is
// where pass p's runs start after the M entries of tw (shared with kernels/dct2d/row_fft.cuh).
__host__ __device__ constexpr int pass_tw_offset(int p, int r0, int lgv) {
  int off = 0;
  for (int q = 1; q < p; ++q) off += lgv * (r0 << (lgv * (q - 1)));
  return off;
}

// The other powers W^r (r < VPT) from the table values W, W^2, W^4 (and W^8 when VPT = 16) in w[1], w[2], w[4],
// w[8]: products of two or three rounded table values (shared with kernels/dct2d/row_fft.cuh).
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

// 16-byte accesses (global or shared memory): V values of T (float4 / double2) to and from a register array.
template <class T>
struct Vec16 {
  static constexpr int V = 16 / static_cast<int>(sizeof(T));
  using type = std::conditional_t<sizeof(T) == 4, float4, double2>;
  __device__ __forceinline__ static void load(T (&v)[V], const T* p) {
    *reinterpret_cast<type*>(v) = *reinterpret_cast<const type*>(p);
  }
  __device__ __forceinline__ static void store(T* p, const T (&v)[V]) {
    *reinterpret_cast<type*>(p) = *reinterpret_cast<const type*>(v);
  }
};

// Padding of the shared buffers: complex index i at i + i/VPT. A radix-VPT scatter then writes a warp's
// 8- or 16-byte values at word strides that cover every bank once per wavefront (VPT + 1 complex apart).
// Every index they pad is a + b with b a multiple of a power of two P and a mod P's own carry into VPT
// absent (see the callers), so pad(a + b) = pad(a) + pad(b) and the constant part folds into the address.
template <int VPT>
__device__ __forceinline__ int padv(int i) {
  return i + (i >> ilog2(VPT));
}

}  // namespace rows_detail

// ---- The kernel ----

// Threads per CTA: a CTA always holds 2048 complex points (2048/M lines).
constexpr int rows_fixed_threads(int vpt) { return 2048 / vpt; }

// Shared passes with 2^lgm points and VPT = 2^lgv values per thread.
constexpr int rows_fixed_passes(int lgm, int lgv) { return (lgm + lgv - 1) / lgv; }

// Values per thread for M = 2^lgm: 16 where that saves a shared pass (M = 16, 128, 256, 1024, 2048), else 8.
constexpr int rows_vpt(int lgm) { return rows_fixed_passes(lgm, 4) < rows_fixed_passes(lgm, 3) ? 16 : 8; }

// Shared buffers per line: one per scatter, at most two. (direct = false: the staged layout, ping-ponged
// between two with the staging aliasing them; kernels/dct2d/row_fft.cuh passes true.)
constexpr int rows_fixed_bufs(int lgm, int lgv, bool direct) {
  const int scatters = rows_fixed_passes(lgm, lgv) - 1;
  return !direct ? 2 : scatters < 2 ? scatters : 2;
}

template <class T>
constexpr int rows_fixed_smem_bytes(int lgm, int lgv) {
  return (2048 >> lgm) * rows_fixed_bufs(lgm, lgv, true) * rows_buf_fixed(1 << lgm, 1 << lgv) * 2 *
         static_cast<int>(sizeof(T));
}

// x, y: `lines` rows of N = 2M elements (may alias), M = 2^LGM, VPT = 8 or 16 complex values per thread
// (VPT <= M; rows_launch takes rows_vpt(LGM)). Block: rows_fixed_threads(VPT) threads; dynamic shared memory
// rows_fixed_smem_bytes<T>(LGM, log2 VPT). The two int arguments (n and lgm, which LGM implies) are unused.
template <class T, int LGM, int VPT>
__global__ void __launch_bounds__(rows_fixed_threads(VPT))
    dct4_rows_fixed(const T* x, T* y, const typename RowsTypes<T>::cx* __restrict__ pre,
                    const typename RowsTypes<T>::cx* __restrict__ post,
                    const typename RowsTypes<T>::cx* __restrict__ tw, int, int, long long lines) {
  using namespace rows_detail;
  using C = typename RowsTypes<T>::cx;
  static_assert((VPT == 8 || VPT == 16) && (1 << LGM) >= VPT && LGM <= 11);
  constexpr int M = 1 << LGM, N = 2 * M, TPL = M / VPT, LPB = 2048 / M;
  constexpr int kLgV = ilog2(VPT), kPasses = rows_fixed_passes(LGM, kLgV);
  constexpr int kR0 = 1 << (LGM - (kPasses - 1) * kLgV);  // first radix: 2 .. VPT
  constexpr int kBuf = rows_buf_fixed(M, VPT), kBufs = rows_fixed_bufs(LGM, kLgV, true);
  extern __shared__ __align__(16) unsigned char rows_smem[];
  const int tid = static_cast<int>(threadIdx.x), t = tid & (TPL - 1), line = tid >> ilog2(TPL);
  C* const lbuf = reinterpret_cast<C*>(rows_smem) + line * kBufs * kBuf;
  // Buffer i of this line: pass p reads p - 1 and writes p (mod 2).
  const auto buf = [&](int i) { return lbuf + (i % 2) * kBuf; };

  const long long first = static_cast<long long>(blockIdx.x) * LPB;
  const long long left = lines - first;
  const int nl = left < LPB ? static_cast<int>(left) : LPB;  // lines in this CTA

  // z_k = (x_2k, x_{N-1-2k}) is paired with z_{M-1-k} = (x_{N-2-2k}, x_{2k+1}): the pair (x_2k, x_2k+1) read
  // (or, for Y, written) as one 8/16-byte value carries the real part of one and the imaginary part of the
  // other. Butterfly jp of the first and of the last pass touches the points k = jp + i·TPL (and
  // jp + b·TPL + r·M/R0 in the first pass), whose mirrors M-1-k belong to butterfly TPL-1-jp at index
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

  // First pass (span 1, radix kR0, VPT/kR0 butterflies jj = jp + b·TPL): z from the input line.
  C v[VPT];
  {
    const auto kof = [&](int i) { return jp + (i / kR0) * TPL + (i % kR0) * (M / kR0); };
    const C* xl = reinterpret_cast<const C*>(x + (first + line) * N);  // (x_2k, x_2k+1) at xl[k]
#pragma unroll
    for (int i = 0; i < VPT; ++i) v[i] = valid ? xl[kof(i)] : C{};
#pragma unroll
    for (int i = 0; i < VPT / 2; ++i) {  // v[i].y <- x_{N-1-2k_i}, the partner's v[VPT-1-i].y (and back)
      const auto lo = mirror(v[VPT - 1 - i].y), hi = mirror(v[i].y);
      v[i].y = lo;
      v[VPT - 1 - i].y = hi;
    }
#pragma unroll
    for (int i = 0; i < VPT; ++i) {
      const C w = pre[kof(i)];
      v[i] = C{v[i].x * w.x - v[i].y * w.y, v[i].x * w.y + v[i].y * w.x};
    }
#pragma unroll
    for (int b = 0; b < VPT / kR0; ++b) dft<kR0>(v + b * kR0);
    if constexpr (kPasses > 1) {
      C* dst = buf(0);
#pragma unroll
      for (int b = 0; b < VPT / kR0; ++b) {
        const int o = padv<VPT>((jp + b * TPL) * kR0);  // jj·kR0 is a multiple of kR0: + q stays in its row
#pragma unroll
        for (int q = 0; q < kR0; ++q) dst[o + q] = v[b * kR0 + q];
      }
    }
  }
  // Radix-VPT passes of span ns = kR0·VPT^(p-1), one butterfly per thread (j = t; in the last one j = jp).
#pragma unroll
  for (int p = 1; p < kPasses; ++p) {
    const int ns = kR0 << (kLgV * (p - 1));
    const int j = p == kPasses - 1 ? jp : t;
    const C* src = buf(p - 1);
    C* dst = buf(p);
    __syncthreads();
    const int pj = padv<VPT>(j);
#pragma unroll
    for (int r = 0; r < VPT; ++r) v[r] = src[pj + padv<VPT>(r * TPL)];
    // W^r, W = W_{VPT·ns}^k: W, W^2, W^4 (, W^8) from pass p's runs (coalesced), the rest products.
    const int k = j & (ns - 1);
    C w[VPT];
    const C* tp = tw + M + pass_tw_offset(p, kR0, kLgV) + k;
    w[1] = tp[0];
    w[2] = tp[ns];
    w[4] = tp[2 * ns];
    if constexpr (VPT == 16) w[8] = tp[3 * ns];
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
  // v[q] = Z_{jp + q·TPL}: the post-twiddle in registers.
#pragma unroll
  for (int q = 0; q < VPT; ++q) {
    const C u = mul(v[q], post[jp + q * TPL]);
    v[q] = C{u.x, -u.y};
  }
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
    for (int q = 0; q < VPT; ++q) yl[jp + q * TPL] = v[q];
  }
}

// ---- Short lines: N = 8, 16, 32 (M = 4, 8, 16) ----

// dct4_rows_fixed with M <= 16 gives each thread a whole line (M/VPT = 1) that it reads and writes as 8/16-byte pairs
// at a stride of N values from its neighbours' lines: a warp's access touched 32 lines' sectors per instruction
// (N = 16 / 32 f32 took 2.6 / 4.0× a copy, docs/decisions.md §10). Here a CTA of kShortThreads threads owns as many
// consecutive lines, contiguous in memory: they are loaded by coalesced 16-byte chunks into shared memory, each thread
// then takes its line from there into registers (z_n formed as it goes), runs the whole M-point FFT in registers
// (dft4 / dft8 / dft16: no shared pass, no barrier) and the post-twiddle, puts its line back, and the CTA stores the
// tile by coalesced 16-byte chunks. Chunk c of line l (K = N·sizeof(T)/16 chunks per line) lives at chunk
// l·K + (c ^ short_swizzle(l, K)): eight consecutive chunks of the coalesced phases and chunk c of eight consecutive
// lines fall in distinct 16-byte bank groups, so neither phase has a bank conflict. Pointers that are not 16-byte
// aligned take scalar loads and stores into the same layout.
// Up to M = 16: at M = 32 (f32, a radix-2 step and two dft16 in registers) this kernel measured the same as
// dct4_rows_fixed (docs/decisions.md §10).
constexpr int kShortMinLgm = 2, kShortMaxLgm = 4, kShortThreads = 128;

__host__ __device__ constexpr int short_swizzle(int l, int k) { return k >= 8 ? (l & 7) : ((l * k) >> 3) & (k - 1); }

template <class T>
constexpr int short_smem_bytes(int lgm) {
  return kShortThreads * (2 << lgm) * static_cast<int>(sizeof(T));
}

// x, y: `lines` rows of N = 2M elements (may alias), M = 2^LGM with kShortMinLgm <= LGM <= kShortMaxLgm. Block:
// kShortThreads threads; dynamic shared memory short_smem_bytes<T>(LGM). tw and the two int arguments are unused
// (RowsFn's signature).
template <class T, int LGM>
__global__ void __launch_bounds__(kShortThreads)
    dct4_rows_short(const T* x, T* y, const typename RowsTypes<T>::cx* __restrict__ pre,
                    const typename RowsTypes<T>::cx* __restrict__ post, const typename RowsTypes<T>::cx*, int, int,
                    long long lines) {
  using namespace rows_detail;
  using C = typename RowsTypes<T>::cx;
  using W = Vec16<T>;
  using Chunk = typename W::type;
  static_assert(LGM >= kShortMinLgm && LGM <= kShortMaxLgm);
  constexpr int M = 1 << LGM, N = 2 * M, V = W::V, K = N / V, kLgK = ilog2(K);
  extern __shared__ __align__(16) unsigned char rows_smem[];
  Chunk* const tile = reinterpret_cast<Chunk*>(rows_smem);
  const int tid = static_cast<int>(threadIdx.x);
  const long long first = static_cast<long long>(blockIdx.x) * kShortThreads;
  const long long left = lines - first;
  const int nl = left < kShortThreads ? static_cast<int>(left) : kShortThreads;  // lines in this CTA
  const T* xt = x + first * N;
  T* yt = y + first * N;
  const bool vec = ((reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(y)) & 15) == 0;
  const auto slot = [](int s) {  // chunk s of the tile (line s / K, chunk s % K) in shared memory
    const int l = s >> kLgK;
    return (l << kLgK) + ((s & (K - 1)) ^ short_swizzle(l, K));
  };
  if (vec) {
    const Chunk* xv = reinterpret_cast<const Chunk*>(xt);
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const int s = r * kShortThreads + tid;
      if (s < nl * K) tile[slot(s)] = xv[s];
    }
  } else {
#pragma unroll 4
    for (int r = 0; r < N; ++r) {
      const int e = r * kShortThreads + tid;
      if (e < nl * N) reinterpret_cast<T*>(tile + slot(e / V))[e % V] = xt[e];
    }
  }
  __syncthreads();
  Chunk* const mine = tile + (tid << kLgK);
  const int sw = short_swizzle(tid, K);
  T v[N];
#pragma unroll
  for (int c = 0; c < K; ++c)
    W::load(*reinterpret_cast<T(*)[V]>(v + c * V), reinterpret_cast<const T*>(mine + (c ^ sw)));
  C z[M];
#pragma unroll
  for (int n = 0; n < M; ++n) z[n] = mul(C{v[2 * n], v[N - 1 - 2 * n]}, pre[n]);
  dft<M>(z);
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const C u = mul(z[k], post[k]);
    v[2 * k] = u.x;
    v[N - 1 - 2 * k] = -u.y;
  }
  if (tid < nl) {
#pragma unroll
    for (int c = 0; c < K; ++c)
      W::store(reinterpret_cast<T*>(mine + (c ^ sw)), *reinterpret_cast<const T(*)[V]>(v + c * V));
  }
  __syncthreads();
  if (vec) {
    Chunk* yv = reinterpret_cast<Chunk*>(yt);
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const int s = r * kShortThreads + tid;
      if (s < nl * K) yv[s] = tile[slot(s)];
    }
  } else {
#pragma unroll 4
    for (int r = 0; r < N; ++r) {
      const int e = r * kShortThreads + tid;
      if (e < nl * N) yt[e] = reinterpret_cast<const T*>(tile + slot(e / V))[e % V];
    }
  }
}

// ---- Launch (kernels/dct4/fft.cu at plan creation; tests/emulate/emulate_dct4.cpp) ----

template <class T>
using RowsFn = void (*)(const T*, T*, const typename RowsTypes<T>::cx*, const typename RowsTypes<T>::cx*,
                        const typename RowsTypes<T>::cx*, int, int, long long);

// One launch: kernel, threads per CTA, dynamic shared memory, lines per CTA.
template <class T>
struct RowsLaunch {
  RowsFn<T> fn = nullptr;
  int threads = 0, smem_bytes = 0, lines_per_cta = 0;
};

namespace rows_detail {
template <class T, int LGM>
RowsLaunch<T> fixed_launch(int lgm) {
  if constexpr (LGM > 11) {
    return {};
  } else {
    if (lgm != LGM) return fixed_launch<T, LGM + 1>(lgm);
    constexpr int VPT = rows_vpt(LGM);
    return {&dct4_rows_fixed<T, LGM, VPT>, rows_fixed_threads(VPT), rows_fixed_smem_bytes<T>(LGM, ilog2(VPT)),
            2048 >> LGM};
  }
}

template <class T, int LGM>
RowsLaunch<T> short_launch(int lgm) {
  if constexpr (LGM > kShortMaxLgm) {
    return {};
  } else {
    if (lgm != LGM) return short_launch<T, LGM + 1>(lgm);
    return {&dct4_rows_short<T, LGM>, kShortThreads, short_smem_bytes<T>(LGM), kShortThreads};
  }
}
}  // namespace rows_detail

// The kernel for M = 2^lgm (2 <= lgm <= 11; fn is null for any other lgm): dct4_rows_short up to M = 16,
// dct4_rows_fixed above.
template <class T>
RowsLaunch<T> rows_launch(int lgm) {
  if (lgm <= kShortMaxLgm) return rows_detail::short_launch<T, kShortMinLgm>(lgm);
  return rows_detail::fixed_launch<T, kShortMaxLgm + 1>(lgm);
}

// The even case's pre- and post-twiddles for lines of N = 2M points, in long double rounded to T: pre[n] =
// σ e^{-iπ(4n+1)/4N}, post[k] = e^{-iπk/N} (n, k < M). kernels/dct4/fft.cu and small.cu upload them.
template <class T>
struct PrePost {
  std::vector<typename RowsTypes<T>::cx> pre, post;
};
template <class T>
PrePost<T> rows_pre_post(long long n, double sig) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const long long m = n / 2;
  PrePost<T> t{std::vector<typename RowsTypes<T>::cx>(m), std::vector<typename RowsTypes<T>::cx>(m)};
  for (long long k = 0; k < m; ++k) {
    const long double a = -pi * (4 * k + 1) / (4.0L * n), b = -pi * k / static_cast<long double>(n);
    t.pre[k] = {static_cast<T>(sig * std::cos(a)), static_cast<T>(sig * std::sin(a))};
    t.post[k] = {static_cast<T>(std::cos(b)), static_cast<T>(std::sin(b))};
  }
  return t;
}

// The twiddle table for M = 2^lgm, in long double rounded to T: tw[t] = e^{-2πit/M} (t < M), then the runs of
// pass_tw_offset for VPT = rows_vpt(lgm) (each entry one of the first M, so the same rounded values; the
// kernel reads only the runs).
template <class T>
std::vector<typename RowsTypes<T>::cx> rows_twiddles(int lgm) {
  const int m = 1 << lgm;
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<typename RowsTypes<T>::cx> tw(m);
  for (int t = 0; t < m; ++t) {
    const long double a = -2 * pi * t / static_cast<long double>(m);
    tw[t] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  const int vpt = rows_vpt(lgm), lgv = rows_detail::ilog2(vpt), passes = rows_fixed_passes(lgm, lgv);
  const int r0 = 1 << (lgm - (passes - 1) * lgv);
  for (int p = 1; p < passes; ++p) {
    const int ns = r0 << (lgv * (p - 1)), step = m / (vpt * ns);
    for (int e = 1; e < vpt; e *= 2)
      for (int k = 0; k < ns; ++k) tw.push_back(tw[e * k * step]);
  }
  return tw;
}

}  // namespace dct::cuda::dct4
