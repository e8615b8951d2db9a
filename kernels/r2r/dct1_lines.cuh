#pragma once
/* DCT-I and DST-I lines in one kernel per axis (FFT length M: DCT-I of L points, M = L − 1; DST-I, M = L + 1), for
   smooth M, and for other M through Bluestein's FFT where its length fits a CTA: cuda-r2r's line step for these kinds
   where it applies (kernels/r2r/r2r.cu), in place of the gather, cuFFT's real FFT of 2M points and the scatter. Plain
   CUDA C++ on the smooth kernels' FFT (kernels/dct2d/smooth.cuh); tests/emulate/emulate_dct1.cpp compiles it on the
   host.

   The math (docs/algorithms.md §10.7). Let y be the line's symmetric extension of period 2M whose DFT is the
   transform: DCT-I (FFTW REDFT00), y = (x_0 .. x_M) extended evenly, X_f = Y_f, f = 0..M; DST-I (RODFT00),
   y = (0, x_0 .. x_{L−1}, 0) extended oddly, X_{f−1} = i Y_f, f = 1..M−1. Averages and differences of neighbours,
     s_n = (y_n + y_{n+1}) / 2,   d_n = (y_n − y_{n+1}) / 2,   n = 0..M−1,
   are again symmetric about half samples: S = DFT(s) = e^{iπf/2M} cos(πf/2M) Y and D = DFT(d) =
   −i e^{iπf/2M} sin(πf/2M) Y. For the DCT-I, s is half-sample even and d half-sample odd, so
     X_f = DCT-II(s)_f / cos(πf/2M)   (use for f <= M/2),   X_f = DST-II(d)_{f−1} / sin(πf/2M)   (f > M/2);
   for the DST-I, s is half-sample odd and d half-sample even, so
     X_{f−1} = DST-II(s)_{f−1} / cos(πf/2M)   (f <= M/2),   X_{f−1} = −DCT-II(d)_f / sin(πf/2M)   (f > M/2)
   (DCT-II/DST-II unnormalized as FFTW's REDFT10/RODFT10). Each output divides by a cosine or sine of at least
   cos(π/4), so no error is amplified more than √2. A DST-II of length M is a DCT-II of (−1)^n times its input, read
   at M − 1 − j, so the two transforms a line needs are the DCT-IIs of
     a_n = σ_a(n) (y_n + y_{n+1}),  b_n = σ_b(n) (y_n − y_{n+1})   (DCT-I: σ_a = 1, σ_b = (−1)^n; DST-I: the reverse),
   computed together as smooth.cuh does two real lines: z(m) = a(nat(m)) + i b(nat(m)), Z = FFT_M(z),
   V_a(k) = [Z(k) + conj Z(M−k)] / 2, V_b(k) = [Z(k) − conj Z(M−k)] / (2i), DCT-II_k = 2 Re(e^{−iπk/2M} V(k)) / 2
   (the 2 of REDFT10 cancels the halves dropped from s and d). Output o then reads part p(o), index k(o) and a gain
   g(o) (host tables, dct1_tables below: 1/cos or ±1/sin, times the norm's output factor):
     X_o = g(o) · Re(e^{−iπk/2M} V_p(k)).

   The even/odd split (FFTW's reodft00e-splitradix) for the M where it measured faster (split_pays: f64 M = 1024 ..
   8192, f32 M = 8192; docs/decisions.md §4), two transforms of H = M/2 in place of one of M. With u_n = y_n + y_{M−n},
   v_n = y_n − y_{M−n} (n = 0..H; uniform at both ends: u_0 = y_0 + y_M, u_H = 2 y_H, v_H = 0, and for the DST-I v_0 =
   0): DCT-I:  X_{2j} = DCT-I of the H + 1 points u (the method above with M = H),  X_{2j+1} = REDFT01_H(v)_j; DST-I:
   X_{2j+1} = DST-I of the H − 1 points v_1 .. v_{H−1} (the method above), X_{2j} = (−1)^j REDFT01_H(t)_j,  t_j =
   u_{H−j}   (RODFT01 of u_1 .. u_H, reversed, odd outputs negated). REDFT01_H (DCT-III, unnormalized: t_0 + 2 Σ t_j
   cos(πj(2k+1)/2H)) of two lines a, b in one complex FFT of H points (smooth.cuh's inverse): W(k) = conj(w_k)·(t_k − i
   t_{H−k}) (t_H = 0, w_k = e^{−iπk/2H}), z(k) = conj(W_a(k) + i W_b(k)), Z = FFT_H(z), REDFT01(t_a)_{nat(m)} = Re Z(m),
   REDFT01(t_b)_{nat(m)} = −Im Z(m). So P lines take S = P + P/2 complex FFTs of H points instead of P of M: three
   quarters of the FFT work and shared memory. The same table w serves both halves (the first's e^{−iπk/2M} with M = H).

   M with a prime factor above 13 (no split): FFT_M as Bluestein's chirp convolution (smooth.cuh's detail::bluestein)
   through two FFTs of a smooth length Lb >= 2M − 1 (smooth::bluestein_length): A = FFT_Lb(z·w) with w_m = e^{−iπm²/M}
   (z·w zero from M on; the first pass reads it straight from the staged lines), Z(k) = w_k · conj(FFT_Lb(conj(A·B)))_k
   with B = FFT_Lb(b)/Lb from the host (smooth::bluestein_tables); the rest as above with these Z(k), Z(M−k). The FFT
   slots lie at stride Lb: 2 to 4 times the shared memory, and some 4 to 8 times the FFT work, of a smooth M.

   A CTA holds P lines: rows layout, P consecutive lines of L contiguous values; columns layout, a tile of kC adjacent
   columns of one matrix of L rows (P = kC). Its FFT slots: one per line (the whole line, or with the split its first
   half), then with the split one per pair of lines (the REDFT01s; a missing second line reads zeros). Shared memory:
   two padded buffers of S FFTs (smooth::smem_bytes(S, FFT length), Lb with Bluestein's); the first holds the staged
   lines until the FFT's first pass has read them (M + 1 reals each: y_0 .. y_M, the norm's input factors applied; P·(M
   + 1) <= 2·S·(FFT length) reals, the buffer's size, for every M >= 1). In place is allowed (a CTA reads all of its
   lines before it writes any). */

