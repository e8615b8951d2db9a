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

constexpr NameTable<Op, 7> kOpNames{{{Op::kDct2, "dct2"},
                                     {Op::kIdct2, "idct2"},
                                     {Op::kDct4, "dct4"},
                                     {Op::kIdct4, "idct4"},
                                     {Op::kLot, "lot"},
                                     {Op::kIlot, "ilot"},
                                     {Op::kR2r, "r2r"}}};
constexpr NameTable<Norm, 3> kNormNames{{{Norm::kNone, "none"}, {Norm::kOrtho, "ortho"}, {Norm::kForward, "forward"}}};
constexpr NameTable<R2rKind, 9> kKindNames{{{R2rKind::kNone, "-"},
                                            {R2rKind::kDct1, "dct1"},
                                            {R2rKind::kDct2, "dct2"},
                                            {R2rKind::kDct3, "dct3"},
                                            {R2rKind::kDct4, "dct4"},
                                            {R2rKind::kDst1, "dst1"},
                                            {R2rKind::kDst2, "dst2"},
                                            {R2rKind::kDst3, "dst3"},
                                            {R2rKind::kDst4, "dst4"}}};
constexpr NameTable<Axis, 3> kAxisNames{{{Axis::kBoth, "both"}, {Axis::kRows, "rows"}, {Axis::kCols, "cols"}}};
constexpr NameTable<Precision, 2> kPrecNames{{{Precision::kF32, "f32"}, {Precision::kF64, "f64"}}};

template <class E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& t, E v) {
  for (const auto& [e, n] : t)
    if (e == v) return n;
  return "?";
}

// The entry of t named s; else a usage error of option `what` listing the names of t (or `expected`).
template <class E, std::size_t N>
E parse_of(const NameTable<E, N>& t, std::string_view s, std::string_view what, std::string_view expected = {}) {
  for (const auto& [e, n] : t)
    if (n == s) return e;
  std::string allowed(expected);
  for (const auto& [e, n] : t) {
    if (!expected.empty()) break;
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
Norm parse_norm(std::string_view s) {
  if (s == "backward") return Norm::kNone;  // scipy's name of the default
  return parse_of(kNormNames, s, "--norm", "none|backward|ortho|forward");
}
Axis parse_axis(std::string_view s) { return parse_of(kAxisNames, s, "--axis"); }
Precision parse_precision(std::string_view s) { return parse_of(kPrecNames, s, "--precision"); }

std::string_view to_string(R2rKind k) { return name_of(kKindNames, k); }

R2rKind parse_r2r_kind(std::string_view s) {
  // "-" names kNone in the table (for printing) but is not a kind the user may give.
  constexpr std::string_view kKinds = "dct1|dct2|dct3|dct4|dst1|dst2|dst3|dst4";
  if (s == "-") throw Error(ErrorCode::kUsage, "--kinds", "invalid value '-' (expected " + std::string(kKinds) + ")");
  return parse_of(kKindNames, s, "--kinds", kKinds);
}

R2rKind r2r_kind(bool dst, int type) {
  if (type < 1 || type > 4)
    throw Error(ErrorCode::kUsage, "--type", "invalid value '" + std::to_string(type) + "' (expected 1|2|3|4)");
  return static_cast<R2rKind>((dst ? 4 : 0) + type);
}

R2rKind inverse_kind(R2rKind k) {
  switch (k) {
    case R2rKind::kDct2:
      return R2rKind::kDct3;
    case R2rKind::kDct3:
      return R2rKind::kDct2;
    case R2rKind::kDst2:
      return R2rKind::kDst3;
    case R2rKind::kDst3:
      return R2rKind::kDst2;
    default:
      return k;
  }
}

bool is_dct1(R2rKind k) { return k == R2rKind::kDct1; }

std::string R2rSpec::dims_text() const {
  std::string s;
  for (int a = 0; a < rank; ++a) s += (a ? "x" : "") + std::to_string(dims[a]);
  return s;
}

std::string R2rSpec::kinds_text() const {
  std::string s;
  for (int a = 0; a < rank; ++a) s += (a ? "+" : "") + std::string(core::to_string(kinds[a]));
  return s;
}

std::int64_t ShapeN::count() const {
  std::int64_t n = 1;
  for (int a = 0; a < rank; ++a) n *= dims[a];
  return n;
}

std::string ShapeN::to_string() const {
  std::string s;
  for (int a = 0; a < rank; ++a) s += (a ? "x" : "") + std::to_string(dims[a]);
  return s;
}

ShapeN parse_shape_n(std::string_view s) {
  ShapeN out;
  std::string_view rest = s;
  while (true) {
    const auto x = rest.find_first_of("xX");
    const std::string_view part = rest.substr(0, x);
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size() || v < 1 || out.rank == kMaxR2rRank)
      throw Error(ErrorCode::kUsage, "--sizes",
                  "invalid shape '" + std::string(s) + "' (expected N, HxW or DxHxW with every extent >= 1)");
    out.dims[out.rank++] = v;
    if (x == std::string_view::npos) break;
    rest = rest.substr(x + 1);
  }
  return out;
}

TransformDesc r2r_desc(const R2rSpec& spec, Norm norm, std::int64_t batch, Precision prec) {
  TransformDesc d;
  d.op = Op::kR2r;
  d.norm = norm;
  d.r2r = spec;
  d.prec = prec;
  d.batch = batch;
  std::int64_t lines = 1;
  for (int a = 0; a + 1 < spec.rank; ++a) lines *= spec.dims[a];
  d.shape = Shape2{lines, spec.rank > 0 ? spec.dims[spec.rank - 1] : 0};
  return d;
}

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
  if (op == Op::kR2r) {
    std::string s = std::string(r2r.inverse ? "ir2r " : "r2r ") + r2r.kinds_text() + " " +
                    std::string(core::to_string(norm)) + " " + r2r.dims_text();
    if (batch != 1) s += " x" + std::to_string(batch);
    return s + " " + std::string(core::to_string(prec));
  }
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
  if (d.op == Op::kR2r) {
    mix(static_cast<std::size_t>(d.r2r.rank));
    mix(static_cast<std::size_t>(d.r2r.inverse));
    for (int a = 0; a < kMaxR2rRank; ++a) {
      mix(std::hash<std::int64_t>{}(d.r2r.dims[a]));
      mix(static_cast<std::size_t>(d.r2r.kinds[a]));
    }
  }
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
    case Op::kR2r:
      return Op::kR2r;  // the inverse of a kR2r request is R2rSpec::inverse
  }
  return op;
}

}  // namespace dct::core
