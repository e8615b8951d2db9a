// compress: parse into a core::CompressRequest, pick a Compressor (registry order), run it per input and
// quality, write each output atomically, report PSNR / rate / nonzero fraction / entropy / per-stage timing.
// Several entries (inputs x qualities) run on `--jobs` threads (app/pipeline.hpp, inline stages): each decodes an
// input, compresses each of its qualities, encodes, commits and measures them, then takes the next input; a failed
// entry is one line on stderr and the others go on; the report keeps input order. Under mpirun or srun a batch is
// spread over the job's processes (app/dispatch.hpp): each runs the pipeline on the inputs rank 0 hands it and sends
// its entries to rank 0, which alone prints and writes the report. A .jpg/.jpeg output in jpeg mode is a JFIF file of
// the quantized coefficients (app/jpeg_file.cpp), made by the chosen compressor (CPU or GPU: the same coefficients);
// its PSNR is that of libjpeg-turbo's float decode of the file, and the report gains the file's bytes and bits per
// pixel.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/dispatch.hpp"
#include "app/image_decode.hpp"
#include "app/jpeg_file.hpp"
#include "app/options.hpp"
#include "app/pipeline.hpp"
#include "app/progress.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/compress.hpp"
#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/metrics.hpp"
#include "core/tensor_pool.hpp"

namespace dct::app {
namespace {

namespace fs = std::filesystem;

struct CompressOptions {
  std::vector<std::string> inputs;
  std::string output;  // a file (one input) or a directory (batch)
  std::string mode = "jpeg";
  std::string quality = "75";    // Q, START:STOP:STEP or Q1,Q2,...
  double threshold = -1;         // < 0: not given
  double keep = -1;              // < 0: not given
  std::string report;            // --report FILE.json
  int jobs = 0;                  // 0: all cores
  bool optimize = false;         // --optimize: optimized Huffman tables in a .jpg output
  std::string format;            // --format jpg|png|same in batch mode; empty: by mode
  std::string sampling = "444";  // --sampling 444|420 (jpeg mode)
  bool progressive = false;      // --progressive: a progressive .jpg output
  bool quality_given = false, threshold_given = false, keep_given = false;
};

// One report entry: an (input, quality) pair.
struct Item {
  std::string input, output;
  int quality = 0;
  std::optional<std::string> error;  // the one-line message
  ErrorCode code = ErrorCode::kInput;
  double psnr = 0, mse = 0, nonzero_fraction = 0, entropy_bpp = 0;
  double blockiness = 0, blockiness_input = 0;  // core::blockiness of the output and of the input
  std::int64_t bytes = -1;                      // size of the compressed file written (-1: none)
  double bpp = 0;                               // 8 * bytes / pixels
  std::string backend;
  core::StageTable times;
  std::string note;  // a line for stderr (unless --quiet) beside the entry's figures; empty: none
};

// --mode none: read and write only (the output is the input re-encoded), no transform: the baseline for a
// batch's images/s (decode + encode cost). Handled here, not a core::CompressMode.
bool skip_transform(const CompressOptions& o) { return o.mode == "none"; }

int parse_int(const std::string& s, const std::string& whole) {
  int v = 0;
  const char* end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || p != end)
    throw Error(ErrorCode::kUsage, "--quality",
                "'" + whole + "' is not a quality (Q), a range (START:STOP:STEP) or a list (Q1,Q2,...)");
  return v;
}

// --quality: one quality, an inclusive range START:STOP:STEP, or a list Q1,Q2,... (each 1..100, no repeats).
std::vector<int> parse_qualities(const std::string& text) {
  std::string s;
  for (char c : text)
    if (c != ' ') s += c;
  std::vector<int> q;
  if (s.find(':') != std::string::npos) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : s + ":") {
      if (c == ':') {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (f.size() != 3)
      throw Error(ErrorCode::kUsage, "--quality", "a range is START:STOP:STEP (e.g. 10:95:5), not '" + text + "'");
    const int a = parse_int(f[0], text), b = parse_int(f[1], text), step = parse_int(f[2], text);
    if (step < 1 || a > b)
      throw Error(ErrorCode::kUsage, "--quality", "range '" + text + "' needs START <= STOP and a STEP of at least 1");
    for (int v = a; v <= b; v += step) q.push_back(v);
  } else {
    std::string cur;
    for (char c : s + ",") {
      if (c == ',') {
        q.push_back(parse_int(cur, text));
        cur.clear();
      } else {
        cur += c;
      }
    }
  }
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (q[i] < 1 || q[i] > 100)
      throw Error(ErrorCode::kUsage, "--quality", "must be 1..100, not " + std::to_string(q[i]));
    for (std::size_t k = 0; k < i; ++k)
      if (q[k] == q[i]) throw Error(ErrorCode::kUsage, "--quality", std::to_string(q[i]) + " is given twice");
  }
  return q;
}

// Mode-specific options need their mode: a value that would be ignored is a usage error, not a silent default.
void check_mode_options(const CompressOptions& o) {
  const std::string m = o.mode;
  auto refuse = [&](const std::string& opt, const std::string& modes) {
    throw Error(ErrorCode::kUsage, opt, "applies to " + modes + " only, and the mode is " + m);
  };
  if (o.threshold_given && m != "threshold") refuse("--threshold", "--mode threshold");
  if (o.keep_given && m != "keep") refuse("--keep", "--mode keep");
  // none ignores --quality, so that a baseline command line differs from the real one only by its mode.
  if (o.quality_given && (m == "threshold" || m == "keep")) refuse("--quality", "--mode jpeg and lot");
  if (o.optimize && m != "jpeg") refuse("--optimize", "--mode jpeg with .jpg outputs");
  if (o.progressive && m != "jpeg") refuse("--progressive", "--mode jpeg with .jpg outputs");
}

core::CompressRequest request_of(const GlobalOptions& g, const CompressOptions& o) {
  core::CompressRequest r;
  if (!skip_transform(o)) r.mode = core::parse_compress_mode(o.mode);
  check_mode_options(o);
  r.sampling = core::parse_chroma_sampling(o.sampling);
  r.progressive = o.progressive;
  r.prec = precision_of(g);
  r.backend = g.backend;
  if (r.mode == core::CompressMode::kThreshold) {
    if (o.threshold < 0) throw Error(ErrorCode::kUsage, "--threshold", "threshold mode needs --threshold E (E >= 0)");
    r.threshold = o.threshold;
  }
  if (r.mode == core::CompressMode::kKeep) {
    if (o.keep < 0 || o.keep > 1) throw Error(ErrorCode::kUsage, "--keep", "keep mode needs --keep F with 0 <= F <= 1");
    r.keep = o.keep;
  }
  return r;
}

