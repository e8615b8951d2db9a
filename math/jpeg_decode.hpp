#pragma once
// libjpeg-turbo's default decoding of an 8-bit JPEG file's coefficients, in integers, so that a GPU gives the samples
// djpeg gives (cuda-jpeg-fused's .jpg inputs: kernels/compress/jpeg_decode.cuh): the "islow" inverse DCT
// (jidctint.c), the "fancy" (triangle) chroma upsampling (jdsample.c; h2v2 in math/jpeg.hpp) and the table-driven
// YCbCr -> RGB (jdcolor.c). libjpeg-turbo's SIMD versions of these give the C code's results whenever no 16-bit
// intermediate of theirs saturates or wraps; islow_idct reports the blocks where that could happen (values no
// encoder of 8-bit images writes) so that the caller can hand such a file to libjpeg-turbo itself.
#include <cstdint>

#include "math/hd.hpp"

namespace dct::math::jpeg {

namespace islow {
inline constexpr int kConstBits = 13, kPass1Bits = 2;
// FIX(x) = round(x * 2^13), as jidctint.c's constants.
inline constexpr long long k0_298631336 = 2446, k0_390180644 = 3196, k0_541196100 = 4433, k0_765366865 = 6270,
                           k0_899976223 = 7373, k1_175875602 = 9633, k1_501321110 = 12299, k1_847759065 = 15137,
                           k1_961570560 = 16069, k2_053119869 = 16819, k2_562915447 = 20995, k3_072711026 = 25172;
// Where the C code and libjpeg-turbo's 16-bit SIMD code certainly agree: dequantized coefficients and first-pass
// outputs whose pairwise sums fit in 16 bits, final values whose range-limit (C: a wrapping table; SIMD: saturation)
// is the same clamp.
inline constexpr long long kMaxIn = 16383, kMaxPass1 = 16383, kMinOut = -512, kMaxOut = 511;

DCT_HD long long descale(long long x, int n) { return (x + (1LL << (n - 1))) >> n; }

// One 1-D pass of jidctint.c on in[0..7] (even part, then odd part), out[k] = the 8 sums before descaling.
DCT_HD void pass(const long long (&in)[8], long long (&out)[8]) {
  long long z2 = in[2], z3 = in[6];
  long long z1 = (z2 + z3) * k0_541196100;
  long long tmp2 = z1 - z3 * k1_847759065;
  long long tmp3 = z1 + z2 * k0_765366865;
  z2 = in[0];
  z3 = in[4];
  long long tmp0 = (z2 + z3) * (1LL << kConstBits);
  long long tmp1 = (z2 - z3) * (1LL << kConstBits);
  const long long tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
  tmp3 = in[1];
  tmp2 = in[3];
  tmp1 = in[5];
  tmp0 = in[7];
  long long z4 = tmp1 + tmp3;
  z3 = tmp0 + tmp2;
  z2 = tmp1 + tmp2;
  z1 = tmp0 + tmp3;
  const long long z5 = (z3 + z4) * k1_175875602;
  tmp3 *= k1_501321110;
  tmp2 *= k3_072711026;
  tmp1 *= k2_053119869;
  tmp0 *= k0_298631336;
  z4 = z4 * -k0_390180644 + z5;
  z3 = z3 * -k1_961570560 + z5;
  z1 *= -k0_899976223;
  z2 *= -k2_562915447;
  tmp3 += z1 + z4;
  tmp2 += z2 + z3;
  tmp1 += z2 + z4;
  tmp0 += z1 + z3;
  out[0] = tmp10 + tmp3;
  out[7] = tmp10 - tmp3;
  out[1] = tmp11 + tmp2;
  out[6] = tmp11 - tmp2;
  out[2] = tmp12 + tmp1;
  out[5] = tmp12 - tmp1;
  out[3] = tmp13 + tmp0;
  out[4] = tmp13 - tmp0;
}
}  // namespace islow

// jpeg_idct_islow: the quantized block `coef` (natural order) times the table `q`, inverted, level-shifted and
// range-limited into out[r * stride + c]. False (out partly written) where the block leaves islow::kMax*'s ranges.
DCT_HD bool islow_idct(const std::int16_t* coef, const std::uint16_t* q, std::uint8_t* out, long long stride) {
  using namespace islow;
  long long ws[64];
  bool ok = true;
  for (int c = 0; c < 8; ++c) {  // pass 1: columns
    long long in[8], o[8];
    for (int r = 0; r < 8; ++r) {
      in[r] = static_cast<long long>(coef[r * 8 + c]) * q[r * 8 + c];
      ok = ok && in[r] >= -kMaxIn && in[r] <= kMaxIn;
    }
    pass(in, o);
    for (int r = 0; r < 8; ++r) {
      ws[r * 8 + c] = descale(o[r], kConstBits - kPass1Bits);
      ok = ok && ws[r * 8 + c] >= -kMaxPass1 && ws[r * 8 + c] <= kMaxPass1;
    }
  }
  for (int r = 0; r < 8; ++r) {  // pass 2: rows
    long long in[8], o[8];
    for (int c = 0; c < 8; ++c) in[c] = ws[r * 8 + c];
    pass(in, o);
    for (int c = 0; c < 8; ++c) {
      const long long v = descale(o[c], kConstBits + kPass1Bits + 3);
      ok = ok && v >= kMinOut && v <= kMaxOut;
      out[r * stride + c] = static_cast<std::uint8_t>(v < -128 ? 0 : v > 127 ? 255 : v + 128);
    }
  }
  return ok;
}

// jdcolor.c's ycc_rgb_convert: R = Y + Cr_r[Cr], G = Y + ((Cb_g[Cb] + Cr_g[Cr]) >> 16), B = Y + Cb_b[Cb], each
// clamped to 0..255, with the tables' values (16 fraction bits) computed here.
DCT_HD void ycc_to_rgb_islow(int y, int cb, int cr, int (&rgb)[3]) {
  constexpr long long kHalf = 1LL << 15;
  const long long x_cb = cb - 128, x_cr = cr - 128;
  const auto clamp = [](long long v) { return static_cast<int>(v < 0 ? 0 : v > 255 ? 255 : v); };
  rgb[0] = clamp(y + ((91881 * x_cr + kHalf) >> 16));                   // FIX(1.40200)
  rgb[1] = clamp(y + ((-22554 * x_cb + kHalf + -46802 * x_cr) >> 16));  // FIX(0.34414), FIX(0.71414)
  rgb[2] = clamp(y + ((116130 * x_cb + kHalf) >> 16));                  // FIX(1.77200)
}

// jdsample.c's h2v1 fancy upsampling, sample x of a row of n chroma samples (3 near + far + 1 or 2) >> 2, the first
// and last output the sample itself; rows of at most 2 samples by plain repetition (libjpeg-turbo's h2v1_upsample).
DCT_HD int h2v1_fancy_at(const std::uint8_t* row, long long n, long long x) {
  const long long i = x / 2;
  if (n <= 2) return row[i];
  const long long j = x % 2 == 0 ? (i > 0 ? i - 1 : 0) : (i + 1 < n ? i + 1 : n - 1);
  return (3 * row[i] + row[j] + (x % 2 == 0 ? 1 : 2)) >> 2;
}

}  // namespace dct::math::jpeg
