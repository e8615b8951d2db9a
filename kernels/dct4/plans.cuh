#pragma once
// Internal to the DCT-IV backends: plan factories (one per algorithm file) and the line geometry the
// kernels share. Lines of length n run along rows (contiguous) or down the columns of each matrix.
#include <cstdint>
#include <memory>

#include "core/backend.hpp"
#include "kernels/common/plan.cuh"

namespace dct::cuda::dct4 {

std::unique_ptr<core::Plan> make_fft_plan(const core::TransformDesc& d);                     // fft.cu
std::unique_ptr<core::Plan> make_direct_plan(const core::TransformDesc& d);                  // direct.cu
std::unique_ptr<core::Plan> make_small_plan(const core::TransformDesc& d);                   // small.cu
std::unique_ptr<core::Plan> make_sections_plan(const core::TransformDesc& d, int sections);  // sections.cu

// σ (docs/algorithms.md §1) for a line of length n: dct4 none 2, idct4 none 1/n, ortho √(2/n).
double sigma(core::Op op, core::Norm norm, i64 n);

// `lines` lines of length n: rows (line l at l*n, unit stride) or columns (matrices of n rows x width
// columns; line l = b*width + j at b*n*width + j, stride width). I: the index type (32 or 64 bit).
template <class I>
struct LineMap {
  I n, lines, width;
  bool cols;
  __host__ __device__ I elem(I l, I e) const {
    if (!cols) return l * n + e;
    const I b = l / width;
    return (b * n + e) * width + (l - b * width);
  }
  __host__ __device__ I stride() const { return cols ? width : I(1); }
  // Workspace slot e of line l for `len` slots per line: line-major for rows, slot-major for columns (so
  // both the twiddle passes and cuFFT's strided batches stay coalesced).
  __host__ __device__ I ws(I l, I e, I len) const { return cols ? e * lines + l : l * len + e; }
  // Thread index -> (line, slot) for `len` slots per line, the fast index walking memory order.
  __host__ __device__ void split(I idx, I len, I& l, I& e) const {
    if (!cols) {
      l = idx / len;
      e = idx - l * len;
    } else {
      e = idx / lines;
      l = idx - e * lines;
    }
  }
};

// Grid for a grid-stride loop over `count` items with 256-thread blocks.
inline unsigned flat_blocks(i64 count) {
  const i64 b = (count + 255) / 256;
  return static_cast<unsigned>(b < 1 ? 1 : (b > (1 << 20) ? (1 << 20) : b));
}

}  // namespace dct::cuda::dct4
