#include "core/backend.hpp"

#include "core/error.hpp"
#include "core/timing.hpp"

namespace dct::core {
namespace {

class HostMemory final : public Buffer {
 public:
  explicit HostMemory(std::size_t bytes) : buf_(bytes) {}
  void* data() const override { return buf_.data(); }
  std::size_t bytes() const override { return buf_.bytes(); }

 private:
  AlignedBuffer buf_;
};

}  // namespace

std::unique_ptr<Buffer> allocate_heap(std::size_t bytes) { return std::make_unique<HostMemory>(bytes); }

std::unique_ptr<Buffer> Runtime::allocate_host(std::size_t bytes) const { return allocate_heap(bytes); }

StageTimes Plan::execute_host(ConstView in, View out) const {
  if (memory() != Memory::kHost)
    throw Error(ErrorCode::kRuntime, "internal: device plan without a host execution path");
  Stopwatch sw;
  execute(in, out);
  StageTimes t;
  t.device_ms = t.e2e_ms = sw.elapsed_ms();
  return t;
}

}  // namespace dct::core
