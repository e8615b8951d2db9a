#pragma once
/* Host/device plumbing of cuda-jpeg-fused (kernels/compress/jpeg_fused.cu): the kernel's parameters and quantization
   tables, the histogram of q for the entropy estimate, and the byte rows. The kernel itself, the 8x8 DCTs on the
   tensor cores, is kernels/compress/jpeg_fused_tc.cuh. Plain CUDA, written so that the host emulator
   (tests/emulate) can compile it as host C++ (it supplies the intrinsics). */
#include <algorithm>
#include <cstddef>

#include "core/compress.hpp"

namespace dct::cuda::jpeg_fused {

constexpr int kBins = 4096;  // global q histogram over [−2048, 2047]
constexpr int kZeroBin = 2048;
constexpr int kHalfBinsStep = 128;    // the shared histogram's half width is a multiple of this
constexpr float kMagic = 12582912.f;  // 1.5 · 2^23: M + q has bits 0x4B400000 + q for |q| < 2^22
constexpr unsigned kMagicBits = 0x4B400000u;

// The four coefficients whose F is a plain sum of samples (scale 1/8): exact ties are possible there.
__host__ __device__ constexpr int tie_slot(int k) { return k == 0 ? 0 : k == 4 ? 1 : k == 32 ? 2 : k == 36 ? 3 : -1; }

struct Table {
  float qf[64];  // Q (the kernel quantizes the unscaled F' = 8F of its tensor-core DCT)
};

struct Params {
  const unsigned char* in;
  unsigned char* out;
  unsigned long long* hist;  // kBins bins, q = i − kZeroBin; the zero bin is not written
  int h, w, channels, blocks_x, ctas_x;
  int half_bins;         // the shared histogram covers q in [−half_bins, half_bins − 1]
  int strips;            // 8-row strips of the padded image (H/8 rounded up)
  Table tab[2];          // luma, chroma
  const void* tc_setup;  // 32 tc::LaneSetup (the lanes' MMA fragments and quantizer constants; device memory)
  int tc_chunk;          // (column, strip) units per CTA
};

// The kernel's tables for one quality: the Annex K tables scaled as libjpeg does.
inline void make_tables(int quality, Table (&tab)[2]) {
  for (int c = 0; c < 2; ++c) {
    const auto q = core::quant_table(quality, c == 1);
    for (int k = 0; k < 64; ++k) tab[c].qf[k] = static_cast<float>(q[k]);
  }
}

// Half the shared histogram's width: |F| <= 1024 for level-shifted 8-bit samples (Σ|basis| <= 8), so
// |q| <= 1024/Q + 1; a multiple of kHalfBinsStep, at most kZeroBin. No q can fall outside it (no clamp).
inline int half_bins_for(int quality) {
  int qmax = 0;
  for (int c = 0; c < 2; ++c)
    for (int q : core::quant_table(quality, c == 1)) qmax = std::max(qmax, 1024 / q + 2);
  return std::min((qmax + 1 + kHalfBinsStep - 1) / kHalfBinsStep * kHalfBinsStep, kZeroBin);
}

__device__ __forceinline__ unsigned fbits(float f) { return __float_as_uint(f); }

// The CTA's shared histogram (2 half_bins bins): cleared before the first __syncthreads, added to the
// global one (bins q + kZeroBin) after the last.
__device__ __forceinline__ void hist_clear(const Params& p, unsigned* hist, int t, int threads) {
  for (int i = t; i < 2 * p.half_bins; i += threads) hist[i] = 0;
}
__device__ __forceinline__ void hist_flush(const Params& p, const unsigned* hist, int t, int threads) {
  for (int i = t; i < 2 * p.half_bins; i += threads)
    if (hist[i] != 0) atomicAdd(&p.hist[i - p.half_bins + kZeroBin], static_cast<unsigned long long>(hist[i]));
}

// Where q = bits(M + q) − kMagicBits is counted: hist[q + half_bins] of the CTA's shared histogram. On the device a
// shared-window address (base + 4 bits, one IMAD) and a predicated red.shared (no branch per coefficient).
struct HistAt {
#ifdef __CUDA_ARCH__
  unsigned base;  // shared address of hist[half_bins − kMagicBits] (mod 2^32)
#else
  unsigned* hist;
  int half_bins;
#endif
};

__device__ __forceinline__ HistAt hist_at(unsigned* hist, int half_bins) {
#ifdef __CUDA_ARCH__
  return {static_cast<unsigned>(__cvta_generic_to_shared(hist)) + 4u * (static_cast<unsigned>(half_bins) - kMagicBits)};
#else
  return {hist, half_bins};
#endif
}

}  // namespace dct::cuda::jpeg_fused
