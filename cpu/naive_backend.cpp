/* cpu-naive: the oracle. The direct definitions (README "Transform definitions and norms"), applied
   separably, in long double.

   1-D, length N, n, k = 0..N-1, written y = M x with C(m) = cos(π m / 4N):
     dct2   M[k][n] = w_k C(2k(2n+1))       none: w_k = 2             ortho: w_0 = √(1/N), w_k = √(2/N)
     idct2  M[n][k] = v_k C(2k(2n+1))       none: v_0 = 1/2N, v_k = 1/N   ortho: v_k = w_k (the transpose)
            (none: x_n = (X_0 + 2 Σ_{k>=1} X_k cos(π k(2n+1)/2N)) / 2N, the exact inverse of dct2 none)
     dct4   M[k][n] = u C((2k+1)(2n+1))     none: u = 2               ortho: u = √(2/N)
     idct4  the same with                   none: u = 1/N             ortho: u = √(2/N)
            (the cosine matrix S of DCT-IV satisfies S S = (N/2) I, so (2S)^-1 = S/N)
   C is 8N-periodic in m, so one table of 8N values, each computed from an argument reduced to [0, π/2]
   (cosl or sinl of π m' / 4N), serves every entry: exact symmetry, O(N) memory. Indices advance by a
   constant step modulo 8N. Rows of M are rebuilt per tile of input lines (O(N) each, amortized over the
   tile) rather than stored as an N x N matrix.

   2-D: the 1-D transform along rows (contiguous lines of length W), a transpose, along the former columns,
   and a transpose back. Block mode is the same with lines of length B: the rows of a B x B tile are
   consecutive B-long pieces of the matrix rows, and after a transpose its columns are too. Values are
   converted to long double on input and rounded once on output.

   The real-to-real family (op r2r; docs/algorithms.md, "The real-to-real family"), scipy.fft's definitions of
   the unnormalized kinds, 1-D, n points, k, j = 0..n-1, all as w_j · trig(π p / 4L) with an integer p:
     dct1  L = n-1  cos, p = 4kj,             w_j = 1 at j = 0 and j = n-1, else 2
     dct2  L = n    cos, p = 2k(2j+1),        w_j = 2
     dct3  L = n    cos, p = 2j(2k+1),        w_0 = 1, else 2
     dct4  L = n    cos, p = (2k+1)(2j+1),    w_j = 2
     dst1  L = n+1  sin, p = 4(k+1)(j+1),     w_j = 2
     dst2  L = n    sin, p = 2(k+1)(2j+1),    w_j = 2
     dst3  L = n    sin, p = 2(2k+1)(j+1),    w_{n-1} = 1, else 2
     dst4  L = n    sin, p = (2k+1)(2j+1),    w_j = 2
   (dct1's end term (-1)^k x_{n-1} is cos(πk), dst3's is sin(π(2k+1)/2).) One table of cos(π p / 4L) over a
   period of 8L serves cos and sin (sin θ = cos(θ - π/2), a shift of 2L). The norm is a factor per input and
   per output index (core/r2r.hpp). Each transformed axis in turn: gather its lines, apply the matrix, scatter. */
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/r2r.hpp"
#include "cpu/backends.hpp"
#include "cpu/common.hpp"

namespace dct::cpu {
namespace {

using core::Axis;
using core::Norm;
using core::Op;
using Real = long double;

constexpr std::string_view kName = "cpu-naive";
constexpr Real kPi = 3.141592653589793238462643383279502884L;

// The matrix M of one 1-D transform of length n (see above), one row at a time.
class Kernel1D {
 public:
  Kernel1D(Op op, Norm norm, std::int64_t n) : op_(op), n_(n), period_(8 * n), table_(static_cast<std::size_t>(8 * n)) {
    for (std::int64_t m = 0; m < period_; ++m) table_[m] = cos_quarter(m);
    const Real nn = static_cast<Real>(n);
    const bool ortho = norm == Norm::kOrtho;
    switch (op) {
      case Op::kDct2:
        w0_ = ortho ? std::sqrt(1 / nn) : 2;
        wk_ = ortho ? std::sqrt(2 / nn) : 2;
        break;
      case Op::kIdct2:
        w0_ = ortho ? std::sqrt(1 / nn) : 1 / (2 * nn);
        wk_ = ortho ? std::sqrt(2 / nn) : 1 / nn;
        break;
      case Op::kDct4:
        w0_ = wk_ = ortho ? std::sqrt(2 / nn) : 2;
        break;
      default:
        w0_ = wk_ = ortho ? std::sqrt(2 / nn) : 1 / nn;
        break;  // idct4
    }
  }

