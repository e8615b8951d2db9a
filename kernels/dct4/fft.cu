/* cuda-dct4-fft: batched DCT-IV of any length N along rows, columns or both (scipy dct type 4,
   Y_k = σ Σ_n x_n cos(π(2n+1)(2k+1)/4N), σ = 2 (none), √(2/N) (ortho), 1/N for the inverse of none;
   docs/algorithms.md §6).
   Each axis is three passes, each one read and one write of the data: pre-pass kernel, cuFFT, post-pass.

   Even N (M = N/2), the classical complex half-length algorithm:
     z_n = (x_{2n} + i x_{N-1-2n}) · σ e^{-iπ(4n+1)/4N},  n = 0..M-1         (pre-pass: pairs + twiddle)
     Z = FFT_M(z)                                                           (cuFFT C2C, in place)
     u_k = Z_k e^{-iπk/N};  Y_{2k} = Re u_k,  Y_{N-1-2k} = -Im u_k           (post-pass)
   Proof: Re[e^{-iπ(2k'+1)... }] expands to the two cosine sums of the even and the reversed odd samples;
   the tests check it against the definition for N = 2 .. 4096.

   Odd N (Chan & Ho's map, as FFTW's reodft11e-r2hc-odd): no twiddles at all. With a = 2n+1, b = 2k+1 odd,
   the angle πab/4N = 2π·ab/8N, and Z_{8N} = Z_8 × Z_N (gcd(8, N) = 1, Good-Thomas):
     2π ab/8N ≡ (π/4)·u·(ab mod 8) + 2π v (ab mod N)/N,   u = N^{-1} mod 8, v = 8^{-1} mod N.
   The first term is an odd multiple of π/4, so cos(πab/4N) = [ε_c(u·ab) cos φ - ε_s(u·ab) sin φ]/√2,
   φ = 2π v (a mod N)(b mod N)/N, with the characters ε_c(r) = + for r ≡ ±1 (mod 8), ε_s(r) = + for
   r ≡ 1, 3 (mod 8) (both multiplicative on the odd residues). As n runs over 0..N-1, a mod N runs over Z_N
   once; the cosine sum only sees the even part and the sine sum only the odd part of a sequence on Z_N,
   so one real sequence q carries both: q(r) = [p_c(r) + p_c(-r) + p_s(r) - p_s(-r)]/2 with p_c = ε_c x,
   p_s = ε_s x. Because a and 2N - a (the residue -r) have opposite classes mod 4, exactly one term survives:
     q(a mod N) = ε_c(a) x_n           if a ≡ 1 (mod 4)
     q(-a mod N) = -x_n (a ≡ 3 mod 8), +x_n (a ≡ 7 mod 8)                  (pre-pass: a signed permutation)
     Q = FFT_N(q)                                                           (two lines per cuFFT C2C / Z2Z)
     Y_k = σ/√2 [ε_c(u) ε_c(b) Re Q(f) + ε_s(u) ε_s(b) Im Q(f)],  f = v·b mod N (Q(f) = conj Q(N-f) above N/2)
   (post-pass: a gather with two coefficients per output). Lines 2p and 2p+1 are the real and imaginary parts of one
   complex FFT of N points, Q_2p(f) = [Z(f) + conj Z(N−f)]/2, Q_2p+1(f) = [Z(f) − conj Z(N−f)]/2i: a C2C of half the
   batch takes 0.57–1.07 (mostly below 0.9) of cuFFT's odd-length R2C of every line (docs/decisions.md §10). N = 1
   skips the FFT. Rows of odd N > 1 whose prime factors are 3 .. 13: the three steps in one kernel
   (smooth_dct4_odd_rows in kernels/dct2d/smooth.cuh); rows of other odd N > 1: the same kernel with FFT_N by
   Bluestein's chirp convolution through two FFTs of a smooth length L >= 2N − 1 (smooth_dct4_odd_rows_bluestein),
   where that measured faster than cuFFT (smooth::bluestein_pays: N's largest prime factor 47 .. 127, or above 127 in
   lines of more than 16 KiB) and L fits a CTA's shared memory.

   Single pass (always, for rows with N = 2M, M = 2^p, 4 <= M <= 2048; kernels/dct4/rows.cuh): the three
   steps of the even case in one kernel, one read and one write of the data: a fixed-size (M a template
   parameter) Stockham FFT with 8 or 16 complex values per thread in registers (one barrier per shared pass; M <= 16:
   one line per thread, the CTA's lines staged through shared memory by coalesced 16-byte chunks),
   z_n formed on the fly by its first pass from 8/16-byte coalesced loads (lane pairs swap the mirrored halves
   with a shuffle), the post-twiddle in registers, stores likewise; per-pass twiddle runs built here at plan
   time (rows_twiddles). The single pass against the three passes, and the single-pass kernels that were not
   kept: docs/decisions.md §1.2 and §3.2. Rows of other even N whose M has prime factors 2 .. 13 only: the same three
   steps in one kernel around the smooth-size FFT of kernels/dct2d/smooth.cuh (smooth_dct4_rows; docs/decisions.md §10).

   Layouts: rows use line-major workspaces and contiguous cuFFT batches; columns use slot-major workspaces
   (slot e of line l at e·L + l; odd N: of pair p at e·⌈L/2⌉ + p) and cuFFT batches of stride L (⌈L/2⌉), distance 1,
   so every pass is coalesced along the row. Axis both: rows pass in -> out, columns pass out -> out. Twiddles,
   permutation and coefficient tables are built in long double at plan time; cuFFT plans and the workspace are made once
   per plan. */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct2d/smooth.cuh"
