#pragma once
/* Complex FFTs down the columns of a pitched complex matrix (n1 rows, w columns, row pitch P complex,
   batch matrices n1·P apart), in place, as a two-pass "four-step" FFT: cuda-fft2d's column stage for
   n1 = 1024, 2048, 4096, 8192, 16384 (na x nb = 32 x 32, 64 x 32, 64 x 64, 64 x 128, 128 x 128), replacing cuFFT's
   strided column C2C (which reads 16-byte row segments at n1 = 8192; here every CTA reads and writes 16-column =
   128-byte (f32) / 256-byte (f64) row segments). kernels/dct2d/col_fft.cu launches; tests/emulate/emulate_colfft.cpp
   checks.

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

   Inside the CTA (128 threads, L x 16 complex; thread = column c = t mod 16, j = t / 16 < 8), L = 8·R1
   (R1 = 4, 8, 16; at L = 32 only the threads j < 4 have step-2 work):
     n = j + 8m (m < R1), k = k1 + R1·k2 (k2 < 8):  W_L^{nk} = W_R1^{m·k1} · W_L^{j·k1} · W_8^{j·k2}.
     step 1: thread (c, j) loads rows j + 8m of column c straight from global memory (a half-warp reads one
       16-column row segment: 128 contiguous bytes in f32, 256 in f64), takes the R1-point DFT in registers
       (dft<R1>), multiplies output k1 by W_L^{j·k1} = tw[(N/L)·j·k1] and writes it to shared[8·k1 + j][c];
     one barrier;
     step 2: thread (c, j) takes, for k1 = j + 8q (q < R1/8), the 8-point DFT over shared[8·k1 + j'][c]
       (j' < 8) and stores output k = k1 + R1·k2 (times the outer twiddle, conjugated as asked) straight to
       global memory (again one 128/256-byte row segment per half-warp).
   Shared memory: L·16 complex, unpadded (16 complex per row: every half-warp access is one contiguous row of
   the tile, conflict free); 4 KiB (f32, L = 32) .. 32 KiB (f64, L = 128), dynamic, below the 48 KiB default.
   Global accesses are one complex per thread (8 bytes f32, 16 bytes f64), so any pitch works (no 16-byte
   alignment of f32 rows needed: the pitch of cuda-fft2d's V is n2/2 + 1 in general); a warp's load
   instruction covers two (f32) or one (f64) full 16-column row segments, the same sectors as 16-byte vectors.
   Columns >= w of the last tile are neither read nor written (their threads compute on zeros).
   Every load of a CTA happens before its barrier and every store after it, and different CTAs own disjoint
   (row, column) sets, so in place is safe.

   Twiddles: one table tw[j] = e^{−2πij/N} (j < N), built in long double and rounded to T
   (col_fft_twiddles), read through the read-only cache: inner W_L^e = tw[e·N/L], outer W_N^{(g·k) mod N}.

   Plain CUDA C++ with no host-runtime dependencies: tests/emulate/emulate_colfft.cpp compiles it on the host. */

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/common/pdl.cuh"
#include "kernels/dct4/rows.cuh"  // RowsTypes, rows_detail::{dft<R>, mul}
#include "math/dct2d.hpp"         // post_quad, pre_pair

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

// Dynamic shared memory of col_fft_pass<T, L> (tile of tw columns), bytes.
template <class T>
constexpr int smem_bytes(int l, int tw = kTile) {
  return l * tw * 2 * static_cast<int>(sizeof(T));
}

// ---- the two steps of a tile's length-L DFT (L = 8·R1; thread (c, j): column c = t mod 16, j = t / 16 < 8) ----

