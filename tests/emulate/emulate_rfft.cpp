/* Host emulation of the row real FFT kernels (kernels/dct2d/row_fft.cuh, cuda-fft2d's row stage) for machines
   without a GPU, in the manner of emulate_dct4.cpp: the header is compiled as plain C++, each CTA run as one
   std::thread per CUDA thread with a std::barrier for __syncthreads (dynamic shared memory becomes one static buffer;
   CTAs one after another), shuffles through an exchange array between barriers, the tables built by rfft_twiddles as
   kernels/dct2d/row_fft.cu builds them. Compared with the direct O(n2^2) long-double definition including the
   reorder (eq. 13) of both axes: forward V(r, k) = sum_c x[nat(r,n1)][nat(c,n2)] e^{-2 pi i ck/n2} (k <= n2/2) and
   the unnormalized C2R inverse (Im V(0), Im V(n2/2) random: they must be ignored).
   Every n2 = 16 .. 8192 (powers of two), n1 in {1, 2, 3, 5, 8, 17} and 2*(lines per CTA)+3 where that is larger
   (several CTAs, the last one partly filled), batch 1 and 2, f32 and f64 (a case: one direction, both precisions),
   each with one of the four DST sign masks (math/dct2d.hpp; the case's mask (n1 + batch + inverse)
   mod 4): the natural element (a, b) read (forward) or written (inverse) as −x where (a odd and bit 0) xor (b odd and
   bit 1).
   Poisoned outputs and shared memory (NaN) catch unwritten elements (every output element is checked); every 16-byte
   global access is checked for alignment; the inputs must come back unmodified. For n2 >= 1024 the definition is
   evaluated on a sample of the rows (the first and last three and every 5th).
   Error per case: max |out - ref| over max |ref| (real and imaginary parts as separate components).
   Pass: f32 <= 1e-5, f64 <= 1e-12. Self-contained (no libraries). */
#include <algorithm>
#include <barrier>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <thread>
#include <tuple>
#include <vector>
#include "cuda_host.hpp"
#define __shared__
#define DCT_ASSERT_ALIGNED16(p) assert((reinterpret_cast<std::uintptr_t>(p) & 15) == 0)
namespace dct::cuda::rfft {
alignas(16) unsigned char rfft_smem[147456];
}
#include "kernels/dct2d/row_fft.cuh"
using namespace dct::cuda;
using LD = long double;

static long long nat(long long m, long long n) { return m < (n + 1) / 2 ? 2 * m : 2 * (n - m) - 1; }

// The DST sign of natural element (a, b) under mask `sign`.
static int dst_sign(unsigned sign, long long a, long long b) {
  return ((((sign & 1u) ? a : 0) ^ ((sign & 2u) ? b : 0)) & 1) ? -1 : 1;
}

template <class F>
static void run_ctas(int threads, long long ctas, F&& body) {
  for (long long b = 0; b < ctas; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(rfft::rfft_smem, 0xFF, sizeof rfft::rfft_smem);  // poison shared memory (NaN)
    emu_run_cta(static_cast<unsigned>(threads), [&](unsigned) { body(); });
  }
}

static bool sampled(long long g, long long rows, int n2) { return n2 < 1024 || g < 3 || g >= rows - 3 || g % 5 == 0; }

// One case: forward (inverse == false) or inverse of `rows` = batch·n1 lines. in: exactly representable in
// float (the same data for both precisions). Returns the relative error (INFINITY: unwritten/NaN output,
// modified input, no kernel).
template <class T>
static double run(int n2, long long n1, long long batch, bool inverse, unsigned sign, const std::vector<double>& in,
                  const std::vector<LD>& ref, const std::vector<char>& checked) {
  using C = typename rfft::RowsTypes<T>::cx;
  const int m = n2 / 2;
  int lgm = 0;
  while ((1 << lgm) < m) ++lgm;
  const auto l = rfft::rfft_launch<T>(lgm);
  if (l.fwd == nullptr || l.smem_bytes > static_cast<int>(sizeof rfft::rfft_smem)) return INFINITY;
  const std::vector<C> tw = rfft::rfft_twiddles<T>(lgm, l.vpt);  // as kernels/dct2d/row_fft.cu builds it
  const long long rows = n1 * batch, ctas = (rows + l.lines_per_cta - 1) / l.lines_per_cta;
  const std::size_t nx = static_cast<std::size_t>(rows) * n2, nv = static_cast<std::size_t>(rows) * (m + 1);
  std::vector<T> x(nx);
  std::vector<C> V(nv);
  std::vector<double> out;
  if (!inverse) {
    for (std::size_t i = 0; i < nx; ++i) x[i] = static_cast<T>(in[i]);
    std::memset(V.data(), 0xFF, nv * sizeof(C));
    const std::vector<T> x0 = x;
    run_ctas(l.threads, ctas,
             [&] { l.fwd(x.data(), V.data(), tw.data(), unsigned(n1), unsigned(rows), unsigned(m + 1), sign); });
    if (std::memcmp(x0.data(), x.data(), nx * sizeof(T)) != 0) return INFINITY;
    for (const C& c : V) out.insert(out.end(), {double(c.x), double(c.y)});
  } else {
    for (std::size_t i = 0; i < nv; ++i) V[i] = C{static_cast<T>(in[2 * i]), static_cast<T>(in[2 * i + 1])};
    std::memset(x.data(), 0xFF, nx * sizeof(T));
    const std::vector<C> V0 = V;
    run_ctas(l.threads, ctas,
             [&] { l.inv(V.data(), x.data(), tw.data(), unsigned(n1), unsigned(rows), unsigned(m + 1), sign); });
    if (std::memcmp(V0.data(), V.data(), nv * sizeof(C)) != 0) return INFINITY;
    out.assign(x.begin(), x.end());
  }
  LD err = 0, top = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) return INFINITY;
    if (!checked[i]) continue;
    err = std::max(err, std::fabs(static_cast<LD>(out[i]) - ref[i]));
    top = std::max(top, std::fabs(ref[i]));
  }
  return static_cast<double>(err / top);
}