// The GPU's .jpg coefficient path, and the entries per worker from which -b auto warms it up for a batch: the device's
// start (100-300 ms) is then shorter than the batch's first entries on the CPU (docs/decisions.md).
constexpr const char* kGpuJpeg = "cuda-jpeg-fused";
constexpr std::int64_t kGpuWarmEntries = 8;

// Blocks for a batch's decoded inputs (Job::images): page-locked (the CUDA runtime's host memory) once `pinned` is set,
// so that the GPU's coefficient path copies an input to the device straight from its block; ordinary memory before.
core::TensorPool::Allocate input_blocks(std::shared_ptr<std::atomic<bool>> pinned) {
  return [pinned](std::size_t bytes) {
    if (pinned->load())
      if (const core::Runtime* rt = registry().transfer_runtime("auto"); rt != nullptr) return rt->allocate_host(bytes);
    return core::allocate_heap(bytes);
  };
}

// The compressor for `r` under --backend `name`: under auto the first that supports the request here; a compressor's
// own name forces it; any other name is a transform backend of the CPU compressor.
const core::Compressor& choose(const std::string& name, const core::CompressRequest& r, const core::Dataset& in) {
  const auto& list = compressors();
  if (const core::Compressor* c = find_compressor(name)) {
    if (core::Support s = c->supports(r, in); !s)
      throw Error(ErrorCode::kUnsupported, std::string(c->name()), s.reason);
    return *c;
  }
  if (name == "auto")
    for (const core::Compressor* c : list)
      if (c->supports(r, in)) return *c;
  return *list.back();
}

// The first `n` channels of `t`, as f32.
core::HostTensor first_channels(const core::HostTensor& t, std::int64_t n) {
  const core::HostTensor f = t.to(core::Precision::kF32);
  if (n >= f.channels()) return f.clone();
  core::HostTensor out(f.shape(), n, core::Precision::kF32);
  std::copy(f.data<float>(), f.data<float>() + f.shape().count() * n, out.data<float>());
  return out;
}

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Everything one command compresses: the request, the qualities, each input's outputs (one per quality).
struct Job {
  const GlobalOptions& g;
  const CompressOptions& o;
  core::CompressRequest r;
  bool skip = false;
  std::vector<int> qualities;
  std::vector<std::vector<std::string>> outputs;  // [input][quality]
  bool to_dir = false;                            // -o names a directory
  // Whether entries are shown (--report, --json): blockiness is computed only then (PSNR always, for the text
  // line and the summary).
  bool details() const { return !o.report.empty() || g.json; }
  // --report's file, created (as a temporary) before any work, committed after the last entry.
  std::shared_ptr<core::AtomicFile> report{};
  // The inputs' decoded images: blocks reused from input to input (no page faults per image).
  std::shared_ptr<core::TensorPool> images = std::make_shared<core::TensorPool>(core::allocate_heap);
  // The inputs, resolved once, that each entry's outputs are checked against as it starts.
  std::shared_ptr<const core::InputPaths> input_paths{};
  // Batch mode: GPU faults fall back to the CPU (run_guarded), with notes through `notice` (the progress bar's).
  bool batch = false;
  std::function<void(const std::string&)> notice{};
  // -b auto with .jpg outputs in a large batch: set once the GPU compressor's device is ready (its context made on
  // another thread, Compressor::warm_up); entries go to it from then on, to the CPU compressor before. Null: the CPU's.
  std::shared_ptr<std::atomic<bool>> gpu_ready{};
  // Whether the entries without a report go to the GPU's coefficient path (-b cuda-jpeg-fused, or auto once the
  // device is ready).
  bool gpu_jpeg() const {
    return !details() && (r.backend == kGpuJpeg || (r.backend == "auto" && gpu_ready && gpu_ready->load()));
  }
  std::int64_t inputs() const { return static_cast<std::int64_t>(o.inputs.size()); }
  std::int64_t per_input() const { return static_cast<std::int64_t>(qualities.size()); }
  bool jpg(std::int64_t i, std::int64_t k) const {
    return !skip && r.mode == core::CompressMode::kJpeg && is_jpeg_path(outputs[i][k]);
  }
  // Entry (i, k) runs a compressor's jpeg coefficient path (the CPU's f32 block loop, cuda-jpeg-fused's coefficient
  // kernels) on the decoded 8-bit samples as they are (no planes, Dataset::samples8) and needs no reconstruction
  // image: without a report or --json metrics, or with them on the CPU compressor, which then measures the
  // reconstruction's blockiness in its loop (CompressRequest::blockiness; the GPU's path has no reconstruction).
  bool direct(std::int64_t i, std::int64_t k) const {
    return jpg(i, k) && r.prec == core::Precision::kF32 &&
           (r.backend == "auto" || r.backend == "cpu" || r.backend == "cpu-8x8-flmad" ||
            (r.backend == kGpuJpeg && !details()));
  }
};

// An input as read (stage 1), shared by the entries of its qualities.
struct Source {
  std::int64_t index = 0;
  std::string error;  // set when reading failed (the message, one line)
  ErrorCode code = ErrorCode::kInput;
  core::Dataset data;
  Clock::time_point start, read_end;
  double read_ms = 0;
  // Shared by the qualities' metrics, made by the first that needs them.
  std::mutex mu;
  std::optional<double> blockiness_input;
  // The coded channels as f32 (.jpg outputs' PSNR reference): `data` itself when it has no others.
  std::optional<core::HostTensor> colour_copy;
  const core::HostTensor* colour = nullptr;
};

// An entry compressed (stage 2), waiting for its output to be written.
struct Coded {
  std::shared_ptr<Source> src;
  std::int64_t k = 0;
  std::string error;
  ErrorCode code = ErrorCode::kInput;
  core::CompressResult res;
  core::StageTable times;  // queue and the compressor's stages
  Clock::time_point end;
};

std::string message_of(const Error& e, const std::string& subject) {
  return e.subject().empty() ? Error(e.code(), subject, e.what(), e.fault()).message() : e.message();
}

// Stage 1: the outputs checked against the inputs, the input decoded.
std::shared_ptr<Source> read_source(const Job& job, std::int64_t i) {
  auto s = std::make_shared<Source>();
  s->index = i;
  s->start = Clock::now();
  const std::string& input = job.o.inputs[i];
  try {
    for (const auto& out : job.outputs[i]) job.input_paths->check_output(out);
    core::ReadOptions ro = read_options(job.g, InputOptions{}, core::Precision::kF32);
    ro.pool = job.images.get();
    ro.samples8 = ro.prec == core::Precision::kF32;
    for (std::size_t k = 0; k < job.outputs[i].size(); ++k) ro.samples8 = ro.samples8 && job.direct(i, std::int64_t(k));
    // A JPEG input that goes to the GPU's coefficient path is read as its coefficients (the device decodes them).
    ro.jpeg_coefficients = ro.samples8 && job.gpu_jpeg();
    s->data = read_input(input, ro);
  } catch (const Error& e) {
    s->error = message_of(e, input);
    s->code = e.code();
  } catch (const std::bad_alloc&) {
    s->error = "dctool: error: " + input + ": out of host memory";
  }
  s->read_end = Clock::now();
  s->read_ms = ms_between(s->start, s->read_end);
  return s;
}

