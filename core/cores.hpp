#pragma once
/* The CPUs this process may run on: its affinity mask (taskset, numactl, a batch scheduler's CPU binding), else every
   online CPU. The default thread count of FFTW, OpenMP and dctool's own pools. */

namespace dct::core {

// At least 1.
int usable_cores();

// This process's share when `processes` of one launch run on the host: its affinity mask where a launcher bound it
// to fewer CPUs than the host has, else an equal share of the host's CPUs. At least 1.
int share_of_cores(int processes);

}  // namespace dct::core
