#pragma once
// A picture of transform coefficients: log(1 + |c|) per channel, scaled so the largest maps to 255.
#include "core/tensor.hpp"

namespace dct::core {

HostTensor log_magnitude_image(const HostTensor& coefficients);

}  // namespace dct::core