// Batch mode under -b auto: GPU faults fall back to the CPU (run_with_gpu_fallback, README "GPU faults").
core::CompressResult run_guarded(const Job& job, const std::string& input,
                                 const std::function<core::CompressResult()>& run) {
  core::CompressResult res;
  run_with_gpu_fallback(
      job.batch && job.r.backend == "auto", input, [&] { res = run(); },
      [&](const std::string& line) {
        if (job.notice && !job.g.quiet) job.notice("dctool: note: " + printable(line));
      });
  return res;
}

// Stage 2: one quality of a read input through the compressor (the CPU one for a .jpg output: only it returns
// the quantized coefficients).
Coded compress_entry(const Job& job, const std::shared_ptr<Source>& src, std::int64_t k) {
  Coded c;
  c.src = src;
  c.k = k;
  const Clock::time_point t0 = Clock::now();
  c.times.add("queue", ms_between(src->read_end, t0));
  if (!src->error.empty()) {
    c.end = Clock::now();
    return c;
  }
  const std::string& input = job.o.inputs[src->index];
  try {
    if (!job.direct(src->index, k)) {
      std::lock_guard<std::mutex> lock(src->mu);
      ensure_planes(src->data, job.images.get());
    }
    core::CompressRequest r = job.r;
    r.quality = job.qualities[k];
    // A compressor's name (-b cuda-jpeg-fused, -b cpu) picks the compressor, not a transform backend: the CPU
    // compressor's transforms then follow auto.
    if (find_compressor(r.backend) != nullptr) r.backend = "auto";
    if (job.skip) {
      c.res.image = src->data.tensor.clone();
      c.res.backend = "none";
    } else if (job.jpg(src->index, k)) {
      r.keep_coefficients = true;
      // The report's blockiness of the decoded image: measured by the CPU compressor's loop on the direct path, else
      // of the reconstruction image (or of the decoded file).
      r.keep_image = job.details() && !job.direct(src->index, k);
      r.blockiness = job.details() && job.direct(src->index, k);
      // Every compressor returns the same coefficients and error (the same file, the same PSNR). auto takes the GPU's
      // coefficient path once its device is ready in a large batch (Job::gpu_ready; docs/decisions.md §6) where no
      // report needs the reconstruction image (the GPU's has none: the file would be decoded), else the CPU compressor.
      // auto's pick is made for each attempt: a retry after a device-memory fault runs with the GPU set aside
      // (run_with_gpu_fallback), and then on the CPU compressor.
      c.res = run_guarded(job, input, [&] {
        std::string name = job.r.backend;
        if (name == "auto") {
          const core::Compressor* gpu =
              job.gpu_jpeg() && job.direct(src->index, k) ? find_compressor(kGpuJpeg) : nullptr;
          name = gpu != nullptr && gpu->supports(r, src->data) ? kGpuJpeg : "cpu";
        }
        const core::Compressor& comp = choose(name, r, src->data);
        if (!comp.on_gpu() && src->data.jpeg) {  // read for the GPU, run on the CPU: libjpeg-turbo decodes it
          std::lock_guard<std::mutex> lock(src->mu);
          ensure_samples8(src->data);
        }
        core::CompressResult res = comp.run(r, src->data);
        res.backend += " (" + std::string(comp.name()) + " compressor: .jpg output)";
        return res;
      });
    } else {
      c.res = run_guarded(job, input, [&] { return choose(job.r.backend, r, src->data).run(r, src->data); });
    }
  } catch (const Error& e) {
    c.error = message_of(e, input);
    c.code = e.code();
  } catch (const std::bad_alloc&) {
    c.error = "dctool: error: " + input + ": out of host memory";
  }
  c.end = Clock::now();
  double named = 0;
  for (const auto& row : c.res.times.rows()) {
    c.times.add(row.stage, row.ms);
    named += row.ms;
  }
  // What the compressor did outside its named stages (conversions, checks, plan look-up).
  if (c.error.empty()) c.times.add("other", std::max(0.0, ms_between(t0, c.end) - named));
  return c;
}

