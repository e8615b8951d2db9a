/* AVX2 stages of the CPU compressor's jpeg block loop (cpu/compress_jpeg.hpp), chosen once where the CPU has AVX2.
   They compute exactly what the portable stages (cpu/compress_jpeg.cpp) compute: the same IEEE operations in the
   same order (no FMA: the target is AVX2 alone and the file is compiled with -ffp-contract=off), so q and the
   reconstruction are bit-identical on every x86-64 CPU and equal to the GPU coefficient kernel's q.
   - colour conversion: eight pixels per float register, ((k_r R + k_g G) + k_b B) (+ 128) + 0.5, floor, clamp,
     with the rare groups whose sums lie near a rounding boundary redone by the portable stage (below);
   - block: eight float registers, one per row: math::block8::fl_forward across them (the columns), an in-register
     transpose, fl_forward again (the rows), transpose back, × S; q = floor(F / Q + 0.5); q·Q·S, fl_inverse twice
     the same way; the sample: v rounded to nearest even (as libjpeg-turbo's SIMD float IDCT rounds), + 128, clamped;
   - back to RGB: eight pixels per float register, (Y + k (C − 128)) + 0.5, floor, clamp, as core::ycc_to_rgb, near
     boundaries the same way. */
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/compress_jpeg.hpp"

#pragma GCC diagnostic ignored "-Wignored-attributes"  // __m256 as a template argument
#if defined(__clang__)                                 // clang ignores GCC's target pragma
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#include "cpu/compress_simd.hpp"
#include "math/block8.hpp"
#include "math/jpeg.hpp"

namespace dct::cpu::jpeg {
namespace {

using math::block8::Consts4;
using simd::kNear;
using simd::load_rgb8;

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

// floor(v) clamped to 0..255 (as floats), and whether v lies within kNear of an integer.
inline __m256 floor_clamp(__m256 v, __m256& near) {
  const __m256 f = _mm256_floor_ps(v), d = _mm256_sub_ps(v, f);
  near = _mm256_or_ps(near, _mm256_or_ps(_mm256_cmp_ps(d, _mm256_set1_ps(kNear), _CMP_LT_OQ),
                                         _mm256_cmp_ps(d, _mm256_set1_ps(1.0f - kNear), _CMP_GT_OQ)));
  return _mm256_min_ps(_mm256_max_ps(f, _mm256_setzero_ps()), _mm256_set1_ps(255.f));
}

// Eight floats holding integers 0..255 stored as bytes.
inline void store_bytes8(std::uint8_t* d, __m256 v) {
  const __m256i k = _mm256_cvttps_epi32(v);
  const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(k), _mm256_extracti128_si256(k, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(d), _mm_packus_epi16(w, w));
}

// (k_r R + k_g G) + k_b B in float.
inline __m256 dot3(__m256 R, __m256 G, __m256 B, double kr, double kg, double kb) {
  return _mm256_add_ps(
      _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(float(kr)), R), _mm256_mul_ps(_mm256_set1_ps(float(kg)), G)),
      _mm256_mul_ps(_mm256_set1_ps(float(kb)), B));
}

// Eight bytes as floats.
inline __m256 bytes8_ps(const std::uint8_t* p) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

void ycc_row(const float* r, const float* g, const float* b, std::int64_t n, std::uint8_t* y, std::uint8_t* cb,
             std::uint8_t* cr) {
  using namespace math::jpeg;
  const __m256 half = _mm256_set1_ps(0.5f), c128h = _mm256_set1_ps(128.5f);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 R = _mm256_loadu_ps(r + i), G = _mm256_loadu_ps(g + i), B = _mm256_loadu_ps(b + i);
    __m256 near = _mm256_setzero_ps();
    const __m256 vy = floor_clamp(_mm256_add_ps(dot3(R, G, B, kYr, kYg, kYb), half), near);
    const __m256 vb = floor_clamp(_mm256_add_ps(dot3(R, G, B, kCbR, kCbG, kCbB), c128h), near);
    const __m256 vr = floor_clamp(_mm256_add_ps(dot3(R, G, B, kCrR, kCrG, kCrB), c128h), near);
    if (_mm256_movemask_ps(near) != 0) {
      portable_stages().ycc_row(r + i, g + i, b + i, 8, y + i, cb + i, cr + i);
      continue;
    }
    store_bytes8(y + i, vy);
    store_bytes8(cb + i, vb);
    store_bytes8(cr + i, vr);
  }
  if (i < n) portable_stages().ycc_row(r + i, g + i, b + i, n - i, y + i, cb + i, cr + i);
}

