#pragma once
// The processes of a distributed transform (core::dist::Exchange, core/distributed.hpp): the job of an MPI launcher
// (app/exchange_mpi.cpp), or this process alone.
#include <memory>

#include "core/distributed.hpp"

namespace dct::app::dispatch {

// Under an MPI launcher (of any number of processes): MPI started on this thread over the job's processes, finalized
// when the exchange goes; the ranks recorded (app/dispatch.hpp). Without a launcher: this process alone (no MPI).
// Throws kUnsupported under a launcher of several processes when MPI was not compiled in, kRuntime when MPI cannot
// start.
std::unique_ptr<core::dist::Exchange> start_exchange();

}  // namespace dct::app::dispatch
