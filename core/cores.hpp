#pragma once
/* The CPUs this process may run on: its affinity mask (taskset, numactl, a batch scheduler's CPU binding), else every
   online CPU. The default thread count of FFTW, OpenMP and dctool's own pools. */

#include <cstddef>
#include <functional>

namespace dct::core {

// At least 1.
int usable_cores();

// This process's share when `processes` of one launch run on the host: its affinity mask where a launcher bound it
// to fewer CPUs than the host has, else an equal share of the host's CPUs. At least 1.
int share_of_cores(int processes);

// Runs part(k) for k = 0 .. parts − 1 at once: part 0 on the calling thread, the others on threads of their own (on
// the caller's when no thread can be had). Returns when every part is done; then rethrows the exception of the lowest
// part that threw.
void run_parts(std::size_t parts, const std::function<void(std::size_t)>& part);

}  // namespace dct::core
