/* Host emulation of the single-pass DCT-IV rows kernels (kernels/dct4/rows.cuh, dct4_rows_short and dct4_rows_fixed,
   used by cuda-dct4-fft; the short one also by cuda-dct4-small) for machines without a GPU: the header is compiled as
   plain C++, each CTA run as one std::thread per CUDA thread with a std::barrier for __syncthreads (dynamic shared
   memory becomes one static buffer; CTAs one after another; shuffles go through an exchange array between barriers),
   with the plan's tables built as kernels/dct4/fft.cu builds them, and compared with cpu-naive (the long-double
   definition). Every N = 8 .. 4096 (powers of two), f32 and f64, dct4 and idct4, one line and a last CTA that is partly
   filled. Poisoned outputs and shared memory (NaN) catch unwritten elements. Pass: relative L2 error f32 < 1e-6, f64 <
   1e-13. */
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <utility>
#include <vector>
#include "core/backend.hpp"
#include "core/metrics.hpp"
#include "cpu/backends.hpp"
#include "cuda_host.hpp"
#define __shared__
namespace dct::cuda::dct4 {
alignas(16) unsigned char rows_smem[81920];
}
#include "kernels/dct4/rows.cuh"
using namespace dct;
// `offset` values before the input and the output in their buffers: 1 makes them misaligned for 16-byte accesses
// (dct4_rows_short's scalar loads and stores).
template <class T>
double run(int n, long long lines, bool inverse, int offset) {
  using C = typename cuda::dct4::RowsTypes<T>::cx;
  const auto prec = sizeof(T) == 4 ? core::Precision::kF32 : core::Precision::kF64;
  core::HostTensor in(core::Shape2{lines, n}, 1, prec);
  std::mt19937 g(n * 13 + lines);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < in.elements(); ++i) in.set(i, u(g));
  core::HostTensor out(core::Shape2{lines, n}, 1, prec);
  const std::size_t count = static_cast<std::size_t>(in.elements());
  std::vector<T> xbuf(count + 2), ybuf(count + 2);
  std::copy_n(in.data<T>(), count, xbuf.data() + offset);
  std::memset(ybuf.data(), 0xFF, ybuf.size() * sizeof(T));  // poisoned: unwritten outputs stay NaN
  const double sig = inverse ? 1.0 / n : 2.0;
  const cuda::dct4::PrePost<T> pp = cuda::dct4::rows_pre_post<T>(n, sig);  // as kernels/dct4/fft.cu builds them
  int lgm = 0;
  while ((1 << lgm) < n / 2) ++lgm;
  const auto k = cuda::dct4::rows_launch<T>(lgm);
  const std::vector<C> tw = cuda::dct4::rows_twiddles<T>(lgm);
  if (k.fn == nullptr || k.smem_bytes > static_cast<int>(sizeof cuda::dct4::rows_smem)) return INFINITY;
  const long long ctas = (lines + k.lines_per_cta - 1) / k.lines_per_cta;
  for (long long b = 0; b < ctas; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(cuda::dct4::rows_smem, 0xFF, sizeof cuda::dct4::rows_smem);  // poison shared memory too
    emu_run_cta(static_cast<unsigned>(k.threads), [&](unsigned) {
      k.fn(xbuf.data() + offset, ybuf.data() + offset, pp.pre.data(), pp.post.data(), tw.data(), n, lgm, lines);
    });
  }
  std::copy_n(ybuf.data() + offset, count, out.data<T>());
  core::TransformDesc d;
  d.op = inverse ? core::Op::kIdct4 : core::Op::kDct4;
  d.axis = core::Axis::kRows;
  d.shape = {lines, n};
  d.prec = core::Precision::kF64;
  auto ref_backend = cpu::make_naive_backend();
  core::HostTensor in64 = in.to(core::Precision::kF64), ref(core::Shape2{lines, n}, 1, core::Precision::kF64);
  ref_backend->make_plan(d)->execute(in64.view(), ref.view());
  for (int64_t i = 0; i < out.elements(); ++i)
    if (!std::isfinite(out.get(i))) return INFINITY;
  return core::relative_l2(out.to(core::Precision::kF64), ref);
}
int main() {
  int bad = 0;
  double max32 = 0, max64 = 0;
  for (int n = 8; n <= 4096; n *= 2) {
    int lgm = 0;
    while ((2 << lgm) < n) ++lgm;
    const long long lpb = cuda::dct4::rows_launch<float>(lgm).lines_per_cta;
    // dct4_rows_short (N <= 32) also with misaligned pointers; dct4_rows_fixed needs its 8/16-byte pairs aligned.
    const int offsets = lgm <= cuda::dct4::kShortMaxLgm ? 2 : 1;
    for (const long long lines : {1LL, 2 * lpb + 1})
      for (int inv = 0; inv < 2; ++inv)
        for (int off = 0; off < offsets; ++off) {
          const double e32 = run<float>(n, lines, inv, off), e64 = run<double>(n, lines, inv, off);
          std::printf("%s N=%d x%lld%s: f32 %.3g f64 %.3g\n", inv ? "idct4" : "dct4 ", n, lines,
                      off ? " (misaligned)" : "", e32, e64);
          bad += !(e32 < 1e-6 && e64 < 1e-13);
          max32 = std::max(max32, e32);
          max64 = std::max(max64, e64);
        }
  }
  std::printf("max relative L2 error f32 %.3g f64 %.3g\n", max32, max64);
  std::printf(bad ? "FAIL\n" : "OK\n");
  return bad;
}
