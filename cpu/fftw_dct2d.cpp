/* cpu-fftw's whole-matrix DCT-II / DCT-III (dct2, idct2 with --axis both, no blocks): the three stages of [1]
   (Makhoul's reorder, one 2-D real FFT, the 2-D postprocess; docs/algorithms.md §2) on FFTW's r2c / c2r, the same
   math as cuda-fft2d (math/dct2d.hpp). FFTW's own REDFT10 / REDFT01 of a matrix cost 2.3-4.6x its r2c of the same
   shape on a 2-core host; this route costs the r2c plus two passes over the matrix (docs/decisions.md §3.4).

   Forward, per matrix: v(m1, m2) = x(nat(m1), nat(m2)) (nat(m) = 2m below (N+1)/2, 2(N−m)−1 above: even samples
   ascending, odd ones descending), V = RFFT2(v) (rows k1 = 0..N1−1, columns k2 = 0..N2/2), and for each pair of rows
   (k1, N1−k1) and column k2 the four outputs Y(k1, k2), Y(k1, N2−k2), Y(N1−k1, k2), Y(N1−k1, N2−k2) from V(k1, k2)
   and V(N1−k1, k2) (post_quad, eq. 17), each times 2 f1(k1) f2(k2) (f: the norm's factor per axis, 1 for none).
   Inverse: V(k1, k2) and V(N1−k1, k2) from the four inputs times ia1 ia2 (ia = g/(2N) with g the inverse norm's
   factor: the 1/N of the unnormalized c2r and eq. 15's 1/2 per axis; pre_pair), v = IRFFT2(V), x = reorder^-1(v).

   The half spectrum lives in the calling thread's scratch array (rows of N2/2+1 complex), so the caller's input stays
   untouched. The rows step takes chunks of rows on the OpenMP pool: each worker reorders a chunk into its own small
   buffer (cache-resident) and runs FFTW's out-of-place r2c from it into the scratch (the inverse: c2r out of the
   scratch into the buffer, then the inverse reorder into the output); the columns' c2c runs in place on the scratch
   in chunks of columns; the postprocess (the preprocess) is an OpenMP loop over pairs of rows. Out-of-place row plans,
   and one of them: FFTW_ESTIMATE takes 7-17 ms to plan an in-place r2c of a photo's row (1080 ... 6000 points, 2
   cores) and 2-5 ms out of place, and a one-shot command plans every time (docs/decisions.md §3.4). The real-to-real
   commands' 2-D requests of the type II or III family (DST axes and scipy's norms included) take the same plan
   (make_fftw_r2r_2d_plan). */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/r2r.hpp"
#include "core/tensor.hpp"
#include "cpu/backends.hpp"
#include "cpu/common.hpp"
#include "cpu/fftw_util.hpp"
#include "math/dct2d.hpp"

