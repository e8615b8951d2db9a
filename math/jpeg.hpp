#pragma once
// JPEG's constants, shared by the CPU compressor (core/, cpu/) and the GPU one (kernels/compress/): the ITU-T T.81
// Annex K quantization tables [9], libjpeg's quality scaling, and the JFIF full-range BT.601 colour conversion.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "math/block8.hpp"
#include "math/hd.hpp"

namespace dct::math::jpeg {

// JFIF full-range BT.601 (T.871), as libjpeg: each converted sample is rounded to the nearest integer and
// clamped to 0..255 (libjpeg works on 8-bit samples in both directions). round(x) = floor(x + 0.5).
inline constexpr double kYr = 0.299, kYg = 0.587, kYb = 0.114;
inline constexpr double kCbR = -0.168735892, kCbG = -0.331264108, kCbB = 0.5;
inline constexpr double kCrR = 0.5, kCrG = -0.418687589, kCrB = -0.081312411;
inline constexpr double kRCr = 1.402, kGCb = -0.344136286, kGCr = -0.714136286, kBCb = 1.772;

// T.81 Annex K tables K.1 (luminance) and K.2 (chrominance), in natural (row-major) order.
inline constexpr std::array<int, 64> kLumaQuantBase = {
    16, 11,  10,  16, 24, 40, 51, 61, 12,  12,  14,  19,  26, 58, 60, 55,  14,  13,  16,  24, 40, 57,
    69, 56,  14,  17, 22, 29, 51, 87, 80,  62,  18,  22,  37, 56, 68, 109, 103, 77,  24,  35, 55, 64,
    81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98,  112, 100, 103, 99};
inline constexpr std::array<int, 64> kChromaQuantBase = {
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99,
    99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

// libjpeg's jpeg_quality_scaling: quality clamped to 1..100; 5000/q below 50, else 200 - 2q.
constexpr int quality_scale(int quality) {
  quality = std::clamp(quality, 1, 100);
  return quality < 50 ? 5000 / quality : 200 - 2 * quality;
}

// libjpeg's jpeg_add_quant_table with force_baseline (as cjpeg): (base*s + 50)/100 in integers, 1..255.
constexpr std::array<int, 64> quant_table(int quality, bool chroma) {
  const auto& base = chroma ? kChromaQuantBase : kLumaQuantBase;
  const long s = quality_scale(quality);
  std::array<int, 64> q{};
  for (int i = 0; i < 64; ++i) q[i] = static_cast<int>(std::clamp<long>((base[i] * s + 50) / 100, 1, 255));
  return q;
}

// ---- the exact coefficient arithmetic ------------------------------------------------------------------------
// The quantized coefficients of jpeg mode are defined by the operations below, each one IEEE operation rounded to
// nearest, none fused: the CPU compressor (cpu/compress_cpu.cpp, its AVX2 block kernels in cpu/compress_avx2.cpp)
// and cuda-jpeg-fused's coefficient kernel (kernels/compress/jpeg_coef.cuh) evaluate them in the same order, so
// their q agree bit for bit. Host code that uses them is compiled with -ffp-contract=off (CMakeLists.txt); device
// code gets the _rn intrinsics, which nvcc never contracts.

// A float or double whose +, −, × are single rounded operations (never contracted into an FMA).
template <class T>
struct Rn {
  T v;
};
#if defined(__CUDA_ARCH__)
DCT_HD Rn<float> operator+(Rn<float> a, Rn<float> b) { return {__fadd_rn(a.v, b.v)}; }
DCT_HD Rn<float> operator-(Rn<float> a, Rn<float> b) { return {__fsub_rn(a.v, b.v)}; }
DCT_HD Rn<float> operator*(Rn<float> a, Rn<float> b) { return {__fmul_rn(a.v, b.v)}; }
DCT_HD Rn<double> operator+(Rn<double> a, Rn<double> b) { return {__dadd_rn(a.v, b.v)}; }
DCT_HD Rn<double> operator*(Rn<double> a, Rn<double> b) { return {__dmul_rn(a.v, b.v)}; }
DCT_HD float div_rn(float a, float b) { return __fdiv_rn(a, b); }
#else
template <class T>
inline Rn<T> operator+(Rn<T> a, Rn<T> b) {
  return {a.v + b.v};
}
template <class T>
inline Rn<T> operator-(Rn<T> a, Rn<T> b) {
  return {a.v - b.v};
}
template <class T>
inline Rn<T> operator*(Rn<T> a, Rn<T> b) {
  return {a.v * b.v};
}
inline float div_rn(float a, float b) { return a / b; }
#endif

// JFIF YCbCr of 8-bit R, G, B, as core::rgb_to_ycc: ((k_r R + k_g G) + k_b B) (+ 128 for Cb, Cr) in double, then
// clamp(floor(v + 0.5), 0, 255).
DCT_HD int ycc_round(Rn<double> v) {
  const double f = floor((v + Rn<double>{0.5}).v);
  return static_cast<int>(f < 0.0 ? 0.0 : f > 255.0 ? 255.0 : f);
}
DCT_HD int rgb_to_y(int r, int g, int b) {
  return ycc_round(Rn<double>{kYr} * Rn<double>{double(r)} + Rn<double>{kYg} * Rn<double>{double(g)} +
                   Rn<double>{kYb} * Rn<double>{double(b)});
}
DCT_HD int rgb_to_cb(int r, int g, int b) {
  return ycc_round(Rn<double>{kCbR} * Rn<double>{double(r)} + Rn<double>{kCbG} * Rn<double>{double(g)} +
                   Rn<double>{kCbB} * Rn<double>{double(b)} + Rn<double>{128.0});
}
DCT_HD int rgb_to_cr(int r, int g, int b) {
  return ycc_round(Rn<double>{kCrR} * Rn<double>{double(r)} + Rn<double>{kCrG} * Rn<double>{double(g)} +
                   Rn<double>{kCrB} * Rn<double>{double(b)} + Rn<double>{128.0});
}

// 8-bit R, G, B of JFIF YCbCr samples (libjpeg's decoder in double): y + k (c − 128) summed left to right in double,
// then clamp(floor(v + 0.5), 0, 255) (ycc_round). core::ycc_to_rgb and the GPU's reconstruction error use it.
DCT_HD void ycc_to_rgb8(int y, int cb, int cr, int (&rgb)[3]) {
  const Rn<double> yy{double(y)}, cbd{double(cb - 128)}, crd{double(cr - 128)};
  rgb[0] = ycc_round(yy + Rn<double>{kRCr} * crd);
  rgb[1] = ycc_round(yy + Rn<double>{kGCb} * cbd + Rn<double>{kGCr} * crd);
  rgb[2] = ycc_round(yy + Rn<double>{kBCb} * cbd);
}

// libjpeg's h2v2 fancy upsampling (jdsample.c, what djpeg does to 4:2:0 chroma): output row y of an image from
// chroma row `near` = y/2 and `far` = the chroma row above it (even y) or below it (odd y), the edge rows repeated;
// n = ceil(W/2) real chroma samples, w = W output samples. Each output is (3 colsum + neighbouring colsum + 8 or 7)
// >> 4 with colsum = 3 near + far, the first and last column (4 colsum + 8 or 7) >> 4; libjpeg-turbo upsamples
// images whose chroma rows hold at most 2 samples by plain repetition instead.
inline void h2v2_fancy_row(const std::uint8_t* near, const std::uint8_t* far, std::int64_t n, std::int64_t w,
                           std::uint8_t* out) {
  if (n <= 2) {
    for (std::int64_t x = 0; x < w; ++x) out[x] = near[x / 2];
    return;
  }
  int last = 3 * near[0] + far[0], cur = last;
  for (std::int64_t x = 0; x < n; ++x) {
    const int next = x + 1 < n ? 3 * near[x + 1] + far[x + 1] : cur;
    out[2 * x] = static_cast<std::uint8_t>(x == 0 ? (4 * cur + 8) >> 4 : (3 * cur + last + 8) >> 4);
    if (2 * x + 1 < w)
      out[2 * x + 1] = static_cast<std::uint8_t>(x + 1 == n ? (4 * cur + 7) >> 4 : (3 * cur + next + 7) >> 4);
    last = cur;
    cur = next;
  }
}

// Sample x of h2v2_fancy_row(near, far, n, w, out), alone (the GPU computes each pixel's chroma by itself).
DCT_HD int h2v2_fancy_at(const std::uint8_t* near, const std::uint8_t* far, long long n, long long x) {
  const long long i = x / 2;
  if (n <= 2) return near[i];
  const long long j = x % 2 == 0 ? (i > 0 ? i - 1 : 0) : (i + 1 < n ? i + 1 : n - 1);
  const int cur = 3 * near[i] + far[i], other = 3 * near[j] + far[j];
  return (3 * cur + other + (x % 2 == 0 ? 8 : 7)) >> 4;
}

// libjpeg's h2v2 downsampling (jcsample.c, cjpeg -sample 2x2): the 2x2 box of full-resolution samples a, b (upper
// row) and c, d (lower row) at output column x: (a + b + c + d + bias) >> 2 with bias 1 at even x, 2 at odd x.
DCT_HD int h2v2_sample(int a, int b, int c, int d, long long x) { return (a + b + c + d + 1 + int(x & 1)) >> 2; }

// The Feig-Linzer constants of cpu-8x8-flmad as floats.
DCT_HD block8::Consts4<Rn<float>> fl_consts() {
  return {{static_cast<float>(block8::kFlT1)},
          {static_cast<float>(block8::kFlT2)},
          {static_cast<float>(block8::kFlT3)},
          {static_cast<float>(block8::kFlR)}};
}

// The scale table of the 2-D forward transform: S[i][j] = float(s_i s_j), s = block8::fl_scale() (host side; the
// GPU gets it as a parameter).
inline void fl_scale_table(float (&s)[64]) {
  const auto d = block8::fl_scale();
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) s[8 * i + j] = static_cast<float>(d[i] * d[j]);
}

// The quantized coefficients q[k] of one block of level-shifted samples x (row-major, x = sample − 128): the
// Feig-Linzer graph along every column, then along every row, times S, then q = floor(F / Q + 0.5) in float with
// the table qt (natural order); all single rounded f32 operations (Rn). F is returned in x.
DCT_HD void forward_quantize(float (&x)[64], const float (&scale)[64], const float (&qt)[64], std::int16_t (&q)[64]) {
  const block8::Consts4<Rn<float>> c = fl_consts();
  for (int j = 0; j < 8; ++j) {
    Rn<float> v[8];
    for (int i = 0; i < 8; ++i) v[i] = {x[8 * i + j]};
    block8::fl_forward(v, c);
    for (int i = 0; i < 8; ++i) x[8 * i + j] = v[i].v;
  }
  for (int i = 0; i < 8; ++i) {
    Rn<float> v[8];
    for (int j = 0; j < 8; ++j) v[j] = {x[8 * i + j]};
    block8::fl_forward(v, c);
    for (int j = 0; j < 8; ++j) x[8 * i + j] = (v[j] * Rn<float>{scale[8 * i + j]}).v;
  }
  for (int k = 0; k < 64; ++k) {
    float f = floorf((Rn<float>{div_rn(x[k], qt[k])} + Rn<float>{0.5f}).v);
    f = f < -32768.f ? -32768.f : f > 32767.f ? 32767.f : f;
    q[k] = static_cast<std::int16_t>(f);
  }
}

}  // namespace dct::math::jpeg
