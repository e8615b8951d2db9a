// The compression modes' shared definitions (docs/algorithms.md §8): tables, color conversion, the keep count.
#include "core/compress.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.hpp"

namespace dct::core {

std::string_view to_string(CompressMode m) {
  switch (m) {
    case CompressMode::kJpeg:
      return "jpeg";
    case CompressMode::kThreshold:
      return "threshold";
    case CompressMode::kLot:
      return "lot";
    default:
      return "keep";
  }
}

CompressMode parse_compress_mode(std::string_view s) {
  if (s == "jpeg") return CompressMode::kJpeg;
  if (s == "threshold") return CompressMode::kThreshold;
  if (s == "keep") return CompressMode::kKeep;
  if (s == "lot") return CompressMode::kLot;
  throw Error(ErrorCode::kUsage, "--mode", "unknown mode '" + std::string(s) + "' (jpeg|lot|threshold|keep|none)");
}

std::string_view to_string(ChromaSampling s) { return s == ChromaSampling::k420 ? "420" : "444"; }

ChromaSampling parse_chroma_sampling(std::string_view s) {
  if (s == "444") return ChromaSampling::k444;
  if (s == "420") return ChromaSampling::k420;
  throw Error(ErrorCode::kUsage, "--sampling", "unknown chroma sampling '" + std::string(s) + "' (444|420)");
}

double round_to_u8(double v) { return std::clamp(std::floor(v + 0.5), 0.0, 255.0); }

std::array<double, 3> rgb_to_ycc(double r, double g, double b) {
  const int ri = static_cast<int>(r), gi = static_cast<int>(g), bi = static_cast<int>(b);
  if (ri == r && gi == g && bi == b && ri >= 0 && ri <= 255 && gi >= 0 && gi <= 255 && bi >= 0 && bi <= 255)
    return {double(math::jpeg::rgb_to_y(ri, gi, bi)), double(math::jpeg::rgb_to_cb(ri, gi, bi)),
            double(math::jpeg::rgb_to_cr(ri, gi, bi))};
  return {round_to_u8(kYr * r + kYg * g + kYb * b), round_to_u8(kCbR * r + kCbG * g + kCbB * b + 128.0),
          round_to_u8(kCrR * r + kCrG * g + kCrB * b + 128.0)};
}

std::array<double, 3> ycc_to_rgb(double y, double cb, double cr) {
  int rgb[3];
  math::jpeg::ycc_to_rgb8(static_cast<int>(y), static_cast<int>(cb), static_cast<int>(cr), rgb);
  return {double(rgb[0]), double(rgb[1]), double(rgb[2])};
}

int coded_planes(std::int64_t channels) { return channels >= 3 ? 3 : 1; }

std::int64_t keep_count(double fraction, Shape2 shape) {
  const std::int64_t n = shape.count();
  const double k = std::ceil(fraction * static_cast<double>(n));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(k), 0, n);
}

double CompressResult::entropy_bpp(std::int64_t pixels) const {
  return pixels > 0 ? entropy_bits * static_cast<double>(coefficients) / static_cast<double>(pixels) : 0.0;
}

void validate_compress(const CompressRequest& r, const Dataset& in) {
  if (in.kind == SourceKind::kMatrix)
    throw Error(ErrorCode::kInput, "compress takes images (.png .jpg .bmp .tga .pgm .ppm), not matrices");
  if (in.channels() < 1 || in.channels() > 4) throw Error(ErrorCode::kInput, "images of 1 to 4 channels only");
  if (r.mode != CompressMode::kJpeg && r.sampling != ChromaSampling::k444)
    throw Error(ErrorCode::kUsage, "--sampling", "chroma sampling 4:2:0 is a jpeg mode option");
  switch (r.mode) {
    case CompressMode::kJpeg:
    case CompressMode::kLot:
      if (in.kind != SourceKind::kImage8)
        throw Error(ErrorCode::kInput, std::string(to_string(r.mode)) + " mode needs an 8-bit image");
      if (r.quality < 1 || r.quality > 100)
        throw Error(ErrorCode::kUsage, "--quality", "must be 1..100, not " + std::to_string(r.quality));
      break;
    case CompressMode::kThreshold:
      if (!(r.threshold >= 0) || !std::isfinite(r.threshold))
        throw Error(ErrorCode::kUsage, "--threshold", "threshold mode needs --threshold E >= 0");
      break;
    case CompressMode::kKeep:
      if (!(r.keep >= 0 && r.keep <= 1)) throw Error(ErrorCode::kUsage, "--keep", "keep mode needs --keep F in [0, 1]");
      break;
  }
}

