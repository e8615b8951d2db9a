/* The CPU compressor: the compression modes (README "Compression modes and the report"), step by step,
   on host planes.

   jpeg: the coded planes (gray, or JFIF YCbCr of RGB rounded to 8-bit samples as libjpeg does) padded to
   multiples of 8 by repeating the last row/column, level-shifted by −128; the orthonormal 8x8 DCT-II
   (dct2 --block 8 through the registry: cpu-8x8-flmad under auto); q = floor(F/Q + 0.5) with the
   quality-scaled Annex K tables (luminance for Y/gray, chrominance for Cb/Cr); the inverse of q·Q; +128,
   rounded and clamped to 0..255 (8-bit samples, then YCbCr -> RGB rounded and clamped); cropped.
   threshold E / keep F: the whole-image orthonormal DCT-II per channel (no level shift), coefficients with
   |c| < E zeroed / all but the ceil(F·H·W) largest |c| of each channel zeroed (ties: lower index kept,
   found with std::nth_element), the inverse, rounded and clamped to the image range.
   lot: as jpeg with cpu-lot's 8x8 LOT (cpu/lot.cpp) in place of the block DCT: the padded
   hp x wp planes give (hp+8) x (wp+8) coefficients, quantized block by block with the same tables;
   coefficient m of a LOT block has frequency math::lot::kFrequency[m] (P0's columns are the even basis
   functions 0, 2, 4, 6 then the odd ones 1, 3, 5, 7), so (r, c) takes table entry (freq(r), freq(c)).
   Coefficient symbols for the entropy estimate: jpeg and lot the integers q; threshold/keep the kept coefficients
   rounded to the nearest integer (dropped ones are 0). */
#include "cpu/compress.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "core/metrics.hpp"
#include "cpu/common.hpp"
#include "cpu/compress_jpeg.hpp"
#include "cpu/lot.hpp"
#include "math/jpeg.hpp"
#include "math/lot.hpp"

namespace dct::cpu {
namespace {

using core::CompressMode;
using core::CompressRequest;
using core::CompressResult;
using core::Dataset;
using core::HostTensor;
using core::Shape2;

std::int32_t symbol_of(double v) {
  const double r = std::floor(v + 0.5);
  return static_cast<std::int32_t>(std::clamp(r, double(std::numeric_limits<std::int32_t>::min()),
                                              double(std::numeric_limits<std::int32_t>::max())));
}

// The sum of (a[i] - b[i])^2 over n values that hold integers 0..255 (8-bit samples, or floats), exactly: in int32
// over chunks of 8192 values (at most 8192 * 255^2 < 2^31). Inlined into the two entry points below, each
// vectorized with an AVX2 clone where the CPU has it.
template <class T>
__attribute__((always_inline)) inline std::int64_t squared_error_of(const T* __restrict a, const T* __restrict b,
                                                                    std::int64_t n) {
  std::int64_t s = 0;
  for (std::int64_t i0 = 0; i0 < n; i0 += 8192) {
    const std::int64_t i1 = std::min(n, i0 + 8192);
    std::int32_t part = 0;
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int32_t d = static_cast<std::int32_t>(a[i]) - static_cast<std::int32_t>(b[i]);
      part += d * d;
    }
    s += part;
  }
  return s;
}
__attribute__((target_clones("avx2", "default"))) std::int64_t squared_error8(const std::uint8_t* a,
                                                                              const std::uint8_t* b, std::int64_t n) {
  return squared_error_of(a, b, n);
}
__attribute__((target_clones("avx2", "default"))) std::int64_t squared_error(const float* a, const float* b,
                                                                             std::int64_t n) {
  return squared_error_of(a, b, n);
}

class CpuCompressor final : public core::Compressor {
 public:
  explicit CpuCompressor(const core::Registry& r) : registry_(r) {}
  std::string_view name() const override { return "cpu"; }
  std::string_view takes() const override { return "compress, every mode"; }
  std::string_view description() const override {
    return "the CPU compressor, on the transform backend that auto (or -b NAME) gives";
  }
  core::Support supports(const CompressRequest&, const Dataset&) const override { return core::Support::yes(); }

