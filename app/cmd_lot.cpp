// lot [--inverse]: the 8x8 lapped orthogonal transform of DESIGN §4 (HxW -> (H+8)x(W+8)) and its inverse.
// Read, check the shape, pick a backend, plan (cached), execute host-to-host, write atomically.
#include <cstdio>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/error.hpp"

namespace dct::app {

int run_lot(const GlobalOptions& g, const LotOptions& o) {
  core::Stopwatch total;
  const core::Precision prec = precision_of(g);
  configure_runtimes(g.device, g.threads);

  core::TransformDesc d;
  d.op = o.inverse ? core::Op::kIlot : core::Op::kLot;
  d.prec = prec;
  if (!o.inverse && core::is_image_path(o.output))
    throw Error(ErrorCode::kUsage, o.output, "cannot write LOT coefficients to an image (write .npy, .txt or raw)");
  core::check_output_path(o.output, {o.input});

  core::StageTable times;
  core::Stopwatch sw;
  core::Dataset in = read_input(o.input, read_options(g, o.in, prec));
  times.add("read", sw.elapsed_ms());

  d.shape = in.tensor.shape();
  d.batch = in.tensor.channels();
  const std::int64_t min = o.inverse ? 16 : 8;
  if (d.shape.rows % 8 != 0 || d.shape.cols % 8 != 0 || d.shape.rows < min || d.shape.cols < min)
    throw Error(ErrorCode::kInput, o.input,
                "shape " + core::to_string(d.shape) + ": the LOT needs H and W multiples of 8" +
                    (o.inverse ? " and >= 16 (coefficients of an (H-8)x(W-8) input)" : ""));

  const core::Backend& backend = registry().select(d, g.backend);
  sw.reset();
  auto plan = plan_cache().get(backend, d, g.device);
  times.add("plan", sw.elapsed_ms());

  core::HostTensor out(d.out_shape(), d.batch, prec);
  const core::StageTimes st = plan->execute_host(in.tensor.view(), out.view());
  if (plan->memory() == core::Memory::kDevice) {
    times.add("h2d", st.h2d_ms);
    times.add("device", st.device_ms);
    times.add("d2h", st.d2h_ms);
  }
  times.add("execute (e2e)", st.e2e_ms);

  sw.reset();
  core::WriteOptions wo;
  wo.prec = prec;
  wo.image_bit_depth = in.kind == core::SourceKind::kImage16 ? 16 : 8;
  std::int64_t clamped = 0;
  try {
    core::write_any(o.output, out, wo, &image_codec(), &clamped);
  } catch (const Error& e) {
    rethrow_with_subject(e, o.output);
  }
  times.add("write", sw.elapsed_ms());
  if (clamped > 0)
    note(g, o.output + ": " + std::to_string(clamped) + " values clamped to the image range");
  times.add("total", total.elapsed_ms());

  if (g.verbose) note(g, std::string(backend.name()) + ": " + d.to_string() + " on " + backend.runtime().device_name());
  print_timing(g, times);
  if (g.json) {
    const core::Shape2 os = d.out_shape();
    std::string j = "{\"input\": " + json_escape(o.input) + ", \"output\": " + json_escape(o.output) +
                    ", \"op\": " + json_escape(std::string(core::to_string(d.op))) +
                    ", \"backend\": " + json_escape(std::string(backend.name())) +
                    ", \"device\": " + json_escape(backend.runtime().device_name()) +
                    ", \"precision\": " + json_escape(std::string(core::to_string(prec))) +
                    ", \"shape\": [" + std::to_string(d.shape.rows) + ", " + std::to_string(d.shape.cols) + "]" +
                    ", \"out_shape\": [" + std::to_string(os.rows) + ", " + std::to_string(os.cols) + "]" +
                    ", \"channels\": " + std::to_string(d.batch) + ", \"timing_ms\": {";
    bool first = true;
    for (const auto& r : times.rows()) {
      j += (first ? "" : ", ") + json_escape(r.stage) + ": " + json_number(r.ms);
      first = false;
    }
    j += "}}\n";
    std::fputs(j.c_str(), stdout);
  }
  return 0;
}

}  // namespace dct::app
