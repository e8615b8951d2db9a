// TEMPORARY placeholder; replaced by the stb implementation.
#include "app/image_stb.hpp"

#include <stdexcept>

namespace dct::app {
bool StbCodec::handles_read(const std::string&) const { return false; }
bool StbCodec::handles_write(const std::string&) const { return false; }
core::Dataset StbCodec::read(const std::string&, core::Precision) const { throw std::logic_error("placeholder"); }
void StbCodec::write(const std::string&, const core::HostTensor&, int, std::int64_t*) const {
  throw std::logic_error("placeholder");
}
}  // namespace dct::app