#include "kernels/dct4/plans.cuh"
#include "kernels/dct4/rows.cuh"

namespace dct::cuda::dct4 {
namespace {

template <class T, class I>
__global__ void even_pre_kernel(const T* __restrict__ x, cx_t<T>* __restrict__ z, const cx_t<T>* __restrict__ tw,
                                LineMap<I> g, I m, I count) {
  for (I idx = blockIdx.x * I(blockDim.x) + threadIdx.x; idx < count; idx += I(gridDim.x) * blockDim.x) {
    I l, n;
    g.split(idx, m, l, n);
    const I base = g.elem(l, 0), st = g.stride();
    const T a = x[base + 2 * n * st], b = x[base + (g.n - 1 - 2 * n) * st];
    const cx_t<T> w = tw[n];
    z[g.ws(l, n, m)] = cx_t<T>{a * w.x - b * w.y, a * w.y + b * w.x};
  }
}

template <class T, class I>
__global__ void even_post_kernel(const cx_t<T>* __restrict__ z, T* __restrict__ y, const cx_t<T>* __restrict__ tw,
                                 LineMap<I> g, I m, I count) {
  for (I idx = blockIdx.x * I(blockDim.x) + threadIdx.x; idx < count; idx += I(gridDim.x) * blockDim.x) {
    I l, k;
    g.split(idx, m, l, k);
    const cx_t<T> v = z[g.ws(l, k, m)], w = tw[k];
    const I base = g.elem(l, 0), st = g.stride();
    y[base + 2 * k * st] = v.x * w.x - v.y * w.y;
    y[base + (g.n - 1 - 2 * k) * st] = -(v.x * w.y + v.y * w.x);
  }
}

// Odd N through cuFFT: lines 2p and 2p + 1 as the real and imaginary parts of complex line p of the workspace (gp: the
// pairs' layout, ceil(L/2) lines of N slots), signed-permuted: z_p(r) = ±x_2p(|src[r]|) + i·(±x_2p+1(|src[r]|)) (src[r]
// = n, or ~n for −); a last line alone has zeros for its imaginary parts.
template <class T, class I>
__global__ void odd_pre_kernel(const T* __restrict__ x, cx_t<T>* __restrict__ z, const int* __restrict__ src,
                               LineMap<I> g, LineMap<I> gp, I count) {
  for (I idx = blockIdx.x * I(blockDim.x) + threadIdx.x; idx < count; idx += I(gridDim.x) * blockDim.x) {
    I p, r;
    gp.split(idx, g.n, p, r);
    const int s = src[r];
    const I e = I(s >= 0 ? s : ~s), l = 2 * p;
    const T a = x[g.elem(l, e)], b = l + 1 < g.lines ? x[g.elem(l + 1, e)] : T(0);
    z[gp.ws(p, r, g.n)] = s >= 0 ? cx_t<T>{a, b} : cx_t<T>{-a, -b};
  }
}

// Z = FFT_N(z): Q_a(f) = [Z(f) + conj Z(N−f)] / 2 and Q_b(f) = [Z(f) − conj Z(N−f)] / (2i) are the lines' real FFTs;
// y_k = 2 cr[k] Re Q(f_k) + 2 ci[k] Im Q(f_k) (cr, ci: smooth::dct4_odd_tables, which carry the 1/2).
template <class T, class I>
__global__ void odd_post_kernel(const cx_t<T>* __restrict__ z, T* __restrict__ y, const int* __restrict__ f,
                                const T* __restrict__ cr, const T* __restrict__ ci, LineMap<I> g, LineMap<I> gp,
                                I count) {
  for (I idx = blockIdx.x * I(blockDim.x) + threadIdx.x; idx < count; idx += I(gridDim.x) * blockDim.x) {
    I l, k;
    g.split(idx, g.n, l, k);
    const I p = l / 2, fk = I(f[k]);
    const cx_t<T> a = z[gp.ws(p, fk, g.n)], b = z[gp.ws(p, fk == 0 ? I(0) : g.n - fk, g.n)];
    const T re = (l & 1) ? a.y + b.y : a.x + b.x, im = (l & 1) ? b.x - a.x : a.y - b.y;
    y[g.elem(l, k)] = cr[k] * re + ci[k] * im;
  }
}

template <class T>
cufftType c2c_type() {
  return std::is_same_v<T, float> ? CUFFT_C2C : CUFFT_Z2Z;
}

// One transformed axis: its tables, its cuFFT plan, its workspace needs.
template <class T>
class Pass {
 public:
  Pass(i64 n, i64 lines, i64 width, bool cols, double sig) : n_(n), lines_(lines), width_(width), cols_(cols) {
    const i64 L = lines;
    if (n % 2 == 0) {
      const i64 m = n / 2;
      const PrePost<T> pp = rows_pre_post<T>(n, sig);
      tab_a_ = upload_table(pp.pre);
      tab_b_ = upload_table(pp.post);
      if (!cols && m >= kRowsMinM && m <= kRowsMaxM && (m & (m - 1)) == 0) {
        while ((i64(1) << lgm_) < m) ++lgm_;
        rows_ = rows_launch<T>(lgm_);
        tab_i_ = upload_table(rows_twiddles<T>(lgm_));
        if (rows_.smem_bytes > 48 * 1024)
          DCT_CUDA_CHECK(cudaFuncSetAttribute(rows_.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, rows_.smem_bytes));
        return;
      }
      std::vector<smooth::Pass> sp;
      const smooth::Config sc = smooth::config<T>(m, false);
      if (!cols && m < (i64(1) << 24) && smooth::plan_passes(m, sp) && sc.pairs > 0) {  // one kernel (smooth.cuh)
        set_smooth(sp, m, n, L, sc);
        sm_.tw = tab_a_.as<const cx_t<T>>();
        sm_.post = tab_b_.as<const cx_t<T>>();
        // The attribute is the kernel's, shared by every plan that launches it: the largest any plan may ask for.
        DCT_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(&smooth::smooth_dct4_rows<T>),
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, smooth::kMaxSmem));
        return;
      }
      ws_cplx_ = m * L;
      if (m > 1) {
        long long nn[1] = {m}, emb[1] = {m};
        make_plan(nn, emb, cols ? L : 1, cols ? 1 : m, emb, cols ? L : 1, cols ? 1 : m, L, c2c_type<T>());
      }
    } else {
      const smooth::Dct4OddTables<T> ot = smooth::dct4_odd_tables<T>(static_cast<int>(n), sig);
      tab_j_ = upload_table(ot.f);
      tab_a_ = upload_table(ot.cr);
      tab_b_ = upload_table(ot.ci);
      // Rows of odd N > 1 in one kernel: FFT_N by the smooth passes (prime factors 3 .. 13), else by Bluestein's through
      // FFTs of a smooth L >= 2N − 1 where that measured faster than cuFFT (bluestein_pays) and L fits a CTA (f32
      // N <= 6823, f64 <= 3217).
      std::vector<smooth::Pass> sp;
      const bool one = !cols && n > 1 && n < (i64(1) << 22);
      const bool smooth_n = one && smooth::plan_passes(n, sp);
      const i64 len = smooth_n ? n : one && smooth::bluestein_pays<T>(n) ? smooth::bluestein_length<T>(n) : 0;
      const smooth::Config sc = len > 0 ? smooth::config<T>(len, false) : smooth::Config{};
      if (sc.pairs > 0 && (smooth_n || smooth::plan_passes(len, sp))) {
        tab_i_ = upload_table(ot.dst);
        set_smooth(sp, len, n, L, sc);
        sm_.n = static_cast<int>(n);
        sm_.dn = smooth::FastDiv(static_cast<unsigned>(n));
        const void* fn = reinterpret_cast<const void*>(&smooth::smooth_dct4_odd_rows<T>);
        if (!smooth_n) {
          sm_.bl = static_cast<int>(len);
          const smooth::BluesteinTables<T> bt = smooth::bluestein_tables<T>(n, len);
          bs_chirp_ = upload_table(bt.chirp);
          bs_fft_ = upload_table(bt.bfft);
          sm_.chirp = bs_chirp_.as<const cx_t<T>>();
          sm_.bfft = bs_fft_.as<const cx_t<T>>();
          fn = reinterpret_cast<const void*>(&smooth::smooth_dct4_odd_rows_bluestein<T>);
        }
        sm_.perm = tab_i_.as<const int>();
        sm_.fidx = tab_j_.as<const int>();
        sm_.fs = tab_a_.as<const T>();
        sm_.ia = tab_b_.as<const T>();
        sm_odd_ = true;
        DCT_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smooth::kMaxSmem));
        return;
      }
      tab_i_ = upload_table(ot.src);
      const i64 pairs = (L + 1) / 2;
      ws_cplx_ = n * pairs;
      if (n > 1) {
        long long nn[1] = {n}, emb[1] = {n};
        make_plan(nn, emb, cols ? pairs : 1, cols ? 1 : n, emb, cols ? pairs : 1, cols ? 1 : n, pairs, c2c_type<T>());
      }
    }
  }

  i64 ws_cplx() const { return ws_cplx_; }

  void run(const T* in, T* out, cx_t<T>* wc, cudaStream_t s) const {
    if (sm_threads_ > 0) {
      const i64 per_cta = sm_odd_ ? 2 * sm_.pairs : sm_.pairs;  // real lines (odd N) or complex lines (even N)
      const i64 ctas = (lines_ + per_cta - 1) / per_cta;
      if (ctas < 1) return;
      if (ctas >= (i64(1) << 31)) throw Error(ErrorCode::kUsage, "cuda-dct4-fft", "too many lines for one launch");
      smooth::Args<T> a = sm_;
      a.in = in;
      a.out = out;
      if (sm_.bl > 0)
        smooth::smooth_dct4_odd_rows_bluestein<T><<<static_cast<unsigned>(ctas), sm_threads_, sm_smem_, s>>>(a);
      else if (sm_odd_)
        smooth::smooth_dct4_odd_rows<T><<<static_cast<unsigned>(ctas), sm_threads_, sm_smem_, s>>>(a);
      else
        smooth::smooth_dct4_rows<T><<<static_cast<unsigned>(ctas), sm_threads_, sm_smem_, s>>>(a);
      DCT_CUDA_CHECK(cudaGetLastError());
      return;
    }
    if (rows_.fn != nullptr) {
      const i64 blocks = (lines_ + rows_.lines_per_cta - 1) / rows_.lines_per_cta;
      rows_.fn<<<static_cast<unsigned>(blocks), rows_.threads, rows_.smem_bytes, s>>>(
          in, out, tab_a_.as<const cx_t<T>>(), tab_b_.as<const cx_t<T>>(), tab_i_.as<const cx_t<T>>(),
          static_cast<int>(n_), lgm_, static_cast<long long>(lines_));
      DCT_CUDA_CHECK(cudaGetLastError());
      return;
    }
    const i64 top = (n_ + 2) * (lines_ + 1);
    if (top < (i64(1) << 31))
      run_as<unsigned>(in, out, wc, s);
    else
      run_as<unsigned long long>(in, out, wc, s);
  }

 private:
  // The smooth kernels' FFT of `len` points (passes `sp`), lines of `n` real points, `lines` of them, launch `sc`.
  void set_smooth(const std::vector<smooth::Pass>& sp, i64 len, i64 n, i64 lines, const smooth::Config& sc) {
    sm_passes_ = upload_table(sp);
    sm_tw_ = upload_table(smooth::fft_twiddles<T>(len));
    sm_.n = static_cast<int>(len);
    sm_.npass = static_cast<int>(sp.size());
    sm_.passes = sm_passes_.as<const smooth::Pass>();
    sm_.dn = smooth::FastDiv(static_cast<unsigned>(len));
    sm_.dn2 = smooth::FastDiv(static_cast<unsigned>(n));
    sm_.fft_tw = sm_tw_.as<const cx_t<T>>();
    sm_.pairs = sc.pairs;
    sm_.lines = lines;
    sm_threads_ = sc.threads;
    sm_smem_ = sc.smem_bytes;
  }

  void make_plan(long long* nn, long long* ie, long long is, long long id, long long* oe, long long os, long long od,
                 long long batch, cufftType type) {
    plan_ = std::make_unique<CufftPlan>();
    std::size_t work = 0;
    DCT_CUFFT_CHECK(cufftMakePlanMany64(plan_->get(), 1, nn, ie, is, id, oe, os, od, type, batch, &work));
  }

  template <class I>
  void run_as(const T* in, T* out, cx_t<T>* wc, cudaStream_t s) const {
    const LineMap<I> g{I(n_), I(lines_), I(width_), cols_};
    const dim3 block(256);
    if (n_ % 2 == 0) {
      const I m = I(n_ / 2);
      const i64 count = m * lines_;
      const dim3 grid(flat_blocks(count));
      DCT_LAUNCH((even_pre_kernel<T, I>), grid, block, s, in, wc, tab_a_.as<const cx_t<T>>(), g, m, I(count));
      if (plan_) {
        DCT_CUFFT_CHECK(cufftSetStream(plan_->get(), s));
        if constexpr (std::is_same_v<T, float>)
          DCT_CUFFT_CHECK(cufftExecC2C(plan_->get(), wc, wc, CUFFT_FORWARD));
        else
          DCT_CUFFT_CHECK(cufftExecZ2Z(plan_->get(), wc, wc, CUFFT_FORWARD));
      }
      DCT_LAUNCH((even_post_kernel<T, I>), grid, block, s, wc, out, tab_b_.as<const cx_t<T>>(), g, m, I(count));
    } else {
      const LineMap<I> gp{I(n_), I((lines_ + 1) / 2), I(width_), cols_};  // the pairs' workspace
      const i64 in_count = n_ * ((lines_ + 1) / 2), out_count = n_ * lines_;
      DCT_LAUNCH((odd_pre_kernel<T, I>), dim3(flat_blocks(in_count)), block, s, in, wc, tab_i_.as<const int>(), g, gp,
                 I(in_count));
      if (plan_) {
        DCT_CUFFT_CHECK(cufftSetStream(plan_->get(), s));
        if constexpr (std::is_same_v<T, float>)
          DCT_CUFFT_CHECK(cufftExecC2C(plan_->get(), wc, wc, CUFFT_FORWARD));
        else
          DCT_CUFFT_CHECK(cufftExecZ2Z(plan_->get(), wc, wc, CUFFT_FORWARD));
      }
      DCT_LAUNCH((odd_post_kernel<T, I>), dim3(flat_blocks(out_count)), block, s, static_cast<const cx_t<T>*>(wc), out,
                 tab_j_.as<const int>(), tab_a_.as<const T>(), tab_b_.as<const T>(), g, gp, I(out_count));
    }
  }

  i64 n_, lines_, width_;
  bool cols_;
  i64 ws_cplx_ = 0;
  RowsLaunch<T> rows_;  // the single-pass kernel (kernels/dct4/rows.cuh) when set: rows, N = 2M, M = 2^p in [4, 2048]
  int lgm_ = 0;         // log2 M for it
  // The smooth single-pass kernel (kernels/dct2d/smooth.cuh smooth_dct4_rows) when sm_threads_ > 0: rows, N = 2M, M of
  // prime factors 2 .. 13 other than the powers of two above
  smooth::Args<T> sm_;
  DeviceBuffer sm_passes_, sm_tw_;
  int sm_threads_ = 0, sm_smem_ = 0;
  bool sm_odd_ = false;  // rows of odd N: smooth_dct4_odd_rows (prime factors 3 .. 13), or with sm_.bl > 0
                         // smooth_dct4_odd_rows_bluestein (its chirp and B in bs_chirp_, bs_fft_)
  DeviceBuffer bs_chirp_, bs_fft_;
  DeviceBuffer tab_a_, tab_b_, tab_i_, tab_j_;
  std::unique_ptr<CufftPlan> plan_;  // null: length-1 FFT (identity)
};

