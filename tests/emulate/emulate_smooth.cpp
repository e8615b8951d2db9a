/* Host emulation of the smooth-size line DCT kernels (kernels/dct2d/smooth.cuh, cuda-fft2d's route for sizes other
   than the powers of two of its row kernels; smooth_dct4_rows, DCT-IV rows of 2M points, and smooth_dct4_odd_rows, of
   odd N, at the end) for machines without a GPU, as emulate_rfft.cpp: the header compiled as plain C++, each CTA run
   as one std::thread per CUDA thread with a std::barrier for __syncthreads, dynamic shared memory one static buffer
   poisoned with NaN before each CTA.
   Compared with the O(N^2) long-double definitions: forward  Y(k) = f(k) 2 sum_n x(n) cos(pi k (2n+1) / 2N) (DCT-II,
   scipy dct type 2) inverse  x(n) = sum_k g(k) Y(k) cos(pi k (2n+1) / 2N) ... (DCT-III that inverts it, scipy idct type
   2) norm none (f = 1, g = (k ? 2 : 1) / 2N) and ortho (f = sqrt(1/2N) c_k, g = 2 f); rows (lines of N contiguous
   values, an odd number of lines so that a CTA's last pair has one real line; half of the cases one element off 16-byte
   alignment, so that both the kernel's 16-byte loads and stores and its scalar ones run) and columns (matrices of N
   rows x width, widths that leave a partial tile, odd and a multiple of 16 bytes, batch 2); every radix and several
   of them in one length, odd N, N = 1, 2, lengths with a prime factor above 13 (smooth_lines_bluestein); f32 and f64. Outputs poisoned (NaN) before the run; every output element is
   checked; the input must come back unmodified, and an in-place run (in == out) must give the same result. Error per
   case: max |out - ref| over max |ref|. Pass: f32 <= 2e-6 * log2(2N) + 1e-6 (FFT rounding grows with the passes), f64
   <= 1e-12. Self-contained (no libraries). */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "cuda_host.hpp"
#define __shared__
#include "kernels/dct2d/smooth_cols4.cuh"
#include "kernels/dct2d/smooth_tiles.cuh"

namespace dct::cuda::smooth {
alignas(16) unsigned char smooth_smem[kMaxSmem];
}

using namespace dct::cuda;
using LD = long double;

namespace {

const LD kPi = 3.141592653589793238462643383279502884L;

LD fk(long long k, long long n, bool ortho) {
  return ortho ? std::sqrt(1.0L / (2.0L * n)) * (k == 0 ? std::sqrt(0.5L) : 1.0L) : 1.0L;
}

template <class T>
struct Tables {
  using C = typename smooth::Cx<T>::type;
  std::vector<C> fft_tw, tw;
  std::vector<T> fs, ia;
  // fft_len: the FFT's length (0: n; Bluestein's L).
  Tables(long long n, bool ortho, LD scale = 1.0L, long long fft_len = 0)
      : fft_tw(smooth::fft_twiddles<T>(fft_len > 0 ? fft_len : n)) {
    for (long long k = 0; k < n; ++k) {  // as kernels/common/plan.cu's AxisTableBuffers(n, norm, 2.0)
      const LD th = kPi * k / (2.0L * n), f = fk(k, n, ortho);
      tw.push_back(C{static_cast<T>(std::cos(th)), static_cast<T>(-std::sin(th))});
      fs.push_back(static_cast<T>(2.0L * f * scale));
      ia.push_back(static_cast<T>(scale * (ortho ? 1.0L / f : 1.0L) / (2.0L * n)));
    }
  }
};

// One 1-D transform of line values v (length n) by the definition; dst: the DST-II (scipy dst type 2,
// y_k = f(N−1−k) 2 sum_n x(n) sin(pi (k+1) (2n+1) / 2N)) and the DST-III that inverts it.
std::vector<LD> reference(const std::vector<LD>& v, long long n, bool inverse, bool ortho, bool dst = false) {
  std::vector<LD> out(n, 0.0L);
  const auto basis = [&](long long k, long long m) {
    return dst ? std::sin(kPi * (k + 1) * (2 * m + 1) / (2.0L * n)) : std::cos(kPi * k * (2 * m + 1) / (2.0L * n));
  };
  const auto kf = [&](long long k) { return dst ? n - 1 - k : k; };  // the DCT index of the same norm factor
  for (long long a = 0; a < n; ++a)
    for (long long b = 0; b < n; ++b) {
      if (!inverse) {
        out[a] += 2.0L * fk(kf(a), n, ortho) * v[b] * basis(a, b);
      } else {
        const LD g = ortho ? 2.0L * fk(kf(b), n, true) : (kf(b) == 0 ? 1.0L : 2.0L) / (2.0L * n);
        out[a] += g * v[b] * basis(b, a);
      }
    }
  return out;
}

template <class T, bool kCols, bool kInverse, int kC>
void launch(smooth::Args<T> a, const smooth::Config& c, long long ctas) {
  blockDim = {static_cast<unsigned>(c.threads), 1, 1};
  for (long long b = 0; b < ctas; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(c.smem_bytes));
    emu_run_cta(static_cast<unsigned>(c.threads), [&](unsigned) {
      if (a.bl > 0)
        smooth::smooth_lines_bluestein<T, kCols, kInverse, kC>(a);
      else
        smooth::smooth_lines<T, kCols, kInverse, kC>(a);
    });
  }
}

