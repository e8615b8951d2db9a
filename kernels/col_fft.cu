/* ColumnFft: launchers of the column FFT passes of kernels/col_fft.cuh (the math is derived there). The
   twiddle table tw[j] = e^{-2πij/N} is built in long double at construction (col_fft_twiddles, shared with
   scripts/colfft-emulate.sh) and uploaded once; the two passes come from col_fft_plan. */
#include "kernels/col_fft.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/col_fft.cuh"

namespace dct::cuda {

namespace {
template <class T>
colfft::Dct2dTables<T> fused_tables(const AxisTables<T>& t1, const AxisTables<T>& t2, bool inverse) {
  return {t1.tw, inverse ? t1.ia : t1.fs, t2.tw, inverse ? t2.ia : t2.fs};
}

// A fused kernel with its dynamic shared memory allowed (f64, L = 128: 64 KiB, above the 48 KiB default).
template <class F>
const void* allow_smem(F fn, int bytes) {
  const void* f = reinterpret_cast<const void*>(fn);
  DCT_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return f;
}
}  // namespace

template <class T>
bool ColumnFft<T>::supports(std::int64_t n1) {
  return n1 == 2048 || n1 == 4096 || n1 == 8192 || n1 == 16384;
}

template <class T>
bool ColumnFft<T>::supports(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch) {
  return supports(n1) && w >= 1 && pitch >= w && batch >= 1 && batch <= 65535 &&
         pitch < ((std::int64_t{1} << 31) / n1);
}

template <class T>
ColumnFft<T>::ColumnFft(std::int64_t n1, std::int64_t w, std::int64_t batch, std::int64_t pitch, bool inverse)
    : n1_(n1), w_(w), batch_(batch), pitch_(pitch) {
  if (!supports(n1))
    throw Error(ErrorCode::kUsage, "column fft", "unsupported column length " + std::to_string(n1));
  if (!supports(n1, w, batch, pitch))
    throw Error(ErrorCode::kUsage, "column fft",
                "unsupported shape " + std::to_string(batch) + " x " + std::to_string(n1) + " x " +
                    std::to_string(w) + " (pitch " + std::to_string(pitch) + ")");
  inverse_ = inverse;
  lg_na_ = n1 == 16384 ? 7 : 6;
  lg_nb_ = n1 == 2048 ? 5 : n1 == 4096 ? 6 : 7;
  colfft::ColPass plan[2];
  colfft::col_fft_plan(lg_na_, lg_nb_, inverse, plan);
  for (int i = 0; i < 2; ++i)
    pass_[i] = {colfft::col_fft_kernel<T>(plan[i].l), colfft::smem_bytes<T>(plan[i].l), plan[i].gs, plan[i].rs,
                plan[i].groups, plan[i].flags};
  const int l = 1 << lg_na_;
  fused_fn_ = inverse ? allow_smem(colfft::col_fft_pre_kernel<T>(l), colfft::fused_smem_bytes<T>(l))
                      : allow_smem(colfft::col_fft_post_kernel<T>(l), colfft::fused_smem_bytes<T>(l));
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
  const dim3 g(static_cast<unsigned>((w_ + colfft::kTile - 1) / colfft::kTile), p.groups, static_cast<unsigned>(batch_));
  p.fn<<<g, colfft::kThreads, p.smem_bytes, s>>>(data, tw_.as<const cx_t<T>>(), static_cast<unsigned>(pitch_),
                                                 static_cast<unsigned>(w_), p.gs, p.rs,
                                                 static_cast<unsigned long long>(n1_ * pitch_),
                                                 static_cast<unsigned>(lg_na_ + lg_nb_), p.flags);
  DCT_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void ColumnFft<T>::run(cx_t<T>* data, cudaStream_t s) const {
  for (const Pass& p : pass_) launch(p, data, s);
}

template <class T>
dim3 ColumnFft<T>::fused_grid() const {
  return dim3(static_cast<unsigned>((w_ + colfft::kTile - 1) / colfft::kTile), (1u << lg_nb_) / 2,
              static_cast<unsigned>(batch_));
}

template <class T>
void ColumnFft<T>::run_post(cx_t<T>* data, T* y, AxisTables<T> t1, AxisTables<T> t2, cudaStream_t s) const {
  if (inverse_) throw Error(ErrorCode::kRuntime, "column fft", "run_post on an inverse plan");
  const int bytes = colfft::fused_smem_bytes<T>(1 << lg_na_);
  launch(pass_[0], data, s);
  reinterpret_cast<colfft::ColFusedPostFn<T>>(fused_fn_)<<<fused_grid(), colfft::kThreads, bytes, s>>>(
      data, y, tw_.as<const cx_t<T>>(), fused_tables(t1, t2, false), static_cast<unsigned>(pitch_),
      static_cast<unsigned>(w_), static_cast<unsigned>(2 * (w_ - 1)), static_cast<unsigned long long>(n1_ * pitch_),
      static_cast<unsigned>(lg_na_ + lg_nb_), static_cast<unsigned>(lg_nb_));
  DCT_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void ColumnFft<T>::run_pre(const T* y, cx_t<T>* data, AxisTables<T> t1, AxisTables<T> t2, cudaStream_t s) const {
  if (!inverse_) throw Error(ErrorCode::kRuntime, "column fft", "run_pre on a forward plan");
  const int bytes = colfft::fused_smem_bytes<T>(1 << lg_na_);
  reinterpret_cast<colfft::ColFusedPreFn<T>>(fused_fn_)<<<fused_grid(), colfft::kThreads, bytes, s>>>(
      y, data, tw_.as<const cx_t<T>>(), fused_tables(t1, t2, true), static_cast<unsigned>(pitch_),
      static_cast<unsigned>(w_), static_cast<unsigned>(2 * (w_ - 1)), static_cast<unsigned long long>(n1_ * pitch_),
      static_cast<unsigned>(lg_na_ + lg_nb_), static_cast<unsigned>(lg_nb_));
  DCT_CUDA_CHECK(cudaGetLastError());
  launch(pass_[1], data, s);
}

template class ColumnFft<float>;
template class ColumnFft<double>;

}  // namespace dct::cuda
