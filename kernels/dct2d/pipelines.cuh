#pragma once
// The transform engines the CUDA backends are assembled from. An engine owns its tables and cuFFT
// plan, says how much workspace it needs, and queues pre-process -> FFT -> post-process on a stream;
// the plan that holds it owns the workspace (allocated once, at plan construction).
//   NPointLines  - 1-D N-point DCT-II / DCT-III (eqs. 9-11) along rows or columns, batched
//   ThreeStage2d - 2-D DCT-II / DCT-III by one 2-D real FFT (eqs. 13-18)
//   FamilyLines  - the 4N, mirrored 2N and padded 2N 1-D algorithms (eqs. 3-8) along rows
#include <array>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/common/plan.cuh"
#include "kernels/dct2d/col_fft.hpp"
#include "kernels/dct2d/row_fft.hpp"
#include "kernels/dct2d/smooth.hpp"

namespace dct::cuda {

template <class T>
class NPointLines {
 public:
  NPointLines(core::Op op, core::Norm norm, bool along_cols, core::Shape2 shape, i64 batch);
  i64 real_elems() const { return rows_ ? 0 : pitch_ * batch_; }
  i64 cplx_elems() const { return along_cols_ ? (n1_ / 2 + 1) * n2_ * batch_ : n1_ * (n2_ / 2 + 1) * batch_; }
  void run(const T* in, T* out, T* wr, cx_t<T>* wc, cudaStream_t s) const;

