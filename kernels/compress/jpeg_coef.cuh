#pragma once
/* cuda-jpeg-fused's coefficient kernel: the quantized coefficients of jpeg mode for a .jpg output
   (core::CompressRequest::keep_coefficients), bit-identical to the CPU compressor's. The tensor-core kernel
   (jpeg_fused_tc.cuh) rounds its products to f16, so a few q differ from the CPU's by one; this kernel evaluates
   math::jpeg's exact coefficient arithmetic instead (the colour conversion in double, 4:2:0's h2v2 box average,
   the Feig-Linzer graphs and the quantizer as single rounded f32 operations, never contracted), one thread per
   8x8 block of a coded plane, and stores q as int16 (blocks in raster order, natural order inside). It codes only
   the forward half: the caller decodes the file for the reconstruction. Plain CUDA that the host emulator
   (tests/emulate/emulate_jpeg.cpp) compiles as host C++ with -ffp-contract=off. */
#include <cstdint>

#include "math/jpeg.hpp"

namespace dct::cuda::jpeg_coef {

constexpr int kThreads = 128;

struct Params {
  const unsigned char* in;  // the image's channels, planar, h x w bytes each
  std::int16_t* q[3];       // per coded plane: its blocks x 64 values
  int h, w, planes;         // planes: 1 (gray) or 3 (Y, Cb, Cr from R, G, B)
  int bh, bw, cbh, cbw;     // blocks of plane 0 and of planes 1, 2
  int s420;                 // 4:2:0: planes 1 and 2 downsampled 2x2
  float scale[64];          // math::jpeg::fl_scale_table
  float qt[2][64];          // luminance, chrominance Q
};

// The 8-bit sample of plane pl at (y, x) of the image edge-replicated past its last row and column.
__host__ __device__ inline int sample_at(const Params& p, int pl, int y, int x) {
  y = y < p.h - 1 ? y : p.h - 1;
  x = x < p.w - 1 ? x : p.w - 1;
  const long long o = static_cast<long long>(y) * p.w + x;
  if (p.planes == 1) return p.in[o];
  const long long hw = static_cast<long long>(p.h) * p.w;
  const int r = p.in[o], g = p.in[hw + o], b = p.in[2 * hw + o];
  return pl == 0   ? math::jpeg::rgb_to_y(r, g, b)
         : pl == 1 ? math::jpeg::rgb_to_cb(r, g, b)
                   : math::jpeg::rgb_to_cr(r, g, b);
}

// Blocks of all planes, plane 0's first.
__host__ __device__ inline long long total_blocks(const Params& p) {
  return static_cast<long long>(p.bh) * p.bw + (p.planes == 3 ? 2LL * p.cbh * p.cbw : 0LL);
}

// Block `blk` (of total_blocks) into its plane's q.
__host__ __device__ inline void code_block(const Params& p, long long blk) {
  const long long n0 = static_cast<long long>(p.bh) * p.bw, nc = static_cast<long long>(p.cbh) * p.cbw;
  int pl = 0;
  long long b = blk;
  if (b >= n0) {
    b -= n0;
    pl = b >= nc ? 2 : 1;
    if (b >= nc) b -= nc;
  }
  const int bwp = pl == 0 ? p.bw : p.cbw;
  const int by = static_cast<int>(b / bwp), bx = static_cast<int>(b % bwp);
  float x[64];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const int yy = 8 * by + i, xx = 8 * bx + j;
      int s;
      if (pl == 0 || !p.s420) {
        s = sample_at(p, pl, yy, xx);
      } else {
        s = math::jpeg::h2v2_sample(sample_at(p, pl, 2 * yy, 2 * xx), sample_at(p, pl, 2 * yy, 2 * xx + 1),
                                    sample_at(p, pl, 2 * yy + 1, 2 * xx), sample_at(p, pl, 2 * yy + 1, 2 * xx + 1), xx);
      }
      x[8 * i + j] = static_cast<float>(s) - 128.f;
    }
  std::int16_t q[64];
  math::jpeg::forward_quantize(x, p.scale, p.qt[pl > 0 ? 1 : 0], q);
  std::int16_t* dst = p.q[pl] + b * 64;
  for (int k = 0; k < 64; ++k) dst[k] = q[k];
}

}  // namespace dct::cuda::jpeg_coef
