#pragma once
// The measuring instrument behind `dctool bench`: per (op, backend, precision, shape) it
// times warm plans with the runtime's timer (CUDA events on a device), rotates inputs that fit in cache,
// and measures in the same run the copy floor (x_copy) and the FFT baseline (x_fft).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/registry.hpp"

namespace dct::core {

// A real-to-real op of the sweep: "dst2" (that kind along every axis of each size) or "r2r:dct3+dst3" (the kinds
// along the last axes of each size, in order).
struct R2rBenchOp {
  std::string name;
  std::vector<R2rKind> kinds;
  bool every_axis = false;
};
// "dct1", "dct3", "dst1".."dst4" or "r2r:KIND+KIND..." (dct2 and dct4 name the older 2-D ops); nullopt for
// other names; throws kUsage for a malformed r2r: list.
std::optional<R2rBenchOp> parse_r2r_bench_op(std::string_view s);
// The forms parse_r2r_bench_op accepts, for the messages of bench and plan.
constexpr std::string_view kR2rBenchOpForms =
    "a real-to-real kind dct1|dct3|dst1|dst2|dst3|dst4 on every axis, or r2r:KIND+KIND on the last axes";

struct BenchRequest {
  std::vector<Op> ops;
  std::vector<Shape2> sizes;
  std::vector<R2rBenchOp> r2r_ops;  // timed on `extents`
  std::vector<ShapeN> extents;      // every --sizes entry (rank 1..3)
  std::vector<const Backend*> backends;
  // --backends auto: the backend `auto` takes for a transform (an Error, with every backend's reason, where it takes
  // none: a note). When set, each transform is timed on that one of `backends` only.
  std::function<const Backend*(const TransformDesc&)> auto_pick;
  std::vector<Precision> precisions;
  Norm norm = Norm::kNone;
  Axis axis = Axis::kBoth;
  int block = 0;
  std::int64_t batch = 1;
  int reps = 20;
  int warmup = 3;
  bool verify = false;
  Effort effort = Effort::kMeasure;
  std::vector<const Backend*> oracles;  // f64 references for --verify: the first that supports the op
  bool baseline_rows = true;            // also emit the runtime's plain-DCT baseline rows
};

struct BenchRow {
  std::string op, backend, precision;
  Shape2 shape;
  std::string dims;  // real-to-real rows: the array's extents ("64x64x64"); empty otherwise
  std::int64_t batch = 1;
  int reps = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0, gbps = 0;
  std::optional<double> x_copy, x_fft, e2e_ms, cpu_ms, max_rel_err;
  std::string device;
  // --axis of the row (both, rows, cols); empty for real-to-real rows, whose op names the kind of every axis.
  std::string axis;
};

// The descriptor a real-to-real op of the sweep times on `size`; throws kUsage when it has more kinds than axes.
TransformDesc bench_r2r_desc(const R2rBenchOp& op, const ShapeN& size, const BenchRequest& req, Precision prec);

// Runs every combination; `on_note` hears about combinations a backend does not
// support (reported, never silently dropped); `on_row` hears each row as soon as it is measured.
std::vector<BenchRow> run_bench(const BenchRequest& req, const std::function<void(const std::string&)>& on_note,
                                const std::function<void(const BenchRow&)>& on_row = {});

// The column names (README "bench"), in order.
const std::vector<std::string>& bench_columns();

}  // namespace dct::core