// Stage 3: the output encoded and committed, then the entry's metrics.
Item write_entry(const Job& job, Coded&& c) {
  Source& src = *c.src;
  const std::int64_t i = src.index, k = c.k;
  Item it;
  it.input = job.o.inputs[i];
  it.output = job.outputs[i][k];
  it.quality = job.qualities[k];
  const Clock::time_point t0 = Clock::now();
  // Each stage ends where the next begins (one clock reading per boundary, the total read at the last one), so that
  // the stages add up to the total even when this thread is preempted between them.
  Clock::time_point mark = t0;
  const auto lap = [&](const char* stage) {
    const Clock::time_point now = Clock::now();
    it.times.add(stage, ms_between(mark, now));
    mark = now;
  };
  it.times.add("read", src.read_ms);
  for (const auto& row : c.times.rows()) it.times.add(row.stage, row.ms);
  it.times.add("queue_write", ms_between(c.end, t0));
  if (!src.error.empty() || !c.error.empty()) {
    it.error = !src.error.empty() ? src.error : c.error;
    it.code = !src.error.empty() ? src.code : c.code;
    return it;
  }
  const core::HostTensor& in = src.data.tensor;  // empty while only the 8-bit samples were needed (Job::direct)
  const std::int64_t h = src.data.rows(), w = src.data.cols();
  try {
    if (job.jpg(i, k)) {
      const std::int64_t np = core::coded_planes(src.data.channels());
      if (np < src.data.channels() && k == 0)
        it.note = "dctool: note: " + printable(it.output) + ": the alpha channel is not stored in the .jpg";
      const std::vector<unsigned char> file =
          encode_jpeg(c.res.quantized, h, w, job.o.optimize, it.output, job.r.progressive);
      lap("encode");
      try {
        core::AtomicFile f(it.output);
        f.write(file.data(), file.size());
        f.commit();
      } catch (const Error& e) {
        rethrow_with_subject(e, it.output);
      }
      lap("write");
      // The decoder's image: the compressor's own float-IDCT reconstruction where it made one (4:4:4, gray: its
      // squared error summed in its loop), else libjpeg-turbo's float decode of the file.
      const bool measured = std::isfinite(c.res.blockiness);  // by the compressor's loop
      const bool own = std::isfinite(c.res.mse) && (!job.details() || !c.res.image.empty() || measured);
      const core::HostTensor decoded = own ? core::HostTensor() : decode_jpeg(file, it.output);
      if (!own) lap("decode");
      // The input's blockiness from its 8-bit samples where it has them (no planes needed; the same value).
      const std::shared_ptr<const core::Samples8> s8 = src.data.samples8;
      const bool need_colour = !own || (job.details() && !s8);
      {
        std::lock_guard<std::mutex> lock(src.mu);
        if (need_colour) ensure_planes(src.data, job.images.get());
        if (src.colour == nullptr && need_colour) {
          if (np < in.channels() || in.precision() != core::Precision::kF32) src.colour_copy = first_channels(in, np);
          src.colour = src.colour_copy ? &*src.colour_copy : &in;
        }
        if (!src.blockiness_input && job.details())
          src.blockiness_input =
              s8 ? core::blockiness8(s8->data(), s8->rows, s8->cols, s8->channels) : core::blockiness(*src.colour);
      }
      it.bytes = static_cast<std::int64_t>(file.size());
      it.bpp = 8.0 * double(it.bytes) / double(h * w);
      it.mse = own ? c.res.mse : core::mse(*src.colour, decoded);
      it.psnr = core::psnr_db(it.mse, 255.0);
      if (job.details())
        it.blockiness = measured                       ? c.res.blockiness
                        : !own                         ? core::blockiness(decoded)
                        : np == c.res.image.channels() ? core::blockiness(c.res.image)  // no copy
                                                       : core::blockiness(first_channels(c.res.image, np));
    } else {
      core::WriteOptions wo;
      wo.image_bit_depth = src.data.kind == core::SourceKind::kImage16 ? 16 : 8;
      try {
        core::write_any(it.output, c.res.image, wo, &image_codec());
      } catch (const Error& e) {
        rethrow_with_subject(e, it.output);
      }
      lap("write");
      {
        std::lock_guard<std::mutex> lock(src.mu);
        if (!src.blockiness_input && job.details()) src.blockiness_input = core::blockiness(in);
      }
      const double peak = src.data.kind == core::SourceKind::kImage16 ? 65535.0 : 255.0;
      if (is_jpeg_path(it.output) && src.data.kind != core::SourceKind::kImage16) {
        // --mode none to a .jpg: the file is lossy, so its rate and PSNR are those of the file (colour only, as in
        // jpeg mode), not of the image handed to the encoder.
        const std::vector<unsigned char> file = read_file_bytes(it.output);
        const core::HostTensor decoded = decode_jpeg(file, it.output);
        lap("decode");
        it.bytes = static_cast<std::int64_t>(file.size());
        it.bpp = 8.0 * double(it.bytes) / double(h * w);
        const std::int64_t np = core::coded_planes(in.channels());
        it.mse = np < in.channels() || in.precision() != core::Precision::kF32
                     ? core::mse(first_channels(in, np), decoded)
                     : core::mse(in, decoded);
      } else {
        it.mse = core::mse(in, c.res.image);
      }
      it.psnr = core::psnr_db(it.mse, peak);
      if (job.details()) it.blockiness = core::blockiness(c.res.image);
    }
  } catch (const Error& e) {
    it.error = message_of(e, it.output);
    it.code = e.code();
    return it;
  } catch (const std::bad_alloc&) {
    it.error = "dctool: error: " + it.output + ": out of host memory";
    return it;
  }
  it.blockiness_input = src.blockiness_input.value_or(0.0);
  it.nonzero_fraction = c.res.nonzero_fraction();
  it.entropy_bpp = c.res.entropy_bpp(h * w);
  it.backend = c.res.backend;
  lap("metrics");
  it.times.add("total", ms_between(src.start, mark));
  return it;
}

std::string param_json(const Job& job, const Item& it) {
  switch (job.r.mode) {
    case core::CompressMode::kJpeg:
    case core::CompressMode::kLot:
      return "\"quality\": " + std::to_string(it.quality);
    case core::CompressMode::kThreshold:
      return "\"threshold\": " + json_number(job.r.threshold);
    default:
      return "\"keep\": " + json_number(job.r.keep);
  }
}

std::string item_json(const Job& job, const Item& it) {
  std::string j = "{\"input\": " + json_escape(it.input) + ", \"output\": " + json_escape(it.output) + ", \"mode\": " +
                  (job.skip ? std::string("\"none\"")
                            : json_escape(std::string(core::to_string(job.r.mode))) + ", " + param_json(job, it));
  if (it.error) {
    // The message without its "dctool: error: " prefix, as before.
    std::string m = *it.error;
    if (m.rfind("dctool: error: ", 0) == 0) m = m.substr(15);
    return j + ", \"error\": " + json_escape(m) + ", \"timing_ms\": " + json_timing(it.times) + "}";
  }
  j += ", \"psnr_db\": " + json_number(it.psnr) + ", \"mse\": " + json_number(it.mse) +
       ", \"nonzero_fraction\": " + json_number(it.nonzero_fraction) +
       ", \"entropy_bpp\": " + json_number(it.entropy_bpp) +
       (it.bytes >= 0 ? ", \"bytes\": " + std::to_string(it.bytes) + ", \"bpp\": " + json_number(it.bpp) : "") +
       ", \"blockiness\": " + json_number(it.blockiness) +
       ", \"blockiness_input\": " + json_number(it.blockiness_input) + ", \"backend\": " + json_escape(it.backend) +
       ", \"timing_ms\": " + json_timing(it.times);
  return j + "}";
}

std::string item_text(const Item& it) {
  return "PSNR " + format_number_fixed(it.psnr, 2) + " dB  " +
         (it.bytes >= 0 ? format_number_fixed(it.bpp, 3) + " bpp (" + std::to_string(it.bytes) + " bytes)  " : "") +
         "MSE " + format_number(it.mse, 4) + "  nonzero " + format_number(it.nonzero_fraction, 4) + "  entropy " +
         format_number(it.entropy_bpp, 4) + " bpp  backend " + it.backend + "  " +
         format_number_fixed(it.times.rows().back().ms, 1) + " ms";
}

void commit_report(const Job& job, const std::string& text) {
  if (!job.report) return;
  job.report->write(text.data(), text.size());
  job.report->commit();
}

// --report names neither an input nor an output (exit 2).
void check_report(const Job& job) {
  if (job.o.report.empty()) return;
  std::error_code ec;
  const fs::path rep = fs::weakly_canonical(job.o.report, ec);
  auto same = [&](const std::string& p) {
    std::error_code e2;
    return !ec && fs::weakly_canonical(p, e2) == rep && !e2;
  };
  for (const auto& in : job.o.inputs)
    if (same(in)) throw Error(ErrorCode::kUsage, "--report", job.o.report + " is an input");
  for (const auto& per_input : job.outputs)
    for (const auto& out : per_input)
      if (same(out)) throw Error(ErrorCode::kUsage, "--report", job.o.report + " is also an output");
}

