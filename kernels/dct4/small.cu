/* cuda-dct4-small: launchers of the short-line DCT-IV kernel of kernels/dct4/small.cuh (the method is described
   there). The matrix (small::matrix) is built in long double at plan time and uploaded once per axis. Axis both: the
   rows pass in -> out, then the columns pass in place in out (no workspace). */
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct4/plans.cuh"
#include "kernels/dct4/small.cuh"

namespace dct::cuda::dct4 {
namespace {

template <class T>
class SmallAxis {
 public:
  SmallAxis(i64 n, i64 lines, i64 matrices, i64 width, bool cols, double sig) {
    mat_ = upload_table(small::matrix<T>(static_cast<int>(n), sig));
    a_.n = static_cast<int>(n);
    a_.cols = cols;
    a_.mat = mat_.as<const T>();
    const i64 per_tile = i64(1) << small::lg_lines<T>(a_.n, cols);
    if (!cols) {
      a_.lines = lines;
      a_.tiles = (lines + per_tile - 1) / per_tile;
    } else {
      a_.width = static_cast<int>(width);
      a_.tiles_per_matrix = static_cast<int>((width + per_tile - 1) / per_tile);
      a_.tiles = matrices * a_.tiles_per_matrix;
    }
    smem_ = small::smem_bytes<T>(a_.n, cols);
    // The attribute is the kernel's, shared by every plan that launches it: the most any plan may ask for.
    const void* fn = reinterpret_cast<const void*>(&small::dct4_small<T>);
    DCT_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, small::max_smem_bytes<T>()));
    int per_sm = 0;
    DCT_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, &small::dct4_small<T>, small::kThreads, smem_));
    grid_ = std::max<i64>(1, std::min<i64>(a_.tiles, i64(std::max(per_sm, 1)) * current_sm_count()));
  }
  void run(const T* in, T* out, cudaStream_t s) const {
    if (a_.tiles < 1) return;
    small::Args<T> a = a_;
    a.in = in;
    a.out = out;
    small::dct4_small<T><<<static_cast<unsigned>(grid_), small::kThreads, smem_, s>>>(a);
    DCT_CUDA_CHECK(cudaGetLastError());
  }

 private:
  small::Args<T> a_;
  DeviceBuffer mat_;
  int smem_ = 0;
  i64 grid_ = 1;
};

template <class T>
class SmallPlan final : public GpuPlan {
 public:
  explicit SmallPlan(const core::TransformDesc& d) : GpuPlan(d, d.bytes(), d.bytes()) {
    const i64 h = d.shape.rows, w = d.shape.cols;
    if (d.axis != core::Axis::kCols) axes_.emplace_back(w, d.batch * h, 0, w, false, sigma(d.op, d.norm, w));
    if (d.axis != core::Axis::kRows) axes_.emplace_back(h, 0, d.batch, w, true, sigma(d.op, d.norm, h));
  }

 private:
  void run(const void* in, void* out, cudaStream_t s) const override {
    const T* src = static_cast<const T*>(in);
    for (const SmallAxis<T>& a : axes_) {
      a.run(src, static_cast<T*>(out), s);
      src = static_cast<const T*>(out);
    }
  }
  std::vector<SmallAxis<T>> axes_;
};

}  // namespace

std::unique_ptr<core::Plan> make_small_plan(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32) return std::make_unique<SmallPlan<float>>(d);
  return std::make_unique<SmallPlan<double>>(d);
}

}  // namespace dct::cuda::dct4
