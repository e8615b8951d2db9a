#pragma once
/* One-pass column stage of cuda-fft2d's 2-D DCT for N1 = 2048 (na x nb = 64 x 32): col_fft1_post = pass A + pass B
   + post_2d (spectrum -> y), col_fft1_pre = pre_2d + pass B' + pass A' (y -> spectrum), each ONE kernel in which a
   CTA holds all 2048 rows of C columns in shared memory (2048·C complex: 128 KiB at f32 C = 8 or f64 C = 4). The
   spectrum is read once and y written once (forward), y read once and the spectrum written once (inverse), with no
   intermediate round trip through L2 / DRAM. Same results as the two-kernel routes of kernels/dct2d/col_fft.cuh (pass A
   + col_fft_post<T, 64>; col_fft_pre<T, 64> + pass A'), whose header derives the math; the notation is the same: n = g
   + 64·r (g = na_idx < 64, r = nb_idx < 32),  k1 = kb + 32·ka (kb < 32, ka < 64), W_2048^{n·k1} = W_2048^{g·kb} ·
   W_64^{g·ka} · W_32^{r·kb}. tests/emulate/emulate_colfft_onepass.cpp checks both kernels on the host against a
   long-double reference and against the two-kernel routes.

   Launch: grid (ceil(w / C), 1, batch), kOnepassThreads = 512 threads, onepass_smem_bytes<T, C>() of dynamic shared
   memory (above 48 KiB: cudaFuncAttributeMaxDynamicSharedMemorySize). CTA x owns spectrum columns k2 = C·x + c (c < C);
   columns >= w are computed on zeros and neither read nor written. C = 2, 4 or 8 (f32), 2 or 4 (f64).

   Shared memory: sh[row][c], "row" 0 .. 2047 a row of the CTA's C-column tile, C complex per row, stored at
   phys(row)·C + c with the XOR swizzle phys(row) = row ^ ((row >> 3) & (P − 1)), P = 128 / (C·sizeof(complex)) rows
   per 128 bytes (f32 C = 8: 2, f32 C = 4: 4, f64 C = 4: 2). A shared access of a warp is served 128 bytes at a time
   (8-byte complex: a half-warp; 16-byte: a quarter-warp), i.e. by lanes with all C columns c and P consecutive values
   of the next index of the thread mapping (below); it is conflict free when those P rows have distinct phys(row) mod
   P, which holds when the rows differ only in bits 0 .. lgP−1 (phys keeps them distinct) or only in bits 3 .. 3+lgP−1
   with equal bits 0..2 (phys moves the difference into bits 0..lgP−1). No padding: exactly 2048·C complex, then
   the postprocess's row tables s1 and tw1 (onepass_smem_bytes; used by col_fft1_post only).

   Thread mapping: every phase is a set of "virtual threads" v = c + C·(a + A·b) (c fastest, then the phase's index a
   with A values, then b), run as v = t + 512·i, i < (count / 512), fully unrolled; c = t mod C is fixed per thread. A
   warp's global accesses are thus whole C-column row segments (C·8 / C·16 bytes) of 32/C consecutive values of a.

   Forward, col_fft1_post:
   phase A (pass A: 64 groups g, the 32-point DFT over r of rows g + 64·r, output kb times W_2048^{g·kb}), as
     col_fft_pass<T, 32>'s two tile steps, r = j + 8·m (j < 8, m < 4), kb = k1 + 4·k2 (k1 < 4, k2 < 8):
     step 1, virtual thread (c, a = g, b = j): loads rows g + 64·(j + 8m) from global (all loads of the thread before
       any arithmetic), dft<4> over m, output k1 times W_32^{j·k1} = tw[64·j·k1], to sh[g + 64·(8·k1 + j)];
     step 2, (c, a = g, b = k1 < 4): the 8-point DFT over sh[g + 64·(8·k1 + j')] (j' < 8), output k2 (kb = k1 + 4·k2)
       times W_2048^{g·kb} = tw[(g·kb) mod 2048], back in place to sh[g + 64·(8·k1 + k2)].
     So kb of group g is at row g + 64·sA(kb), sA(kb) = 8·(kb mod 4) + kb/4. At C = 8 a thread's 8 virtual threads of
     step 1 are the 8 j of one group (v = c + 8·g + 512·j): the thread holds all 32 rows of group g and does step 2
     in registers (no shared round trip, no barrier between the steps); at C < 8 the steps are separated by a barrier.
     Banks (a = g): rows differ in bits 0..lgP−1 of g: conflict free (1-way), step 1 writes and step 2 reads/writes.
   phase B (pass B: for each kb, the 64-point DFT over g of the contiguous rows 64·sA(kb) + g, output ka), as
     col_fft_pass<T, 64>'s steps, g = j + 8·m, ka = k1 + 8·k2 (j, m, k1, k2 < 8), in place:
     step 1, (c, a = j, b = kb): reads local rows j + 8m, dft<8> over m, times W_64^{j·k1} = tw[32·j·k1], writes local
       rows 8·k1 + j (the same set {j + 8m}: in place is safe); barrier;
     step 2, (c, a = k1, b = kb): reads local rows 8·k1 + j', dft<8>, output ka = k1 + 8·k2 to local 8·k1 + k2.
     So frequency k1 = kb + 32·ka is at row fwd_row(k1) = 64·sA(kb) + 8·(ka mod 8) + ka/8.
     Banks: step 1 rows differ in bits 0..lgP−1 (j), step 2 in bits 3..3+lgP−1 (k1) with bits 0..2 equal (j'):
     conflict free.
   phase P (post_2d, eq. 14/17): unit k1 = kb + 32·ka < 1024, virtual thread (c, a = ka < 32, b = kb), plus the unit
     k1 = 1024 on the threads of unit 0 (t < C): A = V(k1) = sh[fwd_row(k1)], B = V((2048 − k1) mod 2048), post_quad
     with tw1[k1], tab.tw2[k2] and store_quad with s1 / tab.s2 exactly as col_fft_post (tw1 and s1 copied into shared
     memory after the 2048·C complex while phase A's loads are in flight; mir2, the k1 = 0 and
     k1 = 1024 rules: every element of y written once). The mirror of kb > 0 is kb' = 32 − kb, ka' = 63 − ka, of
     kb = 0 it is kb' = 0, ka' = (64 − ka) mod 64. Banks: the P lanes of a unit read rows differing in bits 3..3+lgP−1
     (ka mod 8) with equal bits 0..2 (ka/8): A conflict free, B too for kb > 0 (ka' mod 8 = 7 − ka mod 8, ka'/8 =
     7 − ka/8); B of the kb = 0 units is not (ka' = 64 − 8a and 63 − 8a land in one bank group): 4 of the 256 (f32
     C = 8) / 128 (C = 4) warp-wide B reads take 1.5x (f32) / 1.25x (f64) the wavefronts of a conflict-free access.
     y: lanes c of a unit write C consecutive reals of row k1 (and C of row 2048 − k1, columns n2 − k2 going down).

   Inverse, col_fft1_pre (x[n] = conj Σ conj(X[k1]) W_2048^{n·k1}, col_fft.cuh's pass B' then pass A'):
   phase P' (pre_2d, eq. 15): units as phase P, the four y reads of 8 units of the thread issued before their
     arithmetic; conj V(k1) to sh[inv_row(k1)], conj V(2048 − k1) to sh[inv_row(2048 − k1)] (not for k1 = 0, 1024),
     inv_row(k1) = 64·kb + ka (group kb contiguous, ka natural). Banks: rows differ in bits 0..lgP−1 (ka): conflict
     free; the mirrors (ka' = 63 − ka) too, except kb = 0's (3 warp-wide writes at 1.5x / 1.25x, as phase P). barrier.
   phase B' (for each kb, the 64-point DFT over ka of rows 64·kb + ka, output na = g, times W_2048^{kb·na}): the steps
     of phase B on local rows (inputs ka = j + 8m); output na = k1 + 8·k2 times tw[(kb·na) mod 2048] to local
     8·k1 + k2. So (kb, na) is at row 64·kb + loc(na), loc(na) = 8·(na mod 8) + na/8. Banks as phase B.
   phase A' (for each na, the 32-point DFT over kb, output nb = r, conjugated, to data row na + 64·nb): the steps of
     phase A on "slots" kb = j + 8m at rows 64·kb + loc(na) (step 1 in place: slots j + 8m -> 8·k1 + j), nb = k1 +
     4·k2, virtual threads (c, a = na, b = j or k1), step 2 stores to global (C = 8: one thread per group, in
     registers). Banks: rows differ in loc(na)'s bits 3..3+lgP−1 with equal bits 0..2: conflict free. Global: lanes
     write C columns of 32/C consecutive rows na.

   The degrees above were counted per warp instruction for f32 C = 2, 4, 8 and f64 C = 2, 4 (max distinct 4-byte words
   per bank over the ideal 32·size/128); every other shared access is conflict free.
   Registers (ptxas, nvcc 12, sm_90, launch bounds 512 x 1: at most 128 per thread, no spills): post<f32, 8> 128,
   pre<f32, 8> 128, post<f32, 4> 119, pre<f32, 4> 126, post<f64, 4> 128, pre<f64, 4> 128. Plain CUDA C++ with no
   host-runtime dependencies (the emulator compiles it on the host). */

