#include "app/options.hpp"

#include <cstdlib>
#include <string>

namespace dct::app {
namespace {

CLI::Validator number_at_least(double lo, const char* what) {
  return CLI::Validator(
      [lo, what](std::string& v) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0' || !(x >= lo)) return "'" + v + "' is not " + what;
        return {};
      },
      "", what);
}

}  // namespace

const CLI::Validator& positive() {
  static const CLI::Validator v = number_at_least(1e-300, "a positive number");
  return v;
}

const CLI::Validator& non_negative() {
  static const CLI::Validator v = number_at_least(0, "a non-negative number");
  return v;
}

void add_input_options(CLI::App* c, InputOptions& in) {
  c->add_option("--shape", in.shape, "raw input shape HxW");
  c->add_option("--dtype", in.dtype,
                "raw input dtype (f32|f64|u8|u16|i16|i32|…, as .npy reads); default from the extension");
}

}  // namespace dct::app