// Step 1: v[m] = row j + 8m of the group (m < R1) -> the R1-point DFT, output k1 times W_L^{j·k1} = tw[(j·k1) <<
// sh_in], to sh[8·k1 + j][c]. The rows a thread writes are the rows j + 8m it may have read (in place is safe).
template <int L, int TW = kTile, class C>
__device__ __forceinline__ void tile_step1(C (&v)[L / 8], C* sh, int c, int j, const C* __restrict__ tw, int sh_in) {
  using namespace dct4::rows_detail;
  constexpr int R1 = L / 8;
  dft<R1>(v);
#pragma unroll
  for (int k1 = 0; k1 < R1; ++k1) {
    if (k1 > 0) v[k1] = mul(v[k1], __ldg(tw + ((j * k1) << sh_in)));
    sh[(8 * k1 + j) * TW + c] = v[k1];
  }
}

// Step 2 for k1 (< R1): the 8-point DFT over sh[8·k1 + j'][c] (j' < 8); u[k2] is the group's output k1 + R1·k2.
template <int TW = kTile, class C>
__device__ __forceinline__ void tile_step2(C (&u)[8], const C* sh, int c, int k1) {
#pragma unroll
  for (int jj = 0; jj < 8; ++jj) u[jj] = sh[(8 * k1 + jj) * TW + c];
  dct4::rows_detail::dft<8>(u);
}

// Step 2 of tile thread j for all its k1 = j + 8q (q < ceil(R1/8); R1 = 4: threads j >= 4 have none):
// out(k1, k2, u) for the group's output k1 + R1·k2 (all 8 of a k1 are read from shared memory before the first out).
template <int R1, int TW, class C, class Out>
__device__ __forceinline__ void tile_step2_all(const C* sh, int c, int j, Out&& out) {
  if constexpr (R1 < 8) {
    if (j >= R1) return;
  }
#pragma unroll
  for (int q = 0; q < (R1 + 7) / 8; ++q) {
    const int k1 = j + 8 * q;
    C u[8];
    tile_step2<TW>(u, sh, c, k1);
#pragma unroll
    for (int k2 = 0; k2 < 8; ++k2) out(k1, k2, u[k2]);
  }
}

// Length-L DFT down the columns of the 16-column tile blockIdx.x of matrix blockIdx.z (data + z·mstride),
// group g = blockIdx.y: input rows g·gs + r·rs (r < L), output index k to row g·gs + k·rs (in place), times
// tw[(g·k) & (N−1)] with kTwiddle, conjugated on load (kConjIn) / store (kConjOut). Columns >= w untouched.
// pitch: complex elements between rows; N = 2^lg_n is the table's length (L divides N). Block: kThreads
// threads, smem_bytes<T>(L) bytes of dynamic shared memory. Requires n1·pitch < 2^32 (32-bit row offsets).
template <class T, int L>
__global__ void __launch_bounds__(kThreads)
    col_fft_pass(typename RowsTypes<T>::cx* data, const typename RowsTypes<T>::cx* __restrict__ tw, unsigned pitch,
                 unsigned w, unsigned gs, unsigned rs, unsigned long long mstride, unsigned lg_n, unsigned flags) {
  ::dct::cuda::wait_previous_grid();  // launched by launch_dependent
  using namespace dct4::rows_detail;
  using C = typename RowsTypes<T>::cx;
  constexpr int R1 = L / 8, lgL = ilog2(L);
  static_assert((L == 32 || L == 64 || L == 128) && R1 * 8 == L, "L = 32, 64 or 128");
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
  tile_step1<L>(v, sh, c, j, tw, static_cast<int>(lg_n) - lgL);  // W_L^e = tw[e << (lg_n − lgL)]
  __syncthreads();

  // Step 2: for k1 = j + 8q, the 8-point DFT over shared[8·k1 + j'][c] (j' < 8); output k = k1 + R1·k2. L = 32
  // (R1 = 4): threads j < 4 only.
  const unsigned nmask = (1u << lg_n) - 1u;
  const bool twid = (flags & kTwiddle) != 0;
  tile_step2_all<R1, kTile>(sh, c, j, [&](int k1, int k2, C r) {
    const unsigned k = unsigned(k1 + R1 * k2);
    if (twid) r = mul(r, __ldg(tw + ((g * k) & nmask)));
    if (valid) {
      C* p = base + k * rstep;
      DCT_ASSERT_ALIGNED_CX(p);
      *p = C{r.x, sout * r.y};
    }
  });
}

