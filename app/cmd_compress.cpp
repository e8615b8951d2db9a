// compress: parse into a core::CompressRequest, pick a Compressor (registry order), run it per input, write
// the reconstruction atomically, report PSNR / nonzero fraction / entropy / timing. Batch mode (several
// inputs, -o DIR): worker threads take inputs in turn; a failed input is one line on stderr and skipped.
// A .jpg/.jpeg output in jpeg mode is a JFIF file of the quantized coefficients (app/jpeg_file.cpp), made by
// the chosen compressor (CPU or GPU: the same coefficients); its PSNR is that of libjpeg-turbo's float decode of
// the file, and the report gains the file's bytes and bits per pixel.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/jpeg_file.hpp"
#include "app/options.hpp"
#include "app/progress.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/compress.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"

namespace dct::app {
namespace {

namespace fs = std::filesystem;

struct CompressOptions {
  std::vector<std::string> inputs;
  std::string output;  // a file (one input) or a directory (batch)
  std::string mode = "jpeg";
  int quality = 75;
  double threshold = -1;  // < 0: not given
  double keep = -1;       // < 0: not given
  std::string report;     // --report FILE.json
  int jobs = 0;           // 0: all cores
  bool optimize = false;  // --optimize: optimized Huffman tables in a .jpg output

