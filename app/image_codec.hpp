#pragma once
// core::ImageCodec for dctool's image files. Reading decodes by content (app/image_decode.hpp: libpng,
// libjpeg-turbo, strict readers of our own for BMP, TGA, PNM); the extension only says that a file is an image.
// Writing: .png through libpng (8 or 16 bits), .bmp/.tga/.jpg through stb_image_write (8 bits).
#include "core/formats.hpp"

namespace dct::app {

class ImageFileCodec final : public core::ImageCodec {
 public:
  bool handles_read(const std::string& path) const override;
  bool handles_write(const std::string& path) const override;
  core::Dataset read(const std::string& path, core::Precision prec) const override;
  core::Dataset read(const std::string& path, const core::ReadOptions& opt) const override;
  void write(const std::string& path, const core::HostTensor& t, int bit_depth, std::int64_t* clamped) const override;
};

}  // namespace dct::app
