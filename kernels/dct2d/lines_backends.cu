/* The four 1-D DCT algorithms of [1] (Algorithm 1, Fig. 1, Table IV), as backends for --axis rows:
 *   cuda-1d-4n         4N-point real FFT of the zero-interleaved mirrored signal     (eqs. 3-4)
 *   cuda-1d-2n-mirror  2N-point real FFT of the mirrored signal, twiddle            (eqs. 5-6)
 *   cuda-1d-2n-pad     2N-point real FFT of the zero-padded signal, twiddle         (eqs. 7-8)
 *   cuda-1d-n          N-point reorder + real FFT + twiddle using Hermitian symmetry (eqs. 9-11)
 * Each is preprocess -> one batched cuFFT call over the rows -> postprocess; the inverse (DCT-III) runs
 * the same shape backwards (derivations in kernels/dct2d/prepost.cu; the padded inverse needs a C2C, since a
 * zero-padded spectrum is not Hermitian). One table row per algorithm.
 */
#include "kernels/algorithms.cuh"
#include "kernels/dct2d/pipelines.cuh"

namespace dct::cuda {
namespace {

constexpr const char* kRowsOnly = "a 1-D algorithm of Table IV: --axis rows only (cuda-fft2d does cols and both)";

core::Support supports(const core::TransformDesc& d) { return dct_support(d, true, kRowsOnly); }

template <Family F>
std::unique_ptr<core::Plan> make_family(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32)
    return std::make_unique<EnginePlan<float, FamilyLines<float>>>(d, F, d.op, d.norm, d.shape, d.batch);
  return std::make_unique<EnginePlan<double, FamilyLines<double>>>(d, F, d.op, d.norm, d.shape, d.batch);
}

std::unique_ptr<core::Plan> make_npoint(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32)
    return std::make_unique<EnginePlan<float, NPointLines<float>>>(d, d.op, d.norm, false, d.shape, d.batch);
  return std::make_unique<EnginePlan<double, NPointLines<double>>>(d, d.op, d.norm, false, d.shape, d.batch);
}

}  // namespace

Algorithm lines_npoint_algorithm() { return {&supports, &make_npoint}; }
Algorithm lines_mirror2n_algorithm() { return {&supports, &make_family<Family::kMirror2N>}; }
Algorithm lines_pad2n_algorithm() { return {&supports, &make_family<Family::kPad2N>}; }
Algorithm lines_zero4n_algorithm() { return {&supports, &make_family<Family::kZero4N>}; }

}  // namespace dct::cuda
