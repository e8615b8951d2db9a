/* cuda-fft2d: the three-stage method of [1] (Jiang, Gu, Pan; Algorithm 2, §III).
 *
 * --axis both: reorder (eq. 13, one coalesced pass) -> cuFFT 2-D R2C (D2Z) -> postprocess exploiting
 * conjugate symmetry, one thread per (k1, k2) in [0, N1/2] x [0, N2/2] reading X(k1,k2), X(N1-k1,k2)
 * and writing four outputs (eqs. 14, 17, 18; Table III). The inverse: preprocess (eq. 15, four reads,
 * two complex writes) -> 2-D C2R (Z2D) -> inverse reorder (eq. 16). Three passes over the data plus
 * the FFT, against eight for the row-column method (§III-C). That is cuda-fft2d-cufft's route; cuda-fft2d
 * takes it too except where the row kernels fold the reorder into the row FFTs (fft2d_route,
 * kernels/dct2d/pipelines.cu).
 * Planned with --effort measure, cuda-fft2d times that route against the smooth route (kernels/dct2d/smooth.cuh:
 * one kernel per axis for sizes of prime factors 2..13, other primes by Bluestein's FFT where it pays; the named
 * backend cuda-fft2d-smooth) and keeps the faster;
 * without, it takes the smooth route by a measured rule (smooth_by_rule: small matrices, sides that both have compiled
 * kernels, the forward transform of sides whose FFTs take few passes, batches of sides of 120 or more, f64 matrices of
 * short columns, the forward transform of long columns, sides whose largest prime factor is above 127).
 * --axis rows|cols: the 1-D N-point algorithm (eqs. 9-11) batched over the rows, or down the columns
 * with a strided cuFFT plan (no transpose), for powers of two; other smooth lengths take one SmoothLines kernel
 * (cuda-fft2d-smooth's route for one axis), and under --effort measure power-of-two columns are timed both ways.
 * Derivations, scaling and the odd-size index rules: kernels/dct2d/prepost.cu.
 */
#include "kernels/algorithms.cuh"
#include "kernels/dct2d/pipelines.cuh"