  CompressResult run(const CompressRequest& r, const Dataset& in) const override {
    core::validate_compress(r, in);
    if (r.prec == core::Precision::kF32) return run_t<float>(r, in);
    return run_t<double>(r, in);
  }

 private:
  // Plans and runs one transform host to host.
  void transform(const core::TransformDesc& d, const CompressRequest& r, const HostTensor& src, HostTensor& dst,
                 CompressResult& res, const char* stage) const {
    const core::Backend& b = registry_.select(d, r.backend);
    if (res.backend.empty()) res.backend = std::string(b.name());
    core::Stopwatch sw;
    auto plan = b.make_plan(d);
    const core::StageTimes st = plan->execute_host(src.view(), dst.view());
    res.times.add(stage, plan->memory() == core::Memory::kDevice ? st.e2e_ms : sw.elapsed_ms());
  }

  template <class T>
  CompressResult run_t(const CompressRequest& r, const Dataset& in) const {
    if (r.mode == CompressMode::kJpeg && sizeof(T) == 4 && (r.backend == "auto" || r.backend == "cpu-8x8-flmad"))
      return jpeg_blocks(r, in);
    if (!in.has_planes())
      throw Error(ErrorCode::kRuntime, "cpu", "this route needs the input's planes (app::ensure_planes)");
    if (r.mode == CompressMode::kJpeg && r.sampling != core::ChromaSampling::k444 &&
        core::coded_planes(in.channels()) == 3)
      throw Error(ErrorCode::kUnsupported, "cpu",
                  "chroma sampling 4:2:0 runs in f32 with the jpeg block loop (--backend auto or cpu-8x8-flmad)");
    if (r.mode == CompressMode::kJpeg || r.mode == CompressMode::kLot) return jpeg<T>(r, in);
    return whole<T>(r, in);
  }

