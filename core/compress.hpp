#pragma once
// Image compression (the `compress` command and its modes, README "Compression modes and the report"): the
// exact mode definitions shared by every
// implementation — quantization tables, color conversion, rounding, the keep count, the report's statistics
// — and the Compressor interface that the CPU (cpu/compress_cpu.cpp) and the fused GPU path
// (kernels/compress/jpeg_fused.cu) implement.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/formats.hpp"
#include "core/timing.hpp"
#include "math/jpeg.hpp"

namespace dct::core {

enum class CompressMode { kJpeg, kThreshold, kKeep, kLot };
std::string_view to_string(CompressMode m);
CompressMode parse_compress_mode(std::string_view s);  // throws kUsage naming the value

// ---- jpeg mode ------------------------------------------------------------------------------------
// The Annex K tables, libjpeg's quality scaling and the JFIF colour constants live in math/jpeg.hpp.
using math::jpeg::kBCb;
using math::jpeg::kChromaQuantBase;
using math::jpeg::kCrR, math::jpeg::kCrG, math::jpeg::kCrB, math::jpeg::kRCr, math::jpeg::kGCb, math::jpeg::kGCr;
using math::jpeg::kLumaQuantBase;
using math::jpeg::kYr, math::jpeg::kYg, math::jpeg::kYb, math::jpeg::kCbR, math::jpeg::kCbG, math::jpeg::kCbB;
using math::jpeg::quality_scale;
using math::jpeg::quant_table;
// Clamp(floor(v + 0.5), 0, 255).
double round_to_u8(double v);
// (r, g, b) -> (y, cb, cr) and back, 8-bit values in and out (ycc_to_rgb: integers 0..255 in, as
// math::jpeg::ycc_to_rgb8, the decoder's conversion the GPU evaluates too).
std::array<double, 3> rgb_to_ycc(double r, double g, double b);
std::array<double, 3> ycc_to_rgb(double y, double cb, double cr);

// The coded planes of an image of `channels` channels: 1 (gray, gray+alpha) or 3 (RGB, RGBA as YCbCr);
// an alpha channel is carried through unchanged.
int coded_planes(std::int64_t channels);
inline std::int64_t round_up8(std::int64_t n) { return (n + 7) / 8 * 8; }

// ---- threshold / keep ------------------------------------------------------------------------------
// keep F: ceil(F * (H*W)) coefficients of each channel (F in [0, 1]).
std::int64_t keep_count(double fraction, Shape2 shape);

// jpeg mode's chroma sampling (--sampling): 4:4:4, or 4:2:0 as cjpeg -sample 2x2 (Cb and Cr downsampled 2x2 by
// libjpeg's h2v2 box average, math::jpeg::h2v2_sample, over the image edge-replicated to whole 16x16 MCUs).
enum class ChromaSampling { k444, k420 };
std::string_view to_string(ChromaSampling s);
ChromaSampling parse_chroma_sampling(std::string_view s);  // "444" | "420"; throws kUsage naming the value

// ---- the request, the result, the interface --------------------------------------------------------
struct CompressRequest {
  CompressMode mode = CompressMode::kJpeg;
  int quality = 75;      // jpeg
  double threshold = 0;  // threshold: E
  double keep = 0;       // keep: F
  Precision prec = Precision::kF32;
  std::string backend = "auto";                    // transform backend for the CPU compressor (--backend)
  ChromaSampling sampling = ChromaSampling::k444;  // jpeg mode, 3 coded planes; gray ignores it
  bool progressive = false;  // a .jpg output's scans (the file writer's option; compressors ignore it)
  // jpeg mode: also return the quantized coefficients (CompressResult::quantized), bit-identical from every
  // compressor (math/jpeg.hpp: the exact coefficient arithmetic). A compressor may then leave
  // CompressResult::image empty (the caller decodes the coefficients' file).
  bool keep_coefficients = false;
  // With keep_coefficients: the reconstruction is wanted in CompressResult::image too (the report's blockiness).
  bool keep_image = false;
  // With keep_coefficients: the reconstruction's blockiness is wanted in CompressResult::blockiness instead (the CPU
  // compressor measures it in its loop on 8-bit inputs without planes; others may leave it NaN).
  bool blockiness = false;
};

// One coded plane's quantized coefficients, written whole by its compressor (so never zeroed first: a pass over 12 MB
// for a 1080p RGB image): in memory of its own (resize: operator new, as a std::vector's, which the heap reuses from
// image to image; 64-byte aligned blocks made a CPU batch 15% slower), or in a block the compressor lends (a GPU's
// page-locked block that the device copies into; it goes back to its pool with the plane).
class CoefficientPlane {
 public:
  CoefficientPlane() = default;
  explicit CoefficientPlane(std::size_t n) { resize(n); }
  CoefficientPlane(AlignedBuffer lent, std::size_t n)
      : lent_(std::move(lent)), p_(static_cast<std::int16_t*>(lent_.data())), n_(n) {}
  CoefficientPlane(CoefficientPlane&& o) noexcept
      : own_(std::move(o.own_)),
        lent_(std::move(o.lent_)),
        p_(std::exchange(o.p_, nullptr)),
        n_(std::exchange(o.n_, 0)) {}
  CoefficientPlane& operator=(CoefficientPlane&& o) noexcept {
    own_ = std::move(o.own_);
    lent_ = std::move(o.lent_);
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    return *this;
  }
  void resize(std::size_t n) {  // memory of its own for n values, not filled (earlier values are not kept)
    lent_ = AlignedBuffer();
    own_ = std::make_unique_for_overwrite<std::int16_t[]>(n);
    p_ = own_.get();
    n_ = n;
  }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  std::int16_t* data() { return p_; }
  const std::int16_t* data() const { return p_; }
  std::int16_t& operator[](std::size_t i) { return p_[i]; }
  std::int16_t operator[](std::size_t i) const { return p_[i]; }
  bool operator==(const CoefficientPlane& o) const { return n_ == o.n_ && (n_ == 0 || std::equal(p_, p_ + n_, o.p_)); }

