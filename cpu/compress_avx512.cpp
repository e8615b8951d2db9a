/* AVX-512 stage of the CPU compressor's jpeg block loop (cpu/compress_jpeg.hpp), chosen once where the CPU has
   AVX-512 F/BW/DQ/VL: two horizontally adjacent 8x8 blocks at once, block A in the low and block B in the high 256
   bits of each register (row i of both is one 16-byte load). Every value goes through exactly the IEEE operations of
   the AVX2 block (cpu/compress_avx2.cpp) in the same order (no FMA: -ffp-contract=off and intrinsics only), so q and
   the reconstruction are bit-identical to it, to the portable stage and to the GPU coefficient kernel. */
#include <immintrin.h>

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

#include "math/block8.hpp"

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
  const __m512 c128 = _mm512_set1_ps(128.f), half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f);
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
    n = _mm512_mask_add_ps(n, _mm512_cmp_ps_mask(_mm512_sub_ps(v, n), half, _CMP_EQ_OQ), n, one);
    n = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(n, c128), zero), c255);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i * ts), _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(n)));
  }
}

}  // namespace

const Stages& avx512_stages() {
  static const Stages s = [] {
    Stages t = avx2_stages();
    t.block2 = block2;
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
