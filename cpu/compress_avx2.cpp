/* AVX2 stages of the CPU compressor's jpeg block loop (cpu/compress_jpeg.hpp), chosen once where the CPU has AVX2.
   They compute exactly what the portable stages (cpu/compress_jpeg.cpp) compute: the same IEEE operations in the
   same order (no FMA: the target is AVX2 alone and the file is compiled with -ffp-contract=off), so q and the
   reconstruction are bit-identical on every x86-64 CPU and equal to the GPU coefficient kernel's q.
   - colour conversion: four pixels per double register, ((k_r R + k_g G) + k_b B) (+ 128) + 0.5, floor, clamp;
   - block: eight float registers, one per row: math::block8::fl_forward across them (the columns), an in-register
     transpose, fl_forward again (the rows), transpose back, × S; q = floor(F / Q + 0.5); q·Q·S, fl_inverse twice
     the same way; the sample rounded half up as floor(v + 128.5): round to nearest even, plus 1 where v lies
     exactly half-way (v − rne(v) = 1/2, exact), + 128, clamped;
   - back to RGB: four pixels per double register, (Y + k (C − 128)) + 0.5, floor, clamp, as core::ycc_to_rgb. */
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "cpu/compress_jpeg.hpp"

#pragma GCC diagnostic ignored "-Wignored-attributes"  // __m256 as a template argument
#if defined(__clang__)  // clang ignores GCC's target pragma
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#include "math/block8.hpp"
#include "math/jpeg.hpp"

namespace dct::cpu::jpeg {
namespace {

using math::block8::Consts4;

inline void transpose8(__m256 (&r)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

Consts4<__m256> fl_consts() {
  return {
      _mm256_set1_ps(static_cast<float>(math::block8::kFlT1)), _mm256_set1_ps(static_cast<float>(math::block8::kFlT2)),
      _mm256_set1_ps(static_cast<float>(math::block8::kFlT3)), _mm256_set1_ps(static_cast<float>(math::block8::kFlR))};
}

// clamp(floor(v), 0, 255) of four doubles as bytes 0..3 of the result.
inline std::uint32_t bytes4(__m256d v) {
  v = _mm256_min_pd(_mm256_max_pd(_mm256_floor_pd(v), _mm256_setzero_pd()), _mm256_set1_pd(255.0));
  const __m128i i = _mm256_cvttpd_epi32(v);
  const __m128i b = _mm_packus_epi16(_mm_packus_epi32(i, i), _mm_setzero_si128());
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(b));
}

// (k_r R + k_g G) + k_b B, four pixels.
inline __m256d dot3(__m256d R, __m256d G, __m256d B, double kr, double kg, double kb) {
  return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(kr), R), _mm256_mul_pd(_mm256_set1_pd(kg), G)),
                       _mm256_mul_pd(_mm256_set1_pd(kb), B));
}

// Four bytes (the low ones of w) as doubles.
inline __m256d bytes_pd(std::uint32_t w) {
  return _mm256_cvtepi32_pd(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(static_cast<int>(w))));
}

// clamp(floor(v), 0, 255) of four doubles stored as floats.
inline void store4(float* d, __m256d v) {
  v = _mm256_min_pd(_mm256_max_pd(_mm256_floor_pd(v), _mm256_setzero_pd()), _mm256_set1_pd(255.0));
  _mm_storeu_ps(d, _mm256_cvtpd_ps(v));
}

void ycc_row(const float* r, const float* g, const float* b, std::int64_t n, std::uint8_t* y, std::uint8_t* cb,
             std::uint8_t* cr) {
  using namespace math::jpeg;
  const __m256d half = _mm256_set1_pd(0.5), c128 = _mm256_set1_pd(128.0);
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d R = _mm256_cvtps_pd(_mm_loadu_ps(r + i)), G = _mm256_cvtps_pd(_mm_loadu_ps(g + i)),
                  B = _mm256_cvtps_pd(_mm_loadu_ps(b + i));
    const std::uint32_t vy = bytes4(_mm256_add_pd(dot3(R, G, B, kYr, kYg, kYb), half));
    const std::uint32_t vb = bytes4(_mm256_add_pd(_mm256_add_pd(dot3(R, G, B, kCbR, kCbG, kCbB), c128), half));
    const std::uint32_t vr = bytes4(_mm256_add_pd(_mm256_add_pd(dot3(R, G, B, kCrR, kCrG, kCrB), c128), half));
    std::memcpy(y + i, &vy, 4);
    std::memcpy(cb + i, &vb, 4);
    std::memcpy(cr + i, &vr, 4);
  }
  for (; i < n; ++i) {
    const int ri = static_cast<int>(r[i]), gi = static_cast<int>(g[i]), bi = static_cast<int>(b[i]);
    y[i] = static_cast<std::uint8_t>(rgb_to_y(ri, gi, bi));
    cb[i] = static_cast<std::uint8_t>(rgb_to_cb(ri, gi, bi));
    cr[i] = static_cast<std::uint8_t>(rgb_to_cr(ri, gi, bi));
  }
}