  // jpeg mode in f32 through cpu-8x8-flmad's graph, one pass over the image: per strip of MCUs (8 rows, 4:2:0 16),
  // the colour conversion into 8-bit samples, 4:2:0's downsampling, then per 8x8 block the forward transform and
  // quantization (math::jpeg::forward_quantize: the exact coefficient arithmetic, shared with the GPU), the
  // dequantization, the inverse and the rounding to 8-bit samples, then the colour conversion back, all while the
  // strip is in cache. 4:2:0's reconstruction image repeats each chroma sample over its 2x2 pixels. Timing rows:
  // prepare (the result's buffers, colour conversion, downsampling), blocks_8x8 (per block DCT, quantization,
  // dequantization, inverse DCT, rounding: one fused step), finish (back to RGB and the error, 4:2:0's second pass,
  // alpha, entropy); the loop's wall time is shared out in proportion to the threads' time in each.
  CompressResult jpeg_blocks(const CompressRequest& r, const Dataset& in) const {
    CompressResult res;
    res.backend = "cpu-8x8-flmad";
    core::Stopwatch sw;
    // The source: the f32 planes, or an 8-bit image's interleaved samples as decoded (Dataset::samples8).
    const bool planar = in.has_planes();
    const HostTensor conv =
        !planar || in.tensor.precision() == core::Precision::kF32 ? HostTensor() : in.tensor.to(r.prec);
    const HostTensor& img = !planar || in.tensor.precision() == core::Precision::kF32 ? in.tensor : conv;
    const std::int64_t h = in.rows(), w = in.cols(), ch = in.channels(), hw = h * w;
    const int np = core::coded_planes(ch);
    const bool s420 = np == 3 && r.sampling == core::ChromaSampling::k420;
    const std::int64_t bh = (h + 7) / 8, bw = (w + 7) / 8;
    const std::int64_t cbh = s420 ? (h + 15) / 16 : bh, cbw = s420 ? (w + 15) / 16 : bw;
    const std::int64_t mcu = s420 ? 16 : 8, strips = (h + mcu - 1) / mcu;
    const std::int64_t xw = s420 ? 16 * cbw : 8 * bw;  // converted columns per row (edge-replicated)
    const std::int64_t cw = 8 * cbw;                   // chroma columns (4:2:0: downsampled)
    core::QuantizedCoefficients& qc = res.quantized;
    qc.blocks_high = bh;
    qc.blocks_wide = bw;
    qc.chroma_blocks_high = np == 3 ? cbh : 0;
    qc.chroma_blocks_wide = np == 3 ? cbw : 0;
    qc.sampling = s420 ? core::ChromaSampling::k420 : core::ChromaSampling::k444;
    qc.quality = r.quality;
    const bool keep = r.keep_coefficients;  // else each block's q lives in a scratch block only
    if (keep) {
      qc.planes.resize(static_cast<std::size_t>(np));
      for (int pl = 0; pl < np; ++pl) {
        qc.planes[pl].resize(static_cast<std::size_t>((pl == 0 ? bh * bw : cbh * cbw) * 64));
        qc.chroma.push_back(pl > 0);
      }
    }
    float scale[64], qt[2][64];
    math::jpeg::fl_scale_table(scale);
    for (int t = 0; t < 2; ++t) {
      const auto table = core::quant_table(r.quality, t == 1);
      for (int k = 0; k < 64; ++k) qt[t][k] = static_cast<float>(table[k]);
    }
    const float* src = planar ? img.data<float>() : nullptr;
    const std::uint8_t* src8 = planar ? nullptr : in.samples8->data();
    // With the coefficients kept (a .jpg output) the reconstruction image is made only when asked for
    // (CompressRequest::keep_image), and its squared error is summed: 4:4:4 and gray in the loop; 4:2:0 without an
    // image in a second pass (`fancy`) over the reconstructed planes, its chroma upsampled as libjpeg's decoder does
    // (h2v2 fancy upsampling, which needs the chroma rows of the neighbouring strips). 4:2:0 with an image (each
    // chroma sample repeated, not a decoder's): the caller decodes the file. Other outputs are measured by the caller
    // against the image it writes (every channel).
    const bool image = !keep || r.keep_image || (r.blockiness && planar), fancy = s420 && keep && !image,
               measured = keep && (!s420 || fancy);
    if (!planar && image)
      throw Error(ErrorCode::kRuntime, "cpu", "the reconstruction image needs the input's planes (app::ensure_planes)");
    HostTensor out = image ? HostTensor::uninitialized(Shape2{h, w}, ch, core::Precision::kF32) : HostTensor();
    // CompressRequest::blockiness on 8-bit samples: the reconstruction as 8-bit planes (the decoder's values:
    // rgb_row's, the planar route's image), measured after the loop by core::blockiness8_planes. On planes: the image
    // (the caller measures it).
    const bool blocky = keep && r.blockiness && !planar && !image;
    const jpeg::Stages& st = jpeg::stages();
    const std::unique_ptr<std::uint8_t[]> rec8(blocky ? new std::uint8_t[static_cast<std::size_t>(hw * np)] : nullptr);
    const auto put_rec8 = [&](std::int64_t y, const std::uint8_t* yr, const std::uint8_t* cb, const std::uint8_t* cr,
                              bool half) {  // row y of the planes from its Y, Cb, Cr samples
      std::uint8_t* const d = rec8.get() + y * w;
      st.rgb_row8(yr, cb, cr, w, half, d, d + hw, d + 2 * hw);
    };
    // `fancy`: the reconstructed luma and the reconstructed (downsampled) chroma planes of the whole image, row
    // stride xw, for the second pass.
    const std::size_t rec_rows = static_cast<std::size_t>(strips * mcu);
    const std::unique_ptr<std::uint8_t[]> rec_y(fancy ? new std::uint8_t[rec_rows * xw] : nullptr),
        rec_c(fancy ? new std::uint8_t[rec_rows * xw] : nullptr);  // Cb rows, then Cr rows (8 per strip each)
    float* o = image ? out.data<float>() : nullptr;
    std::int64_t sse = 0;
    constexpr int kBins = 8192, kZero = kBins / 2;  // |q| <= 1025 (|F| <= 1024, Q >= 1)
    std::vector<std::int64_t> hist(kBins, 0);
    const int threads = static_cast<int>(std::min<std::int64_t>(detail::thread_count(), strips));
    using Clock = std::chrono::steady_clock;
    double busy_all[3] = {0, 0, 0};
    const double setup_ms = sw.elapsed_ms();  // the result's buffers
    sw.reset();
#pragma omp parallel num_threads(threads)
    {
      std::vector<std::int64_t> th(kBins, 0);
      std::vector<std::uint8_t> cv(static_cast<std::size_t>(3 * mcu * xw)), rec(static_cast<std::size_t>(3 * mcu * xw));
      std::vector<std::uint8_t> ds(static_cast<std::size_t>(2 * 8 * cw));               // 4:2:0's Cb, Cr
      std::vector<float> back(planar && !image ? static_cast<std::size_t>(3 * w) : 0);  // a planar row in RGB, no image
      std::int64_t th_sse = 0;
      double busy[3] = {0, 0, 0};  // this thread's seconds in prepare, blocks, finish
      std::int16_t scratch[128];
      std::uint8_t* const cvp[3] = {cv.data(), cv.data() + mcu * xw, cv.data() + 2 * mcu * xw};
      std::uint8_t* const rcp[3] = {rec.data(), rec.data() + mcu * xw, rec.data() + 2 * mcu * xw};
      // A row of n 8x8 blocks: samples from `from` (row stride fs) to q (quantized, natural order, counted; the
      // row's first block at q, or a scratch pair when the coefficients are not kept) and back to `to`, two at a time.
      auto blocks = [&](const std::uint8_t* from, std::int64_t fs, const float* table, std::int16_t* q,
                        std::uint8_t* to, std::int64_t n) {
        const auto count = [&](std::uint64_t nz, const std::int16_t* b) {
          th[kZero] += 64 - __builtin_popcountll(nz);
          for (; nz != 0; nz &= nz - 1) ++th[kZero + std::clamp<int>(b[__builtin_ctzll(nz)], -kZero, kZero - 1)];
        };
        std::int64_t bx = 0;
        for (; bx + 2 <= n; bx += 2) {
          std::int16_t* b = keep ? q + bx * 64 : scratch;
          std::uint64_t nz[2];
          st.block2(from + 8 * bx, fs, scale, table, b, to + 8 * bx, xw, nz);
          count(nz[0], b);
          count(nz[1], b + 64);
        }
        if (bx < n) {
          std::int16_t* b = keep ? q + bx * 64 : scratch;
          count(st.block(from + 8 * bx, fs, scale, table, b, to + 8 * bx, xw), b);
        }
      };
#pragma omp for schedule(static)
      for (std::int64_t m = 0; m < strips; ++m) {
        const auto t0 = Clock::now();
        const std::int64_t y0 = m * mcu;
        for (std::int64_t i = 0; i < mcu; ++i) {  // colour conversion, edges replicated
          const std::int64_t y = std::min(y0 + i, h - 1);
          const float* row = planar ? src + y * w : nullptr;
          if (!planar && np == 1)
            std::memcpy(cvp[0] + i * xw, src8 + y * w, static_cast<std::size_t>(w));
          else if (!planar)
            st.ycc_row8(src8 + y * w * 3, w, cvp[0] + i * xw, cvp[1] + i * xw, cvp[2] + i * xw);
          else if (np == 1)
            for (std::int64_t x = 0; x < w; ++x) cvp[0][i * xw + x] = static_cast<std::uint8_t>(row[x]);
          else
            st.ycc_row(row, row + hw, row + 2 * hw, w, cvp[0] + i * xw, cvp[1] + i * xw, cvp[2] + i * xw);
          for (int pl = 0; pl < np; ++pl)
            std::fill(cvp[pl] + i * xw + w, cvp[pl] + (i + 1) * xw, cvp[pl][i * xw + w - 1]);
        }
        for (int pl = 1; s420 && pl < np; ++pl)  // 4:2:0: Cb, Cr downsampled
          for (int i = 0; i < 8; ++i) {
            const std::uint8_t *a = cvp[pl] + 2 * i * xw, *b = a + xw;
            std::uint8_t* d = ds.data() + ((pl - 1) * 8 + i) * cw;
            for (std::int64_t x = 0; x < cw; ++x)
              d[x] =
                  static_cast<std::uint8_t>(math::jpeg::h2v2_sample(a[2 * x], a[2 * x + 1], b[2 * x], b[2 * x + 1], x));
          }
        const auto t1 = Clock::now();
        for (std::int64_t br = y0 / 8; br < std::min(bh, (y0 + mcu) / 8); ++br) {  // luma / gray blocks
          const std::int64_t lr = 8 * br - y0;
          blocks(cvp[0] + lr * xw, xw, qt[0], keep ? qc.planes[0].data() + br * bw * 64 : nullptr,
                 fancy ? rec_y.get() + (y0 + lr) * xw : rcp[0] + lr * xw, bw);
        }
        for (int pl = 1; pl < np; ++pl) {  // chroma blocks
          const std::uint8_t* from = s420 ? ds.data() + (pl - 1) * 8 * cw : cvp[pl];
          const std::int64_t fs = s420 ? cw : xw;
          blocks(from, fs, qt[1], keep ? qc.planes[pl].data() + m * cbw * 64 : nullptr,
                 fancy ? rec_c.get() + ((pl - 1) * strips * 8 + m * 8) * xw : rcp[pl], cbw);
        }
        const auto t2 = Clock::now();
        for (std::int64_t i = 0; !planar && measured && !fancy && i < mcu && y0 + i < h; ++i) {  // the error, 8-bit
          const std::uint8_t* r0 = rcp[0] + i * xw;
          const std::uint8_t* s0 = src8 + (y0 + i) * w * np;
          const std::uint8_t *cb = rcp[1] + (s420 ? i / 2 : i) * xw, *cr = rcp[2] + (s420 ? i / 2 : i) * xw;
          if (np == 1)
            th_sse += squared_error8(r0, s0, w);
          else
            th_sse += st.rgb_sse_row8(r0, cb, cr, w, s420, s0);
          if (blocky && np == 1) std::memcpy(rec8.get() + (y0 + i) * w, r0, static_cast<std::size_t>(w));
          if (blocky && np == 3) put_rec8(y0 + i, r0, cb, cr, s420);
        }
        for (std::int64_t i = 0; planar && (image || (measured && !fancy)) && i < mcu && y0 + i < h; ++i) {  // to RGB
          const std::int64_t t = (y0 + i) * w;
          const std::uint8_t* r0 = rcp[0] + i * xw;
          float* const dst[3] = {image ? o + t : back.data(), image ? o + hw + t : back.data() + w,
                                 image ? o + 2 * hw + t : back.data() + 2 * w};
          if (np == 1)
            for (std::int64_t x = 0; x < w; ++x) dst[0][x] = r0[x];
          else
            st.rgb_row(r0, rcp[1] + (s420 ? i / 2 : i) * xw, rcp[2] + (s420 ? i / 2 : i) * xw, w, s420, dst[0], dst[1],
                       dst[2]);
          for (int pl = 0; measured && pl < np; ++pl) th_sse += squared_error(dst[pl], src + pl * hw + t, w);
        }
        const auto t3 = Clock::now();
        busy[0] += std::chrono::duration<double>(t1 - t0).count();
        busy[1] += std::chrono::duration<double>(t2 - t1).count();
        busy[2] += std::chrono::duration<double>(t3 - t2).count();
      }
#pragma omp critical
      {
        for (int k = 0; k < kBins; ++k) hist[k] += th[k];
        for (int k = 0; k < 3; ++k) busy_all[k] += busy[k];
        sse += th_sse;
      }
    }
    const double loop_ms = sw.elapsed_ms();
    sw.reset();
    if (fancy) {  // 4:2:0's error: each output row's chroma by libjpeg's h2v2 fancy upsampling, then back to RGB
      const std::int64_t chr = (h + 1) / 2, cwr = (w + 1) / 2;
      const std::uint8_t *cb = rec_c.get(), *cr = rec_c.get() + strips * 8 * xw;
#pragma omp parallel num_threads(threads) reduction(+ : sse)
      {
        std::vector<std::uint8_t> up(static_cast<std::size_t>(2 * w));
        std::vector<float> back(planar ? static_cast<std::size_t>(3 * w) : 0);
#pragma omp for schedule(static)
        for (std::int64_t y = 0; y < h; ++y) {
          const std::int64_t cy = y / 2,
                             far = y % 2 == 0 ? std::max<std::int64_t>(cy - 1, 0) : std::min(cy + 1, chr - 1);
          math::jpeg::h2v2_fancy_row(cb + cy * xw, cb + far * xw, cwr, w, up.data());
          math::jpeg::h2v2_fancy_row(cr + cy * xw, cr + far * xw, cwr, w, up.data() + w);
          const std::uint8_t* yr = rec_y.get() + y * xw;
          if (!planar) {
            sse += st.rgb_sse_row8(yr, up.data(), up.data() + w, w, false, src8 + y * w * 3);
            if (blocky) put_rec8(y, yr, up.data(), up.data() + w, false);
          } else {
            st.rgb_row(yr, up.data(), up.data() + w, w, false, back.data(), back.data() + w, back.data() + 2 * w);
            for (int pl = 0; pl < 3; ++pl) sse += squared_error(back.data() + pl * w, src + pl * hw + y * w, w);
          }
        }
      }
    }
    for (std::int64_t k = np == 1 ? 1 : 3; image && k < ch; ++k)
      std::copy(src + k * hw, src + (k + 1) * hw, o + k * hw);
    if (measured) res.mse = double(sse) / double(hw * np);
    if (blocky) res.blockiness = core::blockiness8_planes(rec8.get(), h, w, np);
    res.coefficients = (bh * bw + (np - 1) * cbh * cbw) * 64;
    res.nonzero = res.coefficients - hist[kZero];
    res.entropy_bits = core::entropy_of_histogram(hist);
    if (image)
      res.image = in.tensor.precision() == core::Precision::kF32 ? std::move(out) : out.to(in.tensor.precision());
    // The loop's wall time shared out in proportion to the threads' time in each stage.
    const double busy_sum = std::max(busy_all[0] + busy_all[1] + busy_all[2], 1e-30);
    res.times.add("prepare", setup_ms + loop_ms * busy_all[0] / busy_sum);
    res.times.add("blocks_8x8", loop_ms * busy_all[1] / busy_sum);
    res.times.add("finish", loop_ms * busy_all[2] / busy_sum + sw.elapsed_ms());
    if (!keep) res.quantized = core::QuantizedCoefficients{};
    return res;
  }

