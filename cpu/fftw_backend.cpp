/* cpu-fftw: DCT-II/III/IV through FFTW's real-to-real transforms, normalization folded in (the definitions:
   README "Transform definitions and norms"); a whole matrix's dct2 / idct2 (axis both, no blocks) goes through FFTW's
   2-D r2c / c2r instead (fftw_dct2d.cpp), 2-3x faster than REDFT10 / REDFT01.

   FFTW's unnormalized kinds, 1-D of length N (FFTW manual §4.8.3):
     REDFT10: Y_k = 2 Σ_n x_n cos(π k (2n+1) / 2N)              = dct2 `none`
     REDFT01: Y_k = x_0 + 2 Σ_{n>=1} x_n cos(π n (2k+1) / 2N)   (its inverse up to 2N)
     REDFT11: Y_k = 2 Σ_n x_n cos(π (2n+1)(2k+1) / 4N)          = dct4 `none` (its own inverse up to 2N)
   Per transformed axis, with s_0 = 1/√(4N), s_k = 1/√(2N) (k >= 1):
     dct2  none  REDFT10                    ortho  REDFT10, then X_k *= s_k      (c_0 = 1/√2 folded in)
     idct2 none  REDFT01, then / 2N         ortho  X_k *= 1/(2N s_k), then REDFT01
                                                   (= 1/√N for k = 0, 1/√(2N) otherwise; exact inverse of ortho dct2)
     dct4  none  REDFT11                    ortho  REDFT11 / √(2N)  (self-inverse)
     idct4 none  REDFT11 / 2N               ortho  REDFT11 / √(2N)
   A 2-D transform's scale is the product of a factor per row index and one per column index; block mode
   (B x B tiles) uses the factor of the index modulo B. So every case is: at most one FFTW execute plus at
   most one pass out[b,i,j] = v[b,i,j] * r_i * c_j — after the execute (out of place, in -> out), or, for
   ortho idct2 (whose factor must reach the input), fused into the copy in -> out before an in-place
   execute. dct2/dct4 `none` are exactly one execute. FFTW's guru64 interface expresses every layout in
   one plan: rows (length W, B*H lines), cols (length H, stride W, two loop dimensions), both (rank 2) and
   block (rank 2 of B x B with three loop dimensions: matrices, tile rows, tile columns).

   Plans are made on 64-byte aligned scratch arrays (FFTW_MEASURE writes them) and run with the new-array
   execute on the caller's views. A view FFTW's SIMD codelets cannot take (fftw_alignment_of != 0) gets a
   second plan made with FFTW_UNALIGNED on first use. Out-of-place r2r preserves its input.

   The real-to-real family (op r2r: DCT/DST types I-IV of an array of rank <= 3, a kind per axis; docs/algorithms.md,
   "The real-to-real family") is one guru64 plan too: a transform dimension per transformed axis with FFTW's kind
   (dct1..dct4 = REDFT00/10/01/11, dst1..dst4 = RODFT00/10/01/11; the inverse kind for an inverse request), a loop
   dimension per other axis and one over the batch, strides in elements of the C-ordered array. scipy's norms
   are a factor per input index (ortho DCT-I, DCT-III, DST-III) and one per output index along each axis; the
   factors of different axes multiply, so all input factors go into the copy in -> out before an in-place
   execute and all output factors into one pass after it. */
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/r2r.hpp"
#include "core/tensor.hpp"
#include "cpu/backends.hpp"
#include "cpu/common.hpp"
#include "cpu/fftw_util.hpp"

