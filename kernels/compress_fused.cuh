#pragma once
/* The device side of cuda-jpeg-fused (kernels/compress_fused.cu): DESIGN §4's jpeg mode on 8-bit planes, one
   thread per 8x8 block. Plain CUDA, written so that scripts/jpeg-emulate.sh can compile it as host C++ (it
   supplies the intrinsics) and compare it with the CPU compressor without a GPU.

   Why this shape: the kernel is instruction-issue bound (notes/block8.md), so the design minimises
   thread-instructions per pixel.
   - Thread = one 8x8 block, warp = 32 horizontally adjacent blocks (each row of a plane is one 8-byte load or
     store per thread, 256 contiguous bytes per warp). The block stays in 64 registers through the 2-D DCT,
     quantizer and inverse: no shared-memory column passes, no transposes. RGB: the chroma planes wait in
     thread-private shared slots (float4, conflict-free) while Y is coded, and the reconstructed Y and Cb wait
     there for the final colour conversion (2 slots, 512 bytes per thread).
   - Bytes in: one PRMT per sample makes the float 2^15 + b (exponent byte 0x47, the sample in mantissa byte 1).
     RGB -> YCbCr works on G and the exact differences R - G, B - G (Y = G + 0.299 (R-G) + 0.114 (B-G),
     Cb = 128 + 0.5 (B-G) - 0.1687 (R-G), Cr likewise): two FFMAs per component, FRND.FLOOR of x + 0.5.
     Y uses the integer 1000 Y + 500 (exact in f32) times fl(0.001) > 0.001, so exact ties round up as
     floor(x + 0.5) does; chroma ties occur only when R = G (Cb) or B = G (Cr), where the f32 value is exact.
   - DCT: the Feig-Linzer graphs (26 operations per 8 points both ways; the inverse's two r multiplies folded
     into its output FMAs), scales folded into the quantizer: q = rne(F · S/Q) by one FFMA with the magic
     M = 1.5·2^23 (the result is M + q, bits 0x4B400000 + q: the histogram's integer for free), then
     F' = ((M + q) − M) · Q S'/256 (FADD, FMUL). Exact arithmetic ties (F·S/Q = k + 1/2) exist only where F
     is a sum of samples: the coefficients (0,0), (0,4), (4,0), (4,4) (S = 1/8); those take the correctly
     rounded F/(8Q) (Markstein, as the CPU's f32 division) + 0.5 and round down, bit-exact with the CPU.
     Elsewhere round-to-nearest-even differs from floor(x + 0.5) only where f32 noise decides anyway.
   - Inverse: the 1/256 and the +128.5 of "+128, round" are folded into the dequantized DC, the last graph
     operation saturates (FADD.SAT/FFMA.SAT: clamps t/256 to [0, 1]), and FFMA.RM(u, 256, M) = M + floor(t);
     one FMNMX clamps 256 to 255. YCbCr -> RGB: FFMAs onto M + Y round to nearest (1.772 is rounded up to f32
     so that its exact ties (Cb - 128 = ±125) round as the CPU's double); the low 16 bits of M + n are n, so
     two PRMTs, two VIMNMX.S16x2.RELU (clamp 0..255) and one PRMT pack 4 samples.
   - Histogram of q for the entropy estimate: zeros are not counted on the device (the host takes
     coefficients - Σ nonzero bins). Per frequency band a 3-input OR of the q bits tells whether the block has
     a nonzero q there; only then is each q tested and sent to the CTA's shared histogram.
   Edges: W not a multiple of 8 takes byte loads with the column clamped and byte stores cropped; rows are
   clamped / cropped on every path (the padding of §4 repeats the last row/column). */
#include <algorithm>
#include <cstddef>

#include "core/compress.hpp"
#include "cpu/block8.hpp"

