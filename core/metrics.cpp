#include "core/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/error.hpp"

namespace dct::core {
namespace {

void require_same(const HostTensor& a, const HostTensor& b) {
  if (a.shape() != b.shape() || a.channels() != b.channels())
    throw Error(ErrorCode::kInput, "shape mismatch: " + to_string(a.shape()) + "x" + std::to_string(a.channels()) +
                                       " vs " + to_string(b.shape()) + "x" + std::to_string(b.channels()));
}

}  // namespace

double mse(const HostTensor& a, const HostTensor& b) {
  require_same(a, b);
  long double s = 0;
  const std::int64_t n = a.elements();
  for (std::int64_t i = 0; i < n; ++i) {
    long double d = static_cast<long double>(a.get(i)) - b.get(i);
    s += d * d;
  }
  return n ? static_cast<double>(s / n) : 0.0;
}

double max_abs_error(const HostTensor& a, const HostTensor& b) {
  require_same(a, b);
  double m = 0;
  for (std::int64_t i = 0; i < a.elements(); ++i) m = std::max(m, std::fabs(a.get(i) - b.get(i)));
  return m;
}

double psnr_db(double mse_value, double peak) {
  if (mse_value == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(peak * peak / mse_value);
}

double relative_l2(const HostTensor& a, const HostTensor& ref) {
  require_same(a, ref);
  long double num = 0, den = 0;
  for (std::int64_t i = 0; i < a.elements(); ++i) {
    long double r = ref.get(i);
    long double d = static_cast<long double>(a.get(i)) - r;
    num += d * d;
    den += r * r;
  }
  return den > 0 ? static_cast<double>(std::sqrt(num / den)) : static_cast<double>(std::sqrt(num));
}

double max_abs(const HostTensor& a) {
  double m = 0;
  for (std::int64_t i = 0; i < a.elements(); ++i) m = std::max(m, std::fabs(a.get(i)));
  return m;
}

double entropy_bits(std::span<const std::int32_t> symbols) {
  if (symbols.empty()) return 0;
  std::unordered_map<std::int32_t, std::int64_t> counts;
  for (auto s : symbols) ++counts[s];
  const double n = static_cast<double>(symbols.size());
  double h = 0;
  for (const auto& [sym, c] : counts) {
    const double p = c / n;
    h -= p * std::log2(p);
  }
  return h;
}

}  // namespace dct::core
