#include "core/backend.hpp"

#include <algorithm>
#include <functional>

#include "core/cores.hpp"
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

// fn(at, n) over the bytes [0, total) in one part per thread (parts of at least kMinPart, starting at multiples of 64
// bytes), the parts at once. The parts' copies first touch fresh memory (the input array; the output's mapped
// temporary), whose page faults run in parallel: 1 MiB parts put every core on a photo-sized file (16 MiB parts read
// a 1080p f32 matrix on one thread; docs/decisions.md §11).
void by_parts(std::size_t total, int threads, const std::function<void(std::size_t, std::size_t)>& fn) {
  constexpr std::size_t kMinPart = std::size_t{1} << 20;
  const std::size_t parts =
      std::clamp<std::size_t>(total / kMinPart, 1, static_cast<std::size_t>(std::max(1, threads)));
  const std::size_t step = (total / parts + 63) / 64 * 64;
  run_parts(parts, [&](std::size_t k) {
    const std::size_t at = std::min(total, k * step);
    fn(at, std::min(total, at + step) - at);
  });
}

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

StreamTimes Plan::execute_streamed(const ByteSource& in, const ByteSink& out, int threads) const {
  if (memory() != Memory::kHost)
    throw Error(ErrorCode::kRuntime, "internal: device plan without a streamed execution path");
  const TransformDesc& d = desc();
  const ConstView shape_in{nullptr, d.shape, d.batch, d.prec, Memory::kHost};
  const View shape_out{nullptr, d.out_shape(), d.batch, d.prec, Memory::kHost};
  AlignedBuffer a(shape_in.bytes()), b(shape_out.bytes());
  StreamTimes t;
  Stopwatch sw;
  by_parts(shape_in.bytes(), threads,
           [&](std::size_t at, std::size_t n) { in.read(at, static_cast<char*>(a.data()) + at, n); });
  t.in_ms = sw.lap_ms();
  execute(ConstView{a.data(), d.shape, d.batch, d.prec, Memory::kHost},
          View{b.data(), d.out_shape(), d.batch, d.prec, Memory::kHost});
  t.device_ms = sw.lap_ms();
  by_parts(shape_out.bytes(), threads,
           [&](std::size_t at, std::size_t n) { out.write(at, static_cast<const char*>(b.data()) + at, n); });
  t.out_ms = sw.lap_ms();
  return t;
}

}  // namespace dct::core
