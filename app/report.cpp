#include "app/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace dct::app {

Format parse_format(const std::string& s) {
  if (s == "table") return Format::kTable;
  if (s == "md") return Format::kMarkdown;
  if (s == "csv") return Format::kCsv;
  if (s == "json") return Format::kJson;
  throw Error(ErrorCode::kUsage, "--format", "invalid value '" + s + "' (expected table|md|csv|json)");
}

std::string format_number(double v, int digits) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Shortest representation that round-trips.
  for (int p = 6; p <= 17; ++p) {
    char t[64];
    std::snprintf(t, sizeof t, "%.*g", p, v);
    if (std::strtod(t, nullptr) == v) return t;
  }
  return buf;
}

std::string json_shape(const core::Shape2& s) {
  return "[" + std::to_string(s.rows) + ", " + std::to_string(s.cols) + "]";
}

std::string json_dims(const core::R2rSpec& s) {
  std::string out = "[";
  for (int a = 0; a < s.rank; ++a) out += (a ? ", " : "") + std::to_string(s.dims[static_cast<std::size_t>(a)]);
  return out + "]";
}

std::string json_timing(const core::StageTable& t) {
  std::string j = "{";
  for (const auto& r : t.rows()) j += (j.size() > 1 ? ", " : "") + json_escape(r.stage) + ": " + json_number(r.ms);
  return j + "}";
}

std::string json_escape(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      case '\r':
        o += "\\r";
        break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

namespace {

std::string cell_text(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kText:
      return c.text;
    case Cell::Kind::kNumber:
      return format_number(c.number, c.digits);
    case Cell::Kind::kNull:
      return "";
  }
  return "";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return o + "\"";
}

std::string cell_json(const Cell& c) {
  if (!c.json.empty()) return c.json;
  switch (c.kind) {
    case Cell::Kind::kText:
      return json_escape(c.text);
    case Cell::Kind::kNumber:
      return json_number(c.number);
    case Cell::Kind::kNull:
      return "null";
  }
  return "null";
}

std::string render_csv(const Table& t) {
  const std::size_t nc = t.columns.size();
  std::string o;
  for (std::size_t i = 0; i < nc; ++i) o += (i ? "," : "") + csv_field(t.columns[i]);
  o += "\n";
  for (const auto& r : t.rows) {
    for (std::size_t i = 0; i < nc; ++i) o += (i ? "," : "") + csv_field(cell_text(r[i]));
    o += "\n";
  }
  return o;
}

std::string render_json(const Table& t) {
  std::string o = "[";
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    o += k ? ",\n  {" : "\n  {";
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      o += (i ? ", " : "") + json_escape(t.columns[i]) + ": " + cell_json(t.rows[k][i]);
    o += "}";
  }
  return o + (t.rows.empty() ? "]\n" : "\n]\n");
}

std::string render_markdown(const Table& t) {
  std::string o = "|";
  for (const auto& c : t.columns) o += " " + c + " |";
  o += "\n|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) o += " --- |";
  o += "\n";
  for (const auto& r : t.rows) {
    o += "|";
    for (const auto& c : r) o += " " + cell_text(c) + " |";
    o += "\n";
  }
  return o;
}

// Columns padded to their widest cell, two spaces apart, no trailing blanks.
std::string render_text(const Table& t) {
  const std::size_t nc = t.columns.size();
  std::vector<std::size_t> w(nc);
  for (std::size_t i = 0; i < nc; ++i) w[i] = t.columns[i].size();
  for (const auto& r : t.rows)
    for (std::size_t i = 0; i < nc; ++i) w[i] = std::max(w[i], cell_text(r[i]).size());
  auto line = [&](auto get) {
    std::string l;
    for (std::size_t i = 0; i < nc; ++i) {
      std::string s = get(i);
      l += s + std::string(w[i] - s.size() + (i + 1 < nc ? 2 : 0), ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  std::string o = line([&](std::size_t i) { return t.columns[i]; });
  for (const auto& r : t.rows) o += line([&](std::size_t i) { return cell_text(r[i]); });
  return o;
}

}  // namespace

std::string render(const Table& t, Format f) {
  switch (f) {
    case Format::kCsv:
      return render_csv(t);
    case Format::kJson:
      return render_json(t);
    case Format::kMarkdown:
      return render_markdown(t);
    case Format::kTable:
      return render_text(t);
  }
  return {};
}

std::string format_number_fixed(double v, int decimals) {
  if (!std::isfinite(v)) return format_number(v, 6);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace dct::app
