#include "core/types.hpp"

#include <array>
#include <charconv>
#include <functional>
#include <utility>

#include "core/error.hpp"

namespace dct::core {
namespace {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Op, 6> kOpNames{{{Op::kDct2, "dct2"},
                                     {Op::kIdct2, "idct2"},
                                     {Op::kDct4, "dct4"},
                                     {Op::kIdct4, "idct4"},
                                     {Op::kLot, "lot"},
                                     {Op::kIlot, "ilot"}}};
constexpr NameTable<Norm, 2> kNormNames{{{Norm::kNone, "none"}, {Norm::kOrtho, "ortho"}}};
constexpr NameTable<Axis, 3> kAxisNames{{{Axis::kBoth, "both"}, {Axis::kRows, "rows"}, {Axis::kCols, "cols"}}};
constexpr NameTable<Precision, 2> kPrecNames{{{Precision::kF32, "f32"}, {Precision::kF64, "f64"}}};

template <class E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& t, E v) {
  for (const auto& [e, n] : t)
    if (e == v) return n;
  return "?";
}

template <class E, std::size_t N>
E parse_of(const NameTable<E, N>& t, std::string_view s, std::string_view what) {
  for (const auto& [e, n] : t)
    if (n == s) return e;
  std::string allowed;
  for (const auto& [e, n] : t) {
    if (!allowed.empty()) allowed += '|';
    allowed += n;
  }
  throw Error(ErrorCode::kUsage, std::string(what),
              "invalid value '" + std::string(s) + "' (expected " + allowed + ")");
}

}  // namespace

std::string_view to_string(Op v) { return name_of(kOpNames, v); }
std::string_view to_string(Norm v) { return name_of(kNormNames, v); }
std::string_view to_string(Axis v) { return name_of(kAxisNames, v); }
std::string_view to_string(Precision v) { return name_of(kPrecNames, v); }
Op parse_op(std::string_view s) { return parse_of(kOpNames, s, "--ops"); }
Norm parse_norm(std::string_view s) { return parse_of(kNormNames, s, "--norm"); }
Axis parse_axis(std::string_view s) { return parse_of(kAxisNames, s, "--axis"); }
Precision parse_precision(std::string_view s) { return parse_of(kPrecNames, s, "--precision"); }

std::string to_string(Shape2 s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

Shape2 parse_shape(std::string_view s) {
  auto parse_int = [&](std::string_view t) -> std::int64_t {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || v < 1)
      throw Error(ErrorCode::kUsage, "--shape", "invalid shape '" + std::string(s) + "' (expected HxW with H, W >= 1)");
    return v;
  };
  auto x = s.find_first_of("xX");
  if (x == std::string_view::npos) return Shape2{1, parse_int(s)};
  return Shape2{parse_int(s.substr(0, x)), parse_int(s.substr(x + 1))};
}

Shape2 TransformDesc::out_shape() const {
  if (op == Op::kLot) return Shape2{shape.rows + 8, shape.cols + 8};
  if (op == Op::kIlot) return Shape2{shape.rows - 8, shape.cols - 8};
  return shape;
}

std::string TransformDesc::to_string() const {
  std::string s = std::string(core::to_string(op)) + " " + std::string(core::to_string(norm)) + " " +
                  std::string(core::to_string(axis));
  if (block > 0) s += " block" + std::to_string(block);
  s += " " + core::to_string(shape);
  if (batch != 1) s += " x" + std::to_string(batch);
  s += " " + std::string(core::to_string(prec));
  return s;
}

std::size_t TransformDescHash::operator()(const TransformDesc& d) const noexcept {
  std::size_t h = 1469598103934665603ull;
  auto mix = [&h](std::size_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<std::size_t>(d.op));
  mix(static_cast<std::size_t>(d.norm));
  mix(static_cast<std::size_t>(d.axis));
  mix(static_cast<std::size_t>(d.block));
  mix(std::hash<std::int64_t>{}(d.shape.rows));
  mix(std::hash<std::int64_t>{}(d.shape.cols));
  mix(std::hash<std::int64_t>{}(d.batch));
  mix(static_cast<std::size_t>(d.prec));
  mix(static_cast<std::size_t>(d.effort));
  return h;
}

Op inverse_of(Op op) {
  switch (op) {
    case Op::kDct2:
      return Op::kIdct2;
    case Op::kIdct2:
      return Op::kDct2;
    case Op::kDct4:
      return Op::kIdct4;
    case Op::kIdct4:
      return Op::kDct4;
    case Op::kLot:
      return Op::kIlot;
    case Op::kIlot:
      return Op::kLot;
  }
  return op;
}

}  // namespace dct::core
