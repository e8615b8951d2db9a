#pragma once
// Pieces shared by the SIMD stages of the CPU compressor's jpeg loop (cpu/compress_avx2.cpp, cpu/compress_avx512.cpp).
// Include only inside a region compiled for AVX2 or wider (their target pragmas). Internal linkage on purpose: each
// file's copy is compiled for its own target, and one copy must never stand in for another (an AVX-512 encoding
// reached from the AVX2 stages would fault on a CPU without AVX-512).
#include <immintrin.h>

#include <cstdint>

namespace dct::cpu::jpeg::simd {
namespace {  // NOLINT(google-build-namespaces): see above

// The colour conversions in float, eight pixels at a time, exact: v = the definition's sum in float (its error is
// below 1e-4 for these ranges), floor(v + 0.5) equals the definition's double result wherever v + 0.5 lies more than
// kNear from an integer; a group of eight with any lane nearer is redone by the portable stage (the definition).
// Ties occur at about one pixel in a thousand (Y's constants have three decimals), so the fallback is rare; the
// exhaustive test over all 2^24 colours (tests/cpu/test_compress_core.cpp) checks every group.
inline constexpr float kNear = 1.0f / 4096;

// R, G, B of eight interleaved 8-bit pixels (24 bytes) as floats.
inline void load_rgb8(const std::uint8_t* p, __m256& R, __m256& G, __m256& B) {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));       // bytes 0..15
  const __m128i hi = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 16));  // bytes 16..23
  constexpr char z = -1;
  const __m128i r = _mm_or_si128(_mm_shuffle_epi8(lo, _mm_setr_epi8(0, 3, 6, 9, 12, 15, z, z, z, z, z, z, z, z, z, z)),
                                 _mm_shuffle_epi8(hi, _mm_setr_epi8(z, z, z, z, z, z, 2, 5, z, z, z, z, z, z, z, z)));
  const __m128i g = _mm_or_si128(_mm_shuffle_epi8(lo, _mm_setr_epi8(1, 4, 7, 10, 13, z, z, z, z, z, z, z, z, z, z, z)),
                                 _mm_shuffle_epi8(hi, _mm_setr_epi8(z, z, z, z, z, 0, 3, 6, z, z, z, z, z, z, z, z)));
  const __m128i b = _mm_or_si128(_mm_shuffle_epi8(lo, _mm_setr_epi8(2, 5, 8, 11, 14, z, z, z, z, z, z, z, z, z, z, z)),
                                 _mm_shuffle_epi8(hi, _mm_setr_epi8(z, z, z, z, z, 1, 4, 7, z, z, z, z, z, z, z, z)));
  R = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(r));
  G = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(g));
  B = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
}

}  // namespace
}  // namespace dct::cpu::jpeg::simd