  std::int64_t size() const { return n_; }

  // m[0..n) = row `r` of M.
  void row(std::int64_t r, Real* m) const {
    std::int64_t idx, step;
    if (op_ == Op::kDct2) {  // C(2r(2j+1)): starts at 2r, steps 4r
      idx = (2 * r) % period_;
      step = (4 * r) % period_;
    } else if (op_ == Op::kIdct2) {  // C(2j(2r+1)): starts at 0, steps 2(2r+1)
      idx = 0;
      step = (2 * (2 * r + 1)) % period_;
    } else {  // C((2r+1)(2j+1)): starts at 2r+1, steps 2(2r+1)
      idx = (2 * r + 1) % period_;
      step = (2 * (2 * r + 1)) % period_;
    }
    for (std::int64_t j = 0; j < n_; ++j) {
      const Real w = (op_ == Op::kDct2 ? r : j) == 0 ? w0_ : wk_;  // dct2 weighs by output, idct2 by input
      m[j] = w * table_[idx];
      idx += step;
      if (idx >= period_) idx -= period_;
    }
  }

 private:
  // cos(π m / 4N) for 0 <= m < 8N, from an argument in [0, π/4] (cosl) or (π/4, π/2] (sinl).
  Real cos_quarter(std::int64_t m) const {
    const std::int64_t n4 = 4 * n_, n2 = 2 * n_;
    if (m > n4) m = 2 * n4 - m;  // cos(2π - a) = cos(a)
    Real sign = 1;
    if (m > n2) m = n4 - m, sign = -1;  // cos(π - a) = -cos(a)
    if (m == n2) return 0;
    if (2 * m <= n2) return sign * std::cos(kPi * static_cast<Real>(m) / static_cast<Real>(n4));
    return sign * std::sin(kPi * static_cast<Real>(n2 - m) / static_cast<Real>(n4));
  }

