// dct / dst / r2r: the real-to-real family (DCT and DST types I-IV, a kind per axis) of an array of 1 to 3
// dimensions, as scipy.fft.dctn / dstn / idctn / idstn. Parses the options and the input's shape into an r2r
// descriptor (core::r2r_desc) and runs it through the registry like the other transforms; several inputs (or -o DIR)
// run as a batch (app/batch.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>

#include "app/batch.hpp"
#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/distributed.hpp"
#include "app/options.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "app/streamed.hpp"
#include "core/error.hpp"
#include "cpu/backends.hpp"

namespace dct::app {
namespace {

struct R2rOptions {
  std::string command;  // dct | dst | r2r
  std::vector<std::string> inputs;
  std::string output;  // a file (one input) or a directory (batch mode)
  int type = 2;        // dct, dst (scipy's default)
  std::string kinds;   // r2r
  std::string axes;    // "" = every axis of a matrix, (0, 1) of an image
  std::string norm = "backward";
  bool inverse = false;
  bool distributed = false;
  InputOptions in;
  BatchOptions batch;
};

// The array the user addresses by --axes. A 3-D .npy (A, B, C) is read in C order as one (A*B) x C plane
// (ReadOptions::volume): the array (A, B, C) as it lies in the file.
struct ArrayLayout {
  int rank = 2;
  std::array<std::int64_t, core::kMaxR2rRank> dims{};
  std::int64_t batch = 1;  // image channels
};

// A matrix .npy's array from its header alone (1 to 3 dimensions).
ArrayLayout npy_layout(const std::vector<std::int64_t>& s) {
  ArrayLayout l;
  l.rank = static_cast<int>(s.size());
  std::copy(s.begin(), s.end(), l.dims.begin());
  return l;
}

ArrayLayout layout_of(const core::HostTensor& t, const std::vector<std::int64_t>& s) {
  ArrayLayout l;
  if (s.size() == 1) {
    l.rank = 1;
    l.dims[0] = s[0];
  } else if (s.size() == 3) {
    l.rank = 3;
    l.dims = {s[0], s[1], s[2]};
  } else {  // a 2-D .npy, a text or raw matrix, or an image (its channels are a batch, not an axis)
    l.rank = 2;
    l.dims[0] = t.rows();
    l.dims[1] = t.cols();
    l.batch = t.channels();
  }
  return l;
}

std::vector<int> parse_axes(const std::string& text, int rank) {
  std::vector<int> axes;
  if (text.empty()) {
    for (int a = 0; a < rank; ++a) axes.push_back(a);
    return axes;
  }
  for (const std::string& w : split_items(text, "--axes")) {
    int v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size() || v < -rank || v >= rank)
      throw Error(ErrorCode::kUsage, "--axes",
                  "invalid axis '" + w + "' for an array of " + std::to_string(rank) + " dimensions");
    if (v < 0) v += rank;
    if (std::find(axes.begin(), axes.end(), v) != axes.end())
      throw Error(ErrorCode::kUsage, "--axes", "axis " + std::to_string(v) + " given twice");
    axes.push_back(v);
  }
  if (axes.empty()) throw Error(ErrorCode::kUsage, "--axes", "no axis given");
  return axes;
}

// The kind per user axis from --type (dct, dst) or --kinds (r2r: one per axis of --axes, or, without --axes,
// for the last as many axes as kinds are given).
std::array<core::R2rKind, core::kMaxR2rRank> kinds_of(const R2rOptions& o, int rank) {
  std::array<core::R2rKind, core::kMaxR2rRank> kinds{};
  std::vector<core::R2rKind> given;
  std::vector<int> axes;
  if (o.command == "r2r") {
    for (const std::string& k : split_items(o.kinds, "--kinds")) given.push_back(core::parse_r2r_kind(k));
    if (given.empty()) throw Error(ErrorCode::kUsage, "--kinds", "no kind given");
    if (o.axes.empty()) {
      if (static_cast<int>(given.size()) > rank)
        throw Error(ErrorCode::kUsage, "--kinds",
                    std::to_string(given.size()) + " kinds for an array of " + std::to_string(rank) + " dimensions");
      for (int a = rank - static_cast<int>(given.size()); a < rank; ++a) axes.push_back(a);
    } else {
      axes = parse_axes(o.axes, rank);
      if (axes.size() != given.size())
        throw Error(ErrorCode::kUsage, "--kinds",
                    std::to_string(given.size()) + " kinds for " + std::to_string(axes.size()) + " axes");
    }
  } else {
    axes = parse_axes(o.axes, rank);
    given.assign(axes.size(), core::r2r_kind(o.command == "dst", o.type));
  }
  for (std::size_t i = 0; i < axes.size(); ++i) kinds[axes[i]] = given[i];
  return kinds;
}

struct Request {
  core::TransformDesc desc;
  std::vector<std::int64_t> npy_shape;  // what to write back (.npy)
};

// What the file says beyond its values: a .npy's stored shape, and whether the values are float64.
struct InputInfo {
  std::vector<std::int64_t> npy_shape;
  bool float64 = false;
};

InputInfo input_info(const R2rOptions& o, const std::string& input) {
  const std::string ext = core::lower_extension(input);
  if (ext == ".npy") {
    const core::NpyInfo i = core::read_npy_info(input);
    return {i.shape, i.float64};
  }
  return {{}, ext == ".f64" || o.in.dtype == "f64"};
}

// The options' transform of an array laid out as `l`.
core::R2rSpec spec_of(const R2rOptions& o, const std::string& input, const ArrayLayout& l) {
  const auto user_kinds = kinds_of(o, l.rank);
  core::R2rSpec spec;
  spec.rank = l.rank;
  spec.dims = l.dims;
  spec.inverse = o.inverse;
  for (int a = 0; a < l.rank; ++a) {
    if (user_kinds[a] == core::R2rKind::kDct1 && l.dims[a] < 2)
      throw Error(ErrorCode::kInput, input,
                  "DCT-I needs at least 2 points along each transformed axis (axis " + std::to_string(a) + " has " +
                      std::to_string(l.dims[a]) + ")");
    spec.kinds[a] = user_kinds[a];
  }
  return spec;
}

Request describe(const R2rOptions& o, const std::string& input, const core::HostTensor& t, const InputInfo& info,
                 core::Precision prec) {
  const ArrayLayout l = layout_of(t, info.npy_shape);
  return {core::r2r_desc(spec_of(o, input, l), core::parse_norm(o.norm), l.batch, prec), info.npy_shape};
}

std::string result_json(const R2rOptions& o, const std::string& input, const std::string& output,
                        const core::TransformDesc& d, const core::Backend& backend, const core::StageTable& times) {
  return "{\"input\": " + json_escape(input) + ", \"output\": " + json_escape(output) +
         ", \"op\": " + json_escape(o.command) + ", \"kinds\": " + json_escape(d.r2r.kinds_text()) +
         ", \"inverse\": " + (o.inverse ? "true" : "false") +
         ", \"norm\": " + json_escape(d.norm == core::Norm::kNone ? "backward" : std::string(core::to_string(d.norm))) +
         ", \"backend\": " + json_escape(std::string(backend.name())) +
         ", \"device\": " + json_escape(backend.runtime().device_name()) +
         ", \"precision\": " + json_escape(std::string(core::to_string(d.prec))) +
         ", \"dims\": " + json_escape(d.r2r.dims_text()) + ", \"shape\": " + json_dims(d.r2r) +
         ", \"channels\": " + std::to_string(d.batch) + ", \"timing_ms\": " + json_timing(times) + "}";
}

// A 3-D array (A, B, C) as an image: A rows, B columns and C channels (numpy's (H, W, C) layout), C = 1 .. 4; the
// volume tensor (ReadOptions::volume) holds it as one (A*B) x C plane.
core::HostTensor image_of_volume(const core::HostTensor& v, const std::vector<std::int64_t>& dims,
                                 const std::string& output) {
  const std::int64_t a = dims[0], b = dims[1], c = dims[2];
  if (c < 1 || c > 4)
    throw Error(ErrorCode::kUsage, output,
                "an array of shape (" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) +
                    ") is not an image: its last axis (the channels) must have 1 to 4 values (write .npy)");
  core::HostTensor img = core::HostTensor::uninitialized(core::Shape2{a, b}, c, v.precision());
  const std::int64_t plane = a * b;
  for (std::int64_t i = 0; i < plane; ++i)
    for (std::int64_t k = 0; k < c; ++k) img.set(k * plane + i, v.get(i * c + k));
  return img;
}

