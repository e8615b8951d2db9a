/* cuda-r2r: the real-to-real family (op r2r: DCT/DST types I-IV of an array of rank <= 3, a kind per axis, batched)
 * as pre/postprocessing around cuFFT (device code and its math: kernels/r2r/r2r_kernels.cuh).
 *
 * A request becomes a list of steps, each reading the previous step's output (the first reads the input) and
 * writing the output array in place:
 *   - the three-stage N-D step: the longest run of trailing axes (two or three) whose computed kinds are all of the
 *     DCT-II/DST-II family or all of the DCT-III/DST-III family, each of at least 2 points: reorder (signs folded in)
 *     + one D-dimensional cuFFT R2C + a postprocess over groups of 2^D symmetric points (the inverse: preprocess + C2R
 *     + inverse reorder). Three passes over the array plus the FFT, whatever D is.
 *     Two trailing axes of the DCT-II/DST-II family (or both of the DCT-III/DST-III family) go through cuda-fft2d's
 *     engine instead (its reorder folded into its own FFT passes where the sizes allow; a DST axis by
 *     DST-II(x)[k] = DCT-II((−1)^n x)[N−1−k] and its inverse, the signs and the reversal folded into the engine's first
 *     loads and last stores: math/dct2d.hpp; the norm as ortho, or none times a factor per axis).
 *   - a line step for every other transformed axis: a gather of the axis' lines into the FFT's input layout (the
 *     kind's reorder, extension or twiddle folded in), cuFFT on contiguous lines, a scatter with the kind's
 *     postprocess; a DCT-II/III or DST-II/III axis of a smooth length instead takes one kernel of cuda-fft2d's smooth
 *     route (SmoothStep), along contiguous lines or down the columns of the trailing axes, in place; a DCT-I or DST-I
 *     axis one dct1_lines kernel (Dct1Step, kernels/r2r/dct1_lines.cuh), the same two ways, where its FFT length M
 *     (n − 1, n + 1) is smooth, or else where Bluestein's FFT pays (smooth::bluestein_pays) and its length fits a CTA.
 * The norms are core/r2r.hpp's per-index factors, uploaded per axis and applied in the gather and the scatter.
 */
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "core/r2r.hpp"
#include "kernels/algorithms.cuh"
#include "kernels/common/plan.cuh"
#include "kernels/dct2d/pipelines.cuh"
#include "kernels/r2r/dct1_lines.cuh"
#include "kernels/r2r/r2r_kernels.cuh"
#include "math/dct2d.hpp"  // kFlipAxis0/1

