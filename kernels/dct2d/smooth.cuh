#pragma once
/* N-point DCT-II / DCT-III of lines of any smooth length N (N = 2^a 3^b 5^c 7^d 11^e 13^f), along rows or down
   columns, one kernel per axis with the reorder and the pre/postprocess ([1] eqs. 9-11) folded into its global
   loads and stores: the backend cuda-fft2d-smooth, which cuda-fft2d takes off powers of two where it times faster
   (a 2-D transform is the rows pass then the columns pass, in place; kernels/dct2d/pipelines.cu).

   Two real lines a, b per complex FFT of length N (the classic "two real FFTs for one complex one"; any N, odd too):
     z(m) = x_a(nat(m)) + i x_b(nat(m)),  nat(m) = 2m (m < (N+1)/2), 2(N−m)−1 otherwise (eq. 9),
     Z = FFT_N(z),  V_a(k) = [Z(k) + conj Z(N−k)] / 2,  V_b(k) = [Z(k) − conj Z(N−k)] / (2i)   (Z(N) ≡ Z(0)),
     Y(k) = fs[k] · Re(tw[k] · V(k))   (tw[k] = e^{−iπk/2N}; fs carries the 2 of eq. 10 and the norm).
   Inverse (DCT-III, the inverse of the above for each line; kernels/dct2d/prepost.cu's pre_lines for all k):
     V(k) = conj(tw[k]) · (ia[k] Y(k) − i ia[N−k] Y(N−k))   (Y(N) = 0; V is Hermitian, so its IFFT is real),
     Z(k) = V_a(k) + i V_b(k),  z = IFFT_N(Z) (unnormalized: ia carries 1/(2N)),  x_a(nat(m)) = Re z(m),
     x_b(nat(m)) = Im z(m);  IFFT(Z) = conj FFT(conj Z): the kernel stores conj Z and conjugates on the way out.
   The input position c of the natural line is reordered position inv_nat(c) = c/2 (c even), N − (c+1)/2 (c odd).
   DST-II lines (args.dst): DST-II(x)_k = DCT-II((−1)^n x_n)_{N−1−k}, so the loads negate the odd positions and the
   stores read output N−1−k; DST-III (its inverse) reads input N−1−k and negates the odd outputs.

   FFT_N: Stockham autosort passes of radix R ∈ {8, 4, 2, 3, 5, 7, 11, 13} between two shared-memory buffers (natural
   order in, natural order out, one barrier per pass). Pass with Ns = product of the radices before it:
     butterfly j < N/R, k = j mod Ns:  a_r = src[j + r·N/R] · W_N^{k·r·N/(Ns·R)},  a = DFT_R(a),
     dst[(j − k)·R + k + r·Ns] = a_r.
   The twiddles from one table of N entries, pass by pass (fft_twiddles: W_{Ns·R}^{k·r} at Ns − 1 + (r − 1)·Ns + k, so
   a warp's loads are consecutive; built in long double on the host). DFT_R: 2, 4, 8 by
   their butterflies, odd R by the symmetric pairs t_r = a_r + a_{R−r}, d_r = a_r − a_{R−r}:
     y_q = a_0 + Σ_r cos(2πrq/R) t_r − i Σ_r sin(2πrq/R) d_r,   y_{R−q}: the same with + i.

   A CTA holds P complex lines (2P real lines): rows layout, 2P consecutive rows; columns layout, a tile of kC
   adjacent columns of one matrix (kC·sizeof(T) contiguous bytes per row). Shared memory: 2·P·N complex, padded by one
   element per 128 bytes (bank conflicts of the strided passes). Index arithmetic: 32-bit, divisions by a multiply-high.
   Global loads and stores are 16 bytes wide (detail::VecLines: both lines of a pair at once along rows, V adjacent
   columns down columns) where the pointers are 16-byte aligned and N (rows) or the width and the tile (columns) are
   multiples of 16 bytes; otherwise one value per thread (LineTile).

   Three kernels share the body: smooth_lines takes N and its passes at run time (a pass table in device memory,
   divisions by a multiply-high); smooth_lines_ct is compiled for one N (every index a constant, every loop of fixed
   count), for the lengths of CompiledLengths — common photograph and frame sides, 10–20% faster (docs/decisions.md
   §10); smooth_lines_bluestein takes N with a prime factor above 13, FFT_N by Bluestein's through two FFTs of a smooth
   L >= 2N − 1 (detail::bluestein below; the lines at stride L in the buffers, one value per thread in the loads and
   stores).

   Plain CUDA C++ with no host-runtime dependencies: tests/emulate/emulate_smooth.cpp compiles it on the host. */

#include <cmath>
#include <complex>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/common/pdl.cuh"
#include "kernels/dct4/rows.cuh"  // RowsTypes, rows_detail::add / sub
#include "math/dct2d.hpp"

