/* cuFFT LTO callbacks of cuda-fft2d (seed 000's three-stage method with the reorder and the inverse
   preprocess folded into cuFFT's own loads and stores). Compiled by CMake to LTO-IR
   (nvcc -dc -fatbin, code=lto_80), embedded with bin2c, and handed to cufftXtSetJITCallback by
   kernels/fft2d_cb.cu; cuFFT links them into its kernels when the plan is made.

   Forward (R2C / D2Z of the reordered matrix v, eq. 13): cuFFT asks for v at `offset` (row-major, batch
   outermost); v(m, c) = x(nat(m, n1), nat(c, n2)), nat(r, n) = 2r for 2r < n, else 2n − 2r − 1.
   Inverse (C2R / Z2D): the load callback returns V(k1, k2) of eq. 15 straight from the coefficients y
   (four reads, the same expressions as pre_2d_kernel in dct_kernels.cu: for k1 <= n1/2 the first
   formula, above it the second one with j1 = n1 − k1); the store callback writes the real output of the
   inverse FFT at offset (m, c) to its natural position (eq. 16). */
#include <cufftXt.h>

#include "kernels/fft2d_cb_info.h"

namespace {

template <class C>
__device__ __forceinline__ C cmul(C a, C b) {
  return C{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
template <class C>
__device__ __forceinline__ C cmulc(C a, C b) {  // conj(a) * b
  return C{a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x};
}

__device__ __forceinline__ long long nat(long long r, long long n) { return 2 * r < n ? 2 * r : 2 * n - 2 * r - 1; }

// offset -> (matrix b, row, column) for rows of `w` elements in matrices of `rows` rows.
template <class Info>
__device__ __forceinline__ void split(const Info* p, unsigned long long offset, long long rows, long long w,
                                      long long& b, long long& r, long long& c) {
  if (p->small) {
    const unsigned o = static_cast<unsigned>(offset), uw = static_cast<unsigned>(w);
    const unsigned mat = static_cast<unsigned>(rows) * uw;
    const unsigned bb = o / mat, rem = o - bb * mat, rr = rem / uw;
    b = bb;
    r = rr;
    c = rem - rr * uw;
  } else {
    const unsigned long long mat = static_cast<unsigned long long>(rows) * w;
    const unsigned long long bb = offset / mat, rem = offset - bb * mat, rr = rem / w;
    b = static_cast<long long>(bb);
    r = static_cast<long long>(rr);
    c = static_cast<long long>(rem - rr * w);
  }
}

template <class T, class C>
__device__ __forceinline__ T fwd_load(void* data_in, unsigned long long offset, void* info) {
  const auto* p = static_cast<const Fft2dCbInfo<T, C>*>(info);
  long long b, m, c;
  split(p, offset, p->n1, p->n2, b, m, c);
  return static_cast<const T*>(data_in)[(b * p->n1 + nat(m, p->n1)) * p->n2 + nat(c, p->n2)];
}

template <class T, class C>
__device__ __forceinline__ C inv_load(unsigned long long offset, void* info) {
  const auto* p = static_cast<const Fft2dCbInfo<T, C>*>(info);
  const long long n1 = p->n1, n2 = p->n2, nc = n2 / 2 + 1, h1 = n1 / 2;
  long long b, k1, k2;
  split(p, offset, n1, nc, b, k1, k2);
  const bool upper = k1 > h1;
  const long long j1 = upper ? n1 - k1 : k1;  // 0 <= j1 <= n1/2
  const T* yb = p->y + b * n1 * n2;
  const bool has1 = j1 != 0, has2 = k2 != 0;
  const long long m1 = n1 - j1, m2 = n2 - k2;
  const T g1a = p->ia1[j1], g2a = p->ia2[k2];
  const T g1b = has1 ? p->ia1[m1] : T(0), g2b = has2 ? p->ia2[m2] : T(0);
  const T y00 = g1a * g2a * yb[j1 * n2 + k2];
  const T y01 = has2 ? g1a * g2b * yb[j1 * n2 + m2] : T(0);
  const T y10 = has1 ? g1b * g2a * yb[m1 * n2 + k2] : T(0);
  const T y11 = (has1 && has2) ? g1b * g2b * yb[m1 * n2 + m2] : T(0);
  const C w1 = p->tw1[j1], w2 = p->tw2[k2];
  if (!upper) return cmulc(cmul(w1, w2), C{y00 - y11, -(y01 + y10)});
  const C q = cmulc(w2, w1);  // W1 conj(W2)
  return cmul(C{-q.y, q.x}, C{y10 - y01, -(y11 + y00)});
}

template <class T, class C>
__device__ __forceinline__ void inv_store(void* data_out, unsigned long long offset, T v, void* info) {
  const auto* p = static_cast<const Fft2dCbInfo<T, C>*>(info);
  long long b, m, c;
  split(p, offset, p->n1, p->n2, b, m, c);
  static_cast<T*>(data_out)[(b * p->n1 + nat(m, p->n1)) * p->n2 + nat(c, p->n2)] = v;
}

}  // namespace

// Global-namespace C++ functions: cufftXtSetJITCallback takes the plain name and finds the function with
// the callback signature (an extern "C" symbol is refused at planning time, status 5, measured on cuFFT
// 12.0 / CUDA 13.0).
__device__ cufftReal dct_fft2d_fwd_load_f32(void* in, unsigned long long offset, void* info, void*) {
  return fwd_load<float, cufftComplex>(in, offset, info);
}
__device__ cufftDoubleReal dct_fft2d_fwd_load_f64(void* in, unsigned long long offset, void* info, void*) {
  return fwd_load<double, cufftDoubleComplex>(in, offset, info);
}
__device__ cufftComplex dct_fft2d_inv_load_f32(void*, unsigned long long offset, void* info, void*) {
  return inv_load<float, cufftComplex>(offset, info);
}
__device__ cufftDoubleComplex dct_fft2d_inv_load_f64(void*, unsigned long long offset, void* info, void*) {
  return inv_load<double, cufftDoubleComplex>(offset, info);
}
__device__ void dct_fft2d_inv_store_f32(void* out, unsigned long long offset, cufftReal v, void* info, void*) {
  inv_store<float, cufftComplex>(out, offset, v, info);
}
__device__ void dct_fft2d_inv_store_f64(void* out, unsigned long long offset, cufftDoubleReal v, void* info, void*) {
  inv_store<double, cufftDoubleComplex>(out, offset, v, info);
}
