/* cuda-dct4-direct: the classical DCT-IV, [3] eq. (1), O(N^2) per line, the paper's baseline:
     Y_k = Σ_n x_n · σ cos(π(2n+1)(2k+1)/4N)      (σ of docs/algorithms.md §1; 2, √(2/N) or 1/N)
   One thread per output. The angle index (2n+1)(2k+1) is taken modulo 8N and stepped by 2(2k+1) per term,
   so the kernel reads a table c[m] = σ cos(π m/4N), m < 8N (built in long double, stored in f64), and
   accumulates in f64 for both precisions. Rows: a warp shares its line (broadcast loads); columns: the
   threads of a warp walk adjacent columns (coalesced). Axis both: rows into a workspace, then columns. */
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct4/plans.cuh"

namespace dct::cuda::dct4 {
namespace {

template <class T, class I>
__global__ void direct_kernel(const T* __restrict__ x, T* __restrict__ y, const double* __restrict__ tab, LineMap<I> g,
                              I count) {
  const I period = 8 * g.n;
  for (I idx = blockIdx.x * I(blockDim.x) + threadIdx.x; idx < count; idx += I(gridDim.x) * blockDim.x) {
    I l, k;
    g.split(idx, g.n, l, k);
    const I base = g.elem(l, 0), st = g.stride(), step = 2 * (2 * k + 1);
    I m = 2 * k + 1;
    double acc = 0;
    for (I n = 0; n < g.n; ++n) {
      acc = fma(static_cast<double>(x[base + n * st]), tab[m], acc);
      m += step;
      if (m >= period) m -= period;
    }
    y[base + k * st] = static_cast<T>(acc);
  }
}

class Axis {
 public:
  Axis(i64 n, i64 lines, i64 width, bool cols, double sig) : n_(n), lines_(lines), width_(width), cols_(cols) {
    const long double pi = 3.141592653589793238462643383279502884L;
    std::vector<double> t(8 * n);
    for (i64 m = 0; m < 8 * n; ++m) t[m] = static_cast<double>(sig * std::cos(pi * m / (4.0L * n)));
    tab_ = DeviceBuffer(sizeof(double) * t.size());
    DCT_CUDA_CHECK(cudaMemcpy(tab_.get(), t.data(), tab_.bytes(), cudaMemcpyHostToDevice));
  }
  template <class T>
  void run(const T* in, T* out, cudaStream_t s) const {
    const i64 count = n_ * lines_;
    if (count < (i64(1) << 31))
      run_as<T, unsigned>(in, out, count, s);
    else
      run_as<T, unsigned long long>(in, out, count, s);
  }

 private:
  template <class T, class I>
  void run_as(const T* in, T* out, i64 count, cudaStream_t s) const {
    const LineMap<I> g{I(n_), I(lines_), I(width_), cols_};
    DCT_LAUNCH((direct_kernel<T, I>), dim3(flat_blocks(count)), dim3(256), s, in, out, tab_.as<const double>(), g,
               I(count));
  }
  i64 n_, lines_, width_;
  bool cols_;
  DeviceBuffer tab_;
};

template <class T>
class DirectPlan final : public GpuPlan {
 public:
  explicit DirectPlan(const core::TransformDesc& d) : GpuPlan(d, d.bytes(), d.bytes()) {
    const i64 h = d.shape.rows, w = d.shape.cols;
    if (d.axis != core::Axis::kCols) axes_.emplace_back(w, d.batch * h, w, false, sigma(d.op, d.norm, w));
    if (d.axis != core::Axis::kRows) axes_.emplace_back(h, d.batch * w, w, true, sigma(d.op, d.norm, h));
    if (axes_.size() == 2) ws_ = DeviceBuffer(d.bytes());
  }

 private:
  void run(const void* in, void* out, cudaStream_t s) const override {
    if (axes_.size() == 1) {
      axes_[0].run(static_cast<const T*>(in), static_cast<T*>(out), s);
    } else {
      axes_[0].run(static_cast<const T*>(in), ws_.as<T>(), s);
      axes_[1].run(static_cast<const T*>(ws_.as<T>()), static_cast<T*>(out), s);
    }
  }
  std::vector<Axis> axes_;
  DeviceBuffer ws_;
};

}  // namespace

std::unique_ptr<core::Plan> make_direct_plan(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32) return std::make_unique<DirectPlan<float>>(d);
  return std::make_unique<DirectPlan<double>>(d);
}

}  // namespace dct::cuda::dct4