namespace dct::cuda::smooth {

extern __shared__ __align__(16) unsigned char smooth_smem[];

template <class T>
struct Cx {
  using type = typename dct4::RowsTypes<T>::cx;  // float2, double2
};

constexpr int kMaxPasses = 24;

// q / d for q < 2^31 by a multiply-high and shifts (Granlund–Montgomery, "round-up" variant), d >= 1.
struct FastDiv {
  unsigned d = 1, m = 0;
  int s = 0;
  FastDiv() = default;
  explicit FastDiv(unsigned dv) : d(dv) {
    if (dv <= 1) return;
    int l = 0;
    while ((1ull << l) < dv) ++l;
    m = static_cast<unsigned>(((1ull << 32) * ((1ull << l) - dv)) / dv + 1);
    s = l - 1;
  }
  __device__ __forceinline__ unsigned div(unsigned q) const {
    if (d == 1) return q;
    const unsigned t = __umulhi(m, q);
    return (t + ((q - t) >> 1)) >> s;
  }
};

// One FFT pass: its radix, N / R and the product of the radices before it.
struct Pass {
  FastDiv nr, ns;
  int radix = 2;
};

// One launch (scalars and device pointers only: the kernel copies them to registers and never takes the address of
// its parameter, which would place the whole struct in local memory). n = N; passes[0..npass) (device memory); lines:
// real lines in the rows layout; width, n_tiles: the columns layout's matrix width and tiles per matrix (ceil(width /
// kC)); pairs: P, complex lines per CTA.
template <class T>
struct Args {
  using C = typename Cx<T>::type;
  const T* in = nullptr;
  T* out = nullptr;
  const C* fft_tw = nullptr;  // the passes' twiddles (fft_twiddles)
  const C* tw = nullptr;      // the axis tables (kernels/dct2d/prepost.cuh AxisTables, gain 2)
  const T* fs = nullptr;
  const T* ia = nullptr;
  int n = 1, npass = 0, pairs = 1;
  int width = 1, n_tiles = 1;
  long long lines = 0;
  const Pass* passes = nullptr;
  FastDiv dn;               // N
  const C* post = nullptr;  // smooth_dct4_rows: the post-twiddle (tw is its pre-twiddle)
  FastDiv dn2;              // smooth_dct4_rows: 2N, the real line's length
  const int* perm = nullptr;  // smooth_dct4_odd_rows: Dct4OddTables::dst (fs, ia: its cr, ci)
  const int* fidx = nullptr;  // smooth_dct4_odd_rows: Dct4OddTables::f
  int dst = 0;              // 1: the lines' DST-II (DST-III inverse): input signs alternated, outputs reversed
  // Bluestein's DFT of N points (smooth_dct4_odd_rows_bluestein): passes, npass and fft_tw are those of FFT_bl,
  // bl >= 2N − 1 smooth; chirp[j] = w_j = e^{−iπj²/N} (j < N), bfft = FFT_bl(b) / bl with b_j = conj w_|j| (|j| < N,
  // cyclic), zeros elsewhere (bluestein_tables).
  int bl = 0;
  const C* chirp = nullptr;
  const C* bfft = nullptr;
};

namespace detail {

using dct2d::cmul;
using dct2d::cmulc;
using dct4::rows_detail::add;
using dct4::rows_detail::sub;
using dct4::rows_detail::Vec16;

__device__ __forceinline__ int inv_nat(int c, int n) { return (c & 1) ? n - ((c + 1) >> 1) : c >> 1; }

template <class C>
__device__ __forceinline__ C mul_mi(C a) {  // −i·a
  return C{a.y, -a.x};
}

// cos(2πm/R) (kSin = false) or sin(2πm/R), m = 1 .. (R−1)/2; constant-folded where the loops are unrolled.
template <int R, bool kSin>
__device__ __forceinline__ constexpr double odd_const(int m) {
  if constexpr (R == 3) {
    constexpr double c[] = {-0.5}, s[] = {0.866025403784438646764};
    return kSin ? s[m - 1] : c[m - 1];
  } else if constexpr (R == 5) {
    constexpr double c[] = {0.309016994374947424102, -0.809016994374947424102};
    constexpr double s[] = {0.951056516295153572116, 0.587785252292473129169};
    return kSin ? s[m - 1] : c[m - 1];
  } else if constexpr (R == 7) {
    constexpr double c[] = {0.623489801858733530525, -0.222520933956314404289, -0.900968867902419126236};
    constexpr double s[] = {0.781831482468029808708, 0.974927912181823607018, 0.433883739117558120476};
    return kSin ? s[m - 1] : c[m - 1];
  } else if constexpr (R == 11) {
    constexpr double c[] = {0.841253532831181168862, 0.415415013001886425529, -0.142314838273285140444,
                            -0.654860733945285064057, -0.95949297361449738989};
    constexpr double s[] = {0.540640817455597582108, 0.909631995354518371412, 0.989821441880932732376,
                            0.755749574354258283774, 0.281732556841429697711};
    return kSin ? s[m - 1] : c[m - 1];
  } else {
    static_assert(R == 13);
    constexpr double c[] = {0.8854560256532098959,   0.568064746731155802512,  0.120536680255323053349,
                            -0.35460488704253562597, -0.748510748171101098635, -0.970941817426052027157};
    constexpr double s[] = {0.464723172043768545656, 0.82298386589365639458,  0.992708874098053992801,
                            0.93501624268541482344,  0.663122658240795202377, 0.239315664287557767149};
    return kSin ? s[m - 1] : c[m - 1];
  }
}

// Forward DFT of R points in place (W_R = e^{−2πi/R}).
template <int R, class C>
__device__ __forceinline__ void dft(C (&a)[R]) {
  using S = decltype(a[0].x);
  if constexpr (R == 2) {
    const C t = a[0];
    a[0] = add(t, a[1]);
    a[1] = sub(t, a[1]);
  } else if constexpr (R == 4) {
    const C s0 = add(a[0], a[2]), d0 = sub(a[0], a[2]);
    const C s1 = add(a[1], a[3]), d1 = mul_mi(sub(a[1], a[3]));
    a[0] = add(s0, s1);
    a[2] = sub(s0, s1);
    a[1] = add(d0, d1);
    a[3] = sub(d0, d1);
  } else if constexpr (R == 8) {
    const S h = S(0.707106781186547524401);
    C e[4], o[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      e[r] = add(a[r], a[r + 4]);
      o[r] = sub(a[r], a[r + 4]);
    }
    o[1] = C{h * (o[1].x + o[1].y), h * (o[1].y - o[1].x)};   // · e^{−iπ/4}
    o[2] = mul_mi(o[2]);                                      // · −i
    o[3] = C{h * (o[3].y - o[3].x), -h * (o[3].x + o[3].y)};  // · e^{−3iπ/4}
    dft<4>(e);
    dft<4>(o);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      a[2 * q] = e[q];
      a[2 * q + 1] = o[q];
    }
  } else {
    constexpr int H = (R - 1) / 2;
    C t[H], d[H];
#pragma unroll
    for (int r = 1; r <= H; ++r) {
      t[r - 1] = add(a[r], a[R - r]);
      d[r - 1] = sub(a[r], a[R - r]);
    }
    C y[R];
    y[0] = a[0];
#pragma unroll
    for (int r = 0; r < H; ++r) y[0] = add(y[0], t[r]);
#pragma unroll
    for (int q = 1; q <= H; ++q) {
      C A = a[0], B{S(0), S(0)};
#pragma unroll
      for (int r = 1; r <= H; ++r) {
        int m = (r * q) % R;  // cos(2πm/R) = cos(2π(R−m)/R), sin flips sign
        const bool neg = m > H;
        if (neg) m = R - m;
        const S c = S(odd_const<R, false>(m)), s = neg ? -S(odd_const<R, true>(m)) : S(odd_const<R, true>(m));
        A = C{A.x + c * t[r - 1].x, A.y + c * t[r - 1].y};
        B = C{B.x + s * d[r - 1].x, B.y + s * d[r - 1].y};
      }
      y[q] = C{A.x + B.y, A.y - B.x};      // A − iB
      y[R - q] = C{A.x - B.y, A.y + B.x};  // A + iB
    }
#pragma unroll
    for (int q = 0; q < R; ++q) a[q] = y[q];
  }
}

// Shared-memory index of complex element i of the CTA's lines: one element of padding after every 128 bytes, so that
// the strided stores of the first passes (stride R, or R·Ns with small Ns) spread over the banks.
template <class C>
__device__ __forceinline__ int pad(int i) {
  return i + (i >> (sizeof(C) == 8 ? 4 : 3));
}

// What a pass reads: src(line, base, i), unpadded point i of the CTA's lines, which is point i − base of line `line`
// (base = line·N). The passes read a padded buffer (BufSrc); the inverse's first pass reads its inputs through a
// functor instead (smooth_body).
template <class C>
struct BufSrc {
  const C* p;
  __device__ __forceinline__ C operator()(int, int, int i) const { return p[pad<C>(i)]; }
};

// One butterfly of a Stockham pass: the R points s0 + r·nr of `line` (s0 = base + j), twiddled by W_{Ns·R}^{k·r}, which
// is fft_tw[Ns − 1 + (r − 1)·Ns + k] (none in the first pass, ns = 1), through DFT_R, to dst[d0 + r·ns] (padded
// indices).
template <int R, class C, class Src>
__device__ __forceinline__ void butterfly(const Src& src, C* dst, const C* __restrict__ fft_tw, int line, int base,
                                          int s0, int nr, int d0, int ns, int k) {
  C a[R];
#pragma unroll
  for (int r = 0; r < R; ++r) a[r] = src(line, base, s0 + r * nr);
  if (ns > 1) {
    const C* const twp = fft_tw + (ns - 1) + k;
#pragma unroll
    for (int r = 1; r < R; ++r) a[r] = cmul(a[r], __ldg(twp + (r - 1) * ns));
  }
  dft<R>(a);
#pragma unroll
  for (int r = 0; r < R; ++r) dst[pad<C>(d0 + r * ns)] = a[r];
}

// One Stockham pass of radix R over `pairs` lines of n points: src -> dst (padded indices).
template <int R, class C, class Src>
__device__ __forceinline__ void pass(const Src& src, C* dst, const C* __restrict__ fft_tw, int n, FastDiv dnr,
                                     FastDiv dns, int pairs) {
  const int nr = static_cast<int>(dnr.d), ns = static_cast<int>(dns.d), total = pairs * nr;
  for (int q = static_cast<int>(threadIdx.x); q < total; q += static_cast<int>(blockDim.x)) {
    const int line = static_cast<int>(dnr.div(static_cast<unsigned>(q))), j = q - line * nr;
    const int k = j - static_cast<int>(dns.div(static_cast<unsigned>(j))) * ns;
    butterfly<R>(src, dst, fft_tw, line, line * n, line * n + j, nr, line * n + (j - k) * R + k, ns, k);
  }
}

// Calls f(std::integral_constant<int, R>{}) for the pass radix R (one of factor()'s radices).
template <class F>
__device__ __forceinline__ void with_radix(int radix, F&& f) {
  switch (radix) {
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    case 3:
      f(std::integral_constant<int, 3>{});
      break;
    case 4:
      f(std::integral_constant<int, 4>{});
      break;
    case 5:
      f(std::integral_constant<int, 5>{});
      break;
    case 7:
      f(std::integral_constant<int, 7>{});
      break;
    case 8:
      f(std::integral_constant<int, 8>{});
      break;
    case 11:
      f(std::integral_constant<int, 11>{});
      break;
    default:
      f(std::integral_constant<int, 13>{});
      break;
  }
}

// One pass of the radix ps.radix.
template <class C, class Src>
__device__ __forceinline__ void pass_any(const Pass& ps, const Src& src, C* dst, const C* __restrict__ tw, int n,
                                         int pairs) {
  const FastDiv nr = ps.nr, ns = ps.ns;
  with_radix(ps.radix, [&](auto r) { pass<decltype(r)::value>(src, dst, tw, n, nr, ns, pairs); });
}

// The inverse's first pass (ns = 1) with its input computed from the raw inputs (smooth_body's Mirror): the points of
// butterfly j, k = j + r·nr, have their mirrors N − k = (nr − j) + (R − 1 − r)·nr in butterfly nr − j, so one thread
// takes both butterflies and each raw input pair Y(k), Y(N − k) is read once, with the tables of k and N − k (the
// preprocess of a point needs both). Butterflies 0 and nr/2 are their own mirrors: each point alone (src.one). Taken
// only where the pass has at least two butterflies per thread (fft, fft_ct_first): elsewhere pairing would leave half
// the CTA's threads idle through the pass, which cost more than the loads it saves (docs/decisions.md §3.1).
template <class A, class B>
struct Mirror {
  A one;  // one(line, base, i): the point i (unpadded, base = line·N)
  B two;  // two(line, base, i, zk, zm): the point i = base + k and the point base + N − k, 0 < k < N
};
template <class T>
struct IsMirror : std::false_type {};
template <class A, class B>
struct IsMirror<Mirror<A, B>> : std::true_type {};

template <int R, class C, class Src>
__device__ __forceinline__ void butterfly_mirror(const Src& src, C* dst, int line, int base, int j, int nr) {
  if (j == 0 || 2 * j == nr) {
    butterfly<R>(src.one, dst, static_cast<const C*>(nullptr), line, base, base + j, nr, base + j * R, 1, 0);
    return;
  }
  C a[R], b[R];
#pragma unroll
  for (int r = 0; r < R; ++r) src.two(line, base, base + j + r * nr, a[r], b[R - 1 - r]);
  dft<R>(a);
  dft<R>(b);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    dst[pad<C>(base + j * R + r)] = a[r];
    dst[pad<C>(base + (nr - j) * R + r)] = b[r];
  }
}

// The first pass of radix R from a Mirror over `pairs` lines of n points: butterflies j ≤ nr/2 (and their mirrors).
template <int R, class C, class Src>
__device__ __forceinline__ void pass_mirror(const Src& src, C* dst, int n, int nr, int pairs) {
  const int h = nr / 2 + 1, total = pairs * h;
  for (int q = static_cast<int>(threadIdx.x); q < total; q += static_cast<int>(blockDim.x)) {
    const int line = q / h, j = q - line * h;
    butterfly_mirror<R>(src, dst, line, line * n, j, nr);
  }
}
template <class C, class Src>
__device__ __forceinline__ void pass_mirror_any(const Pass& ps, const Src& src, C* dst, int n, int pairs) {
  const int nr = static_cast<int>(ps.nr.d);
  with_radix(ps.radix, [&](auto r) { pass_mirror<decltype(r)::value>(src, dst, n, nr, pairs); });
}

// N = 1 (no passes) with a `first` functor: its values into dst.
template <class C, class Src>
__device__ __forceinline__ void copy_points(const Src& src, C* dst, int n, int pairs) {
  if constexpr (IsMirror<Src>::value) {
    copy_points(src.one, dst, n, pairs);
  } else {
    for (int q = static_cast<int>(threadIdx.x); q < pairs * n; q += static_cast<int>(blockDim.x)) {
      const int line = q / n;
      dst[pad<C>(q)] = src(line, line * n, q);
    }
  }
}

