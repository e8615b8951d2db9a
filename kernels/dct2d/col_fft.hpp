#pragma once
// Complex FFTs down the columns of a pitched complex matrix, in place, as a two-pass "four-step" FFT with the
// output rows PERMUTED (kernels/dct2d/col_fft.cuh derives the math; kernels/dct2d/col_fft.cu launches). Internal to
// kernels/: cuda-fft2d's column stage for n1 = 2048, 4096, 8192, 16384.
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/cuda_util.cuh"  // DeviceBuffer, DCT_CUDA_CHECK
#include "kernels/dct2d/prepost.cuh"     // cx_t<T>

namespace dct::cuda {

// N = n1 = na·nb (2048 = 64·32, 4096 = 64·64, 8192 = 64·128, 16384 = 128·128); frequency k lives in storage row
//   row_of(k) = (k >> lg_nb) + ((k & (nb-1)) << lg_na).
// Forward (unnormalized, W = e^{-2πi/N}): for b < batch, column c < w (P = pitch),
//   data[b·n1·P + row_of(k)·P + c] <- Σ_{n<N} data[b·n1·P + n·P + c] W^{nk}.
// Inverse (unnormalized, cuFFT C2C inverse), rows permuted in, natural out:
//   data[b·n1·P + n·P + c] <- Σ_{k<N} data[b·n1·P + row_of(k)·P + c] e^{+2πink/N}.
// Columns c >= w are neither read nor written.
template <class T>
class ColumnFft {
 public:
  static bool supports(std::int64_t n1);  // n1 in {2048 (64x32), 4096 (64x64), 8192 (64x128), 16384 (128x128)}
  // supports(n1), and the shape fits the kernels: w >= 1, pitch >= w, 1 <= batch <= 65535 (grid z),
  // n1·pitch < 2^31 (32-bit row offsets).
  static bool supports(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch);
  // Builds and uploads the twiddle table. Throws kUsage when !supports(n1, w, batch, pitch).
  ColumnFft(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch, bool inverse);
  void run(cx_t<T>* data, cudaStream_t s) const;  // both passes, in place

  // The column stage of cuda-fft2d's 2-D DCT with the post / preprocess fused into a pass (col_fft.cuh derives the
  // pairing): for real matrices of n2 columns (w = n2/2 + 1, n2 even), y n1 x n2, matrices n1·n2 apart.
  //   run_post (forward plans): pass A in place, then pass B fused with post_2d: data (the row stage's half
  //     spectrum, natural rows) -> y (DCT-II with t1, t2's forward scales); data is left after pass A.
  //   run_pre (inverse plans): pass B' fused with pre_2d (y with t1, t2's inverse scales -> data), then pass A':
  //     data ends as run() would leave it from pre_2d's output.
  // Same as post_2d / pre_2d with this plan's RowMap around run(), one pass over the spectrum fewer. At n1 = 2048 both
  // are ONE kernel (kernels/dct2d/col_fft_onepass.cuh: a CTA holds all rows of 8 (f32) / 4 (f64) columns in shared
  // memory; run_post then leaves data unchanged), except the f64 forward, where pass A + the fused pass B measured
  // faster (docs/decisions.md §1.1).
  static bool supports_fused(std::int64_t n1, std::int64_t n2, std::int64_t batch, std::int64_t pitch);
  void run_post(cx_t<T>* data, T* y, AxisTables<T> t1, AxisTables<T> t2, cudaStream_t s) const;
  void run_pre(const T* y, cx_t<T>* data, AxisTables<T> t1, AxisTables<T> t2, cudaStream_t s) const;
  int lg_na() const { return lg_na_; }
  int lg_nb() const { return lg_nb_; }

 private:
  using Fn = void (*)(cx_t<T>*, const cx_t<T>*, unsigned, unsigned, unsigned, unsigned, unsigned long long, unsigned,
                      unsigned);
  struct Pass {
    Fn fn = nullptr;
    int smem_bytes = 0;
    unsigned gs = 0, rs = 0, groups = 0, flags = 0;
  };
  void launch(const Pass& p, cx_t<T>* data, cudaStream_t s) const;
  dim3 fused_grid() const;
  dim3 onepass_grid() const;
  std::int64_t n1_ = 0, w_ = 0, batch_ = 0, pitch_ = 0;
  int lg_na_ = 0, lg_nb_ = 0;
  Pass pass_[2];
  bool inverse_ = false;
  const void* fused_fn_ = nullptr;  // col_fft_post<T, na> / col_fft_pre<T, na>, or col_fft1_post / col_fft1_pre<T, C>
  int onepass_c_ = 0;               // C of the one-pass kernels (n1 = 2048), 0: the two-kernel route
  int onepass_bytes_ = 0;           // their dynamic shared memory
  int fused_tile_ = 16;             // columns per CTA of the fused kernel (forward 32, inverse 16)
  int fused_groups_ = 1;            // groups per thread of the fused kernel (forward 1, inverse 2)
  int fused_bytes_ = 0;             // their dynamic shared memory
  DeviceBuffer tw_;
};

}  // namespace dct::cuda
