// psnr REF TEST: PSNR, MSE and max abs error; the peak follows the reference's kind.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/options.hpp"
#include "app/report.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "core/timing.hpp"

namespace dct::app {
namespace {

struct PsnrOptions {
  std::string reference, test;
  double peak = 0;     // 0 = from the input kind
  bool alpha = false;  // images: count the alpha channel too
  InputOptions in;
};

bool is_image(const core::Dataset& d) {
  return d.kind == core::SourceKind::kImage8 || d.kind == core::SourceKind::kImage16;
}

// The first n planes of t.
core::HostTensor planes(const core::HostTensor& t, std::int64_t n) {
  core::HostTensor out(t.shape(), n, t.precision());
  for (std::int64_t i = 0; i < out.elements(); ++i) out.set(i, t.get(i));
  return out;
}

// Whether the three planes of an RGB image are equal (a gray image stored as RGB, as .jpg and .bmp writers do).
bool gray_as_rgb(const core::HostTensor& t) {
  const std::int64_t n = t.shape().count();
  for (std::int64_t i = 0; i < n; ++i)
    if (t.get(i) != t.get(n + i) || t.get(i) != t.get(2 * n + i)) return false;
  return true;
}

// Images are compared on their colour planes: alpha (the 2nd of gray+alpha, the 4th of RGBA) only with --alpha, and
// a gray image against an RGB one whose three planes are equal on its first plane.
void harmonize(const PsnrOptions& o, core::Dataset& ref, core::Dataset& test) {
  if (!is_image(ref) || !is_image(test)) return;
  auto colour = [&](core::Dataset& d) {
    const std::int64_t c = d.tensor.channels();
    if (!o.alpha && (c == 2 || c == 4)) d.tensor = planes(d.tensor, c - 1);
  };
  colour(ref);
  colour(test);
  if (ref.tensor.shape() != test.tensor.shape()) return;
  if (ref.tensor.channels() == 1 && test.tensor.channels() == 3 && gray_as_rgb(test.tensor))
    test.tensor = planes(test.tensor, 1);
  else if (ref.tensor.channels() == 3 && test.tensor.channels() == 1 && gray_as_rgb(ref.tensor))
    ref.tensor = planes(ref.tensor, 1);
}

// 255 for 8-bit images, 65535 for 16-bit, max|REF| for matrices (1 when REF is all zeros), or --peak.
double peak_of(const PsnrOptions& o, const core::Dataset& ref) {
  if (o.peak > 0) return o.peak;
  if (ref.kind == core::SourceKind::kImage8) return 255;
  if (ref.kind == core::SourceKind::kImage16) return 65535;
  const double m = core::max_abs(ref.tensor);
  return m > 0 ? m : 1;
}

int run_psnr(const GlobalOptions& g, const PsnrOptions& o) {
  check_raw_options(o.in, {o.reference, o.test});
  const core::ReadOptions ro = read_options(g, o.in, core::Precision::kF64);
  core::StageTable times;  // --timing
  const core::Stopwatch total;
  core::Stopwatch sw;
  core::Dataset ref = read_input(o.reference, ro);
  times.add("read_ref", sw.lap_ms());
  core::Dataset test = read_input(o.test, ro);
  times.add("read_test", sw.lap_ms());
  harmonize(o, ref, test);
  auto describe = [](const core::HostTensor& t) {
    return core::to_string(t.shape()) + (t.channels() > 1 ? "x" + std::to_string(t.channels()) : "");
  };
  if (ref.tensor.shape() != test.tensor.shape() || ref.tensor.channels() != test.tensor.channels())
    throw Error(ErrorCode::kInput, o.test,
                "shape " + describe(test.tensor) + " does not match the reference's " + describe(ref.tensor));

  const double peak = peak_of(o, ref);
  const double m = core::mse(ref.tensor, test.tensor);
  const double psnr = core::psnr_db(m, peak);  // +inf for identical inputs: null in JSON, "inf" in text
  const double maxerr = core::max_abs_error(ref.tensor, test.tensor);
  times.add("metrics", sw.lap_ms());
  times.add("total", total.elapsed_ms());
  print_timing(g, times);
  if (g.json) {
    std::printf("{\"psnr_db\": %s, \"mse\": %s, \"max_abs_err\": %s, \"peak\": %s}\n", json_number(psnr).c_str(),
                json_number(m).c_str(), json_number(maxerr).c_str(), json_number(peak).c_str());
  } else {
    std::printf("PSNR %s dB  MSE %s  max|err| %s\n", std::isinf(psnr) ? "inf" : format_number_fixed(psnr, 2).c_str(),
                format_number(m, 6).c_str(), format_number(maxerr, 6).c_str());
  }
  return 0;
}

}  // namespace

void add_psnr(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<PsnrOptions>();
  CLI::App* c = app.add_subcommand("psnr", "PSNR, MSE and max abs error of TEST against REF");
  c->add_option("reference", o->reference, "reference file")->required();
  c->add_option("test", o->test, "test file")->required();
  c->add_option("--peak", o->peak, "peak value (default 255 / 65535 for images, max|REF| for matrices)")
      ->check(positive());
  c->add_flag("--alpha", o->alpha, "images: include the alpha channel (default: colour channels only)");
  add_input_options(c, o->in);
  c->callback([o, &g, &action] { action = [o, &g] { return run_psnr(g, *o); }; });
}

}  // namespace dct::app