// The kernel compiled for the length (smooth_lines_ct, smooth::CompiledLengths) in the same launch shape.
template <class T, bool kCols, bool kInverse>
void launch_compiled(const smooth::Args<T>& a, const smooth::Config& c, long long ctas) {
  const bool found = smooth::with_compiled<T, kCols, kInverse>(a.n, [&](auto kernel) {
    blockDim = {static_cast<unsigned>(c.threads), 1, 1};
    for (long long b = 0; b < ctas; ++b) {
      blockIdx = {static_cast<unsigned>(b), 0, 0};
      std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(c.smem_bytes));
      emu_run_cta(static_cast<unsigned>(c.threads), [&](unsigned) { kernel(a); });
    }
  });
  if (!found) std::abort();
}

template <class T, bool kCols, bool kInverse>
void launch_kc(const smooth::Args<T>& a, const smooth::Config& c, long long ctas, bool compiled) {
  if (compiled) return launch_compiled<T, kCols, kInverse>(a, c, ctas);
  if constexpr (!kCols) {
    launch<T, false, kInverse, 1>(a, c, ctas);
  } else {
    switch (c.kc) {
      case 16:
        launch<T, true, kInverse, 16>(a, c, ctas);
        break;
      case 8:
        launch<T, true, kInverse, 8>(a, c, ctas);
        break;
      case 4:
        launch<T, true, kInverse, 4>(a, c, ctas);
        break;
      default:
        launch<T, true, kInverse, 2>(a, c, ctas);
        break;
    }
  }
}

// Returns the relative error (INFINITY: unwritten output, modified input, no plan).
template <class T>
double run(long long n, bool cols, bool inverse, bool ortho, long long lines_or_width, long long batch,
           std::mt19937_64& rng, bool in_place, bool compiled, bool dst, int shift = 0) {
  smooth::Args<T> a;
  std::vector<smooth::Pass> passes;
  // N with a prime factor above 13: smooth_lines_bluestein, FFT_N by Bluestein's through FFTs of L.
  long long len = n;
  if (!smooth::plan_passes(n, passes)) {
    len = smooth::bluestein_length<T>(n);
    if (compiled || len < 1 || !smooth::plan_passes(len, passes)) return INFINITY;
  }
  a.n = static_cast<int>(n);
  a.npass = static_cast<int>(passes.size());
  a.passes = passes.data();
  a.dn = smooth::FastDiv(static_cast<unsigned>(n));
  const smooth::Config c = smooth::config<T>(len, cols);
  if (c.pairs == 0) return INFINITY;
  const Tables<T> t(n, ortho, 1.0L, len);
  const smooth::BluesteinTables<T> bt = len != n ? smooth::bluestein_tables<T>(n, len) : smooth::BluesteinTables<T>{};
  if (len != n) {
    a.bl = static_cast<int>(len);
    a.chirp = bt.chirp.data();
    a.bfft = bt.bfft.data();
  }
  const long long total = cols ? batch * n * lines_or_width : lines_or_width * n;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // The data `shift` elements into its buffers (shift 1: not 16-byte aligned, the kernel's scalar loads and stores).
  std::vector<T> xb(static_cast<std::size_t>(total + shift)), yb(xb.size());
  for (T& v : xb) v = static_cast<T>(static_cast<float>(u(rng)));
  std::memset(yb.data(), 0xFF, yb.size() * sizeof(T));
  const std::vector<T> x0b = xb;
  T* const x = xb.data() + shift;
  T* const y = yb.data() + shift;
  const T* const x0 = x0b.data() + shift;
  a.fft_tw = t.fft_tw.data();
  a.tw = t.tw.data();
  a.fs = t.fs.data();
  a.ia = t.ia.data();
  a.pairs = c.pairs;
  a.dst = dst ? 1 : 0;
  a.in = x;
  a.out = in_place ? x : y;
  long long ctas;
  if (cols) {
    a.width = static_cast<int>(lines_or_width);
    a.n_tiles = static_cast<int>((lines_or_width + c.kc - 1) / c.kc);
    ctas = a.n_tiles * batch;
  } else {
    a.lines = lines_or_width;
    ctas = (lines_or_width + 2 * c.pairs - 1) / (2 * c.pairs);
  }
  if (!inverse) {
    if (cols)
      launch_kc<T, true, false>(a, c, ctas, compiled);
    else
      launch_kc<T, false, false>(a, c, ctas, compiled);
  } else {
    if (cols)
      launch_kc<T, true, true>(a, c, ctas, compiled);
    else
      launch_kc<T, false, true>(a, c, ctas, compiled);
  }
  const T* const out = in_place ? x : y;
  if (!in_place && std::memcmp(x0b.data(), xb.data(), xb.size() * sizeof(T)) != 0) return INFINITY;
  // Line l: rows: elements l*n + i; columns: (b, col) = (l / width, l % width), elements b*n*width + i*width + col.
  const long long nlines = cols ? batch * lines_or_width : lines_or_width;
  double err = 0, scale = 0;
  for (long long l = 0; l < nlines; ++l) {
    const auto idx = [&](long long i) {
      return cols ? (l / lines_or_width) * n * lines_or_width + i * lines_or_width + l % lines_or_width : l * n + i;
    };
    std::vector<LD> v(n);
    for (long long i = 0; i < n; ++i) v[i] = static_cast<LD>(x0[idx(i)]);
    const std::vector<LD> r = reference(v, n, inverse, ortho, dst);
    for (long long i = 0; i < n; ++i) {
      const double o = static_cast<double>(out[idx(i)]);
      if (std::isnan(o)) return INFINITY;
      err = std::max(err, static_cast<double>(std::fabs(o - r[i])));
      scale = std::max(scale, static_cast<double>(std::fabs(r[i])));
    }
  }
  return err / (scale > 0 ? scale : 1.0);
}