int main() {
  int bad = 0;
  double max32 = 0, max64 = 0;
  const LD pi = 3.141592653589793238462643383279502884L;
  for (int n2 = 16; n2 <= 8192; n2 *= 2) {
    const int m = n2 / 2;
    int lgm = 0;
    while ((1 << lgm) < m) ++lgm;
    const long long lpb = rfft::rfft_launch<float>(lgm).lines_per_cta;
    std::vector<LD> cs(n2), sn(n2);  // e^{-2 pi i t/n2} = cs - i·sn... cs[t] = cos, sn[t] = sin(2 pi t/n2)
    for (int t = 0; t < n2; ++t) {
      cs[t] = std::cos(2 * pi * t / n2);
      sn[t] = std::sin(2 * pi * t / n2);
    }
    double e32n = 0, e64n = 0;
    std::vector<long long> n1s = {1, 2, 3, 5, 8, 17};  // n1 = 17 fills several CTAs when lpb <= 8
    if (2 * lpb + 3 > 17) n1s.push_back(2 * lpb + 3);
    for (const long long n1 : n1s)
      for (const long long batch : {1LL, 2LL}) {
        std::printf("n2=%d n1=%lld batch=%lld:", n2, n1, batch);
        for (int inv = 0; inv < 2; ++inv) {
          const long long rows = n1 * batch;
          const auto sign = static_cast<unsigned>((n1 + batch + inv) % 4);
          std::mt19937 g(static_cast<unsigned>(n2 * 7919 + n1 * 31 + batch * 7 + inv));
          std::uniform_real_distribution<float> u(-1, 1);
          std::vector<double> in(inv ? 2 * rows * (m + 1) : rows * n2);
          for (double& v : in) v = u(g);
          std::vector<LD> ref;
          std::vector<char> checked;
          if (!inv) {
            ref.assign(2 * rows * (m + 1), 0);
            checked.assign(ref.size(), 0);
            for (long long b = 0; b < batch; ++b)
              for (long long r = 0; r < n1; ++r) {
                const long long gl = b * n1 + r;
                if (!sampled(gl, rows, n2)) continue;
                const double* xr = in.data() + (b * n1 + nat(r, n1)) * n2;
                for (int k = 0; k <= m; ++k) {
                  LD re = 0, im = 0;
                  for (int c = 0; c < n2; ++c) {
                    const int t = static_cast<int>((static_cast<long long>(c) * k) % n2);
                    const LD v = dst_sign(sign, nat(r, n1), nat(c, n2)) * static_cast<LD>(xr[nat(c, n2)]);
                    re += v * cs[t];
                    im -= v * sn[t];
                  }
                  ref[2 * (gl * (m + 1) + k)] = re;
                  ref[2 * (gl * (m + 1) + k) + 1] = im;
                  checked[2 * (gl * (m + 1) + k)] = checked[2 * (gl * (m + 1) + k) + 1] = 1;
                }
              }
          } else {
            // x(c) = Re V(0) + (-1)^c Re V(M) + 2 sum_{0<k<M} Re(V(k) e^{+2 pi i ck/n2}).
            ref.assign(rows * n2, 0);
            checked.assign(ref.size(), 0);
            for (long long b = 0; b < batch; ++b)
              for (long long r = 0; r < n1; ++r) {
                const long long gl = b * n1 + r;
                if (!sampled(gl, rows, n2)) continue;
                const double* vr = in.data() + 2 * gl * (m + 1);
                for (int c = 0; c < n2; ++c) {
                  LD s = vr[0] + (c % 2 ? -1 : 1) * static_cast<LD>(vr[2 * m]);
                  for (int k = 1; k < m; ++k) {
                    const int t = static_cast<int>((static_cast<long long>(c) * k) % n2);
                    s += 2 * (vr[2 * k] * cs[t] - vr[2 * k + 1] * sn[t]);
                  }
                  const long long at = (b * n1 + nat(r, n1)) * n2 + nat(c, n2);
                  ref[at] = dst_sign(sign, nat(r, n1), nat(c, n2)) * s;
                  checked[at] = 1;
                }
              }
          }
          const double e32 = run<float>(n2, n1, batch, inv, sign, in, ref, checked);
          const double e64 = run<double>(n2, n1, batch, inv, sign, in, ref, checked);
          const bool ok = e32 <= 1e-5 && e64 <= 1e-12;
          bad += !ok;
          std::printf("  %s (sign %u) f32 %.3g f64 %.3g%s", inv ? "inverse" : "forward", sign, e32, e64,
                      ok ? "" : " FAIL");
          e32n = std::max(e32n, e32);
          e64n = std::max(e64n, e64);
        }
        std::printf("\n");
      }
    std::printf("== n2=%d (VPT %d, %lld lines/CTA), %zu cases: max relative error f32 %.3g f64 %.3g\n", n2,
                rfft::rfft_launch<float>(lgm).vpt, lpb, 4 * n1s.size(), e32n, e64n);
    std::fflush(stdout);
    max32 = std::max(max32, e32n);
    max64 = std::max(max64, e64n);
  }
  std::printf("max relative error (max-abs / max-abs) f32 %.3g (limit 1e-5), f64 %.3g (limit 1e-12)\n%s\n", max32,
              max64, bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