// The report's directory takes a file: the temporary is made before any work, so that a report that cannot be
// written fails before any image is.
void open_report(Job& job) {
  if (!job.o.report.empty()) job.report = std::make_shared<core::AtomicFile>(job.o.report);
}

// ---- output names -------------------------------------------------------------------------------------------
// -o DIR (several inputs, an existing directory, or a name ending in '/'): DIR/<stem>[-qQQ].<format>;
// -o FILE (one input): FILE, or FILE's stem with -qQQ before its extension for each of several qualities.
struct Outputs {
  bool dir = false;
  std::vector<std::vector<std::string>> names;  // [input][quality]
};

std::string quality_suffix(const std::vector<int>& q, std::size_t k) {
  if (q.size() < 2) return "";
  char b[16];
  std::snprintf(b, sizeof b, "-q%02d", q[k]);
  return b;
}

Outputs outputs_of(const CompressOptions& o, const std::vector<int>& qualities) {
  Outputs out;
  std::error_code ec;
  const bool exists = fs::exists(o.output, ec);
  const bool is_dir = fs::is_directory(o.output, ec);
  const bool batch = o.inputs.size() > 1;
  out.dir = batch || is_dir || (!o.output.empty() && o.output.back() == '/');
  if (out.dir && exists && !is_dir)
    throw Error(ErrorCode::kUsage, o.output,
                "is a file: several inputs need -o to name a directory (one that does not exist is created)");
  const std::string format = o.format.empty() ? (o.mode == "jpeg" ? "jpg" : "png") : o.format;
  if (format == "jpg" && o.mode != "jpeg" && o.mode != "none")
    throw Error(ErrorCode::kUsage, "--format",
                "jpg needs --mode jpeg (" + o.mode + " mode's coefficients are not JPEG's); use png");
  if (!out.dir && !o.format.empty()) {
    const std::string ext = core::lower_extension(o.output);
    const bool same = format == "jpg" ? is_jpeg_path(o.output) : ext == "." + format;
    if (!same)
      throw Error(ErrorCode::kUsage, "--format",
                  "names the format of outputs in a directory (-o DIR); " + o.output +
                      " is a file, whose extension is its format");
  }
  for (const auto& in : o.inputs) {
    std::vector<std::string> names;
    for (std::size_t k = 0; k < qualities.size(); ++k) {
      const std::string suffix = quality_suffix(qualities, k);
      if (out.dir) {
        std::string ext = format == "same" ? fs::path(in).extension().string() : "." + format;
        names.push_back((fs::path(o.output) / (fs::path(in).stem().string() + suffix + ext)).string());
      } else {
        const fs::path p(o.output);
        names.push_back(suffix.empty()
                            ? o.output
                            : (p.parent_path() / (p.stem().string() + suffix + p.extension().string())).string());
      }
    }
    out.names.push_back(std::move(names));
  }
  return out;
}

// Whether the colliding outputs would be told apart by the inputs' own extensions (x.png and x.jpg).
bool format_same_helps(const Job& job) {
  if (job.o.format == "same") return false;
  std::map<std::string, std::string> ext_of;  // stem -> first extension
  for (const auto& in : job.o.inputs) {
    const fs::path p(in);
    const auto [at, fresh] = ext_of.emplace(p.stem().string(), p.extension().string());
    if (!fresh && at->second == p.extension().string()) return false;
  }
  return true;
}

// Refuses, before any work, outputs that cannot be written as asked (a .jpg outside jpeg mode, a format the
// image writer lacks, --optimize without .jpg outputs) and two entries that would write the same file.
void check_outputs(const Job& job) {
  const std::int64_t n = job.inputs(), nq = job.per_input();
  bool all_jpg = true;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < nq; ++k) {
      const std::string& out = job.outputs[i][k];
      const bool jpg = is_jpeg_path(out);
      all_jpg = all_jpg && jpg;
      if (jpg && !job.skip && job.r.mode != core::CompressMode::kJpeg)
        throw Error(ErrorCode::kUsage, out,
                    "a .jpg/.jpeg output needs --mode jpeg (" + std::string(core::to_string(job.r.mode)) +
                        " mode's coefficients are not JPEG's); write .png for its reconstruction");
      if (!jpg && !image_codec().handles_write(out))
        throw Error(ErrorCode::kUsage, out,
                    "cannot write images of type '" + core::lower_extension(out) + "' (expected .png .bmp .tga .jpg)");
    }
  if (job.o.optimize && (job.skip || !all_jpg))
    throw Error(ErrorCode::kUsage, "--optimize", "needs --mode jpeg and .jpg/.jpeg outputs");
  if (job.o.progressive && (job.skip || !all_jpg))
    throw Error(ErrorCode::kUsage, "--progressive", "needs --mode jpeg and .jpg/.jpeg outputs");
  std::map<std::string, std::int64_t> seen;  // output -> input index
  std::int64_t collisions = 0;
  std::string first;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < nq; ++k) {
      const std::string key = fs::path(job.outputs[i][k]).lexically_normal().string();
      const auto [at, fresh] = seen.emplace(key, i);
      if (fresh) continue;
      if (collisions++ == 0)
        first = job.o.inputs[at->second] + " and " + job.o.inputs[i] + " both give " + job.outputs[i][k];
    }
  if (collisions > 0)
    throw Error(ErrorCode::kUsage, job.o.output,
                "outputs collide: " + first +
                    (collisions > 1 ? " (and " + std::to_string(collisions - 1) + " more)" : std::string()) +
                    (format_same_helps(job) ? "; --format same keeps their extensions apart"
                                            : "; rename the inputs apart or compress them separately"));
}

// ---- running ----------------------------------------------------------------------------------------------
int run_single(const Job& job) {
  core::Stopwatch total;
  Item it = write_entry(job, compress_entry(job, read_source(job, 0), 0));
  if (!it.note.empty() && !job.g.quiet) std::fprintf(stderr, "%s\n", it.note.c_str());
  if (it.error) {
    std::fprintf(stderr, "%s\n", it.error->c_str());
    return static_cast<int>(it.code);
  }
  // One entry on its own has no queues.
  core::StageTable t;
  for (const auto& row : it.times.rows())
    if (row.stage != "queue" && row.stage != "queue_write")
      t.add(row.stage, row.stage == "total" ? total.elapsed_ms() : row.ms);
  it.times = t;
  commit_report(job, item_json(job, it) + "\n");
  if (job.g.json)
    std::printf("%s\n", item_json(job, it).c_str());
  else if (!job.g.quiet)
    std::printf("%s\n", item_text(it).c_str());
  print_timing(job.g, it.times);
  return 0;
}