std::uint64_t block(const std::uint8_t* from, std::int64_t fs, const float* scale, const float* qt, std::int16_t* q,
                    std::uint8_t* to, std::int64_t ts) {
  const Consts4<__m256> c = fl_consts();
  const __m256 c128 = _mm256_set1_ps(128.f), half = _mm256_set1_ps(0.5f);
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
    n = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(n, c128), _mm256_setzero_ps()), _mm256_set1_ps(255.f));
    const __m256i k = _mm256_cvtps_epi32(n);
    const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(k), _mm256_extracti128_si256(k, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(to + i * ts), _mm_packus_epi16(w, w));
  }
  return nonzero;
}

void block2(const std::uint8_t* from, std::int64_t fs, const float* scale, const float* qt, std::int16_t* q,
            std::uint8_t* to, std::int64_t ts, std::uint64_t (&nonzero)[2]) {
  nonzero[0] = block(from, fs, scale, qt, q, to, ts);
  nonzero[1] = block(from + 8, fs, scale, qt, q + 64, to + 8, ts);
}

// R, G, B of eight pixels (rgb_row's arithmetic); `near` gets the lanes that lie near a rounding boundary.
inline void rgb8(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, bool half, __m256& R, __m256& G,
                 __m256& B, __m256& near) {
  using namespace math::jpeg;
  const __m256 c128 = _mm256_set1_ps(128.f), h = _mm256_set1_ps(0.5f);
  __m256 Cb, Cr;
  if (half) {  // four chroma samples, each for two pixels
    std::uint32_t b4, r4;
    std::memcpy(&b4, cb, 4);
    std::memcpy(&r4, cr, 4);
    const __m128i vb = _mm_cvtsi32_si128(static_cast<int>(b4)), vr = _mm_cvtsi32_si128(static_cast<int>(r4));
    Cb = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_unpacklo_epi8(vb, vb)));
    Cr = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_unpacklo_epi8(vr, vr)));
  } else {
    Cb = bytes8_ps(cb);
    Cr = bytes8_ps(cr);
  }
  const __m256 Y = bytes8_ps(y);
  Cb = _mm256_sub_ps(Cb, c128);
  Cr = _mm256_sub_ps(Cr, c128);
  near = _mm256_setzero_ps();
  R = floor_clamp(_mm256_add_ps(_mm256_add_ps(Y, _mm256_mul_ps(_mm256_set1_ps(float(kRCr)), Cr)), h), near);
  G = floor_clamp(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(Y, _mm256_mul_ps(_mm256_set1_ps(float(kGCb)), Cb)),
                                              _mm256_mul_ps(_mm256_set1_ps(float(kGCr)), Cr)),
                                h),
                  near);
  B = floor_clamp(_mm256_add_ps(_mm256_add_ps(Y, _mm256_mul_ps(_mm256_set1_ps(float(kBCb)), Cb)), h), near);
}

// rgb_row's loop for an output type: store(p, v) writes eight lanes; groups near a rounding boundary and the tail
// go to the portable stage `exact`.
template <class Out, class Store>
void rgb_rows(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half, Out* r,
              Out* g, Out* b, Store store,
              void (*exact)(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*, std::int64_t, bool, Out*,
                            Out*, Out*)) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::int64_t k = half ? i / 2 : i;
    __m256 R, G, B, near;
    rgb8(y + i, cb + k, cr + k, half, R, G, B, near);
    if (_mm256_movemask_ps(near) != 0) {
      exact(y + i, cb + k, cr + k, 8, half, r + i, g + i, b + i);
      continue;
    }
    store(r + i, R);
    store(g + i, G);
    store(b + i, B);
  }
  if (i < n) exact(y + i, cb + (half ? i / 2 : i), cr + (half ? i / 2 : i), n - i, half, r + i, g + i, b + i);
}