namespace dct::cuda {
namespace {

using core::R2rKind;
using r2r::LineGeom;
using r2r::LineTables;

int family(R2rKind k) {
  if (k == R2rKind::kDct2 || k == R2rKind::kDst2) return 2;
  if (k == R2rKind::kDct3 || k == R2rKind::kDst3) return 3;
  return 0;
}
bool is_dst(R2rKind k) {
  return k == R2rKind::kDst1 || k == R2rKind::kDst2 || k == R2rKind::kDst3 || k == R2rKind::kDst4;
}

// One axis' device tables: twiddles for its computed kind and the norm's factors.
template <class T>
struct AxisBuffers {
  DeviceBuffer w, ta, tb, pre, post;
  std::vector<T> pr, po;  // host copies of pre and post
  AxisBuffers(R2rKind kind, bool inverse, core::Norm norm, i64 n) {
    const r2r::LineTwiddles<T> tw = r2r::line_twiddles<T>(static_cast<int>(core::r2r::computed_kind(kind, inverse)), n);
    const core::r2r::AxisScale sc = core::r2r::axis_scale(kind, inverse, norm, n);
    pr.assign(n, T(1));
    po.assign(n, T(1));
    for (std::size_t i = 0; i < sc.pre.size(); ++i) pr[i] = static_cast<T>(sc.pre[i]);
    for (std::size_t i = 0; i < sc.post.size(); ++i) po[i] = static_cast<T>(sc.post[i]);
    w = upload_table(tw.w);
    ta = upload_table(tw.ta);
    tb = upload_table(tw.tb);
    pre = upload_table(pr);
    post = upload_table(po);
  }
  LineTables<T> lines() const {
    return {w.as<const cx_t<T>>(), ta.as<const cx_t<T>>(), tb.as<const cx_t<T>>(), pre.as<const T>(),
            post.as<const T>()};
  }
};

// Launch shapes of the grid-strided kernels: a block of up to 256 threads along `len` (whole warps), at most
// 1024 blocks along x and 65535 along y and z.
dim3 block_for(i64 len) { return dim3(static_cast<unsigned>(std::clamp<i64>((len + 31) / 32 * 32, 32, 256))); }
dim3 grid_for(i64 len, i64 ny, i64 nz = 1) {
  const i64 bx = block_for(len).x;
  return dim3(static_cast<unsigned>(std::clamp<i64>((len + bx - 1) / bx, 1, 1024)),
              static_cast<unsigned>(std::clamp<i64>(ny, 1, 65535)),
              static_cast<unsigned>(std::clamp<i64>(nz, 1, 65535)));
}

// A transformed axis outside the N-D run: gather -> cuFFT on contiguous lines -> scatter.
template <class T>
class LineStep {
 public:
  LineStep(R2rKind kind, bool inverse, core::Norm norm, i64 outer, i64 n, i64 inner) : tables_(kind, inverse, norm, n) {
    g_ = r2r::line_geom(static_cast<int>(core::r2r::computed_kind(kind, inverse)), outer, n, inner);
    const i64 lines = outer * inner;
    const FftType t = g_.fft == r2r::LineFft::kR2C   ? FftType::kR2C
                      : g_.fft == r2r::LineFft::kC2R ? FftType::kC2R
                                                     : FftType::kC2CForward;
    load_bytes_ = lines * g_.load_len * (t == FftType::kR2C ? sizeof(T) : sizeof(cx_t<T>));
    fft_bytes_ = lines * g_.fft_len * (t == FftType::kC2R ? sizeof(T) : sizeof(cx_t<T>));
    fft_.emplace(g_.interleaved ? FftStage<T>::strided_lines(t, g_.fft_n, g_.load_len, g_.fft_len, g_.inner, g_.outer)
                                : FftStage<T>::lines(t, g_.fft_n, lines));
  }
  std::size_t ws1() const { return load_bytes_; }
  std::size_t ws2() const { return fft_bytes_; }
  void run(const T* src, T* dst, void* w1, void* w2, cudaStream_t s) const {
    if (g_.inner == 1) {
      DCT_LAUNCH((r2r::line_load<T, true>), grid_for(g_.load_len, g_.outer), block_for(g_.load_len), s, src, w1,
                 tables_.lines(), g_);
      fft_->run(w1, w2, s);
      DCT_LAUNCH((r2r::line_store<T, true>), grid_for(g_.n, g_.outer), block_for(g_.n), s, w2, dst, tables_.lines(),
                 g_);
    } else {
      if (g_.interleaved) {
        DCT_LAUNCH((r2r::line_load<T, false>), grid_for(g_.inner, g_.load_len, g_.outer), block_for(g_.inner), s, src,
                   w1, tables_.lines(), g_);
      } else {
        const auto tiles = [](i64 len, i64 most) {
          return static_cast<unsigned>(std::clamp<i64>((len + r2r::kGatherTile - 1) / r2r::kGatherTile, 1, most));
        };
        DCT_LAUNCH((r2r::line_load_tiled<T>),
                   dim3(tiles(g_.inner, 1 << 20), tiles(g_.load_len, 65535),
                        static_cast<unsigned>(std::clamp<i64>(g_.outer, 1, 65535))),
                   dim3(r2r::kGatherThreads), s, src, w1, tables_.lines(), g_);
      }
      fft_->run(w1, w2, s);
      DCT_LAUNCH((r2r::line_store<T, false>), grid_for(g_.inner, g_.n, g_.outer), block_for(g_.inner), s, w2, dst,
                 tables_.lines(), g_);
    }
  }

