#pragma once
/* Complex FFTs down the columns of a pitched complex matrix (n1 rows, w columns, row pitch P complex,
   batch matrices n1·P apart), in place, as a two-pass "four-step" FFT: cuda-fft2d's column stage for
   n1 = 4096, 8192, 16384 (na x nb = 64 x 64, 64 x 128, 128 x 128), replacing cuFFT's strided column C2C
   (which reads 16-byte row segments at n1 = 8192; here every CTA reads and writes 16-column = 128-byte (f32)
   / 256-byte (f64) row segments). kernels/col_fft.cu launches; scripts/colfft-emulate.sh checks.

   Math, N = na·nb, W_N = e^{−2πi/N}, n = na_idx + na·nb_idx, k = kb + nb·ka (na_idx, ka < na; nb_idx, kb < nb):
     W_N^{nk} = W_N^{na_idx·kb} · W_na^{na_idx·ka} · W_nb^{nb_idx·kb}      (W_N^{N·nb_idx·ka} = 1).
   Forward (unnormalized, natural rows in, rows PERMUTED out):
     pass A (strided, group g = na_idx, rows g + na·r, r < nb): X_g(kb) = Σ_r x[g + na·r] W_nb^{r·kb}, times
       W_N^{g·kb}, written in place to row g + na·kb;
     pass B (contiguous, group g = kb, rows r + na·g, r < na): Σ_r (·)[r + na·g] W_na^{r·ka} to row ka + na·g.
     Frequency k = kb + nb·ka ends at row ka + na·kb:  row_of(k) = (k >> lg_nb) + ((k & (nb−1)) << lg_na).
   Inverse (unnormalized, cuFFT C2C inverse: x[n] = Σ_k X[k] e^{+2πink/N}, rows permuted in, natural out),
   as conj(F(conj X)): x[n] = conj Σ_k conj(X[k]) W_N^{nk}, summing over ka first:
     pass B' (contiguous, group g = kb, rows r + na·g): conj on load, Σ_ka W_na^{ka·na_idx} to row
       na_idx + na·g, times the forward twiddle W_N^{g·na_idx} (the conjugated intermediate);
     pass A' (strided, group g = na_idx, rows g + na·r): Σ_kb W_nb^{kb·nb_idx} to row g + na·nb_idx, conj on
       store.
   So one kernel serves all four passes: col_fft_pass<T, L> does, for every column of its 16-column tile, the
   length-L DFT over the rows g·gs + r·rs (r < L) of group g = blockIdx.y, output index k to row g·gs + k·rs,
   optionally times tw[(g·k) mod N] (kTwiddle) and conjugated on load (kConjIn) / store (kConjOut).
   col_fft_plan gives the two passes of a direction (shared with the emulator).

   Inside the CTA (128 threads, L x 16 complex; thread = column c = t mod 16, j = t / 16 < 8), L = 8·R1:
     n = j + 8m (m < R1), k = k1 + R1·k2 (k2 < 8):  W_L^{nk} = W_R1^{m·k1} · W_L^{j·k1} · W_8^{j·k2}.
     step 1: thread (c, j) loads rows j + 8m of column c straight from global memory (a half-warp reads one
       16-column row segment: 128 contiguous bytes in f32, 256 in f64), takes the R1-point DFT in registers
       (dft<R1>), multiplies output k1 by W_L^{j·k1} = tw[(N/L)·j·k1] and writes it to shared[8·k1 + j][c];
     one barrier;
     step 2: thread (c, j) takes, for k1 = j + 8q (q < R1/8), the 8-point DFT over shared[8·k1 + j'][c]
       (j' < 8) and stores output k = k1 + R1·k2 (times the outer twiddle, conjugated as asked) straight to
       global memory (again one 128/256-byte row segment per half-warp).
   Shared memory: L·16 complex, unpadded (16 complex per row: every half-warp access is one contiguous row of
   the tile, conflict free); 8 KiB (f32, L = 64) .. 32 KiB (f64, L = 128), dynamic, below the 48 KiB default.
   Global accesses are one complex per thread (8 bytes f32, 16 bytes f64), so any pitch works (no 16-byte
   alignment of f32 rows needed: the pitch of cuda-fft2d's V is n2/2 + 1 in general); a warp's load
   instruction covers two (f32) or one (f64) full 16-column row segments, the same sectors as 16-byte vectors.
   Columns >= w of the last tile are neither read nor written (their threads compute on zeros).
   Every load of a CTA happens before its barrier and every store after it, and different CTAs own disjoint
   (row, column) sets, so in place is safe.

   Twiddles: one table tw[j] = e^{−2πij/N} (j < N), built in long double and rounded to T
   (col_fft_twiddles), read through the read-only cache: inner W_L^e = tw[e·N/L], outer W_N^{(g·k) mod N}.

   Plain CUDA C++ with no host-runtime dependencies: scripts/colfft-emulate.sh compiles it on the host. */

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/dct4_rows.cuh"  // RowsTypes, rows_detail::{dft<R>, mul}

