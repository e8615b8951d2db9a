/* cuda-fft2d: the three-stage method of [1] (Jiang, Gu, Pan; Algorithm 2, §III).
 *
 * --axis both: reorder (eq. 13, one coalesced pass) -> cuFFT 2-D R2C (D2Z) -> postprocess exploiting
 * conjugate symmetry, one thread per (k1, k2) in [0, N1/2] x [0, N2/2] reading X(k1,k2), X(N1-k1,k2)
 * and writing four outputs (eqs. 14, 17, 18; Table III). The inverse: preprocess (eq. 15, four reads,
 * two complex writes) -> 2-D C2R (Z2D) -> inverse reorder (eq. 16). Three passes over the data plus
 * the FFT, against eight for the row-column method (§III-C). That is cuda-fft2d-cufft's route; cuda-fft2d
 * takes it too except where the row kernels fold the reorder into the row FFTs (fft2d_route,
 * kernels/dct2d/pipelines.cu).
 * --axis rows|cols: the 1-D N-point algorithm (eqs. 9-11) batched over the rows, or down the columns
 * with a strided cuFFT plan (no transpose).
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

template <class T>
std::unique_ptr<core::Plan> make_typed(const core::TransformDesc& d, bool cufft_2d) {
  if (d.axis == core::Axis::kBoth) {
    const core::Shape2 c = (d.shape.cols == 1 && d.shape.rows > 1) ? core::Shape2{1, d.shape.rows} : d.shape;
    const Fft2dRoute route = cufft_2d ? Fft2dRoute::kR2c : fft2d_route<T>(c.rows, c.cols);
    return std::make_unique<EnginePlan<T, ThreeStage2d<T>>>(d, d.op, d.norm, d.shape, d.batch, route);
  }
  return std::make_unique<EnginePlan<T, NPointLines<T>>>(d, d.op, d.norm, d.axis == core::Axis::kCols, d.shape,
                                                         d.batch);
}

template <bool kCufft2d>
std::unique_ptr<core::Plan> make(const core::TransformDesc& d) {
  return d.prec == core::Precision::kF32 ? make_typed<float>(d, kCufft2d) : make_typed<double>(d, kCufft2d);
}

}  // namespace

Algorithm fft2d_algorithm() { return {&supports, &make<false>}; }
Algorithm fft2d_cufft_algorithm() { return {&supports_2d, &make<true>}; }

}  // namespace dct::cuda
