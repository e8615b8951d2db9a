// Binary PNM (P5 gray, P6 RGB; netpbm's format): a strict reader of our own. The header is parsed token by token
// (comments allowed between tokens), every sample must be <= maxval, the raster must be complete; maxval above 255
// means 16-bit big-endian samples (a kImage16 dataset). The ASCII variants (P1-P3), PBM (P4) and PAM (P7) are refused.
// Samples keep their values (no scaling to 255 or 65535), as stb_image did. Bytes after the raster (netpbm allows a
// further image there) are ignored.
#include <memory>

#include "app/image_decode.hpp"
#include "core/error.hpp"

namespace dct::app {
namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// A decimal header field at `pos` after whitespace and comments; at most 10 digits.
std::int64_t header_number(Bytes file, std::size_t& pos, const std::string& name, const char* what) {
  for (;;) {
    while (pos < file.size() && is_space(file[pos])) ++pos;
    if (pos < file.size() && file[pos] == '#') {
      while (pos < file.size() && file[pos] != '\n' && file[pos] != '\r') ++pos;
      continue;
    }
    break;
  }
  if (pos >= file.size()) decode_failure(name, "PNM", std::string("truncated header (no ") + what + ")");
  if (file[pos] < '0' || file[pos] > '9')
    decode_failure(name, "PNM", std::string("bad header: ") + what + " is not a number");
  std::int64_t v = 0;
  int digits = 0;
  while (pos < file.size() && file[pos] >= '0' && file[pos] <= '9') {
    if (++digits > 10) decode_failure(name, "PNM", std::string("bad header: ") + what + " is too large");
    v = v * 10 + (file[pos++] - '0');
  }
  return v;
}

}  // namespace

core::Dataset decode_pnm(Bytes file, const std::string& name, const core::ReadOptions& opt) {
  if (file.size() < 2 || file[0] != 'P') decode_failure(name, "PNM", "no P5/P6 signature");
  const char variant = static_cast<char>(file[1]);
  if (variant != '5' && variant != '6')
    decode_failure(name, "PNM",
                   std::string("P") + (variant >= '1' && variant <= '7' ? std::string(1, variant) : "?") +
                       " files are not supported (binary P5 and P6 only)");
  const int channels = variant == '5' ? 1 : 3;
  std::size_t pos = 2;
  if (pos >= file.size() || !is_space(file[pos])) decode_failure(name, "PNM", "bad header after the signature");
  const std::int64_t width = header_number(file, pos, name, "width");
  const std::int64_t height = header_number(file, pos, name, "height");
  const std::int64_t maxval = header_number(file, pos, name, "maxval");
  if (pos >= file.size() || !is_space(file[pos])) decode_failure(name, "PNM", "truncated or bad header after maxval");
  ++pos;  // exactly one whitespace byte before the raster
  if (maxval < 1 || maxval > 65535)
    decode_failure(name, "PNM", "maxval " + std::to_string(maxval) + " is outside 1..65535");
  check_image_size(name, "PNM", width, height, opt.max_pixels);
  const std::int64_t bytes_per = maxval > 255 ? 2 : 1;
  const std::int64_t samples = width * height * channels;  // <= max_pixels * 3
  const auto have = static_cast<std::int64_t>(file.size() - pos);
  if (have / bytes_per < samples)
    decode_failure(name, "PNM",
                   "truncated file: " + std::to_string(width) + "x" + std::to_string(height) + " needs " +
                       std::to_string(samples * bytes_per) + " bytes of samples, the file has " + std::to_string(have));
  const unsigned char* src = file.data() + pos;
  if (bytes_per == 1) {
    for (std::int64_t i = 0; i < samples; ++i)
      if (src[i] > maxval) decode_failure(name, "PNM", "a sample is above maxval " + std::to_string(maxval));
    return planar_dataset(src, width, height, channels, opt.prec, opt.pool);
  }
  auto px = std::make_unique_for_overwrite<std::uint16_t[]>(static_cast<std::size_t>(samples));
  for (std::int64_t i = 0; i < samples; ++i) {
    const auto v = static_cast<std::uint16_t>((src[2 * i] << 8) | src[2 * i + 1]);
    if (v > maxval) decode_failure(name, "PNM", "a sample is above maxval " + std::to_string(maxval));
    px[static_cast<std::size_t>(i)] = v;
  }
  return planar_dataset(px.get(), width, height, channels, opt.prec, opt.pool);
}

}  // namespace dct::app
