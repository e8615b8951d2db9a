/* The driver shared by the 8x8 block backends (cpu-8x8-naive, -aan, -flmad; cpu/block8.hpp).

   A 2-D block transform is separable: Y = S ∘ (K X K^T) per 8x8 tile, S the algorithm's 64-entry scale
   table (norm `ortho`, or `none` = ortho times σ_i σ_j, σ_0 = 4√2, σ_k = 4 for N = 8). The image is cut
   into strips of 8 rows and each strip into chunks of up to kChunkCols columns (L1-resident):
     1. column pass: K along the 8 rows of the strip, one lane per column — the input rows are the lanes,
        read in place, no reordering;
     2. deinterleave: lane (row l, block b) of row j ← column 8b + j (so the row transform also runs
        across contiguous lanes);
     3. row pass: K again; 4. interleave back while multiplying by S.
   The inverse is X = K' (S' ∘ Y) K'^T: scaled load, then the same two passes with K'. Every pass is a
   lane loop the compiler vectorizes; chunks are independent and spread over OpenMP threads (the outer
   loop, [4] §4.1.6). */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "cpu/backends.hpp"
#include "cpu/block8.hpp"
#include "cpu/common.hpp"

namespace dct::cpu {
namespace {

using block8::Algorithm;

constexpr std::ptrdiff_t kChunkCols = 256;
// Blocks per task on the AVX2 path.
constexpr std::int64_t kStripBlocks = 64;
// Below this many values a transform runs on one thread.
constexpr std::int64_t kParallelMin = 1 << 14;

// σ_k of the `none` norm: X^none_k = σ_k X^ortho_k.
double sigma(int k) { return k == 0 ? 4.0 * std::sqrt(2.0) : 4.0; }

template <class T>
class Block8Plan final : public core::Plan {
 public:
  Block8Plan(const Algorithm& a, const core::TransformDesc& d) : alg_(a), desc_(d) {
    forward_ = d.op == core::Op::kDct2;
    if constexpr (sizeof(T) == 4) {
      kernel_ = forward_ ? a.fwd_f32 : a.inv_f32;
    } else {
      kernel_ = forward_ ? a.fwd_f64 : a.inv_f64;
    }
    if constexpr (sizeof(T) == 4) {
      // The AVX2 block kernels (cpu/block8_avx2.cpp) where the CPU has AVX2 and FMA, else the portable lane loops
      // (tests/cpu/test_block8.cpp checks the lane kernels on their own).
      if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        strip_ = forward_ ? a.fwd_strip_avx2 : a.inv_strip_avx2;
    }
    const auto& s = forward_ ? a.fwd_scale : a.inv_scale;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        double v = s[i] * s[j];
        if (d.norm == core::Norm::kNone) v = forward_ ? v * sigma(i) * sigma(j) : v / (sigma(i) * sigma(j));
        table_[i * 8 + j] = static_cast<T>(v);
      }
  }

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    detail::check_views(alg_.name, desc_, in, out);
    const T* src = static_cast<const T*>(in.data);
    T* dst = static_cast<T*>(out.data);
    const std::int64_t w = desc_.shape.cols;
    const std::int64_t strips = desc_.batch * desc_.shape.rows / 8;
    if constexpr (sizeof(T) == 4) {
      if (strip_ != nullptr) {
        const std::int64_t nb = w / 8, per = (nb + kStripBlocks - 1) / kStripBlocks, tasks = strips * per;
#pragma omp parallel for schedule(static) if (desc_.elements() >= kParallelMin) num_threads(detail::thread_count())
        for (std::int64_t t = 0; t < tasks; ++t) {
          const std::int64_t s = t / per, b0 = (t % per) * kStripBlocks;
          const std::int64_t off = s * 8 * w + 8 * b0;
          strip_(reinterpret_cast<const float*>(src) + off, reinterpret_cast<float*>(dst) + off, w,
                 std::min(kStripBlocks, nb - b0), reinterpret_cast<const float*>(table_));
        }
        return;
      }
    }
    const std::int64_t chunks = (w + kChunkCols - 1) / kChunkCols;
    const std::int64_t tasks = strips * chunks;
#pragma omp parallel for schedule(static) if (desc_.elements() >= kParallelMin) num_threads(detail::thread_count())
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::int64_t s = t / chunks, c0 = (t % chunks) * kChunkCols;
      const std::ptrdiff_t cols = static_cast<std::ptrdiff_t>(std::min<std::int64_t>(kChunkCols, w - c0));
      const std::int64_t off = s * 8 * w + c0;
      if (forward_)
        forward_chunk(src + off, dst + off, w, cols);
      else
        inverse_chunk(src + off, dst + off, w, cols);
    }
  }

 private:
  // b[j][l*nb + blk] = a[l][8 blk + j]
  static void deinterleave(const T* __restrict a, T* __restrict b, std::ptrdiff_t cols) {
    const std::ptrdiff_t nb = cols / 8;
    for (int l = 0; l < 8; ++l)
      for (int j = 0; j < 8; ++j) {
        const T* __restrict from = a + l * cols + j;
        T* __restrict to = b + j * cols + l * nb;
#pragma omp simd
        for (std::ptrdiff_t blk = 0; blk < nb; ++blk) to[blk] = from[8 * blk];
      }
  }

  void forward_chunk(const T* src, T* dst, std::int64_t w, std::ptrdiff_t cols) const {
    alignas(64) T a[8 * kChunkCols];
    alignas(64) T b[8 * kChunkCols];
    kernel_(src, w, a, cols, cols);  // column pass
    deinterleave(a, b, cols);
    kernel_(b, cols, a, cols, cols);  // row pass: a[k][l*nb + blk] = coefficient (l, k) of block blk
    const std::ptrdiff_t nb = cols / 8;
    for (int l = 0; l < 8; ++l) {
      T* __restrict row = dst + l * w;
      for (std::ptrdiff_t blk = 0; blk < nb; ++blk)
        for (int k = 0; k < 8; ++k) row[8 * blk + k] = a[k * cols + l * nb + blk] * table_[l * 8 + k];
    }
  }

  void inverse_chunk(const T* src, T* dst, std::int64_t w, std::ptrdiff_t cols) const {
    alignas(64) T a[8 * kChunkCols];
    alignas(64) T b[8 * kChunkCols];
    for (int l = 0; l < 8; ++l) {
      const T* __restrict from = src + l * w;
      T* __restrict to = a + l * cols;
      const T* __restrict f = table_ + l * 8;
#pragma omp simd
      for (std::ptrdiff_t x = 0; x < cols; ++x) to[x] = from[x] * f[x & 7];
    }
    kernel_(a, cols, b, cols, cols);  // column pass
    deinterleave(b, a, cols);
    kernel_(a, cols, b, cols, cols);  // row pass
    const std::ptrdiff_t nb = cols / 8;
    for (int l = 0; l < 8; ++l) {
      T* __restrict row = dst + l * w;
      for (std::ptrdiff_t blk = 0; blk < nb; ++blk)
        for (int k = 0; k < 8; ++k) row[8 * blk + k] = b[k * cols + l * nb + blk];
    }
  }

  const Algorithm& alg_;
  core::TransformDesc desc_;
  bool forward_ = true;
  block8::LaneKernel<T> kernel_ = nullptr;
  block8::StripKernel strip_ = nullptr;
  alignas(64) T table_[64];
};

