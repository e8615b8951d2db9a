#pragma once
// What each capability folder gives the backend table (kernels/backends.cu): per algorithm, its support rule and its
// plan factory. make() is called only for supported descriptors, with the device selected.
#include <memory>

#include "core/backend.hpp"

namespace dct::cuda {

struct Algorithm {
  core::Support (*supports)(const core::TransformDesc&);
  std::unique_ptr<core::Plan> (*make)(const core::TransformDesc&);
};

// kernels/dct2d/
Algorithm fft2d_algorithm();         // cuda-fft2d
Algorithm fft2d_cufft_algorithm();   // cuda-fft2d-cufft
Algorithm fft2d_smooth_algorithm();  // cuda-fft2d-smooth
Algorithm fft2d_tiles_algorithm();   // cuda-fft2d-tiles
Algorithm rowcol_algorithm();        // cuda-rowcol
Algorithm lines_npoint_algorithm();  // cuda-1d-n
Algorithm lines_mirror2n_algorithm();
Algorithm lines_pad2n_algorithm();
Algorithm lines_zero4n_algorithm();
// kernels/block8/
Algorithm block8_algorithm(bool fast);  // cuda-8x8 (fast) and cuda-8x8-def
// kernels/dct4/
Algorithm dct4_small_algorithm();
Algorithm dct4_fft_algorithm();
Algorithm dct4_sections_algorithm(int sections);  // 4 or 8
Algorithm dct4_direct_algorithm();
// kernels/lot/
Algorithm lot_algorithm();
// kernels/r2r/
Algorithm r2r_algorithm();  // cuda-r2r

}  // namespace dct::cuda