namespace dct::cuda::jpeg_fused {

constexpr int kThreads = 128;     // blocks per CTA (one 8 x 1024 strip segment)
constexpr int kBins = 4096;       // global q histogram over [−2048, 2047]
constexpr int kZeroBin = 2048;
constexpr int kSlotFloat4 = 16;   // one 8x8 float block as 16 float4
constexpr float kMagic = 12582912.f;  // 1.5 · 2^23: M + q has bits 0x4B400000 + q for |q| < 2^22
constexpr unsigned kMagicBits = 0x4B400000u;
constexpr unsigned kQMask = 0x3FFFFFu;  // q != 0  <=>  (bits(M + q) & kQMask) != 0
constexpr float kByteBase = 32768.f;     // __byte_perm(.., 0x47000000, ..) makes 2^15 + b

// The four coefficients whose F is a plain sum of samples (scale 1/8): exact ties are possible there.
__host__ __device__ constexpr int tie_slot(int k) {
  return k == 0 ? 0 : k == 4 ? 1 : k == 32 ? 2 : k == 36 ? 3 : -1;
}

struct Table {
  float fq[64];      // S_f / Q (tie coefficients: unused)
  float deq[64];     // Q · S_i / 256
  float tie_d[4];    // −8Q of the tie coefficients
  float tie_r[4];    // fl(1 / (8Q))
  float tie_c[4];    // fl(1/2 + 1/(16Q)): v5's two-operation form of the same rounding (quantize_lane)
  float qf[64];      // Q itself (v6: its quantizer works on the unscaled F' = 8F of the tensor-core DCT)
};

struct Params {
  const unsigned char* in;
  unsigned char* out;
  unsigned long long* hist;  // kBins bins, q = i − kZeroBin; the zero bin is not written
  int h, w, channels, blocks_x, ctas_x;
  int half_bins;             // the shared histogram covers q in [−half_bins, half_bins − 1]
  int strips;                // v5: 8-row strips of the padded image (H/8 rounded up)
  unsigned byte_exp;         // v5: 0x47000000 (byte_float's exponent byte, from a register rather than a MOV each)
  Table tab[2];              // luma, chroma
  const void* tc_setup;      // v6: 32 tc::LaneSetup (the lanes' MMA fragments and quantizer constants; device memory)
  int tc_chunk;              // v6: (column, strip) units per CTA
};

// The kernel's tables for one quality: Annex K tables scaled as libjpeg, the Feig-Linzer ortho scales.
inline void make_tables(int quality, Table (&tab)[2]) {
  const auto& a = cpu::block8::flmad_algorithm();
  for (int c = 0; c < 2; ++c) {
    const auto q = core::quant_table(quality, c == 1);
    for (int k = 0; k < 64; ++k) {
      const double sf = a.fwd_scale[k / 8] * a.fwd_scale[k % 8], si = a.inv_scale[k / 8] * a.inv_scale[k % 8];
      tab[c].fq[k] = static_cast<float>(sf / q[k]);
      tab[c].deq[k] = static_cast<float>(q[k] * si / 256.0);
      tab[c].qf[k] = static_cast<float>(q[k]);
      if (const int s = tie_slot(k); s >= 0) {  // sf = 1/8 there: F/(8Q), as the CPU's (F/8)/Q
        tab[c].tie_d[s] = static_cast<float>(-8 * q[k]);
        tab[c].tie_r[s] = static_cast<float>(1.0 / (8 * q[k]));
        tab[c].tie_c[s] = static_cast<float>(0.5 + 1.0 / (16 * q[k]));
      }
    }
  }
}

// Half the shared histogram's width: |F| <= 1024 for level-shifted 8-bit samples (Σ|basis| <= 8), so
// |q| <= 1024/Q + 1; a multiple of the CTA size, at most kZeroBin. No q can fall outside it (no clamp).
inline int half_bins_for(int quality) {
  int qmax = 0;
  for (int c = 0; c < 2; ++c)
    for (int q : core::quant_table(quality, c == 1)) qmax = std::max(qmax, 1024 / q + 2);
  return std::min((qmax + 1 + kThreads - 1) / kThreads * kThreads, kZeroBin);
}

__device__ __forceinline__ unsigned fbits(float f) { return __float_as_uint(f); }

// Byte k (0..7) of v as 2^15 + b: e is the exponent byte 0x47000000 (v5 passes it from a register, which saves
// a MOV of the selector per call; v3 lets it be an immediate).
__device__ __forceinline__ float byte_float(uint2 v, int k, unsigned e = 0x47000000u) {
  return __uint_as_float(__byte_perm(k < 4 ? v.x : v.y, e, 0x7404u | ((k & 3) << 4)));
}

// Four values M + n -> four bytes clamp(n, 0, 255).
__device__ __forceinline__ unsigned pack4(float a, float b, float c, float d) {
  const unsigned lo = __vimin_s16x2_relu(__byte_perm(fbits(a), fbits(b), 0x5410u), 0x00FF00FFu);
  const unsigned hi = __vimin_s16x2_relu(__byte_perm(fbits(c), fbits(d), 0x5410u), 0x00FF00FFu);
  return __byte_perm(lo, hi, 0x6420u);
}

// 8 bytes of a row at (y, x0) of a plane: one 8-byte load when rows are 8-byte aligned (W % 8 == 0), else
// bytes with the column clamped to the image (edge replication).
__device__ __forceinline__ uint2 load_row(const unsigned char* plane, int w, int y, int x0, bool vec) {
  const unsigned char* row = plane + static_cast<long long>(y) * w;
  if (vec) return __ldg(reinterpret_cast<const uint2*>(row + x0));
  unsigned b[2] = {0, 0};
#pragma unroll
  for (int k = 0; k < 8; ++k) b[k >> 2] |= static_cast<unsigned>(__ldg(row + min(x0 + k, w - 1))) << (8 * (k & 3));
  return make_uint2(b[0], b[1]);
}

__device__ __forceinline__ void store_row(unsigned char* plane, int w, int y, int x0, bool vec, uint2 v) {
  unsigned char* row = plane + static_cast<long long>(y) * w;
  if (vec) {
    *reinterpret_cast<uint2*>(row + x0) = v;
    return;
  }
#pragma unroll
  for (int k = 0; k < 8; ++k)
    if (x0 + k < w) row[x0 + k] = static_cast<unsigned char>((k < 4 ? v.x : v.y) >> (8 * (k & 3)));
}

// Feig-Linzer forward kernel K on x[o], x[o + s], ..., x[o + 7s] (block8.cuh's fl_forward, FMAs explicit).
template <int o, int s, int N>
__device__ __forceinline__ void fl_fwd8(float (&x)[N]) {
  constexpr float t1 = 0.19891236737965800691f, t2 = 0.41421356237309504880f, t3 = 0.66817863791929891999f;
  constexpr float r = 1.1795804271032746f;
  const float s0 = __fadd_rn(x[o], x[o + 7 * s]), s1 = __fadd_rn(x[o + s], x[o + 6 * s]);
  const float s2 = __fadd_rn(x[o + 2 * s], x[o + 5 * s]), s3 = __fadd_rn(x[o + 3 * s], x[o + 4 * s]);
  const float d0 = __fsub_rn(x[o], x[o + 7 * s]), d1 = __fsub_rn(x[o + s], x[o + 6 * s]);
  const float d2 = __fsub_rn(x[o + 2 * s], x[o + 5 * s]), d3 = __fsub_rn(x[o + 3 * s], x[o + 4 * s]);
  const float e0 = __fadd_rn(s0, s3), e2 = __fsub_rn(s0, s3), e1 = __fadd_rn(s1, s2), e3 = __fsub_rn(s1, s2);
  const float u4 = __fmaf_rn(t3, d0, d3), u7 = __fmaf_rn(-t3, d3, d0);
  const float u5 = __fmaf_rn(t1, d1, d2), u6 = __fmaf_rn(-t1, d2, d1);
  const float v4 = __fmaf_rn(r, u6, u4), v6 = __fmaf_rn(-r, u6, u4);
  const float v7 = __fmaf_rn(r, u5, u7), v5 = __fmaf_rn(-r, u5, u7);
  x[o] = __fadd_rn(e0, e1);
  x[o + s] = __fadd_rn(v7, v4);
  x[o + 2 * s] = __fmaf_rn(t2, e3, e2);
  x[o + 3 * s] = v5;
  x[o + 4 * s] = __fsub_rn(e0, e1);
  x[o + 5 * s] = v6;
  x[o + 6 * s] = __fmaf_rn(t2, e2, -e3);
  x[o + 7 * s] = __fsub_rn(v7, v4);
}

// K^T (block8.cuh's fl_inverse with u5 = r·u5', u6 = r·u6' and r moved into the output FMAs); kSat saturates
// the outputs to [0, 1] (FADD.SAT / FFMA.SAT).
template <int o, int s, bool kSat, int N>
__device__ __forceinline__ void fl_inv8(float (&x)[N]) {
  constexpr float t1 = 0.19891236737965800691f, t2 = 0.41421356237309504880f, t3 = 0.66817863791929891999f;
  constexpr float r = 1.1795804271032746f;
  const float a = __fadd_rn(x[o + s], x[o + 7 * s]), b = __fsub_rn(x[o + s], x[o + 7 * s]);
  const float u4 = __fadd_rn(b, x[o + 5 * s]), u6 = __fsub_rn(b, x[o + 5 * s]);
  const float u7 = __fadd_rn(a, x[o + 3 * s]), u5 = __fsub_rn(a, x[o + 3 * s]);
  const float d0 = __fmaf_rn(t3, u4, u7), d3 = __fmaf_rn(-t3, u7, u4);
  const float d1 = __fmaf_rn(t1, u5, u6), d2 = __fmaf_rn(-t1, u6, u5);
  const float e0 = __fadd_rn(x[o], x[o + 4 * s]), e1 = __fsub_rn(x[o], x[o + 4 * s]);
  const float e2 = __fmaf_rn(t2, x[o + 6 * s], x[o + 2 * s]), e3 = __fmaf_rn(t2, x[o + 2 * s], -x[o + 6 * s]);
  const float s0 = __fadd_rn(e0, e2), s3 = __fsub_rn(e0, e2), s1 = __fadd_rn(e1, e3), s2 = __fsub_rn(e1, e3);
  auto out = [](float v) { return kSat ? __saturatef(v) : v; };
  x[o] = out(__fadd_rn(s0, d0));
  x[o + s] = out(__fmaf_rn(r, d1, s1));
  x[o + 2 * s] = out(__fmaf_rn(r, d2, s2));
  x[o + 3 * s] = out(__fadd_rn(s3, d3));
  x[o + 4 * s] = out(__fsub_rn(s3, d3));
  x[o + 5 * s] = out(__fmaf_rn(-r, d2, s2));
  x[o + 6 * s] = out(__fmaf_rn(-r, d1, s1));
  x[o + 7 * s] = out(__fsub_rn(s0, d0));
}

template <int i>
__device__ __forceinline__ void fdct_rows_cols(float (&x)[64]) {
  if constexpr (i < 8) {
    fl_fwd8<8 * i, 1>(x);
    fdct_rows_cols<i + 1>(x);
  } else if constexpr (i < 16) {
    fl_fwd8<i - 8, 8>(x);
    fdct_rows_cols<i + 1>(x);
  }
}

// Columns, then rows with saturated outputs.
template <int i>
__device__ __forceinline__ void idct_cols_rows(float (&x)[64]) {
  if constexpr (i < 8) {
    fl_inv8<i, 8, false>(x);
    idct_cols_rows<i + 1>(x);
  } else if constexpr (i < 16) {
    fl_inv8<8 * (i - 8), 1, true>(x);
    idct_cols_rows<i + 1>(x);
  }
}

// Frequency band u + v of coefficient k.
__host__ __device__ constexpr int band(int k) { return k / 8 + k % 8; }

// Nonzero q of bands [lo, hi] into the shared histogram (hist indexed by q + half_bins).
template <int lo, int hi>
__device__ __forceinline__ void histogram_bands(const float (&x)[64], unsigned* hist, int half_bins) {
  unsigned any = 0;
#pragma unroll
  for (int k = 0; k < 64; ++k)
    if (band(k) >= lo && band(k) <= hi) any |= fbits(x[k]);
  if ((any & kQMask) == 0) return;
#pragma unroll
  for (int k = 0; k < 64; ++k)
    if (band(k) >= lo && band(k) <= hi) {
      const unsigned b = fbits(x[k]);
      if (b & kQMask) atomicAdd(&hist[static_cast<int>(b - kMagicBits) + half_bins], 1u);
    }
}

// Quantize (histogram of q), dequantize, with the +128.5 of the reconstruction folded into the DC. tb: in the
// kernel parameters (immediate operands).
__device__ __forceinline__ void quantize(const Table& tb, float (&x)[64], unsigned* hist, int half_bins) {
#pragma unroll
  for (int k = 0; k < 64; ++k) {
    const int s = tie_slot(k);
    if (s >= 0) {
      const float q0 = __fmul_rn(x[k], tb.tie_r[s]);
      const float q1 = __fmaf_rn(__fmaf_rn(tb.tie_d[s], q0, x[k]), tb.tie_r[s], q0);
      x[k] = __fadd_rd(__fadd_rn(q1, 0.5f), kMagic);
    } else {
      x[k] = __fmaf_rn(x[k], tb.fq[k], kMagic);
    }
  }
  histogram_bands<0, 1>(x, hist, half_bins);
  histogram_bands<2, 3>(x, hist, half_bins);
  histogram_bands<4, 5>(x, hist, half_bins);
  histogram_bands<6, 7>(x, hist, half_bins);
  histogram_bands<8, 14>(x, hist, half_bins);
  x[0] = __fmaf_rn(__fsub_rn(x[0], kMagic), tb.deq[0], 128.5f / 256.f);
#pragma unroll
  for (int k = 1; k < 64; ++k) x[k] = __fmul_rn(__fsub_rn(x[k], kMagic), tb.deq[k]);
}

// One plane of a block: forward DCT, quantizer, inverse; x ends as t/256 saturated (t = sample + 0.5).
__device__ __forceinline__ void code_block(const Table& tb, float (&x)[64], unsigned* hist, int half_bins) {
  fdct_rows_cols<0>(x);
  quantize(tb, x, hist, half_bins);
  idct_cols_rows<0>(x);
}

// 1.772 rounded up to f32: its exact ties 1.772 · (±125) = ±221.5 then round away from zero, as the CPU's double.
constexpr float kBCb = 1.77200007f;

// M + floor(t) for the saturated u = t/256.
__device__ __forceinline__ float floor_magic(float u) { return __fmaf_rd(u, 256.f, kMagic); }

// The reconstructed planes as the final colour conversion takes them: M + Y, and C − 128 for Cb and Cr.
__device__ __forceinline__ float luma_out(float u) { return fminf(floor_magic(u), kMagic + 255.f); }
__device__ __forceinline__ float chroma_out(float u) { return __fsub_rn(luma_out(u), kMagic + 128.f); }

// RGB samples as 2^15 + b -> Y − 128, Cb − 128, Cr − 128 rounded as the CPU (the header comment says how).
__device__ __forceinline__ void ycc_from_rgb(float R, float G, float B, float& y, float& cb, float& cr) {
  const float dr = __fsub_rn(R, G), db = __fsub_rn(B, G);
  // 1000 (Y − 128) + 500, exact; fl(0.001) > 0.001 keeps exact ties on the upper side.
  const float y1000 = __fmaf_rn(dr, 299.f, __fmaf_rn(db, 114.f, __fmaf_rn(G, 1000.f, -1000.f * (kByteBase + 128.f) + 500.f)));
  y = floorf(__fmul_rn(y1000, 0.001f));
  cb = fminf(floorf(__fmaf_rn(__fmaf_rn(dr, float(-0.168735892 / 0.5), db), 0.5f, 0.5f)), 127.f);
  cr = fminf(floorf(__fmaf_rn(__fmaf_rn(db, float(-0.081312411 / 0.5), dr), 0.5f, 0.5f)), 127.f);
}

// M + Y, Cb − 128, Cr − 128 -> M + R, M + G, M + B: R = Y + 1.402 Cr', G = Y − 0.714 (Cr' + 0.482 Cb'),
// B = Y + 1.772 Cb' onto M + Y, rounded to nearest by the FFMA itself (pack4 clamps).
__device__ __forceinline__ void rgb_from_ycc(float y, float cb, float cr, float& r, float& g, float& b) {
  r = __fmaf_rn(cr, 1.402f, y);
  g = __fmaf_rn(__fmaf_rn(cb, float(0.344136286 / 0.714136286), cr), -0.714136286f, y);
  b = __fmaf_rn(cb, kBCb, y);
}

// The CTA's shared histogram (2 half_bins bins): cleared before the first __syncthreads, added to the
// global one (bins q + kZeroBin) after the last.
__device__ __forceinline__ void hist_clear(const Params& p, unsigned* hist, int t, int threads) {
  for (int i = t; i < 2 * p.half_bins; i += threads) hist[i] = 0;
}
__device__ __forceinline__ void hist_flush(const Params& p, const unsigned* hist, int t, int threads) {
  for (int i = t; i < 2 * p.half_bins; i += threads)
    if (hist[i] != 0) atomicAdd(&p.hist[i - p.half_bins + kZeroBin], static_cast<unsigned long long>(hist[i]));
}

// A gray block: 8 rows of bytes in (edge rows replicated), coded in registers, rounded and
// stored (rows past the image skipped).
__device__ __forceinline__ void code_gray_block(const Params& p, float (&x)[64], unsigned* hist, int y0, int x0,
                                                bool vec) {
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const uint2 v = load_row(p.in, p.w, min(y0 + r, p.h - 1), x0, vec);
#pragma unroll
    for (int c = 0; c < 8; ++c) x[8 * r + c] = __fsub_rn(byte_float(v, c), kByteBase + 128.f);
  }
  code_block(p.tab[0], x, hist, p.half_bins);
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    if (y0 + r >= p.h) break;
    float m[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) m[c] = floor_magic(x[8 * r + c]);
    store_row(p.out, p.w, y0 + r, x0, vec, make_uint2(pack4(m[0], m[1], m[2], m[3]), pack4(m[4], m[5], m[6], m[7])));
  }
}