// ---- the last forward / first inverse pass fused with the 2-D DCT post / preprocess (math/dct2d.hpp)
// ----
/* cuda-fft2d's forward is row R2C -> column FFT (pass A, pass B) -> post_2d, which reads the spectrum rows k1 and
   N1−k1 of a column (eq. 14). With k1 = kb + nb·ka (pass B's group kb, index ka), N1 − k1 = (nb − kb) + nb·(na − 1 −
   ka) for kb > 0, and nb·((na − ka) mod na) for kb = 0: the mirror of a row of group kb lies in group nb − kb. So a CTA
   that runs pass B for the two groups g and nb − g (g = 1 .. nb/2 − 1), or 0 and nb/2 (each its own mirror), holds
   both rows of every pair it needs, and can apply the postprocess and write y directly: the spectrum is read once
   and y written once, instead of pass B's write + post_2d's read of the spectrum. The inverse runs the same
   pairing on the first pass (B'): pre_2d's math from y into shared memory, then the DFTs.
   CTA blockIdx.y = gy < nb/2 of a 16-column tile: groups gA = gy, gB = nb − gy (gy = 0: gA = 0, gB = nb/2), both in
   shared memory (region 0, 1: L x 16 complex each). The pairs are "units" r < L, plus r = L when gy = 0
   (pair_unit): frequency k1 <= N1/2 in region grp at index ka, its mirror N1 − k1 in region mgrp at index mka
   (k1 = 0 is its own mirror). Thread (c, j) takes the units r = j + 16q (q < L/16), and the unit L on thread j = 0. */

struct PairUnit {
  unsigned k1;
  int grp, ka, mgrp, mka;
};
template <int L>
__device__ __forceinline__ PairUnit pair_unit(int r, unsigned gy, unsigned ga, unsigned gb, unsigned lg_nb) {
  constexpr int kHalf = L / 2;
  const int grp = (r >= kHalf && r < L) ? 1 : 0;
  const int ka = r == L ? kHalf : (grp != 0 ? r - kHalf : r);
  const unsigned k1 = (grp != 0 ? gb : ga) + (static_cast<unsigned>(ka) << lg_nb);
  if (gy == 0) return {k1, grp, ka, grp, grp == 0 ? ((L - ka) & (L - 1)) : L - 1 - ka};
  return {k1, grp, ka, 1 - grp, L - 1 - ka};
}

// A fused CTA takes a tile of TW = 16 or 32 columns and gives each thread G = 1 or 2 of its two groups
// (fused_threads(TW, G) = TW·16/G threads): thread t is column c = t mod TW of the tile (col, valid = col < w) and
// j = t / TW < kJ = 16/G. For the DFT steps, G = 1: it works on group grp = j / 8 (region grp of shared memory) as that
// group's tile thread jl = j mod 8, so the two groups' loads are issued by different threads at once; G = 2: on both
// groups in turn as tile thread jl = j. For the post / pre units it takes r = j + kJ·q (q < L/kJ). ga, gb: the CTA's
// groups (gy = blockIdx.y). TW = 32 doubles the length of every y row segment (f64: 256 bytes) at twice the shared
// memory per CTA. The forward is fastest at TW = 32, G = 1 (col_fft_post; H200: dct2 8192² f64 1.016
// vs 1.095 ms at TW = 16), the inverse at TW = 16, G = 2 (col_fft_pre; it got slower with TW = 32 or G = 1); the
// figures: docs/decisions.md §1.1.
constexpr int fused_threads(int tw, int g) { return tw * (16 / g); }
struct FusedThread {
  int t, c, j, grp, jl;
  unsigned col, gy, ga, gb;
  bool valid;
};
template <int TW, int G>
__device__ __forceinline__ FusedThread fused_thread(unsigned w, unsigned lg_nb) {
  constexpr int lgTW = TW == 32 ? 5 : 4;
  static_assert((TW == 16 || TW == 32) && (G == 1 || G == 2), "TW = 16 or 32, G = 1 or 2");
  const int t = static_cast<int>(threadIdx.x), c = t & (TW - 1), j = t >> lgTW;
  const unsigned col = blockIdx.x * unsigned(TW) + unsigned(c), gy = blockIdx.y, nb = 1u << lg_nb;
  return {t, c, j, G == 1 ? j >> 3 : 0, G == 1 ? j & 7 : j, col, gy, gy, gy == 0 ? nb / 2 : nb - gy, col < w};
}