namespace dct::cuda {
namespace {

core::Support supports(const core::TransformDesc& d) { return dct_support(d, false, ""); }

core::Support supports_2d(const core::TransformDesc& d) {
  if (core::Support s = dct_support(d, false, ""); !s) return s;
  if (d.axis != core::Axis::kBoth) return core::Support::no("the 2-D three-stage method only (--axis both)");
  return core::Support::yes();
}

core::Shape2 canonical(core::Shape2 s) { return (s.cols == 1 && s.rows > 1) ? core::Shape2{1, s.rows} : s; }

// Whether SmoothLines<T> takes every axis the request transforms (both: the canonical shape's).
template <class T>
bool smooth_axes(const core::TransformDesc& d) {
  const core::Shape2 c = d.axis == core::Axis::kBoth ? canonical(d.shape) : d.shape;
  const bool cols_ok =
      d.axis == core::Axis::kBoth ? smooth_columns_supported<T>(c.rows) : SmoothLines<T>::supports(c.rows, true);
  return (d.axis == core::Axis::kCols || SmoothLines<T>::supports(c.cols, false)) &&
         (d.axis == core::Axis::kRows || cols_ok);
}

core::Support supports_smooth(const core::TransformDesc& d) {
  if (core::Support s = supports(d); !s) return s;
  const bool ok = d.prec == core::Precision::kF32 ? smooth_axes<float>(d) : smooth_axes<double>(d);
  if (!ok)
    return core::Support::no(
        "sizes with prime factors 2, 3, 5, 7, 11, 13, up to 13673 (f32) / 6456 (f64), or with a larger prime factor "
        "(Bluestein's FFT) where it pays, up to 6823 (f32) / 3217 (f64)");
  return core::Support::yes();
}

core::Support supports_tiles(const core::TransformDesc& d) {
  if (core::Support s = supports_2d(d); !s) return s;
  const core::Shape2 c = canonical(d.shape);
  const bool ok = d.prec == core::Precision::kF32 ? SmoothTiles<float>::supports(c.rows, c.cols)
                                                  : SmoothTiles<double>::supports(c.rows, c.cols);
  if (!ok)
    return core::Support::no(
        "sides with prime factors 2, 3, 5, 7, 11, 13 only, whose matrix fits one CTA's shared memory (f32 up to about "
        "28000 values, f64 14000)");
  return core::Support::yes();
}

enum class Route2d { kAuto, kCufft, kSmooth, kTiles };

template <class T>
std::unique_ptr<core::Plan> make_typed(const core::TransformDesc& d, Route2d which) {
  if (d.axis == core::Axis::kBoth) {
    const core::Shape2 c = canonical(d.shape);
    const Fft2dRoute route = which == Route2d::kCufft    ? Fft2dRoute::kR2c
                             : which == Route2d::kSmooth ? Fft2dRoute::kSmooth
                             : which == Route2d::kTiles  ? Fft2dRoute::kTiles
                             : d.effort == core::Effort::kMeasure
                                 ? fft2d_route<T>(c.rows, c.cols, d.batch)
                                 : fft2d_estimate_route<T>(c.rows, c.cols, d.batch, d.op == core::Op::kIdct2);
    const auto plan = [&](Fft2dRoute r) {
      return std::make_unique<EnginePlan<T, ThreeStage2d<T>>>(d, d.op, d.norm, d.shape, d.batch, r);
    };
    // --effort measure times the cuFFT route against the smooth one where the rule would choose between them.
    if (which == Route2d::kAuto && d.effort == core::Effort::kMeasure && route == Fft2dRoute::kR2c && smooth_axes<T>(d))
      return faster_plan(plan(Fft2dRoute::kR2c), plan(Fft2dRoute::kSmooth), d);
    return plan(route);
  }
  const bool cols = d.axis == core::Axis::kCols;
  const auto lines = [&] {
    return std::make_unique<EnginePlan<T, NPointLines<T>>>(d, d.op, d.norm, cols, d.shape, d.batch);
  };
  const auto smooth = [&] {
    return std::make_unique<EnginePlan<T, SmoothAxis<T>>>(d, d.op, d.norm, cols, d.shape, d.batch);
  };
  if (which == Route2d::kSmooth) return smooth();
  // Lengths other than powers of two take the smooth kernel (one pass; 1.0-1.6x faster along rows and 1.4-2.6x down
  // columns than the N-point cuFFT lines on image shapes, docs/decisions.md §10; lengths with a prime factor above 13
  // where SmoothLines takes them by Bluestein's, by DCT-IV's bluestein_pays); powers of two keep the lines (rows:
  // our one-pass row FFT), except the columns of a batch (cuFFT's strided column plan is one launch per matrix). Under
  // --effort measure the columns of one power-of-two matrix are timed both ways.
  const i64 n = cols ? d.shape.rows : d.shape.cols;
  const bool pow2 = (n & (n - 1)) == 0;
  if (!smooth_axes<T>(d)) return lines();
  if (!pow2 || (cols && d.batch > 1)) return smooth();  // cuFFT's strided column plan: one launch per matrix
  if (cols && d.effort == core::Effort::kMeasure) return faster_plan(lines(), smooth(), d);
  return lines();
}

template <Route2d kWhich>
std::unique_ptr<core::Plan> make(const core::TransformDesc& d) {
  return d.prec == core::Precision::kF32 ? make_typed<float>(d, kWhich) : make_typed<double>(d, kWhich);
}

}  // namespace

Algorithm fft2d_algorithm() { return {&supports, &make<Route2d::kAuto>}; }
Algorithm fft2d_cufft_algorithm() { return {&supports_2d, &make<Route2d::kCufft>}; }
Algorithm fft2d_smooth_algorithm() { return {&supports_smooth, &make<Route2d::kSmooth>}; }
Algorithm fft2d_tiles_algorithm() { return {&supports_tiles, &make<Route2d::kTiles>}; }

}  // namespace dct::cuda
