#include "cpu/fftw_util.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <type_traits>

#include "core/formats.hpp"
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
std::string wisdom_path() {
  std::string dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && x[0] == '/')
    dir = x;
  else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    dir = std::string(home) + "/.cache";
  else
    return {};
  return dir + "/dctool/fftw-wisdom-" + (std::is_same_v<T, float> ? "f32" : "f64");
}

template <class T>
void prepare_planner(std::int64_t elements, bool pow2, int max_threads) {
  static const bool threads_ok = init_fftw_threads<T>();  // first call happens under the mutex
  static const bool wisdom_read = [] {
    const std::string path = wisdom_path<T>();
    return !path.empty() && ::access(path.c_str(), R_OK) == 0 && Fftw<T>::import_wisdom(path.c_str()) != 0;
  }();
  (void)wisdom_read;
  int threads = pow2 ? thread_count() : std::min(thread_count(), kSmoothSizeMaxThreads);
  if (max_threads > 0) threads = std::min(threads, max_threads);
  if (threads_ok) Fftw<T>::plan_with_nthreads(elements >= kThreadedMinElements ? threads : 1);
}

template <class T>
void save_wisdom() {
  const std::string path = wisdom_path<T>();
  if (path.empty()) return;
  char* text = Fftw<T>::export_wisdom();
  if (text == nullptr) return;
  const std::string wisdom(text);
  std::free(text);
  try {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    core::AtomicFile f(path);
    f.write(wisdom.data(), wisdom.size());
    f.commit();
  } catch (const Error&) {
    // A cache that cannot be written (read-only home, full disk) only costs planning time later.
  }
}

template void prepare_planner<float>(std::int64_t, bool, int);
template void prepare_planner<double>(std::int64_t, bool, int);
template std::string wisdom_path<float>();
template std::string wisdom_path<double>();
template void save_wisdom<float>();
template void save_wisdom<double>();

}  // namespace dct::cpu::detail
