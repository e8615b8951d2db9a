#pragma once
/* DCT-II / DCT-III down the columns of matrices whose column length N is smooth and too long for one CTA to hold a
   wide tile of its columns (smooth_lines' columns layout fits 2 to 4 columns per CTA there: 8- or 16-byte row
   segments): the same two-real-lines-per-complex-FFT algorithm as kernels/dct2d/smooth.cuh, its FFT of length N split
   "four-step" into two kernels, each with a tile of kP pairs of adjacent columns (2kP reals = 128 bytes per row in f32
   and f64) and every global access a whole row segment of the tile. kernels/dct2d/smooth.cu launches (SmoothCols4);
   tests/emulate/emulate_smooth.cpp checks.

   Pair p of a matrix: columns a = 2p, b = 2p + 1 (b = 0 past the last column), z(m) = x_a(nat(m)) + i x_b(nat(m))
   (smooth.cuh's reorder), Z = FFT_N(z), and the post/preprocess of smooth.cuh per output. N = na·nb,
   m = n1 + na·n2, k = k2 + nb·k1 (n1, k1 < na; n2, k2 < nb), W_N^{mk} = W_N^{n1·k2} · W_na^{n1·k1} · W_nb^{n2·k2}:
     pass A (group n1): S[n1 + na·k2] = W_N^{n1·k2} · Σ_{n2} z(n1 + na·n2) W_nb^{n2·k2}   (loads: the reorder),
     pass B (group k2): Z(k2 + nb·k1) = Σ_{n1} S[n1 + na·k2] W_na^{n1·k1}                (stores: the postprocess).
   The postprocess of k needs Z(N − k) = Z((nb − k2) + nb·(na − 1 − k1)) for k2 ≠ 0, Z(nb·((na − k1) mod na)) for
   k2 = 0: pass B's CTA takes group k2 and its partner nb − k2 (k2 = 0 .. nb/2; 0 and nb/2 are their own partners).
   Inverse (IFFT(Z) = conj FFT(conj Z), as smooth.cuh): pass B' loads Y(k), Y(N − k) of both groups, forms conj Z(k)
   by the preprocess, FFT_na over k1, times W_N^{n1·k2}, to S'[n1 + na·k2]; pass A' FFT_nb over k2, x_a(nat(m)) = Re,
   x_b(nat(m)) = −Im of the result at n2 (m = n1 + na·n2). Both directions use the forward twiddles.
   DST-II / DST-III columns (args.dst) as smooth.cuh: forward loads negate odd rows and stores go to row N − 1 − k;
   the inverse reads row N − 1 − k and negates odd output rows.

   The intermediate S: complex, matrices of N rows x wp = ceil(width / 2) pairs (row n1 + na·k2, pair p), a
   workspace of its own (in == out is allowed: pass A reads only `in`, pass B writes only `out`).
   Grid: x = tiles of kP pairs, y = groups (pass A: ceil(na / G) blocks of G groups n1; pass B: nb/2 + 1 groups k2),
   z = matrices. Block: any multiple of 32 threads. Shared memory: two padded buffers of G·kP·nb (pass A) or
   2·kP·na (pass B) complex (smooth_cols4_smem). The FFTs are smooth.cuh's fft() with run-time passes.

   Plain CUDA C++ with no host-runtime dependencies: tests/emulate/emulate_smooth.cpp compiles it on the host. */

#include <cstring>

#include "kernels/dct2d/smooth.cuh"