// The scale and twiddle tables of the two axes (AxisTables of kernels/dct2d/prepost.cuh: forward s = fs, inverse s =
// ia).
template <class T>
struct Dct2dTables {
  const typename RowsTypes<T>::cx* tw1;
  const T* s1;
  const typename RowsTypes<T>::cx* tw2;
  const T* s2;
};

// Dynamic shared memory of the fused passes (tile of tw columns), bytes: two groups, then (col_fft_post) the row tables
// of its units r <= L: tw1[k1] (L + 1 complex) and s1[k1], s1[n1 − k1] (2 (L + 1) reals).
template <class T>
constexpr int fused_smem_bytes(int l, int tw = kTile) {
  return 2 * smem_bytes<T>(l, tw) + (l + 1) * 4 * static_cast<int>(sizeof(T));
}

// Forward pass B (L = na, rows r + na·g of group g, no twiddle) for the groups of CTA blockIdx.y, fused with
// post_2d: y (n1 x n2 real, matrices n1·n2 apart) from the spectrum data (pitch, w = n2/2 + 1 columns, after pass
// A). n1 = 2^lg_n = na·nb, nb = 2^lg_nb; grid (tiles, nb/2, batch); fused_smem_bytes<T>(L) of shared memory.
template <class T, int L, int TW>
__global__ void __launch_bounds__(fused_threads(TW, 1))
    col_fft_post(const typename RowsTypes<T>::cx* __restrict__ data, T* __restrict__ y,
                 const typename RowsTypes<T>::cx* __restrict__ tw, Dct2dTables<T> tab, unsigned pitch, unsigned w,
                 unsigned n2, unsigned long long mstride, unsigned lg_n, unsigned lg_nb) {
  ::dct::cuda::wait_previous_grid();  // launched by launch_dependent
  using C = typename RowsTypes<T>::cx;
  constexpr int R1 = L / 8, lgR1 = dct4::rows_detail::ilog2(R1), lgL = dct4::rows_detail::ilog2(L);
  extern __shared__ __align__(16) unsigned char colfft_smem[];
  C* const sh = reinterpret_cast<C*>(colfft_smem);

  const auto [t, c, j, grp, jl, col, gy, ga, gb, valid] = fused_thread<TW, 1>(w, lg_nb);
  const C* const base = data + blockIdx.z * mstride + col;
  const unsigned n1 = 1u << lg_n, k2 = col, m2 = n2 - k2;

  // The tables of the postprocess. f64: fetched first so that their latency overlaps the spectrum's, the row tables
  // of the CTA's units (one unit per thread) into shared memory after the groups (kTablesFirst). f32: read where
  // used (dct2 8192², tables first vs where used, H200: f64 1.09 vs 1.12 ms, f32 0.573 vs 0.525 ms;
  // other sizes in docs/decisions.md §1.1).
  constexpr bool kTablesFirst = sizeof(T) == 8;
  C* const s_tw1 = sh + 2 * L * TW;
  T* const s_s1 = reinterpret_cast<T*>(s_tw1 + (L + 1));
  if constexpr (kTablesFirst) {
    for (int r = t; r <= L; r += fused_threads(TW, 1)) {
      const unsigned k1 = pair_unit<L>(r, gy, ga, gb, lg_nb).k1;
      s_tw1[r] = tab.tw1[k1];
      s_s1[2 * r] = tab.s1[k1];
      s_s1[2 * r + 1] = tab.s1[(n1 - k1) & (n1 - 1)];
    }
  }
  const bool mir2 = k2 != 0 && 2 * k2 != n2;
  const C w2 = valid ? tab.tw2[k2] : C{T(0), T(0)};
  const T f2a = valid ? tab.s2[k2] : T(0), f2b = valid ? tab.s2[mir2 ? m2 : k2] : T(0);

  // Pass B, step 1, the thread's group: rows g·L + jl + 8m.
  C* const shg = sh + grp * L * TW;
  {
    const unsigned row0 = (grp != 0 ? gb : ga) * unsigned(L) + unsigned(jl);
    C v[R1];
#pragma unroll
    for (int m = 0; m < R1; ++m) {
      if (valid) {
        const C* p = base + (row0 + unsigned(8 * m)) * pitch;
        DCT_ASSERT_ALIGNED_CX(p);
        v[m] = *p;
      } else {
        v[m] = C{T(0), T(0)};
      }
    }
    tile_step1<L, TW>(v, shg, c, jl, tw, static_cast<int>(lg_n) - lgL);
  }
  __syncthreads();
  // Step 2 in place: output ka of a group to its row 8·(ka mod R1) + ka / R1.
  tile_step2_all<R1, TW>(shg, c, jl, [&](int k1, int k2, C u) { shg[(8 * k1 + k2) * TW + c] = u; });
  __syncthreads();
  if (!valid) return;

  // The postprocess of every unit of the CTA (post_2d_kernel's index rules and scaling).
  T* const yb = y + blockIdx.z * (static_cast<unsigned long long>(n1) * n2);
  const auto slot = [&](int g, int ka) { return sh[(g * L + 8 * (ka & (R1 - 1)) + (ka >> lgR1)) * TW + c]; };
  const auto unit = [&](int r) {
    const PairUnit p = pair_unit<L>(r, gy, ga, gb, lg_nb);
    const dct2d::Quad<C> o =
        dct2d::post_quad(slot(p.grp, p.ka), slot(p.mgrp, p.mka), kTablesFirst ? s_tw1[r] : tab.tw1[p.k1], w2);
    dct2d::store_quad(yb, p.k1, n1, n2, k2, m2, mir2, o, kTablesFirst ? s_s1[2 * r] : tab.s1[p.k1], f2a, f2b,
                      [&] { return kTablesFirst ? s_s1[2 * r + 1] : tab.s1[n1 - p.k1]; });
  };
  // Unrolled, so that the table loads and shared reads of all units are in flight together.
#pragma unroll
  for (int q = 0; q < L / 16; ++q) unit(j + 16 * q);
  if (gy == 0 && j == 0) unit(L);
}

