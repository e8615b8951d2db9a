#pragma once
/* DCT-I and DST-I lines in one kernel per axis, for lengths whose FFT length M is smooth (DCT-I of L points:
   M = L − 1; DST-I: M = L + 1): cuda-r2r's line step for these kinds where it applies (kernels/r2r/r2r.cu), in place of
   the gather, cuFFT's real FFT of 2M points and the scatter. Plain CUDA C++ on the smooth kernels' FFT
   (kernels/dct2d/smooth.cuh); tests/emulate/emulate_dct1.cpp compiles it on the host.

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

   A CTA holds P lines, each one complex FFT of M points: rows layout, P consecutive lines of L contiguous values;
   columns layout, a tile of kC adjacent columns of one matrix of L rows (P = kC). Shared memory: two padded buffers of
   P·M complex points (smooth::smem_bytes(P, M)); the first holds the staged lines until the FFT's first pass has read
   them as z (M + 1 reals each: y_0 .. y_M, the norm's input factors applied). In place is allowed (a CTA reads all of
   its lines before it writes any). */

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
  const C* fft_tw = nullptr;  // FFT_M's twiddles (smooth::fft_twiddles)
  const Pass* passes = nullptr;
  const C* tw = nullptr;    // e^{−iπk/2M}, k < M
  const T* pre = nullptr;   // the norm's input factors, L
  const T* gain = nullptr;  // g(o), L
  const int* kp = nullptr;  // 2·k(o) + p(o), L
  int len = 1, m = 1, npass = 0;
  int dst = 0;                 // 1: DST-I (y_0 = 0, the line at y_1 .., y_M = 0; σ on a), 0: DCT-I (σ on b)
  int lines_per_cta = 1;       // rows layout: P
  int width = 1, n_tiles = 1;  // columns layout: the matrix width and tiles per matrix (ceil(width / kC))
  long long lines = 0;         // rows layout: lines in all
  FastDiv dl;                  // L
};

// kCols = false: rows layout (kC = 1), CTA b takes lines P·b ..; kCols = true: columns layout, CTA b takes tile
// b mod n_tiles of matrix b / n_tiles. Block: any multiple of 32 threads; dynamic shared memory
// smooth::smem_bytes<T>(P, M). kM > 0: compiled for M = kM in config()'s launch shape (kC lines or columns per CTA,
// kNT threads; the FFT's passes at compile time, smooth::fft_ct_first, always kC lines through it), for the lengths of
// CompiledM.
template <class T, bool kCols, int kC, int kM = 0, int kNT = 0>
__global__ void __launch_bounds__(1024) dct1_lines(const Args<T> args) {
  using namespace smooth::detail;
  using C = typename Cx<T>::type;
  const int L = args.len, M = kM > 0 ? kM : args.m, P = kCols || kM > 0 ? kC : args.lines_per_cta, width = args.width;
  const int tid = static_cast<int>(threadIdx.x), nth = static_cast<int>(blockDim.x);
  C* const buf0 = reinterpret_cast<C*>(smooth::smooth_smem);
  C* const buf1 = buf0 + padded<C>(P * M);
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
  // The FFT's first pass reads z(m) = a(nat(m)) + i b(nat(m)) of line l (l0 = l·M) from the staged lines and writes
  // buffer 1; nat(m) = 2m (m < (M+1)/2), 2(M−m)−1 otherwise.
  const auto first = [&](int l, int l0, int i) -> C {
    const int m = i - l0, n = m < (M + 1) / 2 ? 2 * m : 2 * (M - m) - 1;
    const T y0 = ys[l * (M + 1) + n], y1 = ys[l * (M + 1) + n + 1];
    const T s = y0 + y1, d = y0 - y1;
    const bool flip = (n & 1) != 0;
    return args.dst ? C{flip ? -s : s, d} : C{s, flip ? -d : d};
  };
  const C* z;
  if constexpr (kM > 0)
    z = fft_ct_first<kM, kC, kNT>(args.fft_tw, buf0, buf1, first);
  else
    z = fft(args.passes, args.npass, args.fft_tw, M, buf0, buf1, nl, first);
#pragma unroll 4
  for (int e = tid; e < count; e += nth) {
    int l, c;
    tile.split(e, l, c);
    if (l >= nl) continue;
    const int kp = __ldg(args.kp + c), k = kp >> 1;
    const C zk = z[pad<C>(l * M + k)], zm = z[pad<C>(l * M + (k == 0 ? 0 : M - k))];
    const T h = T(0.5);
    const C v = (kp & 1) == 0 ? C{h * (zk.x + zm.x), h * (zk.y - zm.y)} : C{h * (zk.y + zm.y), h * (zm.x - zk.x)};
    args.out[tile.offset(l, c)] = __ldg(args.gain + c) * cmul(__ldg(args.tw + k), v).x;
  }
}