namespace dct::cpu {
namespace {

using core::Axis;
using core::Norm;
using core::Op;

constexpr std::string_view kName = "cpu-fftw";
// Scaling passes below this many values run on one thread.
constexpr std::int64_t kParallelScaleMin = 1 << 16;

// The FFTW problem of a descriptor: transform dimensions, loop dimensions, kinds (strides in elements).
struct Layout {
  std::vector<fftw_iodim64> dims, loops;
  std::vector<fftw_r2r_kind> kinds;
};

fftw_r2r_kind kind_of(Op op) {
  switch (op) {
    case Op::kDct2:
      return FFTW_REDFT10;
    case Op::kIdct2:
      return FFTW_REDFT01;
    default:
      return FFTW_REDFT11;
  }
}

Layout layout_of(const core::TransformDesc& d) {
  const std::int64_t h = d.shape.rows, w = d.shape.cols, hw = h * w;
  Layout l;
  if (d.block > 0) {
    const std::int64_t b = d.block;
    l.dims = {{b, w, w}, {b, 1, 1}};
    l.loops = {{d.batch, hw, hw}, {h / b, b * w, b * w}, {w / b, b, b}};
  } else if (d.axis == Axis::kBoth) {
    l.dims = {{h, w, w}, {w, 1, 1}};
    l.loops = {{d.batch, hw, hw}};
  } else if (d.axis == Axis::kRows) {
    l.dims = {{w, 1, 1}};
    l.loops = {{d.batch * h, w, w}};
  } else {
    l.dims = {{h, w, w}};
    l.loops = {{d.batch, hw, hw}, {w, 1, 1}};
  }
  l.kinds.assign(l.dims.size(), kind_of(d.op));
  return l;
}

}  // namespace

// The factor of index k along an axis of length n (the norms; see the table above).
double detail::dct_axis_factor(Op op, Norm norm, std::int64_t n, std::int64_t k) {
  const double nn = static_cast<double>(n);
  switch (op) {
    case Op::kDct2:
      if (norm == Norm::kNone) return 1.0;
      return k == 0 ? std::sqrt(1.0 / (4.0 * nn)) : std::sqrt(1.0 / (2.0 * nn));
    case Op::kIdct2:
      if (norm == Norm::kNone) return 1.0 / (2.0 * nn);
      return k == 0 ? 1.0 / std::sqrt(nn) : 1.0 / std::sqrt(2.0 * nn);
    case Op::kDct4:
      return norm == Norm::kNone ? 1.0 : 1.0 / std::sqrt(2.0 * nn);
    default:  // idct4
      return norm == Norm::kNone ? 1.0 / (2.0 * nn) : 1.0 / std::sqrt(2.0 * nn);
  }
}

namespace {

// Factors for every index of an axis of `extent` values: transformed in pieces of `n` (n = extent, or B),
// or not at all (all ones).
template <class T>
std::vector<T> factors(const core::TransformDesc& d, std::int64_t extent, bool transformed, std::int64_t n) {
  std::vector<T> f(static_cast<std::size_t>(extent), T(1));
  if (transformed)
    for (std::int64_t i = 0; i < extent; ++i) f[i] = static_cast<T>(detail::dct_axis_factor(d.op, d.norm, n, i % n));
  return f;
}

// out[b,i,j] = in[b,i,j] * r[i] * c[j]; in may equal out.
template <class T>
void scale_pass(const T* in, T* out, std::int64_t batch, std::int64_t h, std::int64_t w, const T* r, const T* c) {
  const std::int64_t lines = batch * h;
#pragma omp parallel for schedule(static) if (lines * w >= kParallelScaleMin) num_threads(detail::thread_count())
  for (std::int64_t line = 0; line < lines; ++line) {
    const T f = r[line % h];
    const T* src = in + line * w;
    T* dst = out + line * w;
    for (std::int64_t j = 0; j < w; ++j) dst[j] = src[j] * (f * c[j]);
  }
}

}  // namespace

bool fftw_single_threaded(const core::TransformDesc& d) {
  if (d.op != Op::kR2r) return false;
  int axes = 0;
  bool type_one = false;
  for (int a = 0; a < d.r2r.rank; ++a) {
    if (d.r2r.kinds[a] == core::R2rKind::kNone) continue;
    ++axes;
    const core::R2rKind c = core::r2r::computed_kind(d.r2r.kinds[a], d.r2r.inverse);
    type_one = type_one || c == core::R2rKind::kDct1 || c == core::R2rKind::kDst1;
  }
  return axes >= 3 && type_one;
}

namespace {

// One guru r2r problem (a Layout) planned on scratch arrays of its shape: the plan for 64-byte aligned views, and
// one made with FFTW_UNALIGNED on first use for others. In place when `in_place` (the input factors went into the
// copy before the transform).
template <class T>
class GuruPlans {
 public:
  GuruPlans(const core::TransformDesc& d, Layout layout, bool in_place)
      : desc_(d), layout_(std::move(layout)), in_place_(in_place), aligned_(make(0)) {}