  Op op_;
  std::int64_t n_, period_;
  Real w0_ = 1, wk_ = 1;
  std::vector<Real> table_;
};

// out[l][k] = Σ_j M[k][j] in[l][j] for `lines` contiguous lines of length K.size().
void apply_lines(const Real* in, Real* out, std::int64_t lines, const Kernel1D& kernel) {
  const std::int64_t n = kernel.size();
  // Lines per tile: about 256 KiB of input, a multiple of 4 (the accumulators below).
  std::int64_t tile = (256 * 1024) / (static_cast<std::int64_t>(sizeof(Real)) * n);
  tile = std::max<std::int64_t>(4, std::min<std::int64_t>(64, tile / 4 * 4));
  const std::int64_t tiles = (lines + tile - 1) / tile;
#pragma omp parallel num_threads(detail::thread_count()) if (lines * n * n >= (1 << 16))
  {
    std::vector<Real> m(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic)
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::int64_t l0 = t * tile, l1 = std::min(lines, l0 + tile);
      for (std::int64_t k = 0; k < n; ++k) {
        kernel.row(k, m.data());
        const Real* c = m.data();
        std::int64_t l = l0;
        for (; l + 4 <= l1; l += 4) {
          const Real *x0 = in + l * n, *x1 = x0 + n, *x2 = x1 + n, *x3 = x2 + n;
          Real a0 = 0, a1 = 0, a2 = 0, a3 = 0;
          for (std::int64_t j = 0; j < n; ++j) {
            const Real cj = c[j];
            a0 += cj * x0[j];
            a1 += cj * x1[j];
            a2 += cj * x2[j];
            a3 += cj * x3[j];
          }
          out[l * n + k] = a0;
          out[(l + 1) * n + k] = a1;
          out[(l + 2) * n + k] = a2;
          out[(l + 3) * n + k] = a3;
        }
        for (; l < l1; ++l) {
          const Real* x = in + l * n;
          Real a = 0;
          for (std::int64_t j = 0; j < n; ++j) a += c[j] * x[j];
          out[l * n + k] = a;
        }
      }
    }
  }
}

// out[b] = in[b]^T for `batch` h x w matrices.
void transpose(const Real* in, Real* out, std::int64_t batch, std::int64_t h, std::int64_t w) {
  constexpr std::int64_t kT = 32;
  for (std::int64_t b = 0; b < batch; ++b) {
    const Real* src = in + b * h * w;
    Real* dst = out + b * h * w;
    for (std::int64_t i0 = 0; i0 < h; i0 += kT)
      for (std::int64_t j0 = 0; j0 < w; j0 += kT)
        for (std::int64_t i = i0; i < std::min(h, i0 + kT); ++i)
          for (std::int64_t j = j0; j < std::min(w, j0 + kT); ++j) dst[j * h + i] = src[i * w + j];
  }
}

template <class T>
void load(const void* src, Real* dst, std::int64_t n) {
  const T* s = static_cast<const T*>(src);
  for (std::int64_t i = 0; i < n; ++i) dst[i] = s[i];
}

template <class T>
void store(const Real* src, void* dst, std::int64_t n) {
  T* d = static_cast<T*>(dst);
  for (std::int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(src[i]);
}

class NaivePlan final : public core::Plan {
 public:
  explicit NaivePlan(const core::TransformDesc& d)
      : desc_(d),
        along_rows_(d.op, d.norm, d.block > 0 ? d.block : d.shape.cols),
        along_cols_(d.op, d.norm, d.block > 0 ? d.block : d.shape.rows) {}

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    detail::check_views(kName, desc_, in, out);
    const std::int64_t n = desc_.elements(), h = desc_.shape.rows, w = desc_.shape.cols, batch = desc_.batch;
    std::vector<Real> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    if (desc_.prec == core::Precision::kF32)
      load<float>(in.data, a.data(), n);
    else
      load<double>(in.data, a.data(), n);
    // Each step reads one buffer and writes the other; `cur` is where the result is.
    Real* cur = a.data();
    Real* other = b.data();
    auto step_lines = [&](const Kernel1D& k) {
      apply_lines(cur, other, n / k.size(), k);
      std::swap(cur, other);
    };
    auto step_transpose = [&](std::int64_t rows, std::int64_t cols) {
      transpose(cur, other, batch, rows, cols);
      std::swap(cur, other);
    };
    const bool rows_t = desc_.block > 0 || desc_.axis != Axis::kCols;
    const bool cols_t = desc_.block > 0 || desc_.axis != Axis::kRows;
    if (rows_t) step_lines(along_rows_);
    if (cols_t) {
      step_transpose(h, w);
      step_lines(along_cols_);
      step_transpose(w, h);
    }
    if (desc_.prec == core::Precision::kF32)
      store<float>(cur, out.data, n);
    else
      store<double>(cur, out.data, n);
  }

 private:
  core::TransformDesc desc_;
  Kernel1D along_rows_, along_cols_;
};

// One axis of the real-to-real family: y_k = post_k Σ_j w_j trig(p(k, j)) pre_j x_j (see above).
class R2rKernel {
 public:
  R2rKernel(core::R2rKind kind, bool inverse, core::Norm norm, std::int64_t n)
      : kind_(core::r2r::computed_kind(kind, inverse)), n_(n) {
    using core::R2rKind;
    quarter_ = kind_ == R2rKind::kDct1 ? n - 1 : kind_ == R2rKind::kDst1 ? n + 1 : n;
    period_ = 8 * quarter_;
    table_.resize(static_cast<std::size_t>(period_));
    for (std::int64_t p = 0; p < period_; ++p)
      table_[p] = std::cos(kPi * static_cast<Real>(p) / static_cast<Real>(4 * quarter_));
    const core::r2r::AxisScale sc = core::r2r::axis_scale(kind, inverse, norm, n);
    pre_.assign(static_cast<std::size_t>(n), 1);
    post_.assign(static_cast<std::size_t>(n), 1);
    for (std::size_t i = 0; i < sc.pre.size(); ++i) pre_[i] = sc.pre[i];
    for (std::size_t i = 0; i < sc.post.size(); ++i) post_[i] = sc.post[i];
  }

  std::int64_t size() const { return n_; }

