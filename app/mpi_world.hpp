#pragma once
// Internal to the app/*_mpi.cpp files, the only ones that include mpi.h: starting MPI and checking its calls.
#include <mpi.h>

namespace dct::app::dispatch {

// Throws kRuntime naming `call` and MPI's reason unless `rc` is MPI_SUCCESS.
void check(int rc, const char* call);

// MPI_Init_thread (MPI_THREAD_SERIALIZED) on the calling thread, with failures returned as codes rather than aborts,
// and the ranks recorded (set_ranks). Returns the size of MPI_COMM_WORLD; the caller finalizes MPI (start_mpi has
// already done so when it throws).
int start_mpi();

}  // namespace dct::app::dispatch
