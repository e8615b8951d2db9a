#pragma once
/* Device code of cuda-r2r (kernels/r2r/r2r.cu): the real-to-real family, DCT and DST types I-IV, as pre- and
   post-processing around cuFFT. Plain CUDA C++ with no host dependencies (math in docs/algorithms.md, "The
   real-to-real family on the GPU"). Every transform is scipy's unnormalized one; the norms enter as per-index
   input factors (pre, by input index) and output factors (post, by output index) from core/r2r.hpp.

   Lines (one axis of length n of an array seen as outer x n x inner; line l = o * inner + i):
     dct2   real FFT of the reordered line v (even samples first, odd reversed after them):
            y_k = 2 Re(w_k V_k), w_k = exp(-i pi k / 2n), V_{n-k} = conj(V_k)
     dst2   dct2 of x_m (-1)^m, output reversed
     dct3   V_k = (y_k - i y_{n-k}) conj(w_k) (y_n = 0), complex-to-real FFT (unnormalized), inverse reorder
     dst3   dct3 of the reversed input, times (-1)^m
     dct4   even n: z_j = (x_2j + i x_{n-1-2j}) exp(-i pi (4j+1) / 4n), Z = FFT_{n/2}(z), W_j = Z_j exp(-i pi j / n),
            y_2j = 2 Re W_j, y_{n-1-2j} = -2 Im W_j; odd n: U = FFT_2n(x_m w_m, zero-padded),
            y_k = 2 Re(exp(-i pi (2k+1) / 4n) U_k)
     dst4   dct4 of the reversed input, times (-1)^k
     dct1   real FFT of the even extension (x_0 .. x_{n-1}, x_{n-2} .. x_1), length 2(n-1): y_k = Re E_k
     dst1   real FFT of the odd extension (0, x_0 .. x_{n-1}, 0, -x_{n-1} .. -x_0), length 2(n+1): y_k = -Im E_{k+1}
   N-D three-stage (kinds of one family along the D trailing axes of an array, D = 1..3):
     forward (dct2/dst2): reorder every axis (signs of dst axes folded in), one D-dimensional real FFT, then per
       group of the 2^D points {k_j, n_j - k_j} one thread applies, axis by axis, the complex-linear map
       C(k) = w(k) V(k) + conj(w(k)) V(n - k) and writes the real parts (dst axes reversed);
     inverse (dct3/dst3): per group the axis-by-axis map V(k) = conj(w(k)) (C(k) - i C(n - k)) (C(n) = 0) writes
       the half spectrum, one D-dimensional complex-to-real FFT, the inverse reorder (dst signs folded in). */
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/dct4/rows.cuh"