// `batch` matrices of n rows x width by the two kernels of kernels/dct2d/smooth_cols4.cuh (long smooth columns)
// against the 1-D definition down every column. Returns the relative error (INFINITY: unwritten output, modified
// input, no plan).
template <class T>
double run_cols4(long long n, bool inverse, bool ortho, bool dst, long long width, long long batch,
                 std::mt19937_64& rng, bool in_place) {
  using C = typename smooth::Cx<T>::type;
  const smooth::Cols4Config c = smooth::cols4_config<T>(n);
  std::vector<smooth::Pass> pa, pb;
  if (!c.ok || !smooth::plan_passes(c.na, pa) || !smooth::plan_passes(c.nb, pb)) return INFINITY;
  const Tables<T> t(n, ortho);
  const std::vector<C> wn = smooth::cols4_wn<T>(n), twa = smooth::fft_twiddles<T>(c.na),
                       twb = smooth::fft_twiddles<T>(c.nb);
  constexpr int kP = smooth::cols4_pairs<T>();
  const long long wp = (width + 1) / 2, tiles = (wp + kP - 1) / kP, total = batch * n * width;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> x(static_cast<std::size_t>(total)), y(x.size());
  for (T& v : x) v = static_cast<T>(static_cast<float>(u(rng)));
  std::memset(y.data(), 0xFF, y.size() * sizeof(T));
  std::vector<C> work(static_cast<std::size_t>(batch * n * wp));
  std::memset(work.data(), 0xFF, work.size() * sizeof(C));
  const std::vector<T> x0 = x;
  smooth::Cols4Args<T> a;
  a.wn = wn.data();
  a.tw = t.tw.data();
  a.fs = t.fs.data();
  a.ia = t.ia.data();
  a.tw_a = twa.data();
  a.passes_a = pa.data();
  a.npass_a = static_cast<int>(pa.size());
  a.tw_b = twb.data();
  a.passes_b = pb.data();
  a.npass_b = static_cast<int>(pb.size());
  a.n = static_cast<int>(n);
  a.na = c.na;
  a.nb = c.nb;
  a.width = static_cast<int>(width);
  a.wp = static_cast<int>(wp);
  a.groups = c.groups;
  a.dna = smooth::FastDiv(static_cast<unsigned>(c.na));
  a.dnb = smooth::FastDiv(static_cast<unsigned>(c.nb));
  a.dst = dst ? 1 : 0;
  a.work = work.data();
  a.in = x.data();
  a.out = in_place ? x.data() : y.data();
  const auto grid = [&](bool pass_a, auto kernel) {
    const int threads = pass_a ? c.threads_a : c.threads_b, smem = pass_a ? c.smem_a : c.smem_b;
    const long long gy = pass_a ? (c.na + c.groups - 1) / c.groups : c.nb / 2 + 1;
    blockDim = {static_cast<unsigned>(threads), 1, 1};
    for (long long z = 0; z < batch; ++z)
      for (long long yb = 0; yb < gy; ++yb)
        for (long long xb = 0; xb < tiles; ++xb) {
          blockIdx = {static_cast<unsigned>(xb), static_cast<unsigned>(yb), static_cast<unsigned>(z)};
          std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(smem));
          emu_run_cta(static_cast<unsigned>(threads), [&](unsigned) { kernel(a); });
        }
  };
  if (!inverse) {
    grid(true, smooth::smooth_cols4_a<T, kP, false>);
    grid(false, smooth::smooth_cols4_b<T, kP, false>);
  } else {
    grid(false, smooth::smooth_cols4_b<T, kP, true>);
    grid(true, smooth::smooth_cols4_a<T, kP, true>);
  }
  const std::vector<T>& out = in_place ? x : y;
  if (!in_place && std::memcmp(x0.data(), x.data(), x.size() * sizeof(T)) != 0) return INFINITY;
  double err = 0, scale = 0;
  for (long long b = 0; b < batch; ++b)
    for (long long col = 0; col < width; ++col) {
      const long long base = b * n * width + col;
      std::vector<LD> v(n);
      for (long long i = 0; i < n; ++i) v[i] = static_cast<LD>(x0[base + i * width]);
      const std::vector<LD> r = reference(v, n, inverse, ortho, dst);
      for (long long i = 0; i < n; ++i) {
        const double o = static_cast<double>(out[base + i * width]);
        if (std::isnan(o)) return INFINITY;
        err = std::max(err, static_cast<double>(std::fabs(o - r[i])));
        scale = std::max(scale, static_cast<double>(std::fabs(r[i])));
      }
    }
  return err / (scale > 0 ? scale : 1.0);
}