#include "kernels/dct2d/col_fft.cuh"  // RowsTypes, Dct2dTables, dct2d::{post_quad, store_quad, pre_pair}, rows_detail

namespace dct::cuda::colfft {

constexpr int kOnepassThreads = 512;  // per CTA

// Dynamic shared memory of col_fft1_post / col_fft1_pre<T, C>, bytes: 2048 rows of C complex, then (col_fft1_post) the
// row tables of the postprocess: s1[0 .. 2047] and tw1[0 .. 1024] (kTabS1, kTabTw1: their offsets in T).
constexpr int kTabS1 = 0, kTabTw1 = 2048, kTabEnd = kTabTw1 + 2 * 1025 + 2;  // + 2: 16-byte multiple for f32
template <class T, int C>
constexpr int onepass_smem_bytes() {
  return (2048 * C * 2 + kTabEnd) * static_cast<int>(sizeof(T));
}

namespace onepass_detail {

constexpr unsigned kN1 = 2048, kNMask = kN1 - 1;

template <class T, int C>
struct Tile {
  using cx = typename RowsTypes<T>::cx;
  static constexpr int lgC = dct4::rows_detail::ilog2(C);
  static constexpr int kP = 128 / (C * static_cast<int>(sizeof(cx)));  // rows per 128 bytes
  static_assert((C == 2 || C == 4 || C == 8) && (1 << lgC) == C, "C = 2, 4 or 8 columns");
  static_assert(kP >= 1 && kP <= 8, "P <= 8 (the swizzle moves bits 3..5 into bits 0..2)");
  static_assert(onepass_smem_bytes<T, C>() <= 227 * 1024, "2048 x C complex must fit in 227 KiB");
  // Element index of (row r, column c) in shared memory.
  __device__ __forceinline__ static int at(int r, int c) { return ((r ^ ((r >> 3) & (kP - 1))) << lgC) + c; }
};

// Forward: the row of kb's output of pass A in its group (sA), and the row of frequency k1 after pass B.
__device__ __forceinline__ int slot_a(int kb) { return 8 * (kb & 3) + (kb >> 2); }
__device__ __forceinline__ int fwd_row(unsigned k1) {
  const int kb = static_cast<int>(k1 & 31u), ka = static_cast<int>(k1 >> 5);
  return 64 * slot_a(kb) + 8 * (ka & 7) + (ka >> 3);
}
// Inverse: the row of frequency k1 before pass B' (group kb contiguous, ka natural).
__device__ __forceinline__ int inv_row(unsigned k1) {
  return 64 * static_cast<int>(k1 & 31u) + static_cast<int>(k1 >> 5);
}

// Phases B and B': for each kb < 32 the 64-point DFT over the contiguous shared rows row0(kb) + i (i < 64), in place,
// as col_fft_pass<T, 64>'s two tile steps (i = j + 8m: step 1 dft<8> over m, times W_64^{j·k1} = tw[32·j·k1], to
// local row 8·k1 + j (the rows it read); barrier; step 2 dft<8> over j', output o = k1 + 8·k2 as out(kb, o, X[o]) to
// local row 8·k1 + k2). Virtual threads c + C·(j + 8·kb) (step 1) and c + C·(k1 + 8·kb) (step 2), kIB = C/2 per
// thread. at(row) is the thread's shared element of that row (column c). Ends without a barrier.
template <int C, class Cx, class Row0, class At, class Out>
__device__ __forceinline__ void blocks_dft64(int t, Row0 row0_of, At&& at, const Cx* __restrict__ tw, Out&& out) {
  using namespace dct4::rows_detail;
  constexpr int kIB = C / 2, lgC = ilog2(C);
  Cx v[kIB][8];
#pragma unroll
  for (int i = 0; i < kIB; ++i) {  // step 1
    const int a = (t + 512 * i) >> lgC, j = a & 7, row0 = row0_of(a >> 3);
#pragma unroll
    for (int m = 0; m < 8; ++m) v[i][m] = at(row0 + j + 8 * m);
  }
#pragma unroll
  for (int i = 0; i < kIB; ++i) {
    const int a = (t + 512 * i) >> lgC, j = a & 7, row0 = row0_of(a >> 3);
    dft<8>(v[i]);
#pragma unroll
    for (int k1 = 0; k1 < 8; ++k1) {
      if (k1 > 0) v[i][k1] = mul(v[i][k1], __ldg(tw + ((j * k1) << 5)));  // W_64^{j·k1}
      at(row0 + 8 * k1 + j) = v[i][k1];
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kIB; ++i) {  // step 2
    const int a = (t + 512 * i) >> lgC, k1 = a & 7, row0 = row0_of(a >> 3);
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) v[i][jj] = at(row0 + 8 * k1 + jj);
  }
#pragma unroll
  for (int i = 0; i < kIB; ++i) {
    const int a = (t + 512 * i) >> lgC, k1 = a & 7, kb = a >> 3, row0 = row0_of(kb);
    dft<8>(v[i]);
#pragma unroll
    for (int k2 = 0; k2 < 8; ++k2) at(row0 + 8 * k1 + k2) = out(kb, k1 + 8 * k2, v[i][k2]);
  }
}

// The 32-point DFT of a group held in registers (C = 8: phase A and A'), v[4·j + m] = input j + 8m: the two tile steps
// of col_fft_pass<T, 32> in one thread (dft<4> over m, W_32^{j·k1} = tw[64·j·k1], dft<8> over j); out(kb, X[kb]) for
// kb = k1 + 4·k2 in the order k1, k2.
template <class Cx, class Out>
__device__ __forceinline__ void group_dft32(Cx (&v)[32], const Cx* __restrict__ tw, Out&& out) {
  using namespace dct4::rows_detail;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    dft<4>(v + 4 * j);
#pragma unroll
    for (int k1 = 1; k1 < 4; ++k1)
      if (j > 0) v[4 * j + k1] = mul(v[4 * j + k1], __ldg(tw + ((j * k1) << 6)));  // W_32^{j·k1}
  }
#pragma unroll
  for (int k1 = 0; k1 < 4; ++k1) {
    Cx u[8];
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) u[jj] = v[4 * jj + k1];
    dft<8>(u);
#pragma unroll
    for (int k2 = 0; k2 < 8; ++k2) out(unsigned(k1 + 4 * k2), u[k2]);
  }
}

}  // namespace onepass_detail

