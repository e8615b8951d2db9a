#include "core/backend.hpp"

#include "core/error.hpp"
#include "core/timing.hpp"

namespace dct::core {

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