namespace dct::cuda::smooth {

// One launch of either pass (scalars and pointers only, as Args).
template <class T>
struct Cols4Args {
  using C = typename Cx<T>::type;
  const T* in = nullptr;  // forward pass A, inverse pass B': the real matrices read
  T* out = nullptr;       // forward pass B, inverse pass A': the real matrices written
  C* work = nullptr;      // S (pass A writes it, pass B reads it; inverse: B' writes, A' reads)
  const C* wn = nullptr;  // W_N^t, t < N
  const C* tw = nullptr;  // the axis tables of length N (AxisTables, gain 2)
  const T* fs = nullptr;
  const T* ia = nullptr;
  const C* tw_a = nullptr;  // FFT_na: twiddles (fft_twiddles) and passes
  const Pass* passes_a = nullptr;
  const C* tw_b = nullptr;  // FFT_nb
  const Pass* passes_b = nullptr;
  int npass_a = 0, npass_b = 0;
  int n = 1, na = 1, nb = 1, width = 1, wp = 1, groups = 1;  // groups: G, pass A's groups per CTA
  FastDiv dna, dnb;
  int dst = 0;
};

// Shared memory of a pass whose CTA holds `lines` complex lines of `len` points: two padded buffers.
template <class T>
constexpr long long smooth_cols4_smem(long long lines, long long len) {
  return 2 * static_cast<long long>(sizeof(typename Cx<T>::type)) *
         detail::padded<typename Cx<T>::type>(static_cast<int>(lines * len));
}

namespace detail {
// kBytes (4, 8 or 16) from global src to shared dst without a register (cp.async; zeros where !valid, src unread);
// copy_wait: this thread's copies have landed. The host emulator copies at once.
template <int kBytes>
__device__ __forceinline__ void copy_async(void* dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__)
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int n = valid ? kBytes : 0;
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src), "r"(n) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(s), "l"(src), "n"(kBytes), "r"(n) : "memory");
#else
  if (valid)
    std::memcpy(dst, src, kBytes);
  else
    std::memset(dst, 0, kBytes);
#endif
}
__device__ __forceinline__ void copy_wait() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// The tile and matrix of this CTA: first pair p0, pairs in the tile np, first column c0, and the matrix offsets.
struct Cols4Tile {
  int p0, np, c0;
  long long real0, cx0;  // element (0, 0) of the matrix: real matrices, S
};
template <int kP, class A>
__device__ __forceinline__ Cols4Tile cols4_tile(const A& a) {
  Cols4Tile t;
  t.p0 = static_cast<int>(blockIdx.x) * kP;
  t.np = a.wp - t.p0 < kP ? a.wp - t.p0 : kP;
  t.c0 = 2 * t.p0;
  const long long mat = blockIdx.z;
  t.real0 = mat * a.n * a.width;
  t.cx0 = mat * a.n * a.wp;
  return t;
}
}  // namespace detail