#include <cmath>
#include <utility>
#include <vector>

#include "kernels/dct2d/smooth.cuh"

namespace dct::cuda::dct1 {

using smooth::Cx;
using smooth::FastDiv;
using smooth::Pass;

template <class T>
struct Args {
  using C = typename Cx<T>::type;
  const T* in = nullptr;
  T* out = nullptr;
  const C* fft_tw = nullptr;  // the FFT's twiddles (smooth::fft_twiddles)
  const Pass* passes = nullptr;
  const C* tw = nullptr;    // e^{−iπk/2N}, k < N (N: the FFT length)
  const T* pre = nullptr;   // the norm's input factors, L
  const T* gain = nullptr;  // g(o), L
  const int* kp = nullptr;  // 4·k(o) + 2·[o from a REDFT01] + p(o), L
  int len = 1, m = 1, npass = 0;  // m: the FFT length (M, or H = M/2 with the split)
  int dst = 0;                 // 1: DST-I (y_0 = 0, the line at y_1 .., y_M = 0; σ on a), 0: DCT-I (σ on b)
  int lines_per_cta = 1;       // rows layout: P
  int width = 1, n_tiles = 1;  // columns layout: the matrix width and tiles per matrix (ceil(width / kC))
  long long lines = 0;         // rows layout: lines in all
  FastDiv dl;                  // L
  // Bluestein's FFT_M (dct1_lines<…, kBluestein>): passes, npass and fft_tw are those of FFT_bl, bl >= 2M − 1 smooth;
  // chirp[j] = e^{−iπj²/M} (j < M), bfft = FFT_bl(b) / bl (smooth::bluestein_tables).
  int bl = 0;
  const C* chirp = nullptr;
  const C* bfft = nullptr;
};

// kCols = false: rows layout (kC = 1), CTA b takes lines P·b ..; kCols = true: columns layout, CTA b takes tile
// b mod n_tiles of matrix b / n_tiles. kSplit: the even/odd split (M even, FFT length N = M/2), else N = M. Block: any
// multiple of 32 threads; dynamic shared memory smooth::smem_bytes<T>(S, N). kN > 0: compiled for N = kN in config()'s
// launch shape (kC lines or columns per CTA, kNT threads; the FFT's passes at compile time, smooth::fft_ct_first,
// always all S slots through it), for the lengths of CompiledM. kBluestein (run-time M, no split): FFT_M by Bluestein's
// through FFTs of args.bl points (the passes and twiddles those of bl), slots at stride bl; shared memory
// smooth::smem_bytes<T>(P, bl).
template <class T, bool kCols, int kC, int kN = 0, int kNT = 0, bool kSplit = false, bool kBluestein = false>
__global__ void __launch_bounds__(1024) dct1_lines(const Args<T> args) {
  using namespace smooth::detail;
  using C = typename Cx<T>::type;
  static_assert(!kBluestein || (kN == 0 && !kSplit), "Bluestein's FFT: run-time M, whole lines only");
  const int L = args.len, N = kN > 0 ? kN : args.m, M = kSplit ? 2 * N : N,
            P = kCols || kN > 0 ? kC : args.lines_per_cta, width = args.width;
  const int S = kSplit ? P + P / 2 : P, ls = kBluestein ? args.bl : N;  // ls: the slots' stride
  const int tid = static_cast<int>(threadIdx.x), nth = static_cast<int>(blockDim.x);
  C* const buf0 = reinterpret_cast<C*>(smooth::smooth_smem);
  C* const buf1 = buf0 + padded<C>(S * ls);
  T* const ys = reinterpret_cast<T*>(buf0);  // staged line l at ys[l·(M+1) ..]
  long long base;
  int nl;
  if constexpr (kCols) {
    const int tile = static_cast<int>(blockIdx.x % static_cast<unsigned>(args.n_tiles));
    const long long mat = blockIdx.x / static_cast<unsigned>(args.n_tiles);
    const int c0 = tile * kC;
    nl = width - c0 < kC ? width - c0 : kC;
    base = mat * L * width + c0;
  } else {
    const long long r0 = static_cast<long long>(blockIdx.x) * P, left = args.lines - r0;
    nl = left < P ? static_cast<int>(left) : P;
    base = r0 * L;
  }
  const auto tile = line_tile<T, kCols, kC>(
      base, L, width, nl, [&](int e) { return static_cast<int>(args.dl.div(static_cast<unsigned>(e))); });
  const int count = tile.count();
  const int lead = args.dst ? 1 : 0;
  if (args.dst)
    for (int l = tid; l < nl; l += nth) ys[l * (M + 1)] = ys[l * (M + 1) + M] = T(0);
  tile.load(args.in, tid, nth, [&](int l, int c, T v) { ys[l * (M + 1) + lead + c] = v * __ldg(args.pre + c); });
  __syncthreads();
  // Slots l < nl: line l's z(m) = a(nat(m)) + i b(nat(m)) (l0 = l·ls, m < N), nat(m) = 2m (m < (N+1)/2), 2(N−m)−1
  // otherwise. Then (split) the pairs' REDFT01 inputs z(k).
  const int used = kSplit ? nl + (nl + 1) / 2 : nl;
  const auto first = [&](int l, int l0, int i) -> C {
    const int m = i - l0;
    // Line l's staged values q_n = y_n (whole line; slots past nl read lines of no use, never written back) or u_n /
    // v_n (split).
    const auto line = [&](int ln) -> C {
      const int n = m < (N + 1) / 2 ? 2 * m : 2 * (N - m) - 1;
      const T* y = ys + ln * (M + 1);
      T q0 = y[n], q1 = y[n + 1];
      if constexpr (kSplit) {
        const T r0 = y[M - n], r1 = y[M - n - 1];
        q0 = args.dst ? q0 - r0 : q0 + r0;
        q1 = args.dst ? q1 - r1 : q1 + r1;
      }
      const T s = q0 + q1, d = q0 - q1;
      const bool flip = (n & 1) != 0;
      return args.dst ? C{flip ? -s : s, d} : C{s, flip ? -d : d};
    };
    if constexpr (!kSplit) {
      return line(l);
    } else {
      if (l < nl) return line(l);
      if (l >= used) return C{T(0), T(0)};
      // t_j of line `a`: DCT-I v_j = y_j − y_{M−j}, DST-I u_{H−j} = y_{H−j} + y_{H+j}; t_H = 0; a missing line: 0.
      const auto t = [&](int a, int j) -> T {
        if (a >= nl || j >= N) return T(0);
        const T* y = ys + a * (M + 1);
        return args.dst ? y[N - j] + y[N + j] : y[j] - y[M - j];
      };
      const int a = 2 * (l - nl), km = m == 0 ? N : N - m;
      const C w = __ldg(args.tw + m);
      const C va = cmulc(w, C{t(a, m), -t(a, km)}), vb = cmulc(w, C{t(a + 1, m), -t(a + 1, km)});
      return C{va.x - vb.y, -(va.y + vb.x)};
    }
  };
  const C* z;
  constexpr int kSlots = kSplit ? kC + kC / 2 : kC;
  if constexpr (kN > 0) {
    z = fft_ct_first<kN, kSlots, kNT>(args.fft_tw, buf0, buf1, first);
  } else if constexpr (kBluestein) {
    z = bluestein(args.passes, args.npass, args.fft_tw, N, ls, args.chirp, args.bfft, buf0, buf1, used, first);
  } else {
    z = fft(args.passes, args.npass, args.fft_tw, N, buf0, buf1, used, first);
  }
#pragma unroll 4
  for (int e = tid; e < count; e += nth) {
    int l, c;
    tile.split(e, l, c);
    if (l >= nl) continue;
    // Both kinds of output alternate along a line: one path for both (selects, no divergent branches).
    const int kp = __ldg(args.kp + c), k = kp >> 2;
    const bool third = kSplit && (kp & 2) != 0;
    const int km = k == 0 ? 0 : N - k;
    C zk, zm;
    if constexpr (kBluestein) {
      zk = bluestein_out(z, args.chirp, l * ls, k);
      zm = bluestein_out(z, args.chirp, l * ls, km);
    } else {
      const int i0 = third ? (nl + (l >> 1)) * N + k : l * N + k, i1 = third ? i0 : l * N + km;
      zk = z[pad<C>(i0)];
      zm = z[pad<C>(i1)];
    }
    const T h = T(0.5);
    const C v = (kp & 1) == 0 ? C{h * (zk.x + zm.x), h * (zk.y - zm.y)} : C{h * (zk.y + zm.y), h * (zm.x - zk.x)};
    const T whole = cmul(__ldg(args.tw + k), v).x, val = third ? ((l & 1) != 0 ? -zk.y : zk.x) : whole;
    args.out[tile.offset(l, c)] = __ldg(args.gain + c) * val;
  }
}

// ---- Host side (kernels/r2r/r2r.cu, tests/emulate/emulate_dct1.cpp) ----------------------------------------------

// The FFT length of an L-point DCT-I (dst false) or DST-I.
constexpr long long fft_length(long long len, bool dst) { return dst ? len + 1 : len - 1; }

// The tables of one axis for the kernel's FFT length n (M, or M/2 with the split): tw (n entries), kp and gain (L
// entries; post: the norm's output factors, empty = ones).
template <class T>
struct Tables {
  std::vector<typename Cx<T>::type> tw;
  std::vector<int> kp;
  std::vector<T> gain;
};
template <class T>
Tables<T> dct1_tables(long long len, bool dst, long long n, const std::vector<double>& post) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const long long m = fft_length(len, dst);
  Tables<T> t;
  for (long long k = 0; k < n; ++k) {
    const long double th = pi * static_cast<long double>(k) / (2.0L * static_cast<long double>(n));
    t.tw.push_back({static_cast<T>(std::cos(th)), static_cast<T>(-std::sin(th))});
  }
  // Output o of one whole line of FFT length mm (the method without the split): its code and gain.
  const auto whole = [&](long long mm, long long o, int& code, long double& g) {
    const long long f = dst ? o + 1 : o;  // the frequency of output o
    const long double th = pi * static_cast<long double>(f) / (2.0L * static_cast<long double>(mm));
    const bool low = 2 * f <= mm;
    // DCT-I: low f from a (k = f), high from b (k = M − f); DST-I: low from a (k = M − f), high from −b (k = f).
    const long long k = dst ? (low ? mm - f : f) : (low ? f : mm - f);
    g = low ? 1.0L / std::cos(th) : 1.0L / std::sin(th);
    if (dst && !low) g = -g;
    code = static_cast<int>(4 * k + (low ? 0 : 1));
  };
  for (long long o = 0; o < len; ++o) {
    int code = 0;
    long double g = 1.0L;
    if (n == m) {
      whole(m, o, code, g);
    } else if ((o % 2 == 0) != dst) {
      whole(n, o / 2, code, g);  // DCT-I: X_2j from the half DCT-I; DST-I: X_2j+1 from the half DST-I
    } else {
      const long long j = o / 2;                                  // DCT-I: X_2j+1; DST-I: X_2j, negated at odd j
      const long long k = (j & 1) ? n - ((j + 1) >> 1) : j >> 1;  // inv_nat(j, N)
      code = static_cast<int>(4 * k + 2);
      g = dst && (j & 1) ? -1.0L : 1.0L;
    }
    if (!post.empty()) g *= static_cast<long double>(post[static_cast<std::size_t>(o)]);
    t.kp.push_back(code);
    t.gain.push_back(static_cast<T>(g));
  }
  return t;
}

