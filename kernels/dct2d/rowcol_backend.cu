/* cuda-rowcol: the row-column baseline of [1] (§III-C, Fig. 5 left; Table V "row-column").
 *
 * 2-D = the 1-D N-point DCT (eqs. 9-11: reorder -> batched R2C -> post, three passes) along the rows,
 * a tiled shared-memory transpose, the same 1-D DCT along the rows of the transpose, and a transpose
 * back: 3 x 2 + 2 = 8 full passes over the matrix (the paper's count). Each stage is the optimized
 * one: coalesced pair-wise reorder, one batched cuFFT call, one-read-two-writes postprocess using
 * Hermitian symmetry, 32x32 padded-tile transposes. The inverse runs the 1-D DCT-III the same way
 * (the two axes commute). --axis rows is one 1-D stage; --axis cols is transpose, rows, transpose.
 */
#include <algorithm>
#include <optional>

#include "kernels/algorithms.cuh"
#include "kernels/dct2d/pipelines.cuh"

namespace dct::cuda {
namespace {

template <class T>
class RowcolPlan final : public GpuPlan {
 public:
  explicit RowcolPlan(const core::TransformDesc& d)
      : GpuPlan(d, d.bytes(), d.bytes()), axis_(d.axis), n1_(d.shape.rows), n2_(d.shape.cols), batch_(d.batch) {
    const core::Shape2 t{d.shape.cols, d.shape.rows};
    if (axis_ != core::Axis::kCols) rows_.emplace(d.op, d.norm, false, d.shape, d.batch);
    if (axis_ != core::Axis::kRows) cols_.emplace(d.op, d.norm, false, t, d.batch);
    i64 re = 0, cx = 0;
    for (const auto* e : {rows_ ? &*rows_ : nullptr, cols_ ? &*cols_ : nullptr}) {
      if (e == nullptr) continue;
      re = std::max(re, e->real_elems());
      cx = std::max(cx, e->cplx_elems());
    }
    wr_ = DeviceBuffer(sizeof(T) * re);
    wc_ = DeviceBuffer(sizeof(cx_t<T>) * cx);
    if (axis_ != core::Axis::kRows) {
      t1_ = DeviceBuffer(d.bytes());
      t2_ = DeviceBuffer(d.bytes());
    }
  }

 private:
  void run(const void* in_v, void* out_v, cudaStream_t s) const override {
    const T* in = static_cast<const T*>(in_v);
    T* out = static_cast<T*>(out_v);
    T* wr = wr_.as<T>();
    cx_t<T>* wc = wc_.as<cx_t<T>>();
    T* t1 = t1_.as<T>();
    T* t2 = t2_.as<T>();
    switch (axis_) {
      case core::Axis::kRows:
        rows_->run(in, out, wr, wc, s);
        break;
      case core::Axis::kCols:
        transpose<T>(in, t1, n1_, n2_, batch_, s);
        cols_->run(t1, t2, wr, wc, s);
        transpose<T>(t2, out, n2_, n1_, batch_, s);
        break;
      case core::Axis::kBoth:
        rows_->run(in, t1, wr, wc, s);
        transpose<T>(t1, t2, n1_, n2_, batch_, s);
        cols_->run(t2, t1, wr, wc, s);
        transpose<T>(t1, out, n2_, n1_, batch_, s);
        break;
    }
  }

  core::Axis axis_;
  i64 n1_, n2_, batch_;
  std::optional<NPointLines<T>> rows_, cols_;  // cols_: rows of the transposed matrix
  DeviceBuffer wr_, wc_, t1_, t2_;
};

core::Support supports(const core::TransformDesc& d) { return dct_support(d, false, ""); }

std::unique_ptr<core::Plan> make(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32) return std::make_unique<RowcolPlan<float>>(d);
  return std::make_unique<RowcolPlan<double>>(d);
}

}  // namespace

Algorithm rowcol_algorithm() { return {&supports, &make}; }

}  // namespace dct::cuda
