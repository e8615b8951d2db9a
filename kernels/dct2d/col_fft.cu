/* ColumnFft: launchers of the column FFT passes of kernels/dct2d/col_fft.cuh (the math is derived there). The
   twiddle table tw[j] = e^{-2πij/N} is built in long double at construction (col_fft_twiddles, shared with
   tests/emulate/emulate_colfft.cpp) and uploaded once; the two passes come from col_fft_plan. */
#include "kernels/dct2d/col_fft.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct2d/col_fft.cuh"
#include "kernels/dct2d/col_fft_onepass.cuh"

namespace dct::cuda {

namespace {
template <class T>
colfft::Dct2dTables<T> fused_tables(const AxisTables<T>& t1, const AxisTables<T>& t2, bool inverse) {
  return {t1.tw, inverse ? t1.ia : t1.fs, t2.tw, inverse ? t2.ia : t2.fs};
}

// A fused kernel with its dynamic shared memory allowed (f64, L = 128: 64 KiB; one-pass: 128 KiB; above the 48 KiB
// default).
template <class F>
const void* allow_smem(F fn, int bytes) {
  const void* f = reinterpret_cast<const void*>(fn);
  DCT_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return f;
}

// The one-pass column stage at n1 = 2048 (kernels/dct2d/col_fft_onepass.cuh), C columns per CTA: 8 (f32) / 4 (f64),
// 128 KiB of shared memory. Used for f32 both directions and the f64 inverse; the f64 forward is faster as two kernels
// (docs/decisions.md).
template <class T>
bool onepass_wanted(bool inverse) {
  return sizeof(T) == 4 || inverse;
}
template <class T, int C>
const void* onepass_kernel(bool inverse, int& bytes) {
  bytes = colfft::onepass_smem_bytes<T, C>();
  return inverse ? allow_smem(&colfft::col_fft1_pre<T, C>, bytes) : allow_smem(&colfft::col_fft1_post<T, C>, bytes);
}
}  // namespace

template <class T>
bool ColumnFft<T>::supports(std::int64_t n1) {
  return n1 == 1024 || n1 == 2048 || n1 == 4096 || n1 == 8192 || n1 == 16384;
}

template <class T>
bool ColumnFft<T>::supports(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch) {
  return supports(n1) && w >= 1 && pitch >= w && batch >= 1 && batch <= 65535 && pitch < ((std::int64_t{1} << 31) / n1);
}

template <class T>
ColumnFft<T>::ColumnFft(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch, bool inverse)
    : n1_(n1), w_(w), batch_(batch), pitch_(pitch) {
  if (!supports(n1)) throw Error(ErrorCode::kUsage, "column fft", "unsupported column length " + std::to_string(n1));
  if (!supports(n1, w, batch, pitch))
    throw Error(ErrorCode::kUsage, "column fft",
                "unsupported shape " + std::to_string(batch) + " x " + std::to_string(n1) + " x " + std::to_string(w) +
                    " (pitch " + std::to_string(pitch) + ")");
  inverse_ = inverse;
  // na x nb: 32 x 32, 64 x 32, 64 x 64, 64 x 128, 128 x 128.
  const int lg_n = n1 == 1024 ? 10 : n1 == 2048 ? 11 : n1 == 4096 ? 12 : n1 == 8192 ? 13 : 14;
  lg_na_ = n1 == 1024 ? 5 : n1 == 16384 ? 7 : 6;
  lg_nb_ = lg_n - lg_na_;
  colfft::ColPass plan[2];
  colfft::col_fft_plan(lg_na_, lg_nb_, inverse, plan);
  for (int i = 0; i < 2; ++i)
    pass_[i] = {colfft::col_fft_kernel<T>(plan[i].l),
                colfft::smem_bytes<T>(plan[i].l),
                plan[i].gs,
                plan[i].rs,
                plan[i].groups,
                plan[i].flags};
  const int l = 1 << lg_na_;
  if (n1 == 2048 && onepass_wanted<T>(inverse)) {
    onepass_c_ = sizeof(T) == 8 ? 4 : 8;
    fused_fn_ = onepass_kernel < T, sizeof(T) == 8 ? 4 : 8 > (inverse, onepass_bytes_);
  } else {
    // Forward: col_fft_post with 32-column tiles; inverse: col_fft_pre with 16 columns and both groups per thread
    // (kernels/dct2d/col_fft.cuh, fused_threads; docs/decisions.md).
    fused_tile_ = inverse ? 16 : 32;
    fused_groups_ = inverse ? 2 : 1;
    fused_bytes_ = colfft::fused_smem_bytes<T>(l, fused_tile_);
    fused_fn_ = inverse ? allow_smem(colfft::col_fft_pre_kernel<T>(l, fused_groups_), fused_bytes_)
                        : allow_smem(colfft::col_fft_post_kernel<T>(l, fused_tile_), fused_bytes_);
  }
  const std::vector<cx_t<T>> tw = colfft::col_fft_twiddles<T>(lg_na_ + lg_nb_);
  tw_ = DeviceBuffer(sizeof(cx_t<T>) * tw.size());
  DCT_CUDA_CHECK(cudaMemcpy(tw_.get(), tw.data(), tw_.bytes(), cudaMemcpyHostToDevice));
}

template <class T>
bool ColumnFft<T>::supports_fused(std::int64_t n1, std::int64_t n2, std::int64_t batch, std::int64_t pitch) {
  return n2 >= 2 && n2 % 2 == 0 && supports(n1, n2 / 2 + 1, batch, pitch) && n1 * n2 < (std::int64_t{1} << 31);
}

template <class T>
void ColumnFft<T>::launch(const Pass& p, cx_t<T>* data, cudaStream_t s) const {
  const dim3 g(static_cast<unsigned>((w_ + colfft::kTile - 1) / colfft::kTile), p.groups,
               static_cast<unsigned>(batch_));
  launch_dependent(p.fn, g, colfft::kThreads, p.smem_bytes, s, data, tw_.as<const cx_t<T>>(),
                   static_cast<unsigned>(pitch_), static_cast<unsigned>(w_), p.gs, p.rs,
                   static_cast<unsigned long long>(n1_ * pitch_), static_cast<unsigned>(lg_na_ + lg_nb_), p.flags);
}

template <class T>
void ColumnFft<T>::run(cx_t<T>* data, cudaStream_t s) const {
  for (const Pass& p : pass_) launch(p, data, s);
}

template <class T>
dim3 ColumnFft<T>::fused_grid() const {
  return dim3(static_cast<unsigned>((w_ + fused_tile_ - 1) / fused_tile_), (1u << lg_nb_) / 2,
              static_cast<unsigned>(batch_));
}

template <class T>
dim3 ColumnFft<T>::onepass_grid() const {
  return dim3(static_cast<unsigned>((w_ + onepass_c_ - 1) / onepass_c_), 1u, static_cast<unsigned>(batch_));
}

template <class T>
void ColumnFft<T>::run_post(cx_t<T>* data, T* y, AxisTables<T> t1, AxisTables<T> t2, cudaStream_t s) const {
  if (inverse_) throw Error(ErrorCode::kRuntime, "column fft", "run_post on an inverse plan");
  if (onepass_c_ != 0) {
    launch_dependent(reinterpret_cast<colfft::ColFusedPostFn1<T>>(fused_fn_), onepass_grid(), colfft::kOnepassThreads,
                     onepass_bytes_, s, data, y, tw_.as<const cx_t<T>>(), fused_tables(t1, t2, false),
                     static_cast<unsigned>(pitch_), static_cast<unsigned>(w_), static_cast<unsigned>(2 * (w_ - 1)),
                     static_cast<unsigned long long>(n1_ * pitch_));
    return;
  }
  launch(pass_[0], data, s);
  const int threads = colfft::fused_threads(fused_tile_, fused_groups_);
  launch_dependent(reinterpret_cast<colfft::ColFusedPostFn<T>>(fused_fn_), fused_grid(), threads, fused_bytes_, s, data,
                   y, tw_.as<const cx_t<T>>(), fused_tables(t1, t2, false), static_cast<unsigned>(pitch_),
                   static_cast<unsigned>(w_), static_cast<unsigned>(2 * (w_ - 1)),
                   static_cast<unsigned long long>(n1_ * pitch_), static_cast<unsigned>(lg_na_ + lg_nb_),
                   static_cast<unsigned>(lg_nb_));
}

template <class T>
void ColumnFft<T>::run_pre(const T* y, cx_t<T>* data, AxisTables<T> t1, AxisTables<T> t2, cudaStream_t s) const {
  if (!inverse_) throw Error(ErrorCode::kRuntime, "column fft", "run_pre on a forward plan");
  if (onepass_c_ != 0) {
    launch_dependent(reinterpret_cast<colfft::ColFusedPreFn1<T>>(fused_fn_), onepass_grid(), colfft::kOnepassThreads,
                     onepass_bytes_, s, y, data, tw_.as<const cx_t<T>>(), fused_tables(t1, t2, true),
                     static_cast<unsigned>(pitch_), static_cast<unsigned>(w_), static_cast<unsigned>(2 * (w_ - 1)),
                     static_cast<unsigned long long>(n1_ * pitch_));
    return;
  }
  const int threads = colfft::fused_threads(fused_tile_, fused_groups_);
  launch_dependent(reinterpret_cast<colfft::ColFusedPreFn<T>>(fused_fn_), fused_grid(), threads, fused_bytes_, s, y,
                   data, tw_.as<const cx_t<T>>(), fused_tables(t1, t2, true), static_cast<unsigned>(pitch_),
                   static_cast<unsigned>(w_), static_cast<unsigned>(2 * (w_ - 1)),
                   static_cast<unsigned long long>(n1_ * pitch_), static_cast<unsigned>(lg_na_ + lg_nb_),
                   static_cast<unsigned>(lg_nb_));
  launch(pass_[1], data, s);
}

template class ColumnFft<float>;
template class ColumnFft<double>;

}  // namespace dct::cuda