  // The plan for views `a` (input) and `b` (output). Plans are not shared between threads.
  typename detail::Fftw<T>::Plan for_views(const T* a, const T* b) const {
    if (detail::Fftw<T>::alignment_of(a) == 0 && detail::Fftw<T>::alignment_of(b) == 0) return aligned_.get();
    if (!unaligned_) unaligned_ = make(FFTW_UNALIGNED);
    return unaligned_.get();
  }

 private:
  detail::FftwPlan<T> make(unsigned extra) const {
    const std::size_t bytes = desc_.bytes();
    core::AlignedBuffer a(bytes), b(in_place_ ? 0 : bytes);
    T* pa = static_cast<T*>(a.data());
    T* pb = in_place_ ? pa : static_cast<T*>(b.data());
    const unsigned flags = detail::fftw_flags(desc_.effort) | extra;
    const bool pow2 =
        detail::all_powers_of_two(layout_.dims.begin(), layout_.dims.end(), [](const auto& d) { return d.n; });
    const int max_threads = fftw_single_threaded(desc_) ? detail::kTypeOneRank3MaxThreads : 0;
    return detail::make_fftw_plan<T>(
        desc_.elements(), pow2, desc_.effort, std::string(kName), desc_.to_string(),
        [&] {
          return detail::Fftw<T>::guru_r2r(static_cast<int>(layout_.dims.size()), layout_.dims.data(),
                                           static_cast<int>(layout_.loops.size()), layout_.loops.data(), pa, pb,
                                           layout_.kinds.data(), flags);
        },
        max_threads);
  }

  core::TransformDesc desc_;
  Layout layout_;
  bool in_place_;
  detail::FftwPlan<T> aligned_;
  mutable detail::FftwPlan<T> unaligned_;  // made on first use
};

template <class T>
class FftwDctPlan final : public core::Plan {
 public:
  explicit FftwDctPlan(const core::TransformDesc& d) : desc_(d) {
    const std::int64_t h = d.shape.rows, w = d.shape.cols;
    const bool rows_t = d.block > 0 || d.axis != Axis::kCols;  // the row axis (length W) is transformed
    const bool cols_t = d.block > 0 || d.axis != Axis::kRows;
    const std::int64_t nw = d.block > 0 ? d.block : w, nh = d.block > 0 ? d.block : h;
    col_factor_ = factors<T>(d, w, rows_t, nw);  // indexed by column j
    row_factor_ = factors<T>(d, h, cols_t, nh);  // indexed by row i
    pre_scale_ = d.op == Op::kIdct2 && d.norm == Norm::kOrtho;
    post_scale_ = !pre_scale_ && !((d.op == Op::kDct2 || d.op == Op::kDct4) && d.norm == Norm::kNone);
    plans_.emplace(d, layout_of(d), pre_scale_);
  }

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    detail::check_views(kName, desc_, in, out);
    const T* src = static_cast<const T*>(in.data);
    T* dst = static_cast<T*>(out.data);
    const std::int64_t h = desc_.shape.rows, w = desc_.shape.cols;
    if (pre_scale_) {
      scale_pass(src, dst, desc_.batch, h, w, row_factor_.data(), col_factor_.data());
      detail::Fftw<T>::execute_r2r(plan_for(dst, dst), dst, dst);
    } else {
      // Out-of-place r2r leaves its input untouched (FFTW_PRESERVE_INPUT is the default for r2r).
      detail::Fftw<T>::execute_r2r(plan_for(src, dst), const_cast<T*>(src), dst);
      if (post_scale_) scale_pass(dst, dst, desc_.batch, h, w, row_factor_.data(), col_factor_.data());
    }
  }

