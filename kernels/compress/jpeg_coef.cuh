#pragma once
/* cuda-jpeg-fused's coefficient kernels: the quantized coefficients of jpeg mode for a .jpg output
   (core::CompressRequest::keep_coefficients), bit-identical to the CPU compressor's, and the squared error of the
   image a decoder makes of them, equal to the CPU compressor's in-loop error. The tensor-core kernel
   (jpeg_fused_tc.cuh) rounds its products to f16, so a few q differ from the CPU's by one; these kernels evaluate
   math::jpeg's exact arithmetic instead (the colour conversion in double, 4:2:0's h2v2 box average, the
   Feig-Linzer graphs and the quantizer as single rounded f32 operations, never contracted):
   - code_block, one thread per 8x8 block of a coded plane: q as int16 (blocks in raster order, natural order
     inside), and where asked the block's reconstruction as the CPU's block stage makes it (q·Q·S, cpu-8x8-flmad's
     inverse, + 128 rounded half to even, clamped);
   - pixel_error, one thread per pixel: the reconstructed planes back to R, G, B (4:2:0's chroma by libjpeg's h2v2
     fancy upsampling, as djpeg) and the squared error against the input's coded channels.
   Plain CUDA that the host emulator (tests/emulate/emulate_jpeg.cpp) compiles as host C++ with -ffp-contract=off. */
#include <cstdint>

#include "math/jpeg.hpp"

namespace dct::cuda::jpeg_coef {

constexpr int kThreads = 128;

struct Params {
  const unsigned char* in;  // the image's channels: planar, h x w bytes each; or `interleaved` bytes per pixel
  int interleaved;          // 0: planar; 1 (gray) or 3 (R, G, B): pixels of that many bytes
  std::int16_t* q[3];       // per coded plane: its blocks x 64 values
  unsigned char* rec[3];    // per coded plane, or null: its reconstructed samples, bw·8 (cbw·8) bytes a row
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
  if (p.planes == 1) return p.in[p.interleaved ? o * p.interleaved : o];
  const long long hw = static_cast<long long>(p.h) * p.w;
  const long long i = p.interleaved ? 3 * o : o, step = p.interleaved ? 1 : hw;
  const int r = p.in[i], g = p.in[i + step], b = p.in[i + 2 * step];
  return pl == 0   ? math::jpeg::rgb_to_y(r, g, b)
         : pl == 1 ? math::jpeg::rgb_to_cb(r, g, b)
                   : math::jpeg::rgb_to_cr(r, g, b);
}

// Blocks of all planes, plane 0's first.
__host__ __device__ inline long long total_blocks(const Params& p) {
  return static_cast<long long>(p.bh) * p.bw + (p.planes == 3 ? 2LL * p.cbh * p.cbw : 0LL);
}

// Block `blk` (of total_blocks) into its plane's q and `q`; its reconstruction into rec where asked. Returns the plane.
__host__ __device__ inline int code_block(const Params& p, long long blk, std::int16_t (&q)[64]) {
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
  const float(&qt)[64] = p.qt[pl > 0 ? 1 : 0];
  math::jpeg::forward_quantize(x, p.scale, qt, q);
  std::int16_t* dst = p.q[pl] + b * 64;
  for (int k = 0; k < 64; ++k) dst[k] = q[k];
  if (p.rec[pl] != nullptr) {
    using R = math::jpeg::Rn<float>;
    const math::block8::Consts4<R> c = math::jpeg::fl_consts();
    R v[64];
    for (int k = 0; k < 64; ++k) v[k] = R{static_cast<float>(q[k])} * R{qt[k]} * R{p.scale[k]};
    for (int j = 0; j < 8; ++j) {  // cpu-8x8-flmad's inverse: columns, then rows
      R col[8];
      for (int i = 0; i < 8; ++i) col[i] = v[8 * i + j];
      math::block8::fl_inverse(col, c);
      for (int i = 0; i < 8; ++i) v[8 * i + j] = col[i];
    }
    const long long stride = 8LL * bwp;
    unsigned char* out = p.rec[pl] + 8LL * by * stride + 8LL * bx;
    for (int i = 0; i < 8; ++i) {
      R row[8];
      for (int j = 0; j < 8; ++j) row[j] = v[8 * i + j];
      math::block8::fl_inverse(row, c);
      for (int j = 0; j < 8; ++j) {  // + 128 rounded half to even, clamped (the CPU's round_sample)
        const float r = rintf(row[j].v) + 128.f;
        out[i * stride + j] = static_cast<unsigned char>(r < 0.f ? 0.f : r > 255.f ? 255.f : r);
      }
    }
  }
  return pl;
}

// The squared error at pixel (y, x) summed over the coded channels: the reconstructed planes (rec, all set) as a
// decoder shows them (gray as is; Y, Cb, Cr to R, G, B by core::ycc_to_rgb, 4:2:0's chroma by libjpeg's h2v2
// fancy upsampling) against the input.
__host__ __device__ inline int pixel_error(const Params& p, int y, int x) {
  const long long xw = 8LL * p.bw;
  const int v0 = p.rec[0][y * xw + x];
  if (p.planes == 1) {
    const int d = v0 - sample_at(p, 0, y, x);
    return d * d;
  }
  int cb, cr;
  if (!p.s420) {
    cb = p.rec[1][y * xw + x];
    cr = p.rec[2][y * xw + x];
  } else {
    const long long cxw = 8LL * p.cbw, chr = (p.h + 1) / 2, cy = y / 2;
    const long long far = y % 2 == 0 ? (cy > 0 ? cy - 1 : 0) : (cy + 1 < chr ? cy + 1 : chr - 1);
    const long long n = (p.w + 1) / 2;
    cb = math::jpeg::h2v2_fancy_at(p.rec[1] + cy * cxw, p.rec[1] + far * cxw, n, x);
    cr = math::jpeg::h2v2_fancy_at(p.rec[2] + cy * cxw, p.rec[2] + far * cxw, n, x);
  }
  int rgb[3];
  math::jpeg::ycc_to_rgb8(v0, cb, cr, rgb);
  const long long o = static_cast<long long>(y) * p.w + x;
  const long long i = p.interleaved ? 3 * o : o, step = p.interleaved ? 1 : static_cast<long long>(p.h) * p.w;
  int e = 0;
  for (int c = 0; c < 3; ++c) {
    const int d = rgb[c] - p.in[i + c * step];
    e += d * d;
  }
  return e;
}

}  // namespace dct::cuda::jpeg_coef
