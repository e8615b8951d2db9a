#pragma once
// Internal to cpu/: FFTW precision traits (fftw_ for double, fftwf_ for float), the one planner mutex
// (FFTW planning is not thread-safe, so every plan creation and destruction in the process
// goes through it), and a move-only owner of an FFTW plan.
#include <fftw3.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

namespace dct::cpu::detail {

std::mutex& planner_mutex();

// Problems below this many real values are planned single-threaded (thread start-up costs more).
inline constexpr std::int64_t kThreadedMinElements = 1 << 15;
// Problems with an extent other than a power of two are planned for at most this many threads: with more, FFTW's
// threaded plans of such sizes ran 10-200x slower than with 8 on a 16-core host (1080x1920 dct2: 7 ms with 8 threads,
// 193 with 12, 1397 with 16), while powers of two kept gaining (8192^2: 456 ms with 8, 252 with 16);
// docs/decisions.md, "FFTW threads".
inline constexpr int kSmoothSizeMaxThreads = 8;
// Problems of three transformed axes with a DCT-I or DST-I among them (REDFT00, RODFT00) are planned single-threaded:
// FFTW's threaded plans of these ran up to 50x slower than one thread on a 16-core host (33x65x129 f32 DST-I: 10.6 ms
// with 1 thread, 68 with 2, 1873 with 8; 128^3 DCT-I: 356 ms with 1, 15637 with 16), and 2 threads were worse than 1
// where they first went wrong; docs/decisions.md, "FFTW threads".
inline constexpr int kTypeOneRank3MaxThreads = 1;

// FFTW planner flags for an effort.
inline unsigned fftw_flags(core::Effort e) { return e == core::Effort::kMeasure ? FFTW_MEASURE : FFTW_ESTIMATE; }

// FFTW's parallel-loop callback type (fftw_threads_set_callback, FFTW >= 3.3.9).
using ParallelLoop = void (*)(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void* data);

template <class T>
struct Fftw;

template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static int init_threads() { return fftw_init_threads(); }
  static int import_wisdom(const char* path) { return fftw_import_wisdom_from_filename(path); }
  static char* export_wisdom() { return fftw_export_wisdom_to_string(); }
  static void set_parallel_loop(ParallelLoop loop) { fftw_threads_set_callback(loop, nullptr); }
  static void plan_with_nthreads(int n) { fftw_plan_with_nthreads(n); }
  static Plan guru_r2r(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, double* in,
                       double* out, const fftw_r2r_kind* kind, unsigned flags) {
    return fftw_plan_guru64_r2r(rank, dims, hrank, hdims, in, out, kind, flags);
  }
  static Plan many_r2r(int rank, const int* n, int howmany, double* in, int idist, double* out, int odist,
                       const fftw_r2r_kind* kind, unsigned flags) {
    return fftw_plan_many_r2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, kind, flags);
  }
  static Plan many_r2c(int rank, const int* n, int howmany, double* in, int idist, Complex* out, int odist,
                       unsigned flags) {
    return fftw_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static Plan many_c2r(int rank, const int* n, int howmany, Complex* in, int idist, double* out, int odist,
                       unsigned flags) {
    return fftw_plan_many_dft_c2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static Plan guru_r2c(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, double* in,
                       Complex* out, unsigned flags) {
    return fftw_plan_guru64_dft_r2c(rank, dims, hrank, hdims, in, out, flags);
  }
  static Plan guru_c2r(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, Complex* in,
                       double* out, unsigned flags) {
    return fftw_plan_guru64_dft_c2r(rank, dims, hrank, hdims, in, out, flags);
  }
  static Plan guru_dft(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, Complex* in,
                       Complex* out, int sign, unsigned flags) {
    return fftw_plan_guru64_dft(rank, dims, hrank, hdims, in, out, sign, flags);
  }
  static void execute_r2r(Plan p, double* in, double* out) { fftw_execute_r2r(p, in, out); }
  static void execute_dft(Plan p, Complex* in, Complex* out) { fftw_execute_dft(p, in, out); }
  static void execute_r2c(Plan p, double* in, Complex* out) { fftw_execute_dft_r2c(p, in, out); }
  static void execute_c2r(Plan p, Complex* in, double* out) { fftw_execute_dft_c2r(p, in, out); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
  static int alignment_of(const double* p) { return fftw_alignment_of(const_cast<double*>(p)); }
};

template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static int init_threads() { return fftwf_init_threads(); }
  static int import_wisdom(const char* path) { return fftwf_import_wisdom_from_filename(path); }
  static char* export_wisdom() { return fftwf_export_wisdom_to_string(); }
  static void set_parallel_loop(ParallelLoop loop) { fftwf_threads_set_callback(loop, nullptr); }
  static void plan_with_nthreads(int n) { fftwf_plan_with_nthreads(n); }
  static Plan guru_r2r(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, float* in, float* out,
                       const fftw_r2r_kind* kind, unsigned flags) {
    return fftwf_plan_guru64_r2r(rank, dims, hrank, hdims, in, out, kind, flags);
  }
  static Plan many_r2r(int rank, const int* n, int howmany, float* in, int idist, float* out, int odist,
                       const fftw_r2r_kind* kind, unsigned flags) {
    return fftwf_plan_many_r2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, kind, flags);
  }
  static Plan many_r2c(int rank, const int* n, int howmany, float* in, int idist, Complex* out, int odist,
                       unsigned flags) {
    return fftwf_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static Plan many_c2r(int rank, const int* n, int howmany, Complex* in, int idist, float* out, int odist,
                       unsigned flags) {
    return fftwf_plan_many_dft_c2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static Plan guru_r2c(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, float* in,
                       Complex* out, unsigned flags) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, hrank, hdims, in, out, flags);
  }
  static Plan guru_c2r(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, Complex* in,
                       float* out, unsigned flags) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, hrank, hdims, in, out, flags);
  }
  static Plan guru_dft(int rank, const fftw_iodim64* dims, int hrank, const fftw_iodim64* hdims, Complex* in,
                       Complex* out, int sign, unsigned flags) {
    return fftwf_plan_guru64_dft(rank, dims, hrank, hdims, in, out, sign, flags);
  }
  static void execute_r2r(Plan p, float* in, float* out) { fftwf_execute_r2r(p, in, out); }
  static void execute_dft(Plan p, Complex* in, Complex* out) { fftwf_execute_dft(p, in, out); }
  static void execute_r2c(Plan p, float* in, Complex* out) { fftwf_execute_dft_r2c(p, in, out); }
  static void execute_c2r(Plan p, Complex* in, float* out) { fftwf_execute_dft_c2r(p, in, out); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
  static int alignment_of(const float* p) { return fftwf_alignment_of(const_cast<float*>(p)); }
};