 private:
  typename detail::Fftw<T>::Plan plan_for(const T* a, const T* b) const { return plans_->for_views(a, b); }

  core::TransformDesc desc_;
  std::vector<T> row_factor_, col_factor_;
  bool pre_scale_ = false, post_scale_ = false;
  std::optional<GuruPlans<T>> plans_;
};

fftw_r2r_kind fftw_kind_of(core::R2rKind k) {
  switch (k) {
    case core::R2rKind::kDct1:
      return FFTW_REDFT00;
    case core::R2rKind::kDct2:
      return FFTW_REDFT10;
    case core::R2rKind::kDct3:
      return FFTW_REDFT01;
    case core::R2rKind::kDct4:
      return FFTW_REDFT11;
    case core::R2rKind::kDst1:
      return FFTW_RODFT00;
    case core::R2rKind::kDst2:
      return FFTW_RODFT10;
    case core::R2rKind::kDst3:
      return FFTW_RODFT01;
    default:
      return FFTW_RODFT11;
  }
}

// The r2r array as a batch x d0 x d1 x d2 block (leading extents 1 where the rank is lower), with one factor
// vector per axis (empty: all ones).
struct Block4 {
  std::int64_t n[4] = {1, 1, 1, 1};
};

Block4 block_of(const core::TransformDesc& d) {
  Block4 b;
  b.n[0] = d.batch;
  const int off = core::kMaxR2rRank - d.r2r.rank;
  for (int a = 0; a < d.r2r.rank; ++a) b.n[1 + off + a] = d.r2r.dims[a];
  return b;
}

// out[b,i,j,k] = in[b,i,j,k] * f1[i] * f2[j] * f3[k] (padded axes 1..3); in may equal out.
template <class T>
void scale_block(const T* in, T* out, const Block4& blk, const std::vector<T>* f) {
  const std::int64_t n1 = blk.n[1], n2 = blk.n[2], n3 = blk.n[3];
  const std::int64_t lines = blk.n[0] * n1 * n2;
#pragma omp parallel for schedule(static) if (lines * n3 >= kParallelScaleMin) num_threads(detail::thread_count())
  for (std::int64_t line = 0; line < lines; ++line) {
    const std::int64_t j = line % n2, i = (line / n2) % n1;
    T s = T(1);
    if (!f[0].empty()) s *= f[0][i];
    if (!f[1].empty()) s *= f[1][j];
    const T* src = in + line * n3;
    T* dst = out + line * n3;
    if (f[2].empty())
      for (std::int64_t k = 0; k < n3; ++k) dst[k] = src[k] * s;
    else
      for (std::int64_t k = 0; k < n3; ++k) dst[k] = src[k] * (s * f[2][k]);
  }
}

template <class T>
class FftwR2rPlan final : public core::Plan {
 public:
  explicit FftwR2rPlan(const core::TransformDesc& d) : desc_(d), block_(block_of(d)) {
    const core::R2rSpec& s = d.r2r;
    const int off = core::kMaxR2rRank - s.rank;
    std::int64_t stride = 1;
    std::vector<fftw_iodim64> dims, loops;
    std::vector<fftw_r2r_kind> kinds;
    for (int a = s.rank - 1; a >= 0; --a) {
      const fftw_iodim64 dim{s.dims[a], stride, stride};
      if (s.kinds[a] != core::R2rKind::kNone) {
        dims.insert(dims.begin(), dim);
        kinds.insert(kinds.begin(), fftw_kind_of(core::r2r::computed_kind(s.kinds[a], s.inverse)));
        const core::r2r::AxisScale sc = core::r2r::axis_scale(s.kinds[a], s.inverse, d.norm, s.dims[a]);
        pre_[off + a].assign(sc.pre.begin(), sc.pre.end());
        post_[off + a].assign(sc.post.begin(), sc.post.end());
      } else {
        loops.insert(loops.begin(), dim);
      }
      stride *= s.dims[a];
    }
    if (d.batch > 1) loops.insert(loops.begin(), fftw_iodim64{d.batch, stride, stride});
    for (int a = 0; a < core::kMaxR2rRank; ++a) {
      has_pre_ = has_pre_ || !pre_[a].empty();
      has_post_ = has_post_ || !post_[a].empty();
    }
    plans_.emplace(d, Layout{std::move(dims), std::move(loops), std::move(kinds)}, has_pre_);
  }

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    detail::check_views(kName, desc_, in, out);
    const T* src = static_cast<const T*>(in.data);
    T* dst = static_cast<T*>(out.data);
    if (has_pre_) {
      scale_block(src, dst, block_, pre_);
      detail::Fftw<T>::execute_r2r(plan_for(dst, dst), dst, dst);
    } else {
      detail::Fftw<T>::execute_r2r(plan_for(src, dst), const_cast<T*>(src), dst);
    }
    if (has_post_) scale_block(dst, dst, block_, post_);
  }

