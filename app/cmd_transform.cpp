// dct2 / idct2 / dct4: read, pick a backend, plan (cached), execute host-to-host, write atomically.
#include <cstdio>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/error.hpp"
#include "core/visualize.hpp"

namespace dct::app {
namespace {

core::Op op_of(const TransformOptions& o) {
  if (o.op == "dct2") return core::Op::kDct2;
  if (o.op == "idct2") return core::Op::kIdct2;
  if (o.op == "lot") return o.inverse ? core::Op::kIlot : core::Op::kLot;
  return o.inverse ? core::Op::kIdct4 : core::Op::kDct4;
}

bool is_forward(core::Op op) { return op == core::Op::kDct2 || op == core::Op::kDct4 || op == core::Op::kLot; }

// The LOT (DESIGN §4) needs H, W multiples of 8; its inverse takes the (H+8)x(W+8) coefficients.
void require_lot_shape(const core::TransformDesc& d, const std::string& input) {
  if (d.op != core::Op::kLot && d.op != core::Op::kIlot) return;
  const bool inverse = d.op == core::Op::kIlot;
  const std::int64_t min = inverse ? 16 : 8;
  if (d.shape.rows % 8 != 0 || d.shape.cols % 8 != 0 || d.shape.rows < min || d.shape.cols < min)
    throw Error(ErrorCode::kInput, input,
                "shape " + core::to_string(d.shape) + ": the LOT needs H and W multiples of 8" +
                    (inverse ? " and >= 16 (coefficients of an (H-8)x(W-8) input)" : ""));
}

}  // namespace

int run_transform(const GlobalOptions& g, const TransformOptions& o) {
  core::Stopwatch total;
  const core::Precision prec = precision_of(g);
  configure_runtimes(g.device, g.threads);

  core::TransformDesc d;
  d.op = op_of(o);
  d.prec = prec;
  d.block = o.block;
  d.norm = !o.norm.empty() ? core::parse_norm(o.norm) : (o.block > 0 ? core::Norm::kOrtho : core::Norm::kNone);
  d.axis = !o.axis.empty() ? core::parse_axis(o.axis)
                           : (o.op == "dct4" ? core::Axis::kRows : core::Axis::kBoth);
  if (d.block > 0 && d.axis != core::Axis::kBoth)
    throw Error(ErrorCode::kUsage, "--block", "block mode transforms whole tiles: it needs --axis both");

  const bool picture = core::is_image_path(o.output) && is_forward(d.op);
  if (picture && !o.visualize)
    throw Error(ErrorCode::kUsage, o.output,
                "cannot write DCT coefficients to an image (write .npy, .txt or raw, or add --visualize)");
  core::check_output_path(o.output, {o.input});

  core::StageTable times;
  core::Stopwatch sw;
  core::Dataset in = read_input(o.input, read_options(g, o.in, prec));
  times.add("read", sw.elapsed_ms());

  d.shape = in.tensor.shape();
  d.batch = in.tensor.channels();
  if (d.block > 0 && (d.shape.rows % d.block != 0 || d.shape.cols % d.block != 0))
    throw Error(ErrorCode::kInput, o.input,
                "shape " + core::to_string(d.shape) + " is not a multiple of --block " + std::to_string(d.block));

  require_lot_shape(d, o.input);

  const core::Backend& backend = registry().select(d, g.backend);
  sw.reset();
  auto plan = plan_cache().get(backend, d, g.device);
  times.add("plan", sw.elapsed_ms());

  core::HostTensor out(d.out_shape(), d.batch, prec);
  const core::StageTimes st = plan->execute_host(in.tensor.view(), out.view());
  if (plan->memory() == core::Memory::kDevice) {
    times.add("load", st.load_ms);
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
    if (picture) out = core::log_magnitude_image(out);
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
    std::string j = "{\"input\": " + json_escape(o.input) + ", \"output\": " + json_escape(o.output) +
                    ", \"op\": " + json_escape(std::string(core::to_string(d.op))) +
                    ", \"norm\": " + json_escape(std::string(core::to_string(d.norm))) +
                    ", \"axis\": " + json_escape(std::string(core::to_string(d.axis))) +
                    ", \"block\": " + std::to_string(d.block) +
                    ", \"backend\": " + json_escape(std::string(backend.name())) +
                    ", \"device\": " + json_escape(backend.runtime().device_name()) +
                    ", \"precision\": " + json_escape(std::string(core::to_string(prec))) +
                    ", \"shape\": [" + std::to_string(d.shape.rows) + ", " + std::to_string(d.shape.cols) + "]" +
                    ", \"out_shape\": [" + std::to_string(d.out_shape().rows) + ", " + std::to_string(d.out_shape().cols) + "]" +
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