// Pass A (forward) / A' (inverse).
template <class T, int kP, bool kInverse>
__global__ void __launch_bounds__(1024) smooth_cols4_a(const Cols4Args<T> a) {
  using namespace detail;
  using C = typename Cx<T>::type;
  constexpr int kJ = 2 * kP;  // real columns of the tile
  const int n = a.n, na = a.na, nb = a.nb;
  const int tid = static_cast<int>(threadIdx.x), nth = static_cast<int>(blockDim.x);
  const Cols4Tile t = cols4_tile<kP>(a);
  const int g0 = static_cast<int>(blockIdx.y) * a.groups, gc = na - g0 < a.groups ? na - g0 : a.groups;
  C* const buf0 = reinterpret_cast<C*>(smooth_smem);
  C* const buf1 = buf0 + padded<C>(a.groups * kP * nb);
  const int rows = gc * nb;  // (group gi, point) = r: gi = r / nb
  const int j = tid % kJ, rstep = nth / kJ;
  const bool col_ok = t.c0 + j < a.width;
  const auto row_of = [&](int m) { return m < (n + 1) / 2 ? 2 * m : 2 * (n - m) - 1; };  // nat(m)
  wait_previous_grid();
  // Pair p of a row as one complex (columns 2p, 2p + 1 adjacent): whole pairs and sizeof(C)-aligned rows.
  const bool pairs_whole = (a.width & 1) == 0 && (reinterpret_cast<unsigned long long>(a.in) % sizeof(C)) == 0;
  if (!kInverse && pairs_whole && !a.dst) {
    // z(m) of the CTA's pairs, m = n1 + na·n2, straight into shared memory (the reorder in the addresses).
    for (int q = tid; q < rows * kP; q += nth) {
      const int pi = q % kP, r = q / kP;
      const int gi = static_cast<int>(a.dnb.div(static_cast<unsigned>(r))), n2 = r - gi * nb;
      const int row = row_of(g0 + gi + na * n2);
      const bool ok = pi < t.np;
      const T* const src = ok ? a.in + t.real0 + static_cast<long long>(row) * a.width + t.c0 + 2 * pi : a.in;
      copy_async<sizeof(C)>(buf0 + pad<C>((gi * kP + pi) * nb + n2), src, ok);
    }
    copy_wait();
  } else if constexpr (!kInverse) {
    // z(m) of the CTA's pairs, m = n1 + na·n2: the reorder in the loads, kU rows in flight per thread.
    constexpr int kU = 8;
    for (int r0 = tid / kJ; r0 < rows; r0 += kU * rstep) {
      T v[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const int r = r0 + u * rstep;
        v[u] = T(0);
        if (r < rows && col_ok) {
          const int gi = static_cast<int>(a.dnb.div(static_cast<unsigned>(r))), n2 = r - gi * nb;
          const int row = row_of(g0 + gi + na * n2);
          v[u] = a.in[t.real0 + static_cast<long long>(row) * a.width + t.c0 + j];
          if (a.dst && (row & 1)) v[u] = -v[u];
        }
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const int r = r0 + u * rstep;
        if (r >= rows) break;
        const int gi = static_cast<int>(a.dnb.div(static_cast<unsigned>(r))), n2 = r - gi * nb;
        reinterpret_cast<T*>(buf0 + pad<C>((gi * kP + j / 2) * nb + n2))[j & 1] = v[u];
      }
    }
  } else {
    // S' rows n1 + na·k2 of the CTA's groups.
    for (int q = tid; q < rows * kP; q += nth) {
      const int pi = q % kP, r = q / kP;
      const int gi = static_cast<int>(a.dnb.div(static_cast<unsigned>(r))), k2 = r - gi * nb;
      const bool ok = pi < t.np;
      const C* const src = ok ? a.work + t.cx0 + static_cast<long long>(g0 + gi + na * k2) * a.wp + t.p0 + pi : a.work;
      copy_async<sizeof(C)>(buf0 + pad<C>((gi * kP + pi) * nb + k2), src, ok);
    }
    copy_wait();
  }
  __syncthreads();
  const C* const z = fft<C>(a.passes_b, a.npass_b, a.tw_b, nb, buf0, buf1, gc * kP);
  if constexpr (!kInverse) {
    // S[n1 + na·k2] = W_N^{n1·k2} · FFT_nb: kP consecutive pairs of one row per kP threads.
    for (int q = tid; q < rows * kP; q += nth) {
      const int pi = q % kP, r = q / kP;
      if (pi >= t.np) continue;
      const int gi = static_cast<int>(a.dnb.div(static_cast<unsigned>(r))), k2 = r - gi * nb, n1 = g0 + gi;
      const C v = cmul(z[pad<C>((gi * kP + pi) * nb + k2)], __ldg(a.wn + n1 * k2));
      a.work[t.cx0 + static_cast<long long>(n1 + na * k2) * a.wp + t.p0 + pi] = v;
    }
  } else {
    // x_a(nat(m)) = Re, x_b(nat(m)) = −Im of FFT_nb at n2, m = n1 + na·n2.
    if (!col_ok) return;
    for (int r = tid / kJ; r < rows; r += rstep) {
      const int gi = static_cast<int>(a.dnb.div(static_cast<unsigned>(r))), n2 = r - gi * nb;
      const int row = row_of(g0 + gi + na * n2);
      const C v = z[pad<C>((gi * kP + j / 2) * nb + n2)];
      T x = (j & 1) ? -v.y : v.x;
      if (a.dst && (row & 1)) x = -x;
      a.out[t.real0 + static_cast<long long>(row) * a.width + t.c0 + j] = x;
    }
  }
}

