// The CUDA DCT-IV backend table: one Backend class, one row per algorithm (name, description, sizes,
// support rule, plan factory). The algorithms are derived in dct4_fft.cu, dct4_sections.cu, dct4_direct.cu.
#include "kernels/dct4_backends.hpp"

#include <string>

#include "core/error.hpp"
#include "cpu/dct4_sections.hpp"
#include "kernels/backends.hpp"
#include "kernels/dct4_plans.cuh"

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

Support sections_supports(const core::TransformDesc& d) {
  if (Support s = dct4_common(d); !s) return s;
  if (d.axis != core::Axis::kRows) return Support::no("transforms along rows only (--axis rows)");
  if (d.shape.cols != 17)
    return Support::no("the sectioned algorithm is for N = 17 only (rows of length " + std::to_string(d.shape.cols) +
                       " given)");
  return Support::yes();
}

struct Row {
  std::string name, description, sizes;
  Support (*supports)(const core::TransformDesc&);
  std::unique_ptr<core::Plan> (*make)(const core::TransformDesc&);
};

class Dct4Backend final : public core::Backend {
 public:
  explicit Dct4Backend(Row r) : r_(std::move(r)) {}
  std::string_view name() const override { return r_.name; }
  std::string_view description() const override { return r_.description; }
  std::vector<core::Op> ops() const override { return {core::Op::kDct4, core::Op::kIdct4}; }
  std::string_view sizes() const override { return r_.sizes; }
  const core::Runtime& runtime() const override { return cuda_runtime(); }
  Support supports(const core::TransformDesc& d) const override { return r_.supports(d); }
  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (Support s = r_.supports(d); !s) throw_unsupported(r_.name, d, s);
    activate_device();
    return r_.make(d);
  }

 private:
  Row r_;
};

std::unique_ptr<core::Plan> make_sec4(const core::TransformDesc& d) { return dct4::make_sections_plan(d, 4); }
std::unique_ptr<core::Plan> make_sec8(const core::TransformDesc& d) { return dct4::make_sections_plan(d, 8); }

}  // namespace

std::vector<std::unique_ptr<core::Backend>> make_dct4_backends() {
  std::vector<Row> rows{
      {"cuda-dct4-fft",
       "DCT-IV via cuFFT: N/2-point complex FFT with fused pre/post twiddles (even N), signed permutation + "
       "N-point real FFT (odd N); 3 passes per axis",
       "any (rows, cols, both)", fft_supports, dct4::make_fft_plan},
      {"cuda-dct4-sec4",
       "seed 003 sectioned N=17 DCT-IV, 4 threads per transform: " + cpu::dct4_sections_counts(4), "N = 17 (rows)",
       sections_supports, make_sec4},
      {"cuda-dct4-sec8",
       "seed 003 sectioned N=17 DCT-IV, 8 threads per transform: " + cpu::dct4_sections_counts(8), "N = 17 (rows)",
       sections_supports, make_sec8},
      {"cuda-dct4-direct", "classical DCT-IV (seed 003 eq. 1), O(N^2), one thread per output, f64 accumulation",
       "N <= 8192 per axis", direct_supports, dct4::make_direct_plan},
  };
  std::vector<std::unique_ptr<core::Backend>> out;
  for (auto& r : rows) out.push_back(std::make_unique<Dct4Backend>(std::move(r)));
  return out;
}

}  // namespace dct::cuda