  std::string sampling = "444";  // --sampling 444|420 (jpeg mode)
  bool progressive = false;      // --progressive: a progressive .jpg output
};

struct Item {
  std::string input, output;
  std::optional<std::string> error;
  double psnr = 0, mse = 0, nonzero_fraction = 0, entropy_bpp = 0;
  double blockiness = 0, blockiness_input = 0;  // core::blockiness of the output and of the input
  std::int64_t bytes = -1;                      // size of the compressed file written (-1: none)
  double bpp = 0;                               // 8 * bytes / pixels
  std::string backend;
  core::StageTable times;
};

// --mode none: read and write only (the output is the input re-encoded), no transform: the baseline for a
// batch's images/s (decode + encode cost). Handled here, not a core::CompressMode.
bool skip_transform(const CompressOptions& o) { return o.mode == "none"; }

core::CompressRequest request_of(const GlobalOptions& g, const CompressOptions& o) {
  core::CompressRequest r;
  if (!skip_transform(o)) r.mode = core::parse_compress_mode(o.mode);
  r.quality = o.quality;
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
  if (r.quality < 1 || r.quality > 100)
    throw Error(ErrorCode::kUsage, "--quality", "must be 1..100, not " + std::to_string(r.quality));
  return r;
}

// auto: the first compressor that supports the request here; a compressor's own name forces it; any other
// --backend value names the transform backend of the CPU compressor.
const core::Compressor& choose(const core::CompressRequest& r, const core::Dataset& in) {
  const auto& list = compressors();
  if (const core::Compressor* c = find_compressor(r.backend)) {
    if (core::Support s = c->supports(r, in); !s)
      throw Error(ErrorCode::kUnsupported, std::string(c->name()), s.reason);
    return *c;
  }
  if (r.backend == "auto")
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

// The start of every item: its paths, the output checked against the inputs, the input read ("read" time).
core::Dataset start_item(Item& it, const GlobalOptions& g, const std::string& input, const std::string& output,
                         const std::vector<std::string>& all_inputs) {
  core::Stopwatch sw;
  it.input = input;
  it.output = output;
  core::check_output_path(output, all_inputs);
  core::Dataset in = read_input(input, read_options(g, InputOptions{}, core::Precision::kF32));
  it.times.add("read", sw.elapsed_ms());
  return in;
}

// jpeg mode with a .jpg/.jpeg output: the CPU compressor's quantized coefficients entropy coded by
// libjpeg-turbo into `output`; PSNR of the file's float-IDCT decode against the input's colour channels.
Item compress_to_jpeg(const GlobalOptions& g, const core::CompressRequest& r0, bool optimize, const std::string& input,
                      const std::string& output, const std::vector<std::string>& all_inputs) {
  Item it;
  core::Stopwatch total, sw;
  core::Dataset in = start_item(it, g, input, output, all_inputs);
  core::CompressRequest r = r0;
  r.keep_coefficients = true;
  // A compressor's name (-b cuda-jpeg-fused, -b cpu) picks the compressor, not a transform backend: the CPU
  // compressor's transforms then follow auto.
  const std::string named = r.backend;
  if (find_compressor(r.backend) != nullptr) r.backend = "auto";
  core::CompressResult res;
  const core::Compressor* comp = nullptr;
  try {
    core::CompressRequest pick = r;
    pick.backend = named;
    comp = &choose(pick, in);  // every compressor returns the same coefficients (core::CompressRequest)
    res = comp->run(r, in);
  } catch (const Error& e) {
    rethrow_with_subject(e, input);
  }
  for (const auto& row : res.times.rows()) it.times.add(row.stage, row.ms);
  const std::int64_t h = in.tensor.rows(), w = in.tensor.cols(), ch = in.tensor.channels();
  const std::int64_t np = core::coded_planes(ch);
  if (np < ch && !g.quiet)
    std::fprintf(stderr, "dctool: note: %s: the alpha channel is not stored in the .jpg\n", printable(output).c_str());
  sw.reset();
  const std::vector<unsigned char> file = encode_jpeg(res.quantized, h, w, optimize, output, r.progressive);
  it.times.add("encode", sw.elapsed_ms());
  sw.reset();
  try {
    core::AtomicFile f(output);
    f.write(file.data(), file.size());
    f.commit();
  } catch (const Error& e) {
    rethrow_with_subject(e, output);
  }
  it.times.add("write", sw.elapsed_ms());
  sw.reset();
  const core::HostTensor decoded = decode_jpeg(file, output);
  const core::HostTensor ref = first_channels(in.tensor, np);
  it.times.add("decode", sw.elapsed_ms());
  it.bytes = static_cast<std::int64_t>(file.size());
  it.bpp = 8.0 * double(it.bytes) / double(h * w);
  it.mse = core::mse(ref, decoded);
  it.psnr = core::psnr_db(it.mse, 255.0);
  it.nonzero_fraction = res.nonzero_fraction();
  it.entropy_bpp = res.entropy_bpp();
  it.blockiness = core::blockiness(decoded);
  it.blockiness_input = core::blockiness(ref);
  it.backend = res.backend + " (" + std::string(comp->name()) + " compressor: .jpg output)";
  it.times.add("total", total.elapsed_ms());
  return it;
}

Item compress_one(const GlobalOptions& g, const core::CompressRequest& r, bool skip, const std::string& input,
                  const std::string& output, const std::vector<std::string>& all_inputs, bool optimize = false) {
  if (!skip && r.mode == core::CompressMode::kJpeg && is_jpeg_path(output))
    return compress_to_jpeg(g, r, optimize, input, output, all_inputs);
  Item it;
  core::Stopwatch total, sw;
  core::Dataset in = start_item(it, g, input, output, all_inputs);
  core::CompressResult res;
  try {
    if (skip) {
      res.image = in.tensor.clone();
      res.backend = "none";
    } else {
      res = choose(r, in).run(r, in);
    }
  } catch (const Error& e) {
    rethrow_with_subject(e, input);
  }
  for (const auto& row : res.times.rows()) it.times.add(row.stage, row.ms);
  sw.reset();
  core::WriteOptions wo;
  wo.image_bit_depth = in.kind == core::SourceKind::kImage16 ? 16 : 8;
  try {
    core::write_any(output, res.image, wo, &image_codec());
  } catch (const Error& e) {
    rethrow_with_subject(e, output);
  }
  it.times.add("write", sw.elapsed_ms());
  const double peak = in.kind == core::SourceKind::kImage16 ? 65535.0 : 255.0;
  it.mse = core::mse(in.tensor, res.image);
  it.psnr = core::psnr_db(it.mse, peak);
  it.nonzero_fraction = res.nonzero_fraction();
  it.entropy_bpp = res.entropy_bpp();
  it.blockiness = core::blockiness(res.image);
  it.blockiness_input = core::blockiness(in.tensor);
  it.backend = res.backend;
  it.times.add("total", total.elapsed_ms());
  return it;
}

std::string param_json(const core::CompressRequest& r) {
  switch (r.mode) {
    case core::CompressMode::kJpeg:
    case core::CompressMode::kLot:
      return "\"quality\": " + std::to_string(r.quality);
    case core::CompressMode::kThreshold:
      return "\"threshold\": " + json_number(r.threshold);
    default:
      return "\"keep\": " + json_number(r.keep);
  }
}

std::string item_json(const core::CompressRequest& r, bool skip, const Item& it) {
  std::string j =
      "{\"input\": " + json_escape(it.input) + ", \"output\": " + json_escape(it.output) + ", \"mode\": " +
      (skip ? std::string("\"none\"") : json_escape(std::string(core::to_string(r.mode))) + ", " + param_json(r));
  if (it.error) return j + ", \"error\": " + json_escape(*it.error) + "}";
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

void write_text_file(const std::string& path, const std::string& text) {
  core::AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}

// The output path of each input: -o itself, or DIR/<stem>.png in batch mode.
std::vector<std::string> outputs_of(const CompressOptions& o, bool out_is_dir) {
  std::vector<std::string> outputs;
  for (const auto& in : o.inputs)
    outputs.push_back(out_is_dir ? (fs::path(o.output) / fs::path(in).stem()).string() + ".png" : o.output);
  return outputs;
}

int run_single(const GlobalOptions& g, const CompressOptions& o, const core::CompressRequest& r, bool skip,
               const std::string& output) {
  const Item it = compress_one(g, r, skip, o.inputs[0], output, o.inputs, o.optimize);
  if (!o.report.empty()) write_text_file(o.report, item_json(r, skip, it) + "\n");
  if (g.json)
    std::printf("%s\n", item_json(r, skip, it).c_str());
  else if (!g.quiet)
    std::printf("%s\n", item_text(it).c_str());
  print_timing(g, it.times);
  return 0;
}

// A batch: inputs taken in turn by worker threads; a failed input is one line on stderr and an item with
// its error.
class Batch {
 public:
  Batch(const GlobalOptions& g, const CompressOptions& o, const core::CompressRequest& r, bool skip,
        std::vector<std::string> outputs)
      : g_(g),
        o_(o),
        r_(r),
        skip_(skip),
        outputs_(std::move(outputs)),
        n_(static_cast<std::int64_t>(o.inputs.size())),
        items_(o.inputs.size()),
        dup_(duplicates()),
        bar_(n_, !g.quiet && ProgressBar::stderr_is_terminal()) {}

  int run() {
    unsigned jobs = o_.jobs > 0 ? static_cast<unsigned>(o_.jobs) : std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::min<std::int64_t>(jobs, n_));
    core::Stopwatch clock;
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < jobs; ++t) pool.emplace_back([this] { work(); });
    work();
    for (auto& t : pool) t.join();
    const double secs = clock.elapsed_ms() / 1000.0;

    std::string arr = "[";
    for (std::int64_t i = 0; i < n_; ++i) arr += (i ? ",\n " : "") + item_json(r_, skip_, items_[i]);
    arr += "]\n";
    if (!o_.report.empty()) write_text_file(o_.report, arr);
    if (g_.json) std::fputs(arr.c_str(), stdout);
    if (!g_.quiet) summary(secs);
    return failed_ > 0 ? static_cast<int>(ErrorCode::kInput) : 0;
  }

 private:
  // Two inputs with the same stem would write the same output: the later ones fail.
  std::vector<std::string> duplicates() const {
    std::vector<std::string> dup(static_cast<std::size_t>(n_));
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t k = 0; k < i; ++k)
        if (outputs_[i] == outputs_[k]) dup[i] = "output " + outputs_[i] + " is also the output of " + o_.inputs[k];
    return dup;
  }

