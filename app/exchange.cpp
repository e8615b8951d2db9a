// A build without MPI: a distributed transform runs in this process alone, and is refused under a launcher of several
// processes (each would transform the whole array and write the one output).
#include "app/exchange.hpp"

#include "app/dispatch.hpp"
#include "core/error.hpp"

namespace dct::app::dispatch {

#ifndef DCTOOL_HAVE_MPI
std::unique_ptr<core::dist::Exchange> start_exchange() {
  if (launched_distributed())
    throw Error(ErrorCode::kUnsupported, "MPI",
                "a distributed transform under an MPI launcher of several processes needs MPI, and this dctool was "
                "built without it (install libopenmpi-dev and rebuild with DCTOOL_ENABLE_MPI=ON)");
  return std::make_unique<core::dist::LocalExchange>();
}
#endif

}  // namespace dct::app::dispatch
