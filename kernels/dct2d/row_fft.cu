/* RfftRows: launchers of the row real FFT kernels of kernels/dct2d/row_fft.cuh (the math is derived there). The
   twiddle table is built in long double at construction (rfft_twiddles, shared with tests/emulate/emulate_rfft.cpp)
   and uploaded once; one CTA holds max(2048, M) complex points (M = n2/2). */
#include "kernels/dct2d/row_fft.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct2d/row_fft.cuh"

namespace dct::cuda {

template <class T>
bool RfftRows<T>::supports(std::int64_t n2) {
  return n2 >= (2 << rfft::kMinLgM) && n2 <= (2 << rfft::kMaxLgM) && (n2 & (n2 - 1)) == 0;
}

template <class T>
RfftRows<T>::RfftRows(std::int64_t n1, std::int64_t n2, std::int64_t batch, std::int64_t pitch)
    : n1_(n1), n2_(n2), batch_(batch), pitch_(pitch > 0 ? pitch : n2 / 2 + 1) {
  if (!supports(n2) || pitch_ < n2 / 2 + 1 || pitch_ >= (std::int64_t{1} << 31))
    throw Error(ErrorCode::kUsage, "rfft rows",
                "unsupported row length " + std::to_string(n2) + " or pitch " + std::to_string(pitch_));
  if (n1 < 1 || batch < 1 || batch > ((std::int64_t{1} << 31) - 1) / n1)
    throw Error(ErrorCode::kUsage, "rfft rows",
                "unsupported shape " + std::to_string(batch) + " x " + std::to_string(n1) + " rows");
  int lgm = 0;
  while ((std::int64_t{2} << lgm) < n2) ++lgm;
  const rfft::RfftLaunch<T> l = rfft::rfft_launch<T>(lgm);
  fwd_ = l.fwd;
  inv_ = l.inv;
  threads_ = l.threads;
  smem_bytes_ = l.smem_bytes;
  blocks_ = static_cast<unsigned>((batch * n1 + l.lines_per_cta - 1) / l.lines_per_cta);
  const std::vector<cx_t<T>> tw = rfft::rfft_twiddles<T>(lgm, l.vpt);
  tw_ = DeviceBuffer(sizeof(cx_t<T>) * tw.size());
  DCT_CUDA_CHECK(cudaMemcpy(tw_.get(), tw.data(), tw_.bytes(), cudaMemcpyHostToDevice));
  if (smem_bytes_ > 48 * 1024) {
    DCT_CUDA_CHECK(cudaFuncSetAttribute(fwd_, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes_));
    DCT_CUDA_CHECK(cudaFuncSetAttribute(inv_, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes_));
  }
}

template <class T>
void RfftRows<T>::forward(const T* x, cx_t<T>* V, cudaStream_t s, unsigned sign) const {
  launch_dependent(fwd_, blocks_, threads_, smem_bytes_, s, x, V, tw_.as<const cx_t<T>>(), static_cast<unsigned>(n1_),
                   static_cast<unsigned>(n1_ * batch_), static_cast<unsigned>(pitch_), sign);
}

template <class T>
void RfftRows<T>::inverse(const cx_t<T>* V, T* x, cudaStream_t s, unsigned sign) const {
  launch_dependent(inv_, blocks_, threads_, smem_bytes_, s, V, x, tw_.as<const cx_t<T>>(), static_cast<unsigned>(n1_),
                   static_cast<unsigned>(n1_ * batch_), static_cast<unsigned>(pitch_), sign);
}

template class RfftRows<float>;
template class RfftRows<double>;

}  // namespace dct::cuda