// The host emulator defines this to check the natural (sizeof complex) alignment of the global accesses.
#ifndef DCT_ASSERT_ALIGNED_CX
#define DCT_ASSERT_ALIGNED_CX(p)
#endif

namespace dct::cuda::colfft {

using dct4::RowsTypes;

constexpr int kThreads = 128;  // per CTA
constexpr int kTile = 16;      // columns per CTA

// Flags of a pass.
constexpr unsigned kTwiddle = 1, kConjIn = 2, kConjOut = 4;

// Dynamic shared memory of col_fft_pass<T, L>, bytes.
template <class T>
constexpr int smem_bytes(int l) {
  return l * kTile * 2 * static_cast<int>(sizeof(T));
}

// Length-L DFT down the columns of the 16-column tile blockIdx.x of matrix blockIdx.z (data + z·mstride),
// group g = blockIdx.y: input rows g·gs + r·rs (r < L), output index k to row g·gs + k·rs (in place), times
// tw[(g·k) & (N−1)] with kTwiddle, conjugated on load (kConjIn) / store (kConjOut). Columns >= w untouched.
// pitch: complex elements between rows; N = 2^lg_n is the table's length (L divides N). Block: kThreads
// threads, smem_bytes<T>(L) bytes of dynamic shared memory. Requires n1·pitch < 2^32 (32-bit row offsets).
template <class T, int L>
__global__ void __launch_bounds__(kThreads)
    col_fft_pass(typename RowsTypes<T>::cx* data, const typename RowsTypes<T>::cx* __restrict__ tw,
                 unsigned pitch, unsigned w, unsigned gs, unsigned rs, unsigned long long mstride, unsigned lg_n,
                 unsigned flags) {
  using namespace dct4::rows_detail;
  using C = typename RowsTypes<T>::cx;
  constexpr int R1 = L / 8, lgL = ilog2(L);
  static_assert((L == 64 || L == 128) && R1 * 8 == L, "L = 64 or 128");
  extern __shared__ __align__(16) unsigned char colfft_smem[];
  C* const sh = reinterpret_cast<C*>(colfft_smem);

  const int t = static_cast<int>(threadIdx.x), c = t & (kTile - 1), j = t >> 4;
  const unsigned col = blockIdx.x * unsigned(kTile) + unsigned(c), g = blockIdx.y;
  const bool valid = col < w;
  C* const base = data + blockIdx.z * mstride + (static_cast<unsigned long long>(g * gs) * pitch + col);
  const unsigned rstep = rs * pitch;  // complex elements between consecutive r
  const T s_in = (flags & kConjIn) ? T(-1) : T(1), sout = (flags & kConjOut) ? T(-1) : T(1);

  // Step 1: rows j + 8m, the R1-point DFT over m, the inner twiddles W_L^{j·k1}, to shared[8·k1 + j][c].
  C v[R1];
#pragma unroll
  for (int m = 0; m < R1; ++m) {
    if (valid) {
      const C* p = base + static_cast<unsigned>(j + 8 * m) * rstep;
      DCT_ASSERT_ALIGNED_CX(p);
      const C a = *p;
      v[m] = C{a.x, s_in * a.y};
    } else {
      v[m] = C{T(0), T(0)};
    }
  }
  dft<R1>(v);
  const int sh_in = lg_n - lgL;  // W_L^e = tw[e << (lg_n − lgL)]
#pragma unroll
  for (int k1 = 0; k1 < R1; ++k1) {
    if (k1 > 0) v[k1] = mul(v[k1], __ldg(tw + ((j * k1) << sh_in)));
    sh[(8 * k1 + j) * kTile + c] = v[k1];
  }
  __syncthreads();

  // Step 2: for k1 = j + 8q, the 8-point DFT over shared[8·k1 + j'][c] (j' < 8); output k = k1 + R1·k2.
  const unsigned nmask = (1u << lg_n) - 1u;
  const bool twid = (flags & kTwiddle) != 0;
#pragma unroll
  for (int q = 0; q < R1 / 8; ++q) {
    const int k1 = j + 8 * q;
    C u[8];
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) u[jj] = sh[(8 * k1 + jj) * kTile + c];
    dft<8>(u);
#pragma unroll
    for (int k2 = 0; k2 < 8; ++k2) {
      const unsigned k = unsigned(k1 + R1 * k2);
      C r = u[k2];
      if (twid) r = mul(r, __ldg(tw + ((g * k) & nmask)));
      if (valid) {
        C* p = base + k * rstep;
        DCT_ASSERT_ALIGNED_CX(p);
        *p = C{r.x, sout * r.y};
      }
    }
  }
}