namespace dct::cpu::detail {
namespace {

template <class T>
struct Cx {
  T x, y;
};

constexpr double kPi = 3.14159265358979323846;
// Passes below this many values run on one thread.
constexpr std::int64_t kParallelMin = 1 << 15;

// Position of reordered element m in the natural line of n (eq. 9).
inline std::int64_t nat(std::int64_t m, std::int64_t n) { return 2 * m < n ? 2 * m : 2 * (n - m) - 1; }

// One transformed axis: its length, whether it is a DST axis (DST-II forward, DST-III inverse: the signs (−1)^n on
// the natural side, the reversal N−1−k on the spectral side; math/dct2d.hpp), and its factors: `spec` per spectral
// index of the DCT the route computes (the DST's reversal undone), `nat` per natural index (empty: all ones).
struct AxisSpec {
  std::int64_t n = 1;
  bool dst = false;
  std::vector<double> spec, nat;
};

// This thread's scratch array `slot` (0: the half spectrum, 1: a rows step's chunk buffer) of at least `bytes`, kept
// for its next execute (fresh memory costs a page fault per 4 KiB on first touch: as much as the transform itself at
// 512x512 on a 2-core host).
void* scratch(std::size_t bytes, int slot) {
  thread_local core::AlignedBuffer buf[2];
  if (buf[slot].bytes() < bytes) {
    buf[slot] = core::AlignedBuffer();
    buf[slot] = core::AlignedBuffer(bytes);
  }
  return buf[slot].data();
}

template <class T>
class FftwDct2dPlan final : public core::Plan {
 public:
  // batch matrices of a1.n x a2.n; inverse: the DCT-III route (preprocess, c2r, inverse reorder).
  FftwDct2dPlan(const core::TransformDesc& d, std::int64_t batch, bool inverse, const AxisSpec& a1, const AxisSpec& a2)
      : desc_(d),
        batch_(batch),
        h_(a1.n),
        w_(a2.n),
        wc_(w_ / 2 + 1),
        inverse_(inverse),
        rev_((a1.dst ? math::dct2d::kFlipAxis0 : 0u) | (a2.dst ? math::dct2d::kFlipAxis1 : 0u)) {
    const auto twiddles = [](std::int64_t n) {
      std::vector<Cx<T>> t(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k) {
        const double a = -kPi * static_cast<double>(k) / (2.0 * static_cast<double>(n));
        t[k] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
      }
      return t;
    };
    w1_ = twiddles(h_);
    w2_ = twiddles(w_);
    // Spectral factors, the forward's 2 (Y = 2 Re s) on axis 0.
    const auto table = [](const AxisSpec& a, double gain) {
      std::vector<T> t(static_cast<std::size_t>(a.n));
      for (std::int64_t k = 0; k < a.n; ++k) t[k] = static_cast<T>(gain * (a.spec.empty() ? 1.0 : a.spec[k]));
      return t;
    };
    f1_ = table(a1, inverse_ ? 1.0 : 2.0);
    f2_ = table(a2, 1.0);
    // Natural-side factors with the DST signs; left empty when all ones.
    const auto natural = [](const AxisSpec& a) {
      std::vector<T> t;
      if (!a.dst && a.nat.empty()) return t;
      t.resize(static_cast<std::size_t>(a.n));
      for (std::int64_t k = 0; k < a.n; ++k)
        t[k] = static_cast<T>((a.dst && (k & 1) ? -1.0 : 1.0) * (a.nat.empty() ? 1.0 : a.nat[k]));
      return t;
    };
    n1_ = natural(a1);
    n2_ = natural(a2);
    make_plans(d);
  }

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    check_views("cpu-fftw", desc_, in, out);
    auto* const cx = static_cast<Complex*>(scratch(scratch_bytes(), 0));
    const T* src = static_cast<const T*>(in.data);
    T* dst = static_cast<T*>(out.data);
    if (!inverse_) {
      rows_step(src, cx, nullptr);
      cols_fft(cx);
      post(reinterpret_cast<const Cx<T>*>(cx), dst);
    } else {
      pre(src, reinterpret_cast<Cx<T>*>(cx));
      cols_fft(cx);
      rows_step(nullptr, cx, dst);
    }
  }

