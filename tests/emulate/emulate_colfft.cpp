/* Host emulation of the column FFT kernels (kernels/dct2d/col_fft.cuh, cuda-fft2d's column stage for n1 = 1024,
   2048, 4096, 8192, 16384) for machines without a GPU, in the manner of emulate_rfft.cpp: the header is compiled as
   plain C++, each CTA run by 128 std::threads (256 for the fused passes; one per CUDA thread; a pool reused for every
   CTA, CTAs one after another) with a std::barrier for __syncthreads; dynamic shared memory is one static buffer,
   poisoned (NaN) before every CTA; the twiddle table and the two passes come from col_fft_twiddles / col_fft_plan
   exactly as kernels/dct2d/col_fft.cu builds and launches them.
   1. The two plain passes, compared with the direct O(N^2) long-double DFT:
     forward  out[row_of(k)][c] = sum_n x[n][c] e^{-2 pi i nk/N},  row_of(k) = (k >> lg_nb) + ((k & (nb-1)) << lg_na)
     inverse  out[n][c] = sum_k X[row_of(k)][c] e^{+2 pi i nk/N}   (unnormalized)
   w = 37 columns (the last 16-column tile partial), pitch > w, batch 2, f32 and f64 (the same float-exact random
   input for both). Columns w .. pitch-1 and guard elements before and after the matrices hold a NaN pattern that
   must come back bitwise unchanged (so nothing outside the w columns is written; a read there would put a NaN into
   checked outputs). Every global access is checked for natural (sizeof complex) alignment. Checked columns (the
   definition costs N^2 per column): n1 = 8192 every column of both matrices; the other n1 columns 0, 15, 16 and 36
   of both. Every output (checked or not) must be finite.
   2. The fused passes (col_fft_post: pass A, then pass B + post_2d -> y, n1 x n2 = 72; col_fft_pre: pre_2d + pass B'
   from y, then pass A'; tiles of 16 and 32 columns; 8192 also split as 128 x 64), with random twiddle/scale tables,
   against a long-double reference: the column DFT and eqs. (14)/(17), or eq. (15) and the inverse DFT, written with
   std::complex (columns 0 1 15 16 31 32 35 36 and their mirrors n2 - c). Forward: every y element must be written
   (y starts as NaN), guards unchanged; inverse: y and the padding columns unchanged.
   Error per case: max |out - ref| over max |ref| (real and imaginary parts as separate components).
   Pass: f32 <= 1e-5, f64 <= 1e-12. Self-contained (no libraries). `emulate_colfft --fused-only` runs only part 2. */
#include <algorithm>
#include <barrier>
#include <cassert>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>
#include "cuda_host.hpp"
#define __shared__
#define DCT_ASSERT_ALIGNED_CX(p) assert((reinterpret_cast<std::uintptr_t>(p) % sizeof(*(p))) == 0)
namespace dct::cuda::colfft {
alignas(16) unsigned char colfft_smem[2 * 128 * 32 * 16 + 129 * 32];
}  // namespace dct::cuda::colfft
#include "kernels/dct2d/col_fft.cuh"
using namespace dct::cuda;
using LD = long double;

#include "colfft_ref.hpp"  // run_grid, Tables, TypedTables, fused_reference, rel_err

constexpr long long kGuard = 64;  // complex guard elements before and after the matrices

// One case: the two passes of col_fft_plan on batch matrices (n1 x pitch, w columns used). in: 2·batch·n1·w
// float-exact values. Returns the relative error over the checked columns (INFINITY: NaN/unwritten output or a
// modified guard / padding element).
template <class T>
static double run(int lg_na, int lg_nb, long long w, long long pitch, long long batch, bool inverse,
                  const std::vector<double>& in, const std::vector<LD>& ref, const std::vector<char>& checked) {
  using C = typename colfft::RowsTypes<T>::cx;
  const int lg_n = lg_na + lg_nb;
  const long long n1 = 1LL << lg_n, ms = n1 * pitch;
  std::vector<C> buf(static_cast<std::size_t>(2 * kGuard + batch * ms));
  std::memset(buf.data(), 0xFF, buf.size() * sizeof(C));  // NaN: guards and the padding columns
  C* const data = buf.data() + kGuard;
  for (long long b = 0; b < batch; ++b)
    for (long long r = 0; r < n1; ++r)
      for (long long c = 0; c < w; ++c) {
        const std::size_t i = static_cast<std::size_t>(2 * ((b * n1 + r) * w + c));
        data[b * ms + r * pitch + c] = C{static_cast<T>(in[i]), static_cast<T>(in[i + 1])};
      }
  const std::vector<C> before = buf;
  const std::vector<C> tw = colfft::col_fft_twiddles<T>(lg_n);  // as kernels/dct2d/col_fft.cu builds it
  colfft::ColPass plan[2];
  colfft::col_fft_plan(lg_na, lg_nb, inverse, plan);
  for (const colfft::ColPass& p : plan) {
    const colfft::ColFftFn<T> fn = colfft::col_fft_kernel<T>(p.l);
    if (fn == nullptr || colfft::smem_bytes<T>(p.l) > static_cast<int>(sizeof colfft::colfft_smem)) return INFINITY;
    const Dim grid{static_cast<unsigned>((w + colfft::kTile - 1) / colfft::kTile), p.groups,
                   static_cast<unsigned>(batch)};
    run_grid(colfft::kThreads, grid, [&] {
      fn(data, tw.data(), unsigned(pitch), unsigned(w), p.gs, p.rs, static_cast<unsigned long long>(ms), unsigned(lg_n),
         p.flags);
    });
  }
  for (std::size_t i = 0; i < buf.size(); ++i) {
    const long long e = static_cast<long long>(i) - kGuard, c = e < 0 ? -1 : e % pitch;
    if ((e < 0 || e >= batch * ms || c >= w) && std::memcmp(&buf[i], &before[i], sizeof(C)) != 0) return INFINITY;
  }
  LD err = 0, top = 0;
  for (long long b = 0; b < batch; ++b)
    for (long long r = 0; r < n1; ++r)
      for (long long c = 0; c < w; ++c) {
        const C o = data[b * ms + r * pitch + c];
        if (!std::isfinite(o.x) || !std::isfinite(o.y)) return INFINITY;
        const std::size_t i = static_cast<std::size_t>(2 * ((b * n1 + r) * w + c));
        if (!checked[i]) continue;
        err = std::max({err, std::fabs(static_cast<LD>(o.x) - ref[i]), std::fabs(static_cast<LD>(o.y) - ref[i + 1])});
        top = std::max({top, std::fabs(ref[i]), std::fabs(ref[i + 1])});
      }
  return static_cast<double>(err / top);
}