// The work of thread t of CTA `cta` (hist: 2·half_bins shared bins; slots: 2 · kSlotFloat4 · kThreads float4
// of shared memory for RGB). kPlanes: coded planes (1 gray, 3 YCbCr).
template <int kPlanes>
__device__ __forceinline__ void fused_jpeg_cta(const Params& p, float4* slots, unsigned* hist, int t, int cta) {
  hist_clear(p, hist, t, kThreads);
  __syncthreads();
  const int bx = (cta % p.ctas_x) * kThreads + t, y0 = (cta / p.ctas_x) * 8, x0 = 8 * bx;
  const long long hw = static_cast<long long>(p.h) * p.w;
  const bool vec = (p.w & 7) == 0;
  if (bx < p.blocks_x) {
    float x[64];
    if constexpr (kPlanes == 1) {
      code_gray_block(p, x, hist, y0, x0, vec);
    } else {
      float4* const cb_slot = slots;
      float4* const cr_slot = slots + kSlotFloat4 * kThreads;
      uint2 in[3][8];
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int pl = 0; pl < 3; ++pl) in[pl][r] = load_row(p.in + pl * hw, p.w, min(y0 + r, p.h - 1), x0, vec);
      float cb[8], cr[8];
#pragma unroll
      for (int r = 0; r < 8; ++r) {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
          ycc_from_rgb(byte_float(in[0][r], c), byte_float(in[1][r], c), byte_float(in[2][r], c), x[8 * r + c], cb[c],
                       cr[c]);
        }
        cb_slot[(2 * r) * kThreads + t] = make_float4(cb[0], cb[1], cb[2], cb[3]);
        cb_slot[(2 * r + 1) * kThreads + t] = make_float4(cb[4], cb[5], cb[6], cb[7]);
        cr_slot[(2 * r) * kThreads + t] = make_float4(cr[0], cr[1], cr[2], cr[3]);
        cr_slot[(2 * r + 1) * kThreads + t] = make_float4(cr[4], cr[5], cr[6], cr[7]);
      }
      code_block(p.tab[0], x, hist, p.half_bins);
      // Y as M + Y (clamped); swap it into the Cb slot; code Cb; swap (Cb − 128) into the Cr slot; code Cr.
#pragma unroll
      for (int k = 0; k < 64; ++k) x[k] = luma_out(x[k]);
#pragma unroll 1
      for (int pl = 0; pl < 2; ++pl) {
        float4* const slot = slots + pl * kSlotFloat4 * kThreads;
#pragma unroll
        for (int k = 0; k < kSlotFloat4; ++k) {
          const float4 v = slot[k * kThreads + t];
          slot[k * kThreads + t] = make_float4(x[4 * k], x[4 * k + 1], x[4 * k + 2], x[4 * k + 3]);
          x[4 * k] = v.x;
          x[4 * k + 1] = v.y;
          x[4 * k + 2] = v.z;
          x[4 * k + 3] = v.w;
        }
        code_block(p.tab[1], x, hist, p.half_bins);
#pragma unroll
        for (int k = 0; k < 64; ++k) x[k] = chroma_out(x[k]);
      }
      // x: Cr − 128; Cb slot: M + Y; Cr slot: Cb − 128. R = Y + 1.402 Cr', G = Y − 0.714 (Cr' + 0.482 Cb'),
      // B = Y + 1.772 Cb' onto M + Y: rounded to nearest by the FFMA itself.
#pragma unroll
      for (int r = 0; r < 8; ++r) {
        if (y0 + r >= p.h) break;
        float o[3][8];
#pragma unroll
        for (int hlf = 0; hlf < 2; ++hlf) {
          const float4 y4 = cb_slot[(2 * r + hlf) * kThreads + t], c4 = cr_slot[(2 * r + hlf) * kThreads + t];
          const float Y[4] = {y4.x, y4.y, y4.z, y4.w}, CB[4] = {c4.x, c4.y, c4.z, c4.w};
#pragma unroll
          for (int c = 0; c < 4; ++c)
            rgb_from_ycc(Y[c], CB[c], x[8 * r + 4 * hlf + c], o[0][4 * hlf + c], o[1][4 * hlf + c], o[2][4 * hlf + c]);
        }
#pragma unroll
        for (int pl = 0; pl < 3; ++pl)
          store_row(p.out + pl * hw, p.w, y0 + r, x0, vec,
                    make_uint2(pack4(o[pl][0], o[pl][1], o[pl][2], o[pl][3]), pack4(o[pl][4], o[pl][5], o[pl][6], o[pl][7])));
      }
    }
    for (int ch = kPlanes; ch < p.channels; ++ch)  // alpha: carried through
      for (int r = 0; r < 8 && y0 + r < p.h; ++r)
        store_row(p.out + ch * hw, p.w, y0 + r, x0, vec, load_row(p.in + ch * hw, p.w, y0 + r, x0, vec));
  }
  __syncthreads();
  hist_flush(p, hist, t, kThreads);
}