  template <class T>
  CompressResult jpeg(const CompressRequest& r, const Dataset& in) const {
    CompressResult res;
    core::Stopwatch sw;
    const HostTensor img = in.tensor.to(r.prec);
    const std::int64_t h = img.rows(), w = img.cols(), ch = img.channels();
    const int np = core::coded_planes(ch);
    const std::int64_t hp = core::round_up8(h), wp = core::round_up8(w);
    const Shape2 ps{hp, wp};
    const bool lot = r.mode == CompressMode::kLot;
    const Shape2 cs = lot ? Shape2{hp + 8, wp + 8} : ps;  // coefficient planes
    HostTensor planes(ps, np, r.prec), coef(cs, np, r.prec);
    const T* src = img.data<T>();
    T* p = planes.data<T>();
    const std::int64_t hw = h * w, phw = hp * wp;
#pragma omp parallel for schedule(static) num_threads(detail::thread_count())
    for (std::int64_t i = 0; i < hp; ++i)
      for (std::int64_t j = 0; j < wp; ++j) {
        const std::int64_t s = std::min(i, h - 1) * w + std::min(j, w - 1), o = i * wp + j;
        if (np == 1) {
          p[o] = src[s] - T(128);
        } else {
          const auto ycc = core::rgb_to_ycc(src[s], src[hw + s], src[2 * hw + s]);
          for (int c = 0; c < 3; ++c) p[c * phw + o] = static_cast<T>(ycc[c] - 128.0);
        }
      }
    res.times.add("prepare", sw.elapsed_ms());

    core::TransformDesc d;
    d.op = lot ? core::Op::kLot : core::Op::kDct2;
    d.norm = core::Norm::kOrtho;
    d.block = lot ? 0 : 8;
    d.shape = ps;
    d.batch = np;
    d.prec = r.prec;
    transform(d, r, planes, coef, res, lot ? "lot" : "dct2_8x8");

    sw.reset();
    const std::int64_t chp = cs.rows, cwp = cs.cols, chw = cs.count();
    std::vector<std::int32_t> symbols(static_cast<std::size_t>(chw * np));
    T* c = coef.data<T>();
    std::int64_t nonzero = 0;
    const bool keep = r.keep_coefficients && !lot;
    core::QuantizedCoefficients& qc = res.quantized;
    const std::int64_t bw = cwp / 8;
    if (keep) {  // 4:4:4 (this route refuses 4:2:0): the chroma planes have the luma's blocks
      qc.blocks_high = chp / 8;
      qc.blocks_wide = bw;
      qc.chroma_blocks_high = np == 3 ? chp / 8 : 0;
      qc.chroma_blocks_wide = np == 3 ? bw : 0;
      qc.sampling = core::ChromaSampling::k444;
      qc.quality = r.quality;
      qc.planes.resize(static_cast<std::size_t>(np));
      for (core::CoefficientPlane& plane : qc.planes) plane.resize(static_cast<std::size_t>(chw));
      for (int pl = 0; pl < np; ++pl) qc.chroma.push_back(pl > 0);
    }
    for (int pl = 0; pl < np; ++pl) {
      std::int16_t* kq = keep ? qc.planes[static_cast<std::size_t>(pl)].data() : nullptr;
      const auto table = core::quant_table(r.quality, pl > 0);
      T qt[64];
      for (int k = 0; k < 64; ++k)
        qt[k] = static_cast<T>(lot ? table[math::lot::kFrequency[k / 8] * 8 + math::lot::kFrequency[k % 8]] : table[k]);
#pragma omp parallel for schedule(static) reduction(+ : nonzero) num_threads(detail::thread_count())
      for (std::int64_t i = 0; i < chp; ++i)
        for (std::int64_t j = 0; j < cwp; ++j) {
          const std::int64_t o = pl * chw + i * cwp + j;
          const T qs = qt[(i & 7) * 8 + (j & 7)];
          const T q = std::floor(c[o] / qs + T(0.5));
          symbols[o] = static_cast<std::int32_t>(q);
          if (kq != nullptr)  // block (i/8, j/8) in raster order, natural order inside
            kq[((i >> 3) * bw + (j >> 3)) * 64 + (i & 7) * 8 + (j & 7)] =
                static_cast<std::int16_t>(std::clamp(q, T(-32768), T(32767)));
          c[o] = q * qs;
          nonzero += q != T(0);
        }
    }
    res.nonzero = nonzero;
    res.coefficients = chw * np;
    res.entropy_bits = core::entropy_bits(symbols);
    res.times.add("quantize", sw.elapsed_ms());

    d.op = lot ? core::Op::kIlot : core::Op::kIdct2;
    d.shape = cs;
    transform(d, r, coef, planes, res, lot ? "ilot" : "idct2_8x8");

    sw.reset();
    HostTensor out(Shape2{h, w}, ch, r.prec);
    T* o = out.data<T>();
#pragma omp parallel for schedule(static) num_threads(detail::thread_count())
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) {
        const std::int64_t s = i * wp + j, t = i * w + j;
        if (np == 1) {
          o[t] = static_cast<T>(core::round_to_u8(double(p[s]) + 128.0));
        } else {
          const auto rgb =
              core::ycc_to_rgb(core::round_to_u8(double(p[s]) + 128.0), core::round_to_u8(double(p[phw + s]) + 128.0),
                               core::round_to_u8(double(p[2 * phw + s]) + 128.0));
          for (int k = 0; k < 3; ++k) o[k * hw + t] = static_cast<T>(rgb[k]);
        }
      }
    for (std::int64_t k = np == 1 ? 1 : 3; !keep && k < ch; ++k)
      std::copy(src + k * hw, src + (k + 1) * hw, o + k * hw);
    res.image = out.to(in.tensor.precision());
    res.times.add("finish", sw.elapsed_ms());
    return res;
  }

