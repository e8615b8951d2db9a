// The portable stages of the CPU compressor's jpeg block loop (cpu/compress_jpeg.hpp): the definitions themselves
// (math::jpeg, core::ycc_to_rgb), one value at a time; and the choice of AVX2 ones where the CPU has AVX2.
#include "cpu/compress_jpeg.hpp"

#include <algorithm>
#include <cmath>

#include "core/compress.hpp"
#include "math/block8.hpp"
#include "math/jpeg.hpp"

namespace dct::cpu::jpeg {
namespace {

void ycc_row(const float* r, const float* g, const float* b, std::int64_t n, std::uint8_t* y, std::uint8_t* cb,
             std::uint8_t* cr) {
  for (std::int64_t i = 0; i < n; ++i) {
    const int ri = static_cast<int>(r[i]), gi = static_cast<int>(g[i]), bi = static_cast<int>(b[i]);
    y[i] = static_cast<std::uint8_t>(math::jpeg::rgb_to_y(ri, gi, bi));
    cb[i] = static_cast<std::uint8_t>(math::jpeg::rgb_to_cb(ri, gi, bi));
    cr[i] = static_cast<std::uint8_t>(math::jpeg::rgb_to_cr(ri, gi, bi));
  }
}

// A reconstructed sample: v + 128 rounded half to even (as libjpeg-turbo's SIMD float IDCT, djpeg -dct float on
// x86-64, rounds) and clamped to 0..255.
int round_sample(float v) { return static_cast<int>(std::clamp(std::nearbyint(double(v)) + 128.0, 0.0, 255.0)); }

std::uint64_t block(const std::uint8_t* from, std::int64_t fs, const float* scale, const float* qt, std::int16_t* q,
                    std::uint8_t* to, std::int64_t ts) {
  float x[64];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) x[8 * i + j] = static_cast<float>(from[i * fs + j]) - 128.f;
  std::int16_t qq[64];
  math::jpeg::forward_quantize(x, *reinterpret_cast<const float(*)[64]>(scale),
                               *reinterpret_cast<const float(*)[64]>(qt), qq);
  std::uint64_t nonzero = 0;
  for (int k = 0; k < 64; ++k) {
    q[k] = qq[k];
    nonzero |= std::uint64_t(qq[k] != 0) << k;
    x[k] = static_cast<float>(qq[k]) * qt[k] * scale[k];
  }
  const math::block8::Consts4<float> c{float(math::block8::kFlT1), float(math::block8::kFlT2),
                                       float(math::block8::kFlT3), float(math::block8::kFlR)};
  for (int j = 0; j < 8; ++j) {  // cpu-8x8-flmad's inverse: columns, then rows
    float v[8];
    for (int i = 0; i < 8; ++i) v[i] = x[8 * i + j];
    math::block8::fl_inverse(v, c);
    for (int i = 0; i < 8; ++i) x[8 * i + j] = v[i];
  }
  for (int i = 0; i < 8; ++i) math::block8::fl_inverse(*reinterpret_cast<float(*)[8]>(x + 8 * i), c);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) to[i * ts + j] = static_cast<std::uint8_t>(round_sample(x[8 * i + j]));
  return nonzero;
}

void block2(const std::uint8_t* from, std::int64_t fs, const float* scale, const float* qt, std::int16_t* q,
            std::uint8_t* to, std::int64_t ts, std::uint64_t (&nonzero)[2]) {
  nonzero[0] = block(from, fs, scale, qt, q, to, ts);
  nonzero[1] = block(from + 8, fs, scale, qt, q + 64, to + 8, ts);
}

void rgb_row(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half, float* r,
             float* g, float* b) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = half ? i / 2 : i;
    const auto rgb = core::ycc_to_rgb(y[i], cb[k], cr[k]);
    r[i] = static_cast<float>(rgb[0]);
    g[i] = static_cast<float>(rgb[1]);
    b[i] = static_cast<float>(rgb[2]);
  }
}

void ycc_row8(const std::uint8_t* rgb, std::int64_t n, std::uint8_t* y, std::uint8_t* cb, std::uint8_t* cr) {
  for (std::int64_t i = 0; i < n; ++i) {
    const int ri = rgb[3 * i], gi = rgb[3 * i + 1], bi = rgb[3 * i + 2];
    y[i] = static_cast<std::uint8_t>(math::jpeg::rgb_to_y(ri, gi, bi));
    cb[i] = static_cast<std::uint8_t>(math::jpeg::rgb_to_cb(ri, gi, bi));
    cr[i] = static_cast<std::uint8_t>(math::jpeg::rgb_to_cr(ri, gi, bi));
  }
}

std::int64_t rgb_sse_row8(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n,
                          bool half, const std::uint8_t* rgb) {
  std::int64_t s = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = half ? i / 2 : i;
    const auto v = core::ycc_to_rgb(y[i], cb[k], cr[k]);
    for (int c = 0; c < 3; ++c) {
      const std::int64_t d = static_cast<std::int64_t>(v[c]) - rgb[3 * i + c];
      s += d * d;
    }
  }
  return s;
}

void rgb_row8(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half,
              std::uint8_t* r, std::uint8_t* g, std::uint8_t* b) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = half ? i / 2 : i;
    const auto rgb = core::ycc_to_rgb(y[i], cb[k], cr[k]);
    r[i] = static_cast<std::uint8_t>(rgb[0]);
    g[i] = static_cast<std::uint8_t>(rgb[1]);
    b[i] = static_cast<std::uint8_t>(rgb[2]);
  }
}

}  // namespace

const Stages& portable_stages() {
  static const Stages s{ycc_row, block, rgb_row, block2, ycc_row8, rgb_sse_row8, rgb_row8};
  return s;
}

const Stages& stages() {
  static const Stages& s = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                                   __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")
                               ? avx512_stages()
                           : __builtin_cpu_supports("avx2") ? avx2_stages()
                                                            : portable_stages();
  return s;
}

}  // namespace dct::cpu::jpeg
