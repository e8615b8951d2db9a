// PNG through libpng. libpng reports errors by longjmp from its error callback, so the two functions that call it
// (decode_c, encode_c) are C-style: no object with a destructor lives in their frames or in the callbacks, memory
// they need comes from the caller (through a callback that cannot throw) and errors come back as a message that
// the C++ wrappers turn into a dct::Error. Reading is strict: a bad CRC on any chunk, a zlib or Adler-32 error,
// libpng's "benign" errors (extra data, misplaced chunks) and a file that ends before IEND are all errors.
// Ancillary chunks other than tRNS are skipped unread (their CRC is still checked): dctool applies no gamma, colour
// profile or background, as stb_image did not.
#include <png.h>

#include <bit>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>

#include "app/image_decode.hpp"
#include "core/error.hpp"

namespace dct::app {
namespace {

constexpr std::size_t kMessage = 256;

struct PngState {
  // input (decode) or output (encode)
  const unsigned char* data = nullptr;
  std::size_t size = 0, pos = 0;
  unsigned char* out = nullptr;  // encode: malloc'ed, grown by write_mem
  std::size_t out_size = 0, out_cap = 0;
  // decode: the caller's limit and buffer
  std::int64_t max_pixels = 0;
  void* (*alloc)(void* ctx, std::size_t bytes) = nullptr;  // returns nullptr on failure, never throws
  void* alloc_ctx = nullptr;
  // decode: what the header says, after libpng's expansions
  png_uint_32 width = 0, height = 0;
  int channels = 0, depth = 0;
  bool too_large = false;
  png_bytep* rows = nullptr;  // malloc'ed row pointers, freed by the C-style functions
  char message[kMessage] = {};
};

void on_error(png_structp png, png_const_charp msg) {
  auto* st = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(st->message, kMessage, "%s", msg != nullptr && *msg != '\0' ? msg : "corrupt data");
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // warnings are not printed

void read_mem(png_structp png, png_bytep out, png_size_t n) {
  auto* st = static_cast<PngState*>(png_get_io_ptr(png));
  if (n > st->size - st->pos) png_error(png, "truncated file (it ends before the image does)");
  std::memcpy(out, st->data + st->pos, n);
  st->pos += n;
}

void write_mem(png_structp png, png_bytep data, png_size_t n) {
  auto* st = static_cast<PngState*>(png_get_io_ptr(png));
  if (n > st->out_cap - st->out_size) {
    std::size_t cap = st->out_cap < 4096 ? 4096 : st->out_cap;
    while (cap - st->out_size < n) cap *= 2;
    auto* grown = static_cast<unsigned char*>(std::realloc(st->out, cap));
    if (grown == nullptr) png_error(png, "out of host memory");
    st->out = grown;
    st->out_cap = cap;
  }
  std::memcpy(st->out + st->out_size, data, n);
  st->out_size += n;
}

void flush_mem(png_structp) {}

// Ancillary chunks dctool does not use: skipped (CRC checked) rather than parsed.
constexpr png_byte kSkipped[] =
    "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0sPLT\0sRGB\0"
    "tEXt\0tIME\0zTXt";

bool decode_c(PngState* st) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, st, on_error, on_warning);
  if (png == nullptr) {
    std::snprintf(st->message, kMessage, "libpng cannot start");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::snprintf(st->message, kMessage, "libpng cannot start");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    std::free(st->rows);
    st->rows = nullptr;
    return false;
  }
  png_set_read_fn(png, st, read_mem);
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);  // dctool's own pixel limit applies below
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  png_set_benign_errors(png, 0);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, 0);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, kSkipped, static_cast<int>(sizeof kSkipped / 5));
  png_read_info(png, info);
  png_uint_32 w = 0, h = 0;
  int bit_depth = 0, color_type = 0;
  png_get_IHDR(png, info, &w, &h, &bit_depth, &color_type, nullptr, nullptr, nullptr);
  st->width = w;
  st->height = h;
  if (w == 0 || h == 0 || static_cast<std::int64_t>(w) > st->max_pixels / static_cast<std::int64_t>(h)) {
    st->too_large = true;
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (bit_depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  st->channels = png_get_channels(png, info);
  st->depth = png_get_bit_depth(png, info);
  const std::size_t row_bytes = png_get_rowbytes(png, info);
  if ((st->depth != 8 && st->depth != 16) || st->channels < 1 || st->channels > 4 ||
      row_bytes != std::size_t(w) * std::size_t(st->channels) * std::size_t(st->depth / 8))
    png_error(png, "unexpected pixel layout");
  auto* pixels = static_cast<unsigned char*>(st->alloc(st->alloc_ctx, row_bytes * h));
  st->rows = static_cast<png_bytep*>(std::malloc(sizeof(png_bytep) * h));
  if (pixels == nullptr || st->rows == nullptr) png_error(png, "out of host memory");
  for (png_uint_32 y = 0; y < h; ++y) st->rows[y] = pixels + std::size_t(y) * row_bytes;
  png_read_image(png, st->rows);
  png_read_end(png, nullptr);  // the chunks after the image, up to IEND: their CRCs, and truncation
  png_destroy_read_struct(&png, &info, nullptr);
  std::free(st->rows);
  st->rows = nullptr;
  return true;
}

struct EncodeArgs {
  const unsigned char* pixels;  // interleaved; 16-bit samples in native order
  png_uint_32 width, height;
  int channels, depth, level, filters;
};

bool encode_c(const EncodeArgs* a, PngState* st) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, st, on_error, on_warning);
  if (png == nullptr) {
    std::snprintf(st->message, kMessage, "libpng cannot start");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(st->message, kMessage, "libpng cannot start");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::free(st->rows);
    st->rows = nullptr;
    return false;
  }
  png_set_write_fn(png, st, write_mem, flush_mem);
  static constexpr int kTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                   PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_IHDR(png, info, a->width, a->height, a->depth, kTypes[a->channels - 1], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, a->level);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, a->filters);
  png_write_info(png, info);
  if (a->depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  const std::size_t row_bytes = std::size_t(a->width) * std::size_t(a->channels) * std::size_t(a->depth / 8);
  st->rows = static_cast<png_bytep*>(std::malloc(sizeof(png_bytep) * a->height));
  if (st->rows == nullptr) png_error(png, "out of host memory");
  for (png_uint_32 y = 0; y < a->height; ++y)
    st->rows[y] = const_cast<unsigned char*>(a->pixels) + std::size_t(y) * row_bytes;
  png_write_image(png, st->rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::free(st->rows);
  st->rows = nullptr;
  return true;
}

struct FreeOut {
  void operator()(unsigned char* p) const noexcept { std::free(p); }
};

}  // namespace

