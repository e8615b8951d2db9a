// BMP: a strict reader of our own. Headers: BITMAPCOREHEADER (12 bytes), BITMAPINFOHEADER (40) and its V2-V5
// extensions (52, 56, 108, 124). Pixels: 1/4/8-bit palettes, 16-bit (5-5-5 or bit fields), 24-bit, 32-bit (BGRA or
// bit fields); bottom-up or top-down. RLE and embedded JPEG/PNG are refused. The whole raster must lie inside the
// file (checked before anything is allocated) and every palette index must name an entry. Channels as stb_image
// gave them: 3 (RGB), or 4 for 32-bit pixels with an alpha mask (an alpha channel that is zero everywhere reads as
// opaque, as many writers leave it zero).
#include <bit>
#include <memory>
#include <vector>

#include "app/image_decode.hpp"
#include "core/error.hpp"

namespace dct::app {
namespace {

std::uint32_t u16(Bytes f, std::size_t at) { return f[at] | (f[at + 1] << 8); }
std::uint32_t u32(Bytes f, std::size_t at) {
  return f[at] | (f[at + 1] << 8) | (f[at + 2] << 16) | (std::uint32_t(f[at + 3]) << 24);
}

[[noreturn]] void fail(const std::string& name, const std::string& why) { decode_failure(name, "BMP", why); }

// A channel of a bit-field pixel as 8 bits: the field's top 8 bits, or a short field's bits repeated.
struct Field {
  std::uint32_t mask = 0;
  int shift = 0, bits = 0;
  std::uint8_t get(std::uint32_t px) const {
    if (bits == 0) return 0;
    const std::uint32_t v = (px & mask) >> shift;
    if (bits >= 8) return static_cast<std::uint8_t>(v >> (bits - 8));
    std::uint32_t out = 0;
    for (int filled = 0; filled < 8; filled += bits) out = (out << bits) | v;  // v repeated from the top
    return static_cast<std::uint8_t>(out >> (((8 + bits - 1) / bits) * bits - 8));
  }
};

Field field(std::uint32_t mask, int bpp, const std::string& name) {
  Field f;
  f.mask = mask;
  if (mask == 0) return f;
  if (bpp < 32 && (mask >> bpp) != 0) fail(name, "a colour mask lies outside the pixel");
  f.shift = std::countr_zero(mask);
  f.bits = std::popcount(mask);
  if (f.bits != 32 && (mask >> f.shift) != (std::uint32_t{1} << f.bits) - 1)
    fail(name, "a colour mask is not contiguous");
  return f;
}

}  // namespace

core::Dataset decode_bmp(Bytes file, const std::string& name, const core::ReadOptions& opt) {
  if (file.size() < 14 + 12) fail(name, "truncated header");
  if (file[0] != 'B' || file[1] != 'M') fail(name, "no BM signature");
  const std::uint32_t offset = u32(file, 10);
  const std::uint32_t header = u32(file, 14);
  if (header != 12 && header != 40 && header != 52 && header != 56 && header != 108 && header != 124)
    fail(name, "unsupported header of " + std::to_string(header) + " bytes");
  if (file.size() < 14 + std::size_t(header)) fail(name, "truncated header");
  std::int64_t width = 0, height = 0;
  std::uint32_t bpp = 0, compression = 0, colours = 0;
  if (header == 12) {
    width = u16(file, 18);
    height = u16(file, 20);
    if (u16(file, 22) != 1) fail(name, "planes must be 1");
    bpp = u16(file, 24);
  } else {
    width = static_cast<std::int32_t>(u32(file, 18));
    height = static_cast<std::int32_t>(u32(file, 22));
    if (u16(file, 26) != 1) fail(name, "planes must be 1");
    bpp = u16(file, 28);
    compression = u32(file, 30);
    colours = u32(file, 46);
  }
  const bool top_down = height < 0;
  if (top_down) height = -height;  // int64: INT32_MIN negates safely
  if (compression == 1 || compression == 2) fail(name, "RLE-compressed BMP files are not supported");
  if (compression == 4 || compression == 5) fail(name, "BMP files holding JPEG or PNG data are not supported");
  if (compression != 0 && compression != 3 && compression != 6)
    fail(name, "unknown compression " + std::to_string(compression));
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
    fail(name, "unsupported bit depth " + std::to_string(bpp));
  if (compression != 0 && bpp != 16 && bpp != 32) fail(name, "bit fields need 16 or 32 bits per pixel");
  check_image_size(name, "BMP", width, height, opt.max_pixels);

  // Bit fields: inside the V2+ header, or after the 40-byte header.
  std::size_t palette_at = 14 + header;
  std::uint32_t masks[4] = {0, 0, 0, 0};
  if (compression == 3 || compression == 6) {
    const std::size_t n = header >= 56 || compression == 6 ? 4 : 3;
    std::size_t at = 14 + 40;
    if (header == 40) palette_at += 4 * n;
    if (file.size() < at + 4 * n) fail(name, "truncated bit fields");
    for (std::size_t i = 0; i < n; ++i) masks[i] = u32(file, at + 4 * i);
  } else if (bpp == 16) {
    masks[0] = 0x7c00, masks[1] = 0x03e0, masks[2] = 0x001f;
  } else if (bpp == 32) {
    masks[0] = 0x00ff0000, masks[1] = 0x0000ff00, masks[2] = 0x000000ff, masks[3] = 0xff000000;
  }

  // Palette.
  std::vector<std::uint8_t> palette;  // RGB triples
  if (bpp <= 8) {
    const std::uint32_t max_entries = 1u << bpp;
    const std::uint32_t n = colours == 0 ? max_entries : colours;
    if (n > max_entries)
      fail(name, "palette of " + std::to_string(n) + " entries for " + std::to_string(bpp) + "-bit pixels");
    const std::size_t entry = header == 12 ? 3 : 4;
    if (palette_at + n * entry > file.size() || palette_at + n * entry > offset) fail(name, "truncated palette");
    palette.resize(3 * std::size_t(n));
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::size_t at = palette_at + i * entry;
      palette[3 * i] = file[at + 2];
      palette[3 * i + 1] = file[at + 1];
      palette[3 * i + 2] = file[at];
    }
  }

