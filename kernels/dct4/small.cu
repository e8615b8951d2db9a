/* cuda-dct4-small: launchers of the short-line DCT-IV kernel of kernels/dct4/small.cuh (the method is described
   there). The matrix (small::matrix) is built in long double at plan time and uploaded once per axis. Rows of N = 8,
   16 and 32 take dct4_rows_short of kernels/dct4/rows.cuh instead (the N/2-point FFT in registers, one line per
   thread; also cuda-dct4-fft's kernel for them), which measured faster than the matrix product there
   (docs/decisions.md §10); rows of odd N up to small::odd_max_n<T>() (39 in f32, 21 in f64) take dct4_rows_odd
   (small.cuh: the matrix in the kernel's parameters, one line per thread). Axis both: the rows pass in -> out, then the
   columns pass in place in out (no workspace). */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct4/plans.cuh"
#include "kernels/dct4/rows.cuh"
#include "kernels/dct4/small.cuh"

namespace dct::cuda::dct4 {
namespace {

// dct4_rows_odd for one N: its launch, with the matrix (an OddMatrix<T, N>) at m.
template <class T>
using OddLaunch = void (*)(const T*, T*, long long, const void*, cudaStream_t);

template <class T, int N>
void launch_odd(const T* x, T* y, long long lines, const void* m, cudaStream_t s) {
  const long long ctas = (lines + small::kOddThreads - 1) / small::kOddThreads;
  small::dct4_rows_odd<T, N><<<static_cast<unsigned>(ctas), small::kOddThreads, small::odd_smem_bytes<T>(N), s>>>(
      x, y, lines, *static_cast<const small::OddMatrix<T, N>*>(m));
}

// The launch of dct4_rows_odd for odd n (3 <= n <= odd_max_n<T>()) and its parameter's bytes; null for any other n.
template <class T, int N = 3>
std::pair<OddLaunch<T>, std::vector<unsigned char>> odd_kernel(i64 n, double sig) {
  if constexpr (N > small::odd_max_n<T>()) {
    return {nullptr, {}};
  } else {
    if (n != N) return odd_kernel<T, N + 2>(n, sig);
    const small::OddMatrix<T, N> m = small::odd_matrix<T, N>(sig);
    std::vector<unsigned char> bytes(sizeof m);
    std::memcpy(bytes.data(), &m, sizeof m);
    return {&launch_odd<T, N>, std::move(bytes)};
  }
}

template <class T>
class SmallAxis {
 public:
  SmallAxis(i64 n, i64 lines, i64 matrices, i64 width, bool cols, double sig) {
    int lgm = 0;
    while ((i64(2) << lgm) < n) ++lgm;
    if (!cols && (i64(2) << lgm) == n && lgm >= kShortMinLgm && lgm <= kShortMaxLgm) {
      rows_ = rows_launch<T>(lgm);
      lines_ = lines;
      const PrePost<T> pp = rows_pre_post<T>(n, sig);
      pre_ = upload_table(pp.pre);
      post_ = upload_table(pp.post);
      return;
    }
    if (!cols) {
      std::tie(odd_, odd_matrix_) = odd_kernel<T>(n, sig);
      lines_ = lines;
      if (odd_ != nullptr) return;
    }
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
    if (rows_.fn != nullptr) {
      const i64 ctas = (lines_ + rows_.lines_per_cta - 1) / rows_.lines_per_cta;
      if (ctas < 1) return;
      if (ctas >= (i64(1) << 31)) throw Error(ErrorCode::kUsage, "cuda-dct4-small", "too many lines for one launch");
      using C = typename RowsTypes<T>::cx;
      rows_.fn<<<static_cast<unsigned>(ctas), rows_.threads, rows_.smem_bytes, s>>>(
          in, out, pre_.as<const C>(), post_.as<const C>(), nullptr, 0, 0, static_cast<long long>(lines_));
      DCT_CUDA_CHECK(cudaGetLastError());
      return;
    }
    if (odd_ != nullptr) {
      if (lines_ < 1) return;
      if ((lines_ + small::kOddThreads - 1) / small::kOddThreads >= (i64(1) << 31))
        throw Error(ErrorCode::kUsage, "cuda-dct4-small", "too many lines for one launch");
      odd_(in, out, lines_, odd_matrix_.data(), s);
      DCT_CUDA_CHECK(cudaGetLastError());
      return;
    }
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
  RowsLaunch<T> rows_;                     // set for rows of N = 8, 16, 32: dct4_rows_short
  OddLaunch<T> odd_ = nullptr;             // set for rows of odd N, 3 <= N <= odd_max_n<T>(): dct4_rows_odd
  std::vector<unsigned char> odd_matrix_;  // its parameter
  i64 lines_ = 0;
  DeviceBuffer pre_, post_;
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
