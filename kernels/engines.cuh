#pragma once
// The transform engines the CUDA backends are assembled from. An engine owns its tables and cuFFT
// plan, says how much workspace it needs, and queues pre-process -> FFT -> post-process on a stream;
// the plan that holds it owns the workspace (allocated once, at plan construction).
//   NPointLines  - 1-D N-point DCT-II / DCT-III (eqs. 9-11) along rows or columns, batched
//   ThreeStage2d - 2-D DCT-II / DCT-III by one 2-D real FFT (eqs. 13-18)
//   FamilyLines  - the 4N, mirrored 2N and padded 2N 1-D algorithms (eqs. 3-8) along rows
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/col_fft.hpp"
#include "kernels/fft2d_cb_info.h"
#include "kernels/gpu_plan.cuh"
#include "kernels/rfft_rows.hpp"

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
// Whether NPointLines along rows uses RfftRows for lines of n2 (default where supported; DCTOOL_ROW_FFT=cufft keeps
// the reorder pass + cuFFT's batched R2C / C2R, the route measured before the row kernels existed).
template <class T>
bool row_kernels_wanted(i64 n2);

// The 2-D FFT of ThreeStage2d with the reorder / inverse preprocess in cuFFT LTO callbacks
// (kernels/fft2d_cb.cu). make() returns null (after one warning on stderr) when cuFFT cannot JIT-link them.
template <class T>
class CallbackFft2d {
 public:
  static std::unique_ptr<CallbackFft2d> make(bool forward, i64 n1, i64 n2, i64 batch, AxisTables<T> t1,
                                             AxisTables<T> t2);
  void forward(const T* x, cx_t<T>* spectrum, cudaStream_t s) const;               // reorder + R2C
  void inverse(const T* y, cx_t<T>* scratch, T* out, cudaStream_t s) const;       // pre + C2R + reorder^-1

 private:
  CallbackFft2d() = default;
  CufftPlan plan_;
  DeviceBuffer info_;
  std::unique_ptr<Fft2dCbInfo<T, cx_t<T>>> host_info_;
};
// Whether ThreeStage2d tries the callback route: only when DCTOOL_FFT2D=cb (measured slower than the
// separate kernels, fft2d_cb.cu), and never again in this process after cuFFT refused the callbacks once.
bool fft2d_callbacks_wanted();

// FFT stage of ThreeStage2d, chosen at plan creation (environment DCTOOL_FFT2D overrides the default):
//   rows   our row real FFT with the reorder folded into its loads (kernels/rfft_rows.cu), then the in-place
//          C2C down the n2/2+1 complex columns (cuFFT's strided plan, or ColumnFft where column_fft_wanted);
//          inverse: column C2C, then our row C2R with the inverse reorder folded into its stores. No reorder
//          pass. Default where RfftRows supports n2 (powers of two 16..8192), except f32 with n2 >= 8192 when
//          the columns would go through cuFFT (measured slower there than r2c); DCTOOL_FFT2D=rows forces it.
//   r2c    a separate reorder pass and cuFFT's plain 2-D R2C / C2R plan (default for the other sizes)
//   split  the reorder pass, a batched 1-D R2C along the rows and the strided column C2C (for measuring)
//   cb     the 2-D plan with the reorder and the inverse preprocess in LTO callbacks (slower, see fft2d_cb.cu)
enum class Fft2dRoute { kRows, kR2c, kSplit, kCallback };
// The route for a plan whose canonical shape is n1 x n2: DCTOOL_FFT2D if set to one of the names above and
// usable (rows needs RfftRows<T>::supports(n2); "nocb" is an old name of r2c), otherwise the default.
template <class T>
Fft2dRoute fft2d_route(i64 n1, i64 n2);
// Whether the rows route's column stage is ColumnFft (two passes with 128-byte row segments) instead of cuFFT's
// strided C2C: DCTOOL_FFT2D_COLS=ours|cufft, default ours where measured faster or equal (n1 = 2048, 4096, 8192; at
// 8192 cuFFT's one-kernel column FFT reads 16-byte row segments and runs at 23% of DRAM bandwidth).
bool column_fft_wanted(i64 n1);
// Whether ThreeStage2d with ColumnFft fuses post_2d / pre_2d into a column pass (ColumnFft::run_post / run_pre, one
// pass over the spectrum fewer): default yes; DCTOOL_FFT2D_POST=separate keeps the separate kernels (for measuring).
bool fused_post_wanted();

template <class T>
class ThreeStage2d {
 public:
  ThreeStage2d(core::Op op, core::Norm norm, core::Shape2 shape, i64 batch);
  i64 real_elems() const { return cb_ || rows_ ? 0 : n1_ * n2_ * batch_; }  // cb / rows routes: no reorder buffer
  i64 cplx_elems() const { return n1_ * pitch_ * batch_; }
  void run(const T* in, T* out, T* wr, cx_t<T>* wc, cudaStream_t s) const;

 private:
  bool forward_;
  i64 n1_, n2_, batch_;  // N x 1 is computed as 1 x N (the same memory; the 2-D DCT commutes with transposition)
  i64 pitch_;            // complex elements between rows of the half spectrum (rows route: padded, see engines.cu)
  AxisTableBuffers<T> t1_, t2_;
  std::unique_ptr<CallbackFft2d<T>> cb_;   // the callback route, or null
  std::unique_ptr<RfftRows<T>> rows_;      // the rows route's row kernels, or null
  std::unique_ptr<FftStage<T>> fft_;       // r2c / split: 2-D plan, or the row stage when split
  std::unique_ptr<FftStage<T>> fft_cols_;  // the column stage (split, rows)
  std::unique_ptr<ColumnFft<T>> col_fft_;  // or ours (rows route), leaving the spectrum rows in map_'s order
  bool fused_ = false;                     // col_fft_ with post_2d / pre_2d fused into its passes
  RowMap map_;
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

// One row of the backend table (backends.cu): what the backend is and how it makes plans.
struct BackendSpec {
  std::string_view name;
  std::string_view description;
  std::string_view sizes;
  std::vector<core::Op> ops;
  core::Support (*supports)(const core::TransformDesc&);
  // Called only for supported descriptors, with the device selected.
  std::unique_ptr<core::Plan> (*make)(const core::TransformDesc&);
};
BackendSpec fft2d_spec();
BackendSpec rowcol_spec();
std::vector<BackendSpec> family_specs();  // cuda-1d-n, cuda-1d-2n-mirror, cuda-1d-2n-pad, cuda-1d-4n

}  // namespace dct::cuda
