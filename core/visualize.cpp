#include "core/visualize.hpp"

#include <algorithm>
#include <cmath>

namespace dct::core {

HostTensor log_magnitude_image(const HostTensor& c) {
  HostTensor out(c.shape(), c.channels(), Precision::kF32);
  const std::int64_t plane = c.shape().count();
  for (std::int64_t ch = 0; ch < c.channels(); ++ch) {
    double peak = 0;
    for (std::int64_t i = ch * plane; i < (ch + 1) * plane; ++i) peak = std::max(peak, std::log1p(std::fabs(c.get(i))));
    const double scale = peak > 0 ? 255.0 / peak : 0.0;
    for (std::int64_t i = ch * plane; i < (ch + 1) * plane; ++i) out.set(i, std::log1p(std::fabs(c.get(i))) * scale);
  }
  return out;
}

}  // namespace dct::core
