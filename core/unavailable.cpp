#include "core/unavailable.hpp"

#include "core/error.hpp"

namespace dct::core {

void UnavailableRuntime::fail() const { throw Error(ErrorCode::kUnsupported, name_, reason_); }
std::unique_ptr<Buffer> UnavailableRuntime::allocate(std::size_t) const { fail(); }
void UnavailableRuntime::upload(Buffer&, const void*, std::size_t) const { fail(); }
void UnavailableRuntime::download(void*, const Buffer&, std::size_t) const { fail(); }
void UnavailableRuntime::copy(Buffer&, const Buffer&, std::size_t, Stream) const { fail(); }
void UnavailableRuntime::fill_bytes(Buffer&, unsigned char) const { fail(); }
std::unique_ptr<Timer> UnavailableRuntime::make_timer() const { fail(); }
std::unique_ptr<Plan> UnavailableRuntime::make_baseline(Baseline, Shape2, std::int64_t, Precision, Effort) const {
  fail();
}

std::unique_ptr<Plan> UnavailableBackend::make_plan(const TransformDesc&) const {
  throw Error(ErrorCode::kUnsupported, name_, "not usable here: " + rt_.usable().reason);
}

}  // namespace dct::core
