#pragma once
/* Parameters of the cuFFT LTO callbacks of cuda-fft2d (kernels/lto/fft2d_callbacks.cu, compiled to LTO-IR
   and linked into cuFFT's kernels at plan time; host side: kernels/fft2d_cb.cu). Plain data, shared by the
   host code and the callback translation unit. T: float or double; C: its complex type. */
template <class T, class C>
struct Fft2dCbInfo {
  const T* y;            // inverse: the coefficients being inverted (updated before every execution)
  const C* tw1;          // per-axis tables of dct_kernels.cu (AxisTables): twiddles W_k, k <= n/2
  const T* ia1;          //   and inverse input scales, k < n
  const C* tw2;
  const T* ia2;
  long long n1, n2;      // matrix shape (both >= 2)
  int small;             // 1: every offset fits in 32 bits (cheaper index arithmetic)
};
