/* Engines: the three-stage pipelines of [1] (math derived in kernels/dct2d/prepost.cu).
 *
 *   NPointLines   forward: reorder (eq. 9) -> R2C of length N per line -> post (eq. 11)
 *                 inverse: pre (inverse of eq. 11) -> C2R -> reorder^-1
 *                 rows: contiguous lines; where RfftRows supports N (powers of two 16..8192) the reorder is
 *                 folded into our row real-FFT kernels (kernels/dct2d/row_fft.cu), else one batched cuFFT plan
 *                 after a reorder pass; columns: the reorder permutes whole rows (coalesced), the FFT runs
 *                 down the columns (istride = W, idist = 1, one execution per matrix), and the post kernel
 *                 walks rows of the spectrum, so no transpose is needed.
 *   ThreeStage2d  forward: reorder both axes (eq. 13) -> 2-D R2C -> post (eqs. 14, 17, 18)
 *                 inverse: pre (eq. 15) -> 2-D C2R -> reorder^-1 (eq. 16)
 *                 The 2-D R2C is, where RfftRows supports N2 (fft2d_route), our row R2C kernel reading the
 *                 input in reordered order (no reorder pass) + cuFFT's strided C2C down the columns, or at
 *                 N1 = 1024 .. 8192 our two-pass ColumnFft (kernels/dct2d/col_fft.cu; its spectrum rows are
 *                 digit-permuted and post_2d / pre_2d read them through its RowMap; where ColumnFft supports
 *                 it, post_2d / pre_2d are fused into its second forward / first inverse pass, run_post /
 *                 run_pre; at N1 = 2048 the whole column stage with the post / preprocess is one kernel,
 *                 kernels/dct2d/col_fft_onepass.cuh) (Fft2dRoute::kRows); otherwise a reorder pass + cuFFT's
 *                 2-D plan (kR2c).
 *                 Per-axis scale tables: axis 1 carries the constant 2 of Y = 2 Re(s).
 *   FamilyLines   forward: expand to L*N (eqs. 3, 5, 7) -> R2C of L*N -> post (eqs. 4, 6, 8)
 *                 inverse: spectrum (Hermitian half, or the full 2N for the padded variant) -> C2R
 *                 (C2C in place for padded) -> pick the N samples.
 */
#include "kernels/dct2d/pipelines.cuh"

#include <algorithm>

#include "math/dct2d.hpp"  // kFlipAxis0/1

