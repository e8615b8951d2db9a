/* ColumnFft: launchers of the column FFT passes of kernels/col_fft.cuh (the math is derived there). The
   twiddle table tw[j] = e^{-2πij/N} is built in long double at construction (col_fft_twiddles, shared with
   scripts/colfft-emulate.sh) and uploaded once; the two passes come from col_fft_plan. */
#include "kernels/col_fft.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/col_fft.cuh"

namespace dct::cuda {

template <class T>
bool ColumnFft<T>::supports(std::int64_t n1) {
  return n1 == 4096 || n1 == 8192 || n1 == 16384;
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
  lg_na_ = n1 == 16384 ? 7 : 6;
  lg_nb_ = n1 == 4096 ? 6 : 7;
  colfft::ColPass plan[2];
  colfft::col_fft_plan(lg_na_, lg_nb_, inverse, plan);
  for (int i = 0; i < 2; ++i)
    pass_[i] = {colfft::col_fft_kernel<T>(plan[i].l), colfft::smem_bytes<T>(plan[i].l), plan[i].gs, plan[i].rs,
                plan[i].groups, plan[i].flags};
  const std::vector<cx_t<T>> tw = colfft::col_fft_twiddles<T>(lg_na_ + lg_nb_);
  tw_ = DeviceBuffer(sizeof(cx_t<T>) * tw.size());
  DCT_CUDA_CHECK(cudaMemcpy(tw_.get(), tw.data(), tw_.bytes(), cudaMemcpyHostToDevice));
}

template <class T>
void ColumnFft<T>::run(cx_t<T>* data, cudaStream_t s) const {
  const dim3 grid(static_cast<unsigned>((w_ + colfft::kTile - 1) / colfft::kTile), 0,
                  static_cast<unsigned>(batch_));
  for (const Pass& p : pass_) {
    const dim3 g(grid.x, p.groups, grid.z);
    p.fn<<<g, colfft::kThreads, p.smem_bytes, s>>>(data, tw_.as<const cx_t<T>>(), static_cast<unsigned>(pitch_),
                                                   static_cast<unsigned>(w_), p.gs, p.rs,
                                                   static_cast<unsigned long long>(n1_ * pitch_),
                                                   static_cast<unsigned>(lg_na_ + lg_nb_), p.flags);
    DCT_CUDA_CHECK(cudaGetLastError());
  }
}

template class ColumnFft<float>;
template class ColumnFft<double>;

}  // namespace dct::cuda