 private:
  using Complex = typename Fftw<T>::Complex;
  // The 2-D real FFT as its two steps, each one FFTW plan of kChunk lines (columns: and one of the remainder) planned
  // for one thread and run on chunks of lines in an OpenMP loop: the lines' arithmetic depends on the shape alone,
  // never on the thread count (a batch's worker and a lone command write the same bytes; FFTW's own threaded 2-D plans
  // differ in the last bit from thread count to thread count). Rows: the r2c (c2r) of w points out of place, between a
  // worker's chunk buffer (kChunk dense rows of w) and the scratch's rows of wc complex (their count rounded up to a
  // whole chunk, so that the last chunk takes the same plan);
  // columns: the c2c of h points down kChunk adjacent spectrum columns of one matrix.
  static constexpr std::int64_t kChunk = 16;
  struct Step {
    FftwPlan<T> full, tail;  // kChunk lines; the last lines' (columns, where they do not divide evenly)
    std::int64_t lines = 0;  // per matrix (columns) or in all (rows)
  };
  void make_plans(const core::TransformDesc& d) {
    Complex* const cx = static_cast<Complex*>(scratch(scratch_bytes(), 0));
    T* const buf = static_cast<T*>(scratch(chunk_bytes(), 1));
    const unsigned flags = fftw_flags(d.effort);
    const bool pow2 = (w_ & (w_ - 1)) == 0 && (h_ & (h_ - 1)) == 0;
    // A matrix after the first starts where the column plans' alignment may not hold.
    const unsigned col_flags = flags | (batch_ > 1 && (h_ * wc_ * sizeof(Complex)) % 64 != 0 ? FFTW_UNALIGNED : 0u);
    const auto plan = [&](std::int64_t lines, bool cols) {
      if (lines == 0) return FftwPlan<T>();
      return make_fftw_plan<T>(
          lines * (cols ? h_ : w_), pow2, d.effort, "cpu-fftw", d.to_string(),
          [&] {
            if (cols) {
              const fftw_iodim64 dim{h_, wc_, wc_}, loop{lines, 1, 1};
              return Fftw<T>::guru_dft(1, &dim, 1, &loop, cx, cx, inverse_ ? FFTW_BACKWARD : FFTW_FORWARD, col_flags);
            }
            const fftw_iodim64 dim{w_, 1, 1}, loop{lines, inverse_ ? wc_ : w_, inverse_ ? w_ : wc_};
            return inverse_ ? Fftw<T>::guru_c2r(1, &dim, 1, &loop, cx, buf, flags)
                            : Fftw<T>::guru_r2c(1, &dim, 1, &loop, buf, cx, flags);
          },
          1);
    };
    rows_.lines = batch_ * h_;
    rows_.full = plan(chunk_rows(), false);
    cols_.lines = wc_;
    cols_.full = plan(std::min(kChunk, wc_), true);
    if (wc_ > kChunk) cols_.tail = plan(wc_ % kChunk, true);
  }
  // The plan of chunk c of a step.
  static typename Fftw<T>::Plan chunk_plan(const Step& st, std::int64_t c) {
    return (c + 1) * kChunk <= st.lines || st.lines <= kChunk ? st.full.get() : st.tail.get();
  }
  // Rows chunk by chunk through each worker's buffer: forward, x (natural) -> reorder -> r2c -> the scratch's rows;
  // inverse, the scratch's rows -> c2r -> inverse reorder -> x. A last chunk's rows past the matrices are zeros in
  // the buffer (forward) and are not written back (inverse).
  void rows_step(const T* x_in, Complex* cx, T* x_out) const {
    const std::int64_t k = chunk_rows(), chunks = (rows() + k - 1) / k, w = w_;
#pragma omp parallel for schedule(static) if (parallel()) num_threads(thread_count())
    for (std::int64_t c = 0; c < chunks; ++c) {
      T* const buf = static_cast<T*>(scratch(chunk_bytes(), 1));
      Complex* const z = cx + c * k * wc_;
      const std::int64_t r0 = c * k, n = std::min(k, rows() - r0);
      if (!inverse_) {
        for (std::int64_t i = 0; i < n; ++i) reorder_row(x_in, r0 + i, buf + i * w);
        std::fill(buf + n * w, buf + k * w, T(0));
        Fftw<T>::execute_r2c(rows_.full.get(), buf, z);
      } else {
        Fftw<T>::execute_c2r(rows_.full.get(), z, buf);
        for (std::int64_t i = 0; i < n; ++i) unorder_row(buf + i * w, r0 + i, x_out);
      }
    }
  }
  void cols_fft(Complex* cx) const {
    const std::int64_t per = (cols_.lines + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (parallel()) num_threads(thread_count())
    for (std::int64_t t = 0; t < batch_ * per; ++t) {
      const std::int64_t b = t / per, c = t % per;
      Complex* const z = cx + b * h_ * wc_ + c * kChunk;
      Fftw<T>::execute_dft(chunk_plan(cols_, c), z, z);
    }
  }

  std::int64_t rows() const { return batch_ * h_; }
  // Rows per chunk of the rows step, and the scratch's rows (a whole number of chunks).
  std::int64_t chunk_rows() const { return std::min(kChunk, rows()); }
  std::size_t scratch_bytes() const {
    const std::int64_t k = chunk_rows();
    return static_cast<std::size_t>((rows() + k - 1) / k * k * wc_) * sizeof(Complex);
  }
  std::size_t chunk_bytes() const { return static_cast<std::size_t>(chunk_rows() * w_) * sizeof(T); }
  bool parallel() const { return batch_ * h_ * w_ >= kParallelMin; }
  // The natural side's factor of row n1 and column n2 (1 where an axis has none).
  T nat1(std::int64_t n1) const { return n1_.empty() ? T(1) : n1_[n1]; }

  // Reordered row r (of all the matrices' rows) of x (natural, rows of w) into vr, times the natural factors.
  void reorder_row(const T* x, std::int64_t r, T* vr) const {
    const std::int64_t h = h_, w = w_, even = (w + 1) / 2, n1 = nat(r % h, h);
    const T* const xr = x + (r / h * h + n1) * w;
    const T f = nat1(n1);
    if (n2_.empty()) {
      for (std::int64_t m = 0; m < even; ++m) vr[m] = f * xr[2 * m];
      for (std::int64_t m = even; m < w; ++m) vr[m] = f * xr[2 * (w - m) - 1];
    } else {
      for (std::int64_t m = 0; m < even; ++m) vr[m] = f * n2_[2 * m] * xr[2 * m];
      for (std::int64_t m = even; m < w; ++m) vr[m] = f * n2_[2 * (w - m) - 1] * xr[2 * (w - m) - 1];
    }
  }
  // Its inverse: vr (reordered row r) into x (natural), times the natural factors.
  void unorder_row(const T* vr, std::int64_t r, T* x) const {
    const std::int64_t h = h_, w = w_, even = (w + 1) / 2, n1 = nat(r % h, h);
    T* const xr = x + (r / h * h + n1) * w;
    const T f = nat1(n1);
    if (n2_.empty()) {
      for (std::int64_t m = 0; m < even; ++m) xr[2 * m] = f * vr[m];
      for (std::int64_t m = even; m < w; ++m) xr[2 * (w - m) - 1] = f * vr[m];
    } else {
      for (std::int64_t m = 0; m < even; ++m) xr[2 * m] = f * n2_[2 * m] * vr[m];
      for (std::int64_t m = even; m < w; ++m) xr[2 * (w - m) - 1] = f * n2_[2 * (w - m) - 1] * vr[m];
    }
  }
  // Half spectrum (rows of wc) -> Y: one task per pair of rows (k1, h−k1) of a matrix; DST axes stored reversed.
  void post(const Cx<T>* z, T* y) const {
    const std::int64_t h = h_, w = w_, pairs = h / 2 + 1;
#pragma omp parallel for schedule(static) if (parallel()) num_threads(thread_count())
    for (std::int64_t t = 0; t < batch_ * pairs; ++t) {
      const std::int64_t b = t / pairs, k1 = t % pairs, m1 = k1 == 0 ? 0 : h - k1;
      const Cx<T>* const za = z + (b * h + k1) * wc_;
      const Cx<T>* const zb = z + (b * h + m1) * wc_;
      T* const yb = y + b * h * w;
      const T f1a = f1_[k1];
      const auto f1b = [&] { return f1_[m1]; };
      for (std::int64_t k2 = 0; k2 < wc_; ++k2) {
        const std::int64_t m2 = w - k2;
        const bool mir2 = k2 != 0 && 2 * k2 != w;
        const math::dct2d::Quad<Cx<T>> o = math::dct2d::post_quad(za[k2], zb[k2], w1_[k1], w2_[k2]);
        math::dct2d::store_quad(yb, k1, h, w, k2, m2, mir2, o, f1a, f2_[k2], mir2 ? f2_[m2] : T(0), f1b, rev_);
      }
    }
  }
  // Y -> half spectrum (rows of wc): V(k1, k2) and V(h−k1, k2) from Y at (k1 | h−k1, k2 | w−k2), missing mirrors 0;
  // DST axes read reversed.
  void pre(const T* y, Cx<T>* z) const {
    const std::int64_t h = h_, w = w_, pairs = h / 2 + 1;
    const auto row = [&](std::int64_t k) { return math::dct2d::flip_row(k, h, rev_); };
    const auto col = [&](std::int64_t k) { return math::dct2d::flip_col(k, w, rev_); };
#pragma omp parallel for schedule(static) if (parallel()) num_threads(thread_count())
    for (std::int64_t t = 0; t < batch_ * pairs; ++t) {
      const std::int64_t b = t / pairs, k1 = t % pairs, m1 = h - k1;
      const bool row_b = k1 != 0, row_apart = k1 != 0 && 2 * k1 != h;
      const T* const ya = y + (b * h + row(k1)) * w;
      const T* const yc = y + (b * h + row(row_b ? m1 : 0)) * w;
      Cx<T>* const za = z + (b * h + k1) * wc_;
      Cx<T>* const zb = z + (b * h + (row_b ? m1 : 0)) * wc_;
      const T g1a = f1_[k1], g1b = row_b ? f1_[m1] : T(0);
      for (std::int64_t k2 = 0; k2 < wc_; ++k2) {
        const std::int64_t m2 = w - k2;
        const bool col_b = k2 != 0;
        const T g2a = f2_[k2], g2b = col_b ? f2_[m2] : T(0);
        const std::int64_t ca = col(k2), cb = col(col_b ? m2 : 0);
        const T y00 = g1a * g2a * ya[ca];
        const T y01 = col_b ? g1a * g2b * ya[cb] : T(0);
        const T y10 = row_b ? g1b * g2a * yc[ca] : T(0);
        const T y11 = row_b && col_b ? g1b * g2b * yc[cb] : T(0);
        const math::dct2d::Quad<Cx<T>> q = math::dct2d::pre_pair(y00, y01, y10, y11, w1_[k1], w2_[k2]);
        za[k2] = q.k1;
        if (row_apart) zb[k2] = q.m1;
      }
    }
  }

  core::TransformDesc desc_;
  std::int64_t batch_, h_, w_, wc_;
  bool inverse_;
  unsigned rev_;                // kFlipAxis0/1: the DST axes
  std::vector<Cx<T>> w1_, w2_;  // W_k = e^{−iπk/2N} per axis
  std::vector<T> f1_, f2_;      // spectral factors per DCT index (forward: outputs, axis 0 times 2; inverse: inputs)
  std::vector<T> n1_, n2_;      // natural factors with the DST signs (empty: all ones)
  Step rows_, cols_;
};

template <class T>
std::unique_ptr<core::Plan> make(const core::TransformDesc& d, std::int64_t batch, bool inverse, const AxisSpec& a1,
                                 const AxisSpec& a2) {
  return std::make_unique<FftwDct2dPlan<T>>(d, batch, inverse, a1, a2);
}
std::unique_ptr<core::Plan> make_any(const core::TransformDesc& d, std::int64_t batch, bool inverse, const AxisSpec& a1,
                                     const AxisSpec& a2) {
  return d.prec == core::Precision::kF32 ? make<float>(d, batch, inverse, a1, a2)
                                         : make<double>(d, batch, inverse, a1, a2);
}

}  // namespace

std::unique_ptr<core::Plan> make_fftw_dct2d_plan(const core::TransformDesc& d) {
  const bool inverse = d.op == core::Op::kIdct2;
  AxisSpec a[2];
  for (int i = 0; i < 2; ++i) {
    a[i].n = i == 0 ? d.shape.rows : d.shape.cols;
    a[i].spec.resize(static_cast<std::size_t>(a[i].n));
    for (std::int64_t k = 0; k < a[i].n; ++k) a[i].spec[k] = dct_axis_factor(d.op, d.norm, a[i].n, k);
  }
  return make_any(d, d.batch, inverse, a[0], a[1]);
}

std::unique_ptr<core::Plan> make_fftw_r2r_2d_plan(const core::TransformDesc& d) {
  using core::R2rKind;
  const core::R2rSpec& s = d.r2r;
  // The two transformed axes are the array's last two; a leading axis that is not transformed is a batch.
  if (s.rank < 2 || (s.rank == 3 && s.kinds[0] != R2rKind::kNone)) return nullptr;
  const int first = s.rank - 2;
  R2rKind c[2];
  for (int i = 0; i < 2; ++i) {
    if (s.kinds[first + i] == R2rKind::kNone) return nullptr;
    c[i] = core::r2r::computed_kind(s.kinds[first + i], s.inverse);
  }
  const auto type2 = [](R2rKind k) { return k == R2rKind::kDct2 || k == R2rKind::kDst2; };
  const auto type3 = [](R2rKind k) { return k == R2rKind::kDct3 || k == R2rKind::kDst3; };
  const bool inverse = type3(c[0]) && type3(c[1]);
  if (!inverse && !(type2(c[0]) && type2(c[1]))) return nullptr;
  AxisSpec a[2];
  for (int i = 0; i < 2; ++i) {
    const std::int64_t n = s.dims[first + i];
    a[i].n = n;
    a[i].dst = c[i] == R2rKind::kDst2 || c[i] == R2rKind::kDst3;
    const core::r2r::AxisScale sc = core::r2r::axis_scale(s.kinds[first + i], s.inverse, d.norm, n);
    // FFTW's unnormalized kind: the forward route gives REDFT10 (RODFT10) as it stands, the inverse route REDFT01
    // (RODFT01) with its input factors 1 (its 1/(2N) per axis is the caller's ia). Spectral factors are per DCT index:
    // a DST axis' index k is the kind's N−1−k.
    const std::vector<double>& spec = inverse ? sc.pre : sc.post;
    const std::vector<double>& natv = inverse ? sc.post : sc.pre;
    if (!spec.empty()) {
      a[i].spec.resize(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k) a[i].spec[k] = spec[a[i].dst ? n - 1 - k : k];
    }
    a[i].nat = natv;
  }
  const std::int64_t batch = d.batch * (s.rank == 3 ? s.dims[0] : 1);
  return make_any(d, batch, inverse, a[0], a[1]);
}

}  // namespace dct::cpu::detail