  void work() {
    for (std::int64_t i; (i = next_.fetch_add(1)) < n_;) {
      one(i);
      bar_.advance(o_.inputs[i]);
    }
  }

  void one(std::int64_t i) {
    Item& it = items_[i];
    try {
      if (!dup_[i].empty()) throw Error(ErrorCode::kInput, o_.inputs[i], dup_[i]);
      it = compress_one(g_, r_, skip_, o_.inputs[i], outputs_[i], o_.inputs);
    } catch (const Error& e) {
      it.input = o_.inputs[i];
      it.output = outputs_[i];
      it.error = e.what();
      ++failed_;
      const Error named = e.subject().empty() ? Error(e.code(), o_.inputs[i], e.what()) : e;
      bar_.message(named.message());
    } catch (const std::bad_alloc&) {
      it.input = o_.inputs[i];
      it.error = "out of host memory";
      ++failed_;
      bar_.message(Error(ErrorCode::kRuntime, o_.inputs[i], "out of host memory").message());
    }
  }

  void summary(double secs) {
    char line[256];
    std::snprintf(line, sizeof line, "compressed %lld of %lld images (%lld failed) in %.2f s, %.1f images/s",
                  static_cast<long long>(n_ - failed_), static_cast<long long>(n_),
                  static_cast<long long>(failed_.load()), secs, secs > 0 ? double(n_ - failed_) / secs : 0.0);
    bar_.message(std::string("dctool: ") + line);
  }

