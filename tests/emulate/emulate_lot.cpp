/* Host emulation of the cuda-lot kernels (kernels/lot/lot.cu: lot_forward_kernel, lot_inverse_kernel) for machines
   without a GPU: the kernels' device code (kernels/lot/lot.cuh) is compiled as plain C++ with the device 8-point graphs
   of kernels/block8/block8.cuh, each CTA run as 256 std::threads with a std::barrier for __syncthreads (shared arrays
   become statics; CTAs one after another over the whole grid; float4 / double2 are plain structs), and compared with
   cpu-lot (cpu::make_lot_backend). Poisoned outputs (NaN) catch unwritten elements. 15 shapes (single blocks, one CTA,
   several CTAs with partial ones on either axis, CTA edges exactly at the image edge), lot and ilot, f32 and f64. Pass:
   relative L2 error f32 < 1e-5, f64 < 1e-12. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/backend.hpp"
#include "core/metrics.hpp"
#include "cpu/lot.hpp"
#include "cuda_host.hpp"
#define __shared__ static
#include "kernels/lot/lot.cuh"  // the kernels and the device 8-point graphs (their <cuda_runtime.h>: include/)

using namespace dct;
template <class T>
double run(bool fwd, int h, int w, int batch) {  // h, w: data shape
  const int ih = fwd ? h : h + 8, iw = fwd ? w : w + 8, oh = fwd ? h + 8 : h, ow = fwd ? w + 8 : w;
  core::HostTensor in(core::Shape2{ih, iw}, batch, sizeof(T) == 4 ? core::Precision::kF32 : core::Precision::kF64);
  std::mt19937 g(h * 7 + w);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < in.elements(); ++i) in.set(i, u(g));
  core::HostTensor out(core::Shape2{oh, ow}, batch, in.precision());
  std::memset(out.raw(), 0xFF, out.bytes());
  auto k = cuda::lot_consts<T>();
  const int ny = h / 8 + (fwd ? 1 : 0), nx = w / 8 + (fwd ? 1 : 0);
  for (unsigned z = 0; z < (unsigned)batch; ++z)
    for (unsigned y = 0; y < (unsigned)((ny + cuda::kStepY - 1) / cuda::kStepY); ++y)
      for (unsigned x = 0; x < (unsigned)((nx + cuda::kStepX - 1) / cuda::kStepX); ++x) {
        blockIdx = {x, y, z};
        blockDim = {static_cast<unsigned>(cuda::kThreads), 1, 1};
        emu_run_cta(static_cast<unsigned>(cuda::kThreads), [&](unsigned) {
          if (fwd)
            cuda::lot_forward_kernel<T>(in.data<T>(), out.data<T>(), h, w, k);
          else
            cuda::lot_inverse_kernel<T>(in.data<T>(), out.data<T>(), h, w, k);
        });
      }
  core::TransformDesc d;
  d.op = fwd ? core::Op::kLot : core::Op::kIlot;
  d.shape = {ih, iw};
  d.batch = batch;
  d.prec = in.precision();
  auto b = cpu::make_lot_backend();
  core::HostTensor ref(core::Shape2{oh, ow}, batch, in.precision());
  b->make_plan(d)->execute(in.view(), ref.view());
  for (int64_t i = 0; i < out.elements(); ++i)
    if (!std::isfinite(out.get(i))) return INFINITY;
  return core::relative_l2(out.to(core::Precision::kF64), ref.to(core::Precision::kF64));
}
int main() {
  // {h, w, batch}: single blocks, one CTA, several CTAs with partial ones on either axis (31·8 = 248 columns,
  // 7·8 = 56 rows per CTA), and CTA edges exactly at the image edge.
  int shapes[][3] = {{8, 8, 2},     {8, 16, 2},    {16, 8, 2},   {16, 24, 1},   {64, 64, 2},
                     {40, 8, 2},    {136, 264, 2}, {8, 200, 2},  {64, 272, 2},  {264, 256, 2},
                     {512, 520, 2}, {48, 240, 1},  {56, 248, 1}, {104, 488, 1}, {112, 496, 1}};
  int bad = 0;
  for (auto& s : shapes)
    for (int fwd = 0; fwd < 2; ++fwd) {
      if (!fwd && (s[0] < 8 || s[1] < 8)) continue;
      double e32 = run<float>(fwd, s[0], s[1], s[2]), e64 = run<double>(fwd, s[0], s[1], s[2]);
      std::printf("%s %dx%d x%d: f32 %.3g f64 %.3g\n", fwd ? "lot " : "ilot", s[0], s[1], s[2], e32, e64);
      bad += !(e32 < 1e-5 && e64 < 1e-12);
    }
  std::printf(bad ? "FAIL\n" : "OK\n");
  return bad;
}