/* v5 (DCTOOL_JPEG_FUSED=v5): eight threads per 8x8 block, one row each. v3 keeps a whole block in 64 registers
   and unrolls every 8-point transform of it: ≈ 5000 static instructions and 168 registers, and Nsight Compute
   showed it waiting on instruction fetch for 2.5 of every 5.8 cycles at 12 warps per SM. Here a thread holds
   8 values: the row pass is in-thread, a transpose through the block's shared-memory area (8 scattered STS,
   two LDS.128, conflict-free: see kTrCol / kTrBlock) gives thread r the column u = r, the column pass is
   in-thread, and so on back. The code of a plane is four 8-point graphs, the quantizer and two transposes,
   so the whole kernel is a few hundred instructions; the 8 threads of a block sit in one warp (__syncwarp).
   Arithmetic, rounding and its order are v3's operation for operation (the same graphs on the same values),
   so the output and the histogram are bit-identical to v3; only the exact-tie coefficients take a shorter
   (equivalent) form, see quantize_lane. */
namespace rows {

constexpr int kThreads = 256;              // 32 blocks: an 8 x 256 pixel segment of a strip
constexpr int kBlocks = kThreads / 8;
constexpr int kTrCol = 12;                 // floats per column of a block's transpose area: LDS.128 of 8 lanes
                                           // start at banks 12u mod 32 = 0, 12, 24, 4, ...: disjoint
constexpr int kTrBlock = 8 * kTrCol + 8;   // 104 ≡ 8 (mod 32): a warp's 4 blocks x 8 rows of STS hit 32 banks
constexpr int kLaneTables = 16;            // [luma, chroma] x lane u
constexpr int kStrips = 4;                 // strips per CTA (grid: ctas_x x ceil(strips / kStrips)): the CTA's set-up,
                                           // histogram clear and flush once for 4 strips; the next strip's loads
                                           // are in flight while one is coded

// What the thread holding column u (horizontal frequency u) needs of one quantization table.
struct alignas(16) LaneTable {
  float fq[8];      // S_f / Q at (v, u), v = 0..7
  float deq[8];     // Q S_i / 256
  float tie_c[2];   // v = 0, 4 on the lanes u = 0, 4 (tie coefficients); unused elsewhere
  float dc_add;     // lane 0: the +128.5/256 of the reconstruction folded into the DC; else 0
  float pad;
};

__host__ __device__ constexpr std::size_t smem_bytes(int half_bins) {
  return kLaneTables * sizeof(LaneTable) + kBlocks * kTrBlock * sizeof(float) + 2 * half_bins * sizeof(unsigned);
}

// Row r of this block's transpose area gets column r of the 8 threads' rows: x[c] of thread r goes to
// trb[c·kTrCol + r], thread r reads trb[r·kTrCol + 0..7]. The first __syncwarp orders the previous reads.
__device__ __forceinline__ void transpose8(float (&x)[8], float* trb, int r) {
  __syncwarp();
#pragma unroll
  for (int c = 0; c < 8; ++c) trb[c * kTrCol + r] = x[c];
  __syncwarp();
  const float4 a = *reinterpret_cast<const float4*>(trb + r * kTrCol);
  const float4 b = *reinterpret_cast<const float4*>(trb + r * kTrCol + 4);
  x[0] = a.x; x[1] = a.y; x[2] = a.z; x[3] = a.w;
  x[4] = b.x; x[5] = b.y; x[6] = b.z; x[7] = b.w;
}

// Where q = bits(M + q) − kMagicBits is counted: hist[q + half_bins] of the CTA's shared histogram. On the device a
// shared-window address (base + 4 bits, one IMAD) and a predicated red.shared (no branch per coefficient).
struct HistAt {
#ifdef __CUDA_ARCH__
  unsigned base;  // shared address of hist[half_bins − kMagicBits] (mod 2^32)
#else
  unsigned* hist;
  int half_bins;
#endif
};

__device__ __forceinline__ HistAt hist_at(unsigned* hist, int half_bins) {
#ifdef __CUDA_ARCH__
  return {static_cast<unsigned>(__cvta_generic_to_shared(hist)) + 4u * (static_cast<unsigned>(half_bins) - kMagicBits)};
#else
  return {hist, half_bins};
#endif
}

// hist[q]++ when bits b = bits(M + q) has q != 0.
__device__ __forceinline__ void hist_add_if(HistAt h, unsigned b) {
#ifdef __CUDA_ARCH__
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t@p red.shared.add.u32 [%1], 1;\n\t}" ::"r"(b & kQMask),
               "r"(h.base + 4u * b)
               : "memory");