// Transform coefficients are not an image; the inverse's values may be.
void check_image_output(const R2rOptions& o, const std::string& output) {
  if (core::is_image_path(output) && !o.inverse)
    throw Error(ErrorCode::kUsage, output, "cannot write transform coefficients to an image (write .npy, .txt or raw)");
}

// One input through the transform: read, describe, plan and execute, write. A .npy to a .npy on its own (not in a
// batch) is streamed instead (app/streamed.hpp).
class R2rTask : public BatchTask {
 public:
  R2rTask(const GlobalOptions& g, const R2rOptions& o, std::string input, std::string output)
      : g_(g), o_(o), input_(std::move(input)), output_(std::move(output)) {}

  void open(core::StageTable& t) override {
    if (core::lower_extension(input_) != ".npy" || core::lower_extension(output_) != ".npy") return;
    core::Stopwatch sw;
    core::NpyLayout layout = core::read_npy_layout(input_);
    if (layout.fortran) return;  // read whole (read())
    info_ = {layout.shape, layout.float64};
    prec_ = precision_for(info_);
    req_ = {core::r2r_desc(spec_of(o_, input_, npy_layout(layout.shape)), core::parse_norm(o_.norm), 1, prec_),
            info_.npy_shape};
    // cpu-fftw plans some requests on one thread (3-D DCT-I/DST-I): the GPU then pays off from fewer values.
    host_only = one_shot_on_cpu(g_.backend, req_.desc.elements(), cpu::fftw_single_threaded(req_.desc) ? 1 : 0);
    streamed_ = std::make_unique<StreamedRun>(input_, std::move(layout), output_, req_.npy_shape, prec_, host_only);
    t.add("open", sw.elapsed_ms());
  }