// ---- the fused passes (col_fft_post: pass B + post_2d; col_fft_pre: pre_2d + pass B') ----

// Forward: data (n1 x pitch complex, w = n2/2+1 columns, natural rows) -> pass A -> col_fft_post -> y (n1 x n2).
// Inverse: y -> col_fft_pre -> pass A' -> data (natural rows). Returns y (forward) or data's w columns (inverse)
// as doubles (complex: re, im), or an empty vector when something outside the outputs changed or an output is
// not finite.
template <class T>
static std::vector<double> run_fused(int tile, int g, int lg_na, int lg_nb, long long w, long long pitch,
                                     long long batch, bool inverse, const std::vector<double>& in, const Tables& tab) {
  FusedBuffers<T> b(1LL << (lg_na + lg_nb), w, pitch, batch, inverse, in);
  const TypedTables<T> tt(tab);
  if (!run_two_kernel(b, lg_na, lg_nb, tile, g, colfft::col_fft_twiddles<T>(lg_na + lg_nb), tt.view())) return {};
  const char* why = nullptr;
  std::vector<double> out = b.collect(false, &why);  // forward: data holds pass A's output
  if (out.empty()) std::printf("  %s\n", why);
  return out;
}

// Both fused passes for n1 = 1024 / 2048 / 4096 / 8192 / 16384 (and 8192 = 128 x 64): col_fft_post with tiles of 16 and
// 32 columns, col_fft_pre with one and two groups per thread; w = 37 (n2 = 72, the last tile partial), batch 2.
static void fused_cases(double& max32, double& max64, int& bad) {
  const long long w = 37, batch = 2, n2 = 2 * (w - 1);
  struct Case {
    int lg_na, lg_nb;
    long long pitch;
    int tile, g;
  };
  for (const Case cs : {Case{6, 7, 41, 16, 1}, Case{6, 7, 41, 32, 2}, Case{7, 6, 41, 32, 2}, Case{6, 6, 48, 16, 2},
                        Case{6, 6, 48, 32, 1}, Case{6, 5, 45, 32, 2}, Case{7, 7, 43, 32, 2}, Case{5, 5, 41, 16, 1},
                        Case{5, 5, 44, 32, 2}}) {
    const long long n1 = 1LL << (cs.lg_na + cs.lg_nb);
    const std::vector<long long> cols = {0, 1, 15, 16, 31, 32, 35, 36};
    for (int inv = 0; inv < 2; ++inv) {
      Tables tab;
      std::vector<double> in;
      random_case(n1, w, batch, inv, static_cast<unsigned>(n1 * 31 + cs.pitch + 1000 * inv), tab, in);
      std::vector<LD> ref;
      std::vector<char> checked;
      fused_reference(n1, w, batch, inv, in, tab, cols, ref, checked);
      const double e32 =
          rel_err(run_fused<float>(cs.tile, cs.g, cs.lg_na, cs.lg_nb, w, cs.pitch, batch, inv, in, tab), ref, checked);
      const double e64 =
          rel_err(run_fused<double>(cs.tile, cs.g, cs.lg_na, cs.lg_nb, w, cs.pitch, batch, inv, in, tab), ref, checked);
      const bool ok = e32 <= 1e-5 && e64 <= 1e-12;
      bad += !ok;
      std::printf(
          "fused n1=%lld (%d x %d) post tile %d, pre groups/thread %d, n2=%lld pitch=%lld batch=%lld %s (columns 0 1 "
          "15 16 31 32 35 36 and mirrors): f32 %.3g f64 %.3g %s\n",
          n1, 1 << cs.lg_na, 1 << cs.lg_nb, cs.tile, cs.g, n2, cs.pitch, batch,
          inv ? "pre_2d + pass B', pass A'" : "pass A, pass B + post_2d", e32, e64, ok ? "ok" : "FAIL");
      std::fflush(stdout);
      max32 = std::max(max32, e32);
      max64 = std::max(max64, e64);
    }
  }
}

