#include "cpu/common.hpp"

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "core/cores.hpp"
#include "core/error.hpp"
#include "cpu/backends.hpp"

namespace dct::cpu {
namespace {
std::atomic<int> g_threads{0};
}  // namespace

void set_threads(int n) {
  g_threads.store(n < 0 ? 0 : n);
  omp_set_num_threads(detail::thread_count());
}

namespace detail {

int thread_count() {
  const int n = g_threads.load();
  if (n > 0) return n;
  return core::usable_cores();
}

bool is_dct_op(core::Op op) {
  return op == core::Op::kDct2 || op == core::Op::kIdct2 || op == core::Op::kDct4 || op == core::Op::kIdct4;
}

core::Support check_dct_desc(const core::TransformDesc& d, bool block_any_op) {
  using core::Support;
  if (!is_dct_op(d.op))
    return Support::no("implements dct2, idct2, dct4 and idct4, not " + std::string(core::to_string(d.op)));
  if (d.norm == core::Norm::kForward) return Support::no("norm forward is defined for dct/dst/r2r only");
  if (d.shape.rows < 1 || d.shape.cols < 1) return Support::no("empty shape " + core::to_string(d.shape));
  if (d.batch < 1) return Support::no("batch must be >= 1");
  if (d.block < 0) return Support::no("block size must be positive");
  if (d.block > 0) {
    if (!block_any_op && d.op != core::Op::kDct2 && d.op != core::Op::kIdct2)
      return Support::no("block mode applies to dct2 and idct2 only");
    if (d.axis != core::Axis::kBoth) return Support::no("block mode needs --axis both");
    if (d.shape.rows % d.block != 0 || d.shape.cols % d.block != 0)
      return Support::no("shape " + core::to_string(d.shape) + " is not a multiple of the block size " +
                         std::to_string(d.block));
  }
  return Support::yes();
}

void check_views(std::string_view backend, const core::TransformDesc& d, const core::ConstView& in,
                 const core::View& out) {
  auto fail = [&](const std::string& what) {
    throw Error(ErrorCode::kRuntime, std::string(backend), "internal: " + what + " (plan for " + d.to_string() + ")");
  };
  if (in.mem != core::Memory::kHost || out.mem != core::Memory::kHost) fail("views must be in host memory");
  if (in.prec != d.prec || out.prec != d.prec) fail("view precision does not match the plan");
  if (in.elements() != d.elements() || out.elements() != d.out_shape().count() * d.batch)
    fail("view size does not match the plan");
  if (in.data == nullptr || out.data == nullptr) fail("null view");
  const auto a = reinterpret_cast<std::uintptr_t>(in.data), b = reinterpret_cast<std::uintptr_t>(out.data);
  if (a < b + out.bytes() && b < a + in.bytes()) fail("input and output overlap");
}

}  // namespace detail
}  // namespace dct::cpu