// Inverse pass B' (conjugated input, twiddle, no conjugated output) for the groups of CTA blockIdx.y, fused with
// pre_2d: its input V(k1, k2) computed from y (n1 x n2 real, matrices n1·n2 apart, pre_2d's index rules and
// scaling) into shared memory instead of read from data; output to data (pitch, w = n2/2 + 1 columns) for pass A'.
// Grid and shared memory as col_fft_post; fused_threads(TW, G) threads.
template <class T, int L, int TW, int G>
__global__ void __launch_bounds__(fused_threads(TW, G))
    col_fft_pre(const T* __restrict__ y, typename RowsTypes<T>::cx* __restrict__ data,
                const typename RowsTypes<T>::cx* __restrict__ tw, Dct2dTables<T> tab, unsigned pitch, unsigned w,
                unsigned n2, unsigned long long mstride, unsigned lg_n, unsigned lg_nb) {
  ::dct::cuda::wait_previous_grid();  // launched by launch_dependent
  using namespace dct4::rows_detail;
  using C = typename RowsTypes<T>::cx;
  constexpr int R1 = L / 8, lgL = ilog2(L);
  extern __shared__ __align__(16) unsigned char colfft_smem[];
  C* const sh = reinterpret_cast<C*>(colfft_smem);

  const auto [t, c, j, grp, jl, col, gy, ga, gb, valid] = fused_thread<TW, G>(w, lg_nb);
  const unsigned n1 = 1u << lg_n;
  constexpr int kJ = 16 / G;

  // The preprocess of every unit: conj V(k1, k2) and conj V(N1 − k1, k2) to their rows ka / mka of the group. The
  // four reads of every unit of the thread are issued before any arithmetic (they come from DRAM).
  {
    const unsigned k2 = col, m2 = n2 - k2;
    const bool has2 = k2 != 0;
    const C w2 = valid ? tab.tw2[k2] : C{T(0), T(0)};
    const T g2a = valid ? tab.s2[k2] : T(0), g2b = valid && has2 ? tab.s2[m2] : T(0);
    const T* const yb = y + blockIdx.z * (static_cast<unsigned long long>(n1) * n2);
    const auto load = [&](const PairUnit& p, T(&r)[4]) {
      const bool has1 = p.k1 != 0;
      const unsigned m1 = n1 - p.k1;
      r[0] = valid ? yb[p.k1 * n2 + k2] : T(0);
      r[1] = valid && has2 ? yb[p.k1 * n2 + m2] : T(0);
      r[2] = valid && has1 ? yb[m1 * n2 + k2] : T(0);
      r[3] = valid && has1 && has2 ? yb[m1 * n2 + m2] : T(0);
    };
    const auto store = [&](const PairUnit& p, const T(&r)[4]) {
      const bool has1 = p.k1 != 0;
      const T g1a = valid ? tab.s1[p.k1] : T(0), g1b = valid && has1 ? tab.s1[n1 - p.k1] : T(0);
      const C w1 = valid ? tab.tw1[p.k1] : C{T(0), T(0)};
      const dct2d::Quad<C> v =
          dct2d::pre_pair(g1a * g2a * r[0], g1a * g2b * r[1], g1b * g2a * r[2], g1b * g2b * r[3], w1, w2);
      sh[(p.grp * L + p.ka) * TW + c] = C{v.k1.x, -v.k1.y};
      if (has1 && 2 * p.k1 != n1) sh[(p.mgrp * L + p.mka) * TW + c] = C{v.m1.x, -v.m1.y};
    };
    T r[L / kJ][4];
#pragma unroll
    for (int q = 0; q < L / kJ; ++q) load(pair_unit<L>(j + kJ * q, gy, ga, gb, lg_nb), r[q]);
#pragma unroll
    for (int q = 0; q < L / kJ; ++q) store(pair_unit<L>(j + kJ * q, gy, ga, gb, lg_nb), r[q]);
    if (gy == 0 && j == 0) {
      const PairUnit p = pair_unit<L>(L, gy, ga, gb, lg_nb);
      load(p, r[0]);
      store(p, r[0]);
    }
  }
  __syncthreads();
  // Pass B', step 1, the thread's group(s), in place in shared memory (rows jl + 8m of the group).
#pragma unroll
  for (int gi = 0; gi < G; ++gi) {
    C* const shg = sh + (G == 1 ? grp : gi) * L * TW;
    C v[R1];
#pragma unroll
    for (int m = 0; m < R1; ++m) v[m] = shg[(jl + 8 * m) * TW + c];
    tile_step1<L, TW>(v, shg, c, jl, tw, static_cast<int>(lg_n) - lgL);
  }
  __syncthreads();
  // Step 2: output k of group g times tw[(g·k) mod N] to row g·L + k.
  const unsigned nmask = n1 - 1u;
#pragma unroll
  for (int gi = 0; gi < G; ++gi) {
    const int gr = G == 1 ? grp : gi;
    const unsigned g = gr != 0 ? gb : ga;
    C* const shg = sh + gr * L * TW;
    C* const base = data + blockIdx.z * mstride + (static_cast<unsigned long long>(g * unsigned(L)) * pitch + col);
    tile_step2_all<R1, TW>(shg, c, jl, [&](int k1, int k2, C u) {
      const unsigned k = unsigned(k1 + R1 * k2);
      const C r = mul(u, __ldg(tw + ((g * k) & nmask)));
      if (valid) {
        C* p = base + k * pitch;
        DCT_ASSERT_ALIGNED_CX(p);
        *p = r;
      }
    });
  }
}

