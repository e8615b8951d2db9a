#pragma once
// Descriptors shared by every layer: operations, norms, axes, precisions, shapes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dct::core {

enum class Op { kDct2, kIdct2, kDct4, kIdct4, kLot, kIlot };
enum class Norm { kNone, kOrtho };
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

// The inverse operation of `op` (dct2 <-> idct2, dct4 <-> idct4, lot <-> ilot).
Op inverse_of(Op op);

}  // namespace dct::core
