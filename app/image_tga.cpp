// TGA (Truevision): a strict reader of our own. Image types 1/9 (colour-mapped), 2/10 (true colour) and 3/11
// (gray), uncompressed or RLE; 8-bit indices into 15/16/24/32-bit maps, 15/16/24/32-bit true colour, 8-bit gray and
// 16-bit gray+alpha (what stb_image_write writes for two channels). Channels as stb_image gave them: gray 1,
// gray+alpha 2, 15/16-bit colour 3 (the attribute bit is not alpha), 24-bit 3, 32-bit 4. Both origin bits are
// honoured. The file must hold every pixel: an uncompressed raster is checked against the file size before
// anything is allocated, an RLE one against the least its packets can take, and a packet may not run past the image.
#include <memory>

#include "app/image_decode.hpp"
#include "core/error.hpp"

namespace dct::app {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& why) { decode_failure(name, "TGA", why); }

std::uint32_t u16(Bytes f, std::size_t at) { return f[at] | (f[at + 1] << 8); }

// One stored pixel (`bytes` long, little-endian) as up to 4 output samples (RGB(A) or gray(+alpha)).
void convert(const unsigned char* p, int bytes, int bits, bool gray, std::uint8_t* out) {
  if (gray) {
    out[0] = p[0];
    if (bytes == 2) out[1] = p[1];
    return;
  }
  if (bits == 15 || bits == 16) {
    const unsigned v = p[0] | (p[1] << 8);
    const unsigned r = (v >> 10) & 31, g = (v >> 5) & 31, b = v & 31;
    out[0] = static_cast<std::uint8_t>((r << 3) | (r >> 2));
    out[1] = static_cast<std::uint8_t>((g << 3) | (g >> 2));
    out[2] = static_cast<std::uint8_t>((b << 3) | (b >> 2));
    return;
  }
  out[0] = p[2], out[1] = p[1], out[2] = p[0];
  if (bytes == 4) out[3] = p[3];
}

}  // namespace

core::Dataset decode_tga(Bytes file, const std::string& name, const core::ReadOptions& opt) {
  if (file.size() < 18) fail(name, "truncated header");
  const unsigned id_length = file[0], map_type = file[1], type = file[2];
  const unsigned map_first = u16(file, 3), map_length = u16(file, 5), map_bits = file[7];
  const std::int64_t width = u16(file, 12), height = u16(file, 14);
  const unsigned bits = file[16], descriptor = file[17];
  if (map_type > 1) fail(name, "bad colour map type " + std::to_string(map_type));
  const unsigned base = type & 7u;
  const bool rle = (type & 8u) != 0;
  if ((type & ~11u) != 0 || base < 1 || base > 3) fail(name, "unsupported image type " + std::to_string(type));
  const bool mapped = base == 1, gray = base == 3;
  if (mapped && map_type != 1) fail(name, "colour-mapped image without a colour map");
  check_image_size(name, "TGA", width, height, opt.max_pixels);

  // The stored pixel: its size and how it maps to output channels.
  int stored = 0, channels = 0, out_bits = 0;  // out_bits: bits of the colour a pixel (or map entry) holds
  if (mapped) {
    if (bits != 8 && bits != 16) fail(name, "colour-map indices of " + std::to_string(bits) + " bits");
    stored = bits / 8;
    out_bits = static_cast<int>(map_bits);
  } else if (gray) {
    if (bits != 8 && bits != 16) fail(name, "gray pixels of " + std::to_string(bits) + " bits");
    stored = bits / 8;
    channels = stored;
  } else {
    if (bits != 15 && bits != 16 && bits != 24 && bits != 32)
      fail(name, "true-colour pixels of " + std::to_string(bits) + " bits");
    stored = (static_cast<int>(bits) + 7) / 8;
    out_bits = static_cast<int>(bits);
  }
  if (!gray) {
    if (out_bits != 15 && out_bits != 16 && out_bits != 24 && out_bits != 32)
      fail(name, "colours of " + std::to_string(out_bits) + " bits");
    channels = out_bits == 32 ? 4 : 3;
  }

  std::size_t pos = 18 + id_length;
  const std::size_t map_entry = (map_bits + 7) / 8;
  const std::size_t map_bytes = map_type == 1 ? map_length * map_entry : 0;
  if (map_type == 1 && map_entry == 0) fail(name, "colour map entries of 0 bits");
  if (pos + map_bytes > file.size()) fail(name, "truncated colour map");
  const unsigned char* map = file.data() + pos;
  pos += map_bytes;

  const std::int64_t pixels = width * height;
  const auto have = static_cast<std::int64_t>(file.size() - pos);
  // Uncompressed: every pixel stored; RLE: at least one header byte and one pixel per 128 pixels.
  const std::int64_t least = rle ? (pixels + 127) / 128 * (1 + stored) : pixels * stored;
  if (have < least)
    fail(name, "truncated file: " + std::to_string(width) + "x" + std::to_string(height) + " needs " +
                   (rle ? "at least " : "") + std::to_string(least) + " bytes of pixels, the file has " +
                   std::to_string(have));

  auto px = std::make_unique_for_overwrite<std::uint8_t[]>(static_cast<std::size_t>(pixels * channels));
  const unsigned char* src = file.data() + pos;
  const unsigned char* end = file.data() + file.size();
  const bool right_to_left = (descriptor & 0x10u) != 0, top_down = (descriptor & 0x20u) != 0;
  std::int64_t i = 0;
  std::int64_t run = 0;  // pixels left in the current packet
  bool repeat = false;   // run-length packet: one stored pixel repeated
  const unsigned char* value = nullptr;
  while (i < pixels) {
    if (rle && run == 0) {
      if (src >= end) fail(name, "truncated RLE data");
      const unsigned h = *src++;
      run = (h & 127u) + 1;
      repeat = (h & 128u) != 0;
      if (run > pixels - i) fail(name, "an RLE packet runs past the end of the image");
      if (repeat) {
        if (end - src < stored) fail(name, "truncated RLE data");
        value = src;
        src += stored;
      }
    }
    const unsigned char* p = value;
    if (!rle || !repeat) {
      if (end - src < stored) fail(name, "truncated pixel data");
      p = src;
      src += stored;
    }
    if (rle) --run;
    const std::int64_t y = i / width, x = i % width;
    const std::int64_t row = top_down ? y : height - 1 - y, col = right_to_left ? width - 1 - x : x;
    std::uint8_t* out = px.get() + (row * width + col) * channels;
    if (mapped) {
      const unsigned index = stored == 1 ? p[0] : u16(file, static_cast<std::size_t>(p - file.data()));
      if (index < map_first || index - map_first >= map_length) fail(name, "a pixel names a colour beyond the map");
      convert(map + (index - map_first) * map_entry, static_cast<int>(map_entry), out_bits, false, out);
    } else {
      convert(p, stored, out_bits, gray, out);
    }
    ++i;
  }
  return planar_dataset(px.get(), width, height, channels, opt.prec, opt.pool);
}

}  // namespace dct::app
