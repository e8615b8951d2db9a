/* SmoothLines: launchers of the smooth-size line DCT kernels of kernels/dct2d/smooth.cuh (the math is derived there):
   the kernel compiled for the length where smooth::CompiledLengths has it, else the run-time one.
   The FFT twiddles are built in long double at construction (smooth::fft_twiddles, shared with
   tests/emulate/emulate_smooth.cpp) and uploaded once with the axis tables (gain 2: each axis is a 1-D DCT-II). */
#include "kernels/dct2d/smooth.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/dct2d/smooth_cols4.cuh"
#include "kernels/dct2d/smooth_tiles.cuh"

namespace dct::cuda {
namespace {

template <class T, bool kCols, bool kInverse, bool kBluestein>
const void* kernel_for(int kc) {
  const auto fn = [](auto c) -> const void* {
    constexpr int kC = decltype(c)::value;
    if constexpr (kBluestein)
      return reinterpret_cast<const void*>(&smooth::smooth_lines_bluestein<T, kCols, kInverse, kC>);
    else
      return reinterpret_cast<const void*>(&smooth::smooth_lines<T, kCols, kInverse, kC>);
  };
  if constexpr (!kCols) {
    return fn(std::integral_constant<int, 1>{});
  } else {
    switch (kc) {
      case 16:
        return fn(std::integral_constant<int, 16>{});
      case 8:
        return fn(std::integral_constant<int, 8>{});
      case 4:
        return fn(std::integral_constant<int, 4>{});
      default:
        return fn(std::integral_constant<int, 2>{});
    }
  }
}

// The FFT length of a SmoothLines line of n points: n where n is smooth, Bluestein's L where n has a prime factor above
// 13 and smooth::bluestein_pays; 0 where neither, or where that length's lines do not fit a CTA in this layout.
template <class T>
std::int64_t fft_length(std::int64_t n, bool along_cols) {
  if (n < 1 || n >= (std::int64_t{1} << 24)) return 0;
  std::vector<smooth::Pass> passes;
  std::int64_t len = n;
  if (!smooth::plan_passes(n, passes)) {
    if (n < 2 || !smooth::bluestein_pays<T>(n)) return 0;
    len = smooth::bluestein_length<T>(n);
    if (len < 1 || !smooth::plan_passes(len, passes)) return 0;
  }
  return smooth::config<T>(len, along_cols).pairs > 0 ? len : 0;
}

// Bluestein's FFT length of a line of n points where SmoothLines takes it that way, else 0.
template <class T>
std::int64_t bluestein_fft_length(std::int64_t n, bool along_cols) {
  const std::int64_t len = fft_length<T>(n, along_cols);
  return len != n ? len : 0;
}

// The FFT passes of length n in device memory (npass: their count).
DeviceBuffer upload_passes(std::int64_t n, int& npass) {
  std::vector<smooth::Pass> passes;
  smooth::plan_passes(n, passes);
  DeviceBuffer d(sizeof(smooth::Pass) * passes.size() + 1);
  if (!passes.empty())
    DCT_CUDA_CHECK(cudaMemcpy(d.get(), passes.data(), sizeof(smooth::Pass) * passes.size(), cudaMemcpyHostToDevice));
  npass = static_cast<int>(passes.size());
  return d;
}

// The FFT twiddles of length n in device memory.
template <class T>
DeviceBuffer upload_twiddles(std::int64_t n) {
  const std::vector<cx_t<T>> tw = smooth::fft_twiddles<T>(n);
  DeviceBuffer d(sizeof(cx_t<T>) * tw.size());
  DCT_CUDA_CHECK(cudaMemcpy(d.get(), tw.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

template <class T>
bool SmoothLines<T>::supports(std::int64_t n, bool along_cols) {
  return fft_length<T>(n, along_cols) > 0;
}

template <class T>
std::int64_t SmoothLines<T>::bluestein(std::int64_t n, bool along_cols) {
  return bluestein_fft_length<T>(n, along_cols) > 0 ? smooth::largest_prime_factor(n) : 0;
}

template <class T>
bool SmoothLines<T>::compiled(std::int64_t n, bool along_cols) {
  return supports(n, along_cols) && smooth::compiled(n);
}

template <class T>
int SmoothLines<T>::passes(std::int64_t n) {
  std::vector<smooth::Pass> passes;
  return n >= 1 && n < (std::int64_t{1} << 24) && smooth::plan_passes(n, passes) ? static_cast<int>(passes.size()) : 0;
}

template <class T>
SmoothAxisBuffers<T>::SmoothAxisBuffers(std::int64_t n, core::Norm norm, double scale, std::int64_t fft_len)
    : tables(n, norm, 2.0, scale),
      fft_tw(upload_twiddles<T>(fft_len > 0 ? fft_len : n)),
      passes(upload_passes(fft_len > 0 ? fft_len : n, npass)) {}

namespace {
// n, or kUsage where SmoothLines does not support it (checked before any table is made).
template <class T>
std::int64_t supported_line(std::int64_t n, bool along_cols) {
  if (!SmoothLines<T>::supports(n, along_cols))
    throw Error(ErrorCode::kUsage, "smooth lines", "unsupported line length " + std::to_string(n));
  return n;
}
}  // namespace

// A launch of the run-time kernel whose grid is smaller than this many CTAs per SM takes the narrowest shape (one
// line pair per CTA, columns: tiles of two): more, shorter CTAs finish sooner than a few long ones on few SMs (the
// compiled kernels keep their shape; docs/decisions.md §10).
constexpr int kNarrowBelowWave = 1;

template <class T>
SmoothLines<T>::SmoothLines(std::int64_t n, core::Norm norm, bool along_cols, bool inverse, double scale, bool dst)
    : n_(n),
      cols_(along_cols),
      inverse_(inverse),
      dst_(dst),
      bl_(bluestein_fft_length<T>(supported_line<T>(n, along_cols), along_cols)),
      axis_(n, norm, scale, bl_) {
  const std::int64_t len = bl_ > 0 ? bl_ : n;  // the FFT's length
  const smooth::Config c = smooth::config<T>(len, along_cols);
  const auto run_time = [&](int kc) {
    const auto pick = [&](auto b) {
      constexpr bool kB = decltype(b)::value;
      return along_cols ? (inverse ? kernel_for<T, true, true, kB>(kc) : kernel_for<T, true, false, kB>(kc))
                        : (inverse ? kernel_for<T, false, true, kB>(kc) : kernel_for<T, false, false, kB>(kc));
    };
    return bl_ > 0 ? pick(std::true_type{}) : pick(std::false_type{});
  };
  if (bl_ > 0) {
    const smooth::BluesteinTables<T> bt = smooth::bluestein_tables<T>(n, bl_);
    chirp_ = DeviceBuffer(sizeof(cx_t<T>) * bt.chirp.size());
    DCT_CUDA_CHECK(cudaMemcpy(chirp_.get(), bt.chirp.data(), chirp_.bytes(), cudaMemcpyHostToDevice));
    bfft_ = DeviceBuffer(sizeof(cx_t<T>) * bt.bfft.size());
    DCT_CUDA_CHECK(cudaMemcpy(bfft_.get(), bt.bfft.data(), bfft_.bytes(), cudaMemcpyHostToDevice));
  }
  Shape first{bl_ > 0 ? nullptr : smooth_compiled_kernel<T>(n, along_cols, inverse), c.pairs, c.threads, c.smem_bytes,
              c.kc};
  const bool compiled = first.fn != nullptr;
  if (!compiled) first.fn = run_time(c.kc);
  shapes_.push_back(first);
  if (!compiled && c.pairs > 1) {
    const int kc = along_cols ? 2 : 1;
    shapes_.push_back(
        {run_time(kc), 1, smooth::line_threads(1, len), static_cast<int>(smooth::smem_bytes<T>(1, len)), kc});
  }
  // The attribute is the kernel's, shared by every plan that launches it: the largest any plan may ask for.
  for (const Shape& sh : shapes_)
    if (sh.smem > 48 * 1024)
      DCT_CUDA_CHECK(cudaFuncSetAttribute(sh.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smooth::kMaxSmem));
  sms_ = current_sm_count();
}

template <class T>
std::int64_t SmoothLines<T>::ctas(const Shape& sh, std::int64_t count, std::int64_t width) const {
  return cols_ ? (width + sh.kc - 1) / sh.kc * count : (count + 2 * sh.pairs - 1) / (2 * sh.pairs);
}

template <class T>
const typename SmoothLines<T>::Shape& SmoothLines<T>::pick(std::int64_t count, std::int64_t width) const {
  const Shape& first = shapes_.front();
  return ctas(first, count, width) < std::int64_t{kNarrowBelowWave} * sms_ ? shapes_.back() : first;
}

template <class T>
void SmoothLines<T>::run(const T* in, T* out, std::int64_t count, std::int64_t width, cudaStream_t s) const {
  if (count < 1) return;
  const Shape& sh = pick(count, width);
  smooth::Args<T> a;
  a.n = static_cast<int>(n_);
  a.npass = axis_.npass;
  a.passes = axis_.passes.template as<const smooth::Pass>();
  a.dn = smooth::FastDiv(static_cast<unsigned>(n_));
  a.in = in;
  a.out = out;
  a.fft_tw = axis_.fft_tw.template as<const cx_t<T>>();
  const AxisTables<T> t = axis_.tables.view();
  a.tw = t.tw;
  a.fs = t.fs;
  a.ia = t.ia;
  a.pairs = sh.pairs;
  a.dst = dst_ ? 1 : 0;
  if (bl_ > 0) {
    a.bl = static_cast<int>(bl_);
    a.chirp = chirp_.template as<const cx_t<T>>();
    a.bfft = bfft_.template as<const cx_t<T>>();
  }
  if (cols_) {
    a.width = static_cast<int>(width);
    a.n_tiles = static_cast<int>((width + sh.kc - 1) / sh.kc);
  } else {
    a.lines = count;
  }
  const std::int64_t grid = ctas(sh, count, width);
  if (grid < 1) return;
  if (grid >= (std::int64_t{1} << 31) || (cols_ && width >= (std::int64_t{1} << 31)))
    throw Error(ErrorCode::kUsage, "smooth lines", "too many lines for one launch");
  void* args[] = {&a};
  // A 2-D run is the rows kernel then the columns kernel: each is launched while the one before it completes.
  launch_dependent(sh.fn, dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(sh.threads)),
                   static_cast<std::size_t>(sh.smem), s, args);
}

// ---- SmoothCols4 -------------------------------------------------------------------------------------------------

// SmoothCols4 takes the columns where SmoothLines' columns kernel has no room for more than one pair of columns
// (kc = 2: 8-byte row segments in f32, 16 in f64), unless a kernel is compiled for the length (docs/decisions.md §10).
constexpr int kCols4BelowColumns = 4;

template <class T>
bool SmoothCols4<T>::supports(std::int64_t n) {
  std::vector<smooth::Pass> passes;
  return n >= 4 && n < (std::int64_t{1} << 24) && smooth::plan_passes(n, passes) && smooth::cols4_config<T>(n).ok;
}

template <class T>
bool SmoothCols4<T>::wanted(std::int64_t n) {
  if (!supports(n)) return false;
  if (!SmoothLines<T>::supports(n, true)) return true;
  return smooth::config<T>(n, true).kc < kCols4BelowColumns && !smooth::compiled(n);
}

template <class T>
bool smooth_columns_supported(std::int64_t n) {
  return SmoothLines<T>::supports(n, true) || SmoothCols4<T>::supports(n);
}

template <class T>
SmoothCols4<T>::SmoothCols4(std::int64_t n, core::Norm norm, bool inverse, double scale, bool dst)
    : n_(n), inverse_(inverse), dst_(dst) {
  if (!supports(n)) throw Error(ErrorCode::kUsage, "smooth columns", "unsupported column length " + std::to_string(n));
  const smooth::Cols4Config c = smooth::cols4_config<T>(n);
  na_ = c.na;
  nb_ = c.nb;
  groups_ = c.groups;
  threads_a_ = c.threads_a;
  threads_b_ = c.threads_b;
  smem_a_ = c.smem_a;
  smem_b_ = c.smem_b;
  tables_ = AxisTableBuffers<T>(n, norm, 2.0, scale);
  const std::vector<cx_t<T>> wn = smooth::cols4_wn<T>(n);
  wn_ = DeviceBuffer(sizeof(cx_t<T>) * wn.size());
  DCT_CUDA_CHECK(cudaMemcpy(wn_.get(), wn.data(), wn_.bytes(), cudaMemcpyHostToDevice));
  tw_a_ = upload_twiddles<T>(na_);
  passes_a_ = upload_passes(na_, npass_a_);
  tw_b_ = upload_twiddles<T>(nb_);
  passes_b_ = upload_passes(nb_, npass_b_);
  constexpr int kP = smooth::cols4_pairs<T>();
  const void* fns[] = {reinterpret_cast<const void*>(&smooth::smooth_cols4_a<T, kP, false>),
                       reinterpret_cast<const void*>(&smooth::smooth_cols4_a<T, kP, true>),
                       reinterpret_cast<const void*>(&smooth::smooth_cols4_b<T, kP, false>),
                       reinterpret_cast<const void*>(&smooth::smooth_cols4_b<T, kP, true>)};
  if (std::max(smem_a_, smem_b_) > 48 * 1024)
    for (const void* fn : fns)
      DCT_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smooth::kMaxSmem));
}

template <class T>
void SmoothCols4<T>::run(const T* in, T* out, cx_t<T>* work, std::int64_t count, std::int64_t width,
                         cudaStream_t s) const {
  if (count < 1 || width < 1) return;
  constexpr int kP = smooth::cols4_pairs<T>();
  const std::int64_t wp = (width + 1) / 2, tiles = (wp + kP - 1) / kP;
  if (tiles >= (std::int64_t{1} << 31) || n_ * width >= (std::int64_t{1} << 40))
    throw Error(ErrorCode::kUsage, "smooth columns", "matrix too wide for one launch");
  smooth::Cols4Args<T> a;
  a.wn = wn_.template as<const cx_t<T>>();
  const AxisTables<T> t = tables_.view();
  a.tw = t.tw;
  a.fs = t.fs;
  a.ia = t.ia;
  a.tw_a = tw_a_.template as<const cx_t<T>>();
  a.passes_a = passes_a_.template as<const smooth::Pass>();
  a.tw_b = tw_b_.template as<const cx_t<T>>();
  a.passes_b = passes_b_.template as<const smooth::Pass>();
  a.npass_a = npass_a_;
  a.npass_b = npass_b_;
  a.n = static_cast<int>(n_);
  a.na = na_;
  a.nb = nb_;
  a.width = static_cast<int>(width);
  a.wp = static_cast<int>(wp);
  a.groups = groups_;
  a.dna = smooth::FastDiv(static_cast<unsigned>(na_));
  a.dnb = smooth::FastDiv(static_cast<unsigned>(nb_));
  a.dst = dst_ ? 1 : 0;
  const unsigned ga = static_cast<unsigned>((na_ + groups_ - 1) / groups_), gb = static_cast<unsigned>(nb_ / 2 + 1);
  // Grid z is at most 65535: batches in chunks of that many matrices.
  constexpr std::int64_t kMaxZ = 65535;
  for (std::int64_t m0 = 0; m0 < count; m0 += kMaxZ) {
    const unsigned mats = static_cast<unsigned>(std::min(kMaxZ, count - m0));
    const std::int64_t real0 = m0 * n_ * width, cx0 = m0 * n_ * wp;
    a.work = work + cx0;
    void* args[] = {&a};
    const auto launch = [&](const void* fn, bool pass_a) {
      launch_dependent(fn, dim3(static_cast<unsigned>(tiles), pass_a ? ga : gb, mats),
                       dim3(static_cast<unsigned>(pass_a ? threads_a_ : threads_b_)),
                       static_cast<std::size_t>(pass_a ? smem_a_ : smem_b_), s, args);
    };
    a.in = in + real0;
    a.out = out + real0;
    if (!inverse_) {
      launch(reinterpret_cast<const void*>(&smooth::smooth_cols4_a<T, kP, false>), true);
      launch(reinterpret_cast<const void*>(&smooth::smooth_cols4_b<T, kP, false>), false);
    } else {
      launch(reinterpret_cast<const void*>(&smooth::smooth_cols4_b<T, kP, true>), false);
      launch(reinterpret_cast<const void*>(&smooth::smooth_cols4_a<T, kP, true>), true);
    }
  }
}

// ---- SmoothTiles -------------------------------------------------------------------------------------------------

template <class T>
bool SmoothTiles<T>::supports(std::int64_t h, std::int64_t w) {
  return h < (std::int64_t{1} << 24) && w < (std::int64_t{1} << 24) && smooth::tile_config<T>(h, w).threads > 0;
}

template <class T>
bool SmoothTiles<T>::compiled(std::int64_t h, std::int64_t w) {
  return supports(h, w) && smooth::with_compiled_tile<T, false>(h, w, [](auto) {});
}

template <class T>
SmoothTiles<T>::SmoothTiles(std::int64_t h, std::int64_t w, core::Norm norm, bool inverse, unsigned dst,
                            std::array<double, 2> scale)
    : h_(h), w_(w), inverse_(inverse), dst_(dst), rows_(w, norm, scale[1]), cols_(h, norm, scale[0]) {
  if (!supports(h, w))
    throw Error(ErrorCode::kUsage, "smooth tiles", "unsupported matrix " + std::to_string(h) + "x" + std::to_string(w));
  const smooth::TileConfig c = smooth::tile_config<T>(h, w);
  threads_ = c.threads;
  smem_ = c.smem_bytes;
  const auto take = [&](auto k) { fn_ = reinterpret_cast<const void*>(k); };
  if (!(inverse ? smooth::with_compiled_tile<T, true>(h, w, take) : smooth::with_compiled_tile<T, false>(h, w, take)))
    fn_ = inverse ? reinterpret_cast<const void*>(&smooth::smooth_tiles<T, true>)
                  : reinterpret_cast<const void*>(&smooth::smooth_tiles<T, false>);
  if (smem_ > 48 * 1024)
    DCT_CUDA_CHECK(cudaFuncSetAttribute(fn_, cudaFuncAttributeMaxDynamicSharedMemorySize, smooth::kMaxSmem));
}

template <class T>
void SmoothTiles<T>::run(const T* in, T* out, std::int64_t count, cudaStream_t s) const {
  if (count < 1) return;
  if (count >= (std::int64_t{1} << 31))
    throw Error(ErrorCode::kUsage, "smooth tiles", "too many matrices for one launch");
  smooth::TileArgs<T> a;
  a.in = in;
  a.out = out;
  const auto axis = [](const SmoothAxisBuffers<T>& x, std::int64_t n) {
    smooth::TileAxis<T> t;
    const AxisTables<T> v = x.tables.view();
    t.fft_tw = x.fft_tw.template as<const cx_t<T>>();
    t.tw = v.tw;
    t.fs = v.fs;
    t.ia = v.ia;
    t.passes = x.passes.template as<const smooth::Pass>();
    t.n = static_cast<int>(n);
    t.npass = x.npass;
    return t;
  };
  a.rows = axis(rows_, w_);
  a.cols = axis(cols_, h_);
  a.dw = smooth::FastDiv(static_cast<unsigned>(w_));
  a.dh = smooth::FastDiv(static_cast<unsigned>(h_));
  a.dst = dst_;
  void* args[] = {&a};
  DCT_CUDA_CHECK(cudaLaunchKernel(fn_, dim3(static_cast<unsigned>(count)), dim3(static_cast<unsigned>(threads_)), args,
                                  static_cast<std::size_t>(smem_), s));
}

template struct SmoothAxisBuffers<float>;
template struct SmoothAxisBuffers<double>;
template class SmoothLines<float>;
template class SmoothLines<double>;
template class SmoothTiles<float>;
template class SmoothCols4<float>;
template class SmoothCols4<double>;
template bool smooth_columns_supported<float>(std::int64_t);
template bool smooth_columns_supported<double>(std::int64_t);
template class SmoothTiles<double>;

}  // namespace dct::cuda
