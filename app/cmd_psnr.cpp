// psnr REF TEST: PSNR, MSE and max abs error; the peak follows the reference's kind (DESIGN §2).
#include <cmath>
#include <cstdio>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/report.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"

namespace dct::app {

int run_psnr(const GlobalOptions& g, const PsnrOptions& o) {
  const core::ReadOptions ro = read_options(g, o.in, core::Precision::kF64);
  core::Dataset ref = read_input(o.reference, ro);
  core::Dataset test = read_input(o.test, ro);
  auto describe = [](const core::HostTensor& t) {
    return core::to_string(t.shape()) + (t.channels() > 1 ? "x" + std::to_string(t.channels()) : "");
  };
  if (ref.tensor.shape() != test.tensor.shape() || ref.tensor.channels() != test.tensor.channels())
    throw Error(ErrorCode::kInput, o.test,
                "shape " + describe(test.tensor) + " does not match the reference's " + describe(ref.tensor));

  double peak = o.peak;
  if (peak <= 0) {
    if (ref.kind == core::SourceKind::kImage8) peak = 255;
    else if (ref.kind == core::SourceKind::kImage16) peak = 65535;
    else peak = core::max_abs(ref.tensor);
    if (peak <= 0) peak = 1;  // an all-zero reference: PSNR relative to unit peak
  }
  const double m = core::mse(ref.tensor, test.tensor);
  const double psnr = core::psnr_db(m, peak);
  const double maxerr = core::max_abs_error(ref.tensor, test.tensor);
  if (g.json) {
    std::printf("{\"psnr_db\": %s, \"mse\": %s, \"max_abs_err\": %s, \"peak\": %s}\n", json_number(psnr).c_str(),
                json_number(m).c_str(), json_number(maxerr).c_str(), json_number(peak).c_str());
  } else {
    std::printf("PSNR %s dB  MSE %s  max|err| %s\n", std::isinf(psnr) ? "inf" : format_number_fixed(psnr, 2).c_str(),
                format_number(m, 6).c_str(), format_number(maxerr, 6).c_str());
  }
  return 0;
}

}  // namespace dct::app
