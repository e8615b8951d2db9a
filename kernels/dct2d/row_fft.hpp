#pragma once
// Row real FFTs of the reordered matrix ([1] eq. 13) with the reorder folded into the kernels' own
// global loads and stores (kernels/dct2d/row_fft.cuh derives the math; kernels/dct2d/row_fft.cu launches). Internal to
// kernels/: cuda-fft2d's "row R2C -> column C2C -> post_2d" route and its inverse.
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/cuda_util.cuh"  // DeviceBuffer, DCT_CUDA / DCT_LAUNCH checks
#include "kernels/dct2d/prepost.cuh"     // cx_t<T>

namespace dct::cuda {

// nat(m, n): natural index of reordered position m (eq. 13): 2m for m < (n+1)/2, else 2(n-m)-1.
// Row real FFTs of the reordered matrix with the reorder folded into the kernels' own global loads/stores.
template <class T>
class RfftRows {
 public:
  static bool supports(std::int64_t n2);  // powers of two, 16 <= n2 <= 8192
  // Builds and uploads the twiddle table, sets the kernels' shared-memory attribute. Throws kUsage when
  // !supports(n2), n1 < 1, batch < 1, batch·n1 >= 2^31 or a pitch below n2/2+1.
  // pitch: complex elements between consecutive rows of V (<= 0: n2/2+1).
  RfftRows(std::int64_t n1, std::int64_t n2, std::int64_t batch, std::int64_t pitch = 0);
  // Forward, for b < batch, r < n1, k = 0..n2/2 (P = pitch):
  //   V[(b*n1 + r)*P + k] = sum_{c<n2} x[b*n1*n2 + nat(r,n1)*n2 + nat(c,n2)] * exp(-2*pi*i*c*k/n2)
  // sign: the DST's mask (math/dct2d.hpp): x[.. row a, column b] read as −x where (a odd and bit 0)
  // xor (b odd and bit 1).
  void forward(const T* x, cx_t<T>* V, cudaStream_t s, unsigned sign = 0) const;
  // Inverse (cuFFT C2R semantics, unnormalized; Im V(r,0) and Im V(r,n2/2) ignored; V not modified):
  //   x[b*n1*n2 + nat(r,n1)*n2 + nat(c,n2)] = sum_{k<n2} Vh(r,k) exp(+2*pi*i*c*k/n2),
  //   Vh(r,k) = V(r,k) for k <= n2/2, conj V(r,n2-k) for k > n2/2.
  // sign: as forward's, on the values written.
  void inverse(const cx_t<T>* V, T* x, cudaStream_t s, unsigned sign = 0) const;

 private:
  using FwdFn = void (*)(const T*, cx_t<T>*, const cx_t<T>*, unsigned, unsigned, unsigned, unsigned);
  using InvFn = void (*)(const cx_t<T>*, T*, const cx_t<T>*, unsigned, unsigned, unsigned, unsigned);
  std::int64_t n1_ = 0, n2_ = 0, batch_ = 0, pitch_ = 0;
  DeviceBuffer tw_;
  FwdFn fwd_ = nullptr;
  InvFn inv_ = nullptr;
  int threads_ = 0, smem_bytes_ = 0;
  unsigned blocks_ = 0;
};

}  // namespace dct::cuda
