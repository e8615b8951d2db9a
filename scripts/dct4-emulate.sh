#!/usr/bin/env bash
# Host emulation of the single-pass DCT-IV rows kernel (kernels/dct4_rows.cuh, used by cuda-dct4-fft) for
# machines without a GPU: the header is compiled as plain C++, each CTA run as 256 std::threads with a
# std::barrier for __syncthreads (dynamic shared memory becomes one static buffer; CTAs one after another),
# with the plan's tables built as kernels/dct4_fft.cu builds them, and compared with cpu-naive (the
# long-double definition). Poisoned outputs (NaN) catch unwritten elements.
# Usage: scripts/dct4-emulate.sh [BUILD_DIR]   (needs libdct_cpu.a, libdct_core.a there; run from the repo root)
set -eu
B=$(cd "${1:-build}" && pwd); R=$(pwd); T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/emu.cpp" <<'CPP'
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>
#include "core/backend.hpp"
#include "core/metrics.hpp"
#include "cpu/backends.hpp"
struct float2 { float x, y; };
struct double2 { double x, y; };
struct float4 { float x, y, z, w; };
struct Dim { unsigned x = 0, y = 0, z = 0; };
thread_local Dim threadIdx;
Dim blockIdx;
std::barrier<>* g_barrier = nullptr;
inline void __syncthreads() { g_barrier->arrive_and_wait(); }
#define __global__
#define __launch_bounds__(...)
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __align__(x)
#define __restrict__
#include <cassert>
#define DCT_ASSERT_ALIGNED16(p) assert((reinterpret_cast<std::uintptr_t>(p) & 15) == 0)
namespace dct::cuda::dct4 { alignas(16) unsigned char rows_smem[81920]; }
#include "kernels/dct4_rows.cuh"
using namespace dct;
template <class T>
double run(int n, long long lines, bool inverse) {
  using C = typename cuda::dct4::RowsTypes<T>::cx;
  const auto prec = sizeof(T) == 4 ? core::Precision::kF32 : core::Precision::kF64;
  core::HostTensor in(core::Shape2{lines, n}, 1, prec);
  std::mt19937 g(n * 13 + lines);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < in.elements(); ++i) in.set(i, u(g));
  core::HostTensor out(core::Shape2{lines, n}, 1, prec);
  std::memset(out.raw(), 0xFF, out.bytes());
  const long double pi = 3.141592653589793238462643383279502884L;
  const int m = n / 2;
  const double sig = inverse ? 1.0 / n : 2.0;
  std::vector<C> pre(m), post(m), tw(m);
  for (int k = 0; k < m; ++k) {
    const long double a = -pi * (4 * k + 1) / (4.0L * n), b = -pi * k / static_cast<long double>(n),
                      c = -2 * pi * k / static_cast<long double>(m);
    pre[k] = C{static_cast<T>(sig * std::cos(a)), static_cast<T>(sig * std::sin(a))};
    post[k] = C{static_cast<T>(std::cos(b)), static_cast<T>(std::sin(b))};
    tw[k] = C{static_cast<T>(std::cos(c)), static_cast<T>(std::sin(c))};
  }
  int lgm = 0;
  while ((1 << lgm) < m) ++lgm;
  const int lpb = cuda::dct4::kRowsThreads / (m / 8);
  const long long ctas = (lines + lpb - 1) / lpb;
  for (long long b = 0; b < ctas; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(cuda::dct4::rows_smem, 0xFF, sizeof cuda::dct4::rows_smem);  // poison shared memory too
    std::barrier<> bar(cuda::dct4::kRowsThreads);
    g_barrier = &bar;
    std::vector<std::thread> cta;
    for (unsigned t = 0; t < static_cast<unsigned>(cuda::dct4::kRowsThreads); ++t)
      cta.emplace_back([&, t] {
        threadIdx = {t, 0, 0};
        cuda::dct4::dct4_rows_kernel<T>(in.data<T>(), out.data<T>(), pre.data(), post.data(), tw.data(), n, lgm, lines);
      });
    for (auto& th : cta) th.join();
  }
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
  struct Case { int n; long long lines; };
  const Case cases[] = {{16, 1}, {16, 300}, {32, 129}, {64, 3}, {128, 33}, {256, 17}, {512, 9},
                        {1024, 5}, {2048, 3}, {4096, 2}, {4096, 7}, {256, 200}, {16, 1000}};
  int bad = 0;
  for (const auto& c : cases)
    for (int inv = 0; inv < 2; ++inv) {
      const double e32 = run<float>(c.n, c.lines, inv), e64 = run<double>(c.n, c.lines, inv);
      std::printf("%s N=%d x%lld: f32 %.3g f64 %.3g\n", inv ? "idct4" : "dct4 ", c.n, c.lines, e32, e64);
      bad += !(e32 < 1e-6 && e64 < 1e-13);
    }
  std::printf(bad ? "FAIL\n" : "OK\n");
  return bad;
}
CPP
g++ -std=c++20 -O1 -fopenmp -pthread -Wno-unknown-pragmas -I"$R" -I"$T" "$T/emu.cpp" "$B/libdct_cpu.a" "$B/libdct_core.a" \
  -lfftw3 -lfftw3f -lfftw3_omp -lfftw3f_omp -lfftw3_threads -lfftw3f_threads -o "$T/emu"
"$T/emu"
