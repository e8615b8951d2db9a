#pragma once
/* cuda-dct4-small: batched DCT-IV of short lines (N <= kMaxN) as a product with the N x N matrix
     C[n][k] = σ cos(π(2n+1)(2k+1)/4N)      (σ of docs/algorithms.md §1: 2, √(2/N) or 1/N),  Y = X · C,
   one read and one write of the data. At these lengths the O(N^2) product costs few operations per byte moved
   (N = 17: 17 multiply-adds per element against 8 bytes in f32), so one pass replaces the FFT route's three (1.1-1.6x
   a copy against 2-4.5x on an H100; the measurements and the limit N <= 63: docs/decisions.md §10).

   A CTA works on tiles of L lines (grid-stride over the tiles), with the matrix in shared memory, loaded once:
     1. the tile is loaded coalesced into registers (at most per_thread values per thread, all in flight at once,
        issued while the previous tile is computed and stored: a software pipeline), then into xs. Rows layout: L
        consecutive lines, one contiguous run of L·N values (line stride N rounded up to odd in shared memory, so
        that lanes on consecutive lines hit distinct banks). Columns layout: N rows x L adjacent columns of one
        matrix (column = line, shared stride L);
     2. work item (l, g): lines l and l + L/2, outputs k = K·g .. K·g + K−1 of each, Σ_n xs[line][n] · C[n][k..]:
        per n two loads of x and K coefficients in vector loads that are one address across a warp (lanes take
        consecutive l of one g: a broadcast) for 2K multiply-adds, into ys;
     3. ys is stored coalesced, as it was loaded.
   Accumulation in T: at most kMaxN terms per output.

   Plain CUDA C++ with no host-runtime dependencies: tests/emulate/emulate_dct4_small.cpp compiles it on the host. */

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace dct::cuda::dct4::small {

extern __shared__ __align__(16) unsigned char small_smem[];

constexpr int kMaxN = 63;  // longest line (the matrix and a tile in shared memory; the O(N^2) product)
constexpr int kK = 4;      // outputs per line of a work item (one or two vector loads of the matrix row)
constexpr int kThreads = 256;

// Values of a tile each thread holds in registers between its load and its store to shared memory: 16 f32 or 8 f64
// (64 bytes), so a tile is at most kThreads · per_thread values and its loads are all in flight at once.
template <class T>
__host__ __device__ constexpr int per_thread() {
  return 64 / static_cast<int>(sizeof(T));
}
template <class T>
__host__ __device__ constexpr int tile_max() {
  return per_thread<T>() * kThreads;
}

// Padded row length of the matrix (a multiple of kK; zeros beyond N).
__host__ __device__ constexpr int mat_cols(int n) { return (n + kK - 1) / kK * kK; }
// The matrix, n rows of mat_cols(n): C[j][k] = σ cos(π(2j+1)(2k+1)/4n), built in long double (the plan's table; the
// host emulation builds it here too).
template <class T>
std::vector<T> matrix(int n, long double sig) {
  const int nc = mat_cols(n);
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<T> m(static_cast<std::size_t>(n) * nc, T(0));
  for (long long j = 0; j < n; ++j)
    for (long long k = 0; k < n; ++k)
      m[j * nc + k] = static_cast<T>(sig * std::cos(pi * ((2 * j + 1) * (2 * k + 1) % (8LL * n)) / (4.0L * n)));
  return m;
}
// Shared stride between lines: rows N rounded up to odd, columns 1 (the stride between values is then L).
__host__ __device__ constexpr int line_stride(int n, bool cols) { return cols ? 1 : (n | 1); }
// log2 of L, the lines of a tile: the most whose shared tile fits tile_max (columns: at most 64, 256 bytes of f32
// per row), at least 2.
template <class T>
__host__ __device__ constexpr int lg_lines(int n, bool cols) {
  int lg = 1;
  while ((2 << lg) * (cols ? n : (n | 1)) <= tile_max<T>() && (!cols || lg < 6)) ++lg;
  return lg;
}
__host__ __device__ constexpr int tile_values(int n, int lines, bool cols) { return lines * (cols ? n : (n | 1)); }
// Shared memory of one CTA: the matrix, then xs and ys of one tile each; max_smem_bytes: the most any n asks for.
template <class T>
__host__ __device__ constexpr int smem_bytes(int n, bool cols) {
  return static_cast<int>(sizeof(T)) * (n * mat_cols(n) + 2 * tile_values(n, 1 << lg_lines<T>(n, cols), cols));
}
template <class T>
__host__ __device__ constexpr int max_smem_bytes() {
  return static_cast<int>(sizeof(T)) * (kMaxN * mat_cols(kMaxN) + 2 * tile_max<T>());
}

template <class T>
struct Args {
  const T* in = nullptr;
  T* out = nullptr;
  const T* mat = nullptr;  // n rows of mat_cols(n): C[n][k]
  int n = 1;
  bool cols = false;
  long long lines = 0;                  // rows layout: lines in all
  int width = 1, tiles_per_matrix = 1;  // columns layout: matrices of n rows x width
  long long tiles = 0;
};

// acc[i] += x · c[i], i < kK, c 16-byte aligned (vector loads from shared memory).
__device__ __forceinline__ void mac(const float* c, float x0, float x1, float (&a0)[kK], float (&a1)[kK]) {
#pragma unroll
  for (int h = 0; h < kK; h += 4) {
    const float4 v = *reinterpret_cast<const float4*>(c + h);
    a0[h] += x0 * v.x, a0[h + 1] += x0 * v.y, a0[h + 2] += x0 * v.z, a0[h + 3] += x0 * v.w;
    a1[h] += x1 * v.x, a1[h + 1] += x1 * v.y, a1[h + 2] += x1 * v.z, a1[h + 3] += x1 * v.w;
  }
}
__device__ __forceinline__ void mac(const double* c, double x0, double x1, double (&a0)[kK], double (&a1)[kK]) {
#pragma unroll
  for (int h = 0; h < kK; h += 2) {
    const double2 v = *reinterpret_cast<const double2*>(c + h);
    a0[h] += x0 * v.x, a0[h + 1] += x0 * v.y;
    a1[h] += x1 * v.x, a1[h + 1] += x1 * v.y;
  }
}

// A tile: its first value's global offset and its size (rows: values; columns: columns).
struct Tile {
  long long base = 0;
  int count = 0;
};
template <class T, bool kCols>
__device__ __forceinline__ Tile tile_at(const Args<T>& a, long long t, int lg) {
  Tile r;
  if constexpr (!kCols) {
    const long long first = t << lg, nl = a.lines - first;
    r.base = first * a.n;
    r.count = static_cast<int>(nl < (1 << lg) ? nl : (1 << lg)) * a.n;
  } else {
    const long long b = t / a.tiles_per_matrix, c0 = (t - b * a.tiles_per_matrix) << lg;
    r.base = b * a.n * static_cast<long long>(a.width) + c0;
    r.count = static_cast<int>(a.width - c0 < (1 << lg) ? a.width - c0 : (1 << lg));
  }
  return r;
}

// Value i of a thread in a tile is element e = threadIdx.x + i·kThreads in memory order. Rows: the run's e-th value,
// at shared (e / n)·ls + e % n, the quotient and remainder stepped, not divided. Columns (L divides kThreads): row
// e >> lg = r0 + i·(kThreads >> lg), column threadIdx.x & (L − 1) for every i, shared position e.
template <class T, bool kCols>
struct Lanes {
  static constexpr int kPer = per_thread<T>();
  int n, lg;
  __device__ __forceinline__ Lanes(int n_, int lg_) : n(n_), lg(lg_) {}
  __device__ __forceinline__ void load(const Args<T>& a, const Tile& t, T (&v)[kPer]) const {
    const T* g = a.in + t.base;
    if constexpr (!kCols) {
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int e = threadIdx.x + i * kThreads;
        if (e < t.count) v[i] = g[e];
      }
    } else {
      const int c = threadIdx.x & ((1 << lg) - 1), r0 = threadIdx.x >> lg, dr = kThreads >> lg;
#pragma unroll
      for (int i = 0; i < kPer; ++i)
        if (c < t.count && r0 + i * dr < n) v[i] = g[static_cast<long long>(r0 + i * dr) * a.width + c];
    }
  }
  // kIn: registers -> shared; else shared -> global (the tile's values, as loaded).
  template <bool kIn>
  __device__ __forceinline__ void move(const Args<T>& a, const Tile& t, T (&v)[kPer], T* s) const {
    if constexpr (!kCols) {
      const int ls = n | 1, dq = kThreads / n, dr = kThreads - dq * n;
      int line = threadIdx.x / n, j = threadIdx.x - line * n;
      T* g = a.out + t.base;
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int e = threadIdx.x + i * kThreads;
        if (e < t.count) {
          if constexpr (kIn)
            s[line * ls + j] = v[i];
          else
            g[e] = s[line * ls + j];
        }
        line += dq;
        j += dr;
        if (j >= n) {
          j -= n;
          ++line;
        }
      }
    } else {
      const int c = threadIdx.x & ((1 << lg) - 1), r0 = threadIdx.x >> lg, dr = kThreads >> lg;
      T* g = a.out + t.base;
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int e = threadIdx.x + i * kThreads;
        if (r0 + i * dr < n) {
          if constexpr (kIn)
            s[e] = v[i];
          else if (c < t.count)
            g[static_cast<long long>(r0 + i * dr) * a.width + c] = s[e];
        }
      }
    }
  }
};

