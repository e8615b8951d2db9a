/* Host emulation of the DCT-I / DST-I line kernel (kernels/r2r/dct1_lines.cuh, cuda-r2r's line step for these kinds),
   as emulate_smooth.cpp: the header compiled as plain C++, each CTA run as one std::thread per CUDA thread with a
   std::barrier for __syncthreads, dynamic shared memory one static buffer poisoned with NaN before each CTA (and
   checked untouched past the CTAs' smem_bytes). Compared with the O(L^2) long-double definitions of FFTW's REDFT00
   and RODFT00 with arbitrary input and output factors (the norms' pre and post, core/r2r.hpp):
     DCT-I  X_k = post_k [ u_0 + (−1)^k u_{L−1} + 2 sum_{n=1}^{L−2} u_n cos(pi n k / (L−1)) ],  u = pre ∘ x
     DST-I  X_k = post_k 2 sum_n u_n sin(pi (n+1)(k+1) / (L+1))
   Rows (lines of L contiguous values, counts that leave a partial CTA) and columns (matrices of L rows x width,
   widths that leave a partial tile, batch 2); M of every radix and several in one length, M = 1, 2, odd and even;
   f32 and f64; out of place (input unmodified) and in place; the kernels compiled for M = 256 as well, whole and with
   the even/odd split; M with a prime factor above 13 by Bluestein's FFTs (M = 17 .. 4097). Every output element is
   checked.
   Error per case: max |out - ref| over max |ref|. Pass: f32 <= 2e-6 * log2(2M) + 1e-6, f64 <= 1e-12. */
#include <cassert>
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

// The angles' cosines (DCT-I) or sines (DST-I) from one table of cos(πt/M) or sin(πt/M), t < 2M (t = n·k or
// (n+1)(k+1) mod 2M, exact in integers): the large lengths' references in seconds.
std::vector<LD> reference(const std::vector<LD>& u, bool dst) {
  const long long len = static_cast<long long>(u.size()), m = dst ? len + 1 : len - 1;
  std::vector<LD> tab(static_cast<std::size_t>(2 * m));
  for (long long t = 0; t < 2 * m; ++t) tab[t] = dst ? std::sin(kPi * t / m) : std::cos(kPi * t / m);
  std::vector<LD> out(u.size(), 0.0L);
  for (long long k = 0; k < len; ++k) {
    LD s = 0;
    if (!dst) {
      s = u[0] + ((k & 1) ? -u[len - 1] : u[len - 1]);
      for (long long n = 1; n + 1 < len; ++n) s += 2.0L * u[n] * tab[(n * k) % (2 * m)];
    } else {
      for (long long n = 0; n < len; ++n) s += 2.0L * u[n] * tab[((n + 1) * (k + 1)) % (2 * m)];
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
  std::memset(smooth::smooth_smem, 0xFF, sizeof(smooth::smooth_smem));
  for (long long b = 0; b < ctas; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(c.smem_bytes));
    emu_run_cta(static_cast<unsigned>(c.threads), [&](unsigned) { kernel(a); });
  }
  // Nothing written past the CTAs' dynamic shared memory (config's smem_bytes).
  for (std::size_t i = static_cast<std::size_t>(c.smem_bytes); i < sizeof(smooth::smooth_smem); ++i)
    assert(smooth::smooth_smem[i] == 0xFF);
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
  const long long fft_len = c.bl > 0 ? c.bl : c.fft;  // the passes' length
  std::vector<smooth::Pass> passes;
  if (c.lines == 0 || c.split != split || !smooth::plan_passes(fft_len, passes)) return INFINITY;
  std::uniform_real_distribution<double> u(-1.0, 1.0), f(0.5, 2.0);
  std::vector<double> pre, post;
  if (scaled)
    for (long long i = 0; i < len; ++i) pre.push_back(f(rng)), post.push_back(f(rng));
  const dct1::Tables<T> t = dct1::dct1_tables<T>(len, dst, c.fft, post);
  const std::vector<typename smooth::Cx<T>::type> fft_tw = smooth::fft_twiddles<T>(fft_len);
  const smooth::BluesteinTables<T> bt = c.bl > 0 ? smooth::bluestein_tables<T>(m, c.bl) : smooth::BluesteinTables<T>{};
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
  a.bl = c.bl;
  a.chirp = bt.chirp.data();
  a.bfft = bt.bfft.data();
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
  // M with a prime factor above 13, by Bluestein's FFTs of length Lb (config's bl): DCT-I L = 18 (M = 17), 20 (19), 24
  // (23), 35 (2·17), 256 (3·5·17), 1080 (13·83), 1920 (19·101), 2048 (23·89); DST-I L = 16 (17), 36 (37), 45 (2·23),
  // 254 (3·5·17), 4096 (17·241: f32 only, f64's Lb fits no CTA). Rows: 2P + 3 lines (a partial last CTA), 3 where P =
  // 1; columns: 2kC + 1 wide (a partial last tile), batch 2 (1 from L = 1000).
  struct Odd {
    long long len;
    bool dst;
  };
  const Odd odd[] = {{18, false},   {20, false}, {24, false}, {35, false}, {256, false}, {1080, false}, {1920, false},
                     {2048, false}, {16, true},  {36, true},  {45, true},  {254, true},  {4096, true}};
  int idx = 0;
  for (const Odd& o : odd)
    for (int prec = 0; prec < 2; ++prec)
      for (int cols = 0; cols < 2; ++cols, ++idx) {
        const long long m = dct1::fft_length(o.len, o.dst);
        const dct1::Config c =
            prec == 0 ? dct1::config<float>(o.len, o.dst, cols) : dct1::config<double>(o.len, o.dst, cols);
        const char* name = prec == 0 ? "f32" : "f64";
        if (c.lines == 0 && prec == 1 && m > 3217) {  // expected: f64 Lb >= 2M − 1 > 6434 fits no CTA
          std::printf("%s %s L=%lld M=%lld %s: no kernel (Lb fits no CTA), as expected\n", name,
                      o.dst ? "dst1" : "dct1", o.len, m, cols ? "cols" : "rows");
          continue;
        }
        const bool big = o.len >= 1000, scaled = (idx + idx / 2) % 2 == 0, in_place = idx % 3 == 0;
        const long long lw = cols ? 2 * c.lines + 1 : c.lines > 1 ? 2 * c.lines + 3 : 3, batch = big ? 1 : 2;
        const double e = c.lines == 0 || c.bl == 0 ? INFINITY
                         : prec == 0               ? run<float>(o.len, o.dst, cols, lw, batch, scaled, rng, in_place)
                                                   : run<double>(o.len, o.dst, cols, lw, batch, scaled, rng, in_place);
        const double tol = prec == 0 ? 2e-6 * std::log2(2.0 * static_cast<double>(m)) + 1e-6 : 1e-12;
        ++cases;
        const bool ok = e <= tol;
        if (!ok) ++failed;
        std::printf("%s %s L=%lld M=%lld Lb=%d P=%d %s %lld%s%s: err %.3g (tol %.3g)%s\n", name,
                    o.dst ? "dst1" : "dct1", o.len, m, c.bl, c.lines, cols ? "cols, width" : "rows, lines", lw,
                    scaled ? " scaled" : "", in_place ? " in place" : "", e, tol, ok ? "" : "  FAILED");
      }
  std::printf("emulate_dct1: %d cases, %d failed\n", cases, failed);
  return failed == 0 ? 0 : 1;
}
