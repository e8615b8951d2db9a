#pragma once
// The stb_image / stb_image_write implementation of core::ImageCodec.
#include "core/formats.hpp"

namespace dct::app {

class StbCodec final : public core::ImageCodec {
 public:
  bool handles_read(const std::string& path) const override;
  bool handles_write(const std::string& path) const override;
  core::Dataset read(const std::string& path, core::Precision prec) const override;
  void write(const std::string& path, const core::HostTensor& t, int bit_depth, std::int64_t* clamped) const override;
};

}  // namespace dct::app