// ---- a distributed batch's entries on their way to rank 0 (app/dispatch.hpp) ------------------------------------
// What rank 0 needs of an entry done elsewhere: which quality, whether its input was unreadable, and the Item's
// figures (the input and output names it has itself).
std::string pack_entry(std::int64_t k, bool unread, const Item& it) {
  dispatch::PayloadWriter w;
  w.i64(k).i64(unread ? 1 : 0).i64(it.error ? 1 : 0).str(it.error.value_or("")).i64(static_cast<int>(it.code));
  w.f64(it.psnr).f64(it.mse).f64(it.nonzero_fraction).f64(it.entropy_bpp).f64(it.blockiness).f64(it.blockiness_input);
  w.i64(it.bytes).f64(it.bpp).str(it.backend).str(it.note).i64(static_cast<std::int64_t>(it.times.rows().size()));
  for (const auto& row : it.times.rows()) w.str(row.stage).f64(row.ms);
  return w.take();
}

struct Unpacked {
  std::int64_t k = 0;
  bool unread = false;
  Item item;
};

Unpacked unpack_entry(const Job& job, std::int64_t i, const std::string& payload) {
  dispatch::PayloadReader r(payload);
  Unpacked u;
  u.k = r.i64();
  if (i < 0 || i >= job.inputs() || u.k < 0 || u.k >= job.per_input())
    throw Error(ErrorCode::kRuntime, "internal: a batch entry names no entry of this batch");
  u.unread = r.i64() != 0;
  Item& it = u.item;
  it.input = job.o.inputs[i];
  it.output = job.outputs[i][u.k];
  it.quality = job.qualities[u.k];
  const bool failed = r.i64() != 0;
  std::string error = r.str();
  if (failed) it.error = std::move(error);
  it.code = static_cast<ErrorCode>(r.i64());
  it.psnr = r.f64();
  it.mse = r.f64();
  it.nonzero_fraction = r.f64();
  it.entropy_bpp = r.f64();
  it.blockiness = r.f64();
  it.blockiness_input = r.f64();
  it.bytes = r.i64();
  it.bpp = r.f64();
  it.backend = r.str();
  it.note = r.str();
  for (std::int64_t n = r.i64(); n > 0; --n) {
    std::string stage = r.str();
    it.times.add(std::move(stage), r.f64());
  }
  return u;
}

// Several entries: the pipeline's stages inline (app/pipeline.hpp), each of `jobs` threads taking an input through
// decode, compress (every quality), encode, commit and measure; one input stays on one core, and no stage waits for
// a queue (docs/decisions.md §1.3, "Batch stages"). Entries are reported in input order. Distributed (a Dispatcher),
// the threads take the indices rank 0 hands out and send each entry to rank 0, whose collector thread records them;
// the other ranks stop there.
class Batch {
 public:
  Batch(const Job& job, int jobs, dispatch::Dispatcher* d)
      : job_(job),
        jobs_(jobs),
        d_(d),
        items_(static_cast<std::size_t>(job.inputs() * job.per_input())),
        state_(items_.size(), kPending),
        bar_(static_cast<std::int64_t>(items_.size()), !job.g.quiet && ProgressBar::stderr_is_terminal()) {}

  void message(const std::string& line) { bar_.message(line); }

  int run() {
    const double cpu0 = core::process_cpu_ms();
    core::Stopwatch clock;
    PipelineShape shape;
    shape.readers = shape.workers = shape.writers = jobs_;
    shape.inline_stages = true;
    // Workers take the --devices in turn; the GPU work of each goes to its own device, stream and buffers.
    const std::vector<int> devices = devices_of(job_.g);
    shape.worker_init = [devices](int k) { bind_worker(devices, k); };
    if (d_) shape.next_index = [this] { return d_->next_index(); };
    {
      const dispatch::EntryCollector collector(
          d_, [this](const dispatch::Finished& f) { record_remote(f); }, [this] { return interrupted(); },
          all_outputs());
      // A value is one (input, quality) entry; the qualities of an input share its decoded image.
      using Task = std::pair<std::shared_ptr<Source>, std::int64_t>;
      run_pipeline<Task, Coded>(
          job_.inputs(), shape,
          [this](std::int64_t i, const std::function<void(Task &&)>& emit) {
            const std::shared_ptr<Source> s = read_source(job_, i);
            for (std::int64_t k = 0; k < job_.per_input(); ++k) emit(Task{s, k});
          },
          [this](Task&& t, const std::function<void(Coded &&)>& emit) {
            emit(compress_entry(job_, t.first, t.second));
          },
          [this](Coded&& c) { finish(std::move(c)); });
    }
    if (d_ && !d_->root()) return 0;
    const double wall = clock.elapsed_ms(), cpu = core::process_cpu_ms() - cpu0;
    const std::int64_t lost = d_ ? record_lost() : 0;

    std::string arr = "[";
    for (std::size_t i = 0; i < items_.size(); ++i) arr += (i ? ",\n " : "") + item_json(job_, items_[i]);
    arr += "]\n";
    commit_report(job_, arr);
    if (job_.g.json) std::fputs(arr.c_str(), stdout);
    if (job_.g.timing) stage_table(wall, cpu);
    if (!job_.g.quiet) summary(wall / 1000.0);
    if (lost > 0) return static_cast<int>(ErrorCode::kRuntime);
    return failed_ > 0 ? static_cast<int>(ErrorCode::kInput) : 0;
  }

 private:
  enum State : char { kPending, kDone, kFailed };

  std::vector<std::string> all_outputs() const {
    std::vector<std::string> all;
    for (const auto& per_input : job_.outputs) all.insert(all.end(), per_input.begin(), per_input.end());
    return all;
  }

  void finish(Coded&& c) {
    const std::int64_t i = c.src->index, k = c.k;
    const bool unread = !c.src->error.empty();
    Item it = write_entry(job_, std::move(c));
    if (d_)
      d_->send(i, pack_entry(k, unread, it));
    else
      record(i, k, unread, std::move(it));
  }

  void record_remote(const dispatch::Finished& f) {
    try {
      Unpacked u = unpack_entry(job_, f.index, f.payload);
      record(f.index, u.k, u.unread, std::move(u.item));
    } catch (const Error& e) {
      bar_.message(e.message());  // the entry stays pending: reported as not done
    }
  }