// Whether the smooth passes take an FFT of m points (smooth::factor: prime factors 2 .. 13; m < 2^24 never needs more
// than kMaxPasses of them).
constexpr bool smooth_fft(long long m) {
  if (m < 1) return false;
  for (const long long r : {2, 3, 5, 7, 11, 13})
    while (m % r == 0) m /= r;
  return m == 1;
}

// Launch shape: P lines per CTA (rows: P·M ≈ 2048 complex points, at most 256 lines, at least 2 with the split;
// columns: kC = P adjacent columns, the widest of 32 down to 8 bytes per row whose CTA leaves room for two per SM, else
// the widest that fits one: f32 M >= 2048 takes 2 columns in one CTA per SM rather than 1 column in two,
// docs/decisions.md §4), the FFT slots S, the threads (a radix-8 butterfly each), the shared memory and whether the
// split applies (`split` asks for it: M even and two lines of it fit, else the whole line). fft: the transform's FFT
// length (M, or M/2 with the split; dct1_tables' n). M not smooth: Bluestein's, bl = its FFT length Lb
// (smooth::bluestein_length; the same rules with Lb for M, no split), else bl = 0. lines = 0 where M does not fit.
struct Config {
  int lines = 0, slots = 0, threads = 0, smem_bytes = 0, fft = 0, bl = 0;
  bool split = false;
};
template <class T>
constexpr Config config_as(long long len, bool dst, bool cols, bool split) {
  Config c;
  const long long m = fft_length(len, dst);
  if (m < 1) return c;
  // Bluestein's FFT length (never constant-evaluated: the compiled lengths are smooth).
  const long long bl = smooth_fft(m) ? 0 : smooth::bluestein_length<T>(m);
  if (!smooth_fft(m) && bl == 0) return c;
  const bool sp = bl == 0 && split && m >= 4 && m % 2 == 0 && smooth::smem_bytes<T>(3, m / 2) <= smooth::kMaxSmem;
  const long long n = sp ? m / 2 : bl > 0 ? bl : m;  // the FFT length of the kernel's passes
  const auto slots = [&](long long p) { return sp ? p + p / 2 : p; };
  const auto smem = [&](long long p) { return smooth::smem_bytes<T>(slots(p), n); };
  const int least = sp ? 2 : 1;
  if (smem(least) > smooth::kMaxSmem) return c;
  if (cols) {
    int narrowest_two = 8 / static_cast<int>(sizeof(T)) < 1 ? 1 : 8 / static_cast<int>(sizeof(T));
    if (narrowest_two < least) narrowest_two = least;
    for (int kc = 32 / static_cast<int>(sizeof(T)); kc >= narrowest_two && c.lines == 0; kc /= 2)
      if (smem(kc) <= smooth::kTwoCtaSmem) c.lines = kc;
    for (int kc = 32 / static_cast<int>(sizeof(T)); kc >= least && c.lines == 0; kc /= 2)
      if (smem(kc) <= smooth::kMaxSmem) c.lines = kc;
  } else {
    const long long q = bl > 0 ? bl : m;  // P·q ≈ 2048 (with the split too, P·M)
    c.lines = static_cast<int>(q >= 2048 ? 1 : 2048 / q > 256 ? 256 : 2048 / q);
    if (sp) c.lines = c.lines < 2 ? 2 : c.lines / 2 * 2;
  }
  c.split = sp;
  c.fft = static_cast<int>(sp ? n : m);
  c.bl = static_cast<int>(bl);
  c.slots = static_cast<int>(slots(c.lines));
  c.smem_bytes = static_cast<int>(smem(c.lines));
  c.threads = smooth::line_threads(c.slots, n);
  return c;
}