// `batch` matrices of h x w by smooth_tiles (kernels/dct2d/smooth_tiles.cuh) against the 2-D definition: the 1-D
// reference along every row (DST if dst has kFlipAxis1), then down every column (DST if kFlipAxis0), times the axis
// scales s0 (columns) and s1 (rows). Returns the relative error (INFINITY: unwritten output, modified input, no plan).
template <class T>
double run_tiles(long long h, long long w, bool inverse, bool ortho, unsigned dst, LD s0, LD s1, long long batch,
                 std::mt19937_64& rng, bool in_place, bool compiled) {
  const smooth::TileConfig c = smooth::tile_config<T>(h, w);
  std::vector<smooth::Pass> pw, ph;
  if (c.threads == 0 || !smooth::plan_passes(w, pw) || !smooth::plan_passes(h, ph)) return INFINITY;
  const Tables<T> tw(w, ortho, s1), th(h, ortho, s0);
  smooth::TileArgs<T> a;
  const auto axis = [](const Tables<T>& t, const std::vector<smooth::Pass>& p, long long n) {
    smooth::TileAxis<T> x;
    x.fft_tw = t.fft_tw.data();
    x.tw = t.tw.data();
    x.fs = t.fs.data();
    x.ia = t.ia.data();
    x.passes = p.data();
    x.npass = static_cast<int>(p.size());
    x.n = static_cast<int>(n);
    return x;
  };
  a.rows = axis(tw, pw, w);
  a.cols = axis(th, ph, h);
  a.dw = smooth::FastDiv(static_cast<unsigned>(w));
  a.dh = smooth::FastDiv(static_cast<unsigned>(h));
  a.dst = dst;
  const long long hw = h * w;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> x(static_cast<std::size_t>(batch * hw)), y(x.size());
  for (T& v : x) v = static_cast<T>(static_cast<float>(u(rng)));
  std::memset(y.data(), 0xFF, y.size() * sizeof(T));
  const std::vector<T> x0 = x;
  a.in = x.data();
  a.out = in_place ? x.data() : y.data();
  blockDim = {static_cast<unsigned>(c.threads), 1, 1};
  for (long long b = 0; b < batch; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(c.smem_bytes));
    const auto cta = [&](auto kernel) { emu_run_cta(static_cast<unsigned>(c.threads), [&](unsigned) { kernel(a); }); };
    if (!compiled)
      inverse ? cta(smooth::smooth_tiles<T, true>) : cta(smooth::smooth_tiles<T, false>);
    else if (!(inverse ? smooth::with_compiled_tile<T, true>(h, w, cta) : smooth::with_compiled_tile<T, false>(h, w, cta)))
      return INFINITY;
  }
  const std::vector<T>& out = in_place ? x : y;
  if (!in_place && std::memcmp(x0.data(), x.data(), x.size() * sizeof(T)) != 0) return INFINITY;
  double err = 0, scale = 0;
  for (long long b = 0; b < batch; ++b) {
    std::vector<LD> m(static_cast<std::size_t>(hw));
    for (long long i = 0; i < hw; ++i) m[i] = static_cast<LD>(x0[b * hw + i]);
    for (long long r = 0; r < h; ++r) {
      const std::vector<LD> v(m.begin() + r * w, m.begin() + (r + 1) * w);
      const std::vector<LD> o = reference(v, w, inverse, ortho, (dst & 2u) != 0);
      for (long long k = 0; k < w; ++k) m[r * w + k] = o[k] * s1;
    }
    for (long long col = 0; col < w; ++col) {
      std::vector<LD> v(h);
      for (long long r = 0; r < h; ++r) v[r] = m[r * w + col];
      const std::vector<LD> o = reference(v, h, inverse, ortho, (dst & 1u) != 0);
      for (long long r = 0; r < h; ++r) m[r * w + col] = o[r] * s0;
    }
    for (long long i = 0; i < hw; ++i) {
      const double o = static_cast<double>(out[b * hw + i]);
      if (std::isnan(o)) return INFINITY;
      err = std::max(err, static_cast<double>(std::fabs(o - m[i])));
      scale = std::max(scale, static_cast<double>(std::fabs(m[i])));
    }
  }
  return err / (scale > 0 ? scale : 1.0);
}