void rgb_row(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half, float* r,
             float* g, float* b) {
  rgb_rows(
      y, cb, cr, n, half, r, g, b, [](float* p, __m256 v) { _mm256_storeu_ps(p, v); }, portable_stages().rgb_row);
}

void rgb_row8(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n, bool half,
              std::uint8_t* r, std::uint8_t* g, std::uint8_t* b) {
  rgb_rows(
      y, cb, cr, n, half, r, g, b, [](std::uint8_t* p, __m256 v) { store_bytes8(p, v); }, portable_stages().rgb_row8);
}

void ycc_row8(const std::uint8_t* rgb, std::int64_t n, std::uint8_t* y, std::uint8_t* cb, std::uint8_t* cr) {
  using namespace math::jpeg;
  const __m256 half = _mm256_set1_ps(0.5f), c128h = _mm256_set1_ps(128.5f);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 R, G, B;
    load_rgb8(rgb + 3 * i, R, G, B);
    __m256 near = _mm256_setzero_ps();
    const __m256 vy = floor_clamp(_mm256_add_ps(dot3(R, G, B, kYr, kYg, kYb), half), near);
    const __m256 vb = floor_clamp(_mm256_add_ps(dot3(R, G, B, kCbR, kCbG, kCbB), c128h), near);
    const __m256 vr = floor_clamp(_mm256_add_ps(dot3(R, G, B, kCrR, kCrG, kCrB), c128h), near);
    if (_mm256_movemask_ps(near) != 0) {
      portable_stages().ycc_row8(rgb + 3 * i, 8, y + i, cb + i, cr + i);
      continue;
    }
    store_bytes8(y + i, vy);
    store_bytes8(cb + i, vb);
    store_bytes8(cr + i, vr);
  }
  if (i < n) portable_stages().ycc_row8(rgb + 3 * i, n - i, y + i, cb + i, cr + i);
}

// The squares of the differences as int32 (at most 3 * 255^2 per pixel, summed per lane over a chunk of at most
// 4096 pixels: < 2^31), the chunks' sums in int64.
std::int64_t rgb_sse_row8(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n,
                          bool half, const std::uint8_t* rgb) {
  std::int64_t total = 0, i = 0;
  while (i + 8 <= n) {
    __m256i acc = _mm256_setzero_si256();
    const std::int64_t end = std::min(n, i + 4096);
    for (; i + 8 <= end; i += 8) {
      const std::int64_t k = half ? i / 2 : i;
      __m256 R, G, B, near, r0, g0, b0;
      rgb8(y + i, cb + k, cr + k, half, R, G, B, near);
      if (_mm256_movemask_ps(near) != 0) {
        total += portable_stages().rgb_sse_row8(y + i, cb + k, cr + k, 8, half, rgb + 3 * i);
        continue;
      }
      load_rgb8(rgb + 3 * i, r0, g0, b0);
      const __m256i dr = _mm256_cvttps_epi32(_mm256_sub_ps(R, r0)), dg = _mm256_cvttps_epi32(_mm256_sub_ps(G, g0)),
                    db = _mm256_cvttps_epi32(_mm256_sub_ps(B, b0));
      acc = _mm256_add_epi32(acc,
                             _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(dr, dr), _mm256_mullo_epi32(dg, dg)),
                                              _mm256_mullo_epi32(db, db)));
    }
    alignas(32) std::int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
    for (const std::int32_t v : lanes) total += v;
  }
  if (i < n)
    total += portable_stages().rgb_sse_row8(y + i, cb + (half ? i / 2 : i), cr + (half ? i / 2 : i), n - i, half,
                                            rgb + 3 * i);
  return total;
}

}  // namespace

const Stages& avx2_stages() {
  static const Stages s{ycc_row, block, rgb_row, block2, ycc_row8, rgb_sse_row8, rgb_row8};
  return s;
}

}  // namespace dct::cpu::jpeg

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
