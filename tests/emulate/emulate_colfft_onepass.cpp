/* Host emulation of the one-pass column stage at N1 = 2048 (kernels/dct2d/col_fft_onepass.cuh: col_fft1_post = pass A
   + pass B + post_2d, col_fft1_pre = pre_2d + pass B' + pass A', one kernel each, a CTA of 512 threads holding all
   2048 rows of C columns in shared memory) for machines without a GPU, in the manner of emulate_colfft.cpp part 2:
   the headers are compiled as plain C++, each CTA run by one std::thread per CUDA thread (a pool reused for every CTA
   of a launch, CTAs one after another) with a std::barrier for __syncthreads; dynamic shared memory is one static
   buffer, poisoned (NaN) before every CTA; the twiddle table is col_fft_twiddles<T>(11) as kernels/dct2d/col_fft.cu
   builds it; every global complex access is checked for natural alignment.
   Cases: (w = 37, n2 = 72, pitch 41, batch 2) and (w = 129, n2 = 256, pitch 136, batch 1), forward and inverse, f32
   with C = 8 and C = 4, f64 with C = 4, random twiddle/scale tables (the kernels only index them) and random input:
     1. against a long-double reference (std::complex; the column DFT and eqs. (14)/(17), or eq. (15) and the inverse
        column DFT) on columns 0 1 7 8 15 16 35 36 (+ 127 128 in the second case) and their mirrors n2 - c;
        error = max |out - ref| over max |ref|; pass: f32 <= 1e-5, f64 <= 1e-12;
     2. against the two-kernel route of kernels/dct2d/col_fft.cuh on the same input (forward: pass A via
        col_fft_kernel + col_fft_post_kernel<T>(64, 16); inverse: col_fft_pre_kernel<T>(64, 2) + pass A'), every
        output: same limits, and the number of outputs that differ bitwise is printed.
   Forward: y starts as NaN and must be fully written and finite, y's guards unchanged, data (and its guards) bitwise
   unchanged. Inverse: y (and its guards) unchanged, data's columns >= w (pitch padding) and guards unchanged, the w
   columns finite. Self-contained (no libraries).
   ptxas (nvcc 12, -arch=sm_90, __launch_bounds__(512, 1)), registers / spills, shared memory = onepass_smem_bytes (the
   2048 x C tile plus 16 KiB (f32) / 32 KiB (f64) of post tables, reserved for the pre kernels too):
     post<f32,8> 128 / 0 / 144 KiB, pre<f32,8> 128 / 0, post<f32,4> 119 / 0 / 80 KiB, pre<f32,4> 126 / 0,
     post<f64,4> 128 / 0 / 160 KiB, pre<f64,4> 128 / 0. */
#include <algorithm>
#include <barrier>
#include <cassert>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include "cuda_host.hpp"
#define __shared__
#define DCT_ASSERT_ALIGNED_CX(p) assert((reinterpret_cast<std::uintptr_t>(p) % sizeof(*(p))) == 0)
namespace dct::cuda::colfft {
alignas(16) unsigned char colfft_smem[161 * 1024];
}  // namespace dct::cuda::colfft
#include "kernels/dct2d/col_fft_onepass.cuh"
using namespace dct::cuda;
using LD = long double;
#include "colfft_ref.hpp"  // Tables, TypedTables, fused_reference, rel_err (shared with emulate_colfft.cpp)

constexpr int kLgN = 11, kLgNa = 6, kLgNb = 5;
constexpr long long kN1 = 2048;

// One run of a route on fresh buffers. Forward: data (n1 x pitch complex, w = n2/2+1 columns, natural rows) -> y
// (n1 x n2). Inverse: y -> data's w columns (natural rows). route 0: the two-kernel route of col_fft.cuh; route C > 0:
// the one-pass kernel with C columns per CTA. Returns y (forward) or data's w columns (inverse) as doubles (complex:
// re, im), or an empty vector when something outside the outputs changed or an output is not finite.
template <class T, int C>
static std::vector<double> run_route(long long w, long long pitch, long long batch, bool inverse,
                                     const std::vector<double>& in, const Tables& tab, const char* name) {
  FusedBuffers<T> b(kN1, w, pitch, batch, inverse, in);
  const std::vector<typename colfft::RowsTypes<T>::cx> tw = colfft::col_fft_twiddles<T>(kLgN);
  const TypedTables<T> tt(tab);
  const unsigned long long ms = static_cast<unsigned long long>(b.ms);
  if constexpr (C == 0) {
    // As kernels/dct2d/col_fft.cu would launch it with the one-pass kernels off: 16-column post tiles, pre with both
    // groups per thread.
    if (!run_two_kernel(b, kLgNa, kLgNb, colfft::kTile, 2, tw, tt.view())) return {};
  } else {
    static_assert(colfft::onepass_smem_bytes<T, C>() <= static_cast<int>(sizeof colfft::colfft_smem));
    const Dim grid{static_cast<unsigned>((w + C - 1) / C), 1, static_cast<unsigned>(batch)};
    if (!inverse)
      run_grid(colfft::kOnepassThreads, grid, [&] {
        colfft::col_fft1_post<T, C>(b.data, b.y, tw.data(), tt.view(), unsigned(pitch), unsigned(w), unsigned(b.n2),
                                    ms);
      });
    else
      run_grid(colfft::kOnepassThreads, grid, [&] {
        colfft::col_fft1_pre<T, C>(b.y, b.data, tw.data(), tt.view(), unsigned(pitch), unsigned(w), unsigned(b.n2), ms);
      });
  }
  // The one-pass forward must leave data (all of it) bitwise unchanged; the two-kernel route leaves pass A's output.
  const char* why = nullptr;
  std::vector<double> out = b.collect(C != 0, &why);
  if (out.empty()) std::printf("  %s %s: %s\n", name, inverse ? "inverse" : "forward", why);
  return out;
}

