#pragma once
// Report writers: one table model rendered as aligned text, Markdown, CSV or JSON; and JSON helpers.
#include <optional>
#include <string>
#include <vector>

namespace dct::app {

enum class Format { kTable, kMarkdown, kCsv, kJson };
Format parse_format(const std::string& s);  // throws kUsage

// A cell: text, a number, or empty (null in JSON).
struct Cell {
  enum class Kind { kText, kNumber, kNull } kind = Kind::kNull;
  std::string text;
  double number = 0;
  int digits = 4;  // significant digits in text renderings
  static Cell str(std::string s) { return {Kind::kText, std::move(s), 0, 0}; }
  static Cell num(double v, int digits = 4) { return {Kind::kNumber, {}, v, digits}; }
  static Cell opt(const std::optional<double>& v, int digits = 4) { return v ? num(*v, digits) : Cell{}; }
};

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

std::string render(const Table& t, Format f);
std::string json_escape(const std::string& s);  // with the surrounding quotes
std::string json_number(double v);              // finite numbers; "inf"/"nan" as strings
std::string format_number(double v, int digits);       // %.*g
std::string format_number_fixed(double v, int decimals);  // %.*f

}  // namespace dct::app