std::uint64_t block(const std::uint8_t* from, std::int64_t fs, const float* scale, const float* qt, std::int16_t* q,
                    std::uint8_t* to, std::int64_t ts) {
  const Consts4<__m256> c = fl_consts();
  const __m256 c128 = _mm256_set1_ps(128.f), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.f);
  __m256 r[8];
  for (int i = 0; i < 8; ++i) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(from + i * fs));
    r[i] = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b)), c128);
  }
  math::block8::fl_forward(r, c);
  transpose8(r);
  math::block8::fl_forward(r, c);
  transpose8(r);
  std::uint64_t nonzero = 0;
  for (int i = 0; i < 8; ++i) {
    const __m256 s = _mm256_loadu_ps(scale + 8 * i), t = _mm256_loadu_ps(qt + 8 * i);
    const __m256 f = _mm256_mul_ps(r[i], s);
    const __m256 qf = _mm256_floor_ps(_mm256_add_ps(_mm256_div_ps(f, t), half));
    const __m256i qi = _mm256_cvtps_epi32(qf);
    const __m128i q16 = _mm_packs_epi32(_mm256_castsi256_si128(qi), _mm256_extracti128_si256(qi, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 8 * i), q16);
    nonzero |=
        std::uint64_t(static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(qf, _mm256_setzero_ps(), _CMP_NEQ_OQ))))
        << (8 * i);
    r[i] = _mm256_mul_ps(_mm256_mul_ps(qf, t), s);
  }
  math::block8::fl_inverse(r, c);
  transpose8(r);
  math::block8::fl_inverse(r, c);
  transpose8(r);
  for (int i = 0; i < 8; ++i) {
    const __m256 v = r[i];
    __m256 n = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    n = _mm256_add_ps(n, _mm256_and_ps(_mm256_cmp_ps(_mm256_sub_ps(v, n), half, _CMP_EQ_OQ), one));
    n = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(n, c128), _mm256_setzero_ps()), _mm256_set1_ps(255.f));
    const __m256i k = _mm256_cvtps_epi32(n);
    const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(k), _mm256_extracti128_si256(k, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(to + i * ts), _mm_packus_epi16(w, w));
  }
  return nonzero;
}

void rgb_row(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half, float* r,
             float* g, float* b) {
  using namespace math::jpeg;
  const __m256d c128 = _mm256_set1_pd(128.0), h = _mm256_set1_pd(0.5);
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    std::uint32_t wy, wb, wr;
    std::memcpy(&wy, y + i, 4);
    if (half) {
      std::uint16_t b2, r2;
      std::memcpy(&b2, cb + i / 2, 2);
      std::memcpy(&r2, cr + i / 2, 2);
      const __m128i vb = _mm_cvtsi32_si128(b2), vr = _mm_cvtsi32_si128(r2);
      wb = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_unpacklo_epi8(vb, vb)));
      wr = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_unpacklo_epi8(vr, vr)));
    } else {
      std::memcpy(&wb, cb + i, 4);
      std::memcpy(&wr, cr + i, 4);
    }
    const __m256d Y = bytes_pd(wy);
    const __m256d Cb = _mm256_sub_pd(bytes_pd(wb), c128);
    const __m256d Cr = _mm256_sub_pd(bytes_pd(wr), c128);
    store4(r + i, _mm256_add_pd(_mm256_add_pd(Y, _mm256_mul_pd(_mm256_set1_pd(kRCr), Cr)), h));
    store4(g + i, _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(Y, _mm256_mul_pd(_mm256_set1_pd(kGCb), Cb)),
                                              _mm256_mul_pd(_mm256_set1_pd(kGCr), Cr)),
                                h));
    store4(b + i, _mm256_add_pd(_mm256_add_pd(Y, _mm256_mul_pd(_mm256_set1_pd(kBCb), Cb)), h));
  }
  if (i < n)
    portable_stages().rgb_row(y + i, cb + (half ? i / 2 : i), cr + (half ? i / 2 : i), n - i, half, r + i, g + i,
                              b + i);
}

}  // namespace

const Stages& avx2_stages() {
  static const Stages s{ycc_row, block, rgb_row};
  return s;
}

}  // namespace dct::cpu::jpeg

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
