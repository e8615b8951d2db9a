#pragma once
// Factories for the CUDA DCT-IV backends (plain C++: app/registry.cpp includes it under DCTOOL_HAVE_CUDA):
//   cuda-dct4-fft     any N, rows / cols / both: N/2-point complex FFT (even N) or N-point real FFT (odd N)
//   cuda-dct4-sec4/8  seed 003's sectioned N = 17 algorithm, 4 or 8 threads per transform
//   cuda-dct4-direct  the classical O(N^2) definition (seed 003 eq. 1), the paper's baseline
#include <memory>
#include <vector>

#include "core/backend.hpp"

namespace dct::cuda {

// In auto-preference order (only cuda-dct4-fft is meant for auto; the others are named baselines).
std::vector<std::unique_ptr<core::Backend>> make_dct4_backends();

}  // namespace dct::cuda
