#pragma once
/* The pointwise math of the 2-D postprocess (eqs. 14, 17) and preprocess (eq. 15) of [1], derived in
   kernels/dct2d/prepost.cu, for one symmetric pair of spectrum rows (k1, N1−k1) in one spectrum column k2. Shared by
   post_2d / pre_2d (kernels/dct2d/prepost.cu) and the column FFT passes that fuse them (kernels/dct2d/col_fft.cuh).
   Plain CUDA C++ with no host-runtime dependencies (tests/emulate/emulate_colfft.cpp compiles it on the host). Scale
   factors are the caller's. */

namespace dct::cuda::dct2d {

template <class C>
__device__ __forceinline__ C cmul(C a, C b) {
  return C{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
template <class C>  // conj(a) · b
__device__ __forceinline__ C cmulc(C a, C b) {
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
__device__ __forceinline__ Quad<C> post_quad(C a, C b, C w1, C w2) {
  const C p = cmul(w1, a);
  const C q = cmulc(w1, b);
  const C s = cmul(w2, C{p.x + q.x, p.y + q.y});
  const C t = cmul(w2, C{p.x - q.x, p.y - q.y});
  return {C{s.x, -s.y}, C{-t.y, -t.x}};
}

// The outputs of post_quad for the pair (k1, N1−k1) in column k2 of y (rows of n2; m2 = N2−k2, mir2: that column
// exists apart from k2), each times its scales f1a = s1(k1), f2a = s2(k2), f2b = s2(m2); s1(N1−k1) = f1b(), read
// only when row N1−k1 exists apart from k1 (k1 != 0, 2·k1 != n1). Outputs whose mirror coincides are written once.
template <class T, class C, class I, class F1b>
__device__ __forceinline__ void store_quad(T* yb, I k1, I n1, I n2, I k2, I m2, bool mir2, const Quad<C>& o, T f1a,
                                           T f2a, T f2b, F1b f1b) {
  T* const ya = yb + k1 * n2;
  ya[k2] = f1a * f2a * o.k1.x;
  if (mir2) ya[m2] = f1a * f2b * o.k1.y;
  if (k1 != 0 && 2 * k1 != n1) {
    T* const yc = yb + (n1 - k1) * n2;
    const T b = f1b();
    yc[k2] = b * f2a * o.m1.x;
    if (mir2) yc[m2] = b * f2b * o.m1.y;
  }
}

// Eq. (15): from the scaled inputs y00 = Y(k1,k2), y01 = Y(k1,N2−k2), y10 = Y(N1−k1,k2), y11 = Y(N1−k1,N2−k2)
// (0 where the mirror does not exist), V(k1, k2) = .k1 and V(N1−k1, k2) = .m1.
template <class T, class C>
__device__ __forceinline__ Quad<C> pre_pair(T y00, T y01, T y10, T y11, C w1, C w2) {
  const C w12 = cmul(w1, w2);
  const C q = cmulc(w2, w1);  // W1 conj(W2)
  const C iq{-q.y, q.x};      // i W1 conj(W2)
  return {cmulc(w12, C{y00 - y11, -(y01 + y10)}), cmul(iq, C{y10 - y01, -(y11 + y00)})};
}

}  // namespace dct::cuda::dct2d
