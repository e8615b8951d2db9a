#pragma once
/* The pointwise math of the 2-D postprocess (eqs. 14, 17) and preprocess (eq. 15) of [1], derived in
   kernels/dct2d/prepost.cu, for one symmetric pair of spectrum rows (k1, N1−k1) in one spectrum column k2. Shared by
   post_2d / pre_2d (kernels/dct2d/prepost.cu), the column FFT passes that fuse them (kernels/dct2d/col_fft.cuh) and
   cpu-fftw's 2-D route through FFTW's r2c / c2r (cpu/fftw_dct2d.cpp). Plain C++ (DCT_HD: host and device functions
   when a CUDA compiler includes it; no CUDA header). C: any {x, y} complex struct (float2, double2). Scale factors are
   the caller's. */

#include "math/hd.hpp"

namespace dct::math::dct2d {

// DST-II / DST-III of an axis through the DCT-II / DCT-III machinery (scipy's definitions, every norm):
//   DST-II(x)[k] = DCT-II(x')[N−1−k],  x'[n] = (−1)^n x[n];   DST-III(y)[n] = (−1)^n DCT-III(y')[n],  y'[k] = y[N−1−k].
// A kernel that makes the first global load of the 2-D pipeline takes a `sign` mask (the loaded value of natural
// element (n0, n1) negated when (n0 odd and bit 0) xor (n1 odd and bit 1)); the one that makes the last store a `rev`
// mask (index k of axis a stored at N_a−1−k where bit a is set). Forward: sign on load, rev on store; inverse: rev on
// load, sign on store. 0: the plain DCT.
constexpr unsigned kFlipAxis0 = 1, kFlipAxis1 = 2;
template <class I>
DCT_HD bool flip_sign(unsigned sign, I n0, I n1) {
  return ((((sign & kFlipAxis0) ? n0 : I(0)) ^ ((sign & kFlipAxis1) ? n1 : I(0))) & 1) != 0;
}
// Row k of n1 (column k of n2) where a `rev` mask puts it.
template <class I>
DCT_HD I flip_row(I k, I n1, unsigned rev) {
  return (rev & kFlipAxis0) ? n1 - 1 - k : k;
}
template <class I>
DCT_HD I flip_col(I k, I n2, unsigned rev) {
  return (rev & kFlipAxis1) ? n2 - 1 - k : k;
}

template <class C>
DCT_HD C cmul(C a, C b) {
  return C{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
template <class C>  // conj(a) · b
DCT_HD C cmulc(C a, C b) {
  return C{a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x};
}

// Eq. (14), (17): from A = V(k1, k2) and B = V(N1−k1, k2) (B = A's row when k1 = 0), w1 = W_{k1}, w2 = W_{k2},
// the unscaled outputs Y(k1,k2) = o.x[0], Y(k1,N2−k2) = o.y[0], Y(N1−k1,k2) = o.x[1], Y(N1−k1,N2−k2) = o.y[1]
// (as s.x, −s.y, −t.y, −t.x).
template <class C>
struct Quad {
  C k1;  // {Y(k1, k2), Y(k1, N2−k2)}
  C m1;  // {Y(N1−k1, k2), Y(N1−k1, N2−k2)}
};
template <class C>
DCT_HD Quad<C> post_quad(C a, C b, C w1, C w2) {
  const C p = cmul(w1, a);
  const C q = cmulc(w1, b);
  const C s = cmul(w2, C{p.x + q.x, p.y + q.y});
  const C t = cmul(w2, C{p.x - q.x, p.y - q.y});
  return {C{s.x, -s.y}, C{-t.y, -t.x}};
}

// The outputs of post_quad for the pair (k1, N1−k1) in column k2 of y (rows of n2; m2 = N2−k2, mir2: that column
// exists apart from k2), each times its scales f1a = s1(k1), f2a = s2(k2), f2b = s2(m2); s1(N1−k1) = f1b(), read
// only when row N1−k1 exists apart from k1 (k1 != 0, 2·k1 != n1). Outputs whose mirror coincides are written once.
// rev (a kFlipAxis0/1 mask): output row k stored at row n1−1−k (bit 0), column k at n2−1−k (bit 1).
template <class T, class C, class I, class F1b>
DCT_HD void store_quad(T* yb, I k1, I n1, I n2, I k2, I m2, bool mir2, const Quad<C>& o, T f1a, T f2a, T f2b, F1b f1b,
                       unsigned rev = 0) {
  const auto row = [&](I k) { return flip_row(k, n1, rev); };
  const auto col = [&](I k) { return flip_col(k, n2, rev); };
  T* const ya = yb + row(k1) * n2;
  ya[col(k2)] = f1a * f2a * o.k1.x;
  if (mir2) ya[col(m2)] = f1a * f2b * o.k1.y;
  if (k1 != 0 && 2 * k1 != n1) {
    T* const yc = yb + row(n1 - k1) * n2;
    const T b = f1b();
    yc[col(k2)] = b * f2a * o.m1.x;
    if (mir2) yc[col(m2)] = b * f2b * o.m1.y;
  }
}

// Eq. (15): from the scaled inputs y00 = Y(k1,k2), y01 = Y(k1,N2−k2), y10 = Y(N1−k1,k2), y11 = Y(N1−k1,N2−k2)
// (0 where the mirror does not exist), V(k1, k2) = .k1 and V(N1−k1, k2) = .m1.
template <class T, class C>
DCT_HD Quad<C> pre_pair(T y00, T y01, T y10, T y11, C w1, C w2) {
  const C w12 = cmul(w1, w2);
  const C q = cmulc(w2, w1);  // W1 conj(W2)
  const C iq{-q.y, q.x};      // i W1 conj(W2)
  return {cmulc(w12, C{y00 - y11, -(y01 + y10)}), cmul(iq, C{y10 - y01, -(y11 + y00)})};
}

}  // namespace dct::math::dct2d

// The kernels' names for it.
namespace dct::cuda::dct2d {
using math::dct2d::cmul;
using math::dct2d::cmulc;
using math::dct2d::flip_col;
using math::dct2d::flip_row;
using math::dct2d::flip_sign;
using math::dct2d::kFlipAxis0;
using math::dct2d::kFlipAxis1;
using math::dct2d::post_quad;
using math::dct2d::pre_pair;
using math::dct2d::Quad;
using math::dct2d::store_quad;
}  // namespace dct::cuda::dct2d