 private:
  std::unique_ptr<std::int16_t[]> own_;
  AlignedBuffer lent_;
  std::int16_t* p_ = nullptr;
  std::size_t n_ = 0;
};

// The quantized coefficients of jpeg mode, for writing a JPEG file: one plane per coded plane (gray, or Y, Cb,
// Cr), plane 0 of blocks_high x blocks_wide 8x8 blocks (ceil(H/8) x ceil(W/8)), planes 1 and 2 of
// chroma_blocks_high x chroma_blocks_wide (4:4:4: the same; 4:2:0: ceil(H/16) x ceil(W/16)), blocks in raster
// order, each block's 64 values q = floor(F/Q + 0.5) in natural (row-major) order; plane p used the chrominance
// table when chroma[p].
struct QuantizedCoefficients {
  std::int64_t blocks_high = 0, blocks_wide = 0;
  std::int64_t chroma_blocks_high = 0, chroma_blocks_wide = 0;
  ChromaSampling sampling = ChromaSampling::k444;
  int quality = 75;
  std::vector<CoefficientPlane> planes;  // every value written by the compressor
  std::vector<bool> chroma;
};

struct CompressResult {
  HostTensor image;                 // the reconstruction: input shape and channels, integer values in range
  std::int64_t coefficients = 0;    // all coefficients of all coded channels (jpeg: of the padded planes)
  std::int64_t nonzero = 0;         // kept (jpeg: q != 0)
  double entropy_bits = 0;          // zeroth-order entropy of the coefficient symbols, bits per symbol
  std::string backend;              // what computed the transforms
  StageTable times;                 // per-stage milliseconds ("device" for GPU work)
  QuantizedCoefficients quantized;  // jpeg mode with CompressRequest::keep_coefficients; empty otherwise
  // The mean squared error of the reconstruction against the input's coded channels (alpha left out), where the
  // compressor measured it in its own loop; NaN where it did not. With keep_coefficients, set only when the
  // reconstruction is what a float-IDCT decoder makes of the coefficients (the dequantized blocks' inverse, rounded
  // half to even, 4:2:0's chroma by libjpeg's fancy upsampling, then libjpeg's YCbCr -> RGB), so that it is the PSNR
  // of the written file: the CPU compressor and cuda-jpeg-fused give the same value.
  double mse = std::numeric_limits<double>::quiet_NaN();
  // blockiness() of that reconstruction's coded channels where CompressRequest::blockiness asked for it and the
  // compressor measured it; NaN otherwise.
  double blockiness = std::numeric_limits<double>::quiet_NaN();
  double nonzero_fraction() const { return coefficients > 0 ? double(nonzero) / double(coefficients) : 0.0; }
  // Estimated coded size: entropy_bits * coefficients / pixels, pixels = H * W of the input (the image is empty
  // when only coefficients were asked for).
  double entropy_bpp(std::int64_t pixels) const;
};

class Compressor {
 public:
  virtual ~Compressor() = default;
  virtual std::string_view name() const = 0;
  // What `dctool backends` lists: the modes and inputs it takes, what it does, and whether it runs on a GPU (then it is
  // usable where the CUDA runtime is).
  virtual std::string_view takes() const = 0;
  virtual std::string_view description() const = 0;
  virtual bool on_gpu() const { return false; }
  // Whether this implementation can run `r` on `in` here (hardware included); never throws.
  virtual Support supports(const CompressRequest& r, const Dataset& in) const = 0;
  // Throws dct::Error (kInput for inputs the mode cannot take, kUnsupported, kRuntime).
  virtual CompressResult run(const CompressRequest& r, const Dataset& in) const = 0;
  // Makes the compressor's device ready for its first run (CUDA: the driver and the context, 100-300 ms), so that a
  // batch can pay that on another thread; never throws. Returns whether it can run here now (false: no usable
  // device). Nothing to do on the host (the default).
  virtual bool warm_up() const { return true; }
};

// Checks every implementation shares: an 8-bit image for jpeg (kInput otherwise), 8/16-bit image for the
// others; parameters in range (kUsage). Throws.
void validate_compress(const CompressRequest& r, const Dataset& in);

// Blocking artefacts of an image (the report's `blockiness`): per channel, the mean |difference| of horizontally and
// vertically adjacent pixels across 8-pixel block boundaries (between columns/rows 8k-1 and 8k) minus the
// mean |difference| of the adjacent pairs inside blocks; averaged over the channels (an alpha channel too).
// About 0 for natural images, positive when block edges stand out; 0 for images under 9 pixels both ways.
double blockiness(const HostTensor& img);
// The same of an 8-bit image as interleaved samples (h rows of w pixels of `channels` bytes, 1 to 4): equal to
// blockiness() of its planes, bit for bit (the same integer sums per channel, combined in the same order).
double blockiness8(const std::uint8_t* samples, std::int64_t h, std::int64_t w, std::int64_t channels);
// The same of `channels` 8-bit planes of h x w samples, one after the other (also equal to blockiness()).
double blockiness8_planes(const std::uint8_t* planes, std::int64_t h, std::int64_t w, std::int64_t channels);

// Statistics over coefficient symbols (entropy_bits over the integer symbols).
double entropy_of_histogram(std::span<const std::int64_t> counts);

}  // namespace dct::core