 private:
  AxisBuffers<T> tables_;
  LineGeom g_{};
  std::size_t load_bytes_ = 0, fft_bytes_ = 0;
  std::optional<FftStage<T>> fft_;
};

// The D trailing axes of one family: reorder + D-dimensional real FFT + postprocess (or the inverse).
template <class T, int D>
class NdStep {
 public:
  NdStep(const core::R2rSpec& s, core::Norm norm, i64 batch, int start) {
    forward_ = family(core::r2r::computed_kind(s.kinds[start], s.inverse)) == 2;
    a_.batch = batch;
    for (int a = 0; a < start; ++a) a_.batch *= s.dims[a];
    i64 n[D];
    for (int j = 0; j < D; ++j) {
      const int ax = start + j;
      n[j] = a_.n[j] = s.dims[ax];
      a_.dst[j] = is_dst(s.kinds[ax]);
      tables_.push_back(std::make_unique<AxisBuffers<T>>(s.kinds[ax], s.inverse, norm, s.dims[ax]));
      a_.w[j] = tables_.back()->w.template as<const cx_t<T>>();
      a_.pre[j] = tables_.back()->pre.template as<const T>();
      a_.post[j] = tables_.back()->post.template as<const T>();
    }
    vol_ = 1;
    grows_ = 1;
    for (int j = 0; j < D; ++j) vol_ *= n[j];
    for (int j = 0; j < D - 1; ++j) grows_ *= n[j] / 2 + 1;
    half_ = vol_ / n[D - 1] * (n[D - 1] / 2 + 1);
    // The reorder's row tables: for each row r (its index along the leading axes), the row it reads and its factor.
    std::vector<i64> src;
    std::vector<T> scale;
    const T* factor[D];
    for (int j = 0; j < D; ++j) factor[j] = forward_ ? tables_[j]->pr.data() : tables_[j]->po.data();
    r2r::nd_rows<T>(D, a_.n, a_.dst, factor, forward_, src, scale);
    row_src_ = upload_table(src);
    row_scale_ = upload_table(scale);
    a_.row_src = row_src_.template as<const i64>();
    a_.row_scale = row_scale_.template as<const T>();
    fft_.emplace(FftStage<T>::array(forward_ ? FftType::kR2C : FftType::kC2R, D, n, a_.batch));
  }
  std::size_t ws1() const { return a_.batch * vol_ * sizeof(T); }         // the reordered real array
  std::size_t ws2() const { return a_.batch * half_ * sizeof(cx_t<T>); }  // its half spectrum
  void run(const T* src, T* dst, void* w1, void* w2, cudaStream_t s) const {
    T* real = static_cast<T*>(w1);
    cx_t<T>* spec = static_cast<cx_t<T>*>(w2);
    const i64 last = a_.n[D - 1], xs = (last + 1) / 2;  // pairs of the reorder, groups along the last axis
    const dim3 rgrid = grid_for(xs, vol_ / last, a_.batch), ggrid = grid_for(xs, grows_, a_.batch);
    // The groups of k_last = n/2 (an even last axis): one per thread over the group rows, in a launch of their own.
    const bool mid = last % 2 == 0;
    const dim3 mgrid = grid_for(grows_, 1, a_.batch);
    // The postprocess (or inverse preprocess) with offsets of type I within one array.
    const auto groups = [&]<class I>() {
      if (forward_) {
        DCT_LAUNCH((r2r::nd_post<T, D, I>), ggrid, block_for(xs), s, spec, dst, a_);
        if (mid) DCT_LAUNCH((r2r::nd_post<T, D, I, true>), mgrid, block_for(grows_), s, spec, dst, a_);
      } else {
        DCT_LAUNCH((r2r::nd_pre<T, D, I>), ggrid, block_for(xs), s, src, spec, a_);
        if (mid) DCT_LAUNCH((r2r::nd_pre<T, D, I, true>), mgrid, block_for(grows_), s, src, spec, a_);
      }
    };
    // 32-bit offsets within one array where they fit (3-D nd_post: f32 126 -> 85 registers, f64 168 -> 122; no stack).
    const bool narrow = vol_ < (i64{1} << 31) && half_ < (i64{1} << 31);
    const auto run_groups = [&] { narrow ? groups.template operator()<int>() : groups.template operator()<i64>(); };
    if (forward_) {
      DCT_LAUNCH((r2r::nd_reorder<T, D, false>), rgrid, block_for(xs), s, src, real, a_);
      fft_->run(real, spec, s);
      run_groups();
    } else {
      run_groups();
      fft_->run(spec, real, s);
      DCT_LAUNCH((r2r::nd_reorder<T, D, true>), rgrid, block_for(xs), s, real, dst, a_);
    }
  }