// ---- Host side (kernels/r2r/r2r.cu, tests/emulate/emulate_dct1.cpp) ----------------------------------------------

// The FFT length of an L-point DCT-I (dst false) or DST-I.
constexpr long long fft_length(long long len, bool dst) { return dst ? len + 1 : len - 1; }

// The tables of one axis: tw (M entries), kp and gain (L entries; post: the norm's output factors, empty = ones).
template <class T>
struct Tables {
  std::vector<typename Cx<T>::type> tw;
  std::vector<int> kp;
  std::vector<T> gain;
};
template <class T>
Tables<T> dct1_tables(long long len, bool dst, const std::vector<double>& post) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const long long m = fft_length(len, dst);
  Tables<T> t;
  for (long long k = 0; k < m; ++k) {
    const long double th = pi * static_cast<long double>(k) / (2.0L * static_cast<long double>(m));
    t.tw.push_back({static_cast<T>(std::cos(th)), static_cast<T>(-std::sin(th))});
  }
  for (long long o = 0; o < len; ++o) {
    const long long f = dst ? o + 1 : o;  // the frequency of output o
    const long double th = pi * static_cast<long double>(f) / (2.0L * static_cast<long double>(m));
    const bool low = 2 * f <= m;
    // DCT-I: low f from a (k = f), high from b (k = M − f); DST-I: low from a (k = M − f), high from −b (k = f).
    const long long k = dst ? (low ? m - f : f) : (low ? f : m - f);
    const int part = low ? 0 : 1;
    long double g = low ? 1.0L / std::cos(th) : 1.0L / std::sin(th);
    if (dst && !low) g = -g;
    if (!post.empty()) g *= static_cast<long double>(post[static_cast<std::size_t>(o)]);
    t.kp.push_back(static_cast<int>(2 * k + part));
    t.gain.push_back(static_cast<T>(g));
  }
  return t;
}

// Launch shape: P lines per CTA (rows: P·M ≈ 2048 complex points, at most 256 lines; columns: kC = P adjacent columns,
// the widest of 32 down to 8 bytes per row whose CTA leaves room for two per SM, else the widest that fits one: f32
// M >= 2048 takes 2 columns in one CTA per SM rather than 1 column in two, docs/decisions.md §4), the threads (a
// radix-8 butterfly each) and the shared memory. lines = 0 where M does not fit.
struct Config {
  int lines = 0, threads = 0, smem_bytes = 0;
};
template <class T>
constexpr Config config(long long len, bool dst, bool cols) {
  Config c;
  const long long m = fft_length(len, dst);
  if (m < 1 || smooth::smem_bytes<T>(1, m) > smooth::kMaxSmem) return c;
  if (cols) {
    const int narrowest_two = 8 / static_cast<int>(sizeof(T)) < 1 ? 1 : 8 / static_cast<int>(sizeof(T));
    for (int kc = 32 / static_cast<int>(sizeof(T)); kc >= narrowest_two && c.lines == 0; kc /= 2)
      if (smooth::smem_bytes<T>(kc, m) <= smooth::kTwoCtaSmem) c.lines = kc;
    for (int kc = 32 / static_cast<int>(sizeof(T)); kc >= 1 && c.lines == 0; kc /= 2)
      if (smooth::smem_bytes<T>(kc, m) <= smooth::kMaxSmem) c.lines = kc;
  } else {
    c.lines = static_cast<int>(m >= 2048 ? 1 : 2048 / m > 256 ? 256 : 2048 / m);
  }
  c.smem_bytes = static_cast<int>(smooth::smem_bytes<T>(c.lines, m));
  c.threads = smooth::line_threads(c.lines, m);
  return c;
}

// FFT lengths with compiled kernels: the powers of two of Chebyshev grids (DCT-I of 2^k + 1 points) and of Poisson
// problems with Dirichlet boundaries (DST-I of 2^k − 1 points).
using CompiledM = std::integer_sequence<int, 256, 512, 1024, 2048, 4096, 8192>;

// The compiled kernel for FFT length m in config()'s launch shape (nullptr: none).
template <class T, bool kCols, int... Ms>
const void* compiled_kernel_in(long long m, std::integer_sequence<int, Ms...>) {
  const void* fn = nullptr;
  const auto one = [&]<int M>(std::integral_constant<int, M>) {
    constexpr Config c = config<T>(M + 1, false, kCols);
    if constexpr (c.lines > 0)
      if (m == M) fn = reinterpret_cast<const void*>(&dct1_lines<T, kCols, c.lines, M, c.threads>);
  };
  (one(std::integral_constant<int, Ms>{}), ...);
  return fn;
}
template <class T>
const void* compiled_kernel(long long m, bool cols) {
  return cols ? compiled_kernel_in<T, true>(m, CompiledM{}) : compiled_kernel_in<T, false>(m, CompiledM{});
}

}  // namespace dct::cuda::dct1
