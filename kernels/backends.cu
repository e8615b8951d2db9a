// Every row of the CUDA backend table (kernels/backends.hpp) becomes one CudaBackend: the row says what it is, its
// algorithm (kernels/algorithms.cuh) says what it supports and makes its plans.
#include "kernels/backends.hpp"

#include "kernels/algorithms.cuh"
#include "kernels/common/plan.cuh"

namespace dct::cuda {
namespace {

Algorithm algorithm_of(Algo a) {
  switch (a) {
    case Algo::kFft2d:
      return fft2d_algorithm();
    case Algo::kFft2dCufft:
      return fft2d_cufft_algorithm();
    case Algo::kFft2dSmooth:
      return fft2d_smooth_algorithm();
    case Algo::kFft2dTiles:
      return fft2d_tiles_algorithm();
    case Algo::kRowcol:
      return rowcol_algorithm();
    case Algo::kLinesN:
      return lines_npoint_algorithm();
    case Algo::kLines2nMirror:
      return lines_mirror2n_algorithm();
    case Algo::kLines2nPad:
      return lines_pad2n_algorithm();
    case Algo::kLines4n:
      return lines_zero4n_algorithm();
    case Algo::k8x8:
      return block8_algorithm(true);
    case Algo::k8x8Def:
      return block8_algorithm(false);
    case Algo::kDct4Small:
      return dct4_small_algorithm();
    case Algo::kDct4Fft:
      return dct4_fft_algorithm();
    case Algo::kDct4Sec4:
      return dct4_sections_algorithm(4);
    case Algo::kDct4Sec8:
      return dct4_sections_algorithm(8);
    case Algo::kDct4Direct:
      return dct4_direct_algorithm();
    case Algo::kLot:
      return lot_algorithm();
    case Algo::kR2r:
      return r2r_algorithm();
  }
  throw Error(ErrorCode::kRuntime, "internal: a CUDA backend row without an algorithm");
}

class CudaBackend final : public core::Backend {
 public:
  explicit CudaBackend(const BackendRow& row) : row_(row), algo_(algorithm_of(row.algo)) {}
  std::string_view name() const override { return row_.name; }
  std::string_view description() const override { return row_.description; }
  std::vector<core::Op> ops() const override { return {row_.ops.begin(), row_.ops.end()}; }
  std::string_view sizes() const override { return row_.sizes; }
  const core::Runtime& runtime() const override { return cuda_runtime(); }
  core::Support supports(const core::TransformDesc& d) const override {
    if (d.op != core::Op::kR2r && d.norm == core::Norm::kForward)
      return core::Support::no("norm forward is defined for dct/dst/r2r only");
    return algo_.supports(d);
  }
  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = supports(d); !s) throw_unsupported(row_.name, d, s);
    activate_device();
    return algo_.make(d);
  }

 private:
  const BackendRow& row_;
  Algorithm algo_;
};

}  // namespace

std::unique_ptr<core::Backend> make_backend(const BackendRow& row) { return std::make_unique<CudaBackend>(row); }

}  // namespace dct::cuda