// Max |out − Y| ÷ max |Y| over `lines` lines of n points, Y = σ Σ x_j cos(π(2j+1)(2k+1)/4N) in long double from the
// input x0; INFINITY where an output is NaN (unwritten).
template <class T>
double dct4_error(const std::vector<T>& x0, const std::vector<T>& out, long long lines, long long n, LD sig) {
  double err = 0, scale = 0;
  for (long long l = 0; l < lines; ++l)
    for (long long k = 0; k < n; ++k) {
      LD r = 0;
      for (long long j = 0; j < n; ++j) r += x0[l * n + j] * std::cos(kPi * (2 * j + 1) * (2 * k + 1) / (4.0L * n));
      r *= sig;
      const double o = static_cast<double>(out[l * n + k]);
      if (std::isnan(o)) return INFINITY;
      err = std::max(err, static_cast<double>(std::fabs(o - r)));
      scale = std::max(scale, static_cast<double>(std::fabs(r)));
    }
  return err / (scale > 0 ? scale : 1.0);
}

// DCT-IV rows of 2M points by smooth_dct4_rows (tables as kernels/dct4/fft.cu builds them; σ = 2, or √(2/N) ortho)
// against the long-double definition Y_k = σ Σ x_n cos(π(2n+1)(2k+1)/4N). INFINITY: unwritten output or no plan.
template <class T>
double run_dct4(long long m, bool ortho, std::mt19937_64& rng, bool in_place, int shift = 0) {
  using C = typename smooth::Cx<T>::type;
  const long long n = 2 * m;
  smooth::Args<T> a;
  std::vector<smooth::Pass> passes;
  if (!smooth::plan_passes(m, passes)) return INFINITY;
  const smooth::Config c = smooth::config<T>(m, false);
  if (c.pairs == 0) return INFINITY;
  const long long lines = 2 * c.pairs + 1;  // two full CTAs and one line
  const LD sig = ortho ? std::sqrt(2.0L / n) : 2.0L;
  std::vector<C> pre(m), post(m);
  for (long long k = 0; k < m; ++k) {
    const LD th = -kPi * (4 * k + 1) / (4.0L * n), ph = -kPi * k / static_cast<LD>(n);
    pre[k] = C{static_cast<T>(sig * std::cos(th)), static_cast<T>(sig * std::sin(th))};
    post[k] = C{static_cast<T>(std::cos(ph)), static_cast<T>(std::sin(ph))};
  }
  const std::vector<C> fft_tw = smooth::fft_twiddles<T>(m);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // The lines `shift` elements into their buffers (shift 1: not 16-byte aligned, the scalar loads and stores).
  std::vector<T> xb(static_cast<std::size_t>(lines * n + shift)), yb(xb.size());
  for (T& v : xb) v = static_cast<T>(static_cast<float>(u(rng)));
  std::memset(yb.data(), 0xFF, yb.size() * sizeof(T));
  const std::vector<T> x0(xb.begin() + shift, xb.end());
  a.n = static_cast<int>(m);
  a.npass = static_cast<int>(passes.size());
  a.passes = passes.data();
  a.dn = smooth::FastDiv(static_cast<unsigned>(m));
  a.dn2 = smooth::FastDiv(static_cast<unsigned>(n));
  a.fft_tw = fft_tw.data();
  a.tw = pre.data();
  a.post = post.data();
  a.pairs = c.pairs;
  a.lines = lines;
  a.in = xb.data() + shift;
  a.out = (in_place ? xb.data() : yb.data()) + shift;
  blockDim = {static_cast<unsigned>(c.threads), 1, 1};
  for (long long b = 0; b < (lines + c.pairs - 1) / c.pairs; ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(c.smem_bytes));
    emu_run_cta(static_cast<unsigned>(c.threads), [&](unsigned) { smooth::smooth_dct4_rows<T>(a); });
  }
  const std::vector<T>& ob = in_place ? xb : yb;
  return dct4_error(x0, std::vector<T>(ob.begin() + shift, ob.end()), lines, n, sig);
}