namespace {

// blockiness over typed planes; the sums run in the order of the definition (rows, then columns).
template <class T>
double blockiness_of(const T* data, std::int64_t h, std::int64_t w, std::int64_t channels) {
  double total = 0;
  for (std::int64_t c = 0; c < channels; ++c) {
    const T* base = data + c * h * w;
    double edge = 0, inner = 0;
    std::int64_t ne = 0, ni = 0;
    for (std::int64_t i = 0; i < h; ++i) {
      const T* row = base + i * w;
      for (std::int64_t j = 1; j < w; ++j) {
        const double d = std::abs(double(row[j]) - double(row[j - 1]));
        if (j % 8 == 0) {
          edge += d;
          ++ne;
        } else {
          inner += d;
          ++ni;
        }
      }
    }
    for (std::int64_t i = 1; i < h; ++i) {
      const T *row = base + i * w, *up = row - w;
      double& sum = i % 8 == 0 ? edge : inner;
      std::int64_t& n = i % 8 == 0 ? ne : ni;
      for (std::int64_t j = 0; j < w; ++j) sum += std::abs(double(row[j]) - double(up[j]));
      n += w;
    }
    total += (ne > 0 ? edge / double(ne) : 0.0) - (ni > 0 ? inner / double(ni) : 0.0);
  }
  return total / double(channels);
}

// Whether every value is an integer in [0, 65535] (8- and 16-bit images): then every |difference| and every partial
// sum of blockiness is an integer below 2^53, exact in any order. Comparisons only (NaN fails the range test; adding
// and taking away 2^23, or 2^52 in double, rounds a value of that range to an integer and leaves only integers
// unchanged), so that the loop vectorizes: a branchy clamp did not, and cost 40% of a report's time.
template <class T>
bool sample_valued(const T* v, std::int64_t n) {
  constexpr T kRound = sizeof(T) == 4 ? T(8388608.0) : T(4503599627370496.0);
  int bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const T x = v[i];
    bad |= !(x >= T(0)) | !(x <= T(65535)) | ((x + kRound) - kRound != x);
  }
  return bad == 0;
}

// Sum of |a[k] − b[k]|, integer samples (sample_valued), in chunks whose sums fit an int32 (vectorized).
template <class T>
std::int64_t abs_diff_sum(const T* a, const T* b, std::int64_t n) {
  std::int64_t s = 0;
  for (std::int64_t k0 = 0; k0 < n; k0 += 16384) {
    const std::int64_t k1 = std::min(n, k0 + 16384);
    std::int32_t part = 0;  // <= 16384 · 65535 < 2^31
    for (std::int64_t k = k0; k < k1; ++k) {
      const std::int32_t d = static_cast<std::int32_t>(a[k]) - static_cast<std::int32_t>(b[k]);
      part += d < 0 ? -d : d;
    }
    s += part;
  }
  return s;
}

// blockiness of integer samples: the same sums as blockiness_of, in integers.
template <class T>
double blockiness_int(const T* data, std::int64_t h, std::int64_t w, std::int64_t channels) {
  double total = 0;
  for (std::int64_t c = 0; c < channels; ++c) {
    const T* base = data + c * h * w;
    std::int64_t edge = 0, inner = 0, ne = 0, ni = 0;
    for (std::int64_t i = 0; i < h && w > 1; ++i) {
      const T* row = base + i * w;
      std::int64_t e = 0;
      for (std::int64_t j = 8; j < w; j += 8)
        e += std::abs(static_cast<std::int32_t>(row[j]) - static_cast<std::int32_t>(row[j - 1]));
      edge += e;
      inner += abs_diff_sum(row + 1, row, w - 1) - e;
      ne += (w - 1) / 8;
      ni += (w - 1) - (w - 1) / 8;
    }
    for (std::int64_t i = 1; i < h; ++i) {
      const std::int64_t s = abs_diff_sum(base + i * w, base + (i - 1) * w, w);
      (i % 8 == 0 ? edge : inner) += s;
      (i % 8 == 0 ? ne : ni) += w;
    }
    total += (ne > 0 ? double(edge) / double(ne) : 0.0) - (ni > 0 ? double(inner) / double(ni) : 0.0);
  }
  return total / double(channels);
}

template <class T>
double blockiness_any(const T* data, std::int64_t h, std::int64_t w, std::int64_t channels) {
  return sample_valued(data, h * w * channels) ? blockiness_int(data, h, w, channels)
                                               : blockiness_of(data, h, w, channels);
}