// Pass B (forward) / B' (inverse): group k2 = blockIdx.y and its partner nb − k2.
template <class T, int kP, bool kInverse>
__global__ void __launch_bounds__(1024) smooth_cols4_b(const Cols4Args<T> a) {
  using namespace detail;
  using C = typename Cx<T>::type;
  constexpr int kJ = 2 * kP;
  const int n = a.n, na = a.na, nb = a.nb;
  const int tid = static_cast<int>(threadIdx.x), nth = static_cast<int>(blockDim.x);
  const Cols4Tile t = cols4_tile<kP>(a);
  const int k2 = static_cast<int>(blockIdx.y), k2b = k2 == 0 ? 0 : nb - k2;
  const int ng = k2b != k2 ? 2 : 1, rows = ng * na;  // (group gi, point k1) = r: gi = r / na
  C* const buf0 = reinterpret_cast<C*>(smooth_smem);
  C* const buf1 = buf0 + padded<C>(2 * kP * na);
  const int j = tid % kJ, rstep = nth / kJ;
  const bool col_ok = t.c0 + j < a.width;
  const Tabs<T, C> tabs{a.tw, a.fs, a.ia};
  // Output k of group gi's point k1, and where Z(N − k) is: group gm, point k1m.
  const auto freq = [&](int gi, int k1) { return (gi ? k2b : k2) + nb * k1; };
  const auto mirror = [&](int gi, int k1, int& gm, int& k1m) {
    gm = ng == 2 ? 1 - gi : 0;
    k1m = (gi ? k2b : k2) == 0 ? (k1 == 0 ? 0 : na - k1) : na - 1 - k1;
  };
  wait_previous_grid();
  const C* z;
  if constexpr (!kInverse) {
    for (int q = tid; q < rows * kP; q += nth) {
      const int pi = q % kP, r = q / kP;
      const int gi = static_cast<int>(a.dna.div(static_cast<unsigned>(r))), k1 = r - gi * na;
      const bool ok = pi < t.np;
      const C* const src =
          ok ? a.work + t.cx0 + static_cast<long long>(k1 + na * (gi ? k2b : k2)) * a.wp + t.p0 + pi : a.work;
      copy_async<sizeof(C)>(buf0 + pad<C>((gi * kP + pi) * na + k1), src, ok);
    }
    copy_wait();
    __syncthreads();
    z = fft<C>(a.passes_a, a.npass_a, a.tw_a, na, buf0, buf1, ng * kP);
    // Y(k) of column j from Z(k), Z(N − k) of its pair (smooth.cuh's post), to row k (DST-II: N − 1 − k).
    if (!col_ok) return;
    const int pi = j / 2;
    for (int r = tid / kJ; r < rows; r += rstep) {
      const int gi = static_cast<int>(a.dna.div(static_cast<unsigned>(r))), k1 = r - gi * na, k = freq(gi, k1);
      int gm, k1m;
      mirror(gi, k1, gm, k1m);
      const C zk = z[pad<C>((gi * kP + pi) * na + k1)], zm = z[pad<C>((gm * kP + pi) * na + k1m)];
      const T h = T(0.5);
      const C v = (j & 1) ? C{h * (zk.y + zm.y), h * (zm.x - zk.x)} : C{h * (zk.x + zm.x), h * (zk.y - zm.y)};
      const T y = __ldg(a.fs + k) * cmul(__ldg(a.tw + k), v).x;
      const int row = a.dst ? n - 1 - k : k;
      a.out[t.real0 + static_cast<long long>(row) * a.width + t.c0 + j] = y;
    }
  } else {
    // The raw inputs of both groups: column j's Y(k), k = freq(gi, k1), at yr[(gi·kJ + j)·na + k1] (buffer 0).
    T* const yr = reinterpret_cast<T*>(buf0);
    for (int r = tid / kJ; r < rows; r += rstep) {
      const int gi = static_cast<int>(a.dna.div(static_cast<unsigned>(r))), k1 = r - gi * na, k = freq(gi, k1);
      const int row = a.dst ? n - 1 - k : k;
      const T* const src = col_ok ? a.in + t.real0 + static_cast<long long>(row) * a.width + t.c0 + j : a.in;
      copy_async<sizeof(T)>(yr + (gi * kJ + j) * na + k1, src, col_ok);
    }
    copy_wait();
    __syncthreads();
    // The FFT's first pass reads conj(V_a + i V_b) of line (gi, pi) at point k1 straight from the raw inputs.
    const auto first = [&](int line, int, int i) -> C {
      const int gi = line / kP, pi = line - gi * kP, k1 = i - line * na, k = freq(gi, k1);
      int gm, k1m;
      mirror(gi, k1, gm, k1m);
      const T* const ya = yr + (gi * kJ + 2 * pi) * na;
      const T* const ym = yr + (gm * kJ + 2 * pi) * na;
      const C va = pre<T, C>(ya[k1], k == 0 ? T(0) : ym[k1m], k, n, tabs);
      const C vb = pre<T, C>(ya[na + k1], k == 0 ? T(0) : ym[na + k1m], k, n, tabs);
      return C{va.x - vb.y, -(va.y + vb.x)};
    };
    z = fft<C>(a.passes_a, a.npass_a, a.tw_a, na, buf0, buf1, ng * kP, first);
    // S'[n1 + na·k2] = W_N^{n1·k2} · FFT_na(conj Z).
    for (int q = tid; q < rows * kP; q += nth) {
      const int pi = q % kP, r = q / kP;
      if (pi >= t.np) continue;
      const int gi = static_cast<int>(a.dna.div(static_cast<unsigned>(r))), n1 = r - gi * na, kk = gi ? k2b : k2;
      const C v = cmul(z[pad<C>((gi * kP + pi) * na + n1)], __ldg(a.wn + n1 * kk));
      a.work[t.cx0 + static_cast<long long>(n1 + na * kk) * a.wp + t.p0 + pi] = v;
    }
  }
}

