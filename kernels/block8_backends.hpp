#pragma once
// Factories for the CUDA 8x8 block backends and the GPU compressors. Plain C++ (no CUDA types) so
// app/registry.cpp can include it; compiled in only when DCTOOL_HAVE_CUDA is defined.
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/compress.hpp"

namespace dct::cuda {

// "cuda-8x8" (separable Feig-Linzer butterflies, 32 blocks per CTA) and "cuda-8x8-def" (seed 001 kernel 1).
std::vector<std::unique_ptr<core::Backend>> make_block8_backends();
// "cuda-jpeg-fused": jpeg mode in one kernel (8-bit in, 8-bit out); supports() is false without a device.
std::unique_ptr<core::Compressor> make_fused_jpeg_compressor();
// "cuda-compress-whole": threshold and keep modes (whole-image DCT, GPU selection, fused keep rule in the
// inverse; kernels/compress_whole.cu); supports() is false without a device and for the other modes.
std::unique_ptr<core::Compressor> make_whole_compressor();

}  // namespace dct::cuda