// Per-channel sums of |a[k] - b[k]| over n interleaved bytes of `channels` channels (a[0] of channel 0), exactly: one
// channel by SSE2's sums of absolute differences (16 bytes an instruction); several by 48 lanes (a multiple of 1, 2, 3
// and 4 channels), each |difference| taken bytewise and summed in 16 bits for at most 257 chunks (257 · 255 < 2^16,
// SSE2), or in int32 without SSE2, then added to sum[channel]. The report's blockiness spent 10 ms of a 1080p photo
// in the portable loop on two cores.
void abs_diff_channels(const std::uint8_t* a, const std::uint8_t* b, std::int64_t n, std::int64_t channels,
                       std::int64_t* sum) {
  constexpr int kLanes = 48;
  std::int64_t k = 0;
#if defined(__SSE2__)
  const auto load = [](const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  if (channels == 1) {
    __m128i acc = _mm_setzero_si128();  // two 64-bit sums
    for (; k + 16 <= n; k += 16) acc = _mm_add_epi64(acc, _mm_sad_epu8(load(a + k), load(b + k)));
    sum[0] += _mm_cvtsi128_si64(acc) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc));
  } else {
    const __m128i zero = _mm_setzero_si128();
    while (k + kLanes <= n) {
      __m128i acc[6] = {zero, zero, zero, zero, zero, zero};  // 16-bit sums of lanes 8j .. 8j+7
      const std::int64_t end = std::min(n - (n - k) % kLanes, k + kLanes * std::int64_t{257});
      for (; k < end; k += kLanes)
        for (int v = 0; v < 3; ++v) {
          const __m128i x = load(a + k + 16 * v), y = load(b + k + 16 * v);
          const __m128i d = _mm_or_si128(_mm_subs_epu8(x, y), _mm_subs_epu8(y, x));
          acc[2 * v] = _mm_add_epi16(acc[2 * v], _mm_unpacklo_epi8(d, zero));
          acc[2 * v + 1] = _mm_add_epi16(acc[2 * v + 1], _mm_unpackhi_epi8(d, zero));
        }
      alignas(16) std::uint16_t lanes[kLanes];
      for (int j = 0; j < 6; ++j) _mm_store_si128(reinterpret_cast<__m128i*>(lanes + 8 * j), acc[j]);
      for (int l = 0; l < kLanes; ++l) sum[l % channels] += lanes[l];
    }
  }
#else
  while (k + kLanes <= n) {
    std::int32_t acc[kLanes] = {};
    const std::int64_t end = std::min(n - (n - k) % kLanes, k + kLanes * std::int64_t{4096});  // 4096 · 255 < 2^31
    for (; k < end; k += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const std::int32_t d = std::int32_t{a[k + l]} - std::int32_t{b[k + l]};
        acc[l] += d < 0 ? -d : d;
      }
    for (int l = 0; l < kLanes; ++l) sum[l % channels] += acc[l];
  }
#endif
  for (; k < n; ++k) sum[k % channels] += std::abs(std::int32_t{a[k]} - std::int32_t{b[k]});
}

}  // namespace

double blockiness8(const std::uint8_t* s, std::int64_t h, std::int64_t w, std::int64_t channels) {
  if (channels < 1 || channels > 4 || (h < 9 && w < 9)) return 0;
  const std::int64_t c = channels, stride = w * c;
  std::int64_t edge[4] = {}, inner[4] = {}, ne = 0, ni = 0;
  // One sweep down the rows (row i-1 still in cache for the vertical pairs): integer sums, exact in any order.
  for (std::int64_t i = 0; i < h; ++i) {
    const std::uint8_t* row = s + i * stride;
    if (w > 1) {  // horizontal pairs (j-1, j); edges at j = 8, 16, ...
      std::int64_t all[4] = {};
      abs_diff_channels(row + c, row, (w - 1) * c, c, all);
      for (std::int64_t j = 8; j < w; j += 8)
        for (std::int64_t q = 0; q < c; ++q) {
          const std::int64_t d = std::abs(std::int32_t{row[j * c + q]} - std::int32_t{row[(j - 1) * c + q]});
          edge[q] += d;
          all[q] -= d;
        }
      for (std::int64_t q = 0; q < c; ++q) inner[q] += all[q];
      ne += (w - 1) / 8;
      ni += (w - 1) - (w - 1) / 8;
    }
    if (i > 0) {  // vertical pairs (i-1, i); edges at i = 8, 16, ...
      std::int64_t v[4] = {};
      abs_diff_channels(row, row - stride, stride, c, v);
      for (std::int64_t q = 0; q < c; ++q) (i % 8 == 0 ? edge : inner)[q] += v[q];
      (i % 8 == 0 ? ne : ni) += w;
    }
  }
  double total = 0;  // blockiness_int's order: per channel, then ÷ channels
  for (std::int64_t q = 0; q < c; ++q)
    total += (ne > 0 ? double(edge[q]) / double(ne) : 0.0) - (ni > 0 ? double(inner[q]) / double(ni) : 0.0);
  return total / double(c);
}

double blockiness8_planes(const std::uint8_t* planes, std::int64_t h, std::int64_t w, std::int64_t channels) {
  double total = 0;  // each plane's term exactly as blockiness8 of one channel gives it, summed in channel order
  for (std::int64_t c = 0; c < channels; ++c) total += blockiness8(planes + c * h * w, h, w, 1);
  return channels > 0 ? total / double(channels) : 0.0;
}

double blockiness(const HostTensor& img) {
  const std::int64_t h = img.rows(), w = img.cols();
  if (img.channels() < 1 || (h < 9 && w < 9)) return 0;
  if (img.precision() == Precision::kF32) return blockiness_any(img.data<float>(), h, w, img.channels());
  return blockiness_any(img.data<double>(), h, w, img.channels());
}

double entropy_of_histogram(std::span<const std::int64_t> counts) {
  double n = 0;
  for (auto c : counts) n += static_cast<double>(c);
  if (n <= 0) return 0;
  double h = 0;
  for (auto c : counts)
    if (c > 0) {
      const double p = static_cast<double>(c) / n;
      h -= p * std::log2(p);
    }
  return h;
}

}  // namespace dct::core