// Where the split pays (docs/decisions.md §4, H200): f64 M = 1024 .. 8192 (0.71–0.92 of the whole line's time, the
// column tiles twice as wide in the smaller shared memory), f32 M = 8192 (0.86–0.88, the CTA at 1024 threads either
// way); elsewhere it measured 0.9–1.2, its first pass's extra loads costing what the FFT saves. Only compiled lengths
// (CompiledM) split.
template <class T>
constexpr bool split_pays(long long m) {
  return (m & (m - 1)) == 0 && m <= 8192 && m >= (sizeof(T) == 8 ? 1024 : 8192);
}
template <class T>
constexpr Config config(long long len, bool dst, bool cols) {
  return config_as<T>(len, dst, cols, split_pays<T>(fft_length(len, dst)));
}

// FFT lengths M with compiled kernels: the powers of two of Chebyshev grids (DCT-I of 2^k + 1 points) and of Poisson
// problems with Dirichlet boundaries (DST-I of 2^k − 1 points).
using CompiledM = std::integer_sequence<int, 256, 512, 1024, 2048, 4096, 8192>;

// The compiled kernel for FFT length m in config()'s launch shape (kForceSplit: config_as(…, true)'s, for the host
// emulation) (nullptr: none).
template <class T, bool kCols, bool kForceSplit, int... Ms>
const void* compiled_kernel_in(long long m, std::integer_sequence<int, Ms...>) {
  const void* fn = nullptr;
  const auto one = [&]<int M>(std::integral_constant<int, M>) {
    constexpr Config c = kForceSplit ? config_as<T>(M + 1, false, kCols, true) : config<T>(M + 1, false, kCols);
    if constexpr (c.lines > 0)
      if (m == M) fn = reinterpret_cast<const void*>(&dct1_lines<T, kCols, c.lines, c.fft, c.threads, c.split>);
  };
  (one(std::integral_constant<int, Ms>{}), ...);
  return fn;
}
template <class T>
const void* compiled_kernel(long long m, bool cols) {
  return cols ? compiled_kernel_in<T, true, false>(m, CompiledM{})
              : compiled_kernel_in<T, false, false>(m, CompiledM{});
}

// The kernel with M and the passes at run time for config() `c` (no split: rows any P, columns kC = c.lines; with
// Bluestein's where c.bl > 0).
template <class T, bool kBluestein>
const void* runtime_kernel_as(const Config& c, bool cols) {
  if (!cols) return reinterpret_cast<const void*>(&dct1_lines<T, false, 1, 0, 0, false, kBluestein>);
  switch (c.lines) {
    case 8:
      return reinterpret_cast<const void*>(&dct1_lines<T, true, 8, 0, 0, false, kBluestein>);
    case 4:
      return reinterpret_cast<const void*>(&dct1_lines<T, true, 4, 0, 0, false, kBluestein>);
    case 2:
      return reinterpret_cast<const void*>(&dct1_lines<T, true, 2, 0, 0, false, kBluestein>);
    default:
      return reinterpret_cast<const void*>(&dct1_lines<T, true, 1, 0, 0, false, kBluestein>);
  }
}
template <class T>
const void* runtime_kernel(const Config& c, bool cols) {
  if (c.split) return nullptr;
  return c.bl > 0 ? runtime_kernel_as<T, true>(c, cols) : runtime_kernel_as<T, false>(c, cols);
}

}  // namespace dct::cuda::dct1
