// core::ImageCodec on stb_image (decode) and stb_image_write (encode). Decoded images keep their channels
// (gray 1, gray+alpha 2, RGB 3, RGBA 4) as planes of raw 8-bit (or 16-bit) values; encoding rounds to
// nearest, clamps to 0..255 and goes through core::AtomicFile.
#include "app/image_stb.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string_view>
#include <vector>

#include "core/error.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#endif
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_ONLY_PNM
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace dct::app {
namespace {

// stb_image's reason for the last failure; it can be null or empty (a bad zlib stream, for one).
std::string decode_failure() {
  const char* why = stbi_failure_reason();
  return std::string("cannot decode image: ") + (why != nullptr && *why != '\0' ? why : "corrupt or unsupported data");
}

constexpr int kJpegQuality = 95;

bool one_of(const std::string& path, std::initializer_list<std::string_view> exts) {
  const std::string ext = core::lower_extension(path);
  return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

struct StbFree {
  void operator()(void* p) const noexcept { stbi_image_free(p); }
};

template <class Pixel>
core::HostTensor planar(const Pixel* pixels, int w, int h, int channels, core::Precision prec) {
  core::HostTensor t(core::Shape2{h, w}, channels, prec);
  const std::int64_t plane = static_cast<std::int64_t>(w) * h;
  for (std::int64_t p = 0; p < plane; ++p)
    for (int c = 0; c < channels; ++c) t.set(c * plane + p, static_cast<double>(pixels[p * channels + c]));
  return t;
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

}  // namespace

bool StbCodec::handles_read(const std::string& path) const {
  return one_of(path, {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm"});
}

bool StbCodec::handles_write(const std::string& path) const {
  return one_of(path, {".png", ".jpg", ".jpeg", ".bmp", ".tga"});
}

core::Dataset StbCodec::read(const std::string& path, core::Precision prec) const {
  core::require_input_file(path);
  int w = 0, h = 0, channels = 0;
  if (stbi_is_16_bit(path.c_str())) {
    std::unique_ptr<stbi_us, StbFree> px(stbi_load_16(path.c_str(), &w, &h, &channels, 0));
    if (!px) throw Error(ErrorCode::kInput, path, decode_failure());
    return {planar(px.get(), w, h, channels, prec), core::SourceKind::kImage16};
  }
  std::unique_ptr<stbi_uc, StbFree> px(stbi_load(path.c_str(), &w, &h, &channels, 0));
  if (!px) throw Error(ErrorCode::kInput, path, decode_failure());
  return {planar(px.get(), w, h, channels, prec), core::SourceKind::kImage8};
}

void StbCodec::write(const std::string& path, const core::HostTensor& t, int bit_depth, std::int64_t* clamped) const {
  if (bit_depth == 16)
    throw Error(ErrorCode::kUnsupported, path, "16-bit image output is not supported (stb_image_write writes 8-bit)");
  if (bit_depth != 8)
    throw Error(ErrorCode::kUsage, path, "image bit depth must be 8 or 16, not " + std::to_string(bit_depth));
  if (!handles_write(path))
    throw Error(ErrorCode::kUsage, path, "cannot write images of type '" + core::lower_extension(path) + "'");
  const std::int64_t channels = t.channels();
  if (channels < 1 || channels > 4)
    throw Error(ErrorCode::kUsage, path,
                "an image holds 1 to 4 channels, the data has " + std::to_string(channels) + " (write .npy instead)");
  if (t.rows() < 1 || t.cols() < 1 || t.rows() > INT_MAX || t.cols() > INT_MAX ||
      t.rows() * t.cols() * channels > INT_MAX)
    throw Error(ErrorCode::kInput, path, "image of " + core::to_string(t.shape()) + " is too large to encode");

  const int w = static_cast<int>(t.cols()), h = static_cast<int>(t.rows()), comp = static_cast<int>(channels);
  const std::int64_t plane = t.shape().count();
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

  core::AtomicFile out(path);
  Sink sink{&out, false, {}};
  const std::string ext = core::lower_extension(path);
  int ok = 0;
  if (ext == ".png")
    ok = stbi_write_png_to_func(sink_write, &sink, w, h, comp, pixels.data(), w * comp);
  else if (ext == ".bmp")
    ok = stbi_write_bmp_to_func(sink_write, &sink, w, h, comp, pixels.data());
  else if (ext == ".tga")
    ok = stbi_write_tga_to_func(sink_write, &sink, w, h, comp, pixels.data());
  else
    ok = stbi_write_jpg_to_func(sink_write, &sink, w, h, comp, pixels.data(), kJpegQuality);
  if (sink.failed) throw Error(ErrorCode::kRuntime, path, sink.error);
  if (!ok) throw Error(ErrorCode::kRuntime, path, "image encoder failed");
  out.commit();
  if (clamped != nullptr) *clamped = n_clamped;
}

}  // namespace dct::app
