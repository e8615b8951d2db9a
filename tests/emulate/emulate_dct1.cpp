/* Host emulation of the DCT-I / DST-I line kernel (kernels/r2r/dct1_lines.cuh, cuda-r2r's line step for these kinds
   where the FFT length M is smooth), as emulate_smooth.cpp: the header compiled as plain C++, each CTA run as one
   std::thread per CUDA thread with a std::barrier for __syncthreads, dynamic shared memory one static buffer poisoned
   with NaN before each CTA. Compared with the O(L^2) long-double definitions of FFTW's REDFT00 and RODFT00 with
   arbitrary input and output factors (the norms' pre and post, core/r2r.hpp):
     DCT-I  X_k = post_k [ u_0 + (−1)^k u_{L−1} + 2 sum_{n=1}^{L−2} u_n cos(pi n k / (L−1)) ],  u = pre ∘ x
     DST-I  X_k = post_k 2 sum_n u_n sin(pi (n+1)(k+1) / (L+1))
   Rows (lines of L contiguous values, counts that leave a partial CTA) and columns (matrices of L rows x width,
   widths that leave a partial tile, batch 2); M of every radix and several in one length, M = 1, 2, odd and even;
   f32 and f64; out of place (input unmodified) and in place; the kernels compiled for M = 256 as well, whole and with
   the even/odd split. Every output element is checked.
   Error per case: max |out - ref| over max |ref|. Pass: f32 <= 2e-6 * log2(2M) + 1e-6, f64 <= 1e-12. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "cuda_host.hpp"
#define __shared__
#include "kernels/r2r/dct1_lines.cuh"

namespace dct::cuda::smooth {
alignas(16) unsigned char smooth_smem[kMaxSmem];
}

using namespace dct::cuda;
using LD = long double;

namespace {

const LD kPi = 3.141592653589793238462643383279502884L;

std::vector<LD> reference(const std::vector<LD>& u, bool dst) {
  const long long len = static_cast<long long>(u.size());
  std::vector<LD> out(u.size(), 0.0L);
  for (long long k = 0; k < len; ++k) {
    LD s = 0;
    if (!dst) {
      s = u[0] + ((k & 1) ? -u[len - 1] : u[len - 1]);
      for (long long n = 1; n + 1 < len; ++n) s += 2.0L * u[n] * std::cos(kPi * n * k / (len - 1));
    } else {
      for (long long n = 0; n < len; ++n) s += 2.0L * u[n] * std::sin(kPi * (n + 1) * (k + 1) / (len + 1));
    }
    out[k] = s;
  }
  return out;
}

// Runs `fn` (a dct1_lines instantiation, a plain function here) over `ctas` CTAs.
template <class T>
void launch(const void* fn, const dct1::Args<T>& a, const dct1::Config& c, long long ctas) {
  const auto kernel = reinterpret_cast<void (*)(dct1::Args<T>)>(const_cast<void*>(fn));
  blockDim = {static_cast<unsigned>(c.threads), 1, 1};
  for (long long b = 0; b < ctas; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(c.smem_bytes));
    emu_run_cta(static_cast<unsigned>(c.threads), [&](unsigned) { kernel(a); });
  }
}

// The FFT length of the compiled cases (one of dct1::CompiledM).
constexpr int kCompiledM = 256;

// Returns the relative error (INFINITY: unwritten output, modified input, no plan). compiled: the kernel compiled for
// M = kCompiledM (split: with the even/odd split, as config() takes it for larger M; else the whole line); otherwise
// the run-time kernel (the whole line).
template <class T>
double run(long long len, bool dst, bool cols, long long lines_or_width, long long batch, bool scaled,
           std::mt19937_64& rng, bool in_place, bool compiled = false, bool split = false) {
  const long long m = dct1::fft_length(len, dst);
  if (compiled && m != kCompiledM) return INFINITY;
  const dct1::Config c = dct1::config_as<T>(len, dst, cols, split);
  std::vector<smooth::Pass> passes;
  if (c.lines == 0 || c.split != split || !smooth::plan_passes(c.fft, passes)) return INFINITY;
  std::uniform_real_distribution<double> u(-1.0, 1.0), f(0.5, 2.0);
  std::vector<double> pre, post;
  if (scaled)
    for (long long i = 0; i < len; ++i) pre.push_back(f(rng)), post.push_back(f(rng));
  const dct1::Tables<T> t = dct1::dct1_tables<T>(len, dst, c.fft, post);
  const std::vector<typename smooth::Cx<T>::type> fft_tw = smooth::fft_twiddles<T>(c.fft);
  std::vector<T> pre_t(static_cast<std::size_t>(len), T(1));
  for (std::size_t i = 0; i < pre.size(); ++i) pre_t[i] = static_cast<T>(pre[i]);
  dct1::Args<T> a;
  a.fft_tw = fft_tw.data();
  a.passes = passes.data();
  a.npass = static_cast<int>(passes.size());
  a.tw = t.tw.data();
  a.pre = pre_t.data();
  a.gain = t.gain.data();
  a.kp = t.kp.data();
  a.len = static_cast<int>(len);
  a.m = c.fft;
  a.dst = dst ? 1 : 0;
  a.lines_per_cta = c.lines;
  a.dl = smooth::FastDiv(static_cast<unsigned>(len));
  const long long total = cols ? batch * len * lines_or_width : lines_or_width * len;
  std::vector<T> x(static_cast<std::size_t>(total)), y(static_cast<std::size_t>(total));
  for (T& v : x) v = static_cast<T>(static_cast<float>(u(rng)));
  std::memset(y.data(), 0xFF, y.size() * sizeof(T));
  const std::vector<T> x0 = x;
  a.in = x.data();
  a.out = in_place ? x.data() : y.data();
  using One = std::integer_sequence<int, kCompiledM>;
  const void* fn = !compiled ? dct1::runtime_kernel<T>(c, cols)
                   : split   ? (cols ? dct1::compiled_kernel_in<T, true, true>(m, One{})
                                     : dct1::compiled_kernel_in<T, false, true>(m, One{}))
                             : (cols ? dct1::compiled_kernel_in<T, true, false>(m, One{})
                                     : dct1::compiled_kernel_in<T, false, false>(m, One{}));
  if (fn == nullptr) return INFINITY;
  if (cols) {
    a.width = static_cast<int>(lines_or_width);
    a.n_tiles = static_cast<int>((lines_or_width + c.lines - 1) / c.lines);
    launch(fn, a, c, a.n_tiles * batch);
  } else {
    a.lines = lines_or_width;
    launch(fn, a, c, (lines_or_width + c.lines - 1) / c.lines);
  }
  const std::vector<T>& out = in_place ? x : y;
  if (!in_place && std::memcmp(x0.data(), x.data(), x.size() * sizeof(T)) != 0) return INFINITY;
  const long long nlines = cols ? batch * lines_or_width : lines_or_width;
  double err = 0, scale = 0;
  for (long long l = 0; l < nlines; ++l) {
    const auto idx = [&](long long i) {
      return cols ? (l / lines_or_width) * len * lines_or_width + i * lines_or_width + l % lines_or_width : l * len + i;
    };
    std::vector<LD> v(static_cast<std::size_t>(len));
    for (long long i = 0; i < len; ++i) v[i] = static_cast<LD>(x0[idx(i)]) * (scaled ? static_cast<LD>(pre[i]) : 1.0L);
    std::vector<LD> r = reference(v, dst);
    for (long long i = 0; i < len; ++i) {
      if (scaled) r[i] *= static_cast<LD>(post[i]);
      const double o = static_cast<double>(out[idx(i)]);
      if (std::isnan(o)) return INFINITY;
      err = std::max(err, static_cast<double>(std::fabs(o - r[i])));
      scale = std::max(scale, static_cast<double>(std::fabs(r[i])));
    }
  }
  return err / (scale > 0 ? scale : 1.0);
}

}  // namespace

int main() {
  std::mt19937_64 rng(20261130);
  int failed = 0, cases = 0;
  // M = L − 1 (DCT-I) or L + 1 (DST-I): 1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 30, 64, 100, 105 (3·5·7), 143 (11·13),
  // 240, 512, 1000, 1024.
  const long long ms[] = {1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 30, 64, 100, 105, 143, 240, 512, 1000, 1024};
  for (int prec = 0; prec < 2; ++prec)
    for (long long m : ms)
      for (int dst = 0; dst < 2; ++dst) {
        const long long len = dst ? m - 1 : m + 1;
        if (len < 1) continue;
        for (int cols = 0; cols < 2; ++cols) {
          const bool scaled = ((m + dst + cols) % 2) == 0, in_place = ((m + cols) % 3) == 0;
          const long long lw = cols ? (m > 300 ? 11 : 13) : (m > 300 ? 3 : 37);
          const double e = prec == 0 ? run<float>(len, dst, cols, lw, 2, scaled, rng, in_place)
                                     : run<double>(len, dst, cols, lw, 2, scaled, rng, in_place);
          const double tol = prec == 0 ? 2e-6 * std::log2(2.0 * static_cast<double>(m)) + 1e-6 : 1e-12;
          ++cases;
          const bool ok = e <= tol;
          if (!ok) ++failed;
          if (!ok || m >= 1000)
            std::printf("%s %s L=%lld M=%lld %s%s%s: err %.3g (tol %.3g)%s\n", prec == 0 ? "f32" : "f64",
                        dst ? "dst1" : "dct1", len, m, cols ? "cols" : "rows", scaled ? " scaled" : "",
                        in_place ? " in place" : "", e, tol, ok ? "" : "  FAILED");
        }
      }
  // The kernels compiled for M = 256 (rows: 8 lines per CTA, 37 lines, so a last CTA of 5 and a pair with one line;
  // columns: 13 wide), the whole line and with the even/odd split (which config() takes for larger M).
  for (int split = 0; split < 2; ++split)
    for (int prec = 0; prec < 2; ++prec)
      for (int dst = 0; dst < 2; ++dst)
        for (int cols = 0; cols < 2; ++cols) {
          const long long m = kCompiledM, len = dst ? m - 1 : m + 1, lw = cols ? 13 : 37;
          const bool scaled = (dst + cols + split) % 2 == 1;
          const double e = prec == 0 ? run<float>(len, dst, cols, lw, 2, scaled, rng, cols == split, true, split)
                                     : run<double>(len, dst, cols, lw, 2, scaled, rng, cols == split, true, split);
          const double tol = prec == 0 ? 2e-6 * std::log2(2.0 * static_cast<double>(m)) + 1e-6 : 1e-12;
          ++cases;
          const bool ok = e <= tol;
          if (!ok) ++failed;
          std::printf("%s %s L=%lld M=%lld compiled%s %s: err %.3g (tol %.3g)%s\n", prec == 0 ? "f32" : "f64",
                      dst ? "dst1" : "dct1", len, m, split ? " split" : "", cols ? "cols" : "rows", e, tol,
                      ok ? "" : "  FAILED");
        }
  std::printf("emulate_dct1: %d cases, %d failed\n", cases, failed);
  return failed == 0 ? 0 : 1;
}
