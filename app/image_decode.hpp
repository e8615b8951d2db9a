#pragma once
// The image decoders and encoders behind app::ImageFileCodec, each a plain function of the file's bytes (so that a
// fuzz harness or a test can call one directly): PNG through libpng, JPEG through libjpeg-turbo, and small strict
// readers of our own for BMP, TGA and binary PNM. Every decoder checks the declared dimensions against the pixel
// limit (and, for uncompressed formats, against the bytes present) before it allocates, reports truncation and
// corrupt data as dct::Error(kInput) naming the file, and never returns uninitialised pixels.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/formats.hpp"

namespace dct::app {

using Bytes = std::span<const unsigned char>;

enum class ImageFormat { kUnknown, kPng, kJpeg, kBmp, kTga, kPnm };

// The format of `file` by its first bytes (PNG, JPEG, BMP "BM", PNM "P1".."P7"); TGA has no signature and is
// taken when `name` ends in .tga and no other signature matches. kUnknown otherwise.
ImageFormat sniff_image(Bytes file, const std::string& name);

// Decodes by content (sniff_image); an unrecognised file is an input error naming `name`.
core::Dataset decode_image(Bytes file, const std::string& name, const core::ReadOptions& opt);

// One format each; `name` is the file the errors name. Channels: gray 1, gray+alpha 2, RGB 3, RGBA 4.
core::Dataset decode_png(Bytes file, const std::string& name, const core::ReadOptions& opt);
core::Dataset decode_jpeg_image(Bytes file, const std::string& name, const core::ReadOptions& opt);
core::Dataset decode_bmp(Bytes file, const std::string& name, const core::ReadOptions& opt);
core::Dataset decode_tga(Bytes file, const std::string& name, const core::ReadOptions& opt);
core::Dataset decode_pnm(Bytes file, const std::string& name, const core::ReadOptions& opt);

// PNG row filters (the PNG specification's five, or libpng's per-row adaptive choice among them).
enum class PngFilter { kAdaptive, kNone, kSub, kUp, kAverage, kPaeth };
struct PngEncoding {
  int level = 1;                         // zlib level 0..9
  PngFilter filter = PngFilter::kPaeth;  // docs/decisions.md gives the measurements behind both defaults
};

// The PNG file of `t` (1 to 4 channels) at 8 or 16 bits per sample, values rounded to nearest and clamped to
// the range (`clamped` counts them).
std::vector<unsigned char> encode_png(const core::HostTensor& t, int bit_depth, const PngEncoding& how,
                                      const std::string& name, std::int64_t* clamped);

// The whole file (require_input_file's checks first); errors name `path`.
std::vector<unsigned char> read_file_bytes(const std::string& path);

// The buffer a C-style decoder (libpng's, libjpeg's: no C++ object may live in their frames) fills: owned by the C++
// caller, handed over with allocate_decode_buffer, a callback that does not throw (nullptr when out of memory). Taken
// from `pool` where one is given (ReadOptions::pool): a batch's decoders then write into memory already mapped.
struct DecodeBuffer {
  core::AlignedBuffer bytes;
  core::TensorPool* pool = nullptr;
  const unsigned char* data() const { return static_cast<const unsigned char*>(bytes.data()); }
};
void* allocate_decode_buffer(void* decode_buffer, std::size_t bytes);

// ---- shared by the decoders ----------------------------------------------------------------------------

// Throws kInput naming `name` unless 1 <= width, 1 <= height and width * height <= max_pixels.
void check_image_size(const std::string& name, const char* format, std::int64_t width, std::int64_t height,
                      std::int64_t max_pixels);

// "cannot decode image: <format>: <why>" as a kInput error naming `name`.
[[noreturn]] void decode_failure(const std::string& name, const char* format, const std::string& why);

// A planar Dataset from interleaved samples (height x width x channels), its tensor from `pool` where one is given
// (ReadOptions::pool), else from the heap.
core::Dataset planar_dataset(const std::uint8_t* px, std::int64_t width, std::int64_t height, int channels,
                             core::Precision prec, core::TensorPool* pool = nullptr);
core::Dataset planar_dataset(const std::uint16_t* px, std::int64_t width, std::int64_t height, int channels,
                             core::Precision prec, core::TensorPool* pool = nullptr);
// A decoded 8-bit image: with ReadOptions::samples8 and 1 or 3 channels, the buffer itself as Dataset::samples8
// (no planes); else planar_dataset of it.
core::Dataset image_dataset8(DecodeBuffer&& buffer, std::int64_t width, std::int64_t height, int channels,
                             const core::ReadOptions& opt);
// Makes `d`'s samples8 where it has only a JPEG file's coefficients (ReadOptions::jpeg_coefficients: libjpeg-turbo
// decodes the file); nothing otherwise.
void ensure_samples8(core::Dataset& d);
// Makes `d`'s planes from its samples8 (ensure_samples8 first) where it has none (ReadOptions::samples8); nothing
// otherwise.
void ensure_planes(core::Dataset& d, core::TensorPool* pool = nullptr);

}  // namespace dct::app