 private:
  bool forward_ = true;
  r2r::NdArgs<T, D> a_{};
  std::vector<std::unique_ptr<AxisBuffers<T>>> tables_;
  i64 vol_ = 1, grows_ = 1, half_ = 0;
  DeviceBuffer row_src_, row_scale_;
  std::optional<FftStage<T>> fft_;
};

// A 2-D run of the DCT-II/DST-II family (or the DCT-III/DST-III family) on both axes: cuda-fft2d's engine
// (kernels/dct2d/pipelines.cuh) on the route cuda-fft2d takes (fft2d_estimate_route; make(): under --effort measure the
// faster of the cuFFT route and the smooth route, as cuda-fft2d), with the reorder folded into its FFT passes where the
// sizes allow; the run's norm as the engine's (ortho, or none times a factor per axis), dst its mask of DST axes.
struct Dct2dRun {
  core::Op op;
  core::Norm norm;
  unsigned dst;
  std::array<double, 2> scale;
};
template <class T>
class Dct2dStep {
 public:
  Dct2dStep(const Dct2dRun& r, i64 n0, i64 n1, i64 batch, Fft2dRoute route)
      : engine_(r.op, r.norm, core::Shape2{n0, n1}, batch, route, r.dst, r.scale) {}
  std::size_t ws1() const { return engine_.real_elems() * sizeof(T); }
  std::size_t ws2() const { return engine_.cplx_elems() * sizeof(cx_t<T>); }
  void run(const T* src, T* dst, void* w1, void* w2, cudaStream_t s) const {
    engine_.run(src, dst, static_cast<T*>(w1), static_cast<cx_t<T>*>(w2), s);
  }

 private:
  ThreeStage2d<T> engine_;
};

// The DCT an axis' DST-II / DST-III is computed through (Dct2dStep), else the kind itself.
R2rKind as_dct(R2rKind k) { return k == R2rKind::kDst2 ? R2rKind::kDct2 : k == R2rKind::kDst3 ? R2rKind::kDct3 : k; }

// cuda-fft2d's engines' norm for axis a, computed as DCT-II or DCT-III `c`: ortho, or none times a factor (norms
// backward and forward: a constant factor on the unnormalized kind, core/r2r.hpp, a DST axis' its DCT's; the engines'
// none is the DCT-II unscaled and the DCT-III times 1/(2n)). nullopt where the norm is not a constant factor.
struct EngineNorm {
  core::Norm norm;
  double scale;
};
std::optional<EngineNorm> engine_norm(const core::R2rSpec& s, core::Norm norm, int a, R2rKind c) {
  if (norm == core::Norm::kOrtho) return EngineNorm{core::Norm::kOrtho, 1.0};
  const core::r2r::AxisScale sc = core::r2r::axis_scale(as_dct(s.kinds[a]), s.inverse, norm, s.dims[a]);
  if (!sc.pre.empty()) return std::nullopt;
  const double f = sc.post.empty() ? 1.0 : sc.post[0];
  return EngineNorm{core::Norm::kNone, as_dct(c) == R2rKind::kDct2 ? f : f * 2.0 * static_cast<double>(s.dims[a])};
}

// A DCT-II/III or DST-II/III axis of a smooth length outside the N-D step: one SmoothLines kernel of cuda-fft2d's
// smooth route (kernels/dct2d/smooth.hpp, the reorder, the DST's signs and reversal and the pre/postprocess in its
// loads and stores, in place) instead of a LineStep's gather, cuFFT and scatter: lines contiguous (inner 1) or down the
// columns of outer n x inner matrices.
template <class T>
class SmoothStep {
 public:
  static bool fits(R2rKind computed, i64 n, i64 inner) {
    const R2rKind c = as_dct(computed);
    return (c == R2rKind::kDct2 || c == R2rKind::kDct3) && n >= 2 && inner < (i64{1} << 31) &&
           SmoothLines<T>::supports(n, inner > 1) && SmoothLines<T>::bluestein(n, inner > 1) == 0;
  }
  SmoothStep(R2rKind computed, EngineNorm nm, i64 outer, i64 n, i64 inner)
      : lines_(n, nm.norm, inner > 1, as_dct(computed) == R2rKind::kDct3, nm.scale, as_dct(computed) != computed),
        outer_(outer),
        inner_(inner) {}
  std::size_t ws1() const { return 0; }
  std::size_t ws2() const { return 0; }
  void run(const T* src, T* dst, void*, void*, cudaStream_t s) const {
    lines_.run(src, dst, outer_, inner_ > 1 ? inner_ : 0, s);
  }