  const std::int64_t stride = (width * bpp + 31) / 32 * 4;
  if (offset < 14 + header || offset > file.size()) fail(name, "pixel data offset outside the file");
  const auto have = static_cast<std::int64_t>(file.size() - offset);
  if (have / stride < height)
    fail(name, "truncated file: " + std::to_string(width) + "x" + std::to_string(height) + " at " +
                   std::to_string(bpp) + " bits needs " + std::to_string(stride * height) +
                   " bytes of pixels, the file has " + std::to_string(have));

  const Field fr = field(masks[0], static_cast<int>(bpp), name), fg = field(masks[1], static_cast<int>(bpp), name),
              fb = field(masks[2], static_cast<int>(bpp), name), fa = field(masks[3], static_cast<int>(bpp), name);
  if ((bpp == 16 || bpp == 32) && (fr.bits == 0 || fg.bits == 0 || fb.bits == 0)) fail(name, "an empty colour mask");
  const int channels = bpp == 32 && fa.bits != 0 ? 4 : 3;
  auto px = std::make_unique_for_overwrite<std::uint8_t[]>(static_cast<std::size_t>(width * height * channels));
  bool any_alpha = false;
  for (std::int64_t y = 0; y < height; ++y) {
    const unsigned char* row = file.data() + offset + (top_down ? y : height - 1 - y) * stride;
    std::uint8_t* out = px.get() + y * width * channels;
    for (std::int64_t x = 0; x < width; ++x, out += channels) {
      if (bpp <= 8) {
        const std::uint32_t bit = static_cast<std::uint32_t>(x) * bpp;
        const std::uint32_t index = (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
        if (3 * std::size_t(index) >= palette.size()) fail(name, "a pixel names a colour beyond the palette");
        out[0] = palette[3 * index], out[1] = palette[3 * index + 1], out[2] = palette[3 * index + 2];
      } else if (bpp == 24) {
        out[0] = row[3 * x + 2], out[1] = row[3 * x + 1], out[2] = row[3 * x];
      } else {
        const std::uint32_t v = bpp == 16 ? u16(file, row - file.data() + 2 * x) : u32(file, row - file.data() + 4 * x);
        out[0] = fr.get(v), out[1] = fg.get(v), out[2] = fb.get(v);
        if (channels == 4) {
          out[3] = fa.get(v);
          any_alpha = any_alpha || out[3] != 0;
        }
      }
    }
  }
  if (channels == 4 && !any_alpha)
    for (std::int64_t i = 0; i < width * height; ++i) px[static_cast<std::size_t>(i * 4 + 3)] = 255;
  return planar_dataset(px.get(), width, height, channels, opt.prec, opt.pool);
}

}  // namespace dct::app