  // m[0..n) = row k of the normalized matrix.
  void row(std::int64_t k, Real* m) const {
    using core::R2rKind;
    const bool sine = kind_ >= R2rKind::kDst1;
    for (std::int64_t j = 0; j < n_; ++j) {
      std::int64_t p = 0;
      Real w = 2;
      switch (kind_) {
        case R2rKind::kDct1:
          p = 4 * k * j;
          if (j == 0 || j == n_ - 1) w = 1;
          break;
        case R2rKind::kDct2:
          p = 2 * k * (2 * j + 1);
          break;
        case R2rKind::kDct3:
          p = 2 * j * (2 * k + 1);
          if (j == 0) w = 1;
          break;
        case R2rKind::kDst1:
          p = 4 * (k + 1) * (j + 1);
          break;
        case R2rKind::kDst2:
          p = 2 * (k + 1) * (2 * j + 1);
          break;
        case R2rKind::kDst3:
          p = 2 * (2 * k + 1) * (j + 1);
          if (j == n_ - 1) w = 1;
          break;
        default:  // dct4, dst4
          p = (2 * k + 1) * (2 * j + 1);
          break;
      }
      if (sine) p -= 2 * quarter_;  // sin θ = cos(θ - π/2)
      p %= period_;
      if (p < 0) p += period_;
      m[j] = post_[k] * w * table_[p] * pre_[j];
    }
  }

 private:
  core::R2rKind kind_;
  std::int64_t n_, quarter_ = 1, period_ = 8;
  std::vector<Real> table_, pre_, post_;
};

class NaiveR2rPlan final : public core::Plan {
 public:
  explicit NaiveR2rPlan(const core::TransformDesc& d) : desc_(d) {}

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    detail::check_views(kName, desc_, in, out);
    const std::int64_t total = desc_.elements();
    std::vector<Real> a(static_cast<std::size_t>(total));
    if (desc_.prec == core::Precision::kF32)
      load<float>(in.data, a.data(), total);
    else
      load<double>(in.data, a.data(), total);
    const core::R2rSpec& s = desc_.r2r;
    for (int axis = 0; axis < s.rank; ++axis) {
      if (s.kinds[axis] == core::R2rKind::kNone) continue;
      const std::int64_t n = s.dims[axis];
      std::int64_t inner = 1;
      for (int b = axis + 1; b < s.rank; ++b) inner *= s.dims[b];
      const std::int64_t outer = total / (n * inner), lines = outer * inner;
      // Gather the lines along `axis` (element j of line (o, i) at o*n*inner + j*inner + i), transform, scatter.
      std::vector<Real> g(static_cast<std::size_t>(total)), y(static_cast<std::size_t>(total));
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i)
          for (std::int64_t j = 0; j < n; ++j) g[(o * inner + i) * n + j] = a[o * n * inner + j * inner + i];
      const R2rKernel kernel(s.kinds[axis], s.inverse, desc_.norm, n);
      std::vector<Real> m(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k) {
        kernel.row(k, m.data());
        for (std::int64_t l = 0; l < lines; ++l) {
          const Real* x = g.data() + l * n;
          Real acc = 0;
          for (std::int64_t j = 0; j < n; ++j) acc += m[j] * x[j];
          y[l * n + k] = acc;
        }
      }
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i)
          for (std::int64_t j = 0; j < n; ++j) a[o * n * inner + j * inner + i] = y[(o * inner + i) * n + j];
    }
    if (desc_.prec == core::Precision::kF32)
      store<float>(a.data(), out.data, total);
    else
      store<double>(a.data(), out.data, total);
  }

 private:
  core::TransformDesc desc_;
};

class NaiveBackend final : public core::Backend {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override {
    return "the oracle: direct definitions (DCT-II/III/IV; r2r: DCT/DST I-IV per axis), separable, long double "
           "accumulation";
  }
  std::vector<Op> ops() const override { return {Op::kDct2, Op::kIdct2, Op::kDct4, Op::kIdct4, Op::kR2r}; }
  std::string_view sizes() const override { return "any (O(N) per output; slow above ~2000)"; }
  const core::Runtime& runtime() const override { return host_runtime(); }
  core::Support supports(const core::TransformDesc& d) const override {
    if (d.op == Op::kR2r) return core::r2r::check_r2r_desc(d);
    return detail::check_dct_desc(d, /*block_any_op=*/true);
  }
  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = supports(d); !s)
      throw Error(ErrorCode::kUnsupported, std::string(kName), "does not support " + d.to_string() + ": " + s.reason);
    if (d.op == Op::kR2r) return std::make_unique<NaiveR2rPlan>(d);
    return std::make_unique<NaivePlan>(d);
  }
};

}  // namespace

std::unique_ptr<core::Backend> make_naive_backend() { return std::make_unique<NaiveBackend>(); }

}  // namespace dct::cpu