  template <class T>
  CompressResult whole(const CompressRequest& r, const Dataset& in) const {
    CompressResult res;
    const HostTensor img = in.tensor.to(r.prec);
    const std::int64_t h = img.rows(), w = img.cols(), ch = img.channels(), hw = h * w;
    core::TransformDesc d;
    d.op = core::Op::kDct2;
    d.norm = core::Norm::kOrtho;
    d.shape = img.shape();
    d.batch = ch;
    d.prec = r.prec;
    HostTensor coef(img.shape(), ch, r.prec), rec(img.shape(), ch, r.prec);
    transform(d, r, img, coef, res, "dct2");

    core::Stopwatch sw;
    T* c = coef.data<T>();
    std::vector<std::int32_t> symbols(static_cast<std::size_t>(hw * ch), 0);
    if (r.mode == CompressMode::kThreshold) {
      const T e = static_cast<T>(r.threshold);
      for (std::int64_t i = 0; i < hw * ch; ++i) {
        if (std::abs(c[i]) < e) {
          c[i] = T(0);
        } else {
          ++res.nonzero;
          symbols[i] = symbol_of(c[i]);
        }
      }
    } else {
      const std::int64_t k = core::keep_count(r.keep, img.shape());
      std::vector<std::int64_t> idx(static_cast<std::size_t>(hw));
      for (std::int64_t p = 0; p < ch; ++p) {
        T* cp = c + p * hw;
        std::iota(idx.begin(), idx.end(), std::int64_t{0});
        auto larger = [cp](std::int64_t a, std::int64_t b) {
          const T x = std::abs(cp[a]), y = std::abs(cp[b]);
          return x > y || (x == y && a < b);
        };
        if (k > 0 && k < hw) std::nth_element(idx.begin(), idx.begin() + k, idx.end(), larger);
        std::vector<char> keep(static_cast<std::size_t>(hw), 0);
        for (std::int64_t i = 0; i < k; ++i) keep[idx[i]] = 1;
        for (std::int64_t i = 0; i < hw; ++i) {
          if (keep[i])
            symbols[p * hw + i] = symbol_of(cp[i]);
          else
            cp[i] = T(0);
        }
        res.nonzero += k;
      }
    }
    res.coefficients = hw * ch;
    res.entropy_bits = core::entropy_bits(symbols);
    res.times.add(r.mode == CompressMode::kThreshold ? "threshold" : "select", sw.elapsed_ms());

    d.op = core::Op::kIdct2;
    transform(d, r, coef, rec, res, "idct2");

    sw.reset();
    const double peak = in.kind == core::SourceKind::kImage16 ? 65535.0 : 255.0;
    T* x = rec.data<T>();
    for (std::int64_t i = 0; i < hw * ch; ++i)
      x[i] = static_cast<T>(std::clamp(std::floor(double(x[i]) + 0.5), 0.0, peak));
    res.image = rec.to(in.tensor.precision());
    res.times.add("finish", sw.elapsed_ms());
    return res;
  }

  const core::Registry& registry_;
};

}  // namespace

std::unique_ptr<core::Compressor> make_cpu_compressor(const core::Registry& registry) {
  return std::make_unique<CpuCompressor>(registry);
}

}  // namespace dct::cpu
