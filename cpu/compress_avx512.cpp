/* AVX-512 stages of the CPU compressor's jpeg block loop (cpu/compress_jpeg.hpp), chosen once where the CPU has
   AVX-512 F/BW/DQ/VL. The colour stages from 8-bit samples run the AVX2 ones' float arithmetic sixteen pixels at a
   time (the same operations per lane, the same near-boundary fallback to the definition). block2: two horizontally
   adjacent 8x8 blocks at once, block A in the low and block B in the high 256
   bits of each register (row i of both is one 16-byte load). Every value goes through exactly the IEEE operations of
   the AVX2 block (cpu/compress_avx2.cpp) in the same order (no FMA: -ffp-contract=off and intrinsics only), so q and
   the reconstruction are bit-identical to it, to the portable stage and to the GPU coefficient kernel. */
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "cpu/compress_jpeg.hpp"

#pragma GCC diagnostic ignored "-Wignored-attributes"  // __m512 as a template argument
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12 on _mm512_undefined_* inside its own intrinsics
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#endif

#include "cpu/compress_simd.hpp"
#include "math/block8.hpp"
#include "math/jpeg.hpp"

namespace dct::cpu::jpeg {
namespace {

using math::block8::Consts4;

// transpose8 of cpu/compress_avx2.cpp in each 256-bit half: the unpack and shuffle steps act per 128-bit lane as
// there; the last step pairs 128-bit lanes (lo of s_k with lo of s_k+4, per half) by one two-source permute.
inline void transpose8x2(__m512 (&r)[8]) {
  const __m512 t0 = _mm512_unpacklo_ps(r[0], r[1]), t1 = _mm512_unpackhi_ps(r[0], r[1]);
  const __m512 t2 = _mm512_unpacklo_ps(r[2], r[3]), t3 = _mm512_unpackhi_ps(r[2], r[3]);
  const __m512 t4 = _mm512_unpacklo_ps(r[4], r[5]), t5 = _mm512_unpackhi_ps(r[4], r[5]);
  const __m512 t6 = _mm512_unpacklo_ps(r[6], r[7]), t7 = _mm512_unpackhi_ps(r[6], r[7]);
  const __m512 s0 = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 s1 = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 s2 = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 s3 = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 s4 = _mm512_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 s5 = _mm512_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 s6 = _mm512_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 s7 = _mm512_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  // Lanes of 4 floats: result = (a.L0, b.L0, a.L2, b.L2) for "lo", (a.L1, b.L1, a.L3, b.L3) for "hi".
  const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
  const __m512i hi = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
  r[0] = _mm512_permutex2var_ps(s0, lo, s4);
  r[1] = _mm512_permutex2var_ps(s1, lo, s5);
  r[2] = _mm512_permutex2var_ps(s2, lo, s6);
  r[3] = _mm512_permutex2var_ps(s3, lo, s7);
  r[4] = _mm512_permutex2var_ps(s0, hi, s4);
  r[5] = _mm512_permutex2var_ps(s1, hi, s5);
  r[6] = _mm512_permutex2var_ps(s2, hi, s6);
  r[7] = _mm512_permutex2var_ps(s3, hi, s7);
}

void block2(const std::uint8_t* from, std::int64_t fs, const float* scale, const float* qt, std::int16_t* q,
            std::uint8_t* to, std::int64_t ts, std::uint64_t (&nonzero)[2]) {
  const Consts4<__m512> c{
      _mm512_set1_ps(static_cast<float>(math::block8::kFlT1)), _mm512_set1_ps(static_cast<float>(math::block8::kFlT2)),
      _mm512_set1_ps(static_cast<float>(math::block8::kFlT3)), _mm512_set1_ps(static_cast<float>(math::block8::kFlR))};
  const __m512 c128 = _mm512_set1_ps(128.f), half = _mm512_set1_ps(0.5f);
  const __m512 zero = _mm512_setzero_ps(), c255 = _mm512_set1_ps(255.f);
  __m512 r[8];
  for (int i = 0; i < 8; ++i) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i * fs));
    r[i] = _mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)), c128);
  }
  math::block8::fl_forward(r, c);
  transpose8x2(r);
  math::block8::fl_forward(r, c);
  transpose8x2(r);
  std::uint64_t nz_a = 0, nz_b = 0;
  for (int i = 0; i < 8; ++i) {
    const __m512 s = _mm512_broadcast_f32x8(_mm256_loadu_ps(scale + 8 * i));
    const __m512 t = _mm512_broadcast_f32x8(_mm256_loadu_ps(qt + 8 * i));
    const __m512 f = _mm512_mul_ps(r[i], s);
    const __m512 qf = _mm512_roundscale_ps(_mm512_add_ps(_mm512_div_ps(f, t), half), _MM_FROUND_TO_NEG_INF);
    const __m256i q16 = _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(qf));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 8 * i), _mm256_castsi256_si128(q16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 64 + 8 * i), _mm256_extracti128_si256(q16, 1));
    const unsigned m = _mm512_cmp_ps_mask(qf, zero, _CMP_NEQ_OQ);
    nz_a |= std::uint64_t(m & 0xff) << (8 * i);
    nz_b |= std::uint64_t(m >> 8) << (8 * i);
    r[i] = _mm512_mul_ps(_mm512_mul_ps(qf, t), s);
  }
  nonzero[0] = nz_a;
  nonzero[1] = nz_b;
  math::block8::fl_inverse(r, c);
  transpose8x2(r);
  math::block8::fl_inverse(r, c);
  transpose8x2(r);
  for (int i = 0; i < 8; ++i) {
    const __m512 v = r[i];
    __m512 n = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    n = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(n, c128), zero), c255);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i * ts), _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(n)));
  }
}

