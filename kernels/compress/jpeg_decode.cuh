#pragma once
/* cuda-jpeg-fused's decoder of a JPEG input's coefficients (core::JpegCoefficients8): the samples libjpeg-turbo
   decodes from the file, bit for bit (math/jpeg_decode.hpp), so that the host does only the entropy decoding:
   - decode_block, one thread per 8x8 block of a component: the islow inverse DCT into the component's sample plane
     (blocks_wide·8 bytes a row); a block outside the range where libjpeg-turbo's SIMD code is known to agree with
     its C code sets *bad (the caller then has libjpeg-turbo decode the file);
   - decode_pixel, one thread per pixel: gray as is, or Y with Cb and Cr fancy-upsampled (4:2:2, 4:2:0) to R, G, B
     by libjpeg's tables, into the interleaved 8-bit samples the coefficient kernels (jpeg_coef.cuh) read.
   Plain CUDA that the host emulator (tests/emulate/emulate_jpeg.cpp) compiles as host C++. */
#include <algorithm>
#include <cstdint>

#include "core/formats.hpp"
#include "math/jpeg.hpp"
#include "math/jpeg_decode.hpp"

namespace dct::cuda::jpeg_decode {

constexpr int kThreads = 128;

struct Params {
  const std::int16_t* coef[3];  // per component: its blocks, 64 values each (natural order), raster order
  unsigned short q[3][64];      // per component: its quantization table, natural order
  unsigned char* plane[3];      // per component: its decoded samples, 8 bw[c] bytes a row, 8 bh[c] rows
  long long bw[3], bh[3];       // per component: blocks a row, rows of blocks
  unsigned char* out;           // h x w pixels of `components` bytes (gray; R, G, B)
  int h, w, components;         // components: 1 or 3
  int h_factor, v_factor;       // the luma's sampling factors (chroma 1x1)
};

// The parameters of `j`: its coefficients (j.coef()'s layout) at `coef`, its components' samples into `planes` (one
// byte per coefficient, at the coefficients' offsets), the pixels into `out`.
inline Params params_for(const core::JpegCoefficients8& j, const std::int16_t* coef, unsigned char* planes,
                         unsigned char* out) {
  Params p{};
  p.h = static_cast<int>(j.rows);
  p.w = static_cast<int>(j.cols);
  p.components = j.components;
  p.h_factor = j.h_factor;
  p.v_factor = j.v_factor;
  p.out = out;
  for (int c = 0; c < j.components; ++c) {
    const core::JpegCoefficients8::Plane& jp = j.planes[static_cast<std::size_t>(c)];
    p.coef[c] = coef + jp.offset;
    p.plane[c] = planes + jp.offset;
    p.bw[c] = jp.blocks_wide;
    p.bh[c] = jp.blocks_high;
    std::copy(jp.q.begin(), jp.q.end(), p.q[c]);
  }
  return p;
}

__host__ __device__ inline long long total_blocks(const Params& p) {
  long long n = 0;
  for (int c = 0; c < p.components; ++c) n += p.bw[c] * p.bh[c];
  return n;
}

// Block `blk` (of total_blocks, component 0's first) into its component's plane; false where islow_idct is.
__host__ __device__ inline bool decode_block(const Params& p, long long blk) {
  int c = 0;
  while (c + 1 < p.components && blk >= p.bw[c] * p.bh[c]) blk -= p.bw[c] * p.bh[c], ++c;
  const long long by = blk / p.bw[c], bx = blk % p.bw[c], stride = 8 * p.bw[c];
  return math::jpeg::islow_idct(p.coef[c] + blk * 64, p.q[c], p.plane[c] + 8 * by * stride + 8 * bx, stride);
}

// Pixel (y, x) into p.out.
__host__ __device__ inline void decode_pixel(const Params& p, int y, int x) {
  const long long o = static_cast<long long>(y) * p.w + x;
  const int v = p.plane[0][y * 8 * p.bw[0] + x];
  if (p.components == 1) {
    p.out[o] = static_cast<unsigned char>(v);
    return;
  }
  const long long cs = 8 * p.bw[1];  // Cb's and Cr's row stride (both sampled 1x1)
  int cb, cr;
  if (p.h_factor == 1) {
    cb = p.plane[1][y * cs + x];
    cr = p.plane[2][y * cs + x];
  } else if (p.v_factor == 1) {
    const long long n = (p.w + 1) / 2;
    cb = math::jpeg::h2v1_fancy_at(p.plane[1] + y * cs, n, x);
    cr = math::jpeg::h2v1_fancy_at(p.plane[2] + y * cs, n, x);
  } else {
    const long long n = (p.w + 1) / 2, rows = (p.h + 1) / 2, cy = y / 2;
    const long long far = y % 2 == 0 ? (cy > 0 ? cy - 1 : 0) : (cy + 1 < rows ? cy + 1 : rows - 1);
    cb = math::jpeg::h2v2_fancy_at(p.plane[1] + cy * cs, p.plane[1] + far * cs, n, x);
    cr = math::jpeg::h2v2_fancy_at(p.plane[2] + cy * cs, p.plane[2] + far * cs, n, x);
  }
  int rgb[3];
  math::jpeg::ycc_to_rgb_islow(v, cb, cr, rgb);
  for (int k = 0; k < 3; ++k) p.out[3 * o + k] = static_cast<unsigned char>(rgb[k]);
}

}  // namespace dct::cuda::jpeg_decode