namespace dct::cuda::r2r {

using i64 = std::int64_t;

// The computed (unnormalized) kind of a line step; the values of core::R2rKind.
enum LineKind : int { kDct1 = 1, kDct2, kDct3, kDct4, kDst1, kDst2, kDst3, kDst4 };

template <class T>
using cx = typename dct4::RowsTypes<T>::cx;  // float2 / double2

template <class C>
__host__ __device__ __forceinline__ C cmul(C a, C b) {
  return C{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
template <class C>
__host__ __device__ __forceinline__ C cconj(C a) {
  return C{a.x, -a.y};
}

// Per-axis tables of one line step (device pointers; n entries each unless said):
//   w[k]    exp(-i pi k / 2n)
//   ta[k]   dct4/dst4: exp(-i pi (4k+1) / 4n) (even n, k < n/2) or exp(-i pi (2k+1) / 4n) (odd n)
//   tb[j]   dct4/dst4 even n: exp(-i pi j / n), j < n/2
//   pre, post  the norm's factors by input / output index
template <class T>
struct LineTables {
  const cx<T>* w;
  const cx<T>* ta;
  const cx<T>* tb;
  const T* pre;
  const T* post;
};

// The FFT a line step runs: real-to-complex, complex-to-real or complex forward, of `fft_n` points per line.
enum class LineFft { kR2C, kC2R, kC2C };

struct LineGeom {
  int kind;      // LineKind
  i64 n;         // points per line
  i64 inner;     // distance between consecutive points (the extents after the axis)
  i64 outer;     // lines = outer * inner
  i64 load_len;  // elements per line in the FFT's input (real or complex)
  i64 fft_len;   // elements per line in the FFT's output (real or complex)
  LineFft fft;
  i64 fft_n;
  // The FFT's buffers in the array's own order, [outer][element][inner], instead of one line after another: the
  // gather and the scatter of strided lines then read and write consecutive inner indices on both sides (the other
  // order writes, or reads, one element per line: a transpose), and cuFFT takes the lines with stride `inner`, one
  // execution per outer block. Where inner >= kInterleaveMinInner, outer <= kInterleaveMaxOuter and the FFT has at
  // most kInterleaveMaxFft points.
  bool interleaved;
};

// Measured on an H200 (1 GiB f32 arrays, docs/decisions.md §12): along axis 0 of (n, 2^28 / n) arrays the interleaved
// buffers take 2.9 / 3.4 / 6.3 ms for dct2 at n = 64 / 256 / 1024 against 23.6 / 24.6 / 10.2 transposing, but 11.2
// against 8.2 at n = 2048 and beyond (cuFFT's strided plans of more than 1024 points take more passes); down the middle
// axis of (64, n, ...) arrays they win up to 1024 points too. Below 16 inner lines the rows are too short to gain, and
// each outer block is one cuFFT execution.
constexpr i64 kInterleaveMinInner = 16;
constexpr i64 kInterleaveMaxOuter = 64;
constexpr i64 kInterleaveMaxFft = 1024;

inline LineGeom line_geom(int kind, i64 outer, i64 n, i64 inner) {
  LineGeom g{kind, n, inner, outer, n, n / 2 + 1, LineFft::kR2C, n, false};  // DCT-II, DST-II
  switch (kind) {
    case kDct1:
      g.fft_n = g.load_len = 2 * (n - 1), g.fft_len = n;
      break;
    case kDst1:
      g.fft_n = g.load_len = 2 * (n + 1), g.fft_len = n + 2;
      break;
    case kDct3:
    case kDst3:
      g.fft = LineFft::kC2R, g.load_len = n / 2 + 1, g.fft_len = n;
      break;
    case kDct4:
    case kDst4:
      g.fft = LineFft::kC2C, g.fft_n = g.load_len = g.fft_len = n % 2 == 0 ? n / 2 : 2 * n;
      break;
    default:
      break;
  }
  g.interleaved = inner >= kInterleaveMinInner && outer <= kInterleaveMaxOuter && g.fft_n <= kInterleaveMaxFft;
  return g;
}

// The twiddle tables of LineTables (and w of NdArgs) for a line of n points of a computed kind, from long double.
template <class T>
struct LineTwiddles {
  std::vector<cx<T>> w, ta, tb;
};
template <class T>
LineTwiddles<T> line_twiddles(int kind, i64 n) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const auto e = [&](long double num, long double den) {  // exp(-i pi num / den)
    const long double th = -pi * num / den;
    return cx<T>{static_cast<T>(std::cos(th)), static_cast<T>(std::sin(th))};
  };
  LineTwiddles<T> t;
  for (i64 k = 0; k < n; ++k) t.w.push_back(e(k, 2.0L * n));
  if (kind == kDct4 || kind == kDst4) {
    for (i64 k = 0; k < n; ++k) t.ta.push_back(n % 2 == 0 ? e(4.0L * k + 1, 4.0L * n) : e(2.0L * k + 1, 4.0L * n));
    for (i64 j = 0; j < n / 2; ++j) t.tb.push_back(e(j, n));
  }
  return t;
}

__host__ __device__ __forceinline__ i64 reorder_src(i64 p, i64 n) {  // position p of the reordered line holds x_m
  const i64 h = (n + 1) / 2;
  return p < h ? 2 * p : 2 * (n - 1 - p) + 1;
}
__host__ __device__ __forceinline__ i64 reorder_dst(i64 m, i64 n) {  // x_m goes to position p
  return (m & 1) == 0 ? m / 2 : n - (m + 1) / 2;
}
template <class T>
__host__ __device__ __forceinline__ T alt(i64 m) {
  return (m & 1) ? T(-1) : T(1);
}

// Loops of the line kernels without divisions: contiguous lines (inner = 1): x over the line's elements, y over
// the lines; strided lines: x over the inner index (coalesced), y over the element, z over the outer blocks. Every
// dimension grid-strided. f(o, e, i) does one element.
template <bool kContig, class F>
__device__ __forceinline__ void line_loop(i64 outer, i64 len, i64 inner, F&& f) {
  if (kContig) {
    for (i64 o = blockIdx.y; o < outer; o += gridDim.y)
      for (i64 e = blockIdx.x * i64(blockDim.x) + threadIdx.x; e < len; e += i64(gridDim.x) * blockDim.x) f(o, e, 0);
  } else {
    for (i64 o = blockIdx.z; o < outer; o += gridDim.z)
      for (i64 e = blockIdx.y; e < len; e += gridDim.y)
        for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < inner; i += i64(gridDim.x) * blockDim.x)
          f(o, e, i);
  }
}

// Whether a kind's FFT input is complex (else real).
__host__ __device__ __forceinline__ bool complex_load(int kind) {
  return kind == kDct3 || kind == kDst3 || kind == kDct4 || kind == kDst4;
}

// Element e of one line's FFT input (real kinds in .x): x points at the line's first value, its values `inner` apart.
template <class T>
__device__ __forceinline__ cx<T> load_value(const T* x, i64 e, const LineTables<T>& t, const LineGeom& g) {
  const i64 n = g.n;
  auto X = [&](i64 m) { return t.pre[m] * x[m * g.inner]; };
  switch (g.kind) {
    case kDct2:
    case kDst2: {
      const i64 m = reorder_src(e, n);
      T v = X(m);
      if (g.kind == kDst2) v *= alt<T>(m);
      return {v, T(0)};
    }
    case kDct1:
      return {X(e < n ? e : 2 * (n - 1) - e), T(0)};
    case kDst1: {
      T v = T(0);
      if (e >= 1 && e <= n) v = X(e - 1);
      if (e >= n + 2) v = -X(2 * (n + 1) - e - 1);
      return {v, T(0)};
    }
    case kDct3:
    case kDst3: {  // e = 0 .. n/2: V_e = (y_e - i y_{n-e}) conj(w_e)
      const bool s = g.kind == kDst3;
      const T a = X(s ? n - 1 - e : e);
      const T b = e == 0 ? T(0) : X(s ? e - 1 : n - e);
      return cmul(cx<T>{a, -b}, cconj(t.w[e]));
    }
    case kDct4:
    case kDst4: {
      const bool s = g.kind == kDst4;
      auto Xr = [&](i64 m) { return X(s ? n - 1 - m : m); };
      if ((n & 1) == 0) return cmul(cx<T>{Xr(2 * e), Xr(n - 1 - 2 * e)}, t.ta[e]);
      return e < n ? cx<T>{Xr(e) * t.w[e].x, Xr(e) * t.w[e].y} : cx<T>{T(0), T(0)};
    }
    default:
      return {T(0), T(0)};
  }
}

// Writes element `at` of a gather's buffer: complex kinds the value, real kinds its real part.
template <class T>
__device__ __forceinline__ void put_value(void* buf, i64 at, cx<T> v, bool cplx) {
  if (cplx)
    static_cast<cx<T>*>(buf)[at] = v;
  else
    static_cast<T*>(buf)[at] = v.x;
}

// The FFT's input of every line: element e of line (o, i).
template <class T, bool kContig>
__global__ void line_load(const T* __restrict__ src, void* __restrict__ buf, LineTables<T> t, LineGeom g) {
  const bool cplx = complex_load(g.kind);
  line_loop<kContig>(g.outer, g.load_len, g.inner, [&](i64 o, i64 e, i64 i) {
    const i64 at = g.interleaved ? (o * g.load_len + e) * g.inner + i : (o * g.inner + i) * g.load_len + e;
    put_value<T>(buf, at, load_value(src + o * g.n * g.inner + i, e, t, g), cplx);
  });
}

// The same for strided lines into buffers of one line after another (not interleaved): a CTA takes tiles of 32 inner
// indices × 32 elements through shared memory, reading 32 consecutive inner indices of one array row and writing 32
// consecutive elements of one line (line_load's loop writes one element per line: a transpose; docs/decisions.md §12).
// Grid: x over tiles of inner, y over tiles of elements, z over outer, each grid-strided; any block size
// (kGatherThreads on the device).
constexpr int kGatherTile = 32, kGatherThreads = 256;
template <class T>
__global__ void __launch_bounds__(kGatherThreads)
    line_load_tiled(const T* __restrict__ src, void* __restrict__ buf, LineTables<T> t, LineGeom g) {
  constexpr int kT = kGatherTile;
  __shared__ cx<T> tile[kT][kT + 1];  // [element][inner]
  const bool cplx = complex_load(g.kind);
  const int tid = static_cast<int>(threadIdx.x), nth = static_cast<int>(blockDim.x);
  for (i64 o = blockIdx.z; o < g.outer; o += gridDim.z)
    for (i64 e0 = blockIdx.y * i64(kT); e0 < g.load_len; e0 += i64(gridDim.y) * kT)
      for (i64 i0 = blockIdx.x * i64(kT); i0 < g.inner; i0 += i64(gridDim.x) * kT) {
        for (int q = tid; q < kT * kT; q += nth) {
          const int r = q / kT, c = q % kT;  // element e0 + r, inner index i0 + c
          if (e0 + r < g.load_len && i0 + c < g.inner)
            tile[r][c] = load_value(src + o * g.n * g.inner + i0 + c, e0 + r, t, g);
        }
        __syncthreads();
        for (int q = tid; q < kT * kT; q += nth) {
          const int r = q / kT, c = q % kT;  // line i0 + r, element e0 + c
          if (i0 + r >= g.inner || e0 + c >= g.load_len) continue;
          put_value<T>(buf, (o * g.inner + i0 + r) * g.load_len + e0 + c, tile[c][r], cplx);
        }
        __syncthreads();
      }
}

// Every output y_k of line (o, i) from the FFT's output.
template <class T, bool kContig>
__global__ void line_store(const void* __restrict__ buf, T* __restrict__ dst, LineTables<T> t, LineGeom g) {
  line_loop<kContig>(g.outer, g.n, g.inner, [&](i64 o, i64 k, i64 i) {
    const i64 n = g.n;
    // Element m of the line's FFT output: at base + m * step.
    const i64 step = g.interleaved ? g.inner : 1;
    const i64 base = g.interleaved ? o * g.fft_len * g.inner + i : (o * g.inner + i) * g.fft_len;
    auto V = [&](i64 m) { return static_cast<const cx<T>*>(buf)[base + m * step]; };
    T y = T(0);
    switch (g.kind) {
      case kDct2:
      case kDst2: {  // output k of the dct2 of the (signed) line; dst2 writes it reversed
        const i64 kk = g.kind == kDst2 ? n - 1 - k : k;
        const cx<T> v = kk <= n / 2 ? V(kk) : cconj(V(n - kk));
        y = T(2) * cmul(t.w[kk], v).x;
        break;
      }
      case kDct1:
        y = V(k).x;
        break;
      case kDst1:
        y = -V(k + 1).y;
        break;
      case kDct3:
      case kDst3: {
        y = static_cast<const T*>(buf)[base + reorder_dst(k, n) * step];
        if (g.kind == kDst3) y *= alt<T>(k);
        break;
      }
      case kDct4:
      case kDst4: {
        if ((n & 1) == 0) {
          const bool even = (k & 1) == 0;
          const i64 j = even ? k / 2 : (n - 1 - k) / 2;
          const cx<T> w = cmul(V(j), t.tb[j]);
          y = even ? T(2) * w.x : T(-2) * w.y;
        } else {
          y = T(2) * cmul(t.ta[k], V(k)).x;
        }
        if (g.kind == kDst4) y *= alt<T>(k);
        break;
      }
      default:
        break;
    }
    dst[o * n * g.inner + k * g.inner + i] = t.post[k] * y;
  });
}

// ---- N-D three-stage ----------------------------------------------------------------------------

template <class T, int D>
struct NdArgs {
  i64 batch;  // independent arrays
  i64 n[D];   // extents of the transformed trailing axes (each >= 2)
  bool dst[D];
  const cx<T>* w[D];  // exp(-i pi k / 2n_j)
  const T* pre[D];    // by input index
  const T* post[D];   // by output index
  // The reorder's rows (all axes but the last; rows = n_0 .. n_{D-2} of one array): the row each reads (forward:
  // the natural row m(p) of reordered row p; inverse: the reordered row p(m) of natural row m) and its factor
  // (the leading axes' pre (forward) or post (inverse) factors and dst signs, by natural index).
  const i64* row_src;
  const T* row_scale;
};

// The host side of NdArgs::row_src / row_scale for the D-1 leading axes (n, dst: theirs; factor[j]: axis j's pre
// factors (forward) or post factors (inverse), host memory).
template <class T>
void nd_rows(int D, const i64* n, const bool* dst, const T* const* factor, bool forward, std::vector<i64>& src,
             std::vector<T>& scale) {
  i64 rows = 1;
  for (int j = 0; j < D - 1; ++j) rows *= n[j];
  src.assign(rows, 0);
  scale.assign(rows, T(1));
  for (i64 r = 0; r < rows; ++r) {
    i64 rem = r, stride = 1;
    for (int j = D - 2; j >= 0; --j) {
      const i64 at = rem % n[j];  // reordered position (forward) or natural index (inverse) along axis j
      rem /= n[j];
      const i64 m = forward ? reorder_src(at, n[j]) : at;
      src[r] += (forward ? m : reorder_dst(at, n[j])) * stride;
      stride *= n[j];
      scale[r] *= factor[j][m];
      if (dst[j]) scale[r] *= alt<T>(m);
    }
  }
}

// The reorder of every axis (dst signs and the pre factors by input index folded in) - kInverse = false: v[p] from
// x[m(p)]; true: x[m] = post(m) sign(m) v[p(m)]. Along the last axis a thread takes the pair x[2j], x[2j+1] <->
// v[j], v[n-1-j] (and x[n-1] alone for odd n), so that both sides are read and written in order. Grid: x along the
// pairs of the last axis, y over the rows of one array, z over the arrays.
template <class T, int D, bool kInverse>
__global__ void nd_reorder(const T* __restrict__ in, T* __restrict__ out, NdArgs<T, D> a) {
  const i64 last = a.n[D - 1], pairs = (last + 1) / 2;
  i64 rows = 1;
#pragma unroll
  for (int j = 0; j < D - 1; ++j) rows *= a.n[j];
  const T* sc = kInverse ? a.post[D - 1] : a.pre[D - 1];
  const bool dst = a.dst[D - 1];
  for (i64 b = blockIdx.z; b < a.batch; b += gridDim.z)
    for (i64 r = blockIdx.y; r < rows; r += gridDim.y) {
      const T* src = in + (b * rows + a.row_src[r]) * last;
      T* dst_row = out + (b * rows + r) * last;
      const T scale = a.row_scale[r];
      for (i64 j = blockIdx.x * i64(blockDim.x) + threadIdx.x; j < pairs; j += i64(gridDim.x) * blockDim.x) {
        const i64 m0 = 2 * j, m1 = 2 * j + 1, p1 = last - 1 - j;  // natural indices and the odd one's position
        const bool has1 = m1 < last;
        if (!kInverse) {
          dst_row[j] = scale * sc[m0] * src[m0];  // even samples: positive sign
          if (has1) dst_row[p1] = (dst ? -scale : scale) * sc[m1] * src[m1];
        } else {
          dst_row[m0] = scale * sc[m0] * src[j];
          if (has1) dst_row[m1] = (dst ? -scale : scale) * sc[m1] * src[p1];
        }
      }
    }
}

// The indices k_0 .. k_{D-1} of one group, passed by value (an array behind a pointer would live in local memory).
template <int D>
struct NdIndex {
  i64 k[D];
};

// The leading axes' indices k_0 .. k_{D-2} of group row r (one 32-bit division for D = 3).
template <int D>
__device__ __forceinline__ NdIndex<D> nd_row(const i64* n, i64 r) {
  NdIndex<D> k;
  if constexpr (D == 2) {
    k.k[0] = r;
  } else {
    const unsigned h1 = static_cast<unsigned>(n[1] / 2 + 1), q = static_cast<unsigned>(r) / h1;
    k.k[0] = q;
    k.k[1] = static_cast<unsigned>(r) - q * h1;
  }
  return k;
}

// The groups of 2^D points {k_j, n_j - k_j}, k_j = 0 .. n_j/2. kMid = false: k_last < (n+1)/2, x along the last axis,
// y over the group rows of one array (the leading axes' k), z over the arrays. kMid = true: k_last = n/2 of an even
// n, x over the group rows, z over the arrays (a launch of its own: as an extra group of the k_last = 0 thread it
// held every block's first warp twice as long as the others, docs/decisions.md §4). f(b, k) does one group.
template <int D, bool kMid, class F>
__device__ __forceinline__ void nd_groups(const i64* n, i64 batch, F&& f) {
  const i64 nl = n[D - 1], xs = (nl + 1) / 2;
  i64 rows = 1;
#pragma unroll
  for (int j = 0; j < D - 1; ++j) rows *= n[j] / 2 + 1;
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z) {
    if constexpr (kMid) {
      for (i64 r = blockIdx.x * i64(blockDim.x) + threadIdx.x; r < rows; r += i64(gridDim.x) * blockDim.x) {
        NdIndex<D> k = nd_row<D>(n, r);
        k.k[D - 1] = nl / 2;
        f(b, k);
      }
    } else {
      for (i64 r = blockIdx.y; r < rows; r += gridDim.y) {
        NdIndex<D> k = nd_row<D>(n, r);
        for (i64 kl = blockIdx.x * i64(blockDim.x) + threadIdx.x; kl < xs; kl += i64(gridDim.x) * blockDim.x) {
          k.k[D - 1] = kl;
          f(b, k);
        }
      }
    }
  }
}