 private:
  typename detail::Fftw<T>::Plan plan_for(const T* a, const T* b) const { return plans_->for_views(a, b); }

  core::TransformDesc desc_;
  Block4 block_;
  std::vector<T> pre_[core::kMaxR2rRank], post_[core::kMaxR2rRank];  // by padded axis
  bool has_pre_ = false, has_post_ = false;
  std::optional<GuruPlans<T>> plans_;
};

class FftwBackend final : public core::Backend {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override {
    return "FFTW3: a matrix's DCT-II/III by reorder, 2-D r2c/c2r and postprocess; else real-to-real transforms "
           "(REDFT00/10/01/11, RODFT00/10/01/11: DCT/DST I-IV, a kind per axis, rank <= 3); multi-threaded";
  }
  std::vector<Op> ops() const override { return {Op::kDct2, Op::kIdct2, Op::kDct4, Op::kIdct4, Op::kR2r}; }
  std::string_view sizes() const override { return "any (block mode: H, W multiples of B; DCT-I: N >= 2)"; }
  const core::Runtime& runtime() const override { return host_runtime(); }
  core::Support supports(const core::TransformDesc& d) const override {
    if (d.op == Op::kR2r) return core::r2r::check_r2r_desc(d);
    return detail::check_dct_desc(d, /*block_any_op=*/false);
  }
  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = supports(d); !s)
      throw Error(ErrorCode::kUnsupported, std::string(kName), "does not support " + d.to_string() + ": " + s.reason);
    if (d.op == Op::kR2r) {
      if (std::unique_ptr<core::Plan> p = detail::make_fftw_r2r_2d_plan(d)) return p;
      if (d.prec == core::Precision::kF32) return std::make_unique<FftwR2rPlan<float>>(d);
      return std::make_unique<FftwR2rPlan<double>>(d);
    }
    // A whole matrix's DCT-II / DCT-III: the three stages on FFTW's r2c / c2r (fftw_dct2d.cpp), not REDFT10 / 01.
    if ((d.op == Op::kDct2 || d.op == Op::kIdct2) && d.block == 0 && d.axis == Axis::kBoth)
      return detail::make_fftw_dct2d_plan(d);
    if (d.prec == core::Precision::kF32) return std::make_unique<FftwDctPlan<float>>(d);
    return std::make_unique<FftwDctPlan<double>>(d);
  }
};

}  // namespace

std::unique_ptr<core::Backend> make_fftw_backend() { return std::make_unique<FftwBackend>(); }

std::string fftw_version() { return ::fftw_version; }

}  // namespace dct::cpu
