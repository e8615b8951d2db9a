#pragma once
// Programmatic dependent launch (sm_90 and later): a kernel launched by launch_dependent() (cuda_util.cuh) is launched
// as soon as every CTA of the kernel before it on the stream has exited, while that kernel's writes are still being
// made visible, instead of after; it calls wait_previous_grid() before its first access to global memory, which
// returns once the previous grid has completed and its writes are visible. Only the launch overlaps: no kernel here
// lets its successor start earlier (griddepcontrol.launch_dependents), which measured slower on small grids, whose
// CTAs then crowd onto the SMs that free up first (docs/decisions.md §13). A no-op before sm_90 and in the host
// emulators (plain C++).
namespace dct::cuda {

__device__ __forceinline__ void wait_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace dct::cuda