// Forward postprocess: half spectrum V (batch x n_0 x .. x (n_{D-1}/2+1)) -> the D-dimensional DCT-II/DST-II.
// I: the type of the offsets within one array (int where the array and its half spectrum have fewer than 2^31
// elements: fewer registers, docs/decisions.md §4). kMid: the groups of k_last = n/2 (nd_groups).
template <class T, int D, class I = i64, bool kMid = false>
__global__ void nd_post(const cx<T>* __restrict__ V, T* __restrict__ y, NdArgs<T, D> a) {
  constexpr int P = 1 << D;
  const i64 hl = a.n[D - 1] / 2 + 1;
  i64 vol = 1, half = hl;
#pragma unroll
  for (int j = 0; j < D; ++j) vol *= a.n[j];
#pragma unroll
  for (int j = 0; j < D - 1; ++j) half *= a.n[j];
  nd_groups<D, kMid>(a.n, a.batch, [&](i64 b, const NdIndex<D> k) {
    // per axis and bit: the index (k or n - k, 0 for k = 0), its spectrum and output offsets, post factor; the
    // twiddle w(k) (w(n - k) = -i conj w(k))
    I soff[D][2], yoff[D][2];
    cx<T> w[D];
    T ps[D][2];
    bool distinct[D];
    I sstride = 1, ystride = 1;
#pragma unroll
    for (int j = D - 1; j >= 0; --j) {
      const I n = static_cast<I>(a.n[j]), kj = static_cast<I>(k.k[j]);
      const I id[2] = {kj, kj == 0 ? I(0) : n - kj};
      distinct[j] = kj != 0 && 2 * kj != n;
      w[j] = a.w[j][kj];
#pragma unroll
      for (int bit = 0; bit < 2; ++bit) {
        const I o = a.dst[j] ? n - 1 - id[bit] : id[bit];
        soff[j][bit] = id[bit] * sstride;
        yoff[j][bit] = o * ystride;
        ps[j][bit] = a.post[j][o];
      }
      sstride *= j == D - 1 ? static_cast<I>(hl) : n;
      ystride *= n;
    }
    const cx<T>* Vb = V + b * half;
    cx<T> v[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      // last-axis bit set with n - k > n/2: the conjugate of the point with every index reflected (bit clear)
      const bool conj = ((p >> (D - 1)) & 1) && distinct[D - 1];
      const int q = conj ? p ^ (P - 1) : p;
      I off = 0;
#pragma unroll
      for (int j = 0; j < D; ++j) off += soff[j][(q >> j) & 1];
      v[p] = conj ? cconj(Vb[off]) : Vb[off];
    }
#pragma unroll
    for (int j = 0; j < D; ++j) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        if ((p >> j) & 1) continue;
        const int q = p | (1 << j);
        // C(k) = w v0 + conj(w) v1; C(n - k) = w(n-k) v1 + conj(w(n-k)) v0 = i (w v0 - conj(w) v1)
        const cx<T> t0 = cmul(w[j], v[p]), t1 = cmul(cconj(w[j]), v[q]);
        v[p] = cx<T>{t0.x + t1.x, t0.y + t1.y};
        v[q] = cx<T>{t1.y - t0.y, t0.x - t1.x};
      }
    }
    T* yb = y + b * vol;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      bool write = true;
      I off = 0;
      T scale = T(1);
#pragma unroll
      for (int j = 0; j < D; ++j) {
        const int bit = (p >> j) & 1;
        if (bit && !distinct[j]) write = false;
        off += yoff[j][bit];
        scale *= ps[j][bit];
      }
      if (write) yb[off] = scale * v[p].x;
    }
  });
}