namespace dct::cuda {

// ---- NPointLines -----------------------------------------------------------------------------------

template <class T>
NPointLines<T>::NPointLines(core::Op op, core::Norm norm, bool along_cols, core::Shape2 shape, i64 batch)
    : forward_(op == core::Op::kDct2),
      along_cols_(along_cols),
      n1_(shape.rows),
      n2_(shape.cols),
      batch_(batch),
      pitch_(shape.count() + (along_cols && shape.rows > 1 ? shape.count() % 2 : 0)),
      tables_(along_cols ? shape.rows : shape.cols, norm, 2.0) {
  const FftType t = forward_ ? FftType::kR2C : FftType::kC2R;
  if (along_cols)
    fft_.emplace(FftStage<T>::columns(t, shape.rows, shape.cols, batch, pitch_));
  else if (RfftRows<T>::supports(shape.cols))
    rows_ = std::make_unique<RfftRows<T>>(1, shape.cols, shape.rows * batch);  // n1 = 1: no row permutation
  else
    fft_.emplace(FftStage<T>::lines(t, shape.cols, shape.rows * batch));
}

template <class T>
void NPointLines<T>::run(const T* in, T* out, T* wr, cx_t<T>* wc, cudaStream_t s) const {
  LineGeom g;
  g.along_cols = along_cols_;
  if (along_cols_) {
    g.n = n1_;
    g.width = n2_;
    g.count = batch_;
  } else {
    g.n = n2_;
    g.count = n1_ * batch_;
  }
  // Rows: the permutation acts on the columns of each line; columns: on the rows of each matrix.
  const i64 rn1 = along_cols_ ? n1_ : n1_ * batch_, rb = along_cols_ ? batch_ : 1;
  if (rows_ && forward_) {
    rows_->forward(in, wc, s);
    post_lines<T>(wc, out, tables_.view(), g, s);
  } else if (rows_) {
    pre_lines<T>(in, wc, tables_.view(), g, s);
    rows_->inverse(wc, out, s);
  } else if (forward_) {
    reorder<T>(in, wr, rn1, n2_, rb, along_cols_, !along_cols_, false, s, 0, along_cols_ ? pitch_ : 0);
    fft_->run(wr, wc, s);
    post_lines<T>(wc, out, tables_.view(), g, s);
  } else {
    pre_lines<T>(in, wc, tables_.view(), g, s);
    fft_->run(wc, wr, s);
    reorder<T>(wr, out, rn1, n2_, rb, along_cols_, !along_cols_, true, s, along_cols_ ? pitch_ : 0, 0);
  }
}

// ---- ThreeStage2d ----------------------------------------------------------------------------------

namespace {
bool transposed(core::Shape2 s) { return s.cols == 1 && s.rows > 1; }
core::Shape2 canonical(core::Shape2 s) { return transposed(s) ? core::Shape2{1, s.rows} : s; }
// The DST mask on the canonical axes (bits 0 and 1 swap with the axes).
unsigned canonical_mask(unsigned dst, core::Shape2 s) {
  return transposed(s) ? ((dst & dct2d::kFlipAxis0) ? dct2d::kFlipAxis1 : 0u) |
                             ((dst & dct2d::kFlipAxis1) ? dct2d::kFlipAxis0 : 0u)
                       : dst;
}
}  // namespace

// The rows route's column stage is ColumnFft at N1 = 1024, 2048, 4096, 8192 (faster than or equal to cuFFT's strided
// C2C there, docs/decisions.md), cuFFT's strided C2C at other N1.
bool column_fft_wanted(i64 n1) { return n1 == 1024 || n1 == 2048 || n1 == 4096 || n1 == 8192; }

template <class T>
Fft2dRoute fft2d_route(i64 n1, i64 n2, i64 batch) {
  // Tiles for matrices of up to 4096 values, and batches of the compiled shapes (docs/decisions.md §10).
  if ((n1 * n2 <= 4096 && SmoothTiles<T>::supports(n1, n2)) || (batch > 1 && SmoothTiles<T>::compiled(n1, n2)))
    return Fft2dRoute::kTiles;
  // Rows where the row kernels support N2, except f32 rows of 8192 and more whose columns would go through cuFFT
  // (the 2-D plan is faster there, docs/decisions.md), and batches whose columns would go through cuFFT: its strided
  // column plan is one launch per matrix (docs/decisions.md §1).
  const bool rows = RfftRows<T>::supports(n2) && !(sizeof(T) == 4 && n2 >= 8192 && !column_fft_wanted(n1)) &&
                    (batch == 1 || column_fft_wanted(n1));
  return rows ? Fft2dRoute::kRows : Fft2dRoute::kR2c;
}

namespace {
// The two FFTs of an n1 x n2 matrix's lines take at most kSmoothFewPassesMax passes together.
template <class T>
bool few_passes(i64 n1, i64 n2) {
  return SmoothLines<T>::passes(n1) + SmoothLines<T>::passes(n2) <= kSmoothFewPassesMax;
}
}  // namespace

template <class T>
bool smooth_by_rule(i64 n1, i64 n2, i64 batch, bool inverse) {
  if (!smooth_columns_supported<T>(n1) || !SmoothLines<T>::supports(n2, false)) return false;
  // A side with a large prime factor, by Bluestein's FFT in SmoothLines: where that prime is above
  // kSmoothBluesteinMinPrime (cuFFT's plan takes Bluestein's itself there), else the cuFFT route (docs/decisions.md §10).
  const i64 p1 = SmoothLines<T>::bluestein(n1, true), p2 = SmoothLines<T>::bluestein(n2, false);
  if (p1 > 0 || p2 > 0)
    return (p1 == 0 || p1 >= kSmoothBluesteinMinPrime) && (p2 == 0 || p2 >= kSmoothBluesteinMinPrime);
  // Columns of more than kSmoothLongColsMinRows rows that SmoothCols4 takes (f32: SmoothLines would hold one pair per
  // CTA; f64: SmoothLines cannot hold them): forward, matrices kSmoothLongColsMinWidth or more wide (docs/decisions.md
  // §14); in f32 only where their two FFTs take few passes (§10).
  if (n1 > kSmoothLongColsMinRows && SmoothCols4<T>::wanted(n1) && n2 >= kSmoothLongColsMinWidth)
    return !inverse && (sizeof(T) == 8 || few_passes<T>(n1, n2));
  if (!SmoothLines<T>::supports(n1, true)) return false;
  // Batches: sides of kSmoothBatchMinSide or more, not both powers of two, or forward, both powers of two up to
  // kSmoothBatchPow2MaxSide (docs/decisions.md §10).
  const auto pow2 = [](i64 n) { return (n & (n - 1)) == 0; };
  if (batch != 1)
    return std::min(n1, n2) >= kSmoothBatchMinSide &&
           (!(pow2(n1) && pow2(n2)) || (!inverse && std::max(n1, n2) <= kSmoothBatchPow2MaxSide));
  const i64 values = n1 * n2;
  // Any smooth sides: small matrices (docs/decisions.md §10); f64 matrices of short columns, not narrow (§14).
  if (values <= (sizeof(T) == 8 ? kSmoothAnyMaxValuesF64 : kSmoothAnyMaxValuesF32)) return true;
  if (sizeof(T) == 8 && n1 <= kSmoothF64MaxRows && n2 >= kSmoothLongColsMinWidth) return true;
  if (values > (sizeof(T) == 8 ? kSmoothCompiledMaxValuesF64 : kSmoothCompiledMaxValuesF32)) return false;
  if (SmoothLines<T>::compiled(n1, true) && SmoothLines<T>::compiled(n2, false)) return true;
  // Forward, other sides, neither short nor long, whose FFTs take few passes (docs/decisions.md §10).
  return !inverse && std::min(n1, n2) >= kSmoothFewPassesMinSide && std::max(n1, n2) <= kSmoothFewPassesMaxSide &&
         few_passes<T>(n1, n2);
}

template <class T>
Fft2dRoute fft2d_estimate_route(i64 n1, i64 n2, i64 batch, bool inverse) {
  const Fft2dRoute r = fft2d_route<T>(n1, n2, batch);
  return r == Fft2dRoute::kR2c && smooth_by_rule<T>(n1, n2, batch, inverse) ? Fft2dRoute::kSmooth : r;
}

namespace {
// Row pitch of the rows route's half spectrum: n2/2+1 complex rounded up to a multiple of 16 (128 bytes in f32),
// so that every row, and the column FFT's row segments, start on a sector boundary.
i64 rows_route_pitch(i64 n2) { return (n2 / 2 + 1 + 15) / 16 * 16; }
}  // namespace

template <class T>
ThreeStage2d<T>::ThreeStage2d(core::Op op, core::Norm norm, core::Shape2 shape, i64 batch, Fft2dRoute route,
                              unsigned dst, std::array<double, 2> scale)
    : forward_(op == core::Op::kDct2),
      dst_(canonical_mask(dst, shape)),
      n1_(canonical(shape).rows),
      n2_(canonical(shape).cols),
      batch_(batch),
      pitch_(n2_ / 2 + 1),
      t1_(canonical(shape).rows, norm, 2.0, scale[transposed(shape) ? 1 : 0]),
      t2_(canonical(shape).cols, norm, 1.0, scale[transposed(shape) ? 0 : 1]) {
  const FftType cols = forward_ ? FftType::kC2CForward : FftType::kC2CInverse;
  // The tile and smooth kernels make their own tables; the DST mask and the scales go to them per axis.
  const bool tr = transposed(shape);
  if (route == Fft2dRoute::kTiles) {
    tiles_ = std::make_unique<SmoothTiles<T>>(n1_, n2_, norm, !forward_, dst_,
                                              std::array<double, 2>{scale[tr ? 1 : 0], scale[tr ? 0 : 1]});
    return;
  }
  if (route == Fft2dRoute::kSmooth) {
    srows_ = std::make_unique<SmoothLines<T>>(n2_, norm, false, !forward_, scale[tr ? 0 : 1],
                                              (dst_ & dct2d::kFlipAxis1) != 0);
    if (SmoothCols4<T>::wanted(n1_))
      scols4_ =
          std::make_unique<SmoothCols4<T>>(n1_, norm, !forward_, scale[tr ? 1 : 0], (dst_ & dct2d::kFlipAxis0) != 0);
    else
      scols_ = std::make_unique<SmoothLines<T>>(n1_, norm, true, !forward_, scale[tr ? 1 : 0],
                                                (dst_ & dct2d::kFlipAxis0) != 0);
    return;
  }
  if (route == Fft2dRoute::kRows) {
    pitch_ = rows_route_pitch(n2_);
    rows_ = std::make_unique<RfftRows<T>>(n1_, n2_, batch_, pitch_);
    if (column_fft_wanted(n1_) && ColumnFft<T>::supports(n1_, n2_ / 2 + 1, batch_, pitch_)) {
      col_fft_ = std::make_unique<ColumnFft<T>>(n1_, n2_ / 2 + 1, batch_, pitch_, !forward_);
      const int lg_nb = col_fft_->lg_nb();
      map_ = RowMap{lg_nb, col_fft_->lg_na(), (1 << lg_nb) - 1};
      // The fused column passes have no DST masks (a runtime mask there cost the DCT's inverse 5-9%, H200).
      fused_ = dst_ == 0 && ColumnFft<T>::supports_fused(n1_, n2_, batch_, pitch_);
    } else {
      fft_cols_ = std::make_unique<FftStage<T>>(FftStage<T>::complex_columns(cols, n1_, n2_ / 2 + 1, batch_, pitch_));
    }
    return;
  }
  fft_ = std::make_unique<FftStage<T>>(FftStage<T>::matrix(forward_ ? FftType::kR2C : FftType::kC2R, n1_, n2_, batch_));
}

template <class T>
void ThreeStage2d<T>::run(const T* in, T* out, T* wr, cx_t<T>* wc, cudaStream_t s) const {
  if (tiles_) {
    tiles_->run(in, out, batch_, s);
  } else if (srows_ && forward_) {
    srows_->run(in, out, n1_ * batch_, 0, s);
    if (scols4_)
      scols4_->run(out, out, wc, batch_, n2_, s);
    else
      scols_->run(out, out, batch_, n2_, s);
  } else if (srows_) {
    if (scols4_)
      scols4_->run(in, out, wc, batch_, n2_, s);
    else
      scols_->run(in, out, batch_, n2_, s);
    srows_->run(out, out, n1_ * batch_, 0, s);
  } else if (fused_ && forward_) {
    rows_->forward(in, wc, s);
    col_fft_->run_post(wc, out, t1_.view(), t2_.view(), s);
  } else if (fused_) {
    col_fft_->run_pre(in, wc, t1_.view(), t2_.view(), s);
    rows_->inverse(wc, out, s);
  } else if (rows_ && forward_) {
    rows_->forward(in, wc, s, dst_);
    if (col_fft_)
      col_fft_->run(wc, s);
    else
      fft_cols_->run(wc, wc, s);
    post_2d<T>(wc, out, t1_.view(), t2_.view(), n1_, n2_, batch_, s, pitch_, map_, dst_);
  } else if (rows_) {
    pre_2d<T>(in, wc, t1_.view(), t2_.view(), n1_, n2_, batch_, s, pitch_, map_, dst_);
    if (col_fft_)
      col_fft_->run(wc, s);
    else
      fft_cols_->run(wc, wc, s);
    rows_->inverse(wc, out, s, dst_);
  } else if (forward_) {
    reorder<T>(in, wr, n1_, n2_, batch_, true, true, false, s, 0, 0, dst_);
    fft_->run(wr, wc, s);
    post_2d<T>(wc, out, t1_.view(), t2_.view(), n1_, n2_, batch_, s, 0, {}, dst_);
  } else {
    pre_2d<T>(in, wc, t1_.view(), t2_.view(), n1_, n2_, batch_, s, 0, {}, dst_);
    fft_->run(wc, wr, s);
    reorder<T>(wr, out, n1_, n2_, batch_, true, true, true, s, 0, 0, dst_);
  }
}

// ---- FamilyLines -----------------------------------------------------------------------------------

namespace {
double family_gain(Family f) { return f == Family::kPad2N ? 2.0 : 1.0; }
}  // namespace

template <class T>
FamilyLines<T>::FamilyLines(Family f, core::Op op, core::Norm norm, core::Shape2 shape, i64 batch)
    : family_(f),
      forward_(op == core::Op::kDct2),
      n_(shape.cols),
      lines_(shape.rows * batch),
      tables_(shape.cols, norm, family_gain(f)),
      fft_(FftStage<T>::lines(forward_ ? FftType::kR2C : (f == Family::kPad2N ? FftType::kC2CInverse : FftType::kC2R),
                              family_factor(f) * shape.cols, shape.rows * batch)) {}

template <class T>
i64 FamilyLines<T>::cplx_elems() const {
  const i64 len = family_factor(family_) * n_;
  if (!forward_ && family_ == Family::kPad2N) return lines_ * len;
  return lines_ * (len / 2 + 1);
}

template <class T>
void FamilyLines<T>::run(const T* in, T* out, T* wr, cx_t<T>* wc, cudaStream_t s) const {
  if (forward_) {
    family_expand<T>(family_, in, wr, n_, lines_, s);
    fft_.run(wr, wc, s);
    family_post<T>(family_, wc, out, tables_.view(), n_, lines_, s);
  } else if (family_ == Family::kPad2N) {
    family_pre<T>(family_, in, wc, tables_.view(), n_, lines_, s);
    fft_.run(wc, wc, s);
    family_contract<T>(family_, wc, out, n_, lines_, s);
  } else {
    family_pre<T>(family_, in, wc, tables_.view(), n_, lines_, s);
    fft_.run(wc, wr, s);
    family_contract<T>(family_, wr, out, n_, lines_, s);
  }
}

template class NPointLines<float>;
template class NPointLines<double>;
template Fft2dRoute fft2d_route<float>(i64, i64, i64);
template Fft2dRoute fft2d_route<double>(i64, i64, i64);
template bool smooth_by_rule<float>(i64, i64, i64, bool);
template bool smooth_by_rule<double>(i64, i64, i64, bool);
template Fft2dRoute fft2d_estimate_route<float>(i64, i64, i64, bool);
template Fft2dRoute fft2d_estimate_route<double>(i64, i64, i64, bool);
template class ThreeStage2d<float>;
template class ThreeStage2d<double>;
template class FamilyLines<float>;
template class FamilyLines<double>;

}  // namespace dct::cuda
