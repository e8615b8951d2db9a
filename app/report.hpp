#pragma once
// Report writers: one table model rendered as aligned text, Markdown, CSV or JSON; and JSON helpers.
#include <optional>
#include <string>
#include <vector>

#include "core/timing.hpp"
#include "core/types.hpp"

namespace dct::app {

// JSON values. Every field keeps one type: a number that is not finite (PSNR of identical inputs) is null.
std::string json_escape(const std::string& s);       // with the surrounding quotes
std::string json_number(double v);                   // shortest round-trip form; null when not finite
std::string json_shape(const core::Shape2& s);       // [rows, cols]
std::string json_dims(const core::R2rSpec& s);       // [d0, .., d(rank-1)]
std::string json_timing(const core::StageTable& t);  // {"stage": ms, ...} in order

enum class Format { kTable, kMarkdown, kCsv, kJson };
Format parse_format(const std::string& s);  // throws kUsage

// A cell: text, a number, or empty (null in JSON). `json`, when set, is the cell's JSON value verbatim (a
// shape's array beside its "HxW" text).
struct Cell {
  enum class Kind { kText, kNumber, kNull } kind = Kind::kNull;
  std::string text;
  double number = 0;
  int digits = 4;  // significant digits in text renderings
  std::string json;
  static Cell str(std::string s) { return {Kind::kText, std::move(s), 0, 0, {}}; }
  static Cell num(double v, int digits = 4) { return {Kind::kNumber, {}, v, digits, {}}; }
  static Cell opt(const std::optional<double>& v, int digits = 4) { return v ? num(*v, digits) : Cell{}; }
  static Cell shape(const core::Shape2& s) { return {Kind::kText, core::to_string(s), 0, 0, json_shape(s)}; }
};

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

// JSON: the rows as an array of objects (keys: the columns).
std::string render(const Table& t, Format f);
std::string format_number(double v, int digits);          // %.*g
std::string format_number_fixed(double v, int decimals);  // %.*f

}  // namespace dct::app