template <class T, bool kCols>
__device__ __forceinline__ void small_body(const Args<T>& a) {
  constexpr int kPer = per_thread<T>();
  const int n = a.n, nc = mat_cols(n), lg = lg_lines<T>(n, kCols), L = 1 << lg, half = L >> 1;
  const int items = (nc / kK) << (lg - 1);
  const int ls = line_stride(n, kCols), es = kCols ? L : 1;
  const Lanes<T, kCols> lanes(n, lg);
  T* mat = reinterpret_cast<T*>(small_smem);
  T* xs = mat + n * nc;
  T* ys = xs + tile_values(n, L, kCols);
  for (int i = threadIdx.x; i < n * nc; i += kThreads) mat[i] = a.mat[i];
  // Software pipeline: the next tile's loads are in flight (in registers) while this tile is computed and stored.
  T v[kPer];
  long long t = blockIdx.x;
  Tile cur;
  if (t < a.tiles) {
    cur = tile_at<T, kCols>(a, t, lg);
    lanes.load(a, cur, v);
  }
  for (; t < a.tiles; t += gridDim.x) {
    __syncthreads();  // the matrix is in; the previous tile's xs is read and its ys stored
    lanes.template move<true>(a, cur, v, xs);
    __syncthreads();
    const Tile next = t + gridDim.x < a.tiles ? tile_at<T, kCols>(a, t + gridDim.x, lg) : Tile{};
    if (next.count > 0) lanes.load(a, next, v);
    for (int w = threadIdx.x; w < items; w += kThreads) {
      const int l = w & (half - 1), k0 = (w >> (lg - 1)) * kK;
      T a0[kK], a1[kK];
#pragma unroll
      for (int i = 0; i < kK; ++i) a0[i] = a1[i] = T(0);
      const T* x0 = xs + l * ls;
      const T* x1 = xs + (l + half) * ls;
      const T* c = mat + k0;
      for (int j = 0; j < n; ++j) mac(c + j * nc, x0[j * es], x1[j * es], a0, a1);
#pragma unroll
      for (int i = 0; i < kK; ++i)
        if (k0 + i < n) {
          ys[l * ls + (k0 + i) * es] = a0[i];
          ys[(l + half) * ls + (k0 + i) * es] = a1[i];
        }
    }
    __syncthreads();
    lanes.template move<false>(a, cur, v, ys);
    cur = next;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads, 2) dct4_small(const Args<T> a) {
  if (a.cols)
    small_body<T, true>(a);
  else
    small_body<T, false>(a);
}

// ---- Rows of odd N <= odd_max_n<T>(): one line per thread, the matrix in the kernel's parameters ----
//
// dct4_small reads two x values and a vector of kK coefficients from shared memory for every 2·kK multiply-adds, and
// those loads bound it (N = 17 f32: 1.74× a copy). Here N is a template parameter and the matrix is the kernel's
// parameter (__grid_constant__, in the constant bank), so that with every loop unrolled each multiply-add takes its
// coefficient as an immediate constant-bank operand: no load at all. A CTA of kOddThreads threads owns as many
// consecutive lines, one contiguous run of kOddThreads·N values, loaded into shared memory by coalesced 16-byte chunks
// (a partial last tile or a misaligned pointer: by values); thread l then reads line l (stride N, odd: lanes on
// consecutive lines hit distinct banks), computes its N outputs in registers and puts them back in place, and the tile
// is stored as it was loaded. Even N keep dct4_small (or dct4_rows_short for N = 8, 16, 32): an even stride would
// need padding, which breaks the 16-byte chunks. Longest line: 39 in f32, 21 in f64, where it measured faster than
// dct4_small (f64 N = 33 the same, 39 slower: 39 doubles and the sums in registers; docs/decisions.md §10).
constexpr int kOddThreads = 128;
template <class T>
__host__ __device__ constexpr int odd_max_n() {
  return sizeof(T) == 4 ? 39 : 21;
}

// C[k][n] = σ cos(π(2n+1)(2k+1)/4N), row-major (matrix() without its padding).
template <class T, int N>
struct OddMatrix {
  T c[N * N];
};

template <class T>
__host__ __device__ constexpr int odd_smem_bytes(int n) {
  return kOddThreads * n * static_cast<int>(sizeof(T));
}

// x, y: `lines` rows of N values (may alias). Block: kOddThreads threads; dynamic shared memory odd_smem_bytes<T>(N).
template <class T, int N>
__global__ void __launch_bounds__(kOddThreads)
    dct4_rows_odd(const T* x, T* y, long long lines, const __grid_constant__ OddMatrix<T, N> m) {
  static_assert(N % 2 == 1 && N <= odd_max_n<T>());
  using Chunk = std::conditional_t<sizeof(T) == 4, float4, double2>;
  constexpr int V = 16 / static_cast<int>(sizeof(T)), kChunks = kOddThreads * N / V;
  T* const s = reinterpret_cast<T*>(small_smem);
  const int tid = static_cast<int>(threadIdx.x);
  const long long first = static_cast<long long>(blockIdx.x) * kOddThreads;
  const long long left = lines - first;
  const int nl = left < kOddThreads ? static_cast<int>(left) : kOddThreads;  // lines in this CTA
  const T* xt = x + first * N;
  T* yt = y + first * N;
  const bool vec =
      nl == kOddThreads && ((reinterpret_cast<std::uintptr_t>(xt) | reinterpret_cast<std::uintptr_t>(yt)) & 15) == 0;
  if (vec) {
#pragma unroll
    for (int r = 0; r < (kChunks + kOddThreads - 1) / kOddThreads; ++r) {
      const int c = r * kOddThreads + tid;
      if (c < kChunks) reinterpret_cast<Chunk*>(s)[c] = reinterpret_cast<const Chunk*>(xt)[c];
    }
  } else {
    for (int e = tid; e < nl * N; e += kOddThreads) s[e] = xt[e];
  }
  __syncthreads();
  if (tid < nl) {
    T v[N];
#pragma unroll
    for (int n = 0; n < N; ++n) v[n] = s[tid * N + n];
#pragma unroll
    for (int k = 0; k < N; ++k) {
      T acc = v[0] * m.c[k * N];
#pragma unroll
      for (int n = 1; n < N; ++n) acc += v[n] * m.c[k * N + n];
      s[tid * N + k] = acc;
    }
  }
  __syncthreads();
  if (vec) {
#pragma unroll
    for (int r = 0; r < (kChunks + kOddThreads - 1) / kOddThreads; ++r) {
      const int c = r * kOddThreads + tid;
      if (c < kChunks) reinterpret_cast<Chunk*>(yt)[c] = reinterpret_cast<const Chunk*>(s)[c];
    }
  } else {
    for (int e = tid; e < nl * N; e += kOddThreads) yt[e] = s[e];
  }
}

// The kernel's parameter for N: matrix(N, sig) without its padding.
template <class T, int N>
OddMatrix<T, N> odd_matrix(long double sig) {
  const std::vector<T> full = matrix<T>(N, sig);
  OddMatrix<T, N> m{};
  for (int k = 0; k < N; ++k)
    for (int n = 0; n < N; ++n) m.c[k * N + n] = full[static_cast<std::size_t>(k) * mat_cols(N) + n];
  return m;
}

}  // namespace dct::cuda::dct4::small