// All passes; returns the buffer holding the result (buf0 or buf1). The first pass reads through `first` (default:
// buf0), and writes buf1.
template <class C, class Src>
__device__ __forceinline__ C* fft(const Pass* __restrict__ passes, int npass, const C* __restrict__ tw, int n, C* buf0,
                                  C* buf1, int pairs, const Src& first) {
  C* src = buf0;
  C* dst = buf1;
  int p = 0;
  if constexpr (!std::is_same_v<Src, BufSrc<C>>) {
    if (npass == 0)
      copy_points(first, dst, n, pairs);
    else if constexpr (IsMirror<Src>::value) {
      // Paired butterflies where every thread still has one (else half of them would idle through the pass).
      if (pairs * static_cast<int>(passes[0].nr.d) >= 2 * static_cast<int>(blockDim.x))
        pass_mirror_any(passes[0], first, dst, n, pairs);
      else
        pass_any(passes[0], first.one, dst, tw, n, pairs);
    } else
      pass_any(passes[0], first, dst, tw, n, pairs);
    __syncthreads();
    src = buf1;
    dst = buf0;
    p = 1;
  }
  for (; p < npass; ++p) {
    pass_any(passes[p], BufSrc<C>{src}, dst, tw, n, pairs);
    __syncthreads();
    C* t = src;
    src = dst;
    dst = t;
  }
  return src;
}
template <class C>
__device__ __forceinline__ C* fft(const Pass* __restrict__ passes, int npass, const C* __restrict__ tw, int n, C* buf0,
                                  C* buf1, int pairs) {
  return fft(passes, npass, tw, n, buf0, buf1, pairs, BufSrc<C>{buf0});
}

// ---- Bluestein's DFT of any N through FFTs of a smooth length L >= 2N − 1 ------------------------------------------
//   X_k = Σ_n x_n W_N^{nk} = w_k Σ_n (x_n w_n) conj(w_{k−n}),  w_j = e^{−iπj²/N}  (nk = (n² + k² − (k−n)²)/2),
// the sum a cyclic convolution of length L of a = x·w (zero from N on) with b (b_j = conj w_|j|, cyclic): with
// B = FFT_L(b)/L from the host, A = FFT_L(a), the inverse FFT by a forward one, IFFT(Y)·L = conj FFT(conj Y):
//   Z = FFT_L(conj(A·B)),  X_k = w_k · conj Z_k.
// The lines lie at stride L; the first FFT's first pass reads point j < N of a line from `src` (a first-pass input as
// fft's: src(line, base, i), i = base + j), times the chirp, and the product by the second FFT's first pass, so the two
// FFTs are the whole cost. Returns the buffer holding Z.

// The first FFT's input: point j = i − base of the line from src times w_j below N, zero from N on.
template <class C, class F>
struct ChirpIn {
  F src;
  const C* w;
  int n;
  __device__ __forceinline__ C operator()(int line, int base, int i) const {
    const int j = i - base;
    return j < n ? cmul(src(line, base, i), __ldg(w + j)) : C{0, 0};
  }
};
// Points staged at their padded positions of buf.
template <class C>
struct StagedIn {
  const C* buf;
  __device__ __forceinline__ C operator()(int, int, int i) const { return buf[pad<C>(i)]; }
};
// The second FFT's input: conj(A_j · B_j).
template <class C>
struct ConjMulIn {
  const C* buf;
  const C* b;
  __device__ __forceinline__ C operator()(int, int base, int i) const {
    const C v = cmul(buf[pad<C>(i)], __ldg(b + (i - base)));
    return C{v.x, -v.y};
  }
};
template <class C, class F>
__device__ __forceinline__ C* bluestein(const Pass* __restrict__ passes, int npass, const C* __restrict__ tw, int n,
                                        int len, const C* __restrict__ w, const C* __restrict__ b, C* buf0, C* buf1,
                                        int lines, F src) {
  C* const a = fft(passes, npass, tw, len, buf0, buf1, lines, ChirpIn<C, F>{src, w, n});
  C* const other = a == buf0 ? buf1 : buf0;
  return fft(passes, npass, tw, len, a, other, lines, ConjMulIn<C>{a, b});
}
// X_k of the line at padded-free offset `base` of z (bluestein's result): w_k · conj Z_k.
template <class C>
__device__ __forceinline__ C bluestein_out(const C* z, const C* __restrict__ w, int base, int k) {
  const C v = z[pad<C>(base + k)], c = __ldg(w + k);
  return C{c.x * v.x + c.y * v.y, c.y * v.x - c.x * v.y};
}

// ---- The same passes with the length known at compile time (smooth_lines_ct) --------------------------------------

// The radices of FFT_N in factor()'s order, and Ns before each pass.
struct CtPlan {
  int npass = 0;
  int radix[kMaxPasses] = {};
  int ns[kMaxPasses] = {};
};
constexpr CtPlan ct_plan(int n) {
  CtPlan p;
  const int order[] = {8, 4, 2, 3, 5, 7, 11, 13};
  int ns = 1;
  for (int r : order)
    while (n % r == 0 && p.npass < kMaxPasses) {
      p.radix[p.npass] = r;
      p.ns[p.npass] = ns;
      ++p.npass;
      ns *= r;
      n /= r;
    }
  return p;
}

// One Stockham pass of radix R over kP lines of N points with NT threads: every index a constant or a
// multiply-shift by one.
template <int R, int N, int NS, int kP, int NT, class C, class Src>
__device__ __forceinline__ void pass_ct(const Src& src, C* dst, const C* __restrict__ fft_tw) {
  constexpr int NR = N / R, total = kP * NR;
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int q0 = 0; q0 < total; q0 += NT) {
    const int q = q0 + tid;
    if (total % NT != 0 && q >= total) break;
    const unsigned uq = static_cast<unsigned>(q);
    const int line = static_cast<int>(uq / NR), j = static_cast<int>(uq % NR);
    const int k = static_cast<int>(static_cast<unsigned>(j) % NS);
    butterfly<R>(src, dst, fft_tw, line, line * N, line * N + j, NR, line * N + (j - k) * R + k, NS, k);
  }
}

// The inverse's first pass from a Mirror (pass_mirror) with N, kP and NT known.
template <int R, int N, int kP, int NT, class C, class Src>
__device__ __forceinline__ void pass_mirror_ct(const Src& src, C* dst) {
  constexpr int NR = N / R, H = NR / 2 + 1, total = kP * H;
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int q0 = 0; q0 < total; q0 += NT) {
    const int q = q0 + tid;
    if (total % NT != 0 && q >= total) break;
    const unsigned uq = static_cast<unsigned>(q);
    const int line = static_cast<int>(uq / H), j = static_cast<int>(uq % H);
    butterfly_mirror<R>(src, dst, line, line * N, j, NR);
  }
}

// Passes I.. from src.
template <int N, int kP, int NT, int I, class C>
__device__ __forceinline__ C* fft_ct_from(const C* __restrict__ tw, C* src, C* dst) {
  constexpr CtPlan plan = ct_plan(N);
  if constexpr (I == plan.npass) {
    return src;
  } else {
    pass_ct<plan.radix[I], N, plan.ns[I], kP, NT>(BufSrc<C>{src}, dst, tw);
    __syncthreads();
    return fft_ct_from<N, kP, NT, I + 1>(tw, dst, src);
  }
}
// All passes, the first reading through `first` and writing b1.
template <int N, int kP, int NT, class C, class Src>
__device__ __forceinline__ C* fft_ct_first(const C* __restrict__ tw, C* b0, C* b1, const Src& first) {
  constexpr CtPlan plan = ct_plan(N);
  if constexpr (plan.npass == 0) {
    copy_points(first, b1, N, kP);
    __syncthreads();
    return b1;
  } else {
    if constexpr (IsMirror<Src>::value) {
      if constexpr (kP * (N / plan.radix[0]) >= 2 * NT)
        pass_mirror_ct<plan.radix[0], N, kP, NT>(first, b1);
      else
        pass_ct<plan.radix[0], N, plan.ns[0], kP, NT>(first.one, b1, tw);
    } else
      pass_ct<plan.radix[0], N, plan.ns[0], kP, NT>(first, b1, tw);
    __syncthreads();
    return fft_ct_from<N, kP, NT, 1>(tw, b1, b0);
  }
}

// The line length and the CTA's threads known at run time (smooth_lines: args.n, blockDim.x; the passes from the
// table in device memory) ...
struct RtLen {
  int n;
  FastDiv dn;
  const Pass* passes;
  int npass;
  __device__ __forceinline__ int len() const { return n; }
  __device__ __forceinline__ int div(int q) const { return static_cast<int>(dn.div(static_cast<unsigned>(q))); }
  __device__ __forceinline__ int threads() const { return static_cast<int>(blockDim.x); }
  template <class C, class Src>
  __device__ __forceinline__ C* run_fft(const C* tw, C* b0, C* b1, int pairs, const Src& first) const {
    return fft(passes, npass, tw, n, b0, b1, pairs, first);
  }
  template <class C>
  __device__ __forceinline__ C* run_fft(const C* tw, C* b0, C* b1, int pairs) const {
    return fft<C>(passes, npass, tw, n, b0, b1, pairs);
  }
};
// ... or at compile time (smooth_lines_ct: N points, NT threads, always kP pairs through the FFT).
template <int N, int kP, int NT>
struct CtLen {
  __device__ __forceinline__ static constexpr int len() { return N; }
  __device__ __forceinline__ static int div(int q) { return static_cast<int>(static_cast<unsigned>(q) / N); }
  __device__ __forceinline__ static constexpr int threads() { return NT; }
  template <class C, class Src>
  __device__ __forceinline__ C* run_fft(const C* tw, C* b0, C* b1, int, const Src& first) const {
    return fft_ct_first<N, kP, NT>(tw, b0, b1, first);
  }
  template <class C>
  __device__ __forceinline__ C* run_fft(const C* tw, C* b0, C* b1, int) const {
    return fft_ct_from<N, kP, NT, 0>(tw, b0, b1);
  }
};

