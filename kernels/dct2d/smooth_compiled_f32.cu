/* The f32 kernels of kernels/dct2d/smooth.cuh compiled for the lengths of smooth::CompiledLengths (smooth_lines_ct),
   looked up by kernels/dct2d/smooth.cu. */
#include "kernels/dct2d/smooth.cuh"
#include "kernels/dct2d/smooth.hpp"

namespace dct::cuda {

template <>
const void* smooth_compiled_kernel<float>(std::int64_t n, bool cols, bool inverse) {
  return smooth::compiled_kernel<float>(n, cols, inverse);
}

}  // namespace dct::cuda
