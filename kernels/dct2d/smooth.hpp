#pragma once
// N-point DCT-II / DCT-III of lines of any smooth length (2^a 3^b 5^c 7^d 11^e 13^f) along rows or down columns, one
// kernel per call with the reorder and the pre/postprocess folded in (kernels/dct2d/smooth.cuh derives the math;
// kernels/dct2d/smooth.cu launches), and the 2-D transform of batches of small matrices in one kernel
// (kernels/dct2d/smooth_tiles.cuh). Internal to kernels/: the 2-D smooth and tiles routes of cuda-fft2d-smooth and
// cuda-fft2d, and cuda-r2r's smooth line steps.
#include <array>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "core/types.hpp"
#include "kernels/common/plan.cuh"

namespace dct::cuda {

// The kernel of kernels/dct2d/smooth.cuh compiled for length n (smooth::CompiledLengths), or nullptr
// (kernels/dct2d/smooth_compiled_f32.cu, _f64.cu).
template <class T>
const void* smooth_compiled_kernel(std::int64_t n, bool cols, bool inverse);
template <>
const void* smooth_compiled_kernel<float>(std::int64_t n, bool cols, bool inverse);
template <>
const void* smooth_compiled_kernel<double>(std::int64_t n, bool cols, bool inverse);

// One axis' device tables for the smooth kernels: the norm's factors and the DCT twiddles (AxisTableBuffers, times
// `scale`), the FFT's twiddles and its passes (smooth::Pass, npass of them) of length fft_len (0: n; Bluestein's
// length where the line's FFT is taken by Bluestein's).
template <class T>
struct SmoothAxisBuffers {
  SmoothAxisBuffers(std::int64_t n, core::Norm norm, double scale, std::int64_t fft_len = 0);
  int npass = 0;  // before passes: its initializer sets it
  AxisTableBuffers<T> tables;
  DeviceBuffer fft_tw, passes;
};

template <class T>
class SmoothLines {
 public:
  // n smooth, and its lines fit a CTA's shared memory in this layout (f32: n <= 13,673; f64: n <= 6,456); or n with a
  // prime factor above 13 where Bluestein's FFT pays (smooth::bluestein_pays) and its length L fits (f32: n <= 6,823;
  // f64: n <= 3,217).
  static bool supports(std::int64_t n, bool along_cols);
  // n's largest prime factor where supports(n, along_cols) through Bluestein's FFT (n not smooth), else 0.
  static std::int64_t bluestein(std::int64_t n, bool along_cols);
  // supports(n, along_cols), with a kernel compiled for n (smooth::CompiledLengths).
  static bool compiled(std::int64_t n, bool along_cols);
  // The FFT passes of a line of n points (radix 8 while 8 divides, then 4 or 2, 3, 5, 7, 11, 13); 0 if n is not smooth.
  static int passes(std::int64_t n);
  // The plan of one axis (DCT-II, or its inverse DCT-III with `inverse`; with `dst`, DST-II or DST-III) in `norm`,
  // times `scale` (on the forward output, or the inverse input: AxisTableBuffers); throws kUsage if !supports.
  SmoothLines(std::int64_t n, core::Norm norm, bool along_cols, bool inverse, double scale = 1.0, bool dst = false);
  // Rows: `count` lines of n contiguous elements. Columns: `count` matrices of n rows x `width` columns, the lines
  // their columns. in == out is allowed.
  void run(const T* in, T* out, std::int64_t count, std::int64_t width, cudaStream_t s) const;

 private:
  // One launch shape: the kernel, P complex lines per CTA (columns: kc / 2), threads, shared memory, kC.
  struct Shape {
    const void* fn = nullptr;
    int pairs = 0, threads = 0, smem = 0, kc = 1;
  };
  // The shape of a launch of `count` lines (columns: matrices of `width`): config()'s, or for the run-time kernel
  // the narrowest where config()'s grid would leave SMs idle (kNarrowBelowWave, docs/decisions.md §10).
  const Shape& pick(std::int64_t count, std::int64_t width) const;
  // CTAs of a launch in shape `sh`.
  std::int64_t ctas(const Shape& sh, std::int64_t count, std::int64_t width) const;

