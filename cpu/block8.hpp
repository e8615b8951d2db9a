#pragma once
// The 8x8 block DCT family on the CPU (block mode, --block 8): cpu-8x8-naive, cpu-8x8-aan,
// cpu-8x8-flmad. Each is one 8-point algorithm (a table entry below) run separably by one shared driver
// (cpu/block8.cpp): a column pass over whole 8-row strips, then a row pass on a deinterleaved copy, both
// vectorized across lanes, blocks spread over OpenMP threads ([4] §4.1.6: outer loop over blocks).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "core/backend.hpp"

namespace dct::cpu {

std::unique_ptr<core::Backend> make_block8_naive_backend();  // "cpu-8x8-naive": the separable definition
std::unique_ptr<core::Backend> make_block8_aan_backend();    // "cpu-8x8-aan": Arai-Agui-Nakajima
std::unique_ptr<core::Backend> make_block8_flmad_backend();  // "cpu-8x8-flmad": Feig-Linzer multiply-add

namespace block8 {

// A lane kernel: 8 input rows x[i * xs + l] and 8 output rows y[k * ys + l], l = 0..n-1 (one independent
// 8-point transform per lane l). x and y do not overlap.
// A strip kernel: nb consecutive 8x8 blocks of an 8-row strip (row stride w), scale table applied
// (after the transform for the forward, before it for the inverse). f32, AVX2 (cpu/block8_avx2.cpp).
using StripKernel = void (*)(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table);
void fl_strip_forward_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table);
void fl_strip_inverse_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table);
void aan_strip_forward_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table);
void aan_strip_inverse_avx2(const float* in, float* out, std::int64_t w, std::int64_t nb, const float* table);

template <class T>
using LaneKernel = void (*)(const T* x, std::ptrdiff_t xs, T* y, std::ptrdiff_t ys, std::ptrdiff_t n);

// One 8-point algorithm. With C the orthonormal 8-point DCT-II matrix (norm `ortho`):
//   C   = diag(fwd_scale) · K      (forward kernel K, scaling left out of the graph)
//   C^T = K' · diag(inv_scale)     (inverse kernel K', scaling applied to its input)
// so a 2-D block is Y = S_f ∘ (K X K^T) and X = K' (S_i ∘ Y) K'^T with S[i][j] = scale_i · scale_j: the
// 16 per-row scalings of a separable pass become one 64-entry table (and absorb the `none` norm).
struct Algorithm {
  std::string_view name;
  std::string_view description;
  std::array<double, 8> fwd_scale;
  std::array<double, 8> inv_scale;
  LaneKernel<float> fwd_f32, inv_f32;
  LaneKernel<double> fwd_f64, inv_f64;
  StripKernel fwd_strip_avx2 = nullptr, inv_strip_avx2 = nullptr;  // f32 on AVX2 CPUs (none: lanes only)
};

const Algorithm& naive_algorithm();
const Algorithm& aan_algorithm();
const Algorithm& flmad_algorithm();

}  // namespace block8
}  // namespace dct::cpu
