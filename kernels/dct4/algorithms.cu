// The support rules of the CUDA DCT-IV algorithms (rows of kernels/backends.hpp). The algorithms are derived in
// kernels/dct4/fft.cu, sections.cu and direct.cu.
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "kernels/algorithms.cuh"
#include "kernels/dct4/plans.cuh"
#include "kernels/dct4/small.cuh"

namespace dct::cuda {
namespace {

using core::Support;

constexpr i64 kDirectMax = 8192;

Support dct4_common(const core::TransformDesc& d) {
  if (d.op != core::Op::kDct4 && d.op != core::Op::kIdct4)
    return Support::no("implements dct4 and idct4 only, not " + std::string(core::to_string(d.op)));
  if (d.block != 0) return Support::no("no block mode (whole-line DCT-IV only)");
  if (d.shape.rows < 1 || d.shape.cols < 1 || d.batch < 1) return Support::no("empty input");
  return Support::yes();
}

Support fft_supports(const core::TransformDesc& d) { return dct4_common(d); }

Support direct_supports(const core::TransformDesc& d) {
  if (Support s = dct4_common(d); !s) return s;
  const bool rows = d.axis != core::Axis::kCols, cols = d.axis != core::Axis::kRows;
  if ((rows && d.shape.cols > kDirectMax) || (cols && d.shape.rows > kDirectMax))
    return Support::no("the O(N^2) classical kernel is limited to N <= " + std::to_string(kDirectMax) +
                       " (use cuda-dct4-fft)");
  return Support::yes();
}

Support small_supports(const core::TransformDesc& d) {
  if (Support s = dct4_common(d); !s) return s;
  const bool rows = d.axis != core::Axis::kCols, cols = d.axis != core::Axis::kRows;
  const i64 n = std::max(rows ? d.shape.cols : 1, cols ? d.shape.rows : 1);
  if (n > dct4::small::kMaxN)
    return Support::no("the short-line kernel is for N <= " + std::to_string(dct4::small::kMaxN) +
                       " (N = " + std::to_string(n) + "; cuda-dct4-fft takes any N)");
  if (cols && d.shape.cols >= (i64(1) << 31)) return Support::no("columns layout: width >= 2^31");
  return Support::yes();
}

Support sections_supports(const core::TransformDesc& d) {
  if (Support s = dct4_common(d); !s) return s;
  if (d.axis != core::Axis::kRows) return Support::no("transforms along rows only (--axis rows)");
  if (d.shape.cols != 17)
    return Support::no("the sectioned algorithm is for N = 17 only (rows of length " + std::to_string(d.shape.cols) +
                       " given)");
  return Support::yes();
}

std::unique_ptr<core::Plan> make_sec4(const core::TransformDesc& d) { return dct4::make_sections_plan(d, 4); }
std::unique_ptr<core::Plan> make_sec8(const core::TransformDesc& d) { return dct4::make_sections_plan(d, 8); }

}  // namespace

Algorithm dct4_small_algorithm() { return {&small_supports, &dct4::make_small_plan}; }
Algorithm dct4_fft_algorithm() { return {&fft_supports, &dct4::make_fft_plan}; }
Algorithm dct4_sections_algorithm(int sections) {
  return {&sections_supports, sections == 4 ? &make_sec4 : &make_sec8};
}
Algorithm dct4_direct_algorithm() { return {&direct_supports, &dct4::make_direct_plan}; }

}  // namespace dct::cuda