  void read(core::StageTable& t) override {
    if (streamed_) return;  // the plan reads the file
    core::Stopwatch sw;
    info_ = input_info(o_, input_);
    prec_ = precision_for(info_);
    core::ReadOptions ro = read_options(g_, o_.in, prec_);
    ro.pool = inputs;
    ro.threads = read_threads;
    ro.volume = true;
    in_ = read_input(input_, ro);
    t.add("read", sw.elapsed_ms());
  }

  void transform(core::PlanCache& plans, core::StageTable& t) override {
    if (streamed_) {
      backend_ = &streamed_->run(g_, req_.desc, plans, read_options(g_, o_.in, prec_).allow_nonfinite, t);
      return;
    }
    req_ = describe(o_, input_, in_.tensor, info_, prec_);
    run_with_gpu_fallback(
        in_batch && g_.backend == "auto", input_,
        [&] {
          backend_ = &registry().select(req_.desc, g_.backend);
          core::Stopwatch sw;
          auto plan = plans.get(*backend_, req_.desc, active_device());
          t.add("plan", sw.elapsed_ms());
          if (out_.empty()) {
            sw.reset();
            out_ = core::take_tensor(outputs, in_.tensor.shape(), in_.tensor.channels(), prec_);
            t.add("output", sw.elapsed_ms());
          }
          const core::StageTimes st = plan->execute_host(in_.tensor.view(), out_.view());
          t.add("execute_e2e", st.e2e_ms);
        },
        [&](const std::string& line) { notes.push_back(line); });
    in_.tensor = core::HostTensor();
  }

  void write(core::StageTable& t) override {
    if (streamed_) {
      streamed_->commit(t);
    } else {
      core::Stopwatch sw;
      core::WriteOptions wo;
      wo.prec = prec_;
      wo.npy_shape = req_.npy_shape;
      wo.image_bit_depth = in_.kind == core::SourceKind::kImage16 ? 16 : 8;
      std::int64_t clamped = 0;
      try {
        if (core::is_image_path(output_) && req_.npy_shape.size() == 3)
          out_ = image_of_volume(out_, req_.npy_shape, output_);
        core::write_any(output_, out_, wo, &image_codec(), &clamped);
      } catch (const Error& e) {
        rethrow_with_subject(e, output_);
      }
      if (clamped > 0) notes.push_back(output_ + ": " + std::to_string(clamped) + " values clamped to the image range");
      t.add("write", sw.elapsed_ms());
    }
    if (g_.verbose)
      notes.push_back(std::string(backend_->name()) + ": " + req_.desc.to_string() + " on " +
                      backend_->runtime().device_name());
  }

  std::string json(const core::StageTable& t) const override {
    return result_json(o_, input_, output_, req_.desc, *backend_, t);
  }

