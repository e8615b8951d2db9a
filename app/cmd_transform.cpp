// dct2 / idct2 / dct4 / lot: read, pick a backend, plan (cached), execute host-to-host, write atomically. Several
// inputs (or -o DIR) run as a batch (app/batch.hpp), each input through the same stages.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>

#include "app/batch.hpp"
#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/distributed.hpp"
#include "app/image_decode.hpp"
#include "app/jpeg_file.hpp"
#include "app/options.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "app/streamed.hpp"
#include "core/error.hpp"
#include "core/visualize.hpp"

namespace dct::app {
namespace {

struct TransformOptions {
  std::string op;  // dct2 | idct2 | dct4 | lot
  std::vector<std::string> inputs;
  std::string output;  // a file (one input) or a directory (batch mode)
  std::string norm;    // "" = default (none; ortho in block mode)
  std::string axis;    // "" = default (both; rows for dct4)
  int block = 0;
  bool inverse = false;
  bool visualize = false;          // image output of coefficients: a log-magnitude picture
  bool jpeg_coefficients = false;  // dct2 --block 8 of a .jpg: its stored coefficients, dequantized
  bool distributed = false;
  InputOptions in;
  BatchOptions batch;
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

// Whether the output is a log-magnitude picture of the coefficients; refuses coefficients in an image without
// --visualize.
bool picture_output(const TransformOptions& o, const core::TransformDesc& d, const std::string& output) {
  const bool picture = core::is_image_path(output) && is_forward(d.op);
  if (picture && !o.visualize)
    throw Error(ErrorCode::kUsage, output,
                "cannot write DCT coefficients to an image (write .npy, .txt or raw, or add --visualize)");
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
void take_shape(core::TransformDesc& d, core::Shape2 shape, std::int64_t channels, const std::string& input) {
  d.shape = shape;
  d.batch = channels;
  if (d.block > 0 && (d.shape.rows % d.block != 0 || d.shape.cols % d.block != 0))
    throw Error(ErrorCode::kInput, input,
                "shape " + core::to_string(d.shape) + " is not a multiple of --block " + std::to_string(d.block));
  require_lot_shape(d, input);
}

// Runs `plan` from `in` into `out` (a tensor of d's output shape).
void execute(const core::Plan& plan, const core::HostTensor& in, core::HostTensor& out, core::StageTable& times) {
  const core::StageTimes st = plan.execute_host(in.view(), out.view());
  if (plan.memory() == core::Memory::kDevice) {
    times.add("load", st.load_ms);
    times.add("h2d", st.h2d_ms);
    times.add("device", st.device_ms);
    times.add("d2h", st.d2h_ms);
  }
  times.add("execute_e2e", st.e2e_ms);
}

// Writes the coefficients (or their picture) atomically; returns how many values an image's range clamped.
// channel_axis: the input was a 3-D .npy of one channel, (H, W, 1): a .npy output keeps the axis, (H', W', 1).
std::int64_t write_output(const std::string& output, core::HostTensor out, core::SourceKind kind, bool picture,
                          core::Precision prec, bool channel_axis) {
  core::WriteOptions wo;
  wo.prec = prec;
  if (channel_axis && out.channels() == 1 && core::lower_extension(output) == ".npy")
    wo.npy_shape = {out.rows(), out.cols(), 1};
  wo.image_bit_depth = kind == core::SourceKind::kImage16 && !picture ? 16 : 8;  // a picture is 8-bit
  std::int64_t clamped = 0;
  try {
    if (picture) out = core::log_magnitude_image(out);
    core::write_any(output, out, wo, &image_codec(), &clamped);
  } catch (const Error& e) {
    rethrow_with_subject(e, output);
  }
  return clamped;
}

std::string result_json(const std::string& input, const std::string& output, const core::TransformDesc& d,
                        const core::Backend& backend, const core::StageTable& times) {
  return "{\"input\": " + json_escape(input) + ", \"output\": " + json_escape(output) +
         ", \"op\": " + json_escape(std::string(core::to_string(d.op))) +
         ", \"norm\": " + json_escape(std::string(core::to_string(d.norm))) +
         ", \"axis\": " + json_escape(std::string(core::to_string(d.axis))) +
         ", \"block\": " + std::to_string(d.block) + ", \"backend\": " + json_escape(std::string(backend.name())) +
         ", \"device\": " + json_escape(backend.runtime().device_name()) +
         ", \"precision\": " + json_escape(std::string(core::to_string(d.prec))) +
         ", \"shape\": " + json_shape(d.shape) + ", \"out_shape\": " + json_shape(d.out_shape()) +
         ", \"channels\": " + std::to_string(d.batch) + ", \"timing_ms\": " + json_timing(times) + "}";
}

// What the tasks of dct2/idct2/dct4/lot share: the options, the descriptor, the paths, and writing the result.
class CommandTask : public BatchTask {
 public:
  CommandTask(const GlobalOptions& g, const TransformOptions& o, const core::TransformDesc& d, std::string input,
              std::string output)
      : g_(g), o_(o), d_(d), input_(std::move(input)), output_(std::move(output)) {}

 protected:
  // Writes the coefficients (or their picture) atomically, with a note when an image's range clamped values.
  void write_result(core::HostTensor out, core::SourceKind kind, core::StageTable& t) {
    core::Stopwatch sw;
    const std::int64_t clamped =
        write_output(output_, std::move(out), kind, picture_output(o_, d_, output_), d_.prec, channel_axis_);
    if (clamped > 0) notes.push_back(output_ + ": " + std::to_string(clamped) + " values clamped to the image range");
    t.add("write", sw.elapsed_ms());
  }

  const GlobalOptions& g_;
  const TransformOptions& o_;
  core::TransformDesc d_;
  std::string input_, output_;
  bool channel_axis_ = false;  // the input is a .npy of shape (H, W, 1)
};

// One input through the transform: read, plan and execute, write. One matrix .npy to a .npy on its own (not in a
// batch) is streamed instead (app/streamed.hpp).
class TransformTask : public CommandTask {
 public:
  using CommandTask::CommandTask;

  // One matrix .npy to a .npy: the streamed route. Under -b auto an input the host's cores transform sooner than a GPU
  // starts stays on the CPU.
  void open(core::StageTable& t) override {
    if (core::lower_extension(input_) != ".npy" || core::lower_extension(output_) != ".npy") return;
    core::Stopwatch sw;
    core::NpyLayout layout = core::read_npy_layout(input_);
    if (layout.shape.size() > 2 || layout.fortran) return;  // Fortran order: read whole
    const std::int64_t rows = layout.shape.size() == 2 ? layout.shape[0] : 1;
    take_shape(d_, core::Shape2{rows, layout.shape.back()}, 1, input_);
    host_only = one_shot_on_cpu(g_.backend, d_.elements());
    const core::Shape2 out = d_.out_shape();
    streamed_ = std::make_unique<StreamedRun>(input_, std::move(layout), output_,
                                              std::vector<std::int64_t>{out.rows, out.cols}, d_.prec, host_only);
    t.add("open", sw.elapsed_ms());
  }

  void read(core::StageTable& t) override {
    if (streamed_) return;  // the plan reads the file
    core::Stopwatch sw;
    core::ReadOptions ro = read_options(g_, o_.in, d_.prec);
    ro.pool = inputs;
    ro.threads = read_threads;
    in_ = read_input(input_, ro);
    t.add("read", sw.elapsed_ms());
    take_shape(d_, in_.tensor.shape(), in_.tensor.channels(), input_);
    channel_axis_ = core::lower_extension(input_) == ".npy" && in_.tensor.channels() == 1 &&
                    core::read_npy_info(input_).shape.size() == 3;
    // A 3-D .npy is (H, W, C) here (README, formats): say so where C looks like an axis rather than channels.
    if (core::lower_extension(input_) == ".npy" && in_.tensor.channels() > 4)
      notes.push_back(input_ + ": a 3-D .npy is read as (H, W, C): " + std::to_string(in_.tensor.channels()) +
                      " channels of " + core::to_string(in_.tensor.shape()) + " (for a 3-D array use dct, dst or r2r)");
  }

  void transform(core::PlanCache& plans, core::StageTable& t) override {
    if (streamed_) {
      backend_ = &streamed_->run(g_, d_, plans, read_options(g_, o_.in, d_.prec).allow_nonfinite, t);
      return;
    }
    try {  // plan and device errors (out of memory above all) name the input they concern
      core::Stopwatch made;
      out_ = core::take_tensor(outputs, d_.out_shape(), d_.batch, d_.prec);
      t.add("output", made.elapsed_ms());
      run_with_gpu_fallback(
          in_batch && g_.backend == "auto", input_,
          [&] {
            backend_ = &registry().select(d_, g_.backend);
            core::Stopwatch sw;
            auto plan = plans.get(*backend_, d_, active_device());
            t.add("plan", sw.elapsed_ms());
            execute(*plan, in_.tensor, out_, t);
          },
          [&](const std::string& line) { notes.push_back(line); });
    } catch (const Error& e) {
      rethrow_with_subject(e, input_);
    }
    in_.tensor = core::HostTensor();
  }

  void write(core::StageTable& t) override {
    if (streamed_) {
      streamed_->commit(t);
    } else {
      write_result(std::move(out_), in_.kind, t);
    }
    if (g_.verbose)
      notes.push_back(std::string(backend_->name()) + ": " + d_.to_string() + " on " +
                      backend_->runtime().device_name());
  }

  std::string json(const core::StageTable& t) const override { return result_json(input_, output_, d_, *backend_, t); }

 private:
  core::Dataset in_;
  core::HostTensor out_;
  const core::Backend* backend_ = nullptr;
  std::unique_ptr<StreamedRun> streamed_;  // one matrix .npy to a .npy on its own
};

// dct2 --block 8 --jpeg-coefficients: the coefficients stored in a JPEG file, dequantized, in the layout of
// dct2 --block 8 --norm ortho of the level-shifted component planes (app/jpeg_file.hpp); no decode, no transform.
class JpegCoefficientsTask : public CommandTask {
 public:
  using CommandTask::CommandTask;

  void read(core::StageTable& t) override {
    core::Stopwatch sw;
    try {
      const std::vector<unsigned char> bytes = read_file_bytes(input_);
      if (sniff_image(bytes, input_) != ImageFormat::kJpeg)
        throw Error(ErrorCode::kInput, input_, "--jpeg-coefficients reads JPEG files; this is not one");
      coef_ = read_jpeg_coefficients(bytes, input_, read_options(g_, o_.in, d_.prec));
    } catch (const Error& e) {
      rethrow_with_subject(e, input_);
    }
    t.add("read", sw.elapsed_ms());
    shape_ = coef_.shape();
    channels_ = coef_.channels();
  }

  void transform(core::PlanCache&, core::StageTable&) override {}

  void write(core::StageTable& t) override { write_result(std::move(coef_), core::SourceKind::kMatrix, t); }

  std::string json(const core::StageTable& t) const override {
    return "{\"input\": " + json_escape(input_) + ", \"output\": " + json_escape(output_) +
           ", \"op\": \"dct2\", \"norm\": \"ortho\", \"axis\": \"both\", \"block\": 8" +
           ", \"backend\": \"jpeg-coefficients\", \"precision\": " +
           json_escape(std::string(core::to_string(d_.prec))) + ", \"out_shape\": " + json_shape(shape_) +
           ", \"channels\": " + std::to_string(channels_) + ", \"timing_ms\": " + json_timing(t) + "}";
  }

 private:
  core::HostTensor coef_;
  core::Shape2 shape_{};
  std::int64_t channels_ = 0;
};

// --jpeg-coefficients reads what a JPEG file stores: 8x8 blocks of the ortho DCT along both axes.
void check_jpeg_coefficients_options(const TransformOptions& o) {
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
}

// dct2, idct2 and dct4 (--inverse) of one array across processes: the same transforms as r2r kinds along the axes
// --axis names (0 = cols, 1 = rows), an (H, W, C) array's channels untouched.
DistributedRun distributed_run(const TransformOptions& o, const core::TransformDesc& d) {
  const std::string& input = o.inputs.front();
  if (d.op == core::Op::kLot || d.op == core::Op::kIlot || d.block > 0 || o.jpeg_coefficients)
    throw Error(ErrorCode::kUnsupported, input,
                "a distributed transform is a whole-array dct2, idct2 or dct4 (not the LOT, --block or "
                "--jpeg-coefficients)");
  const bool dct2 = d.op == core::Op::kDct2 || d.op == core::Op::kIdct2;
  const core::R2rKind kind = dct2 ? core::R2rKind::kDct2 : core::R2rKind::kDct4;
  const bool inverse = d.op == core::Op::kIdct2 || d.op == core::Op::kIdct4;
  const core::Axis axis = d.axis;
  auto spec = [kind, inverse, axis](const std::vector<std::int64_t>& shape) {
    core::R2rSpec s;
    s.rank = static_cast<int>(shape.size());
    std::copy(shape.begin(), shape.end(), s.dims.begin());
    s.inverse = inverse;
    if (axis != core::Axis::kRows) s.kinds[0] = kind;
    if (axis != core::Axis::kCols) s.kinds[1] = kind;
    return s;
  };
  return {o.op, input, o.output, o.batch.report, spec, d.norm, false};
}

std::unique_ptr<BatchTask> make_task(const GlobalOptions& g, const TransformOptions& o, const core::TransformDesc& d,
                                     const std::string& input, const std::string& output) {
  if (o.jpeg_coefficients) return std::make_unique<JpegCoefficientsTask>(g, o, d, input, output);
  return std::make_unique<TransformTask>(g, o, d, input, output);
}

int run_transform(const GlobalOptions& g, const TransformOptions& o) {
  const core::Stopwatch total;
  if (o.jpeg_coefficients) check_jpeg_coefficients_options(o);
  check_raw_options(o.in, o.inputs);
  const core::TransformDesc d = describe(g, o);
  const BatchTargets targets = resolve_targets(o.inputs, o.output, o.batch.format);
  for (const auto& out : targets.outputs) picture_output(o, d, out);
  if (o.op != "lot" && distributed_mode(o.distributed, o.inputs.size(), targets.dir))
    return run_distributed(g, distributed_run(o, d));
  if (!targets.dir) {
    if (!o.jpeg_coefficients) configure_runtimes(g.device, g.threads);
    core::check_output_path(o.output, o.inputs);
    const auto task = make_task(g, o, d, o.inputs.front(), o.output);
    return run_single(g, *task, o.batch.report, o.inputs.front(), o.output, total);
  }
  BatchRun run{std::string(core::to_string(d.op)),
               o.inputs,
               targets.outputs,
               o.output,
               o.batch,
               !o.jpeg_coefficients,
               [&](const std::string& in, const std::string& out) { return make_task(g, o, d, in, out); }};
  return run_batch(g, run);
}

void add_transform(CLI::App& app, const char* name, const char* help, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<TransformOptions>();
  o->op = name;
  CLI::App* c = app.add_subcommand(name, help);
  c->add_option("inputs", o->inputs,
                "input files (.npy .txt .csv .raw .f32 .f64 or images); several: batch mode, -o names a directory")
      ->required();
  c->add_option("-o,--output", o->output,
                "output file, or a directory receiving DIR/<input stem>.<--format> (with several inputs, a name "
                "ending in '/', or an existing directory not named like a file; created if missing)")
      ->required();
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
  if (n != "lot") add_distributed_flag(c, o->distributed);
  add_input_options(c, o->in);
  add_batch_options(c, o->batch);
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