// Forward: V of line `part` (0: a, 1: b) at k from Z(k), Z(N−k) of its pair (z: the pair's first element, l0 its
// unpadded index), then Y(k).
template <class T, class C>
struct Tabs {
  const C* tw;
  const T* fs;
  const T* ia;
};
// Forward: Y(k) of line `part` of a pair from Z(k) and Z(N − k) of its complex FFT.
template <class T, class C>
__device__ __forceinline__ T post_z(C zk, C zm, int k, int part, Tabs<T, C> a) {
  const T h = T(0.5);
  const C v = part == 0 ? C{h * (zk.x + zm.x), h * (zk.y - zm.y)} : C{h * (zk.y + zm.y), h * (zm.x - zk.x)};
  return __ldg(a.fs + k) * cmul(__ldg(a.tw + k), v).x;
}
template <class T, class C>
__device__ __forceinline__ T post(const C* z, int l0, int k, int n, int part, Tabs<T, C> a) {
  return post_z<T, C>(z[pad<C>(l0 + k)], z[pad<C>(l0 + (k == 0 ? 0 : n - k))], k, part, a);
}

// Inverse: V(k) of one line from its raw inputs (Y(k), Y(N−k)).
template <class T, class C>
__device__ __forceinline__ C pre(T yk, T ym, int k, int n, Tabs<T, C> a) {
  const T fa = __ldg(a.ia + k), fb = k == 0 ? T(0) : __ldg(a.ia + n - k);
  return cmulc(__ldg(a.tw + k), C{fa * yk, -(fb * ym)});
}

// Inverse, for the first FFT pass (Mirror): z(k) = conj(V_a(k) + i V_b(k)) and z(N−k) of a pair of lines a, b from
// their raw inputs Y(k), Y(N−k) (0 < k < N; ak, am of line a, bk, bm of line b), each input and table entry read once.
template <class T, class C>
__device__ __forceinline__ void pre_mirror(T ak, T am, T bk, T bm, int k, int n, Tabs<T, C> t, C& zk, C& zm) {
  const T fk = __ldg(t.ia + k), fm = __ldg(t.ia + n - k);
  const C wk = __ldg(t.tw + k), wm = __ldg(t.tw + n - k);
  const T ak2 = fk * ak, am2 = fm * am, bk2 = fk * bk, bm2 = fm * bm;
  const C vak = cmulc(wk, C{ak2, -am2}), vbk = cmulc(wk, C{bk2, -bm2});
  const C vam = cmulc(wm, C{am2, -ak2}), vbm = cmulc(wm, C{bm2, -bk2});
  zk = C{vak.x - vbk.y, -(vak.y + vbk.x)};
  zm = C{vam.x - vbm.y, -(vam.y + vbm.x)};
}

// Inverse, for the first FFT pass: z(k) = conj(V_a(k) + i V_b(k)) of a pair of lines a, b from their raw inputs Y(k),
// Y(N−k) (am = bm = 0 at k = 0), the tables read once for both lines.
template <class T, class C>
__device__ __forceinline__ C pre_two(T ak, T am, T bk, T bm, int k, int n, Tabs<T, C> t) {
  const T fk = __ldg(t.ia + k), fm = k == 0 ? T(0) : __ldg(t.ia + n - k);
  const C wk = __ldg(t.tw + k);
  const C va = cmulc(wk, C{fk * ak, -(fm * am)}), vb = cmulc(wk, C{fk * bk, -(fm * bm)});
  return C{va.x - vb.y, -(va.y + vb.x)};
}

// Complex elements of one padded buffer of `points` elements.
template <class C>
constexpr int padded(int points) {
  return points + (points >> (sizeof(C) == 8 ? 4 : 3)) + 1;
}

// Reads in[0 .. count) with kU global loads in flight per thread (their latencies overlap), then put(e, in[e]) for
// each of them: the contiguous loads of the line and tile kernels.
template <int kU, class T, class Put>
__device__ __forceinline__ void load_staged(const T* in, int count, int tid, int nth, Put put) {
  for (int e0 = tid; e0 < count; e0 += kU * nth) {
    T v[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u)
      if (e0 + u * nth < count) v[u] = in[e0 + u * nth];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int e = e0 + u * nth;
      if (e >= count) break;
      put(e, v[u]);
    }
  }
}

// The elements of a CTA's lines as one flat index e: rows layout, e = l·n + c (one contiguous block of memory from
// `base`); columns layout, a tile of kC adjacent columns of a matrix `width` wide from `base` (its row 0, first
// column), e = c·kC + l (row segments of kC); lines l >= `lines` are skipped. `div` divides by n (rows layout). The
// line and the element of e (split), its global offset, and the staged global loads of smooth_body and dct1_lines
// (load).
template <class T, bool kCols, int kC, class Div>
struct LineTile {
  long long base;
  int n, width, lines;
  Div div;
  __device__ __forceinline__ int count() const { return kCols ? n * kC : lines * n; }
  __device__ __forceinline__ void split(int e, int& l, int& c) const {
    if constexpr (kCols) {
      c = e / kC;
      l = e % kC;
    } else {
      l = div(e);
      c = e - l * n;
    }
  }
  __device__ __forceinline__ long long offset(int l, int c) const {
    if constexpr (kCols)
      return base + static_cast<long long>(c) * width + l;
    else
      return base + static_cast<long long>(l) * n + c;
  }
  // kU global loads in flight per thread before their puts (the loads' latencies overlap): put(l, c, in[offset]).
  template <class Put>
  __device__ __forceinline__ void load(const T* in, int tid, int nth, Put put) const {
    constexpr int kU = sizeof(T) == 4 ? 16 : 8;
    const int total = count();
    for (int e0 = tid; e0 < total; e0 += kU * nth) {
      T v[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        int l = 0, c = 0;
        const int e = e0 + u * nth;
        if (e < total) split(e, l, c);
        if (e < total && l < lines) v[u] = in[offset(l, c)];
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        int l = 0, c = 0;
        const int e = e0 + u * nth;
        if (e < total) split(e, l, c);
        if (e < total && l < lines) put(l, c, v[u]);
      }
    }
  }
};
template <class T, bool kCols, int kC, class Div>
__device__ __forceinline__ LineTile<T, kCols, kC, Div> line_tile(long long base, int n, int width, int lines, Div div) {
  return {base, n, width, lines, div};
}

// Forward outputs k of both lines of a pair (ya: part 0, yb: part 1) from Z(k), Z(N−k): post() for the two at once.
template <class T, class C>
__device__ __forceinline__ void post_pair(const C* z, int l0, int k, int n, Tabs<T, C> a, T& ya, T& yb) {
  const C zk = z[pad<C>(l0 + k)], zm = z[pad<C>(l0 + (k == 0 ? 0 : n - k))];
  const T h = T(0.5), f = __ldg(a.fs + k);
  const C t = __ldg(a.tw + k);
  ya = f * cmul(t, C{h * (zk.x + zm.x), h * (zk.y - zm.y)}).x;
  yb = f * cmul(t, C{h * (zk.y + zm.y), h * (zm.x - zk.x)}).x;
}

// kU units per thread in flight: fetch(u, item) for each, then put(u, item) (the global loads' latencies overlap): the
// 16-byte loads of VecLines and smooth_dct4_rows.
template <int kU, class Item, class Fetch, class Put>
__device__ __forceinline__ void staged(int total, int tid, int nth, Fetch fetch, Put put) {
  for (int u0 = tid; u0 < total; u0 += kU * nth) {
    Item it[kU];
#pragma unroll
    for (int w = 0; w < kU; ++w) {
      const int u = u0 + w * nth;
      if (u >= total) break;
      fetch(u, it[w]);
    }
#pragma unroll
    for (int w = 0; w < kU; ++w) {
      const int u = u0 + w * nth;
      if (u >= total) break;
      put(u, it[w]);
    }
  }
}