#else
  if (b & kQMask) atomicAdd(&h.hist[static_cast<int>(b - kMagicBits) + h.half_bins], 1u);
#endif
}

// v3's quantize() for the column this lane holds: q = rne(F S/Q) onto M, dequantized. The tie coefficients
// (v, u) with v, u in {0, 4} (lanes 0 and 4, elements 0 and 4): F is an integer with |F| <= 8192 there and v3
// (like the CPU) takes floor(fl(F/(8Q)) + 1/2) = floor((F + 4Q)/(8Q)); here floor(fl(F r + c)) with r = fl(1/(8Q)),
// c = fl(1/2 + 1/(16Q)), which is the same integer: the exact value (F + 4Q + 1/2)/(8Q) lies at least 1/(16Q) from
// every integer, while F r + c and its rounding err by at most 1024 · 2^-24 + 2^-25 + 2^-14 < 1/(16 · 255).
__device__ __forceinline__ void quantize_lane(const LaneTable& lt, bool tie_lane, float (&x)[8], HistAt hist_at,
                                              bool count) {
#pragma unroll
  for (int v = 0; v < 8; ++v) {
    const float n = __fmaf_rn(x[v], lt.fq[v], kMagic);
    if (v == 0 || v == 4) {
      const float tq = __fadd_rd(__fmaf_rn(x[v], lt.fq[v], lt.tie_c[v / 4]), kMagic);
      x[v] = tie_lane ? tq : n;
    } else {
      x[v] = n;
    }
  }
  if (count) {  // every q != 0 once, into the CTA's histogram (as v3; lanes of blocks past the image skip)
    hist_add_if(hist_at, fbits(x[0]));
    if ((fbits(x[1]) | fbits(x[2]) | fbits(x[3])) & kQMask) {
      hist_add_if(hist_at, fbits(x[1]));
      hist_add_if(hist_at, fbits(x[2]));
      hist_add_if(hist_at, fbits(x[3]));
    }
    if ((fbits(x[4]) | fbits(x[5]) | fbits(x[6]) | fbits(x[7])) & kQMask) {
      hist_add_if(hist_at, fbits(x[4]));
      hist_add_if(hist_at, fbits(x[5]));
      hist_add_if(hist_at, fbits(x[6]));
      hist_add_if(hist_at, fbits(x[7]));
    }
  }
  x[0] = __fmaf_rn(__fsub_rn(x[0], kMagic), lt.deq[0], lt.dc_add);
#pragma unroll
  for (int v = 1; v < 8; ++v) x[v] = __fmul_rn(__fsub_rn(x[v], kMagic), lt.deq[v]);
}