// Difference of two routes over every output: max |a − b| / max |b|, and how many outputs differ bitwise.
static double route_diff(const std::vector<double>& a, const std::vector<double>& b, long long& ndiff) {
  ndiff = -1;
  if (a.empty() || a.size() != b.size()) return INFINITY;
  double err = 0, top = 0;
  ndiff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    err = std::max(err, std::fabs(a[i] - b[i]));
    top = std::max(top, std::fabs(b[i]));
    ndiff += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
  }
  return err / top;
}

int main() {
  int bad = 0;
  double max32 = 0, max64 = 0;
  struct Case {
    long long w, pitch, batch;
    std::vector<long long> cols;
  };
  const Case cases[] = {{37, 41, 2, {0, 1, 7, 8, 15, 16, 35, 36}},
                        {129, 136, 1, {0, 1, 7, 8, 15, 16, 35, 36, 127, 128}}};
  const auto t_start = std::chrono::steady_clock::now();
  for (const Case& cs : cases) {
    const long long n1 = kN1, w = cs.w, n2 = 2 * (w - 1), batch = cs.batch;
    for (int inv = 0; inv < 2; ++inv) {
      Tables tab;
      std::vector<double> in;
      random_case(n1, w, batch, inv, static_cast<unsigned>(w * 131 + cs.pitch + 1000 * inv), tab, in);
      std::vector<LD> ref;
      std::vector<char> checked;
      const auto t0 = std::chrono::steady_clock::now();
      fused_reference(n1, w, batch, inv, in, tab, cs.cols, ref, checked);
      const auto t1 = std::chrono::steady_clock::now();
      const std::vector<double> two32 = run_route<float, 0>(w, cs.pitch, batch, inv, in, tab, "two-kernel f32");
      const std::vector<double> two64 = run_route<double, 0>(w, cs.pitch, batch, inv, in, tab, "two-kernel f64");
      const double r32 = rel_err(two32, ref, checked), r64 = rel_err(two64, ref, checked);
      const auto t2 = std::chrono::steady_clock::now();
      const auto sec = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
      std::printf(
          "n1=2048 n2=%lld w=%lld pitch=%lld batch=%lld %s: reference %.1f s, two-kernel route (%d-thread fused "
          "CTAs) f32 %.3g f64 %.3g (%.1f s)\n",
          n2, w, cs.pitch, batch, inv ? "inverse" : "forward", sec(t0, t1),
          colfft::fused_threads(colfft::kTile, inv ? 2 : 1), r32, r64, sec(t1, t2));
      std::string cl;
      for (const long long c : cs.cols) cl += " " + std::to_string(c);
      const auto variant = [&](const char* tname, int c, const std::vector<double>& out, const std::vector<double>& two,
                               double lim, double& mx, double tsec) {
        const double e = rel_err(out, ref, checked);
        long long nd = 0;
        const double d = route_diff(out, two, nd);
        const bool ok = e <= lim && d <= lim;
        bad += !ok;
        mx = std::max(mx, e);
        std::printf(
            "  %s %s C=%d (columns%s and mirrors): vs reference %.3g, vs two-kernel %.3g (%lld of %zu differ "
            "bitwise) %s  (%.1f s)\n",
            inv ? "col_fft1_pre " : "col_fft1_post", tname, c, cl.c_str(), e, d, nd, out.size(), ok ? "ok" : "FAIL",
            tsec);
        std::fflush(stdout);
      };
      const auto timed = [&](auto fn) {
        const auto a = std::chrono::steady_clock::now();
        std::vector<double> out = fn();
        return std::make_pair(out, sec(a, std::chrono::steady_clock::now()));
      };
      {
        const auto [o, s] = timed([&] { return run_route<float, 8>(w, cs.pitch, batch, inv, in, tab, "f32 C=8"); });
        variant("f32", 8, o, two32, 1e-5, max32, s);
      }
      {
        const auto [o, s] = timed([&] { return run_route<float, 4>(w, cs.pitch, batch, inv, in, tab, "f32 C=4"); });
        variant("f32", 4, o, two32, 1e-5, max32, s);
      }
      {
        const auto [o, s] = timed([&] { return run_route<double, 4>(w, cs.pitch, batch, inv, in, tab, "f64 C=4"); });
        variant("f64", 4, o, two64, 1e-12, max64, s);
      }
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::printf(
      "max relative error vs reference (max-abs / max-abs) f32 %.3g (limit 1e-5), f64 %.3g (limit 1e-12); "
      "%.0f s\n%s\n",
      max32, max64, total, bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