// Forward: y (n1 = 2048 x n2 real, matrix b at y + b·2048·n2) from the row stage's half spectrum data (natural rows,
// matrix b at data + b·mstride, row r at + r·pitch, w = n2/2 + 1 columns; not written), as pass A + col_fft_post<T, 64>
// (tab: the forward scales). Grid (ceil(w / C), 1, batch), kOnepassThreads threads, onepass_smem_bytes<T, C>().
template <class T, int C>
__global__ void __launch_bounds__(kOnepassThreads, 1)
    col_fft1_post(const typename RowsTypes<T>::cx* __restrict__ data, T* __restrict__ y,
                  const typename RowsTypes<T>::cx* __restrict__ tw, Dct2dTables<T> tab, unsigned pitch, unsigned w,
                  unsigned n2, unsigned long long mstride) {
  ::dct::cuda::wait_previous_grid();  // launched by launch_dependent
  using namespace dct4::rows_detail;
  using Cx = typename RowsTypes<T>::cx;
  using S = onepass_detail::Tile<T, C>;
  using onepass_detail::slot_a;
  constexpr int lgC = S::lgC, kIA = C, kIP = 2 * C;  // iterations of phases A and P (B: blocks_dft64)
  extern __shared__ __align__(16) unsigned char colfft_smem[];
  Cx* const sh = reinterpret_cast<Cx*>(colfft_smem);

  const int t = static_cast<int>(threadIdx.x), c = t & (C - 1);
  const unsigned col = blockIdx.x * unsigned(C) + unsigned(c);
  const bool valid = col < w;
  const Cx* const base = data + blockIdx.z * mstride + col;
  const Cx zero{T(0), T(0)};
  const auto load = [&](int row) {
    if (!valid) return zero;
    const Cx* p = base + static_cast<unsigned>(row) * pitch;
    DCT_ASSERT_ALIGNED_CX(p);
    return *p;
  };
  // The postprocess's tables: the row tables s1, tw1 copied into shared memory right after phase A's loads are issued
  // (their latencies overlap; read where used at the end, 3 dependent L2 round trips per unit made phase P latency
  // bound), the column's w2, s2 values into registers here.
  T* const s_s1 = reinterpret_cast<T*>(sh + 2048 * C) + kTabS1;
  Cx* const s_tw1 = reinterpret_cast<Cx*>(reinterpret_cast<T*>(sh + 2048 * C) + kTabTw1);
  const auto fetch_tables = [&] {
#pragma unroll
    for (int i = 0; i < 2048 / kOnepassThreads; ++i) s_s1[t + kOnepassThreads * i] = tab.s1[t + kOnepassThreads * i];
#pragma unroll
    for (int i = 0; i < 2; ++i) s_tw1[t + kOnepassThreads * i] = tab.tw1[t + kOnepassThreads * i];
    if (t == 0) s_tw1[1024] = tab.tw1[1024];
  };
  const unsigned n2c = n2;  // (phase P's column values)
  const unsigned pk2 = col, pm2 = n2c - pk2;
  const bool pmir2 = pk2 != 0 && 2 * pk2 != n2c;
  const Cx w2 = valid ? tab.tw2[pk2] : zero;
  const T f2a = valid ? tab.s2[pk2] : T(0), f2b = valid ? tab.s2[pmir2 ? pm2 : pk2] : T(0);

  // ---- phase A: pass A (groups g, rows g + 64·(j + 8m)) ----
  if constexpr (C == 8) {
    // Virtual thread c + 8·g + 512·j: this thread owns group g = t / 8, all 32 rows, both steps in registers.
    const int g = t >> lgC;
    Cx v[32];  // v[4·j + m] = row g + 64·(j + 8m)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int m = 0; m < 4; ++m) v[4 * j + m] = load(g + 64 * (j + 8 * m));
    fetch_tables();
    onepass_detail::group_dft32(v, tw, [&](unsigned kb, Cx u) {
      const Cx r = kb != 0 ? mul(u, __ldg(tw + ((unsigned(g) * kb) & onepass_detail::kNMask))) : u;
      sh[S::at(g + 64 * (8 * (kb & 3u) + (kb >> 2)), c)] = r;  // kb = k1 + 4·k2 to row g + 64·(8·k1 + k2)
    });
  } else {
    // Step 1, virtual thread c + C·(g + 64·j): all loads first.
    Cx v[kIA][4];
#pragma unroll
    for (int i = 0; i < kIA; ++i) {
      const int a = (t + 512 * i) >> lgC, g = a & 63, j = a >> 6;
#pragma unroll
      for (int m = 0; m < 4; ++m) v[i][m] = load(g + 64 * (j + 8 * m));
    }
    fetch_tables();
#pragma unroll
    for (int i = 0; i < kIA; ++i) {
      const int a = (t + 512 * i) >> lgC, g = a & 63, j = a >> 6;
      dft<4>(v[i]);
#pragma unroll
      for (int k1 = 0; k1 < 4; ++k1) {
        if (k1 > 0) v[i][k1] = mul(v[i][k1], __ldg(tw + ((j * k1) << 6)));
        sh[S::at(g + 64 * (8 * k1 + j), c)] = v[i][k1];
      }
    }
    __syncthreads();
    // Step 2, virtual thread c + C·(g + 64·k1), k1 < 4: in place.
#pragma unroll
    for (int i = 0; i < kIA / 2; ++i) {
      const int a = (t + 512 * i) >> lgC, g = a & 63, k1 = a >> 6;
      Cx u[8];
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) u[jj] = sh[S::at(g + 64 * (8 * k1 + jj), c)];
      dft<8>(u);
#pragma unroll
      for (int k2 = 0; k2 < 8; ++k2) {
        const unsigned kb = unsigned(k1 + 4 * k2);
        sh[S::at(g + 64 * (8 * k1 + k2), c)] = mul(u[k2], __ldg(tw + ((unsigned(g) * kb) & onepass_detail::kNMask)));
      }
    }
  }
  __syncthreads();

  // ---- phase B: pass B (for each kb the contiguous rows 64·sA(kb) + g), in place ----
  onepass_detail::blocks_dft64<C>(
      t, [](int kb) { return 64 * slot_a(kb); }, [&](int row) -> Cx& { return sh[S::at(row, c)]; }, tw,
      [](int, int, Cx u) { return u; });
  __syncthreads();
  if (!valid) return;

  // ---- phase P: post_2d of the units k1 = kb + 32·ka (< 1024; 1024 on the threads t < C) ----
  {
    constexpr unsigned n1 = onepass_detail::kN1;
    T* const yb = y + blockIdx.z * (static_cast<unsigned long long>(n1) * n2);
    const auto unit = [&](unsigned k1) {
      const unsigned mk1 = (n1 - k1) & onepass_detail::kNMask;
      const dct2d::Quad<Cx> o = dct2d::post_quad(sh[S::at(onepass_detail::fwd_row(k1), c)],
                                                 sh[S::at(onepass_detail::fwd_row(mk1), c)], s_tw1[k1], w2);
      dct2d::store_quad(yb, k1, n1, n2, pk2, pm2, pmir2, o, s_s1[k1], f2a, f2b, [&] { return s_s1[mk1]; });
    };
#pragma unroll
    for (int i = 0; i < kIP; ++i) {  // virtual thread c + C·(ka + 32·kb)
      const unsigned a = unsigned(t + 512 * i) >> lgC;
      unit((a >> 5) + 32u * (a & 31u));
    }
    if (t < C) unit(n1 / 2);
  }
}