// ---- passes and table (host) ----

template <class T>
using ColFftFn = void (*)(typename RowsTypes<T>::cx*, const typename RowsTypes<T>::cx*, unsigned, unsigned, unsigned,
                          unsigned, unsigned long long, unsigned, unsigned);

// One pass: DFT length l over rows g·gs + r·rs of the groups g < groups, flags as col_fft_pass.
struct ColPass {
  int l = 0;
  unsigned gs = 0, rs = 0, groups = 0, flags = 0;
};

// The two passes of N = 2^(lg_na + lg_nb) in launch order (forward: A then B; inverse: B' then A').
inline void col_fft_plan(int lg_na, int lg_nb, bool inverse, ColPass out[2]) {
  const unsigned na = 1u << lg_na, nb = 1u << lg_nb;
  const ColPass a{static_cast<int>(nb), 1u, na, na, 0u};  // strided: group g = na_idx, rows g + na·r
  const ColPass b{static_cast<int>(na), na, 1u, nb, 0u};  // contiguous: group g = kb, rows r + na·g
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
  return l == 32 ? &col_fft_pass<T, 32> : l == 64 ? &col_fft_pass<T, 64> : l == 128 ? &col_fft_pass<T, 128> : nullptr;
}

template <class T>
using ColFusedPostFn = void (*)(const typename RowsTypes<T>::cx*, T*, const typename RowsTypes<T>::cx*, Dct2dTables<T>,
                                unsigned, unsigned, unsigned, unsigned long long, unsigned, unsigned);
