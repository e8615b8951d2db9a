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

namespace {
// Sum of squared differences in double over chunks of 4096, the chunks summed in long double: exact for 8/16-bit
// images (every partial sum is an integer below 2^53) and within rounding of a long double sum for matrices.
template <class A, class B>
long double squared_error(const A* a, const B* b, std::int64_t n) {
  long double total = 0;
  for (std::int64_t i0 = 0; i0 < n; i0 += 4096) {
    const std::int64_t i1 = std::min(n, i0 + 4096);
    double s[4] = {0, 0, 0, 0};  // four independent sums: the loop is not one long dependency chain
    std::int64_t i = i0;
    for (; i + 4 <= i1; i += 4)
      for (int l = 0; l < 4; ++l) {
        const double d = static_cast<double>(a[i + l]) - static_cast<double>(b[i + l]);
        s[l] += d * d;
      }
    for (; i < i1; ++i) {
      const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
      s[0] += d * d;
    }
    total += (s[0] + s[1]) + (s[2] + s[3]);
  }
  return total;
}
}  // namespace

double mse(const HostTensor& a, const HostTensor& b) {
  require_same(a, b);
  const std::int64_t n = a.elements();
  if (n == 0) return 0.0;
  const bool fa = a.precision() == Precision::kF32, fb = b.precision() == Precision::kF32;
  const long double s = fa && fb ? squared_error(a.data<float>(), b.data<float>(), n)
                        : fa     ? squared_error(a.data<float>(), b.data<double>(), n)
                        : fb     ? squared_error(a.data<double>(), b.data<float>(), n)
                                 : squared_error(a.data<double>(), b.data<double>(), n);
  return static_cast<double>(s / n);
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