// DCT-IV rows of odd N by smooth_dct4_odd_rows (tables from smooth::dct4_odd_tables, as kernels/dct4/fft.cu's), `lines`
// real lines, against the long-double definition. INFINITY: unwritten output or no plan.
// N with a prime factor above 13: smooth_dct4_odd_rows_bluestein through FFTs of bluestein_length(N), as
// kernels/dct4/fft.cu takes it.
template <class T>
double run_dct4_odd(long long n, bool ortho, long long lines, std::mt19937_64& rng, bool in_place) {
  std::vector<smooth::Pass> passes;
  const bool bl = !smooth::plan_passes(n, passes);
  const long long len = bl ? smooth::bluestein_length<T>(n) : n;
  if (bl && !smooth::plan_passes(len, passes)) return INFINITY;
  const smooth::Config c = smooth::config<T>(len, false);
  if (c.pairs == 0) return INFINITY;
  const LD sig = ortho ? std::sqrt(2.0L / n) : 2.0L;
  const smooth::Dct4OddTables<T> t = smooth::dct4_odd_tables<T>(static_cast<int>(n), sig);
  const auto fft_tw = smooth::fft_twiddles<T>(len);
  const smooth::BluesteinTables<T> bt = bl ? smooth::bluestein_tables<T>(n, len) : smooth::BluesteinTables<T>{};
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> x(static_cast<std::size_t>(lines * n)), y(x.size());
  for (T& v : x) v = static_cast<T>(static_cast<float>(u(rng)));
  std::memset(y.data(), 0xFF, y.size() * sizeof(T));
  const std::vector<T> x0 = x;
  smooth::Args<T> a;
  a.n = static_cast<int>(n);
  a.npass = static_cast<int>(passes.size());
  a.passes = passes.data();
  a.dn = smooth::FastDiv(static_cast<unsigned>(n));
  a.fft_tw = fft_tw.data();
  a.perm = t.dst.data();
  a.fidx = t.f.data();
  a.fs = t.cr.data();
  a.ia = t.ci.data();
  a.pairs = c.pairs;
  a.lines = lines;
  a.in = x.data();
  a.out = in_place ? x.data() : y.data();
  if (bl) {
    a.bl = static_cast<int>(len);
    a.chirp = bt.chirp.data();
    a.bfft = bt.bfft.data();
  }
  blockDim = {static_cast<unsigned>(c.threads), 1, 1};
  for (long long b = 0; b < (lines + 2 * c.pairs - 1) / (2 * c.pairs); ++b) {
    blockIdx = {static_cast<unsigned>(b), 0, 0};
    std::memset(smooth::smooth_smem, 0xFF, static_cast<std::size_t>(c.smem_bytes));
    emu_run_cta(static_cast<unsigned>(c.threads), [&](unsigned) {
      if (bl)
        smooth::smooth_dct4_odd_rows_bluestein<T>(a);
      else
        smooth::smooth_dct4_odd_rows<T>(a);
    });
  }
  return dct4_error(x0, in_place ? x : y, lines, n, sig);
}

}  // namespace

