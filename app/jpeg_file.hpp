#pragma once
// JPEG files through libjpeg-turbo: a baseline JFIF file written from dctool's own quantized coefficients
// (jpeg_write_coefficients; no re-transform, no re-quantization), and the decode of such a file with the float
// IDCT (djpeg -dct float) for the PSNR a standard decoder gives.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/compress.hpp"
#include "core/formats.hpp"
#include "core/tensor.hpp"

namespace dct::app {

// Whether `path` ends in .jpg or .jpeg (case-insensitive).
bool is_jpeg_path(const std::string& path);

// The JFIF file of `q` (1 plane: gray; 3: YCbCr 4:4:4, or 4:2:0 with sampling factors 2x2, 1x1, 1x1) for an image
// of height x width pixels, its quantization tables core::quant_table(q.quality, chroma) written in the file;
// `optimize`: optimized Huffman tables (cjpeg -optimize), else the standard ones; `progressive`: libjpeg's
// simple progression (cjpeg -progressive; Huffman tables always optimized), the same coefficients. Throws
// dct::Error (kRuntime) naming `path`.
std::vector<unsigned char> encode_jpeg(const core::QuantizedCoefficients& q, std::int64_t height, std::int64_t width,
                                       bool optimize, const std::string& path, bool progressive = false);

// A JFIF file of an image's 8-bit samples (interleaved, 1 to 4 components; alpha is not stored: gray stays one
// component, RGB(A) is YCbCr 4:4:4), libjpeg-turbo's tables at `quality` (the .jpg of an image written as it is).
// Throws dct::Error naming `path`.
std::vector<unsigned char> encode_jpeg_pixels(const unsigned char* pixels, std::int64_t height, std::int64_t width,
                                              int components, int quality, const std::string& path);

// Decodes a JPEG held in memory with libjpeg-turbo's float IDCT (JDCT_FLOAT, as djpeg -dct float) to a
// planar f32 tensor of 1 (gray) or 3 (RGB) channels. Throws dct::Error naming `path`. (Input images are decoded
// by decode_jpeg_image in app/image_decode.hpp, with libjpeg's default integer IDCT, as djpeg.)
core::HostTensor decode_jpeg(const std::vector<unsigned char>& file, const std::string& path);

// The quantized DCT coefficients stored in a JPEG file, dequantized (coefficient x its quantization step), without
// decoding: one plane per component (gray, or Y Cb Cr as stored), each of (8 ceil(H/8)) x (8 ceil(W/8)) values,
// block (i, j) at rows 8i..8i+7 and columns 8j..8j+7 with the vertical frequency along the rows: the layout of
// `dct2 --block 8 --norm ortho` of the level-shifted (-128) component planes padded to whole blocks. Files whose
// components are not all sampled alike (4:2:0, 4:2:2) are refused, as are CMYK and YCCK. Errors are kInput naming
// `name`.
core::HostTensor read_jpeg_coefficients(std::span<const unsigned char> file, const std::string& name,
                                        const core::ReadOptions& opt);

}  // namespace dct::app