// smooth_body's global loads and stores by 16-byte vectors, where the CTA's lines allow them (vec_ok): the rows layout
// takes V consecutive values of both lines of a pair (a unit: the pair p and columns c .. c + V − 1, c = V·j), the
// columns layout V adjacent columns of one row (a unit: row c and columns l .. l + V − 1, l = V·j). The index work of
// a value is then shared by the 2V (rows) or V (columns) values of its unit: the scalar loads and stores spent more
// integer instructions than the FFT passes (Nsight Compute, 240-point rows: 81 of 142 instructions per value).
template <class T, bool kCols, int kC>
struct VecLines {
  using C = typename Cx<T>::type;
  using W = Vec16<T>;
  static constexpr int V = W::V, KV = kC / V;
  const T* in;
  T* out;
  long long base;
  int n, width, nreal, pairs;
  // Every access 16-byte aligned and every unit whole: rows, N a multiple of V (the CTA's first line starts at a
  // multiple of N); columns, kC, the width and the CTA's columns multiples of V.
  __device__ __forceinline__ bool ok() const {
    const bool aligned =
        ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15) == 0;
    if constexpr (kCols)
      return kC % V == 0 && aligned && width % V == 0 && nreal % V == 0;
    else
      return aligned && n % V == 0;
  }
  __device__ __forceinline__ int units() const { return kCols ? n * KV : pairs * (n / V); }
  // Columns: a unit at or right of the CTA's last column (a partial tile) is skipped.
  __device__ __forceinline__ bool skip(int p) const { return kCols && p >= nreal; }
  // Unit u: rows, pair p and first column c; columns, row c and first column l (p unused).
  template <class Div>
  __device__ __forceinline__ void unit(int u, Div div, int& p, int& c) const {
    if constexpr (kCols) {
      c = u / KV;
      p = (u - c * KV) * V;
    } else {
      const int e = u * V;
      p = div(e);
      c = e - p * n;
    }
  }
  __device__ __forceinline__ const T* src(int p, int c, int part) const {
    return kCols ? in + base + static_cast<long long>(c) * width + p
                 : in + base + static_cast<long long>(2 * p + part) * n + c;
  }
  __device__ __forceinline__ T* dst(int p, int c, int part) const {
    return kCols ? out + base + static_cast<long long>(c) * width + p
                 : out + base + static_cast<long long>(2 * p + part) * n + c;
  }
  // f(p, c) for each of this thread's units (columns: but those skip() leaves out), unrolled by two.
  template <class Div, class F>
  __device__ __forceinline__ void each_unit(int tid, int nth, Div div, F f) const {
    const int total = units();
#pragma unroll 2
    for (int u = tid; u < total; u += nth) {
      int p, c;
      unit(u, div, p, c);
      if (!skip(p)) f(p, c);
    }
  }
  // A unit's values in registers, 16-byte aligned (W::load writes them whole): a, and along rows b, the pair's second
  // line.
  struct Item {
    alignas(16) T a[V];
    alignas(16) T b[V];
  };
  // The forward loads: both lines of a pair into complex slot inv_nat(c) of buffer 0 (the second line's part zero
  // when the CTA has none), odd positions negated for DST-II lines (sgn_odd = −1).
  template <class Div>
  __device__ __forceinline__ void load_forward(C* buf0, int tid, int nth, Div div, T sgn_odd) const {
    const auto fetch = [&](int u, Item& it) {
      int p, c;
      unit(u, div, p, c);
      if (skip(p)) return;
      W::load(it.a, src(p, c, 0));
      if constexpr (!kCols) {
        if (2 * p + 1 < nreal)
          W::load(it.b, src(p, c, 1));
        else
#pragma unroll
          for (int i = 0; i < V; ++i) it.b[i] = T(0);
      }
    };
    const auto put = [&](int u, const Item& it) {
      int p, c;
      unit(u, div, p, c);
      if (skip(p)) return;
      if constexpr (kCols) {
        const T sg = (c & 1) ? sgn_odd : T(1);
        const int slot = inv_nat(c, n);
#pragma unroll
        for (int j = 0; j < V / 2; ++j)
          buf0[pad<C>((p / 2 + j) * n + slot)] = C{sg * it.a[2 * j], sg * it.a[2 * j + 1]};
      } else {
        const int h = c >> 1, l0 = p * n;  // c even: position c + i goes to h + i/2 (i even), n − 1 − h − i/2 (odd)
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const int slot = (i & 1) ? n - 1 - h - (i >> 1) : h + (i >> 1);
          const T sg = (i & 1) ? sgn_odd : T(1);
          buf0[pad<C>(l0 + slot)] = C{sg * it.a[i], sg * it.b[i]};
        }
      }
    };
    staged<kCols ? 8 : 4, Item>(units(), tid, nth, fetch, put);
  }
  // The inverse loads: the raw inputs of line l at yr[l·N + position] (DST-III lines: position N − 1 − c).
  template <class Div>
  __device__ __forceinline__ void load_inverse(T* yr, int tid, int nth, Div div, bool rev) const {
    struct One {
      alignas(16) T a[V];
    };
    const auto fetch = [&](int u, One& it) {
      if constexpr (kCols) {
        int p, c;
        unit(u, div, p, c);
        if (skip(p)) return;
        W::load(it.a, src(p, c, 0));
      } else {
        W::load(it.a, in + base + static_cast<long long>(u) * V);
      }
    };
    const auto put = [&](int u, const One& it) {
      if constexpr (kCols) {
        int l, c;
        unit(u, div, l, c);
        if (skip(l)) return;
        const int pos = rev ? n - 1 - c : c;
#pragma unroll
        for (int i = 0; i < V; ++i) yr[(l + i) * n + pos] = it.a[i];
      } else {
        const int e = u * V, l = div(e), c = e - l * n;
#pragma unroll
        for (int i = 0; i < V; ++i) yr[l * n + (rev ? n - 1 - c - i : c + i)] = it.a[i];
      }
    };
    staged<8, One>(kCols ? units() : nreal * (n / V), tid, nth, fetch, put);
  }
  // The forward stores: output c of both lines of a pair, Y(k) at k = c (DST-II lines: k = N − 1 − c).
  template <class Div>
  __device__ __forceinline__ void store_forward(const C* z, int tid, int nth, Div div, Tabs<T, C> tabs,
                                                bool rev) const {
    each_unit(tid, nth, div, [&](int p, int c) {
      if constexpr (kCols) {
        alignas(16) T y[V];
        const int k = rev ? n - 1 - c : c;
#pragma unroll
        for (int j = 0; j < V / 2; ++j) post_pair(z, (p / 2 + j) * n, k, n, tabs, y[2 * j], y[2 * j + 1]);
        W::store(dst(p, c, 0), y);
      } else {
        alignas(16) T ya[V], yb[V];
#pragma unroll
        for (int i = 0; i < V; ++i) post_pair(z, p * n, rev ? n - 1 - c - i : c + i, n, tabs, ya[i], yb[i]);
        W::store(dst(p, c, 0), ya);
        if (2 * p + 1 < nreal) W::store(dst(p, c, 1), yb);
      }
    });
  }
  // The inverse stores: x_a(c) = Re z(inv_nat(c)), x_b(c) = −Im z(inv_nat(c)) (z holds conj IFFT), odd positions
  // negated for DST-III lines (sgn_odd = −1).
  template <class Div>
  __device__ __forceinline__ void store_inverse(const C* z, int tid, int nth, Div div, T sgn_odd) const {
    each_unit(tid, nth, div, [&](int p, int c) {
      if constexpr (kCols) {
        alignas(16) T y[V];
        const T sg = (c & 1) ? sgn_odd : T(1);
        const int slot = inv_nat(c, n);
#pragma unroll
        for (int j = 0; j < V / 2; ++j) {
          const C v = z[pad<C>((p / 2 + j) * n + slot)];
          y[2 * j] = sg * v.x;
          y[2 * j + 1] = -(sg * v.y);
        }
        W::store(dst(p, c, 0), y);
      } else {
        alignas(16) T xa[V], xb[V];
        const int h = c >> 1, l0 = p * n;
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const C v = z[pad<C>(l0 + ((i & 1) ? n - 1 - h - (i >> 1) : h + (i >> 1)))];
          const T sg = (i & 1) ? sgn_odd : T(1);
          xa[i] = sg * v.x;
          xb[i] = -(sg * v.y);
        }
        W::store(dst(p, c, 0), xa);
        if (2 * p + 1 < nreal) W::store(dst(p, c, 1), xb);
      }
    });
  }
};

}  // namespace detail

// kCols = false: rows layout, CTA b takes real lines 2P·b .. (lines of n contiguous elements, a.lines of them).
// kCols = true: columns layout, CTA b takes tile b mod n_tiles of matrix b / n_tiles (n rows x width columns).
// In place is allowed (in == out): a CTA reads all of its lines before it writes any.
// Block: any multiple of 32 threads (kC divides it); dynamic shared memory smem_bytes<T>(P, N). The body of both
// kernels below; L gives the line length, the thread count and the FFT (detail::RtLen or detail::CtLen). kBluestein
// (run-time lengths only): FFT_N by Bluestein's (detail::bluestein), the complex lines at stride args.bl in the buffers;
// scalar loads and stores.
template <class T, bool kCols, bool kInverse, int kC, bool kBluestein = false, class L>
__device__ __forceinline__ void smooth_body(const Args<T>& args, const L len, const int maxpairs) {
  using namespace detail;
  using C = typename Cx<T>::type;
  const T* const in = args.in;
  T* const out = args.out;
  const Tabs<T, C> tabs{args.tw, args.fs, args.ia};
  const int n = len.len(), width = args.width, n_tiles = args.n_tiles;
  const int tid = static_cast<int>(threadIdx.x), nth = len.threads();
  const bool dst = args.dst != 0;
  const int ls = kBluestein ? args.bl : n;  // complex line stride of the buffers
  C* const buf0 = reinterpret_cast<C*>(smooth_smem);
  C* const buf1 = buf0 + padded<C>(maxpairs * ls);
  long long base;  // rows: first element of the CTA's first line; columns: its tile's (0, c0)
  int nreal;       // real lines of this CTA
  if constexpr (kCols) {
    const int tile = static_cast<int>(blockIdx.x % static_cast<unsigned>(n_tiles));
    const long long mat = blockIdx.x / static_cast<unsigned>(n_tiles);
    const int c0 = tile * kC;
    nreal = width - c0 < kC ? width - c0 : kC;
    base = mat * n * width + c0;
  } else {
    const long long r0 = static_cast<long long>(blockIdx.x) * 2 * maxpairs;
    const long long left = args.lines - r0;
    nreal = left < 2 * maxpairs ? static_cast<int>(left) : 2 * maxpairs;
    base = r0 * n;
  }
  const int pairs = (nreal + 1) / 2;
  const auto tile = line_tile<T, kCols, kC>(base, n, width, nreal, [&](int e) { return len.div(e); });
  const int count = tile.count();
  const auto load_all = [&](auto put) { tile.load(in, tid, nth, put); };
  // The real (part 0) or imaginary (part 1) half of complex element i (unpadded) of buffer 0.
  const auto zpart = [&](int i, int part) -> T& { return reinterpret_cast<T*>(buf0 + pad<C>(i))[part]; };

  const VecLines<T, kCols, kC> vl{in, out, base, n, width, nreal, pairs};
  const bool vec = !kBluestein && vl.ok();
  const auto div = [&](int e) { return len.div(e); };
  const T sgn_odd = dst ? T(-1) : T(1);
  // Inverse: the raw inputs, line l at yr[l·n ..] (2P·N reals fit buffer 0).
  [[maybe_unused]] T* const yr = reinterpret_cast<T*>(buf0);
  wait_previous_grid();  // launched by launch_dependent (kernels/dct2d/smooth.cu)
  if constexpr (!kInverse) {
    if (vec) {
      vl.load_forward(buf0, tid, nth, div, sgn_odd);
    } else {
      load_all([&](int l, int c, T v) { zpart((l >> 1) * ls + inv_nat(c, n), l & 1) = dst && (c & 1) ? -v : v; });
      if (nreal & 1)
        for (int m = tid; m < n; m += nth) zpart((nreal >> 1) * ls + m, 1) = T(0);
    }
  } else {
    if (vec)
      vl.load_inverse(yr, tid, nth, div, dst);
    else
      load_all([&](int l, int c, T v) { yr[l * n + (dst ? n - 1 - c : c)] = v; });
  }
  __syncthreads();
  const C* z;
  if constexpr (!kInverse) {
    if constexpr (kBluestein)
      z = bluestein(args.passes, args.npass, args.fft_tw, n, ls, args.chirp, args.bfft, buf0, buf1, pairs,
                    StagedIn<C>{buf0});
    else
      z = len.template run_fft<C>(args.fft_tw, buf0, buf1, pairs);
  } else {
    // The FFT's first pass reads conj(V_a + i V_b) of pair p at point k straight from the raw inputs (pair p's at
    // yr[2p·n ..]; l0: the line's first point in the FFT) and writes buffer 1: no pass of its own, no barrier; points k
    // and N − k together where their butterflies pair up (not with Bluestein's: its first pass has L points per line).
    const auto one = [&](int p, int l0, int i) -> C {
      const int k = i - l0, km = k == 0 ? 0 : n - k;
      const T* const ya = yr + 2 * p * n;
      const bool b = 2 * p + 1 < nreal;
      return pre_two<T, C>(ya[k], k == 0 ? T(0) : ya[km], b ? ya[n + k] : T(0), b && k != 0 ? ya[n + km] : T(0), k, n,
                           tabs);
    };
    const auto two = [&](int p, int l0, int i, C& zk, C& zm) {
      const int k = i - l0, km = n - k;
      const T* const ya = yr + 2 * p * n;
      const bool b = 2 * p + 1 < nreal;
      pre_mirror<T, C>(ya[k], ya[km], b ? ya[n + k] : T(0), b ? ya[n + km] : T(0), k, n, tabs, zk, zm);
    };
    if constexpr (kBluestein)
      z = bluestein(args.passes, args.npass, args.fft_tw, n, ls, args.chirp, args.bfft, buf0, buf1, pairs, one);
    else
      z = len.template run_fft<C>(args.fft_tw, buf0, buf1, pairs, Mirror<decltype(one), decltype(two)>{one, two});
  }

  // Stores: forward Y(k) of line l at position k; inverse: z holds conj(IFFT(Z)), x_a = Re, x_b = −Im.
  if (vec) {
    if constexpr (!kInverse)
      vl.store_forward(z, tid, nth, div, tabs, dst);
    else
      vl.store_inverse(z, tid, nth, div, sgn_odd);
    return;
  }
#pragma unroll 4
  for (int e = tid; e < count; e += nth) {
    int l, c;
    tile.split(e, l, c);
    if (l >= nreal) continue;
    if constexpr (!kInverse) {
      const int k = dst ? n - 1 - c : c;
      if constexpr (kBluestein)
        out[tile.offset(l, c)] = post_z<T, C>(bluestein_out(z, args.chirp, (l >> 1) * ls, k),
                                              bluestein_out(z, args.chirp, (l >> 1) * ls, k == 0 ? 0 : n - k), k, l & 1,
                                              tabs);
      else
        out[tile.offset(l, c)] = post(z, (l >> 1) * n, k, n, l & 1, tabs);
    } else {
      const C v = kBluestein ? bluestein_out(z, args.chirp, (l >> 1) * ls, inv_nat(c, n))
                             : z[pad<C>((l >> 1) * n + inv_nat(c, n))];
      const T x = (l & 1) ? -v.y : v.x;
      out[tile.offset(l, c)] = dst && (c & 1) ? -x : x;
    }
  }
}

