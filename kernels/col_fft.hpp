#pragma once
// Complex FFTs down the columns of a pitched complex matrix, in place, as a two-pass "four-step" FFT with the
// output rows PERMUTED (kernels/col_fft.cuh derives the math; kernels/col_fft.cu launches). Internal to
// kernels/: cuda-fft2d's column stage for n1 = 4096, 8192, 16384.
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/cuda_util.cuh"    // DeviceBuffer, DCT_CUDA_CHECK
#include "kernels/dct_kernels.cuh"  // cx_t<T>

namespace dct::cuda {

// N = n1 = na·nb (4096 = 64·64, 8192 = 64·128, 16384 = 128·128); frequency k lives in storage row
//   row_of(k) = (k >> lg_nb) + ((k & (nb-1)) << lg_na).
// Forward (unnormalized, W = e^{-2πi/N}): for b < batch, column c < w (P = pitch),
//   data[b·n1·P + row_of(k)·P + c] <- Σ_{n<N} data[b·n1·P + n·P + c] W^{nk}.
// Inverse (unnormalized, cuFFT C2C inverse), rows permuted in, natural out:
//   data[b·n1·P + n·P + c] <- Σ_{k<N} data[b·n1·P + row_of(k)·P + c] e^{+2πink/N}.
// Columns c >= w are neither read nor written.
template <class T>
class ColumnFft {
 public:
  static bool supports(std::int64_t n1);  // n1 in {4096 (64x64), 8192 (64x128), 16384 (128x128)}
  // supports(n1), and the shape fits the kernels: w >= 1, pitch >= w, 1 <= batch <= 65535 (grid z),
  // n1·pitch < 2^31 (32-bit row offsets).
  static bool supports(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch);
  // Builds and uploads the twiddle table. Throws kUsage when !supports(n1, w, batch, pitch).
  ColumnFft(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch, bool inverse);
  void run(cx_t<T>* data, cudaStream_t s) const;  // both passes, in place
  int lg_na() const { return lg_na_; }
  int lg_nb() const { return lg_nb_; }

 private:
  using Fn = void (*)(cx_t<T>*, const cx_t<T>*, unsigned, unsigned, unsigned, unsigned, unsigned long long,
                      unsigned, unsigned);
  struct Pass {
    Fn fn = nullptr;
    int smem_bytes = 0;
    unsigned gs = 0, rs = 0, groups = 0, flags = 0;
  };
  std::int64_t n1_ = 0, w_ = 0, batch_ = 0, pitch_ = 0;
  int lg_na_ = 0, lg_nb_ = 0;
  Pass pass_[2];
  DeviceBuffer tw_;
};

}  // namespace dct::cuda