class Block8Backend final : public core::Backend {
 public:
  explicit Block8Backend(const Algorithm& a) : alg_(a) {}
  std::string_view name() const override { return alg_.name; }
  std::string_view description() const override { return alg_.description; }
  std::vector<core::Op> ops() const override { return {core::Op::kDct2, core::Op::kIdct2}; }
  std::string_view sizes() const override { return "8x8 blocks (--block 8; H, W multiples of 8)"; }
  const core::Runtime& runtime() const override { return host_runtime(); }

  core::Support supports(const core::TransformDesc& d) const override {
    using core::Support;
    if (d.op != core::Op::kDct2 && d.op != core::Op::kIdct2)
      return Support::no("implements dct2 and idct2 in 8x8 blocks only, not " + std::string(core::to_string(d.op)));
    if (d.block != 8)
      return Support::no(d.block == 0 ? std::string("8x8 blocks only (needs --block 8)")
                                      : "8x8 blocks only, not --block " + std::to_string(d.block));
    return detail::check_dct_desc(d, /*block_any_op=*/false);
  }

  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = supports(d); !s)
      throw Error(ErrorCode::kUnsupported, std::string(alg_.name),
                  "does not support " + d.to_string() + ": " + s.reason);
    if (d.prec == core::Precision::kF32) return std::make_unique<Block8Plan<float>>(alg_, d);
    return std::make_unique<Block8Plan<double>>(alg_, d);
  }

 private:
  const Algorithm& alg_;
};

}  // namespace

std::unique_ptr<core::Backend> make_block8_naive_backend() {
  return std::make_unique<Block8Backend>(block8::naive_algorithm());
}
std::unique_ptr<core::Backend> make_block8_aan_backend() {
  return std::make_unique<Block8Backend>(block8::aan_algorithm());
}
std::unique_ptr<core::Backend> make_block8_flmad_backend() {
  return std::make_unique<Block8Backend>(block8::flmad_algorithm());
}

}  // namespace dct::cpu
