#include "cpu/fftw_util.hpp"

#include "cpu/common.hpp"

namespace dct::cpu::detail {
namespace {

// FFTW's threaded plans run their jobs through this loop on OpenMP's thread pool instead of FFTW's own
// pthreads. With two pools, OpenMP workers that spin-wait after a parallel region (libgomp's default)
// steal the cores FFTW's workers need: an ortho dct2 (FFTW execute, then the OpenMP scaling pass) ran
// 1.4x slower than the bare FFTW plan at 2048x2048 on 2 cores, and up to 20x at 256x256. One pool
// removes the contention. Jobs run sequentially when called inside another parallel region.
void omp_parallel_loop(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void*) {
#pragma omp parallel for schedule(static) num_threads(njobs)
  for (int i = 0; i < njobs; ++i) work(jobdata + elsize * static_cast<std::size_t>(i));
}

template <class T>
bool init_fftw_threads() {
  if (Fftw<T>::init_threads() == 0) return false;
  Fftw<T>::set_parallel_loop(&omp_parallel_loop);
  return true;
}

}  // namespace

std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

template <class T>
void prepare_planner(std::int64_t elements) {
  static const bool threads_ok = init_fftw_threads<T>();  // first call happens under the mutex
  if (threads_ok) Fftw<T>::plan_with_nthreads(elements >= kThreadedMinElements ? thread_count() : 1);
}

template void prepare_planner<float>(std::int64_t);
template void prepare_planner<double>(std::int64_t);

}  // namespace dct::cpu::detail