// ---- passes and table (host) ----

template <class T>
using ColFftFn = void (*)(typename RowsTypes<T>::cx*, const typename RowsTypes<T>::cx*, unsigned, unsigned,
                          unsigned, unsigned, unsigned long long, unsigned, unsigned);

// One pass: DFT length l over rows g·gs + r·rs of the groups g < groups, flags as col_fft_pass.
struct ColPass {
  int l = 0;
  unsigned gs = 0, rs = 0, groups = 0, flags = 0;
};

// The two passes of N = 2^(lg_na + lg_nb) in launch order (forward: A then B; inverse: B' then A').
inline void col_fft_plan(int lg_na, int lg_nb, bool inverse, ColPass out[2]) {
  const unsigned na = 1u << lg_na, nb = 1u << lg_nb;
  const ColPass a{static_cast<int>(nb), 1u, na, na, 0u};   // strided: group g = na_idx, rows g + na·r
  const ColPass b{static_cast<int>(na), na, 1u, nb, 0u};   // contiguous: group g = kb, rows r + na·g
  if (!inverse) {
    out[0] = a;
    out[0].flags = kTwiddle;
    out[1] = b;
  } else {
    out[0] = b;
    out[0].flags = kConjIn | kTwiddle;
    out[1] = a;
    out[1].flags = kConjOut;
  }
}

template <class T>
ColFftFn<T> col_fft_kernel(int l) {
  return l == 64 ? &col_fft_pass<T, 64> : l == 128 ? &col_fft_pass<T, 128> : nullptr;
}

// tw[j] = e^{−2πij/N}, j < N, in long double rounded to T.
template <class T>
std::vector<typename RowsTypes<T>::cx> col_fft_twiddles(int lg_n) {
  const long long n = 1LL << lg_n;
  std::vector<typename RowsTypes<T>::cx> tw(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    const long double a = -2.0L * 3.141592653589793238462643383279502884L * static_cast<long double>(i) /
                          static_cast<long double>(n);
    tw[static_cast<std::size_t>(i)] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  return tw;
}

}  // namespace dct::cuda::colfft