  void record(std::int64_t i, std::int64_t k, bool unread, Item&& it) {
    const auto e = static_cast<std::size_t>(i * job_.per_input() + k);
    if (!it.note.empty() && !job_.g.quiet) bar_.message(it.note);
    if (it.error) {
      ++failed_;
      // One line per input that could not be read, one per entry that failed after.
      if (!unread || k == 0) bar_.message(*it.error);
    }
    const std::string name = it.output;
    const State st = it.error ? kFailed : kDone;
    items_[e] = std::move(it);
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      state_[e] = st;
    }
    bar_.advance(name);
  }

  // Rank 0, after every rank finished: entries that never came back (a rank's pipeline broke, or communication
  // failed) are failures of their own kind; returns how many.
  std::int64_t record_lost() {
    const std::string why = d_->failure();
    if (!why.empty()) bar_.message(why);
    std::int64_t lost = 0;
    for (std::int64_t i = 0; i < job_.inputs(); ++i)
      for (std::int64_t k = 0; k < job_.per_input(); ++k) {
        const auto e = static_cast<std::size_t>(i * job_.per_input() + k);
        if (state_[e] != kPending) continue;
        Item it;
        it.input = job_.o.inputs[i];
        it.output = job_.outputs[i][k];
        it.quality = job_.qualities[k];
        it.error = Error(ErrorCode::kRuntime, it.output, "not done: the process it was handed to stopped").message();
        it.code = ErrorCode::kRuntime;
        record(i, k, false, std::move(it));
        ++lost;
      }
    return lost;
  }

  // Rank 0's interrupt summary (a rank died and the launcher stops the job, or the user stopped it): the outputs
  // finished anywhere, the inputs not done (every input with an output missing: pending, or failed, which may be the
  // interrupt's own doing, as a commit whose temporary a stopping rank removed), and the temporaries of the pending
  // outputs removed, which another rank that died leaves behind. Runs in the signal thread (core/interrupt.hpp): it
  // takes no lock but state_mu_, which no holder keeps while creating or committing a file.
  std::string interrupted() {
    std::vector<std::string> outputs, not_done;
    std::int64_t finished = 0;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      for (std::int64_t i = 0; i < job_.inputs(); ++i) {
        bool missing = false;
        for (std::int64_t k = 0; k < job_.per_input(); ++k) {
          const State st = state_[static_cast<std::size_t>(i * job_.per_input() + k)];
          finished += st == kDone ? 1 : 0;
          missing = missing || st != kDone;
          if (st == kPending) outputs.push_back(job_.outputs[i][k]);
        }
        if (missing) not_done.push_back(job_.o.inputs[i]);
      }
    }
    core::remove_temporaries_of(outputs);
    return not_done_line(finished, not_done);
  }

  // --timing: where the time went, per stage over the entries (read once per input), and how busy the cores
  // were.
  void stage_table(double wall_ms, double cpu_ms) const {
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> per;
    for (std::size_t e = 0; e < items_.size(); ++e)
      for (const auto& row : items_[e].times.rows()) {
        if (row.stage == "read" && e % static_cast<std::size_t>(job_.per_input()) != 0) continue;
        if (!per.count(row.stage)) order.push_back(row.stage);
        per[row.stage].push_back(row.ms);
      }
    double busy = 0;
    for (const auto& s : order)
      if (s != "total" && s.rfind("queue", 0) != 0)
        for (double v : per[s]) busy += v;
    std::fprintf(stderr, "%-14s %10s %10s %7s\n", "stage", "median_ms", "sum_ms", "share");
    for (const auto& s : order) {
      double sum = 0;
      for (double v : per[s]) sum += v;
      const bool work = s != "total" && s.rfind("queue", 0) != 0;
      std::fprintf(stderr, "%-14s %10.2f %10.1f %6s\n", s.c_str(), core::summarize(per[s]).median, sum,
                   work && busy > 0 ? (format_number_fixed(100.0 * sum / busy, 1) + "%").c_str() : "");
    }
    const unsigned cores = static_cast<unsigned>(core::usable_cores());
    if (d_) {
      // The stages are every rank's; the processor time only this one's.
      std::fprintf(stderr, "wall %.1f ms, stages %.1f ms (%d processes)\n", wall_ms, busy, d_->size());
      return;
    }
    std::fprintf(stderr, "wall %.1f ms, stages %.1f ms, cpu %.1f ms: %.2f of %u cores busy\n", wall_ms, busy, cpu_ms,
                 wall_ms > 0 ? cpu_ms / wall_ms : 0.0, cores);
  }

  void summary(double secs) {
    const std::int64_t n = static_cast<std::int64_t>(items_.size()), done = n - failed_;
    double psnr = 0, bpp = 0, ebpp = 0;
    std::int64_t npsnr = 0, nbpp = 0;
    for (const Item& it : items_) {
      if (it.error) continue;
      if (std::isfinite(it.psnr)) psnr += it.psnr, ++npsnr;
      if (it.bytes >= 0) bpp += it.bpp, ++nbpp;
      ebpp += it.entropy_bpp;
    }
    char line[512];
    const std::int64_t nq = job_.per_input();
    const std::string what =
        nq > 1 ? "outputs (" + std::to_string(job_.inputs()) + " images x " + std::to_string(nq) + " qualities, "
               : "images (";
    const std::string where = d_ ? " on " + std::to_string(d_->size()) + " processes" : "";
    std::snprintf(line, sizeof line, "compressed %lld of %lld %s%lld failed) in %.2f s%s, %.1f %s/s",
                  static_cast<long long>(done), static_cast<long long>(n), what.c_str(),
                  static_cast<long long>(failed_.load()), secs, where.c_str(), secs > 0 ? double(done) / secs : 0.0,
                  nq > 1 ? "outputs" : "images");
    std::string s = std::string("dctool: ") + line;
    if (npsnr > 0) s += ", mean PSNR " + format_number_fixed(psnr / double(npsnr), 2) + " dB";
    if (nbpp > 0)
      s += ", mean " + format_number_fixed(bpp / double(nbpp), 3) + " bpp";
    else if (done > 0 && !job_.skip)
      s += ", mean entropy " + format_number_fixed(ebpp / double(done), 3) + " bpp";
    bar_.message(s);
  }

  const Job& job_;
  const int jobs_;
  dispatch::Dispatcher* const d_;  // distributed: the job's dispatcher; null: this process alone
  std::vector<Item> items_;
  std::mutex state_mu_;
  std::vector<State> state_;  // per entry, under state_mu_ (the interrupt summary reads it)
  ProgressBar bar_;
  std::atomic<std::int64_t> failed_{0};
};

// Everything decided before any work: the same on every process of a distributed batch, which all parse the same
// command line and see the same files.
Job make_job(const GlobalOptions& g, const CompressOptions& o) {
  Job job{g, o, request_of(g, o), false, {}, {}};
  job.skip = skip_transform(o);
  job.qualities = parse_qualities(o.quality);
  if (job.qualities.size() > 1 &&
      (job.skip || (job.r.mode != core::CompressMode::kJpeg && job.r.mode != core::CompressMode::kLot)))
    throw Error(ErrorCode::kUsage, "--quality", "several qualities need --mode jpeg or lot");
  const Outputs outs = outputs_of(o, job.qualities);
  job.outputs = outs.names;
  job.to_dir = outs.dir;
  job.input_paths = std::make_shared<const core::InputPaths>(o.inputs);
  check_outputs(job);
  check_report(job);
  return job;
}