// One plane of the block: x is this thread's row of samples − 128 in, its row of t/256 saturated out.
__device__ __forceinline__ void code_lane(const LaneTable& lt, bool tie_lane, float (&x)[8], float* trb, int r,
                                          HistAt hist_at, bool count) {
  fl_fwd8<0, 1>(x);  // the row
  transpose8(x, trb, r);
  fl_fwd8<0, 1>(x);  // column u = r
  quantize_lane(lt, tie_lane, x, hist_at, count);
  fl_inv8<0, 1, false>(x);
  transpose8(x, trb, r);
  fl_inv8<0, 1, true>(x);  // row r
}

// The work of thread t of CTA (cx, cy): strips kStrips·cy ... of the 32 blocks from cx·32. Shared memory:
// tabs[kLaneTables], tr[kBlocks · kTrBlock], hist[2 · half_bins].
template <int kPlanes>
__device__ __forceinline__ void fused_jpeg_cta(const Params& p, LaneTable* tabs, float* tr, unsigned* hist, int t,
                                               int cx, int cy) {
  hist_clear(p, hist, t, kThreads);
  if (t < kLaneTables) {
    const Table& tb = p.tab[t / 8];
    const int u = t % 8;
    LaneTable& lt = tabs[t];
    for (int v = 0; v < 8; ++v) {
      lt.fq[v] = tb.fq[8 * v + u];
      lt.deq[v] = tb.deq[8 * v + u];
    }
    lt.tie_c[0] = tie_slot(u) >= 0 ? tb.tie_c[tie_slot(u)] : 0.f;
    lt.tie_c[1] = tie_slot(32 + u) >= 0 ? tb.tie_c[tie_slot(32 + u)] : 0.f;
    lt.dc_add = u == 0 ? 128.5f / 256.f : 0.f;
    lt.pad = 0.f;
  }
  __syncthreads();
  const int b = t >> 3, r = t & 7;
  const int bx = cx * kBlocks + b, x0 = 8 * bx;
  const bool active = bx < p.blocks_x;  // lanes of blocks past the image run along (the transposes are warp-wide)
  const long long hw = static_cast<long long>(p.h) * p.w;
  const bool vec = (p.w & 7) == 0;
  const bool tie_lane = (r & 3) == 0;
  const unsigned e = p.byte_exp;
  const HistAt h_at = hist_at(hist, p.half_bins);
  float* const trb = tr + b * kTrBlock;
  const int s0 = cy * kStrips, s1 = min(s0 + kStrips, p.strips);
  auto load = [&](int strip, uint2 (&in)[kPlanes]) {
    const int y = min(8 * strip + r, p.h - 1);
#pragma unroll
    for (int pl = 0; pl < kPlanes; ++pl)
      in[pl] = active ? load_row(p.in + pl * hw, p.w, y, x0, vec) : make_uint2(0x80808080u, 0x80808080u);
  };
  uint2 next[kPlanes];
  load(s0, next);
  for (int strip = s0; strip < s1; ++strip) {
    uint2 in[kPlanes];
#pragma unroll
    for (int pl = 0; pl < kPlanes; ++pl) in[pl] = next[pl];
    if (strip + 1 < s1) load(strip + 1, next);  // in flight while this strip is coded
    const int yr = 8 * strip + r;
    const bool store = active && yr < p.h;
    if constexpr (kPlanes == 1) {
      float x[8];
#pragma unroll
      for (int c = 0; c < 8; ++c) x[c] = __fsub_rn(byte_float(in[0], c, e), kByteBase + 128.f);
      code_lane(tabs[r], tie_lane, x, trb, r, h_at, active);
      if (store) {
        float m[8];
#pragma unroll
        for (int c = 0; c < 8; ++c) m[c] = floor_magic(x[c]);
        store_row(p.out, p.w, yr, x0, vec, make_uint2(pack4(m[0], m[1], m[2], m[3]), pack4(m[4], m[5], m[6], m[7])));
      }
    } else {
      float yv[8], cb[8], cr[8];
#pragma unroll
      for (int c = 0; c < 8; ++c)
        ycc_from_rgb(byte_float(in[0], c, e), byte_float(in[1], c, e), byte_float(in[2], c, e), yv[c], cb[c], cr[c]);
      code_lane(tabs[r], tie_lane, yv, trb, r, h_at, active);
#pragma unroll
      for (int c = 0; c < 8; ++c) yv[c] = luma_out(yv[c]);
      code_lane(tabs[8 + r], tie_lane, cb, trb, r, h_at, active);
#pragma unroll
      for (int c = 0; c < 8; ++c) cb[c] = chroma_out(cb[c]);
      code_lane(tabs[8 + r], tie_lane, cr, trb, r, h_at, active);
#pragma unroll
      for (int c = 0; c < 8; ++c) cr[c] = chroma_out(cr[c]);
      if (store) {
        float o[3][8];
#pragma unroll
        for (int c = 0; c < 8; ++c) rgb_from_ycc(yv[c], cb[c], cr[c], o[0][c], o[1][c], o[2][c]);
#pragma unroll
        for (int pl = 0; pl < 3; ++pl)
          store_row(p.out + pl * hw, p.w, yr, x0, vec,
                    make_uint2(pack4(o[pl][0], o[pl][1], o[pl][2], o[pl][3]), pack4(o[pl][4], o[pl][5], o[pl][6], o[pl][7])));
      }
    }
    if (store)
      for (int ch = kPlanes; ch < p.channels; ++ch)  // alpha: carried through
        store_row(p.out + ch * hw, p.w, yr, x0, vec, load_row(p.in + ch * hw, p.w, yr, x0, vec));
  }
  __syncthreads();
  hist_flush(p, hist, t, kThreads);
}

}  // namespace rows

}  // namespace dct::cuda::jpeg_fused