int main() {
  std::mt19937_64 rng(2026);
  // FastDiv: every divisor up to 2^14 on edge and random numerators below 2^31.
  for (unsigned d = 1; d <= (1u << 14); ++d) {
    const smooth::FastDiv f(d);
    for (unsigned q : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, 2 * d, (1u << 31) - 1, static_cast<unsigned>(rng() >> 33),
                       static_cast<unsigned>(rng() >> 45)})
      if (f.div(q) != q / d) {
        std::printf("FAIL FastDiv(%u).div(%u) = %u, not %u\n", d, q, f.div(q), q / d);
        return 1;
      }
  }
  // Every radix alone, mixed lengths, odd N, and the image sizes' factors (1080 = 8*27*5, 1920 = 8*16*15, 1000);
  // the lengths of smooth::CompiledLengths among them also through their compiled kernels (240, 360, 720, 1080;
  // not 1000, whose reference sums cost the most and whose kernel is the same template); lengths with a prime factor
  // above 13 through Bluestein's FFT (smooth_lines_bluestein, FFTs of a smooth L >= 2N − 1: short ones for 17, 19 and
  // 34, several passes for 127 and 254).
  const long long sizes[] = {1,  2,   3,   4,   5,   6,   7,   8,   9,   11,  12,  13,   15,   16, 17, 19, 21,  30,
                             34, 45,  64,  77,  100, 120, 127, 143, 169, 175, 240, 243,  254, 270, 360, 375, 500,
                             720, 1000, 1080};
  int failed = 0, cases = 0;
  for (long long n : sizes)
    for (int compiled = 0; compiled <= (smooth::compiled(n) && n != 1000 ? 1 : 0); ++compiled)
    for (int prec = 0; prec < 2; ++prec)
      for (int cols = 0; cols < 2; ++cols)
        for (int inv = 0; inv < 2; ++inv) {
          const bool ortho = (n + inv + cols) % 2 == 0;
          const bool in_place = (n + prec) % 3 == 0;
          const bool dst = (n + cols + prec) % 3 == 1;  // the DST-II / DST-III lines
          // rows: 2·P·2 + 1 lines (two CTAs and a last one with one line), in half of the cases one element off
          // 16-byte alignment (the scalar loads and stores; aligned lines of N a multiple of 16 bytes take the vector
          // ones); columns: widths with a partial tile, one odd (scalar) and one a multiple of 16 bytes (vector).
          const smooth::Config c = prec ? smooth::config<double>(n, cols) : smooth::config<float>(n, cols);
          const long long vec = prec ? 2 : 4;
          const int shift = cols ? 0 : static_cast<int>((n / 2 + prec + inv) % 2);
          for (const long long extent :
               cols ? std::vector<long long>{2 * c.kc + 3, 2 * c.kc + vec} : std::vector<long long>{4 * c.pairs + 1}) {
            const long long batch = cols ? 2 : 1;
            const double err =
                prec ? run<double>(n, cols, inv, ortho, extent, batch, rng, in_place, compiled, dst, shift)
                     : run<float>(n, cols, inv, ortho, extent, batch, rng, in_place, compiled, dst, shift);
            const double tol = prec ? 1e-12 : 2e-6 * std::log2(2.0 * n) + 1e-6;
            const bool ok = err <= tol;
            ++cases;
            if (!ok) ++failed;
            if (!ok || n >= 720 || compiled || (n == 17 || n == 127))
              std::printf("%s N=%lld %s %s %s %s %s%s%s extent %lld%s: rel err %.3g (tol %.1g)\n", ok ? "ok  " : "FAIL",
                          n, prec ? "f64" : "f32", cols ? "cols" : "rows", dst ? "DST" : "DCT",
                          inv ? "inverse" : "forward", ortho ? "ortho" : "none", in_place ? " in place" : "",
                          compiled ? " compiled" : "", extent, shift ? " unaligned" : "", err, tol);
          }
        }
  // Long columns in two kernels (smooth_cols4): splits with equal and unequal factors, odd and even na, nb (the
  // partner groups k2, nb − k2 and the self-paired nb/2), every radix; widths of one column, odd widths (the last pair
  // with one real column), a partial tile of pairs and two tiles; batch 2; DST; in place.
  {
    int k = 0;
    for (long long n : {4, 12, 35, 77, 100, 143, 210, 243, 1134})
      for (int prec = 0; prec < 2; ++prec)
        for (int inv = 0; inv < 2; ++inv) {
          ++k;
          const bool ortho = (k * 5 / 4) % 2 == 0, dst = k % 3 == 1, in_place = k % 4 == 2;
          const long long width = prec ? std::vector<long long>{1, 7, 21, 40}[(k / 4 + k) % 4]
                                       : std::vector<long long>{1, 9, 37, 70}[(k / 4 + k) % 4];
          const double err = prec ? run_cols4<double>(n, inv, ortho, dst, width, 2, rng, in_place)
                                  : run_cols4<float>(n, inv, ortho, dst, width, 2, rng, in_place);
          const double tol = prec ? 1e-12 : 2e-6 * std::log2(2.0 * n) + 1e-6;
          const smooth::Cols4Config c = prec ? smooth::cols4_config<double>(n) : smooth::cols4_config<float>(n);
          ++cases;
          if (!(err <= tol)) ++failed;
          std::printf("%s cols4 N=%lld (%d x %d, G %d) %s %s %s %s width %lld%s: rel err %.3g (tol %.1g)\n",
                      err <= tol ? "ok  " : "FAIL", n, c.na, c.nb, c.groups, prec ? "f64" : "f32", dst ? "DST" : "DCT",
                      inv ? "inverse" : "forward", ortho ? "ortho" : "none", width, in_place ? " in place" : "", err,
                      tol);
        }
  }
  // DCT-IV rows (smooth_dct4_rows, cuda-dct4-fft's route for even N whose half is smooth and not a power of two).
  for (long long m : {1, 3, 5, 6, 7, 12, 13, 15, 50, 77, 143, 500})
    for (int prec = 0; prec < 2; ++prec) {
      const bool ortho = m % 2 == 1, in_place = prec == 1;
      // One element off 16-byte alignment in half of the cases: the scalar loads and stores of lengths that also
      // take the 16-byte ones.
      const int shift = static_cast<int>((m / 2 + prec) % 2);
      const double err =
          prec ? run_dct4<double>(m, ortho, rng, in_place, shift) : run_dct4<float>(m, ortho, rng, in_place, shift);
      const double tol = prec ? 1e-12 : 2e-6 * std::log2(4.0 * m) + 1e-6;
      ++cases;
      if (!(err <= tol)) ++failed;
      std::printf("%s DCT-IV N=%lld %s%s%s: rel err %.3g (tol %.1g)\n", err <= tol ? "ok  " : "FAIL", 2 * m,
                  prec ? "f64" : "f32", in_place ? " in place" : "", shift ? " unaligned" : "", err, tol);
    }
  // DCT-IV rows of odd N (smooth_dct4_odd_rows, cuda-dct4-fft's route for odd N > 1 of prime factors 3 .. 13): full
  // CTAs and a last one with an odd number of lines (its last complex line half empty), and one line alone.
  // N with a prime factor above 13 through Bluestein's FFTs (17 = prime, 19·… , 1023 = 3·11·31, 4097 = 17·241).
  for (long long n : {3, 5, 7, 9, 11, 13, 15, 21, 45, 63, 105, 143, 375, 1001, 17, 19, 23, 51, 127, 289, 1023, 4097})
    for (int prec = 0; prec < 2; ++prec) {
      const bool ortho = n % 4 == 1, in_place = prec == (n % 3 == 0 ? 0 : 1);
      std::vector<smooth::Pass> passes;
      const long long len = smooth::plan_passes(n, passes)
                                ? n
                                : (prec ? smooth::bluestein_length<double>(n) : smooth::bluestein_length<float>(n));
      const smooth::Config c = prec ? smooth::config<double>(len, false) : smooth::config<float>(len, false);
      if (c.pairs == 0) continue;  // no Bluestein length fits a CTA (f64 4097): cuda-dct4-fft takes cuFFT's passes
      for (long long lines : {4LL * c.pairs + 3, 1LL}) {
        const double err = prec ? run_dct4_odd<double>(n, ortho, lines, rng, in_place)
                                : run_dct4_odd<float>(n, ortho, lines, rng, in_place);
        const double tol = prec ? 1e-12 : 2e-6 * std::log2(2.0 * n) + 1e-6;
        ++cases;
        if (!(err <= tol)) ++failed;
        std::printf("%s DCT-IV odd N=%lld %s %lld lines%s: rel err %.3g (tol %.1g)\n", err <= tol ? "ok  " : "FAIL", n,
                    prec ? "f64" : "f32", lines, in_place ? " in place" : "", err, tol);
      }
    }
  // 2-D tiles (smooth_tiles): odd, prime, one-row and one-column matrices, every DST mask, scaled axes, in place;
  // the shapes of smooth::CompiledTiles among them also through smooth_tiles_ct (but 128 x 128: its 1024-thread CTAs
  // are slow to emulate, and the template is the same).
  const long long tiles[][2] = {{1, 1},   {1, 7},   {6, 1},   {2, 2},   {3, 5},   {7, 11},  {13, 12}, {8, 8},
                                {16, 16}, {16, 30}, {24, 20}, {45, 32}, {32, 32}, {9, 143}, {64, 40}, {64, 64}};
  int t = 0;
  for (const auto& hw : tiles)
    for (int compiled = 0; compiled <= (hw[0] == hw[1] && (hw[0] & (hw[0] - 1)) == 0 && hw[0] >= 8 ? 1 : 0);
         ++compiled)
    for (int prec = 0; prec < 2; ++prec)
      for (int inv = 0; inv < 2; ++inv) {
        ++t;
        const bool ortho = (t + t / 4) % 2 == 0, in_place = t % 3 == 0;
        const unsigned dst = static_cast<unsigned>(t % 4);
        const LD s0 = t % 5 == 0 ? 0.5L : 1.0L, s1 = t % 5 == 0 ? 3.0L : 1.0L;
        const double err = prec ? run_tiles<double>(hw[0], hw[1], inv, ortho, dst, s0, s1, 3, rng, in_place, compiled)
                                : run_tiles<float>(hw[0], hw[1], inv, ortho, dst, s0, s1, 3, rng, in_place, compiled);
        const double tol = prec ? 1e-12 : 2e-6 * std::log2(2.0 * static_cast<double>(hw[0] * hw[1])) + 1e-6;
        ++cases;
        if (!(err <= tol)) ++failed;
        std::printf("%s tiles %lldx%lld %s %s %s dst %u%s%s%s: rel err %.3g (tol %.1g)\n",
                    err <= tol ? "ok  " : "FAIL", hw[0], hw[1], prec ? "f64" : "f32", inv ? "inverse" : "forward",
                    ortho ? "ortho" : "none", dst, s0 != 1.0L ? " scaled" : "", in_place ? " in place" : "",
                    compiled ? " compiled" : "", err, tol);
      }
  std::printf("emulate_smooth: %d cases, %d failed\n", cases, failed);
  return failed == 0 ? 0 : 1;
}