core::Dataset decode_png(Bytes file, const std::string& name, const core::ReadOptions& opt) {
  DecodeBuffer buffer;
  // Samples kept as the Dataset's (ReadOptions::samples8) come from the pool; a buffer only read into planes (which
  // come from the pool) is the heap's: blocks of two sizes in one pool would take turns being dropped and made.
  buffer.pool = opt.samples8 ? opt.pool : nullptr;
  PngState st;
  st.data = file.data();
  st.size = file.size();
  st.max_pixels = opt.max_pixels;
  st.alloc = allocate_decode_buffer;
  st.alloc_ctx = &buffer;
  if (!decode_c(&st)) {
    if (st.too_large) check_image_size(name, "PNG", st.width, st.height, opt.max_pixels);
    decode_failure(name, "PNG", st.message);
  }
  const auto w = static_cast<std::int64_t>(st.width), h = static_cast<std::int64_t>(st.height);
  if (st.depth == 16) {
    // The buffer is 64-byte aligned (core::AlignedBuffer), filled as uint16 by libpng.
    return planar_dataset(reinterpret_cast<const std::uint16_t*>(buffer.data()), w, h, st.channels, opt.prec, opt.pool);
  }
  return image_dataset8(std::move(buffer), w, h, st.channels, opt);
}

namespace {

int png_filters(PngFilter f) {
  switch (f) {
    case PngFilter::kNone:
      return PNG_FILTER_NONE;
    case PngFilter::kSub:
      return PNG_FILTER_SUB;
    case PngFilter::kUp:
      return PNG_FILTER_UP;
    case PngFilter::kAverage:
      return PNG_FILTER_AVG;
    case PngFilter::kPaeth:
      return PNG_FILTER_PAETH;
    case PngFilter::kAdaptive:
      break;
  }
  return PNG_ALL_FILTERS;
}

// Interleaved samples of planar `src`, rounded to nearest and clamped to 0..top; the count of clamped values, or
// -1 for a NaN.
template <class Sample, class T>
std::int64_t interleave(const T* src, std::int64_t plane, std::int64_t channels, double top, Sample* dst) {
  std::int64_t clamped = 0;
  for (std::int64_t c = 0; c < channels; ++c) {
    const T* s = src + c * plane;
    Sample* d = dst + c;
    for (std::int64_t p = 0; p < plane; ++p) {
      const double v = static_cast<double>(s[p]);
      double r = std::round(v);
      if (!(r >= 0 && r <= top)) {
        if (std::isnan(v)) return -1;
        r = r < 0 ? 0 : top;
        ++clamped;
      }
      d[p * channels] = static_cast<Sample>(r);
    }
  }
  return clamped;
}

}  // namespace

std::vector<unsigned char> encode_png(const core::HostTensor& t, int bit_depth, const PngEncoding& how,
                                      const std::string& name, std::int64_t* clamped) {
  const std::int64_t channels = t.channels(), plane = t.shape().count();
  const double top = bit_depth == 16 ? 65535.0 : 255.0;
  const std::size_t bytes_per = bit_depth == 16 ? 2 : 1;
  std::vector<unsigned char> pixels(static_cast<std::size_t>(plane * channels) * bytes_per);
  std::int64_t n_clamped = 0;
  const auto run = [&](auto* dst) {
    n_clamped = t.precision() == core::Precision::kF32 ? interleave(t.data<float>(), plane, channels, top, dst)
                                                       : interleave(t.data<double>(), plane, channels, top, dst);
  };
  if (bit_depth == 16)
    run(reinterpret_cast<std::uint16_t*>(pixels.data()));  // vector<unsigned char> storage: new-aligned
  else
    run(pixels.data());
  if (n_clamped < 0) throw Error(ErrorCode::kInput, name, "cannot write NaN to an image");
  const EncodeArgs a{pixels.data(),
                     static_cast<png_uint_32>(t.cols()),
                     static_cast<png_uint_32>(t.rows()),
                     static_cast<int>(channels),
                     bit_depth,
                     how.level,
                     png_filters(how.filter)};
  PngState st;
  const bool ok = encode_c(&a, &st);
  std::unique_ptr<unsigned char, FreeOut> out(st.out);
  if (!ok) throw Error(ErrorCode::kRuntime, name, std::string("cannot encode PNG: ") + st.message);
  if (clamped != nullptr) *clamped = n_clamped;
  return std::vector<unsigned char>(out.get(), out.get() + st.out_size);
}

}  // namespace dct::app