 private:
  SmoothLines<T> lines_;
  i64 outer_, inner_;
};

// A DCT-I or DST-I axis: one dct1_lines kernel (kernels/r2r/dct1_lines.cuh: the DCT-II of the line's neighbour sums
// and differences in one complex FFT of M points (n − 1, n + 1), or, where dct1::split_pays, split into a half-length
// DCT-I / DST-I and a DCT-III, FFTs of M/2; for M with a prime factor above 13 the FFT of M points by Bluestein's,
// two FFTs of a smooth Lb >= 2M − 1; the norm's factors in its loads and stores), along contiguous lines or down the
// columns of outer n x inner matrices, in place, instead of a LineStep's gather, cuFFT's real FFT of 2M points and
// scatter; where M is smooth, or where Bluestein's pays (smooth::bluestein_pays) and Lb fits a CTA (dct1::config;
// M <= 6824 in f32, <= 3218 in f64).
template <class T>
class Dct1Step {
 public:
  static bool fits(R2rKind computed, i64 n, i64 inner) {
    if (computed != R2rKind::kDct1 && computed != R2rKind::kDst1) return false;
    const bool dst = computed == R2rKind::kDst1;
    const i64 m = dct1::fft_length(n, dst);
    return n >= (dst ? 1 : 2) && m < (i64{1} << 24) && inner < (i64{1} << 31) &&
           (dct1::smooth_fft(m) || smooth::bluestein_pays<T>(m)) && dct1::config<T>(n, dst, inner > 1).lines > 0;
  }
  Dct1Step(R2rKind kind, bool inverse, core::Norm norm, i64 outer, i64 n, i64 inner)
      : dst_(core::r2r::computed_kind(kind, inverse) == R2rKind::kDst1),
        n_(n),
        m_(dct1::fft_length(n, dst_)),
        outer_(outer),
        inner_(inner),
        c_(dct1::config<T>(n, dst_, inner > 1)) {
    const core::r2r::AxisScale sc = core::r2r::axis_scale(kind, inverse, norm, n);
    const dct1::Tables<T> t = dct1::dct1_tables<T>(n, dst_, c_.fft, sc.post);
    std::vector<T> pre(static_cast<std::size_t>(n), T(1));
    for (std::size_t i = 0; i < sc.pre.size(); ++i) pre[i] = static_cast<T>(sc.pre[i]);
    // The passes of the FFT length: M (M/2 with the split), or Bluestein's Lb with its chirp and B.
    const i64 len = c_.bl > 0 ? c_.bl : c_.fft;
    std::vector<smooth::Pass> passes;
    smooth::plan_passes(len, passes);
    npass_ = static_cast<int>(passes.size());
    passes_ = upload_table(passes);
    fft_tw_ = upload_table(smooth::fft_twiddles<T>(len));
    if (c_.bl > 0) {
      const smooth::BluesteinTables<T> bt = smooth::bluestein_tables<T>(m_, c_.bl);
      chirp_ = upload_table(bt.chirp);
      bfft_ = upload_table(bt.bfft);
    }
    tw_ = upload_table(t.tw);
    kp_ = upload_table(t.kp);
    gain_ = upload_table(t.gain);
    pre_ = upload_table(pre);
    // The kernel compiled for M where there is one (same launch shape; smooth M only), else M at run time.
    fn_ = dct1::compiled_kernel<T>(m_, inner_ > 1);
    if (fn_ == nullptr) fn_ = dct1::runtime_kernel<T>(c_, inner_ > 1);
    if (fn_ == nullptr)
      throw Error(ErrorCode::kUnsupported, "cuda-r2r", "no DCT-I / DST-I line kernel for this length");
    if (c_.smem_bytes > 48 * 1024)
      DCT_CUDA_CHECK(cudaFuncSetAttribute(fn_, cudaFuncAttributeMaxDynamicSharedMemorySize, smooth::kMaxSmem));
  }
  std::size_t ws1() const { return 0; }
  std::size_t ws2() const { return 0; }
  void run(const T* src, T* dst, void*, void*, cudaStream_t s) const {
    dct1::Args<T> a;
    a.in = src;
    a.out = dst;
    a.fft_tw = fft_tw_.template as<const cx_t<T>>();
    a.passes = passes_.template as<const smooth::Pass>();
    a.npass = npass_;
    a.tw = tw_.template as<const cx_t<T>>();
    a.pre = pre_.template as<const T>();
    a.gain = gain_.template as<const T>();
    a.kp = kp_.template as<const int>();
    a.len = static_cast<int>(n_);
    a.m = c_.fft;
    a.dst = dst_ ? 1 : 0;
    a.lines_per_cta = c_.lines;
    a.dl = smooth::FastDiv(static_cast<unsigned>(n_));
    a.bl = c_.bl;
    a.chirp = chirp_.template as<const cx_t<T>>();
    a.bfft = bfft_.template as<const cx_t<T>>();
    i64 grid;
    if (inner_ > 1) {
      a.width = static_cast<int>(inner_);
      a.n_tiles = static_cast<int>((inner_ + c_.lines - 1) / c_.lines);
      grid = a.n_tiles * outer_;
    } else {
      a.lines = outer_;
      grid = (outer_ + c_.lines - 1) / c_.lines;
    }
    if (grid < 1) return;
    if (grid >= (i64{1} << 31)) throw Error(ErrorCode::kUsage, "cuda-r2r", "too many lines for one launch");
    void* args[] = {&a};
    DCT_CUDA_CHECK(cudaLaunchKernel(fn_, dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(c_.threads)),
                                    args, static_cast<std::size_t>(c_.smem_bytes), s));
  }