 private:
  bool forward_, along_cols_;
  i64 n1_, n2_, batch_;
  i64 pitch_;  // workspace matrix pitch: n1*n2 rounded up to even along columns (cuFFT pointer alignment)
  AxisTableBuffers<T> tables_;
  std::unique_ptr<RfftRows<T>> rows_;  // rows, where RfftRows supports n2: the reorder inside the row FFT kernel
  std::optional<FftStage<T>> fft_;     // otherwise: reorder pass + cuFFT
};
// FFT stage of ThreeStage2d, fixed when the plan is made:
//   rows   our row real FFT with the reorder folded into its loads (kernels/dct2d/row_fft.cu), then the in-place
//          C2C down the n2/2+1 complex columns (ColumnFft where column_fft_wanted, else cuFFT's strided plan);
//          inverse: column C2C, then our row C2R with the inverse reorder folded into its stores. No reorder pass.
//   r2c    a separate reorder pass and cuFFT's plain 2-D R2C / C2R plan ([1]'s three stages literally).
//   smooth the separable route for any smooth size: SmoothLines along the rows, then down the columns in place (the
//          inverse: columns, then rows); each pass one kernel with the reorder and the pre/postprocess folded in.
//   tiles  each matrix of a batch in one CTA, rows then columns in shared memory (SmoothTiles): one read, one write.
enum class Fft2dRoute { kRows, kR2c, kSmooth, kTiles };
// cuda-fft2d's route for `batch` matrices of canonical shape n1 x n2 as planned without measuring: tiles where
// SmoothTiles<T> supports the shape and it has at most 4096 values, or a batch of a compiled tile shape; else rows
// where RfftRows<T> supports n2, except f32 rows of 8192 and more whose columns would go through cuFFT, and batches
// whose columns would (cuFFT's strided column plan is one launch per matrix); r2c otherwise. Planned with --effort
// measure, cuda-fft2d times r2c against smooth (where SmoothLines supports both axes) and keeps the faster
// (kernels/dct2d/fft2d_backend.cu). cuda-fft2d-cufft always takes r2c, cuda-fft2d-smooth always smooth.
template <class T>
Fft2dRoute fft2d_route(i64 n1, i64 n2, i64 batch);
// Without --effort measure, the smooth route is taken where it measured faster than the reorder + 2-D cuFFT plan
// (docs/decisions.md §10): one matrix of any smooth sides up to kSmoothAnyMaxValuesF32 / F64 values, or of sides that
// both have compiled smooth kernels up to kSmoothCompiledMaxValuesF32 / F64 values (4000×6000 f32 and 6144² measured
// slower on the smooth route); a batch of matrices whose sides are kSmoothBatchMinSide or more and not both powers of
// two (100×90 measured slower), or, forward, both powers of two up to kSmoothBatchPow2MaxSide (128² ... 512²: the
// inverse, and 1024² on the rows route, measured slower); forward, matrices at least kSmoothLongColsMinWidth wide whose
// columns of more than kSmoothLongColsMinRows rows SmoothCols4 takes, in f32 only those whose two FFTs take at most
// kSmoothFewPassesMax passes (10010×1485, 8450×1040, 12740×520 measured faster in f32 and f64; 9625×210 and 10000×100
// slower; f32 16038×539, 11 passes, 1.46× the cuFFT route; the inverse slower: over 24 random shapes smooth ÷ cuFFT
// route geomean f32 1.14, f64 0.98); f64 matrices at least kSmoothLongColsMinWidth wide with at most kSmoothF64MaxRows
// rows (two sets of 40 random smooth shapes: geomean of the chosen route over the faster one 1.067 -> 1.017 forward,
// 1.058 -> 1.020 inverse); forward and up to the sizes of compiled sides, sides of other lengths from
// kSmoothFewPassesMinSide to kSmoothFewPassesMaxSide whose two FFTs take at most kSmoothFewPassesMax passes together
// (SmoothLines::passes: 448×7436 f32 7 passes, 0.81 of the cuFFT route; 4374×1274 12 passes, 1.56; the inverse gained
// nothing: 40 random shapes 1.034 -> 1.050).
constexpr i64 kSmoothAnyMaxValuesF32 = i64{1} << 19, kSmoothAnyMaxValuesF64 = i64{1} << 20;
constexpr i64 kSmoothFewPassesMinSide = 120, kSmoothFewPassesMaxSide = 8192;
constexpr int kSmoothFewPassesMax = 10;
constexpr i64 kSmoothLongColsMinWidth = 512, kSmoothLongColsMinRows = 6456, kSmoothF64MaxRows = 3000;
constexpr i64 kSmoothCompiledMaxValuesF32 = i64{1} << 24, kSmoothCompiledMaxValuesF64 = i64{1} << 25;
constexpr i64 kSmoothBatchMinSide = 120, kSmoothBatchPow2MaxSide = 512;
// A side that SmoothLines takes by Bluestein's FFT (smooth::bluestein_pays) goes the smooth route where its largest
// prime factor is at least kSmoothBluesteinMinPrime: 4097² f32 (17·241) 0.97 ms against the cuFFT route's 2.2,
// 1080×4097 0.18 / 0.46, 2053² f64 0.38 / 1.19; but 2209² f32 (47²) 0.30 / 0.20 (1007², 19·53: 0.054 / 0.073, left to
// --effort measure) (H100, 2026-12-05).
constexpr i64 kSmoothBluesteinMinPrime = 128;
template <class T>
bool smooth_by_rule(i64 n1, i64 n2, i64 batch, bool inverse);
// fft2d_route, with the smooth route where it would be r2c and smooth_by_rule holds: cuda-fft2d's and cuda-r2r's 2-D
// route planned without measuring (inverse: the DCT-III / IDCT direction).
template <class T>
Fft2dRoute fft2d_estimate_route(i64 n1, i64 n2, i64 batch, bool inverse);
// Whether the rows route's column stage is ColumnFft (two passes with 128-byte row segments) instead of cuFFT's
// strided C2C: n1 = 1024, 2048, 4096, 8192 (at 8192 cuFFT's one-kernel column FFT reads 16-byte row segments; at 1024
// its strided plan runs once per matrix of a batch).
bool column_fft_wanted(i64 n1);

// dst: a kFlipAxis0/1 mask (math/dct2d.hpp) of the axes computed as DST-II (op dct2) or DST-III (op
// idct2) instead: the signs folded into the first kernel's loads (forward) or the last one's stores (inverse), the
// reversal into the last one's stores (forward) or the first one's loads (inverse). On the rows route such plans take
// the column FFT and the postprocess as separate passes (the fused column passes have no masks). scale: a factor per
// axis (rows, columns) on its forward output or inverse input, in the axis' tables (the norms of cuda-r2r that
// cuda-fft2d lacks: the unnormalized DCT-III, norm forward).
template <class T>
class ThreeStage2d {
 public:
  ThreeStage2d(core::Op op, core::Norm norm, core::Shape2 shape, i64 batch, Fft2dRoute route, unsigned dst = 0,
               std::array<double, 2> scale = {1.0, 1.0});
  i64 real_elems() const { return rows_ || srows_ || tiles_ ? 0 : n1_ * n2_ * batch_; }  // only r2c reorders
  i64 cplx_elems() const {
    return scols4_ ? SmoothCols4<T>::work_elems(n1_, n2_, batch_) : srows_ || tiles_ ? 0 : n1_ * pitch_ * batch_;
  }
  void run(const T* in, T* out, T* wr, cx_t<T>* wc, cudaStream_t s) const;

