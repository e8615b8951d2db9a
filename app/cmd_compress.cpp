// compress: parse into a core::CompressRequest, pick a Compressor (registry order), run it per input, write
// the reconstruction atomically, report PSNR / nonzero fraction / entropy / timing. Batch mode (several
// inputs, -o DIR): worker threads take inputs in turn; a failed input is one line on stderr and skipped.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/progress.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/compress.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"

namespace dct::app {
namespace {

namespace fs = std::filesystem;

struct Item {
  std::string input, output;
  std::optional<std::string> error;
  double psnr = 0, mse = 0, nonzero_fraction = 0, entropy_bpp = 0;
  double blockiness = 0, blockiness_input = 0;  // core::blockiness of the output and of the input
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

Item compress_one(const GlobalOptions& g, const core::CompressRequest& r, bool skip, const std::string& input,
                  const std::string& output, const std::vector<std::string>& all_inputs) {
  Item it;
  it.input = input;
  it.output = output;
  core::Stopwatch total, sw;
  core::check_output_path(output, all_inputs);
  core::Dataset in = read_input(input, read_options(g, InputOptions{}, core::Precision::kF32));
  it.times.add("read", sw.elapsed_ms());
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
    case core::CompressMode::kLot: return "\"quality\": " + std::to_string(r.quality);
    case core::CompressMode::kThreshold: return "\"threshold\": " + json_number(r.threshold);
    default: return "\"keep\": " + json_number(r.keep);
  }
}

std::string item_json(const core::CompressRequest& r, bool skip, const Item& it) {
  std::string j = "{\"input\": " + json_escape(it.input) + ", \"output\": " + json_escape(it.output) +
                  ", \"mode\": " + (skip ? std::string("\"none\"") : json_escape(std::string(core::to_string(r.mode))) +
                                              ", " + param_json(r));
  if (it.error) return j + ", \"error\": " + json_escape(*it.error) + "}";
  j += ", \"psnr_db\": " + json_number(it.psnr) + ", \"mse\": " + json_number(it.mse) +
       ", \"nonzero_fraction\": " + json_number(it.nonzero_fraction) + ", \"entropy_bpp\": " + json_number(it.entropy_bpp) +
       ", \"blockiness\": " + json_number(it.blockiness) + ", \"blockiness_input\": " + json_number(it.blockiness_input) +
       ", \"backend\": " + json_escape(it.backend) + ", \"timing_ms\": {";
  bool first = true;
  for (const auto& row : it.times.rows()) {
    j += (first ? "" : ", ") + json_escape(row.stage) + ": " + json_number(row.ms);
    first = false;
  }
  return j + "}}";
}

std::string item_text(const Item& it) {
  return "PSNR " + format_number_fixed(it.psnr, 2) + " dB  MSE " + format_number(it.mse, 4) + "  nonzero " +
         format_number(it.nonzero_fraction, 4) + "  entropy " + format_number(it.entropy_bpp, 4) + " bpp  backend " +
         it.backend + "  " + format_number_fixed(it.times.rows().back().ms, 1) + " ms";
}

void write_text_file(const std::string& path, const std::string& text) {
  core::AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}

}  // namespace

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

  std::vector<std::string> outputs;
  for (const auto& in : o.inputs)
    outputs.push_back(out_is_dir ? (fs::path(o.output) / fs::path(in).stem()).string() + ".png" : o.output);

  if (!batch) {
    const Item it = compress_one(g, r, skip, o.inputs[0], outputs[0], o.inputs);
    if (!o.report.empty()) write_text_file(o.report, item_json(r, skip, it) + "\n");
    if (g.json)
      std::printf("%s\n", item_json(r, skip, it).c_str());
    else if (!g.quiet)
      std::printf("%s\n", item_text(it).c_str());
    print_timing(g, it.times);
    return 0;
  }

  const std::int64_t n = static_cast<std::int64_t>(o.inputs.size());
  std::vector<Item> items(static_cast<std::size_t>(n));
  // Two inputs with the same stem would write the same output: the later ones fail.
  std::vector<std::string> dup(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < i; ++k)
      if (outputs[i] == outputs[k]) dup[i] = "output " + outputs[i] + " is also the output of " + o.inputs[k];

  unsigned jobs = o.jobs > 0 ? static_cast<unsigned>(o.jobs) : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::int64_t>(jobs, n));
  ProgressBar bar(n, !g.quiet && ProgressBar::stderr_is_terminal());
  std::atomic<std::int64_t> next{0}, failed{0};
  core::Stopwatch clock;
  auto worker = [&] {
    for (std::int64_t i; (i = next.fetch_add(1)) < n;) {
      Item& it = items[i];
      try {
        if (!dup[i].empty()) throw Error(ErrorCode::kInput, o.inputs[i], dup[i]);
        it = compress_one(g, r, skip, o.inputs[i], outputs[i], o.inputs);
      } catch (const Error& e) {
        it.input = o.inputs[i];
        it.output = outputs[i];
        it.error = e.what();
        ++failed;
        const Error named = e.subject().empty() ? Error(e.code(), o.inputs[i], e.what()) : e;
        bar.message(named.message());
      } catch (const std::bad_alloc&) {
        it.input = o.inputs[i];
        it.error = "out of host memory";
        ++failed;
        bar.message("dctool: error: " + o.inputs[i] + ": out of host memory");
      }
      bar.advance(o.inputs[i]);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  const double secs = clock.elapsed_ms() / 1000.0;

  std::string arr = "[";
  for (std::int64_t i = 0; i < n; ++i) arr += (i ? ",\n " : "") + item_json(r, skip, items[i]);
  arr += "]\n";
  if (!o.report.empty()) write_text_file(o.report, arr);
  if (g.json) std::fputs(arr.c_str(), stdout);
  if (!g.quiet) {
    char line[256];
    std::snprintf(line, sizeof line, "compressed %lld of %lld images (%lld failed) in %.2f s, %.1f images/s",
                  static_cast<long long>(n - failed), static_cast<long long>(n), static_cast<long long>(failed.load()),
                  secs, secs > 0 ? double(n - failed) / secs : 0.0);
    bar.message(std::string("dctool: ") + line);
  }
  return failed > 0 ? static_cast<int>(ErrorCode::kInput) : 0;
}

}  // namespace dct::app