// Inverse preprocess: the D-dimensional DCT-III/DST-III input -> the half spectrum of its reordered output.
template <class T, int D, class I = i64, bool kMid = false>
__global__ void nd_pre(const T* __restrict__ x, cx<T>* __restrict__ V, NdArgs<T, D> a) {
  constexpr int P = 1 << D;
  const i64 hl = a.n[D - 1] / 2 + 1;
  i64 vol = 1, half = hl;
#pragma unroll
  for (int j = 0; j < D; ++j) vol *= a.n[j];
#pragma unroll
  for (int j = 0; j < D - 1; ++j) half *= a.n[j];
  nd_groups<D, kMid>(a.n, a.batch, [&](i64 b, const NdIndex<D> k) {
    // per axis and bit: the input index k or n - k ("n" for k = 0: C = 0), its offset and pre factor; the twiddle
    // conj w(k) (conj w(n - k) = i w(k))
    I xoff[D][2], soff[D][2];
    cx<T> w[D];
    T ps[D][2];
    bool distinct[D];
    I xstride = 1, sstride = 1;
#pragma unroll
    for (int j = D - 1; j >= 0; --j) {
      const I n = static_cast<I>(a.n[j]), kj = static_cast<I>(k.k[j]);
      const I id[2] = {kj, n - kj};
      distinct[j] = kj != 0 && 2 * kj != n;
      w[j] = a.w[j][kj];
#pragma unroll
      for (int bit = 0; bit < 2; ++bit) {
        const I c = id[bit] == n ? I(0) : id[bit];  // clamped (the value is zero)
        const I m = a.dst[j] ? n - 1 - c : c;
        xoff[j][bit] = m * xstride;
        soff[j][bit] = c * sstride;
        ps[j][bit] = id[bit] == n ? T(0) : a.pre[j][m];
      }
      xstride *= n;
      sstride *= j == D - 1 ? static_cast<I>(hl) : n;
    }
    const T* xb = x + b * vol;
    cx<T> v[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      I off = 0;
      T scale = T(1);
#pragma unroll
      for (int j = 0; j < D; ++j) {
        off += xoff[j][(p >> j) & 1];
        scale *= ps[j][(p >> j) & 1];
      }
      v[p] = cx<T>{scale * xb[off], T(0)};
    }
#pragma unroll
    for (int j = 0; j < D; ++j) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        if ((p >> j) & 1) continue;
        const int q = p | (1 << j);
        // V(k) = conj(w) (v0 - i v1); V(n - k) = conj(w(n-k)) (v1 - i v0) = w (v0 + i v1)
        const cx<T> v0 = v[p], v1 = v[q];
        v[p] = cmul(cconj(w[j]), cx<T>{v0.x + v1.y, v0.y - v1.x});
        v[q] = cmul(w[j], cx<T>{v0.x - v1.y, v0.y + v1.x});
      }
    }
    cx<T>* Vb = V + b * half;
#pragma unroll
    for (int p = 0; p < P / 2; ++p) {  // the last axis' bit clear: k_last <= n/2 is stored
      bool write = true;
      I off = soff[D - 1][0];
#pragma unroll
      for (int j = 0; j < D - 1; ++j) {
        const int bit = (p >> j) & 1;
        if (bit && !distinct[j]) write = false;
        off += soff[j][bit];
      }
      if (write) Vb[off] = v[p];
    }
  });
}

}  // namespace dct::cuda::r2r