 private:
  bool forward_;
  unsigned dst_;         // the DST mask, on the canonical axes
  i64 n1_, n2_, batch_;  // N x 1 is computed as 1 x N (the same memory; the 2-D DCT commutes with transposition)
  i64 pitch_;            // complex elements between rows of the half spectrum (rows route: padded, see pipelines.cu)
  AxisTableBuffers<T> t1_, t2_;
  std::unique_ptr<RfftRows<T>> rows_;      // the rows route's row kernels, or null
  std::unique_ptr<FftStage<T>> fft_;       // r2c: the 2-D plan
  std::unique_ptr<FftStage<T>> fft_cols_;  // rows: cuFFT's column stage
  std::unique_ptr<ColumnFft<T>> col_fft_;  // or ours (rows route), leaving the spectrum rows in map_'s order
  bool fused_ = false;                     // col_fft_ with post_2d / pre_2d fused into its passes
  RowMap map_;
  std::unique_ptr<SmoothLines<T>> srows_, scols_;  // smooth route
  std::unique_ptr<SmoothCols4<T>> scols4_;         // or its columns in two kernels (long columns)
  std::unique_ptr<SmoothTiles<T>> tiles_;          // tiles route
};

// 1-D DCT-II / DCT-III along rows or down columns by one SmoothLines kernel (--axis rows|cols on the smooth route:
// the reorder and the pre/postprocess in its loads and stores, no workspace).
template <class T>
class SmoothAxis {
 public:
  SmoothAxis(core::Op op, core::Norm norm, bool along_cols, core::Shape2 shape, i64 batch)
      : lines_(along_cols ? shape.rows : shape.cols, norm, along_cols, op == core::Op::kIdct2),
        cols_(along_cols),
        count_(along_cols ? batch : batch * shape.rows),
        width_(shape.cols) {}
  i64 real_elems() const { return 0; }
  i64 cplx_elems() const { return 0; }
  void run(const T* in, T* out, T*, cx_t<T>*, cudaStream_t s) const {
    lines_.run(in, out, count_, cols_ ? width_ : 0, s);
  }

 private:
  SmoothLines<T> lines_;
  bool cols_;
  i64 count_, width_;
};

template <class T>
class FamilyLines {
 public:
  FamilyLines(Family f, core::Op op, core::Norm norm, core::Shape2 shape, i64 batch);
  i64 real_elems() const { return lines_ * family_factor(family_) * n_; }
  i64 cplx_elems() const;
  void run(const T* in, T* out, T* wr, cx_t<T>* wc, cudaStream_t s) const;

 private:
  Family family_;
  bool forward_;
  i64 n_, lines_;
  AxisTableBuffers<T> tables_;
  FftStage<T> fft_;
};

// A plan around one engine: workspace sized by the engine, allocated here, passed to every run.
template <class T, class Engine>
class EnginePlan final : public GpuPlan {
 public:
  template <class... Args>
  EnginePlan(const core::TransformDesc& d, Args&&... args)
      : GpuPlan(d, d.bytes(), d.bytes()),
        engine_(std::forward<Args>(args)...),
        wr_(sizeof(T) * engine_.real_elems()),
        wc_(sizeof(cx_t<T>) * engine_.cplx_elems()) {}

 private:
  void run(const void* in, void* out, cudaStream_t s) const override {
    engine_.run(static_cast<const T*>(in), static_cast<T*>(out), wr_.as<T>(), wc_.as<cx_t<T>>(), s);
  }
  Engine engine_;
  DeviceBuffer wr_, wc_;
};

}  // namespace dct::cuda