// cpu-fftw's norm factor of index k along an axis of length n for dct2, idct2, dct4, idct4 (fftw_backend.cpp's table).
double dct_axis_factor(core::Op op, core::Norm norm, std::int64_t n, std::int64_t k);
// cpu-fftw's plan of a whole-matrix dct2 / idct2 (axis both, no blocks) through FFTW's r2c / c2r (fftw_dct2d.cpp).
std::unique_ptr<core::Plan> make_fftw_dct2d_plan(const core::TransformDesc& d);
// The same route for an r2r request whose two transformed axes are the array's last two (a leading axis not
// transformed: a batch), both of the type II family (DCT-II, DST-II) or both of the type III family, any norm; null
// for any other request.
std::unique_ptr<core::Plan> make_fftw_r2r_2d_plan(const core::TransformDesc& d);

// Call with planner_mutex() held, right before creating a plan: initializes FFTW's threads (once per
// precision; FFTW's parallel loops then run on the OpenMP thread pool, see fftw_util.cpp) and sets the
// planner's thread count for a problem of `elements` real values whose transformed extents are all powers of two
// (`pow2`) or not (then at most kSmoothSizeMaxThreads), and at most `max_threads` where that is positive.
template <class T>
void prepare_planner(std::int64_t elements, bool pow2, int max_threads = 0);
// Whether every extent in [first, last) is a power of two.
template <class It, class Extent>
bool all_powers_of_two(It first, It last, Extent extent) {
  for (; first != last; ++first) {
    const auto n = static_cast<std::int64_t>(extent(*first));
    if (n < 1 || (n & (n - 1)) != 0) return false;
  }
  return true;
}

// The wisdom cache (README "Environment"): $XDG_CACHE_HOME/dctool/fftw-wisdom-f32|f64 (XDG_CACHE_HOME defaults
// to $HOME/.cache). prepare_planner() imports it once per precision, so one-shot commands (FFTW_ESTIMATE) plan
// with what earlier measured plans found; save_wisdom() (planner mutex held, after a measured plan) writes the
// accumulated wisdom back atomically. A missing, unreadable or stale cache is ignored; a cache that cannot be
// written is skipped silently (the transform does not depend on it).
template <class T>
std::string wisdom_path();
template <class T>
void save_wisdom();

// Owns one FFTW plan; destroys it under the planner mutex. Move-only.
template <class T>
class FftwPlan {
 public:
  using Raw = typename Fftw<T>::Plan;
  FftwPlan() = default;
  explicit FftwPlan(Raw p) : p_(p) {}
  FftwPlan(FftwPlan&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  FftwPlan& operator=(FftwPlan&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;
  ~FftwPlan() { reset(); }
  void reset() noexcept {
    if (p_ == nullptr) return;
    std::lock_guard<std::mutex> lock(planner_mutex());
    Fftw<T>::destroy(p_);
    p_ = nullptr;
  }
  Raw get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  Raw p_ = nullptr;
};

// Runs `create` (which calls an FFTW planner and returns the raw plan) under the planner mutex with the
// thread count set (prepare_planner, at most max_threads where positive); throws dct::Error(kRuntime, who, ...) when
// FFTW returns no plan. A measured plan's wisdom goes to the cache (save_wisdom).
template <class T, class Create>
FftwPlan<T> make_fftw_plan(std::int64_t elements, bool pow2, core::Effort effort, const std::string& who,
                           const std::string& what, Create&& create, int max_threads = 0) {
  typename Fftw<T>::Plan p;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    prepare_planner<T>(elements, pow2, max_threads);
    p = create();
    if (p != nullptr && effort == core::Effort::kMeasure) save_wisdom<T>();
  }
  if (p == nullptr) throw Error(ErrorCode::kRuntime, who, "FFTW could not plan " + what);
  return FftwPlan<T>(p);
}

}  // namespace dct::cpu::detail
