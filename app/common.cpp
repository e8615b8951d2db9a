#include "app/common.hpp"

#include <cstdio>

#include "app/registry.hpp"
#include "core/error.hpp"

namespace dct::app {

core::Precision precision_of(const GlobalOptions& g) {
  return g.precision.empty() ? core::Precision::kF32 : core::parse_precision(g.precision);
}

core::ReadOptions read_options(const GlobalOptions& g, const InputOptions& in, core::Precision prec) {
  core::ReadOptions r;
  r.prec = prec;
  r.max_pixels = g.max_pixels > 0 ? g.max_pixels : core::kDefaultMaxPixels;
  if (!in.shape.empty()) r.shape = core::parse_shape(in.shape);
  r.dtype = in.dtype;
  return r;
}

core::Dataset read_input(const std::string& path, const core::ReadOptions& opt) {
  try {
    return core::read_any(path, opt, &image_codec());
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

void note(const GlobalOptions& g, const std::string& msg) {
  if (!g.quiet) std::fprintf(stderr, "dctool: %s\n", printable(msg).c_str());
}

void print_timing(const GlobalOptions& g, const core::StageTable& t) {
  if (g.timing) std::fputs(t.format().c_str(), stderr);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return out;
}

}  // namespace dct::app