// ---- colour, sixteen pixels per register -------------------------------------------------------------------

using simd::kNear;

// floor(v) clamped to 0..255, and the lanes within kNear of an integer added to `near`.
inline __m512 floor_clamp(__m512 v, __mmask16& near) {
  const __m512 f = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), d = _mm512_sub_ps(v, f);
  near |= _mm512_cmp_ps_mask(d, _mm512_set1_ps(kNear), _CMP_LT_OQ) |
          _mm512_cmp_ps_mask(d, _mm512_set1_ps(1.0f - kNear), _CMP_GT_OQ);
  return _mm512_min_ps(_mm512_max_ps(f, _mm512_setzero_ps()), _mm512_set1_ps(255.f));
}

inline __m512 dot3(__m512 R, __m512 G, __m512 B, double kr, double kg, double kb) {
  return _mm512_add_ps(
      _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(float(kr)), R), _mm512_mul_ps(_mm512_set1_ps(float(kg)), G)),
      _mm512_mul_ps(_mm512_set1_ps(float(kb)), B));
}

inline __m512 join(__m256 a, __m256 b) { return _mm512_insertf32x8(_mm512_castps256_ps512(a), b, 1); }

// Sixteen interleaved 8-bit pixels (48 bytes) as float R, G, B.
inline void load_rgb16(const std::uint8_t* p, __m512& R, __m512& G, __m512& B) {
  __m256 r0, g0, b0, r1, g1, b1;
  simd::load_rgb8(p, r0, g0, b0);
  simd::load_rgb8(p + 24, r1, g1, b1);
  R = join(r0, r1);
  G = join(g0, g1);
  B = join(b0, b1);
}

inline void store_bytes16(std::uint8_t* d, __m512 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm512_cvtusepi32_epi8(_mm512_cvttps_epi32(v)));
}

inline __m512 bytes16_ps(const __m128i b) { return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)); }

void ycc_row8(const std::uint8_t* rgb, std::int64_t n, std::uint8_t* y, std::uint8_t* cb, std::uint8_t* cr) {
  using namespace math::jpeg;
  const __m512 half = _mm512_set1_ps(0.5f), c128h = _mm512_set1_ps(128.5f);
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 R, G, B;
    load_rgb16(rgb + 3 * i, R, G, B);
    __mmask16 near = 0;
    const __m512 vy = floor_clamp(_mm512_add_ps(dot3(R, G, B, kYr, kYg, kYb), half), near);
    const __m512 vb = floor_clamp(_mm512_add_ps(dot3(R, G, B, kCbR, kCbG, kCbB), c128h), near);
    const __m512 vr = floor_clamp(_mm512_add_ps(dot3(R, G, B, kCrR, kCrG, kCrB), c128h), near);
    if (near != 0) {
      portable_stages().ycc_row8(rgb + 3 * i, 16, y + i, cb + i, cr + i);
      continue;
    }
    store_bytes16(y + i, vy);
    store_bytes16(cb + i, vb);
    store_bytes16(cr + i, vr);
  }
  if (i < n) avx2_stages().ycc_row8(rgb + 3 * i, n - i, y + i, cb + i, cr + i);
}

