/* Host emulation of the short-line DCT-IV kernel (kernels/dct4/small.cuh, cuda-dct4-small) for machines without a
   GPU, as emulate_smooth.cpp: the header compiled as plain C++, each CTA run as one std::thread per CUDA thread with a
   std::barrier for __syncthreads, dynamic shared memory one static buffer poisoned with NaN before each CTA, and a
   grid of two CTAs so that the grid-stride loop takes several tiles per CTA. The matrix is small::matrix,
   the plan's. Compared with the long-double definition
     Y_k = σ Σ_n x_n cos(π(2n+1)(2k+1)/4N),  σ = 2 (dct4), 1/N (idct4), √(2/N) (ortho),
   for N = 1 .. 20, 24, 31, 32, 33, 47, 48, 62, 63 (idct4 and ortho on a few of them), rows (lines that leave a partial
   last tile) and columns (two matrices, widths that leave a partial tile), f32 and f64. Outputs poisoned (NaN) before
   the run; every output element is checked; an in-place run (in == out) must give the same bytes. Pass: max |out − ref|
   / max |ref| f32 <= 1e-6, f64 <= 1e-13. Also dct4_rows_odd (rows of odd N = 3 .. odd_max_n: 39 in f32, 21 in f64): one
   line, a partial last CTA and whole CTAs, pointers aligned and misaligned for 16-byte accesses, in place, the three
   norms. Self-contained (no libraries). */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "cuda_host.hpp"
#define __shared__
#include "kernels/dct4/small.cuh"

namespace dct::cuda::dct4::small {
alignas(16) unsigned char small_smem[256 * 1024];
}

using namespace dct::cuda::dct4;
using LD = long double;

namespace {

const LD kPi = 3.141592653589793238462643383279502884L;

template <class T>
void launch(const small::Args<T>& a0, const T* in, T* out) {
  small::Args<T> a = a0;
  a.in = in;
  a.out = out;
  gridDim = {2, 1, 1};
  blockDim = {small::kThreads, 1, 1};
  for (unsigned b = 0; b < 2; ++b) {
    blockIdx = {b, 0, 0};
    std::memset(small::small_smem, 0xFF, sizeof small::small_smem);
    emu_run_cta(small::kThreads, [&](unsigned) { small::dct4_small<T>(a); });
  }
}

// max |y − ref| / max |ref| over `lines` lines of n values, line l's values at base + j·st ({base, st} = at(l)), the
// reference the long-double definition; INFINITY where an output is not finite.
template <class T, class At>
double max_error(const T* x, const T* y, int n, long long lines, LD sig, At at) {
  LD err = 0, big = 0;
  for (long long l = 0; l < lines; ++l) {
    const auto [base, st] = at(l);
    for (int k = 0; k < n; ++k) {
      LD r = 0;
      for (int j = 0; j < n; ++j) r += x[base + j * st] * std::cos(kPi * (2 * j + 1) * (2 * k + 1) / (4.0L * n));
      r *= sig;
      const LD o = y[base + k * st];
      if (!std::isfinite(static_cast<double>(o))) return INFINITY;
      err = std::max(err, std::fabs(o - r));
      big = std::max(big, std::fabs(r));
    }
  }
  return static_cast<double>(err / (big > 0 ? big : 1));
}

// Lines of n values: rows (lines x n) or columns (matrices of n rows x width). Returns the error, or INFINITY.
template <class T>
double run(int n, bool cols, int variant) {
  const LD sig = variant == 0 ? 2.0L : variant == 1 ? 1.0L / n : std::sqrt(2.0L / n);
  const int L = 1 << small::lg_lines<T>(n, cols);
  const long long lines = cols ? 0 : 2LL * L + 5, matrices = cols ? 2 : 0;
  const int width = cols ? L + 7 : 1;
  const long long total = cols ? matrices * n * width : lines * n;
  std::vector<T> x(total), y(total, static_cast<T>(NAN));
  std::mt19937 g(n * 7 + cols * 3 + variant);
  std::uniform_real_distribution<double> u(-1, 1);
  for (T& v : x) v = static_cast<T>(u(g));
  const std::vector<T> mat = small::matrix<T>(n, sig);
  small::Args<T> a;
  a.mat = mat.data();
  a.n = n;
  a.cols = cols;
  if (!cols) {
    a.lines = lines;
    a.tiles = (lines + L - 1) / L;
  } else {
    a.width = width;
    a.tiles_per_matrix = (width + L - 1) / L;
    a.tiles = matrices * a.tiles_per_matrix;
  }
  if (small::smem_bytes<T>(n, cols) > small::max_smem_bytes<T>() ||
      small::max_smem_bytes<T>() > static_cast<int>(sizeof small::small_smem))
    return INFINITY;
  launch(a, x.data(), y.data());
  std::vector<T> z = x;  // in place
  launch(a, z.data(), z.data());
  if (std::memcmp(z.data(), y.data(), sizeof(T) * total) != 0) return INFINITY;
  const long long nlines = cols ? matrices * width : lines;
  return max_error(x.data(), y.data(), n, nlines, sig, [&](long long l) {
    return std::pair<long long, long long>{cols ? (l / width) * n * width + l % width : l * n, cols ? width : 1};
  });
}

// dct4_rows_odd<T, N> (rows of odd N <= odd_max_n<T>(), the matrix in its parameters): `lines` lines, the input and
// output `offset` values into their buffers (1: not 16-byte aligned, the kernel's scalar path; also taken by a partial
// last CTA). An in-place run must give the same bytes.
template <class T, int N>
double run_odd(long long lines, int variant, int offset) {
  const LD sig = variant == 0 ? 2.0L : variant == 1 ? 1.0L / N : std::sqrt(2.0L / N);
  const long long total = lines * N;
  std::vector<T> x(total + 2), y(total + 2, static_cast<T>(NAN));
  std::mt19937 g(N * 11 + lines + variant);
  std::uniform_real_distribution<double> u(-1, 1);
  for (T& v : x) v = static_cast<T>(u(g));
  const small::OddMatrix<T, N> m = small::odd_matrix<T, N>(sig);
  if (small::odd_smem_bytes<T>(N) > static_cast<int>(sizeof small::small_smem)) return INFINITY;
  const long long ctas = (lines + small::kOddThreads - 1) / small::kOddThreads;
  const auto launch = [&](const T* in, T* out) {
    gridDim = {static_cast<unsigned>(ctas), 1, 1};
    blockDim = {small::kOddThreads, 1, 1};
    for (long long b = 0; b < ctas; ++b) {
      blockIdx = {static_cast<unsigned>(b), 0, 0};
      std::memset(small::small_smem, 0xFF, sizeof small::small_smem);
      emu_run_cta(small::kOddThreads, [&](unsigned) { small::dct4_rows_odd<T, N>(in, out, lines, m); });
    }
  };
  launch(x.data() + offset, y.data() + offset);
  std::vector<T> z = x;
  launch(z.data() + offset, z.data() + offset);
  if (std::memcmp(z.data() + offset, y.data() + offset, sizeof(T) * total) != 0) return INFINITY;
  return max_error(x.data() + offset, y.data() + offset, N, lines, sig, [](long long l) {
    return std::pair<long long, long long>{l * N, 1};
  });
}

// Every odd N from 3 to odd_max_n<T>(): the worst error over lines 1, a partial last CTA and whole CTAs, aligned and
// not.
template <class T, int N = 3>
double odd_all(int variant, int& cases) {
  if constexpr (N > small::odd_max_n<T>()) {
    return 0;
  } else {
    double worst = 0;
    for (const long long lines : {1LL, 2LL * small::kOddThreads + 5, 2LL * small::kOddThreads})
      for (int offset = 0; offset < 2; ++offset) {
        worst = std::max(worst, run_odd<T, N>(lines, variant, offset));
        ++cases;
      }
    return std::max(worst, odd_all<T, N + 2>(variant, cases));
  }
}

const char* variant_name(int variant) { return variant == 0 ? "dct4" : variant == 1 ? "idct4" : "ortho"; }

}  // namespace