 private:
  const GlobalOptions& g_;
  const R2rOptions& o_;
  std::string input_, output_;
  core::Dataset in_;
  InputInfo info_;
  core::Precision prec_ = core::Precision::kF32;
  Request req_;
  core::HostTensor out_;
  const core::Backend* backend_ = nullptr;
  std::unique_ptr<StreamedRun> streamed_;  // a .npy to a .npy on its own
  // Without -p the output keeps a float64 input's precision (and is f32 otherwise): the header tells, and the values
  // are read in that precision (reading an f32 file as f64 and converting took 14 s for 4 GiB).
  core::Precision precision_for(const InputInfo& info) const {
    if (!g_.precision.empty()) return precision_of(g_);
    return info.float64 ? core::Precision::kF64 : core::Precision::kF32;
  }
};

int run_r2r(const GlobalOptions& g, const R2rOptions& o) {
  const core::Stopwatch total;
  core::parse_norm(o.norm);  // usage errors before any file is touched
  check_raw_options(o.in, o.inputs);
  const BatchTargets targets = resolve_targets(o.inputs, o.output, o.batch.format);
  for (const auto& out : targets.outputs) check_image_output(o, out);
  if (distributed_mode(o.distributed, o.inputs.size(), targets.dir)) {
    const std::string& input = o.inputs.front();
    DistributedRun run{o.command,
                       input,
                       o.output,
                       o.batch.report,
                       [&](const std::vector<std::int64_t>& shape) {
                         ArrayLayout l;
                         l.rank = static_cast<int>(shape.size());
                         std::copy(shape.begin(), shape.end(), l.dims.begin());
                         return spec_of(o, input, l);
                       },
                       core::parse_norm(o.norm),
                       true};
    return run_distributed(g, run);
  }
  if (!targets.dir) {
    configure_runtimes(g.device, g.threads);
    core::check_output_path(o.output, o.inputs);
    R2rTask task(g, o, o.inputs.front(), o.output);
    return run_single(g, task, o.batch.report, o.inputs.front(), o.output, total);
  }
  BatchRun run{o.command,
               o.inputs,
               targets.outputs,
               o.output,
               o.batch,
               true,
               [&](const std::string& in, const std::string& out) -> std::unique_ptr<BatchTask> {
                 return std::make_unique<R2rTask>(g, o, in, out);
               }};
  return run_batch(g, run);
}

void add_one(CLI::App& app, const char* name, const char* help, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<R2rOptions>();
  o->command = name;
  CLI::App* c = app.add_subcommand(name, help);
  c->add_option("inputs", o->inputs,
                "input files (.npy of 1 to 3 dimensions, .txt .csv .raw .f32 .f64 or images); several: batch mode, "
                "-o names a directory")
      ->required();
  c->add_option("-o,--output", o->output,
                "output file, or a directory receiving DIR/<input stem>.<--format> (with several inputs, a name "
                "ending in '/', or an existing directory not named like a file; created if missing)")
      ->required();
  if (o->command == "r2r")
    c->add_option("--kinds", o->kinds, "a kind per transformed axis: dct1..dct4, dst1..dst4 (comma list)")->required();
  else
    c->add_option("--type", o->type, "1|2|3|4 (scipy's type; default 2, as scipy)")->check(CLI::Range(1, 4));
  c->add_option("--axes", o->axes, "comma list of axes, negative as numpy (default every axis; (0,1) of an image)");
  c->add_option("--norm", o->norm, "backward|ortho|forward (scipy's norms; none = backward; default backward)");
  c->add_flag("--inverse", o->inverse, "scipy's idctn/idstn: the inverse of each axis' kind in the same norm");
  add_distributed_flag(c, o->distributed);
  add_input_options(c, o->in);
  add_batch_options(c, o->batch);
  c->callback([o, &g, &action] { action = [o, &g] { return run_r2r(g, *o); }; });
}

}  // namespace

void add_r2r(CLI::App& app, const GlobalOptions& g, Action& action) {
  add_one(app, "dct", "DCT of type 1-4 along --axes (scipy.fft.dctn / idctn)", g, action);
  add_one(app, "dst", "DST of type 1-4 along --axes (scipy.fft.dstn / idstn)", g, action);
  add_one(app, "r2r", "a real-to-real kind per axis (FFTW's r2r kinds: dct1..dct4, dst1..dst4)", g, action);
}

}  // namespace dct::app
