#pragma once
// JPEG's constants, shared by the CPU compressor (core/, cpu/) and the GPU one (kernels/compress/): the ITU-T T.81
// Annex K quantization tables [9], libjpeg's quality scaling, and the JFIF full-range BT.601 colour conversion.
#include <algorithm>
#include <array>

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

}  // namespace dct::math::jpeg
