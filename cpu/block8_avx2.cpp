/* AVX2 block kernels for cpu-8x8-flmad and cpu-8x8-aan (f32), chosen at plan time when the CPU has AVX2.

   One 8x8 block is eight 8-float registers, one per row. The 1-D graph (math/block8.hpp) applied
   across the eight registers transforms all eight columns at once (lane j = column j); an in-register 8x8
   transpose (unpack / shuffle / 128-bit permute, 24 instructions) turns rows into lanes and the same graph
   transforms the rows; a second transpose restores the layout. Forward: Y = S ∘ (K X K^T), S applied on
   the way out; inverse: X = K' (S' ∘ Y) K'^T, S' applied on the way in (cpu/block8.hpp). Every block is
   loaded and stored once, as 8 rows of 32 bytes. */
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "cpu/block8.hpp"

#pragma GCC diagnostic ignored "-Wignored-attributes"  // __m256 as a template argument
#if defined(__clang__)                                 // clang ignores GCC's target pragma
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include "math/block8.hpp"

namespace dct::cpu::block8 {

using namespace math::block8;  // NOLINT(google-build-using-namespace): the shared flowgraphs
namespace {

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

using Graph = void (*)(__m256 (&)[8], const Consts4<__m256>&);

template <Graph G, bool kInverse>
inline void strip(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table,
                  const Consts4<__m256>& c) {
  __m256 s[8];
  for (int i = 0; i < 8; ++i) s[i] = _mm256_loadu_ps(table + 8 * i);
  for (std::int64_t b = 0; b < nb; ++b) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + i * w + 8 * b);
    if constexpr (kInverse)
      for (int i = 0; i < 8; ++i) r[i] = _mm256_mul_ps(r[i], s[i]);
    G(r, c);
    transpose8(r);
    G(r, c);
    transpose8(r);
    if constexpr (!kInverse)
      for (int i = 0; i < 8; ++i) r[i] = _mm256_mul_ps(r[i], s[i]);
    for (int i = 0; i < 8; ++i) _mm256_storeu_ps(out + i * w + 8 * b, r[i]);
  }
}

Consts4<__m256> splat(double a, double b, double c, double d) {
  return {_mm256_set1_ps(static_cast<float>(a)), _mm256_set1_ps(static_cast<float>(b)),
          _mm256_set1_ps(static_cast<float>(c)), _mm256_set1_ps(static_cast<float>(d))};
}

}  // namespace

void fl_strip_forward_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table) {
  strip<fl_forward<__m256>, false>(in, out, w, nb, table, splat(kFlT1, kFlT2, kFlT3, kFlR));
}
void fl_strip_inverse_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table) {
  strip<fl_inverse<__m256>, true>(in, out, w, nb, table, splat(kFlT1, kFlT2, kFlT3, kFlR));
}
void aan_strip_forward_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table) {
  strip<aan_forward<__m256>, false>(in, out, w, nb, table, splat(kAanA1, kAanA2, kAanA4, kAanA5));
}
void aan_strip_inverse_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table) {
  strip<aan_inverse<__m256>, true>(in, out, w, nb, table, splat(kAanI1, kAanI2, kAanI3, kAanI4));
}

}  // namespace dct::cpu::block8

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