template <class T>
class FftPlan final : public GpuPlan {
 public:
  explicit FftPlan(const core::TransformDesc& d) : GpuPlan(d, d.bytes(), d.bytes()) {
    const i64 h = d.shape.rows, w = d.shape.cols;
    if (d.axis != core::Axis::kCols) passes_.emplace_back(w, d.batch * h, w, false, sigma(d.op, d.norm, w));
    if (d.axis != core::Axis::kRows) passes_.emplace_back(h, d.batch * w, w, true, sigma(d.op, d.norm, h));
    i64 wc = 0;
    for (const auto& p : passes_) wc = std::max(wc, p.ws_cplx());
    wc_ = DeviceBuffer(sizeof(cx_t<T>) * wc);
  }

 private:
  void run(const void* in, void* out, cudaStream_t s) const override {
    const T* src = static_cast<const T*>(in);
    for (const auto& p : passes_) {
      p.run(src, static_cast<T*>(out), wc_.as<cx_t<T>>(), s);
      src = static_cast<const T*>(out);
    }
  }
  std::vector<Pass<T>> passes_;
  DeviceBuffer wc_;
};

}  // namespace

double sigma(core::Op op, core::Norm norm, i64 n) {
  if (norm == core::Norm::kOrtho) return std::sqrt(2.0 / static_cast<double>(n));
  return op == core::Op::kIdct4 ? 1.0 / static_cast<double>(n) : 2.0;
}

std::unique_ptr<core::Plan> make_fft_plan(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32) return std::make_unique<FftPlan<float>>(d);
  return std::make_unique<FftPlan<double>>(d);
}

}  // namespace dct::cuda::dct4