// Inverse: data's w columns (natural rows, matrix b at data + b·mstride, row r at + r·pitch; other columns and the
// pitch padding untouched) from y (2048 x n2 real, matrix b at y + b·2048·n2; not written), as col_fft_pre<T, 64> +
// pass A' (tab: the inverse scales). Launch as col_fft1_post.
template <class T, int C>
__global__ void __launch_bounds__(kOnepassThreads, 1)
    col_fft1_pre(const T* __restrict__ y, typename RowsTypes<T>::cx* __restrict__ data,
                 const typename RowsTypes<T>::cx* __restrict__ tw, Dct2dTables<T> tab, unsigned pitch, unsigned w,
                 unsigned n2, unsigned long long mstride) {
  ::dct::cuda::wait_previous_grid();  // launched by launch_dependent
  using namespace dct4::rows_detail;
  using Cx = typename RowsTypes<T>::cx;
  using S = onepass_detail::Tile<T, C>;
  constexpr int lgC = S::lgC, kIA = C, kIP = 2 * C;
  constexpr unsigned n1 = onepass_detail::kN1;
  extern __shared__ __align__(16) unsigned char colfft_smem[];
  Cx* const sh = reinterpret_cast<Cx*>(colfft_smem);

  const int t = static_cast<int>(threadIdx.x), c = t & (C - 1);
  const unsigned col = blockIdx.x * unsigned(C) + unsigned(c);
  const bool valid = col < w;

  // ---- phase P': pre_2d of the units k1 = kb + 32·ka (< 1024; 1024 on the threads t < C), conj into shared ----
  {
    const unsigned k2 = col, m2 = n2 - k2;
    const bool has2 = k2 != 0;
    const Cx w2 = valid ? tab.tw2[k2] : Cx{T(0), T(0)};
    const T g2a = valid ? tab.s2[k2] : T(0), g2b = valid && has2 ? tab.s2[m2] : T(0);
    const T* const yb = y + blockIdx.z * (static_cast<unsigned long long>(n1) * n2);
    const auto load = [&](unsigned k1, T(&r)[4]) {
      const bool has1 = k1 != 0;
      const unsigned m1 = n1 - k1;
      r[0] = valid ? yb[k1 * n2 + k2] : T(0);
      r[1] = valid && has2 ? yb[k1 * n2 + m2] : T(0);
      r[2] = valid && has1 ? yb[m1 * n2 + k2] : T(0);
      r[3] = valid && has1 && has2 ? yb[m1 * n2 + m2] : T(0);
    };
    const auto store = [&](unsigned k1, const T(&r)[4]) {
      const bool has1 = k1 != 0;
      const T g1a = valid ? tab.s1[k1] : T(0), g1b = valid && has1 ? tab.s1[n1 - k1] : T(0);
      const Cx w1 = valid ? tab.tw1[k1] : Cx{T(0), T(0)};
      const dct2d::Quad<Cx> v =
          dct2d::pre_pair(g1a * g2a * r[0], g1a * g2b * r[1], g1b * g2a * r[2], g1b * g2b * r[3], w1, w2);
      sh[S::at(onepass_detail::inv_row(k1), c)] = Cx{v.k1.x, -v.k1.y};
      if (has1 && 2 * k1 != n1) sh[S::at(onepass_detail::inv_row(n1 - k1), c)] = Cx{v.m1.x, -v.m1.y};
    };
    const auto unit_k1 = [&](int i) {  // virtual thread c + C·(ka + 32·kb)
      const unsigned a = unsigned(t + 512 * i) >> lgC;
      return (a >> 5) + 32u * (a & 31u);
    };
    // In batches of kPB units: all y reads of a batch before its arithmetic (kPB = 16 spills at f32 C = 8).
    constexpr int kPB = kIP < 8 ? kIP : 8;
    T r[kPB][4];
#pragma unroll
    for (int i0 = 0; i0 < kIP; i0 += kPB) {
#pragma unroll
      for (int i = 0; i < kPB; ++i) load(unit_k1(i0 + i), r[i]);
#pragma unroll
      for (int i = 0; i < kPB; ++i) store(unit_k1(i0 + i), r[i]);
    }
    if (t < C) {
      load(n1 / 2, r[0]);
      store(n1 / 2, r[0]);
    }
  }
  __syncthreads();

  // ---- phase B': for each kb the rows 64·kb + ka, DFT over ka, output na times W_2048^{kb·na}, in place ----
  onepass_detail::blocks_dft64<C>(
      t, [](int kb) { return 64 * kb; }, [&](int row) -> Cx& { return sh[S::at(row, c)]; }, tw,
      [&](int kb, int na, Cx u) {
        return mul(u, __ldg(tw + ((unsigned(kb) * unsigned(na)) & onepass_detail::kNMask)));
      });
  __syncthreads();

  // ---- phase A': for each na the slots kb at rows 64·kb + loc(na), DFT over kb, conj, to data row na + 64·nb ----
  Cx* const base = data + blockIdx.z * mstride + col;
  const auto store = [&](int row, Cx r) {
    if (!valid) return;
    Cx* p = base + static_cast<unsigned>(row) * pitch;
    DCT_ASSERT_ALIGNED_CX(p);
    *p = Cx{r.x, -r.y};
  };
  const auto loc = [](int na) { return 8 * (na & 7) + (na >> 3); };
  if constexpr (C == 8) {
    // Virtual thread c + 8·na + 512·j: this thread owns group na, all 32 slots, both steps in registers.
    const int na = t >> lgC, ln = loc(na);
    Cx v[32];  // v[4·j + m] = slot j + 8m
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int m = 0; m < 4; ++m) v[4 * j + m] = sh[S::at(64 * (j + 8 * m) + ln, c)];
    onepass_detail::group_dft32(v, tw, [&](unsigned nb, Cx u) { store(na + 64 * static_cast<int>(nb), u); });
  } else {
    // Step 1, virtual thread c + C·(na + 64·j), in place: slots j + 8m -> 8·k1 + j.
    Cx v[kIA][4];
#pragma unroll
    for (int i = 0; i < kIA; ++i) {
      const int a = (t + 512 * i) >> lgC, ln = loc(a & 63), j = a >> 6;
#pragma unroll
      for (int m = 0; m < 4; ++m) v[i][m] = sh[S::at(64 * (j + 8 * m) + ln, c)];
    }
#pragma unroll
    for (int i = 0; i < kIA; ++i) {
      const int a = (t + 512 * i) >> lgC, ln = loc(a & 63), j = a >> 6;
      dft<4>(v[i]);
#pragma unroll
      for (int k1 = 0; k1 < 4; ++k1) {
        if (k1 > 0) v[i][k1] = mul(v[i][k1], __ldg(tw + ((j * k1) << 6)));
        sh[S::at(64 * (8 * k1 + j) + ln, c)] = v[i][k1];
      }
    }
    __syncthreads();
    // Step 2, virtual thread c + C·(na + 64·k1), k1 < 4: output nb = k1 + 4·k2 to global.
#pragma unroll
    for (int i = 0; i < kIA / 2; ++i) {
      const int a = (t + 512 * i) >> lgC, na = a & 63, ln = loc(na), k1 = a >> 6;
      Cx u[8];
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) u[jj] = sh[S::at(64 * (8 * k1 + jj) + ln, c)];
      dft<8>(u);
#pragma unroll
      for (int k2 = 0; k2 < 8; ++k2) store(na + 64 * (k1 + 4 * k2), u[k2]);
    }
  }
}

template <class T>
using ColFusedPostFn1 = void (*)(const typename RowsTypes<T>::cx*, T*, const typename RowsTypes<T>::cx*, Dct2dTables<T>,
                                 unsigned, unsigned, unsigned, unsigned long long);
template <class T>
using ColFusedPreFn1 = void (*)(const T*, typename RowsTypes<T>::cx*, const typename RowsTypes<T>::cx*, Dct2dTables<T>,
                                unsigned, unsigned, unsigned, unsigned long long);

}  // namespace dct::cuda::colfft