  const GlobalOptions& g_;
  const CompressOptions& o_;
  const core::CompressRequest& r_;
  const bool skip_;
  const std::vector<std::string> outputs_;
  const std::int64_t n_;
  std::vector<Item> items_;
  const std::vector<std::string> dup_;
  ProgressBar bar_;
  std::atomic<std::int64_t> next_{0}, failed_{0};
};

int run_compress(const GlobalOptions& g, const CompressOptions& o) {
  configure_runtimes(g.device, g.threads);
  const core::CompressRequest r = request_of(g, o);
  const bool skip = skip_transform(o);
  std::error_code ec;
  const bool out_is_dir = fs::is_directory(o.output, ec);
  const bool batch = o.inputs.size() > 1;
  if (batch && !out_is_dir)
    throw Error(ErrorCode::kUsage, o.output, "several inputs need -o to name an existing directory");
  if (!o.report.empty()) core::check_output_path(o.report, o.inputs);
  std::vector<std::string> outputs = outputs_of(o, out_is_dir);
  if (o.optimize && (batch || skip || r.mode != core::CompressMode::kJpeg || !is_jpeg_path(outputs[0])))
    throw Error(ErrorCode::kUsage, "--optimize", "needs --mode jpeg and a .jpg/.jpeg output (one input)");
  if (o.progressive && (batch || skip || r.mode != core::CompressMode::kJpeg || !is_jpeg_path(outputs[0])))
    throw Error(ErrorCode::kUsage, "--progressive", "needs --mode jpeg and a .jpg/.jpeg output (one input)");
  if (!batch && !skip && r.mode != core::CompressMode::kJpeg && is_jpeg_path(outputs[0]))
    throw Error(ErrorCode::kUsage, o.output,
                "a .jpg/.jpeg output needs --mode jpeg (" + std::string(core::to_string(r.mode)) +
                    " mode's coefficients are not JPEG's); write .png for its reconstruction");
  if (!batch) return run_single(g, o, r, skip, outputs[0]);
  return Batch(g, o, r, skip, std::move(outputs)).run();
}

}  // namespace

void add_compress(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<CompressOptions>();
  CLI::App* c =
      app.add_subcommand("compress", "lossy image compression: jpeg (8x8 DCT + quantization), lot, threshold, keep");
  c->add_option("inputs", o->inputs, "input images (several: batch mode, -o names a directory)")->required();
  c->add_option("-o,--output", o->output,
                "output image (jpeg mode: .jpg/.jpeg is a JPEG file of the quantized coefficients; other formats "
                "hold the reconstruction), or directory in batch mode")
      ->required();
  c->add_option("--mode", o->mode,
                "jpeg|threshold|keep|lot (default jpeg; lot: jpeg with the 8x8 LOT); none: no transform (decode + "
                "encode only, a batch baseline)");
  c->add_option("--quality", o->quality, "jpeg quality 1..100 (default 75, as cjpeg)");
  c->add_option("--threshold", o->threshold, "threshold mode: zero DCT coefficients with |c| < E");
  c->add_option("--keep", o->keep, "keep mode: keep the ceil(F*H*W) largest coefficients per channel");
  c->add_option("--report", o->report, "write a JSON report (an array in batch mode)");
  c->add_flag("--optimize", o->optimize, "jpeg mode, .jpg output: optimized Huffman tables (as cjpeg -optimize)");
  c->add_option("--sampling", o->sampling, "jpeg mode chroma sampling: 444 (default) or 420 (as cjpeg -sample 2x2)");
  c->add_flag("--progressive", o->progressive, "jpeg mode, .jpg output: a progressive JPEG (as cjpeg -progressive)");
  c->add_option("--jobs", o->jobs, "worker threads in batch mode, at most 1024 (default all cores)")
      ->check(CLI::Range(0, 1024));
  c->callback([o, &g, &action] { action = [o, &g] { return run_compress(g, *o); }; });
}

}  // namespace dct::app