 private:
  bool dst_;
  i64 n_, m_, outer_, inner_;
  dct1::Config c_;
  int npass_ = 0;
  const void* fn_ = nullptr;
  DeviceBuffer passes_, fft_tw_, tw_, kp_, gain_, pre_;
  DeviceBuffer chirp_, bfft_;  // Bluestein's (c_.bl > 0): the chirp and B
};

// Whether the two trailing axes from `start` are such a run, and how the engine computes it.
std::optional<Dct2dRun> as_dct2d(const core::R2rSpec& s, core::Norm norm, int start) {
  if (s.rank - start != 2) return std::nullopt;
  const R2rKind c = as_dct(core::r2r::computed_kind(s.kinds[start], s.inverse));
  if (as_dct(core::r2r::computed_kind(s.kinds[start + 1], s.inverse)) != c ||
      (c != R2rKind::kDct2 && c != R2rKind::kDct3))
    return std::nullopt;
  const core::Op op = c == R2rKind::kDct2 ? core::Op::kDct2 : core::Op::kIdct2;
  const unsigned dst =
      (is_dst(s.kinds[start]) ? dct2d::kFlipAxis0 : 0u) | (is_dst(s.kinds[start + 1]) ? dct2d::kFlipAxis1 : 0u);
  const auto n0 = engine_norm(s, norm, start, c), n1 = engine_norm(s, norm, start + 1, c);
  if (!n0 || !n1) return std::nullopt;
  return Dct2dRun{op, n0->norm, dst, {n0->scale, n1->scale}};
}

template <class T>
using Step = std::variant<LineStep<T>, SmoothStep<T>, Dct1Step<T>, Dct2dStep<T>, NdStep<T, 2>, NdStep<T, 3>>;

// The first axis of the trailing run of one family the N-D step takes (rank when there is none of two or more).
int nd_start(const core::R2rSpec& s) {
  const int r = s.rank;
  const auto fam = [&](int a) { return family(core::r2r::computed_kind(s.kinds[a], s.inverse)); };
  if (fam(r - 1) == 0 || s.dims[r - 1] < 2) return r;
  int start = r - 1;
  while (start > 0 && fam(start - 1) == fam(r - 1) && s.dims[start - 1] >= 2) --start;
  return r - start >= 2 ? start : r;
}

// Whether axis a, outside the N-D step, is a SmoothStep (else a LineStep).
template <class T>
bool line_step_smooth(const core::R2rSpec& s, core::Norm norm, int a) {
  const R2rKind c = core::r2r::computed_kind(s.kinds[a], s.inverse);
  i64 inner = 1;
  for (int b = a + 1; b < s.rank; ++b) inner *= s.dims[b];
  return SmoothStep<T>::fits(c, s.dims[a], inner) && engine_norm(s, norm, a, c);
}

// Whether a 3-D run of the DCT-II/III family from `start` can be split into cuda-fft2d's engine on its last two axes,
// batched, and one SmoothStep down its first, instead of the 3-D step (reorder, cuFFT's 3-D real FFT, postprocess).
template <class T>
bool split3_possible(const core::R2rSpec& s, core::Norm norm, int start) {
  return s.rank - start == 3 && as_dct2d(s, norm, start + 1) && line_step_smooth<T>(s, norm, start);
}

// The estimate's choice where split3_possible (--effort measure times both): the split for the forward family (DCT-II,
// DST-II) where a side is not a power of two, whose 3-D real FFT cuFFT runs far slower than at powers of two, and in
// f32 where the engine takes its smooth route on the trailing sides (powers of two up to kSmoothBatchPow2MaxSide);
// the 3-D step otherwise (docs/decisions.md §4).
template <class T>
bool split3_wanted(const core::R2rSpec& s, int start) {
  if (family(core::r2r::computed_kind(s.kinds[start], s.inverse)) != 2) return false;
  for (int a = start; a < s.rank; ++a)
    if ((s.dims[a] & (s.dims[a] - 1)) != 0) return true;
  return sizeof(T) == 4 &&
         fft2d_estimate_route<T>(s.dims[start + 1], s.dims[start + 2], s.dims[start], false) == Fft2dRoute::kSmooth;
}

template <class T>
class R2rPlan final : public GpuPlan {
 public:
  // route: the 2-D engine's route where the request has a Dct2dStep (nullopt: cuda-fft2d's estimate). split3: a 3-D
  // run of the DCT-II/III family as split3_possible's two steps instead of the 3-D step.
  R2rPlan(const core::TransformDesc& d, std::optional<Fft2dRoute> route, bool split3 = false)
      : GpuPlan(d, d.bytes(), d.bytes()) {
    const core::R2rSpec& s = d.r2r;
    const int start = nd_start(s) + (split3 ? 1 : 0);
    // The N-D step first (it reads the input; the line steps after it work in place in the output).
    i64 lead = d.batch;
    for (int a = 0; a < start; ++a) lead *= s.dims[a];
    if (const auto dct2d = as_dct2d(s, d.norm, start))
      steps_.push_back(
          std::make_unique<Step<T>>(std::in_place_type<Dct2dStep<T>>, *dct2d, s.dims[start], s.dims[start + 1], lead,
                                    route.value_or(fft2d_estimate_route<T>(s.dims[start], s.dims[start + 1], lead,
                                                                           dct2d->op == core::Op::kIdct2))));
    else if (s.rank - start == 2)
      steps_.push_back(std::make_unique<Step<T>>(std::in_place_type<NdStep<T, 2>>, s, d.norm, d.batch, start));
    else if (s.rank - start == 3)
      steps_.push_back(std::make_unique<Step<T>>(std::in_place_type<NdStep<T, 3>>, s, d.norm, d.batch, start));
    for (int a = 0; a < start; ++a) {
      if (s.kinds[a] == R2rKind::kNone) continue;
      i64 outer = d.batch, inner = 1;
      for (int b = 0; b < a; ++b) outer *= s.dims[b];
      for (int b = a + 1; b < s.rank; ++b) inner *= s.dims[b];
      if (Dct1Step<T>::fits(core::r2r::computed_kind(s.kinds[a], s.inverse), s.dims[a], inner)) {
        steps_.push_back(std::make_unique<Step<T>>(std::in_place_type<Dct1Step<T>>, s.kinds[a], s.inverse, d.norm,
                                                   outer, s.dims[a], inner));
      } else if (line_step_smooth<T>(s, d.norm, a)) {
        const R2rKind c = core::r2r::computed_kind(s.kinds[a], s.inverse);
        steps_.push_back(std::make_unique<Step<T>>(std::in_place_type<SmoothStep<T>>, c, *engine_norm(s, d.norm, a, c),
                                                   outer, s.dims[a], inner));
      } else {
        steps_.push_back(std::make_unique<Step<T>>(std::in_place_type<LineStep<T>>, s.kinds[a], s.inverse, d.norm,
                                                   outer, s.dims[a], inner));
      }
    }
    std::size_t b1 = 0, b2 = 0;
    for (const auto& st : steps_)
      std::visit(
          [&](const auto& x) {
            b1 = std::max(b1, x.ws1());
            b2 = std::max(b2, x.ws2());
          },
          *st);
    w1_ = DeviceBuffer(std::max<std::size_t>(b1, 16));
    w2_ = DeviceBuffer(std::max<std::size_t>(b2, 16));
  }