template <class T>
using ColFusedPreFn = void (*)(const T*, typename RowsTypes<T>::cx*, const typename RowsTypes<T>::cx*, Dct2dTables<T>,
                               unsigned, unsigned, unsigned, unsigned long long, unsigned, unsigned);
// The fused kernels of L = 32 / 64 / 128: col_fft_post with a tile of tw = 16 / 32 columns (fused_threads(tw, 1)
// threads), col_fft_pre with 16 columns and g = 1 / 2 groups per thread (fused_threads(16, g) threads).
template <class T>
ColFusedPostFn<T> col_fft_post_kernel(int l, int tw) {
  if (tw == 32)
    return l == 32    ? &col_fft_post<T, 32, 32>
           : l == 64  ? &col_fft_post<T, 64, 32>
           : l == 128 ? &col_fft_post<T, 128, 32>
                      : nullptr;
  return l == 32    ? &col_fft_post<T, 32, 16>
         : l == 64  ? &col_fft_post<T, 64, 16>
         : l == 128 ? &col_fft_post<T, 128, 16>
                    : nullptr;
}
template <class T>
ColFusedPreFn<T> col_fft_pre_kernel(int l, int g) {
  if (g == 1)
    return l == 32    ? &col_fft_pre<T, 32, 16, 1>
           : l == 64  ? &col_fft_pre<T, 64, 16, 1>
           : l == 128 ? &col_fft_pre<T, 128, 16, 1>
                      : nullptr;
  return l == 32    ? &col_fft_pre<T, 32, 16, 2>
         : l == 64  ? &col_fft_pre<T, 64, 16, 2>
         : l == 128 ? &col_fft_pre<T, 128, 16, 2>
                    : nullptr;
}

// tw[j] = e^{−2πij/N}, j < N, in long double rounded to T.
template <class T>
std::vector<typename RowsTypes<T>::cx> col_fft_twiddles(int lg_n) {
  const long long n = 1LL << lg_n;
  std::vector<typename RowsTypes<T>::cx> tw(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    const long double a =
        -2.0L * 3.141592653589793238462643383279502884L * static_cast<long double>(i) / static_cast<long double>(n);
    tw[static_cast<std::size_t>(i)] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  return tw;
}

}  // namespace dct::cuda::colfft
