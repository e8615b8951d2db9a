#include "core/r2r.hpp"

#include <cmath>
#include <string>

namespace dct::core::r2r {

using core::R2rKind;

core::Support check_r2r_desc(const core::TransformDesc& d) {
  using core::Support;
  const core::R2rSpec& s = d.r2r;
  if (s.rank < 1 || s.rank > core::kMaxR2rRank) return Support::no("arrays of 1 to 3 dimensions only");
  if (d.batch < 1) return Support::no("batch must be >= 1");
  if (d.norm != core::Norm::kNone && d.norm != core::Norm::kOrtho && d.norm != core::Norm::kForward)
    return Support::no("unknown norm");
  int transformed = 0;
  for (int a = 0; a < s.rank; ++a) {
    if (s.dims[a] < 1) return Support::no("empty array " + s.dims_text());
    if (s.kinds[a] == R2rKind::kNone) continue;
    ++transformed;
    if (s.kinds[a] == R2rKind::kDct1 && s.dims[a] < 2)
      return Support::no("DCT-I needs at least 2 points along axis " + std::to_string(a) + " (it has " +
                         std::to_string(s.dims[a]) + ")");
  }
  for (int a = s.rank; a < core::kMaxR2rRank; ++a)
    if (s.kinds[a] != R2rKind::kNone) return Support::no("a kind for an axis the array does not have");
  if (transformed == 0) return Support::no("no axis to transform");
  return Support::yes();
}

R2rKind computed_kind(R2rKind kind, bool inverse) { return inverse ? core::inverse_kind(kind) : kind; }

std::int64_t logical_size(R2rKind computed, std::int64_t n) {
  if (computed == R2rKind::kDct1) return 2 * (n - 1);
  if (computed == R2rKind::kDst1) return 2 * (n + 1);
  return 2 * n;
}

AxisScale axis_scale(R2rKind kind, bool inverse, core::Norm norm, std::int64_t n) {
  const R2rKind c = computed_kind(kind, inverse);
  const double nn = static_cast<double>(n);
  const auto un = static_cast<std::size_t>(n);
  AxisScale s;
  if (norm != core::Norm::kOrtho) {
    // backward: the inverse carries 1/M; forward: the forward does.
    if (inverse != (norm == core::Norm::kForward)) s.post.assign(un, 1.0 / static_cast<double>(logical_size(c, n)));
    return s;
  }
  switch (c) {
    case R2rKind::kDct1:  // x_0, x_{n-1} times √2; y_0, y_{n-1} divided by √2; all by 1/√(2(n-1))
      s.pre.assign(un, 1.0);
      s.pre[0] = s.pre[un - 1] = std::sqrt(2.0);
      s.post.assign(un, 1.0 / std::sqrt(2.0 * (nn - 1)));
      s.post[0] = s.post[un - 1] = 1.0 / std::sqrt(4.0 * (nn - 1));
      break;
    case R2rKind::kDst1:
      s.post.assign(un, 1.0 / std::sqrt(2.0 * (nn + 1)));
      break;
    case R2rKind::kDct2:  // y_0 / √(4n), y_k / √(2n)
      s.post.assign(un, 1.0 / std::sqrt(2.0 * nn));
      s.post[0] = 1.0 / std::sqrt(4.0 * nn);
      break;
    case R2rKind::kDst2:  // y_{n-1} / √(4n), y_k / √(2n)
      s.post.assign(un, 1.0 / std::sqrt(2.0 * nn));
      s.post[un - 1] = 1.0 / std::sqrt(4.0 * nn);
      break;
    case R2rKind::kDct3:  // the transpose of ortho DCT-II: x_0 / √n, x_k / √(2n)
      s.pre.assign(un, 1.0 / std::sqrt(2.0 * nn));
      s.pre[0] = 1.0 / std::sqrt(nn);
      break;
    case R2rKind::kDst3:  // the transpose of ortho DST-II: x_{n-1} / √n, x_k / √(2n)
      s.pre.assign(un, 1.0 / std::sqrt(2.0 * nn));
      s.pre[un - 1] = 1.0 / std::sqrt(nn);
      break;
    case R2rKind::kDct4:
    case R2rKind::kDst4:
      s.post.assign(un, 1.0 / std::sqrt(2.0 * nn));
      break;
    case R2rKind::kNone:
      break;
  }
  return s;
}

}  // namespace dct::core::r2r