 private:
  void run(const void* in, void* out, cudaStream_t s) const override {
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    for (const auto& st : steps_) {
      std::visit([&](const auto& x) { x.run(src, dst, w1_.get(), w2_.get(), s); }, *st);
      src = dst;
    }
  }
  std::vector<std::unique_ptr<Step<T>>> steps_;
  DeviceBuffer w1_, w2_;
};

core::Support supports(const core::TransformDesc& d) {
  if (d.op != core::Op::kR2r) return core::Support::no("implements the real-to-real family (dct, dst, r2r) only");
  return core::r2r::check_r2r_desc(d);
}

template <class T>
std::unique_ptr<core::Plan> make_typed(const core::TransformDesc& d) {
  const core::R2rSpec& s = d.r2r;
  const int start = nd_start(s);
  if (split3_possible<T>(s, d.norm, start)) {
    if (d.effort == core::Effort::kMeasure)
      return faster_plan(std::make_unique<R2rPlan<T>>(d, std::nullopt, false),
                         std::make_unique<R2rPlan<T>>(d, std::nullopt, true), d);
    return std::make_unique<R2rPlan<T>>(d, std::nullopt, split3_wanted<T>(s, start));
  }
  if (const auto run = as_dct2d(s, d.norm, start); d.effort == core::Effort::kMeasure && run) {
    const i64 n0 = s.dims[start], n1 = s.dims[start + 1];
    i64 lead = d.batch;
    for (int a = 0; a < start; ++a) lead *= s.dims[a];
    if (fft2d_route<T>(n0, n1, lead) == Fft2dRoute::kR2c && SmoothLines<T>::supports(n1, false) &&
        smooth_columns_supported<T>(n0))
      return faster_plan(std::make_unique<R2rPlan<T>>(d, Fft2dRoute::kR2c),
                         std::make_unique<R2rPlan<T>>(d, Fft2dRoute::kSmooth), d);
  }
  return std::make_unique<R2rPlan<T>>(d, std::nullopt);
}

std::unique_ptr<core::Plan> make(const core::TransformDesc& d) {
  return d.prec == core::Precision::kF32 ? make_typed<float>(d) : make_typed<double>(d);
}

}  // namespace

Algorithm r2r_algorithm() { return {&supports, &make}; }

}  // namespace dct::cuda
