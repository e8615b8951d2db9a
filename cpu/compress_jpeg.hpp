#pragma once
// The stages of the CPU compressor's jpeg block loop (cpu/compress_cpu.cpp), each exact as its definition in
// core/compress.hpp and math/jpeg.hpp: the portable versions here and AVX2 ones (cpu/compress_avx2.cpp, chosen
// once where the CPU has AVX2) give the same bits. Rows of 8-bit samples are planar; blocks are 8x8 with row
// stride `stride`.
#include <cstdint>

namespace dct::cpu::jpeg {

struct Stages {
  // JFIF YCbCr samples of n pixels (math::jpeg::rgb_to_y/cb/cr) from f32 R, G, B holding integers 0..255.
  void (*ycc_row)(const float* r, const float* g, const float* b, std::int64_t n, std::uint8_t* y, std::uint8_t* cb,
                  std::uint8_t* cr);
  // One block: samples − 128, the forward transform and quantization (math::jpeg::forward_quantize) into q, then
  // q·Q, cpu-8x8-flmad's inverse, + 128 rounded half to even and clamped to 0..255 into `to`. Returns the mask of
  // the nonzero q (bit k: q[k] != 0).
  std::uint64_t (*block)(const std::uint8_t* from, std::int64_t from_stride, const float* scale, const float* qt,
                         std::int16_t* q, std::uint8_t* to, std::int64_t to_stride);
  // R, G, B of n pixels (core::ycc_to_rgb) as f32; `half`: the chroma rows are 4:2:0's, each sample repeated for
  // two pixels.
  void (*rgb_row)(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half,
                  float* r, float* g, float* b);
  // `block` of two horizontally adjacent blocks (the second at from + 8, its q at q + 64, its samples at to + 8);
  // nonzero[k] is block k's mask.
  void (*block2)(const std::uint8_t* from, std::int64_t from_stride, const float* scale, const float* qt,
                 std::int16_t* q, std::uint8_t* to, std::int64_t to_stride, std::uint64_t (&nonzero)[2]);
  // ycc_row from n interleaved 8-bit R, G, B pixels.
  void (*ycc_row8)(const std::uint8_t* rgb, std::int64_t n, std::uint8_t* y, std::uint8_t* cb, std::uint8_t* cr);
  // The sum over n pixels and their three channels of (rgb_row's R, G, B − the interleaved 8-bit `rgb`)^2, exactly.
  std::int64_t (*rgb_sse_row8)(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n,
                               bool half, const std::uint8_t* rgb);
  // rgb_row's R, G, B as 8-bit samples (the report's reconstruction planes).
  void (*rgb_row8)(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half,
                   std::uint8_t* r, std::uint8_t* g, std::uint8_t* b);
};

const Stages& portable_stages();
const Stages& avx2_stages();    // only where the CPU has AVX2
const Stages& avx512_stages();  // AVX2's with an AVX-512 block2; only where the CPU has AVX-512 F, BW, DQ and VL
const Stages& stages();         // the widest of these the CPU has

}  // namespace dct::cpu::jpeg
