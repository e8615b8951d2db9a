/* cuda-fft2d: the three-stage method of seed 000 (Jiang, Gu, Pan; Algorithm 2, §III).
 *
 * --axis both: reorder (eq. 13, one coalesced pass) -> cuFFT 2-D R2C (D2Z) -> postprocess exploiting
 * conjugate symmetry, one thread per (k1, k2) in [0, N1/2] x [0, N2/2] reading X(k1,k2), X(N1-k1,k2)
 * and writing four outputs (eqs. 14, 17, 18; Table III). The inverse: preprocess (eq. 15, four reads,
 * two complex writes) -> 2-D C2R (Z2D) -> inverse reorder (eq. 16). Three passes over the data plus
 * the FFT, against eight for the row-column method (§III-C).
 * --axis rows|cols: the 1-D N-point algorithm (eqs. 9-11) batched over the rows, or down the columns
 * with a strided cuFFT plan (no transpose).
 * Derivations, scaling and the odd-size index rules: dct_kernels.cu.
 */
#include "kernels/engines.cuh"

namespace dct::cuda {
namespace {

core::Support supports(const core::TransformDesc& d) { return dct_support(d, false, ""); }

template <class T>
std::unique_ptr<core::Plan> make_typed(const core::TransformDesc& d) {
  if (d.axis == core::Axis::kBoth) return std::make_unique<EnginePlan<T, ThreeStage2d<T>>>(d, d.op, d.norm, d.shape, d.batch);
  return std::make_unique<EnginePlan<T, NPointLines<T>>>(d, d.op, d.norm, d.axis == core::Axis::kCols, d.shape, d.batch);
}

std::unique_ptr<core::Plan> make(const core::TransformDesc& d) {
  return d.prec == core::Precision::kF32 ? make_typed<float>(d) : make_typed<double>(d);
}

}  // namespace

BackendSpec fft2d_spec() {
  return {"cuda-fft2d",
          "2-D DCT-II/III as reorder + 2-D real FFT + symmetric postprocess (seed 000; the reorder inside our row FFT "
          "where N2 is a power of two, our column FFT with the postprocess fused in where N1 is 2048..8192 (one kernel "
          "at 2048), cuFFT otherwise); rows/cols: N-point 1-D",
          "any",
          {core::Op::kDct2, core::Op::kIdct2},
          &supports,
          &make};
}

}  // namespace dct::cuda