int main() {
  int bad = 0, cases = 0;
  double max32 = 0, max64 = 0;
  std::vector<int> ns;
  for (int n = 1; n <= 20; ++n) ns.push_back(n);
  for (int n : {24, 31, 32, 33, 47, 48, 62, small::kMaxN}) ns.push_back(n);
  for (int n : ns)
    for (int cols = 0; cols < 2; ++cols)
      for (int variant = 0; variant < 3; ++variant) {
        if (variant > 0 && n % 8 != 1 && n != small::kMaxN) continue;  // the norms on a few lengths
        const double e32 = run<float>(n, cols, variant), e64 = run<double>(n, cols, variant);
        ++cases;
        const bool ok = e32 <= 1e-6 && e64 <= 1e-13;
        if (!ok)
          std::printf("FAIL N=%d %s %s: f32 %.3g f64 %.3g\n", n, cols ? "cols" : "rows", variant_name(variant), e32,
                      e64);
        bad += !ok;
        max32 = std::max(max32, e32);
        max64 = std::max(max64, e64);
      }
  for (int variant = 0; variant < 3; ++variant) {
    const double e32 = odd_all<float>(variant, cases), e64 = odd_all<double>(variant, cases);
    const bool ok = e32 <= 1e-6 && e64 <= 1e-13;
    std::printf("%s dct4_rows_odd N = 3 .. %d / %d (%s): f32 %.3g f64 %.3g\n", ok ? "ok" : "FAIL",
                small::odd_max_n<float>(), small::odd_max_n<double>(), variant_name(variant), e32, e64);
    bad += !ok;
    max32 = std::max(max32, e32);
    max64 = std::max(max64, e64);
  }
  std::printf("%d cases, max error f32 %.3g f64 %.3g\n", cases, max32, max64);
  std::printf(bad ? "FAIL\n" : "OK\n");
  return bad;
}
