/* SmoothLines: launchers of the smooth-size line DCT kernels of kernels/dct2d/smooth.cuh (the math is derived there):
   the kernel compiled for the length where smooth::CompiledLengths has it, else the run-time one.
   The FFT twiddles are built in long double at construction (smooth::fft_twiddles, shared with
   tests/emulate/emulate_smooth.cpp) and uploaded once with the axis tables (gain 2: each axis is a 1-D DCT-II). */
#include "kernels/dct2d/smooth.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct2d/smooth.cuh"

namespace dct::cuda {
namespace {

template <class T, bool kCols, bool kInverse>
const void* kernel_for(int kc) {
  if constexpr (!kCols) {
    return reinterpret_cast<const void*>(&smooth::smooth_lines<T, false, kInverse, 1>);
  } else {
    switch (kc) {
      case 16:
        return reinterpret_cast<const void*>(&smooth::smooth_lines<T, true, kInverse, 16>);
      case 8:
        return reinterpret_cast<const void*>(&smooth::smooth_lines<T, true, kInverse, 8>);
      case 4:
        return reinterpret_cast<const void*>(&smooth::smooth_lines<T, true, kInverse, 4>);
      default:
        return reinterpret_cast<const void*>(&smooth::smooth_lines<T, true, kInverse, 2>);
    }
  }
}

}  // namespace

template <class T>
bool SmoothLines<T>::supports(std::int64_t n, bool along_cols) {
  std::vector<smooth::Pass> passes;
  return n >= 1 && n < (std::int64_t{1} << 24) && smooth::plan_passes(n, passes) &&
         smooth::config<T>(n, along_cols).pairs > 0;
}

template <class T>
bool SmoothLines<T>::compiled(std::int64_t n, bool along_cols) {
  return supports(n, along_cols) && smooth::compiled(n);
}

template <class T>
SmoothLines<T>::SmoothLines(std::int64_t n, core::Norm norm, bool along_cols, bool inverse, double scale)
    : n_(n), cols_(along_cols), inverse_(inverse), tables_(n, norm, 2.0, scale) {
  if (!supports(n, along_cols))
    throw Error(ErrorCode::kUsage, "smooth lines", "unsupported line length " + std::to_string(n));
  std::vector<smooth::Pass> passes;
  smooth::plan_passes(n, passes);
  passes_ = DeviceBuffer(sizeof(smooth::Pass) * passes.size() + 1);
  if (!passes.empty())
    DCT_CUDA_CHECK(
        cudaMemcpy(passes_.get(), passes.data(), sizeof(smooth::Pass) * passes.size(), cudaMemcpyHostToDevice));
  npass_ = static_cast<int>(passes.size());
  const smooth::Config c = smooth::config<T>(n, along_cols);
  pairs_ = c.pairs;
  threads_ = c.threads;
  smem_ = c.smem_bytes;
  kc_ = c.kc;
  fn_ = smooth_compiled_kernel<T>(n, along_cols, inverse);  // the same launch shape (config())
  if (fn_ == nullptr)
    fn_ = along_cols ? (inverse ? kernel_for<T, true, true>(kc_) : kernel_for<T, true, false>(kc_))
                     : (inverse ? kernel_for<T, false, true>(kc_) : kernel_for<T, false, false>(kc_));
  const std::vector<cx_t<T>> tw = smooth::fft_twiddles<T>(n);
  fft_tw_ = DeviceBuffer(sizeof(cx_t<T>) * tw.size());
  DCT_CUDA_CHECK(cudaMemcpy(fft_tw_.get(), tw.data(), fft_tw_.bytes(), cudaMemcpyHostToDevice));
  // The attribute is the kernel's, shared by every plan that launches it: the largest any plan may ask for.
  if (smem_ > 48 * 1024)
    DCT_CUDA_CHECK(cudaFuncSetAttribute(fn_, cudaFuncAttributeMaxDynamicSharedMemorySize, smooth::kMaxSmem));
}

template <class T>
void SmoothLines<T>::run(const T* in, T* out, std::int64_t count, std::int64_t width, cudaStream_t s) const {
  smooth::Args<T> a;
  a.n = static_cast<int>(n_);
  a.npass = npass_;
  a.passes = passes_.as<const smooth::Pass>();
  a.dn = smooth::FastDiv(static_cast<unsigned>(n_));
  a.in = in;
  a.out = out;
  a.fft_tw = fft_tw_.as<const cx_t<T>>();
  const AxisTables<T> t = tables_.view();
  a.tw = t.tw;
  a.fs = t.fs;
  a.ia = t.ia;
  a.pairs = pairs_;
  std::int64_t ctas;
  if (cols_) {
    a.width = static_cast<int>(width);
    a.n_tiles = static_cast<int>((width + kc_ - 1) / kc_);
    ctas = a.n_tiles * count;
  } else {
    a.lines = count;
    ctas = (count + 2 * pairs_ - 1) / (2 * pairs_);
  }
  if (ctas < 1) return;
  if (ctas >= (std::int64_t{1} << 31) || (cols_ && width >= (std::int64_t{1} << 31)))
    throw Error(ErrorCode::kUsage, "smooth lines", "too many lines for one launch");
  void* args[] = {&a};
  DCT_CUDA_CHECK(cudaLaunchKernel(fn_, dim3(static_cast<unsigned>(ctas)), dim3(static_cast<unsigned>(threads_)), args,
                                  static_cast<std::size_t>(smem_), s));
}

template class SmoothLines<float>;
template class SmoothLines<double>;

}  // namespace dct::cuda