// rgb_row's R, G, B of sixteen pixels; `near` gets the lanes near a rounding boundary.
inline void rgb16(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, bool half, __m512& R,
                  __m512& G, __m512& B, __mmask16& near) {
  using namespace math::jpeg;
  const __m512 c128 = _mm512_set1_ps(128.f), h = _mm512_set1_ps(0.5f);
  __m512 Cb, Cr;
  if (half) {  // eight chroma samples, each for two pixels
    const __m128i vb = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(cb));
    const __m128i vr = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(cr));
    Cb = bytes16_ps(_mm_unpacklo_epi8(vb, vb));
    Cr = bytes16_ps(_mm_unpacklo_epi8(vr, vr));
  } else {
    Cb = bytes16_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(cb)));
    Cr = bytes16_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(cr)));
  }
  const __m512 Y = bytes16_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y)));
  Cb = _mm512_sub_ps(Cb, c128);
  Cr = _mm512_sub_ps(Cr, c128);
  near = 0;
  R = floor_clamp(_mm512_add_ps(_mm512_add_ps(Y, _mm512_mul_ps(_mm512_set1_ps(float(kRCr)), Cr)), h), near);
  G = floor_clamp(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(Y, _mm512_mul_ps(_mm512_set1_ps(float(kGCb)), Cb)),
                                              _mm512_mul_ps(_mm512_set1_ps(float(kGCr)), Cr)),
                                h),
                  near);
  B = floor_clamp(_mm512_add_ps(_mm512_add_ps(Y, _mm512_mul_ps(_mm512_set1_ps(float(kBCb)), Cb)), h), near);
}

// As the AVX2 stage: int32 lanes over chunks of at most 4096 pixels, the chunks' sums in int64.
std::int64_t rgb_sse_row8(const std::uint8_t* y, const std::uint8_t* cb, const std::uint8_t* cr, std::int64_t n,
                          bool half, const std::uint8_t* rgb) {
  std::int64_t total = 0, i = 0;
  while (i + 16 <= n) {
    __m512i acc = _mm512_setzero_si512();
    const std::int64_t end = std::min(n, i + 4096);
    for (; i + 16 <= end; i += 16) {
      const std::int64_t k = half ? i / 2 : i;
      __m512 R, G, B, r0, g0, b0;
      __mmask16 near;
      rgb16(y + i, cb + k, cr + k, half, R, G, B, near);
      if (near != 0) {
        total += portable_stages().rgb_sse_row8(y + i, cb + k, cr + k, 16, half, rgb + 3 * i);
        continue;
      }
      load_rgb16(rgb + 3 * i, r0, g0, b0);
      const __m512i dr = _mm512_cvttps_epi32(_mm512_sub_ps(R, r0)), dg = _mm512_cvttps_epi32(_mm512_sub_ps(G, g0)),
                    db = _mm512_cvttps_epi32(_mm512_sub_ps(B, b0));
      acc = _mm512_add_epi32(acc,
                             _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(dr, dr), _mm512_mullo_epi32(dg, dg)),
                                              _mm512_mullo_epi32(db, db)));
    }
    total += _mm512_reduce_add_epi32(acc);
  }
  if (i < n)
    total +=
        avx2_stages().rgb_sse_row8(y + i, cb + (half ? i / 2 : i), cr + (half ? i / 2 : i), n - i, half, rgb + 3 * i);
  return total;
}

}  // namespace

const Stages& avx512_stages() {
  static const Stages s = [] {
    Stages t = avx2_stages();
    t.block2 = block2;
    t.ycc_row8 = ycc_row8;
    t.rgb_sse_row8 = rgb_sse_row8;
    return t;
  }();
  return s;
}

}  // namespace dct::cpu::jpeg

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
