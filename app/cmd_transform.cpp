// dct2 / idct2 / dct4 / lot: read, pick a backend, plan (cached), execute host-to-host, write atomically.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/image_decode.hpp"
#include "app/jpeg_file.hpp"
#include "app/options.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/error.hpp"
#include "core/visualize.hpp"

namespace dct::app {
namespace {

struct TransformOptions {
  std::string op;  // dct2 | idct2 | dct4 | lot
  std::string input, output;
  std::string norm;  // "" = default (none; ortho in block mode)
  std::string axis;  // "" = default (both; rows for dct4)
  int block = 0;
  bool inverse = false;
  bool visualize = false;          // image output of coefficients: a log-magnitude picture
  bool jpeg_coefficients = false;  // dct2 --block 8 of a .jpg: its stored coefficients, dequantized
  InputOptions in;
};

core::Op op_of(const TransformOptions& o) {
  if (o.op == "dct2") return core::Op::kDct2;
  if (o.op == "idct2") return core::Op::kIdct2;
  if (o.op == "lot") return o.inverse ? core::Op::kIlot : core::Op::kLot;
  return o.inverse ? core::Op::kIdct4 : core::Op::kDct4;
}

bool is_forward(core::Op op) { return op == core::Op::kDct2 || op == core::Op::kDct4 || op == core::Op::kLot; }

// The descriptor from the options; the shape and batch come from the input.
core::TransformDesc describe(const GlobalOptions& g, const TransformOptions& o) {
  core::TransformDesc d;
  d.op = op_of(o);
  d.prec = precision_of(g);
  d.block = o.block;
  d.norm = !o.norm.empty() ? core::parse_norm(o.norm) : (o.block > 0 ? core::Norm::kOrtho : core::Norm::kNone);
  if (d.norm == core::Norm::kForward)
    throw Error(ErrorCode::kUsage, "--norm", "forward is a norm of dct, dst and r2r (here: ortho|none)");
  d.axis = !o.axis.empty() ? core::parse_axis(o.axis) : (o.op == "dct4" ? core::Axis::kRows : core::Axis::kBoth);
  if (d.block > 0 && d.axis != core::Axis::kBoth)
    throw Error(ErrorCode::kUsage, "--block", "block mode transforms whole tiles: it needs --axis both");
  return d;
}

// Whether the output is a log-magnitude picture of the coefficients; refuses coefficients in an image
// without --visualize, and an output that would overwrite the input.
bool check_output(const TransformOptions& o, const core::TransformDesc& d) {
  const bool picture = core::is_image_path(o.output) && is_forward(d.op);
  if (picture && !o.visualize)
    throw Error(ErrorCode::kUsage, o.output,
                "cannot write DCT coefficients to an image (write .npy, .txt or raw, or add --visualize)");
  core::check_output_path(o.output, {o.input});
  return picture;
}

// The LOT needs H, W multiples of 8; its inverse takes the (H+8)x(W+8) coefficients.
void require_lot_shape(const core::TransformDesc& d, const std::string& input) {
  if (d.op != core::Op::kLot && d.op != core::Op::kIlot) return;
  const bool inverse = d.op == core::Op::kIlot;
  const std::int64_t min = inverse ? 16 : 8;
  if (d.shape.rows % 8 != 0 || d.shape.cols % 8 != 0 || d.shape.rows < min || d.shape.cols < min)
    throw Error(ErrorCode::kInput, input,
                "shape " + core::to_string(d.shape) + ": the LOT needs H and W multiples of 8" +
                    (inverse ? " and >= 16 (coefficients of an (H-8)x(W-8) input)" : ""));
}

// The input's shape and channels into `d`, checked against --block and the LOT.
void take_shape(core::TransformDesc& d, const core::HostTensor& in, const std::string& input) {
  d.shape = in.shape();
  d.batch = in.channels();
  if (d.block > 0 && (d.shape.rows % d.block != 0 || d.shape.cols % d.block != 0))
    throw Error(ErrorCode::kInput, input,
                "shape " + core::to_string(d.shape) + " is not a multiple of --block " + std::to_string(d.block));
  require_lot_shape(d, input);
}

core::HostTensor execute(const core::Plan& plan, const core::TransformDesc& d, const core::HostTensor& in,
                         core::StageTable& times) {
  core::HostTensor out(d.out_shape(), d.batch, d.prec);
  const core::StageTimes st = plan.execute_host(in.view(), out.view());
  if (plan.memory() == core::Memory::kDevice) {
    times.add("load", st.load_ms);
    times.add("h2d", st.h2d_ms);
    times.add("device", st.device_ms);
    times.add("d2h", st.d2h_ms);
  }
  times.add("execute_e2e", st.e2e_ms);
  return out;
}

// Writes the coefficients (or their picture) atomically; notes values clamped to an image's range.
void write_output(const GlobalOptions& g, const TransformOptions& o, core::HostTensor out, core::SourceKind kind,
                  bool picture, core::Precision prec) {
  core::WriteOptions wo;
  wo.prec = prec;
  wo.image_bit_depth = kind == core::SourceKind::kImage16 && !picture ? 16 : 8;  // a picture is 8-bit
  std::int64_t clamped = 0;
  try {
    if (picture) out = core::log_magnitude_image(out);
    core::write_any(o.output, out, wo, &image_codec(), &clamped);
  } catch (const Error& e) {
    rethrow_with_subject(e, o.output);
  }
  if (clamped > 0) note(g, o.output + ": " + std::to_string(clamped) + " values clamped to the image range");
}

std::string result_json(const TransformOptions& o, const core::TransformDesc& d, const core::Backend& backend,
                        const core::StageTable& times) {
  return "{\"input\": " + json_escape(o.input) + ", \"output\": " + json_escape(o.output) +
         ", \"op\": " + json_escape(std::string(core::to_string(d.op))) +
         ", \"norm\": " + json_escape(std::string(core::to_string(d.norm))) +
         ", \"axis\": " + json_escape(std::string(core::to_string(d.axis))) +
         ", \"block\": " + std::to_string(d.block) + ", \"backend\": " + json_escape(std::string(backend.name())) +
         ", \"device\": " + json_escape(backend.runtime().device_name()) +
         ", \"precision\": " + json_escape(std::string(core::to_string(d.prec))) +
         ", \"shape\": " + json_shape(d.shape) + ", \"out_shape\": " + json_shape(d.out_shape()) +
         ", \"channels\": " + std::to_string(d.batch) + ", \"timing_ms\": " + json_timing(times) + "}\n";
}

// dct2 --block 8 --jpeg-coefficients: the coefficients stored in a JPEG file, dequantized, in the layout of
// dct2 --block 8 --norm ortho of the level-shifted component planes (app/jpeg_file.hpp); no decode, no transform.
int run_jpeg_coefficients(const GlobalOptions& g, const TransformOptions& o) {
  core::Stopwatch total;
  if (o.block != 8)
    throw Error(ErrorCode::kUsage, "--jpeg-coefficients",
                "a JPEG file stores 8x8 blocks: it needs --block 8" +
                    (o.block > 0 ? std::string(", not --block ") + std::to_string(o.block) : std::string()));
  if (!o.norm.empty() && core::parse_norm(o.norm) != core::Norm::kOrtho)
    throw Error(ErrorCode::kUsage, "--jpeg-coefficients",
                "JPEG's coefficients are those of the ortho DCT: it needs --norm ortho");
  if (!o.axis.empty() && core::parse_axis(o.axis) != core::Axis::kBoth)
    throw Error(ErrorCode::kUsage, "--jpeg-coefficients",
                "JPEG's blocks are transformed along both axes: it needs --axis both");
  core::TransformDesc d = describe(g, o);
  const bool picture = check_output(o, d);

  core::StageTable times;
  core::Stopwatch sw;
  core::HostTensor coef;
  try {
    const std::vector<unsigned char> bytes = read_file_bytes(o.input);
    if (sniff_image(bytes, o.input) != ImageFormat::kJpeg)
      throw Error(ErrorCode::kInput, o.input, "--jpeg-coefficients reads JPEG files; this is not one");
    coef = read_jpeg_coefficients(bytes, o.input, read_options(g, o.in, d.prec));
  } catch (const Error& e) {
    rethrow_with_subject(e, o.input);
  }
  times.add("read", sw.elapsed_ms());
  sw.reset();
  const core::Shape2 shape = coef.shape();
  const std::int64_t channels = coef.channels();
  write_output(g, o, std::move(coef), core::SourceKind::kMatrix, picture, d.prec);
  times.add("write", sw.elapsed_ms());
  times.add("total", total.elapsed_ms());
  print_timing(g, times);
  if (g.json)
    std::fputs(("{\"input\": " + json_escape(o.input) + ", \"output\": " + json_escape(o.output) +
                ", \"op\": \"dct2\", \"norm\": \"ortho\", \"axis\": \"both\", \"block\": 8" +
                ", \"backend\": \"jpeg-coefficients\", \"precision\": " +
                json_escape(std::string(core::to_string(d.prec))) + ", \"out_shape\": " + json_shape(shape) +
                ", \"channels\": " + std::to_string(channels) + ", \"timing_ms\": " + json_timing(times) + "}\n")
                   .c_str(),
               stdout);
  return 0;
}

int run_transform(const GlobalOptions& g, const TransformOptions& o) {
  if (o.jpeg_coefficients) return run_jpeg_coefficients(g, o);
  core::Stopwatch total;
  configure_runtimes(g.device, g.threads);
  core::TransformDesc d = describe(g, o);
  const bool picture = check_output(o, d);

  core::StageTable times;
  core::Stopwatch sw;
  const core::Dataset in = read_input(o.input, read_options(g, o.in, d.prec));
  times.add("read", sw.elapsed_ms());
  take_shape(d, in.tensor, o.input);
  // A 3-D .npy is (H, W, C) here (README, formats): say so where C looks like an axis rather than channels.
  if (core::lower_extension(o.input) == ".npy" && in.tensor.channels() > 4)
    note(g, o.input + ": a 3-D .npy is read as (H, W, C): " + std::to_string(in.tensor.channels()) + " channels of " +
                core::to_string(in.tensor.shape()) + " (for a 3-D array use dct, dst or r2r)");

  const core::Backend& backend = registry().select(d, g.backend);
  core::HostTensor out;
  try {  // plan and device errors (out of memory above all) name the input they concern
    sw.reset();
    auto plan = plan_cache().get(backend, d, g.device);
    times.add("plan", sw.elapsed_ms());
    out = execute(*plan, d, in.tensor, times);
  } catch (const Error& e) {
    rethrow_with_subject(e, o.input);
  }

  sw.reset();
  write_output(g, o, std::move(out), in.kind, picture, d.prec);
  times.add("write", sw.elapsed_ms());
  times.add("total", total.elapsed_ms());

  if (g.verbose) note(g, std::string(backend.name()) + ": " + d.to_string() + " on " + backend.runtime().device_name());
  print_timing(g, times);
  if (g.json) std::fputs(result_json(o, d, backend, times).c_str(), stdout);
  return 0;
}

void add_transform(CLI::App& app, const char* name, const char* help, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<TransformOptions>();
  o->op = name;
  CLI::App* c = app.add_subcommand(name, help);
  c->add_option("input", o->input, "input file (.npy .txt .csv .raw .f32 .f64 or an image)")->required();
  c->add_option("-o,--output", o->output, "output file")->required();
  const std::string n = name;
  if (n == "lot") {
    c->add_flag("--inverse", o->inverse, "the exact inverse: (H+8)x(W+8) coefficients -> HxW");
  } else if (n == "dct4") {
    c->add_option("--norm", o->norm, "ortho|none (default none)");
    c->add_option("--axis", o->axis, "rows|cols|both (default rows)");
    c->add_flag("--inverse", o->inverse, "the exact inverse in the same norm");
  } else {
    c->add_option("--norm", o->norm, "ortho|none (default none; ortho with --block)");
    c->add_option("--axis", o->axis, "both|rows|cols (default both)");
    c->add_option("--block", o->block, "transform independent BxB tiles")->check(positive());
    if (n == "dct2")
      c->add_flag("--jpeg-coefficients", o->jpeg_coefficients,
                  "with --block 8 and a JPEG input: its stored coefficients, dequantized, without decoding (4:4:4 "
                  "and gray files)");
  }
  c->add_flag("--visualize", o->visualize, "write coefficients to an image as a log-magnitude picture");
  add_input_options(c, o->in);
  c->callback([o, &g, &action] { action = [o, &g] { return run_transform(g, *o); }; });
}

}  // namespace

void add_transforms(CLI::App& app, const GlobalOptions& g, Action& action) {
  add_transform(app, "dct2", "2-D (or 1-D along --axis) DCT-II", g, action);
  add_transform(app, "idct2", "inverse of dct2 with the same options (a DCT-III)", g, action);
  add_transform(app, "dct4", "DCT-IV (default along rows)", g, action);
  add_transform(app, "lot", "8x8 lapped orthogonal transform (Malvar): HxW -> (H+8)x(W+8)", g, action);
}

}  // namespace dct::app