template <class T, bool kCols, bool kInverse, int kC>
__global__ void __launch_bounds__(1024) smooth_lines(const Args<T> args) {
  smooth_body<T, kCols, kInverse, kC>(args, detail::RtLen{args.n, args.dn, args.passes, args.npass}, args.pairs);
}
// The same for N with a prime factor above 13: FFT_N by Bluestein's through FFT_L, L = args.bl smooth
// (bluestein_length), args.passes and args.fft_tw those of L; shared memory smem_bytes<T>(pairs, L).
template <class T, bool kCols, bool kInverse, int kC>
__global__ void __launch_bounds__(1024) smooth_lines_bluestein(const Args<T> args) {
  smooth_body<T, kCols, kInverse, kC, true>(args, detail::RtLen{args.n, args.dn, args.passes, args.npass}, args.pairs);
}

// The same kernel for one length N known at compile time: kP pairs per CTA (config()'s), NT threads (its threads).
// Every index is then a constant or a multiply-shift by one and every loop has a fixed count.
template <class T, bool kCols, bool kInverse, int kC, int N, int kP, int NT>
__global__ void __launch_bounds__(NT) smooth_lines_ct(const Args<T> args) {
  smooth_body<T, kCols, kInverse, kC>(args, detail::CtLen<N, kP, NT>{}, kP);
}

// DCT-IV of rows of even length 2M, M smooth (args.n = M, args.dn2 = 2M): cuda-dct4-fft's N/2-point complex algorithm
// (kernels/dct4/fft.cu) in one kernel, its pre-twiddle applied after the loads and its post-twiddle in the stores:
//   z_n = (x_{2n} + i x_{2M−1−2n}) · tw[n],  Z = FFT_M(z),  u_k = Z_k · post[k],  Y_{2k} = Re u_k,  Y_{2M−1−2k} = −Im
//   u_k
// (σ in tw). A CTA takes args.pairs lines (each one complex line of M points); args.lines real lines in all. In place
// is allowed. Block: any multiple of 32 threads; dynamic shared memory smem_bytes<T>(pairs, M).
template <class T>
__global__ void __launch_bounds__(1024) smooth_dct4_rows(const Args<T> args) {
  using namespace detail;
  using C = typename Cx<T>::type;
  const int m = args.n, n = 2 * m, maxl = args.pairs;
  const int tid = static_cast<int>(threadIdx.x), nth = static_cast<int>(blockDim.x);
  C* const buf0 = reinterpret_cast<C*>(smooth_smem);
  C* const buf1 = buf0 + padded<C>(maxl * m);
  const long long r0 = static_cast<long long>(blockIdx.x) * maxl, left = args.lines - r0;
  const int nl = left < maxl ? static_cast<int>(left) : maxl, count = nl * n;
  const T* const in = args.in + r0 * n;
  T* const out = args.out + r0 * n;
  // Element e = l·2M + c of the CTA's contiguous run: complex slot l·M + c/2 (real part) for even c, l·M + (2M−1−c)/2
  // (imaginary part) for odd c.
  const auto slot = [&](int e, int& part) {
    const int l = static_cast<int>(args.dn2.div(static_cast<unsigned>(e))), c = e - l * n;
    part = c & 1;
    return l * m + (part ? (n - 1 - c) >> 1 : c >> 1);
  };
  // 16-byte loads and stores where 2M is a multiple of V and the pointers are aligned (as smooth_body's VecLines): a
  // unit is V values c .. c + V − 1 of one line, c even, whose slots are l·M + c/2 + i/2 (i even, real parts) and
  // l·M + M − 1 − c/2 − (i − 1)/2 (i odd, imaginary parts).
  using W = Vec16<T>;
  constexpr int V = W::V;
  const bool vec =
      n % V == 0 && ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15) == 0;
  // The unit at element e: its line's first slot l·M and h = c/2; value i's slot is l·M + off(h, i).
  const auto unit_at = [&](int e, int& lm, int& h) {
    const int l = static_cast<int>(args.dn2.div(static_cast<unsigned>(e)));
    lm = l * m;
    h = (e - l * n) >> 1;
  };
  const auto off = [&](int h, int i) { return (i & 1) ? m - 1 - h - (i >> 1) : h + (i >> 1); };
  struct One {
    alignas(16) T a[V];
  };
  if (vec) {
    staged<sizeof(T) == 4 ? 4 : 8, One>(
        count / V, tid, nth, [&](int u, One& it) { W::load(it.a, in + static_cast<long long>(u) * V); },
        [&](int u, const One& it) {
          int lm, h;
          unit_at(u * V, lm, h);
#pragma unroll
          for (int i = 0; i < V; ++i) reinterpret_cast<T*>(buf0 + pad<C>(lm + off(h, i)))[i & 1] = it.a[i];
        });
  } else {
    load_staged<sizeof(T) == 4 ? 16 : 8>(in, count, tid, nth, [&](int e, T v) {
      int part;
      const int q = slot(e, part);
      reinterpret_cast<T*>(buf0 + pad<C>(q))[part] = v;
    });
  }
  __syncthreads();
  for (int q = tid; q < nl * m; q += nth) {
    const int k = q - static_cast<int>(args.dn.div(static_cast<unsigned>(q))) * m;
    buf0[pad<C>(q)] = cmul(buf0[pad<C>(q)], __ldg(args.tw + k));
  }
  __syncthreads();
  const C* const z = fft<C>(args.passes, args.npass, args.fft_tw, m, buf0, buf1, nl);
  if (vec) {
#pragma unroll 2
    for (int u = tid; u < count / V; u += nth) {
      const int e = u * V;
      int lm, h;
      unit_at(e, lm, h);
      alignas(16) T y[V];
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const int k = off(h, i);
        const C w = cmul(z[pad<C>(lm + k)], __ldg(args.post + k));
        y[i] = (i & 1) ? -w.y : w.x;
      }
      W::store(out + e, y);
    }
    return;
  }
#pragma unroll 4
  for (int e = tid; e < count; e += nth) {
    int part;
    const int q = slot(e, part);
    const int k = q - static_cast<int>(args.dn.div(static_cast<unsigned>(q))) * m;
    const C u = cmul(z[pad<C>(q)], __ldg(args.post + k));
    out[e] = part ? -u.y : u.x;
  }
}