int main(int argc, char** argv) {
  const bool fused_only = argc > 1 && std::strcmp(argv[1], "--fused-only") == 0;
  int bad = 0;
  double max32 = 0, max64 = 0;
  const LD pi = 3.141592653589793238462643383279502884L;
  const long long w = 37, batch = 2;
  struct Case {
    int lg_na, lg_nb;
    long long pitch;
    bool all;
  };
  const std::vector<Case> plain = {Case{6, 7, 41, true}, Case{6, 6, 40, false}, Case{6, 5, 45, false},
                                   Case{7, 7, 43, false}, Case{5, 5, 39, false}};
  for (const Case cs : fused_only ? std::vector<Case>{} : plain) {
    const int lg_n = cs.lg_na + cs.lg_nb;
    const long long n1 = 1LL << lg_n, na = 1LL << cs.lg_na, nb = 1LL << cs.lg_nb;
    std::vector<LD> co(n1), sn(n1);  // e^{-2 pi i t/N} = co[t] + i sn[t]
    for (long long t = 0; t < n1; ++t) {
      co[t] = std::cos(2 * pi * t / n1);
      sn[t] = -std::sin(2 * pi * t / n1);
    }
    const auto row_of = [&](long long k) { return (k >> cs.lg_nb) + ((k & (nb - 1)) << cs.lg_na); };
    for (int inv = 0; inv < 2; ++inv) {
      std::mt19937 g(static_cast<unsigned>(n1 * 7919 + cs.pitch * 31 + inv));
      std::uniform_real_distribution<float> u(-1, 1);
      std::vector<double> in(static_cast<std::size_t>(2 * batch * n1 * w));
      for (double& v : in) v = u(g);
      std::vector<LD> ref(in.size(), 0);
      std::vector<char> checked(in.size(), 0);
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<LD> xr(n1), xi(n1);
      for (long long b = 0; b < batch; ++b)
        for (long long c = 0; c < w; ++c) {
          if (!cs.all && c != 0 && c != 15 && c != 16 && c != w - 1) continue;
          const auto at = [&](long long row) { return static_cast<std::size_t>(2 * ((b * n1 + row) * w + c)); };
          // Input in natural order (inverse: X[k] read from row_of(k)); output index o at row (forward:
          // row_of(o), inverse: o); sign s of the exponent.
          for (long long i = 0; i < n1; ++i) {
            const std::size_t a = at(inv ? row_of(i) : i);
            xr[i] = in[a];
            xi[i] = in[a + 1];
          }
          // e^{∓2 pi i io/N} = e^{-2 pi i (i·step mod N)/N}, step = o (forward) or N - o (inverse).
          for (long long o = 0; o < n1; ++o) {
            const long long step = (inv ? n1 - o : o) & (n1 - 1);
            LD re = 0, im = 0;
            for (long long i = 0; i < n1; ++i) {
              const long long t = (i * step) & (n1 - 1);
              re += xr[i] * co[t] - xi[i] * sn[t];
              im += xr[i] * sn[t] + xi[i] * co[t];
            }
            const std::size_t a = at(inv ? o : row_of(o));
            ref[a] = re;
            ref[a + 1] = im;
            checked[a] = checked[a + 1] = 1;
          }
        }
      const auto t1 = std::chrono::steady_clock::now();
      const double e32 = run<float>(cs.lg_na, cs.lg_nb, w, cs.pitch, batch, inv, in, ref, checked);
      const double e64 = run<double>(cs.lg_na, cs.lg_nb, w, cs.pitch, batch, inv, in, ref, checked);
      const auto t2 = std::chrono::steady_clock::now();
      const auto sec = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
      const bool ok = e32 <= 1e-5 && e64 <= 1e-12;
      bad += !ok;
      std::printf(
          "n1=%lld (%lldx%lld) w=%lld pitch=%lld batch=%lld %s, %s columns: f32 %.3g f64 %.3g %s  (reference %.0f s, "
          "kernels %.0f s)\n",
          n1, na, nb, w, cs.pitch, batch, inv ? "inverse" : "forward", cs.all ? "all" : "4 sampled", e32, e64,
          ok ? "ok" : "FAIL", sec(t0, t1), sec(t1, t2));
      std::fflush(stdout);
      max32 = std::max(max32, e32);
      max64 = std::max(max64, e64);
    }
  }
  fused_cases(max32, max64, bad);
  std::printf("max relative error (max-abs / max-abs) f32 %.3g (limit 1e-5), f64 %.3g (limit 1e-12)\n%s\n", max32,
              max64, bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