// ---- Host side (kernels/dct2d/smooth.cu, tests/emulate/emulate_smooth.cpp) ---------------------------------------

// Pairs per CTA: 2kP reals = 128 bytes per row segment.
template <class T>
constexpr int cols4_pairs() {
  return 64 / static_cast<int>(sizeof(T));
}

// The split N = na·nb (na the largest divisor <= sqrt(N), both at least 2), G and the launch shapes of both passes;
// ok = false where N has no such split or a pass would not fit a CTA.
struct Cols4Config {
  bool ok = false;
  int na = 0, nb = 0, groups = 1;
  int threads_a = 0, threads_b = 0, smem_a = 0, smem_b = 0;
};
// Complex points per CTA of pass A that G aims at (f32 4096, f64 2048: three CTAs per SM).
template <class T>
constexpr Cols4Config cols4_config(long long n) {
  Cols4Config c;
  if (n < 4 || n >= (1LL << 24)) return c;
  long long na = 1;
  for (long long d = 2; d * d <= n; ++d)
    if (n % d == 0) na = d;
  if (na < 2) return c;
  const long long nb = n / na, kp = cols4_pairs<T>();
  const long long target = sizeof(T) == 4 ? 4096 : 2048;
  long long g = target / (kp * nb);
  g = g < 1 ? 1 : g > na ? na : g;
  const long long sa = smooth_cols4_smem<T>(g * kp, nb), sb = smooth_cols4_smem<T>(2 * kp, na);
  if (sa > kMaxSmem || sb > kMaxSmem) return c;
  c.ok = true;
  c.na = static_cast<int>(na);
  c.nb = static_cast<int>(nb);
  c.groups = static_cast<int>(g);
  c.threads_a = line_threads(g * kp, nb);
  c.threads_b = line_threads(2 * kp, na);
  c.smem_a = static_cast<int>(sa);
  c.smem_b = static_cast<int>(sb);
  return c;
}

// W_N^t, t < N, in long double rounded to T.
template <class T>
std::vector<typename Cx<T>::type> cols4_wn(long long n) {
  std::vector<typename Cx<T>::type> w(static_cast<std::size_t>(n));
  const long double pi = 3.141592653589793238462643383279502884L;
  for (long long t = 0; t < n; ++t) {
    const long double th = 2.0L * pi * static_cast<long double>(t) / static_cast<long double>(n);
    w[static_cast<std::size_t>(t)] = {static_cast<T>(std::cos(th)), static_cast<T>(-std::sin(th))};
  }
  return w;
}

}  // namespace dct::cuda::smooth