  std::int64_t n_;
  bool cols_, inverse_, dst_;
  std::int64_t bl_;  // Bluestein's FFT length, or 0
  SmoothAxisBuffers<T> axis_;
  DeviceBuffer chirp_, bfft_;  // Bluestein's chirp and B (smooth::bluestein_tables) where bl_ > 0
  std::vector<Shape> shapes_;  // config()'s (compiled where smooth::CompiledLengths has n), then the narrowest
  int sms_ = 1;
};

// DCT-II (or DST-II; inverse: DCT-III / DST-III) down the columns of `count` matrices of n rows x `width`, n smooth and
// too long for SmoothLines' columns kernel to take a wide tile (kernels/dct2d/smooth_cols4.cuh: two kernels, a
// four-step split of the FFT, 128-byte row segments), through a workspace of work_elems() complex values. in == out is
// allowed.
template <class T>
class SmoothCols4 {
 public:
  // n = na·nb smooth (2 <= na <= nb) and both passes fit a CTA: f32 up to about 1.6e6 rows, f64 8e5.
  static bool supports(std::int64_t n);
  // supports(n), and SmoothLines' columns kernel does not take n, or takes it one pair of columns per CTA with no
  // kernel compiled for n: the columns stage of cuda-fft2d's smooth route (docs/decisions.md §10).
  static bool wanted(std::int64_t n);
  static std::int64_t work_elems(std::int64_t n, std::int64_t width, std::int64_t count) {
    return n * ((width + 1) / 2) * count;
  }
  SmoothCols4(std::int64_t n, core::Norm norm, bool inverse, double scale = 1.0, bool dst = false);
  void run(const T* in, T* out, cx_t<T>* work, std::int64_t count, std::int64_t width, cudaStream_t s) const;

 private:
  std::int64_t n_;
  bool inverse_, dst_;
  int na_ = 0, nb_ = 0, groups_ = 1, threads_a_ = 0, threads_b_ = 0, smem_a_ = 0, smem_b_ = 0;
  int npass_a_ = 0, npass_b_ = 0;
  AxisTableBuffers<T> tables_;
  DeviceBuffer wn_, tw_a_, passes_a_, tw_b_, passes_b_;
};

// Whether cuda-fft2d's smooth route takes columns of n rows (SmoothLines or SmoothCols4).
template <class T>
bool smooth_columns_supported(std::int64_t n);

// The 2-D DCT-II (or its inverse) of `count` contiguous matrices of h x w, each held whole by one CTA
// (kernels/dct2d/smooth_tiles.cuh): one read and one write of the data. dst: kFlipAxis0 / kFlipAxis1 mask of the axes
// computed as DST-II (DST-III inverse); scale: a factor per axis (rows h, columns w) as ThreeStage2d's.
template <class T>
class SmoothTiles {
 public:
  // h and w smooth, and both buffers of a matrix fit one CTA (f32: h·w up to about 28,000; f64 about 14,000).
  static bool supports(std::int64_t h, std::int64_t w);
  // supports(h, w), with a kernel compiled for h x w (smooth::CompiledTiles).
  static bool compiled(std::int64_t h, std::int64_t w);
  SmoothTiles(std::int64_t h, std::int64_t w, core::Norm norm, bool inverse, unsigned dst = 0,
              std::array<double, 2> scale = {1.0, 1.0});
  void run(const T* in, T* out, std::int64_t count, cudaStream_t s) const;

 private:
  std::int64_t h_, w_;
  bool inverse_;
  unsigned dst_;
  SmoothAxisBuffers<T> rows_, cols_;  // rows: length w; cols: length h
  int threads_ = 0, smem_ = 0;
  const void* fn_ = nullptr;  // smooth_tiles_ct for the shape where compiled, else smooth_tiles
};

}  // namespace dct::cuda
