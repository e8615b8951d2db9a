#pragma once
// Descriptors shared by every layer: operations, norms, axes, precisions, shapes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dct::core {

// kR2r: the real-to-real family (DCT/DST types I-IV) of an array of rank <= 3, one kind per axis (R2rSpec).
enum class Op { kDct2, kIdct2, kDct4, kIdct4, kLot, kIlot, kR2r };
// kNone is scipy's "backward" (forward unscaled, inverse scaled by 1/M); kForward the reverse. kForward is
// defined for kR2r only.
enum class Norm { kNone, kOrtho, kForward };
enum class Axis { kBoth, kRows, kCols };
enum class Precision { kF32, kF64 };
enum class Memory { kHost, kDevice };
// Planning rigour for libraries that measure (FFTW): one-shot CLI runs estimate, bench measures.
enum class Effort { kEstimate, kMeasure };

std::string_view to_string(Op op);
std::string_view to_string(Norm n);
std::string_view to_string(Axis a);
std::string_view to_string(Precision p);
// Parsers throw dct::Error(kUsage) naming the bad value.
Op parse_op(std::string_view s);
Norm parse_norm(std::string_view s);
Axis parse_axis(std::string_view s);
Precision parse_precision(std::string_view s);

inline std::size_t element_size(Precision p) { return p == Precision::kF32 ? 4 : 8; }

// One matrix: rows x cols, row-major (the last axis, "rows" transforms, is contiguous).
struct Shape2 {
  std::int64_t rows = 1;
  std::int64_t cols = 1;
  std::int64_t count() const { return rows * cols; }
  bool operator==(const Shape2&) const = default;
};
std::string to_string(Shape2 s);         // "HxW"
Shape2 parse_shape(std::string_view s);  // "HxW" or "N" (= 1xN); throws kUsage

// The eight real-to-real kinds: scipy.fft dct/dst type 1..4 = FFTW REDFT00/10/01/11 and RODFT00/10/01/11
// (docs/algorithms.md, "The real-to-real family"). kNone: the axis is not transformed.
enum class R2rKind : std::uint8_t { kNone, kDct1, kDct2, kDct3, kDct4, kDst1, kDst2, kDst3, kDst4 };
inline constexpr int kMaxR2rRank = 3;

std::string_view to_string(R2rKind k);       // "dct1" ... "dst4", "-" for kNone
R2rKind parse_r2r_kind(std::string_view s);  // "dct1" ... "dst4"; throws kUsage
R2rKind r2r_kind(bool dst, int type);        // (false, 2) -> kDct2; type 1..4
R2rKind inverse_kind(R2rKind k);             // dct2 <-> dct3, dst2 <-> dst3; types 1 and 4 are their own
bool is_dct1(R2rKind k);

// An array of rank 1..3 (dims[rank-1] contiguous, C order) and what to do along each of its axes. Inverse: scipy's
// idctn/idstn of each axis' kind (the transform of the inverse kind, with the inverse's scaling).
struct R2rSpec {
  int rank = 0;
  std::array<std::int64_t, kMaxR2rRank> dims{};
  std::array<R2rKind, kMaxR2rRank> kinds{};
  bool inverse = false;
  bool operator==(const R2rSpec&) const = default;
  std::string dims_text() const;   // "32x32x32"
  std::string kinds_text() const;  // one per axis, "-" where not transformed: "dct3+dst3", "-+dct2+dct2"
};

// One array shape of rank 1..3 ("N", "HxW", "DxHxW"): bench sizes of the real-to-real ops.
struct ShapeN {
  int rank = 0;
  std::array<std::int64_t, kMaxR2rRank> dims{};
  std::int64_t count() const;
  std::string to_string() const;  // "32x32x32"
};
ShapeN parse_shape_n(std::string_view s);  // throws kUsage

// What to compute. `batch` independent matrices of `shape` lie one after another in memory
// (the channels of an image, or a bench batch).
struct TransformDesc {
  Op op = Op::kDct2;
  Norm norm = Norm::kNone;
  Axis axis = Axis::kBoth;
  int block = 0;  // 0: whole matrix; B > 0: independent BxB tiles (--axis must be both)
  Shape2 shape;
  std::int64_t batch = 1;
  Precision prec = Precision::kF32;
  Effort effort = Effort::kEstimate;
  // op == kR2r only: the array and the kind per axis. shape is then {product of all but the last extent, last
  // extent} and batch the count of independent arrays (the channels of an image): see r2r_desc().
  R2rSpec r2r;
  bool operator==(const TransformDesc&) const = default;

  std::int64_t elements() const { return shape.count() * batch; }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * element_size(prec); }
  // Output shape: equal to the input except for the LOT ((H+8)x(W+8)) and its inverse.
  Shape2 out_shape() const;
  std::string to_string() const;  // "dct2 ortho both 512x512 x3 f32"
};

struct TransformDescHash {
  std::size_t operator()(const TransformDesc& d) const noexcept;
};

// A kR2r descriptor with its memory extent (shape, batch) filled in from `spec`.
TransformDesc r2r_desc(const R2rSpec& spec, Norm norm, std::int64_t batch, Precision prec);

// The inverse operation of `op` (dct2 <-> idct2, dct4 <-> idct4, lot <-> ilot).
Op inverse_of(Op op);

}  // namespace dct::core