int run_compress(const GlobalOptions& g, const CompressOptions& o) {
  // Under an MPI launcher every process runs this command line and rank 0 alone tells: the others are quiet, and
  // leave a problem found before the batch starts (the same for all) to rank 0, exiting 0: a launcher stops the
  // whole job at the first process that exits otherwise, which could cut rank 0 off before its line is out.
  const bool other_rank = dispatch::launched_distributed() && dispatch::launcher_rank() != 0;
  GlobalOptions local = g;
  if (other_rank) local.quiet = true, local.timing = false;  // --json stays: it decides what entries measure
  std::optional<Job> made;
  try {
    made.emplace(make_job(local, o));
    if (made->to_dir) {
      std::error_code ec;
      fs::create_directories(o.output, ec);
      // Another process of the batch may have made it meanwhile.
      if (ec && !fs::is_directory(o.output))
        throw Error(ErrorCode::kInput, o.output, "cannot create the output directory: " + ec.message());
    }
  } catch (const Error&) {
    if (other_rank) return 0;
    throw;
  }
  Job& job = *made;
  const std::int64_t entries = job.inputs() * job.per_input();
  if (entries == 1 && other_rank) return 0;  // one entry is not spread: rank 0 does it
  std::unique_ptr<dispatch::Dispatcher> d;
  try {
    if (entries > 1) d = dispatch::Dispatcher::start(job.inputs());
  } catch (const Error& e) {
    if (other_rank && e.code() == ErrorCode::kUnsupported) return 0;  // no MPI compiled in: rank 0 says so
    throw;
  }
  if (!d || d->root()) open_report(job);
  // The host's cores are shared by the ranks on it.
  const unsigned cores = static_cast<unsigned>(core::share_of_cores(dispatch::local_size()));
  const int jobs = static_cast<int>(std::min<std::int64_t>(o.jobs > 0 ? o.jobs : cores, entries));
  // Entries run side by side on `jobs` workers, each image on cores / jobs threads (unless --threads says).
  configure_runtimes(g.device, g.threads > 0 || entries == 1 ? g.threads : std::max(1, int(cores) / jobs));
  if (entries == 1) return run_single(job);
  job.batch = true;
  // -b auto, .jpg outputs, at least kGpuWarmEntries entries per worker: the GPU compressor's device is made ready on
  // another thread while the first entries run on the CPU (joined at the end: a smaller batch would wait for it). From
  // then on the input pool's new blocks are page-locked, so that the device copies an input straight from its block
  // (docs/decisions.md §6); under -b cuda-jpeg-fused they are from the start.
  std::thread warm;
  const core::Compressor* gpu = find_compressor(kGpuJpeg);
  if (gpu != nullptr && job.r.backend == "auto" && job.r.mode == core::CompressMode::kJpeg && !job.skip &&
      entries >= kGpuWarmEntries * jobs && is_jpeg_path(job.outputs[0][0])) {
    job.gpu_ready = std::make_shared<std::atomic<bool>>(false);
    auto pinned = std::make_shared<std::atomic<bool>>(false);
    job.images = std::make_shared<core::TensorPool>(input_blocks(pinned));
    // Without a usable device (a CUDA build on a host without a GPU) nothing changes: the inputs stay pixels for the
    // CPU compressor (not coefficients it would decode again) in ordinary memory.
    warm = std::thread([gpu, pinned, ready = job.gpu_ready] {
      if (!gpu->warm_up()) return;
      pinned->store(true);
      ready->store(true);
    });
  } else if (job.gpu_jpeg() && is_jpeg_path(job.outputs[0][0])) {
    job.images = std::make_shared<core::TensorPool>(input_blocks(std::make_shared<std::atomic<bool>>(true)));
  }
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{warm};
  Batch batch(job, jobs, d.get());
  job.notice = [&batch](const std::string& line) { batch.message(line); };
  return batch.run();
}

}  // namespace

void add_compress(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<CompressOptions>();
  CLI::App* c =
      app.add_subcommand("compress", "lossy image compression: jpeg (8x8 DCT + quantization), lot, threshold, keep");
  c->add_option("inputs", o->inputs, "input images (several: batch mode, -o names a directory)")->required();
  c->add_option("-o,--output", o->output,
                "output image (jpeg mode: .jpg/.jpeg is a JPEG file of the quantized coefficients; other formats "
                "hold the reconstruction), or a directory (batch mode; created if missing)")
      ->required();
  c->add_option("--mode", o->mode,
                "jpeg|threshold|keep|lot (default jpeg; lot: jpeg with the 8x8 LOT); none: no transform (decode + "
                "encode only, a batch baseline)");
  CLI::Option* quality = c->add_option(
      "--quality", o->quality,
      "jpeg/lot quality 1..100 (default 75, as cjpeg); a range START:STOP:STEP (inclusive) or a list Q1,Q2,... "
      "compresses each input at every quality (outputs NAME-qQQ.EXT)");
  CLI::Option* threshold =
      c->add_option("--threshold", o->threshold, "threshold mode: zero DCT coefficients with |c| < E");
  CLI::Option* keep =
      c->add_option("--keep", o->keep, "keep mode: keep the ceil(F*H*W) largest coefficients per channel");
  c->add_option("--format", o->format,
                "format of the outputs in -o DIR: jpg (default in jpeg mode), png (default otherwise), same (the "
                "input's)")
      ->check(CLI::IsMember({"jpg", "png", "same"}));
  c->add_option("--report", o->report, "write a JSON report (an array in batch mode)");
  c->add_flag("--optimize", o->optimize, "jpeg mode, .jpg output: optimized Huffman tables (as cjpeg -optimize)");
  c->add_option("--sampling", o->sampling, "jpeg mode chroma sampling: 444 (default) or 420 (as cjpeg -sample 2x2)");
  c->add_flag("--progressive", o->progressive, "jpeg mode, .jpg output: a progressive JPEG (as cjpeg -progressive)");
  c->add_option("--jobs", o->jobs,
                "images in flight per pipeline stage in batch mode, at most 1024 (default all cores; under mpirun or "
                "srun, the host's cores shared by its processes)")
      ->check(CLI::Range(0, 1024));
  c->footer(
      "Under mpirun or srun with several processes (the launcher's environment says so; a plain dctool never starts "
      "MPI), a batch is spread over them: rank 0 hands the inputs out one at a time, every process compresses those it "
      "gets, and rank 0 alone prints errors and the summary, writes --report and --json, and exits 3 if any input "
      "failed anywhere. If a process dies, the launcher stops the others; rank 0 then names the inputs not done and "
      "removes the temporaries left for their outputs, and the launcher exits non-zero. A dctool built without MPI "
      "refuses such a batch (exit 4).");
  c->callback([o, &g, &action, quality, threshold, keep] {
    o->quality_given = quality->count() > 0;
    o->threshold_given = threshold->count() > 0;
    o->keep_given = keep->count() > 0;
    action = [o, &g] { return run_compress(g, *o); };
  });
}

}  // namespace dct::app