namespace detail {
// smooth_dct4_odd_rows' body; kBluestein: FFT_N by bluestein(), the lines at stride args.bl.
template <class T, bool kBluestein>
__device__ __forceinline__ void dct4_odd_rows_body(const Args<T>& args) {
  using C = typename Cx<T>::type;
  const int n = args.n, maxl = 2 * args.pairs, ls = kBluestein ? args.bl : n;
  const int tid = static_cast<int>(threadIdx.x), nth = static_cast<int>(blockDim.x);
  C* const buf0 = reinterpret_cast<C*>(smooth_smem);
  C* const buf1 = buf0 + padded<C>(args.pairs * ls);
  const long long r0 = static_cast<long long>(blockIdx.x) * maxl, left = args.lines - r0;
  const int nl = left < maxl ? static_cast<int>(left) : maxl, count = nl * n, np = (nl + 1) / 2;
  const T* const in = args.in + r0 * n;
  T* const out = args.out + r0 * n;
  if (nl & 1)
    for (int r = tid; r < n; r += nth) reinterpret_cast<T*>(buf0 + pad<C>((np - 1) * ls + r))[1] = T(0);
  load_staged<sizeof(T) == 4 ? 16 : 8>(in, count, tid, nth, [&](int e, T v) {
    const int l = static_cast<int>(args.dn.div(static_cast<unsigned>(e))), s = __ldg(args.perm + (e - l * n));
    reinterpret_cast<T*>(buf0 + pad<C>((l >> 1) * ls + (s >= 0 ? s : ~s)))[l & 1] = s >= 0 ? v : -v;
  });
  __syncthreads();
  const C* z;
  if constexpr (kBluestein)
    z = bluestein(args.passes, args.npass, args.fft_tw, n, ls, args.chirp, args.bfft, buf0, buf1, np,
                  StagedIn<C>{buf0});
  else
    z = fft<C>(args.passes, args.npass, args.fft_tw, n, buf0, buf1, np);
#pragma unroll 4
  for (int e = tid; e < count; e += nth) {
    const int l = static_cast<int>(args.dn.div(static_cast<unsigned>(e))), k = e - l * n;
    const int f = __ldg(args.fidx + k), line = (l >> 1) * ls, g = f == 0 ? 0 : n - f;
    C a, b;
    if constexpr (kBluestein) {
      a = bluestein_out(z, args.chirp, line, f);
      b = bluestein_out(z, args.chirp, line, g);
    } else {
      a = z[pad<C>(line + f)];
      b = z[pad<C>(line + g)];
    }
    const T re = (l & 1) ? a.y + b.y : a.x + b.x, im = (l & 1) ? b.x - a.x : a.y - b.y;
    out[e] = __ldg(args.fs + k) * re + __ldg(args.ia + k) * im;
  }
}
}  // namespace detail

// DCT-IV rows of odd N (kernels/dct4/fft.cu's odd case, Chan & Ho's map: a signed permutation, a real FFT of N points,
// a gather with two coefficients per output), two real lines per complex FFT of N points as smooth_body's:
//   z_l(|dst[c]|) = ±x_{2l}(c) + i·(±x_{2l+1}(c)) (dst[c] = ~r: negated),  Z = FFT_N(z),
//   Q_a(f) = [Z(f) + conj Z(N−f)] / 2,  Q_b(f) = [Z(f) − conj Z(N−f)] / (2i),
//   Y_k = 2 cr[k] Re Q(f_k) + 2 ci[k] Im Q(f_k)   (args.fs = cr, args.ia = ci, args.fidx = f: dct4_odd_tables).
// A CTA takes 2·args.pairs real lines (args.lines in all); the imaginary parts of a last complex line with no second
// line are zeros. In place is allowed. Block: any multiple of 32 threads; shared memory smem_bytes<T>(pairs, N).
template <class T>
__global__ void __launch_bounds__(1024) smooth_dct4_odd_rows(const Args<T> args) {
  detail::dct4_odd_rows_body<T, false>(args);
}
// The same for N with a prime factor above 13: FFT_N by Bluestein's (detail::bluestein) through FFT_L, L = args.bl
// smooth (bluestein_length), the passes and twiddles those of L; shared memory smem_bytes<T>(pairs, L).
template <class T>
__global__ void __launch_bounds__(1024) smooth_dct4_odd_rows_bluestein(const Args<T> args) {
  detail::dct4_odd_rows_body<T, true>(args);
}

// ---- Host side: the plan of one axis (kernels/dct2d/smooth.cu, tests/emulate/emulate_smooth.cpp) ----------------

// The passes of FFT_N: radix 8 while 8 divides, then 4 or 2, then 3, 5, 7, 11, 13. False when N has another prime
// factor or needs more than kMaxPasses passes.
inline bool factor(long long n, unsigned char (&radix)[kMaxPasses], int& npass) {
  npass = 0;
  if (n < 1) return false;
  const int order[] = {8, 4, 2, 3, 5, 7, 11, 13};
  for (int r : order) {
    while (n % r == 0 && npass < kMaxPasses) {
      radix[npass++] = static_cast<unsigned char>(r);
      n /= r;
    }
  }
  return n == 1;
}

// The passes' twiddles, pass by pass in factor()'s order (N − 1 entries in all, and a last unused one): the pass of
// radix R after Ns points takes W_{Ns·R}^{k·r} = e^{−2πit/N} (t = k·r·N/(Ns·R)) at fft_tw[Ns − 1 + (r − 1)·Ns + k],
// r = 1 .. R−1, k < Ns. A warp's butterflies (consecutive k) then read consecutive entries for each r: the twiddle
// loads are coalesced in every pass, where indexing one table of W_N^t by t·r spread them over a line per thread.
// N without a plan (factor() false): the table of W_N^t, t < N.
template <class T>
std::vector<typename Cx<T>::type> fft_twiddles(long long n) {
  std::vector<typename Cx<T>::type> tw(static_cast<std::size_t>(n));
  const long double pi = 3.141592653589793238462643383279502884L;
  const auto w = [&](long long t) -> typename Cx<T>::type {
    const long double th = 2.0L * pi * static_cast<long double>(t) / static_cast<long double>(n);
    return {static_cast<T>(std::cos(th)), static_cast<T>(-std::sin(th))};
  };
  unsigned char radix[kMaxPasses];
  int npass = 0;
  if (!factor(n, radix, npass)) {
    for (long long t = 0; t < n; ++t) tw[static_cast<std::size_t>(t)] = w(t);
    return tw;
  }
  tw.back() = w(0);
  long long ns = 1;
  for (int p = 0; p < npass; ++p) {
    const long long r_max = radix[p], step = n / (ns * r_max);
    for (long long r = 1; r < r_max; ++r)
      for (long long k = 0; k < ns; ++k) tw[static_cast<std::size_t>(ns - 1 + (r - 1) * ns + k)] = w(k * r * step);
    ns *= r_max;
  }
  return tw;
}

// The FFT passes of length n (for Args::passes; npass = their count); false as factor().
inline bool plan_passes(long long n, std::vector<Pass>& passes) {
  unsigned char radix[kMaxPasses];
  int npass = 0;
  passes.clear();
  if (!factor(n, radix, npass)) return false;
  long long ns = 1;
  for (int p = 0; p < npass; ++p) {
    Pass ps;
    ps.radix = radix[p];
    ps.nr = FastDiv(static_cast<unsigned>(n / radix[p]));
    ps.ns = FastDiv(static_cast<unsigned>(ns));
    passes.push_back(ps);
    ns *= radix[p];
  }
  return true;
}

// Shared memory a CTA may take (H100 / H200: 227 KiB).
constexpr int kMaxSmem = 227 * 1024;

// Dynamic shared memory of a CTA of P pairs of lines of N points: two padded buffers.
template <class T>
constexpr long long smem_bytes(long long pairs, long long n) {
  using C = typename Cx<T>::type;
  const long long points = pairs * n;
  return 2 * static_cast<long long>(sizeof(C)) * (points + (points >> (sizeof(C) == 8 ? 4 : 3)) + 1);
}

// Launch shape of one axis: P complex lines per CTA, threads, dynamic shared memory and (columns) kC.
struct Config {
  int pairs = 0, threads = 0, smem_bytes = 0, kc = 1;
};
// Rows: P·N ≈ 2048 complex points, at most 256 pairs (1024 and 4096 measured no faster, docs/decisions.md). Columns: a
// tile of kC real columns, kC·sizeof(T) in 8 .. 64 bytes per row: the widest of 32 bytes or more whose CTA leaves room
// for two per SM (kTwoCtaSmem), else 32 bytes in one CTA per SM, else the widest that fits. At most kMaxPoints points
// per CTA. Threads: a radix-8 butterfly each (P·N/8), 64 .. 1024. pairs = 0 when N does not fit.
constexpr long long kMaxPoints = 16384, kTwoCtaSmem = 112 * 1024;
// Threads of a CTA of P pairs of lines of N points: a radix-8 butterfly each (P·N/8), 64 .. 1024.
constexpr int line_threads(long long pairs, long long n) {
  const long long t = (pairs * n / 8 + 31) / 32 * 32;
  return static_cast<int>(t < 64 ? 64 : t > 1024 ? 1024 : t);
}
template <class T>
constexpr Config config(long long n, bool cols) {
  Config c;
  if (n < 1 || smem_bytes<T>(1, n) > kMaxSmem) return c;
  if (cols) {
    const int wide = sizeof(T) == 4 ? 16 : 8, k32 = 32 / static_cast<int>(sizeof(T));
    const auto fits = [&](int kc, long long limit) {
      return smem_bytes<T>(kc / 2, n) <= limit && (kc / 2) * n <= kMaxPoints;
    };
    for (int kc = wide; kc >= k32 && c.kc == 1; kc /= 2)
      if (fits(kc, kTwoCtaSmem)) c.kc = kc;
    if (c.kc == 1 && fits(k32, kMaxSmem)) c.kc = k32;
    for (int kc = k32 / 2; kc >= 2 && c.kc == 1; kc /= 2)
      if (fits(kc, kMaxSmem)) c.kc = kc;
    if (c.kc == 1) c.kc = 2;
    c.pairs = c.kc / 2;
  } else {
    const long long target = 2048;
    c.pairs = static_cast<int>(n >= target ? 1 : target / n > 256 ? 256 : target / n);
  }
  c.smem_bytes = static_cast<int>(smem_bytes<T>(c.pairs, n));
  c.threads = line_threads(c.pairs, n);
  return c;
}

