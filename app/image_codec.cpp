// The image codec: dispatch by content, the decoders' shared pieces, and writing (libpng for .png, libjpeg-turbo for
// .jpg, stb_image_write for .bmp/.tga). Encoding rounds to nearest, clamps to the sample range and goes through
// core::AtomicFile.
#include "app/image_codec.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "app/image_decode.hpp"
#include "app/jpeg_file.hpp"
#include "core/error.hpp"
#include "core/tensor_pool.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#endif
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace dct::app {
namespace {

// .jpg outputs of images (not compress's coefficient files): libjpeg's tables at this quality, 4:4:4.
constexpr int kJpegQuality = 95;

bool one_of(const std::string& path, std::initializer_list<std::string_view> exts) {
  const std::string ext = core::lower_extension(path);
  return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

// 8-bit RGB to f32 planes, the commonest case (every colour JPEG and PNG): one loop over restrict pointers that the
// compiler vectorizes where the CPU has AVX2 (a clone chosen at load time); 3x faster than the generic loop below.
__attribute__((target_clones("avx2", "default"))) void spread_rgb8(const std::uint8_t* __restrict px,
                                                                   float* __restrict r, float* __restrict g,
                                                                   float* __restrict b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    r[i] = static_cast<float>(px[3 * i]);
    g[i] = static_cast<float>(px[3 * i + 1]);
    b[i] = static_cast<float>(px[3 * i + 2]);
  }
}

template <class Sample>
core::Dataset planar(const Sample* px, std::int64_t w, std::int64_t h, int channels, core::Precision prec,
                     core::SourceKind kind, core::TensorPool* pool) {
  core::HostTensor t = core::take_tensor(pool, core::Shape2{h, w}, channels, prec);
  const std::int64_t plane = w * h;
  // Pixel by pixel (one pass over the interleaved samples), with the channel count a constant where it is common.
  const auto fill = [&](auto* dst) {
    using T = std::remove_pointer_t<decltype(dst)>;
    const auto spread = [&](auto nc) {
      constexpr int C = decltype(nc)::value;
      T* d[C];
      for (int c = 0; c < C; ++c) d[c] = dst + c * plane;
      for (std::int64_t p = 0; p < plane; ++p)
        for (int c = 0; c < C; ++c) d[c][p] = static_cast<T>(px[p * C + c]);
    };
    switch (channels) {
      case 1:
        return spread(std::integral_constant<int, 1>{});
      case 2:
        return spread(std::integral_constant<int, 2>{});
      case 3:
        return spread(std::integral_constant<int, 3>{});
      default:
        return spread(std::integral_constant<int, 4>{});
    }
  };
  if constexpr (std::is_same_v<Sample, std::uint8_t>)
    if (prec == core::Precision::kF32 && channels == 3) {
      float* d = t.data<float>();
      spread_rgb8(px, d, d + plane, d + 2 * plane, plane);
      return {std::move(t), kind};
    }
  if (prec == core::Precision::kF32)
    fill(t.data<float>());
  else
    fill(t.data<double>());
  return {std::move(t), kind};
}

// stb_image_write reports through a callback; exceptions must not unwind through its frames (it would leak).
struct Sink {
  core::AtomicFile* file;
  bool failed = false;
  std::string error;
};

void sink_write(void* context, void* data, int size) {
  auto* sink = static_cast<Sink*>(context);
  if (sink->failed) return;
  try {
    sink->file->write(data, static_cast<std::size_t>(size));
  } catch (const std::exception& e) {
    sink->failed = true;
    sink->error = e.what();
  }
}

// Interleaved 8-bit samples of `t`, rounded to nearest and clamped to 0..255.
std::vector<unsigned char> interleave8(const core::HostTensor& t, const std::string& path, std::int64_t* clamped) {
  const std::int64_t channels = t.channels(), plane = t.shape().count();
  std::vector<unsigned char> pixels(static_cast<std::size_t>(plane * channels));
  std::int64_t n_clamped = 0;
  for (std::int64_t c = 0; c < channels; ++c) {
    for (std::int64_t p = 0; p < plane; ++p) {
      const double v = t.get(c * plane + p);
      if (std::isnan(v)) throw Error(ErrorCode::kInput, path, "cannot write NaN to an image");
      double r = std::round(v);
      if (r < 0 || r > 255) {
        r = std::clamp(r, 0.0, 255.0);
        ++n_clamped;
      }
      pixels[static_cast<std::size_t>(p * channels + c)] = static_cast<unsigned char>(r);
    }
  }
  if (clamped != nullptr) *clamped = n_clamped;
  return pixels;
}

}  // namespace

// ---- shared by the decoders ----------------------------------------------------------------------------

void check_image_size(const std::string& name, const char* format, std::int64_t width, std::int64_t height,
                      std::int64_t max_pixels) {
  if (width < 1 || height < 1)
    throw Error(ErrorCode::kInput, name,
                std::string(format) + " image of " + std::to_string(width) + "x" + std::to_string(height) +
                    " pixels: width and height must be at least 1");
  if (width > max_pixels / height)  // width * height > max_pixels, without overflow
    throw Error(ErrorCode::kInput, name,
                std::string(format) + " image of " + std::to_string(width) + "x" + std::to_string(height) +
                    " pixels is over the limit of " + std::to_string(max_pixels) + " pixels (see --max-pixels)");
}

void decode_failure(const std::string& name, const char* format, const std::string& why) {
  throw Error(ErrorCode::kInput, name,
              std::string("cannot decode image: ") + format + ": " + (why.empty() ? "corrupt data" : why));
}

core::Dataset planar_dataset(const std::uint8_t* px, std::int64_t width, std::int64_t height, int channels,
                             core::Precision prec, core::TensorPool* pool) {
  return planar(px, width, height, channels, prec, core::SourceKind::kImage8, pool);
}

core::Dataset planar_dataset(const std::uint16_t* px, std::int64_t width, std::int64_t height, int channels,
                             core::Precision prec, core::TensorPool* pool) {
  return planar(px, width, height, channels, prec, core::SourceKind::kImage16, pool);
}

core::Dataset image_dataset8(DecodeBuffer&& buffer, std::int64_t width, std::int64_t height, int channels,
                             const core::ReadOptions& opt) {
  if (!opt.samples8 || (channels != 1 && channels != 3))
    return planar_dataset(buffer.data(), width, height, channels, opt.prec, opt.pool);
  auto s = std::make_shared<core::Samples8>();
  s->bytes = std::move(buffer.bytes);
  s->rows = height;
  s->cols = width;
  s->channels = channels;
  core::Dataset d;
  d.kind = core::SourceKind::kImage8;
  d.samples8 = std::move(s);
  return d;
}

void ensure_samples8(core::Dataset& d) {
  if (d.has_planes() || d.samples8 || !d.jpeg) return;
  d.samples8 = d.jpeg->decode();
}

void ensure_planes(core::Dataset& d, core::TensorPool* pool) {
  ensure_samples8(d);
  if (d.has_planes() || !d.samples8) return;
  const core::Samples8& s = *d.samples8;
  d.tensor = planar_dataset(s.data(), s.cols, s.rows, s.channels, core::Precision::kF32, pool).tensor;
}

void* allocate_decode_buffer(void* decode_buffer, std::size_t bytes) {
  try {
    auto* b = static_cast<DecodeBuffer*>(decode_buffer);
    b->bytes = core::take_bytes(b->pool, bytes);
    return b->bytes.data();
  } catch (...) {
    return nullptr;
  }
}

std::vector<unsigned char> read_file_bytes(const std::string& path) {
  core::require_input_file(path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw Error(ErrorCode::kInput, path, "cannot open for reading");
  std::vector<unsigned char> bytes;
  unsigned char buf[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f.get());
    bytes.insert(bytes.end(), buf, buf + n);
    if (n < sizeof buf) break;
  }
  if (std::ferror(f.get())) throw Error(ErrorCode::kInput, path, "read error");
  return bytes;
}

ImageFormat sniff_image(Bytes file, const std::string& name) {
  const auto starts = [&](std::initializer_list<unsigned char> sig) {
    return file.size() >= sig.size() && std::equal(sig.begin(), sig.end(), file.begin());
  };
  if (starts({0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a})) return ImageFormat::kPng;
  if (starts({0xff, 0xd8, 0xff})) return ImageFormat::kJpeg;
  if (starts({'B', 'M'})) return ImageFormat::kBmp;
  if (file.size() >= 2 && file[0] == 'P' && file[1] >= '1' && file[1] <= '7') return ImageFormat::kPnm;
  if (core::lower_extension(name) == ".tga") return ImageFormat::kTga;
  return ImageFormat::kUnknown;
}

core::Dataset decode_image(Bytes file, const std::string& name, const core::ReadOptions& opt) {
  switch (sniff_image(file, name)) {
    case ImageFormat::kPng:
      return decode_png(file, name, opt);
    case ImageFormat::kJpeg:
      return decode_jpeg_image(file, name, opt);
    case ImageFormat::kBmp:
      return decode_bmp(file, name, opt);
    case ImageFormat::kTga:
      return decode_tga(file, name, opt);
    case ImageFormat::kPnm:
      return decode_pnm(file, name, opt);
    case ImageFormat::kUnknown:
      break;
  }
  throw Error(ErrorCode::kInput, name,
              "cannot decode image: not a PNG, JPEG, BMP or PNM file (unrecognised content; TGA is read from .tga "
              "files only)");
}

// ---- the codec -----------------------------------------------------------------------------------------

bool ImageFileCodec::handles_read(const std::string& path) const {
  return one_of(path, {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm"});
}

bool ImageFileCodec::handles_write(const std::string& path) const {
  return one_of(path, {".png", ".jpg", ".jpeg", ".bmp", ".tga"});
}

core::Dataset ImageFileCodec::read(const std::string& path, core::Precision prec) const {
  core::ReadOptions opt;
  opt.prec = prec;
  return read(path, opt);
}

core::Dataset ImageFileCodec::read(const std::string& path, const core::ReadOptions& opt) const {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  return decode_image(bytes, path, opt);
}

void ImageFileCodec::write(const std::string& path, const core::HostTensor& t, int bit_depth,
                           std::int64_t* clamped) const {
  if (bit_depth != 8 && bit_depth != 16)
    throw Error(ErrorCode::kUsage, path, "image bit depth must be 8 or 16, not " + std::to_string(bit_depth));
  if (!handles_write(path))
    throw Error(ErrorCode::kUsage, path, "cannot write images of type '" + core::lower_extension(path) + "'");
  const std::string ext = core::lower_extension(path);
  if (bit_depth == 16 && ext != ".png")
    throw Error(ErrorCode::kUnsupported, path, "16-bit image output is .png only (or write .npy)");
  const std::int64_t channels = t.channels();
  if (channels < 1 || channels > 4)
    throw Error(ErrorCode::kUsage, path,
                "an image holds 1 to 4 channels, the data has " + std::to_string(channels) + " (write .npy instead)");
  if (t.rows() < 1 || t.cols() < 1 || t.rows() > INT_MAX || t.cols() > INT_MAX ||
      t.rows() * t.cols() * channels > INT_MAX)
    throw Error(ErrorCode::kInput, path, "image of " + core::to_string(t.shape()) + " is too large to encode");

  if (ext == ".png") {
    const std::vector<unsigned char> file = encode_png(t, bit_depth, PngEncoding{}, path, clamped);
    core::AtomicFile out(path);
    out.write(file.data(), file.size());
    out.commit();
    return;
  }

  const int w = static_cast<int>(t.cols()), h = static_cast<int>(t.rows()), comp = static_cast<int>(channels);
  std::int64_t n_clamped = 0;
  const std::vector<unsigned char> pixels = interleave8(t, path, &n_clamped);
  if (ext == ".jpg" || ext == ".jpeg") {
    const std::vector<unsigned char> file = encode_jpeg_pixels(pixels.data(), h, w, comp, kJpegQuality, path);
    core::AtomicFile out(path);
    out.write(file.data(), file.size());
    out.commit();
    if (clamped != nullptr) *clamped = n_clamped;
    return;
  }
  core::AtomicFile out(path);
  Sink sink{&out, false, {}};
  int ok = 0;
  if (ext == ".bmp")
    ok = stbi_write_bmp_to_func(sink_write, &sink, w, h, comp, pixels.data());
  else
    ok = stbi_write_tga_to_func(sink_write, &sink, w, h, comp, pixels.data());
  if (sink.failed) throw Error(ErrorCode::kRuntime, path, sink.error);
  if (!ok) throw Error(ErrorCode::kRuntime, path, "image encoder failed");
  out.commit();
  if (clamped != nullptr) *clamped = n_clamped;
}

}  // namespace dct::app