// Bluestein's FFT length for a DFT of n points (n >= 2) in precision T: the smooth L >= 2n − 1 (factor() true) whose
// line fits a CTA (smem_bytes) of least estimated work, looked for up to 4n; 0 if none. The work: L · Σ over its passes
// of (2 + the radix's complex multiply-adds per point, about R/2 for the odd radices' symmetric pairs), so
// 2048 = 8·8·8·4 is taken before 2197 = 13³ and 4096 before 4095 = 3·3·5·7·13.
template <class T>
long long bluestein_length(long long n) {
  long long best = 0;
  double cost = 0;
  for (long long l = 2 * n - 1; l <= 4 * n; ++l) {
    unsigned char radix[kMaxPasses];
    int npass = 0;
    if (smem_bytes<T>(1, l) > kMaxSmem) break;
    if (!factor(l, radix, npass)) continue;
    double per_point = 0;
    for (int p = 0; p < npass; ++p)
      per_point += 2.0 + (radix[p] == 8 ? 1.5 : radix[p] == 4 ? 1.25 : radix[p] == 2 ? 1.0 : radix[p] / 2.0);
    if (best == 0 || static_cast<double>(l) * per_point < cost) {
      best = l;
      cost = static_cast<double>(l) * per_point;
    }
  }
  return best;
}

// Whether Bluestein's FFT inside our kernels pays against the cuFFT route for a DFT of n points (n not smooth), as
// measured (docs/decisions.md §10): where n's largest prime factor p is 47 .. 127, or p > 127 in a line of more than
// 16 KiB (n·sizeof(T)). cuFFT measured faster for p <= 37 and for p > 127 in lines of up to 16 KiB.
constexpr long long largest_prime_factor(long long n) {
  long long p = 1, m = n;
  for (long long d = 2; d * d <= m; ++d)
    while (m % d == 0) {
      p = d;
      m /= d;
    }
  return m > 1 ? m : p;
}
template <class T>
constexpr bool bluestein_pays(long long n) {
  const long long p = largest_prime_factor(n);
  return (p >= 47 && p <= 127) || (p > 127 && n * static_cast<long long>(sizeof(T)) > 16384);
}

// Bluestein's tables for n points through FFTs of length len (Args::chirp, Args::bfft), in long double: the chirp's
// angle from j² mod 2n (exact in integers), B by a recursive mixed-radix FFT (len smooth).
template <class T>
struct BluesteinTables {
  std::vector<typename Cx<T>::type> chirp, bfft;
};
namespace detail {
inline void host_fft(std::vector<std::complex<long double>>& a) {
  const std::size_t n = a.size();
  if (n <= 1) return;
  std::size_t p = 2;
  while (n % p != 0) ++p;
  const std::size_t m = n / p;
  std::vector<std::vector<std::complex<long double>>> sub(p, std::vector<std::complex<long double>>(m));
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t r = 0; r < p; ++r) sub[r][j] = a[j * p + r];
  for (auto& v : sub) host_fft(v);
  const long double pi = 3.141592653589793238462643383279502884L;
  for (std::size_t k = 0; k < n; ++k) {
    std::complex<long double> acc = sub[0][k % m];
    for (std::size_t r = 1; r < p; ++r) {
      const long double th = -2.0L * pi * static_cast<long double>((r * k) % n) / static_cast<long double>(n);
      acc += sub[r][k % m] * std::complex<long double>(std::cos(th), std::sin(th));
    }
    a[k] = acc;
  }
}
}  // namespace detail
template <class T>
BluesteinTables<T> bluestein_tables(long long n, long long len) {
  using C = typename Cx<T>::type;
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<std::complex<long double>> w(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(len));
  for (long long j = 0; j < n; ++j) {
    const long double th = -pi * static_cast<long double>((j * j) % (2 * n)) / static_cast<long double>(n);
    w[static_cast<std::size_t>(j)] = {std::cos(th), std::sin(th)};
  }
  for (long long j = 0; j < n; ++j) {
    b[static_cast<std::size_t>(j)] = std::conj(w[static_cast<std::size_t>(j)]);
    if (j > 0) b[static_cast<std::size_t>(len - j)] = std::conj(w[static_cast<std::size_t>(j)]);
  }
  detail::host_fft(b);
  BluesteinTables<T> t;
  for (const auto& v : w) t.chirp.push_back(C{static_cast<T>(v.real()), static_cast<T>(v.imag())});
  for (const auto& v : b)
    t.bfft.push_back(C{static_cast<T>(v.real() / static_cast<long double>(len)),
                       static_cast<T>(v.imag() / static_cast<long double>(len))});
  return t;
}

// DCT-IV of odd N by Chan & Ho's map (kernels/dct4/fft.cu's header has the derivation): src[r] is the input index whose
// value goes to slot r of the real sequence q (~index: negated), dst[c] the slot of input c (~slot: negated); output k
// is Y_k = 2 cr[k] Re Q(f[k]) + 2 ci[k] Im Q(f[k]), Q = FFT_N(q), f[k] <= N/2, σ (the norm) folded into cr and ci, and
// the 1/2 of two lines' separation from one complex FFT (both routes take two lines per FFT). Built in long double;
// used by cuda-dct4-fft's cuFFT route, by smooth_dct4_odd_rows and by their host emulation.
template <class T>
struct Dct4OddTables {
  std::vector<int> src, dst, f;
  std::vector<T> cr, ci;
};
template <class T>
Dct4OddTables<T> dct4_odd_tables(int n, long double sig) {
  const auto inverse_mod = [](int a, int m) {  // gcd(a, m) = 1
    for (int x = 1; x < m; ++x)
      if (static_cast<long long>(a) * x % m == 1) return x;
    return 0;
  };
  const auto mod8 = [](long long r) { return static_cast<int>(((r % 8) + 8) % 8); };
  const auto ec = [&](long long r) { return mod8(r) == 1 || mod8(r) == 7 ? 1 : -1; };
  const auto es = [&](long long r) { return mod8(r) == 1 || mod8(r) == 3 ? 1 : -1; };
  const int u = inverse_mod(n % 8, 8), v = n == 1 ? 0 : inverse_mod(8 % n, n);
  Dct4OddTables<T> t;
  t.src.assign(n, 0);
  t.dst.assign(n, 0);
  t.f.assign(n, 0);
  t.cr.assign(n, T(0));
  t.ci.assign(n, T(0));
  for (int i = 0; i < n; ++i) {
    const int a = 2 * i + 1;
    if (a % 4 == 1)
      t.src[a % n] = ec(a) > 0 ? i : ~i;
    else
      t.src[(n - a % n) % n] = (a % 8 == 3) ? ~i : i;
  }
  for (int r = 0; r < n; ++r) t.dst[t.src[r] >= 0 ? t.src[r] : ~t.src[r]] = t.src[r] >= 0 ? r : ~r;
  const long double s2 = sig / std::sqrt(2.0L) / 2;
  for (int k = 0; k < n; ++k) {
    const long long b = 2 * k + 1;
    int fk = static_cast<int>(static_cast<long long>(v) * b % n);
    long double sim = s2 * es(u) * es(b);
    if (fk > n / 2) {
      fk = n - fk;
      sim = -sim;
    }
    t.f[k] = fk;
    t.cr[k] = static_cast<T>(s2 * ec(u) * ec(b));
    t.ci[k] = static_cast<T>(sim);
  }
  return t;
}

// ---- Lengths compiled ahead (smooth_lines_ct) -------------------------------------------------------------------

// The sides of common photographs, video frames and their halves that are smooth and not powers of two
// (docs/decisions.md §3.1): 10-20% faster than smooth_lines. Every other smooth length takes smooth_lines.
using CompiledLengths =
    std::integer_sequence<int, 240, 360, 480, 540, 576, 600, 720, 768, 960, 1000, 1080, 1200, 1280, 1440, 1536, 1600,
                          1920, 2000, 2160, 2400, 2560, 2880, 3000, 3024, 3840, 4000, 4032, 4320, 6000>;

template <int... Ns>
constexpr bool compiled_in(long long n, std::integer_sequence<int, Ns...>) {
  return ((n == Ns) || ...);
}
constexpr bool compiled(long long n) { return compiled_in(n, CompiledLengths{}); }

// smooth_lines_ct for length N in config()'s launch shape; ok = false where config() finds no room for N.
template <class T, bool kCols, bool kInverse, int N>
struct CompiledKernel {
  static constexpr Config c = config<T>(N, kCols);
  static constexpr bool ok = c.pairs > 0;
  static constexpr int kc = kCols ? c.kc : 1;
};

// Calls f(kernel) with the compiled kernel of length n (a pointer to smooth_lines_ct<...>); false if there is none.
template <class T, bool kCols, bool kInverse, class F, int... Ns>
bool with_compiled_in(long long n, F&& f, std::integer_sequence<int, Ns...>) {
  const auto one = [&]<int N>(std::integral_constant<int, N>) {
    using K = CompiledKernel<T, kCols, kInverse, N>;
    if constexpr (K::ok) {
      if (n != N) return false;
      f(&smooth_lines_ct<T, kCols, kInverse, K::kc, N, K::c.pairs, K::c.threads>);
      return true;
    } else {
      return false;
    }
  };
  return (one(std::integral_constant<int, Ns>{}) || ...);
}
template <class T, bool kCols, bool kInverse, class F>
bool with_compiled(long long n, F&& f) {
  return with_compiled_in<T, kCols, kInverse>(n, f, CompiledLengths{});
}

// The compiled kernel of length n as the launchers take it (nullptr: none). Instantiated only in
// kernels/dct2d/smooth_compiled_f32.cu and _f64.cu (the build compiles the two in parallel).
template <class T>
const void* compiled_kernel(long long n, bool cols, bool inverse) {
  const void* fn = nullptr;
  const auto take = [&](auto k) { fn = reinterpret_cast<const void*>(k); };
  if (cols)
    inverse ? with_compiled<T, true, true>(n, take) : with_compiled<T, true, false>(n, take);
  else
    inverse ? with_compiled<T, false, true>(n, take) : with_compiled<T, false, false>(n, take);
  return fn;
}

}  // namespace dct::cuda::smooth
