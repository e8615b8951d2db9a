#include "app/batch.hpp"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "app/common.hpp"
#include "app/dispatch.hpp"
#include "app/pipeline.hpp"
#include "app/progress.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/interrupt.hpp"

namespace dct::app {
namespace {

namespace fs = std::filesystem;

const char* const kMatrixExtensions[] = {".npy", ".txt", ".csv", ".raw", ".f32", ".f64"};

bool is_matrix_path(const std::string& path) {
  const std::string ext = core::lower_extension(path);
  return std::find(std::begin(kMatrixExtensions), std::end(kMatrixExtensions), ext) != std::end(kMatrixExtensions);
}

bool writable(const std::string& path) { return is_matrix_path(path) || image_codec().handles_write(path); }

// A file's identity: its canonical path, and (when it exists) its device and inode, so that a link or another
// spelling of an input is recognized as that input.
struct Identity {
  std::string canonical;
  std::pair<dev_t, ino_t> inode{0, 0};
  bool exists = false;
};

Identity identity_of(const std::string& path) {
  Identity id;
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(path, ec);
  id.canonical = ec ? fs::path(path).lexically_normal().string() : c.string();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.inode = {st.st_dev, st.st_ino};
    id.exists = true;
  }
  return id;
}

// Files' identities (the inputs, or the outputs), looked up by path or inode.
class FileSet {
 public:
  explicit FileSet(const std::vector<std::string>& files) {
    for (const auto& f : files) {
      const Identity id = identity_of(f);
      by_path_.emplace(id.canonical, f);
      if (id.exists) by_inode_.emplace(id.inode, f);
    }
  }
  // The file of the set that `path` names, or null.
  const std::string* find(const std::string& path) const {
    const Identity id = identity_of(path);
    if (auto it = by_path_.find(id.canonical); it != by_path_.end()) return &it->second;
    if (auto it = by_inode_.find(id.inode); id.exists && it != by_inode_.end()) return &it->second;
    return nullptr;
  }

 private:
  std::map<std::string, std::string> by_path_;
  std::map<std::pair<dev_t, ino_t>, std::string> by_inode_;
};

void commit_report(core::AtomicFile* report, const std::string& text) {
  if (report == nullptr) return;
  report->write(text.data(), text.size());
  report->commit();
}

// A compressor's name (`dctool backends` lists them beside the transform backends) given to a transform: kUsage,
// saying so (the registry would call it unknown).
void refuse_compressor_name(const std::string& name) {
  if (registry().find(name) == nullptr && find_compressor(name) != nullptr)
    throw Error(ErrorCode::kUsage, "--backend", "'" + name + "' is a compressor: it runs `compress` only");
}

// A --backend that no input could use: unknown (kUsage) or not usable here (kUnsupported). Whether it supports
// each input is that input's question.
void check_backend_usable(const std::string& name) {
  if (name == "auto") return;
  refuse_compressor_name(name);
  const core::Backend* b = registry().find(name);
  if (b == nullptr) {
    registry().select(core::TransformDesc{}, name);  // throws its usage error, listing the known names
    return;
  }
  if (const core::Support u = b->runtime().usable(); !u)
    throw Error(ErrorCode::kUnsupported, name, "not usable here: " + u.reason);
}

void create_output_directory(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::kInput, dir, "cannot create the output directory: " + ec.message());
}

// Parts of one input file read at once, a thread each: a read is a copy out of the page cache, which one thread makes
// at a fraction of the memory bandwidth.
constexpr unsigned kSingleReadThreads = 4;

// Batch workers per GPU (docs/decisions.md §7): a worker's share of an 8192² f32 input on an H200 is 12 ms of copies
// and kernels against 100-160 ms for its read or write, and plans made by 32 workers at once took 7-16 s each.
constexpr int kGpuWorkersPerDevice = 4;

// Blocks for a command's tensor pools: host memory suited to the transfers of the runtime its --backend runs on
// (page-locked when that is a CUDA device; ordinary memory otherwise).
core::TensorPool::Allocate host_blocks(const core::Runtime* rt) {
  return [rt](std::size_t bytes) { return rt != nullptr ? rt->allocate_host(bytes) : core::allocate_heap(bytes); };
}
core::TensorPool::Allocate host_blocks(const std::string& backend) {
  return host_blocks(registry().transfer_runtime(backend));
}

void run_alone(const GlobalOptions& g, BatchTask& task, core::StageTable& t) {
  auto flush = [&] {
    for (const auto& n : task.notes) note(g, n);
    task.notes.clear();
  };
  try {
    task.read(t);
    flush();
    task.transform(plan_cache(), t);
    flush();
    task.write(t);
    flush();
  } catch (...) {
    flush();
    throw;
  }
}

void refuse_collisions(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                       const std::string& dir) {
  std::map<std::string, std::size_t> seen;  // output -> the first input giving it
  std::int64_t collisions = 0;
  std::string first;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto [at, fresh] = seen.emplace(fs::path(outputs[i]).lexically_normal().string(), i);
    if (!fresh && collisions++ == 0) first = inputs[at->second] + " and " + inputs[i] + " both give " + outputs[i];
  }
  if (collisions > 0)
    throw Error(ErrorCode::kUsage, dir,
                "outputs collide: " + first +
                    (collisions > 1 ? " (and " + std::to_string(collisions - 1) + " more)" : std::string()) +
                    "; rename the inputs apart, choose another --format or transform them separately");
}

void check_batch_outputs(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                         const std::string& dir) {
  for (const auto& out : outputs)
    if (!writable(out))
      throw Error(ErrorCode::kUsage, out,
                  "cannot write files of type '" + core::lower_extension(out) +
                      "' (expected .npy .txt .csv .raw .f32 .f64 .png .bmp .tga .jpg; see --format)");
  refuse_collisions(inputs, outputs, dir);
  const FileSet set(inputs);
  for (const auto& out : outputs)
    if (const std::string* in = set.find(out))
      throw Error(ErrorCode::kUsage, out, "output would overwrite input '" + *in + "'");
}

std::unique_ptr<core::AtomicFile> open_report(const std::string& report, const std::vector<std::string>& inputs,
                                              const std::vector<std::string>& outputs) {
  if (report.empty()) return nullptr;
  if (FileSet(inputs).find(report) != nullptr) throw Error(ErrorCode::kUsage, "--report", report + " is an input");
  if (FileSet(outputs).find(report) != nullptr)
    throw Error(ErrorCode::kUsage, "--report", report + " is also an output");
  return std::make_unique<core::AtomicFile>(report);
}

}  // namespace

void add_batch_options(CLI::App* c, BatchOptions& b) {
  c->add_option("--format", b.format,
                "format of the outputs in -o DIR: npy (default), txt, csv, raw, f32, f64, png, bmp, tga, jpg, or "
                "same (each input's own extension)")
      ->check(CLI::IsMember({"npy", "txt", "csv", "raw", "f32", "f64", "png", "bmp", "tga", "jpg", "same"}));
  c->add_option("--report", b.report, "write a JSON report: an object, or with -o DIR an array in input order");
  c->add_option("--jobs", b.jobs, "with -o DIR: inputs in flight per pipeline stage, at most 1024 (default all cores)")
      ->check(CLI::Range(0, 1024));
  c->footer(
      "Batch mode (several inputs, or -o DIR): each input goes to DIR/<stem>.<format> with the same options. Colliding "
      "outputs, an output over an input and a --report naming either are refused before any work (exit 2). A failed "
      "input is one line on stderr and the others go on (exit 3 at the end); a progress bar on a terminal, then one "
      "summary line.");
}

BatchTargets resolve_targets(const std::vector<std::string>& inputs, const std::string& output,
                             const std::string& format) {
  BatchTargets t;
  std::error_code ec;
  const bool is_dir = fs::is_directory(output, ec);
  // An existing directory named like an output file (out.npy) is a mistake for that file, not a destination.
  const bool file_name = is_matrix_path(output) || core::is_image_path(output);
  t.dir = inputs.size() > 1 || (!output.empty() && output.back() == '/') || (is_dir && !file_name);
  // Existence first, then the kind: under mpirun another rank may create the directory between two checks.
  if (t.dir && !is_dir && fs::exists(output, ec) && !fs::is_directory(output, ec))
    throw Error(ErrorCode::kUsage, output,
                "is a file: several inputs need -o to name a directory (one that does not exist is created)");
  if (!t.dir) {
    const std::string ext = core::lower_extension(output);
    if (!format.empty() && ext != "." + format && !(format == "jpg" && ext == ".jpeg"))
      throw Error(ErrorCode::kUsage, "--format",
                  "names the format of outputs in a directory (-o DIR); " + output +
                      " is a file, whose extension is its format");
    t.outputs.assign(inputs.size(), output);
    return t;
  }
  for (const auto& in : inputs) {
    const std::string ext =
        format == "same" ? fs::path(in).extension().string() : "." + (format.empty() ? "npy" : format);
    t.outputs.push_back((fs::path(output) / (fs::path(in).stem().string() + ext)).string());
  }
  return t;
}

// ---- the run ----------------------------------------------------------------------------------------------
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// A batch's inputs come in few shapes; each worker keeps the plans of the last few.
constexpr std::size_t kPlansPerWorker = 8;

// Each worker thread's own plans. A core::Plan runs one execute at a time, so the workers of a batch never share
// one (the shared plan_cache() hands the same plan to every caller); on a GPU each plan has its own stream.
class WorkerPlans {
 public:
  // The calling thread's cache, made on its first call.
  core::PlanCache& mine() {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<core::PlanCache>& c = caches_[std::this_thread::get_id()];
    if (!c) c = std::make_unique<core::PlanCache>(kPlansPerWorker);
    return *c;
  }

 private:
  std::mutex mu_;
  std::map<std::thread::id, std::unique_ptr<core::PlanCache>> caches_;
};

// An input on its way through the stages.
struct Entry {
  std::int64_t index = 0;
  std::unique_ptr<BatchTask> task;
  std::string error;  // the one-line message once a stage failed
  core::StageTable times;
  Clock::time_point start, handed;  // handed: when the previous stage let go of it
};
using EntryPtr = std::unique_ptr<Entry>;

// The one line of an input's failure: it names the input (or the output, for a write that failed) and keeps what
// the error was about (a backend, an option) after it.
std::string entry_message(const Error& e, const std::string& input, const std::string& output) {
  const std::string& s = e.subject();
  if (s == input || s == output) return e.message();
  return Error(e.code(), input, s.empty() ? std::string(e.what()) : s + ": " + e.what()).message();
}

// A finished input as it is recorded (and, in a distributed batch, sent to rank 0): its report entry, its error
// line (empty on success), its notes and stage times.
struct Outcome {
  std::string json, error;
  std::vector<std::string> notes;
  core::StageTable times;
};

std::string pack_outcome(const Outcome& o) {
  dispatch::PayloadWriter w;
  w.str(o.json).str(o.error).i64(static_cast<std::int64_t>(o.notes.size()));
  for (const auto& n : o.notes) w.str(n);
  w.i64(static_cast<std::int64_t>(o.times.rows().size()));
  for (const auto& row : o.times.rows()) w.str(row.stage).f64(row.ms);
  return w.take();
}

Outcome unpack_outcome(const std::string& payload) {
  dispatch::PayloadReader r(payload);
  Outcome o;
  o.json = r.str();
  o.error = r.str();
  for (std::int64_t n = r.i64(); n > 0; --n) o.notes.push_back(r.str());
  for (std::int64_t n = r.i64(); n > 0; --n) {
    std::string stage = r.str();
    o.times.add(std::move(stage), r.f64());
  }
  return o;
}

// The pipeline over the inputs (this process's, or those rank 0 hands this rank in a distributed batch: then each
// finished input goes to rank 0, whose collector thread records it; rank 0 alone reports).
class TransformBatch {
 public:
  TransformBatch(const GlobalOptions& g, const BatchRun& b, int jobs, core::AtomicFile* report, dispatch::Dispatcher* d)
      : g_(g),
        b_(b),
        jobs_(jobs),
        report_(report),
        d_(d),
        inputs_(host_blocks(g.backend)),
        outputs_(host_blocks(g.backend)),
        entries_(b.inputs.size()),
        times_(b.inputs.size()),
        done_(b.inputs.size(), kPending),
        bar_(static_cast<std::int64_t>(b.inputs.size()), !g.quiet && ProgressBar::stderr_is_terminal(), "inputs") {}

  int run() {
    const double cpu0 = core::process_cpu_ms();
    core::Stopwatch clock;
    PipelineShape shape;
    shape.readers = shape.workers = shape.writers = jobs_;
    // Workers take the --devices in turn: each one's plans (and streams) live on its device.
    const std::vector<int> devices = devices_of(g_);
    // On a GPU a worker's part of an input is its copies and kernels, and each worker makes its own plans: a few per
    // device (kGpuWorkersPerDevice) while every core reads and writes.
    if (const core::Runtime* rt = registry().transfer_runtime(g_.backend); rt && rt->memory() == core::Memory::kDevice)
      shape.workers = std::min(jobs_, kGpuWorkersPerDevice * static_cast<int>(devices.size()));
    // Each reader, worker and writer holds one input or result (a worker both) and waits to hand it on: a longer
    // queue would only hold more tensors (blocks that may be large, and page-locked ones are slow to make).
    shape.depth = 1;
    shape.worker_init = [devices](int k) { bind_worker(devices, k); };
    if (d_) shape.next_index = [this] { return d_->next_index(); };
    {
      const dispatch::EntryCollector collector(
          d_,
          [this](const dispatch::Finished& f) {
            if (f.index >= 0 && f.index < static_cast<std::int64_t>(entries_.size()))
              record(static_cast<std::size_t>(f.index), unpack_outcome(f.payload));
          },
          [this] { return interrupted(); }, b_.outputs);
      run_pipeline<EntryPtr, EntryPtr>(
          static_cast<std::int64_t>(b_.inputs.size()), shape,
          [this](std::int64_t i, const std::function<void(EntryPtr &&)>& emit) { emit(read(i)); },
          [this](EntryPtr&& e, const std::function<void(EntryPtr &&)>& emit) {
            transform(*e);
            emit(std::move(e));
          },
          [this](EntryPtr&& e) { finish(*e); });
    }
    if (d_ && !d_->root()) return 0;
    const double wall = clock.elapsed_ms(), cpu = core::process_cpu_ms() - cpu0;
    const std::int64_t lost = d_ ? record_lost() : 0;

    std::string arr = "[";
    for (std::size_t i = 0; i < entries_.size(); ++i) arr += (i ? ",\n " : "") + entries_[i];
    arr += "]\n";
    commit_report(report_, arr);
    if (g_.json) std::fputs(arr.c_str(), stdout);
    if (g_.timing) stage_table(wall, cpu);
    if (!g_.quiet) summary(wall / 1000.0);
    if (lost > 0) return static_cast<int>(ErrorCode::kRuntime);
    return failed_ > 0 ? static_cast<int>(ErrorCode::kInput) : 0;
  }

 private:
  // Rank 0, after every rank finished: inputs whose entry never came back failed as "not done"; returns how many.
  std::int64_t record_lost() {
    const std::string why = d_->failure();
    if (!why.empty()) bar_.message(why);
    std::int64_t lost = 0;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (done_[i] != kPending) continue;
      Outcome o;
      o.error = Error(ErrorCode::kRuntime, b_.outputs[i], "not done: the process it was handed to stopped").message();
      Entry e;
      e.index = static_cast<std::int64_t>(i);
      e.error = o.error;
      o.json = error_json(e);
      record(i, std::move(o));
      ++lost;
    }
    return lost;
  }

  // Rank 0's interrupt line (signal thread; takes only mu_): outputs finished, inputs not done (no output: pending,
  // or failed, which may be the interrupt's own doing), the pending outputs' temporaries gone.
  std::string interrupted() {
    std::vector<std::string> outputs, not_done;
    std::int64_t finished = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (std::size_t i = 0; i < done_.size(); ++i) {
        if (done_[i] == kRecordedDone) {
          ++finished;
          continue;
        }
        if (done_[i] == kPending) outputs.push_back(b_.outputs[i]);
        not_done.push_back(b_.inputs[i]);
      }
    }
    core::remove_temporaries_of(outputs);
    return not_done_line(finished, not_done);
  }

  // Runs one stage of `e` unless an earlier one failed; a failure becomes its one-line message.
  template <class F>
  void stage(Entry& e, F&& body) {
    if (!e.error.empty()) return;
    const std::string& in = b_.inputs[static_cast<std::size_t>(e.index)];
    try {
      body();
    } catch (const Error& x) {
      e.error = entry_message(x, in, b_.outputs[static_cast<std::size_t>(e.index)]);
    } catch (const std::bad_alloc&) {
      e.error = Error(ErrorCode::kRuntime, in, "out of host memory").message();
    }
  }

  EntryPtr read(std::int64_t i) {
    auto e = std::make_unique<Entry>();
    e->index = i;
    e->start = Clock::now();
    stage(*e, [&] {
      e->task = b_.task(b_.inputs[static_cast<std::size_t>(i)], b_.outputs[static_cast<std::size_t>(i)]);
      e->task->in_batch = true;
      e->task->inputs = &inputs_;
      e->task->outputs = &outputs_;
      e->task->read(e->times);
    });
    if (!e->error.empty()) e->times.add("read", ms_between(e->start, Clock::now()));
    e->handed = Clock::now();
    return e;
  }

  void transform(Entry& e) {
    e.times.add("queue", ms_between(e.handed, Clock::now()));
    stage(e, [&] { e.task->transform(plans_.mine(), e.times); });
    e.handed = Clock::now();
  }

  void finish(Entry& e) {
    const auto i = static_cast<std::size_t>(e.index);
    e.times.add("queue_write", ms_between(e.handed, Clock::now()));
    stage(e, [&] { e.task->write(e.times); });
    e.times.add("total", ms_between(e.start, Clock::now()));
    Outcome o;
    if (e.task) o.notes = std::move(e.task->notes);
    o.error = e.error;
    o.json = e.error.empty() ? e.task->json(e.times) : error_json(e);
    o.times = std::move(e.times);
    e.task.reset();  // its tensors go now, not when the pipeline ends
    if (d_)
      d_->send(e.index, pack_outcome(o));
    else
      record(i, std::move(o));
  }

  void record(std::size_t i, Outcome&& o) {
    if (!g_.quiet)
      for (const auto& n : o.notes) bar_.message("dctool: " + printable(n));
    if (!o.error.empty()) {
      ++failed_;
      bar_.message(o.error);
    }
    entries_[i] = std::move(o.json);
    times_[i] = std::move(o.times);
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_[i] = o.error.empty() ? kRecordedDone : kRecordedFailed;
    }
    bar_.advance(b_.outputs[i]);
  }

  std::string error_json(const Entry& e) const {
    const auto i = static_cast<std::size_t>(e.index);
    std::string m = e.error;
    if (m.rfind("dctool: error: ", 0) == 0) m = m.substr(15);
    return "{\"input\": " + json_escape(b_.inputs[i]) + ", \"output\": " + json_escape(b_.outputs[i]) +
           ", \"op\": " + json_escape(b_.op) + ", \"error\": " + json_escape(m) +
           ", \"timing_ms\": " + json_timing(e.times) + "}";
  }

  // --timing: per stage over the inputs, its median, sum and share of the work; then how busy the cores were.
  void stage_table(double wall_ms, double cpu_ms) const {
    std::vector<std::pair<std::string, std::vector<double>>> per;  // in first-seen order
    for (const auto& t : times_)
      for (const auto& row : t.rows()) {
        auto at = std::find_if(per.begin(), per.end(), [&](const auto& p) { return p.first == row.stage; });
        if (at == per.end()) at = per.insert(per.end(), {row.stage, {}});
        at->second.push_back(row.ms);
      }
    auto is_work = [](const std::string& s) { return s != "total" && s.rfind("queue", 0) != 0; };
    auto sum_of = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x;
      return s;
    };
    double busy = 0;
    for (const auto& [stage, ms] : per)
      if (is_work(stage)) busy += sum_of(ms);
    std::fprintf(stderr, "%-14s %10s %10s %7s\n", "stage", "median_ms", "sum_ms", "share");
    for (const auto& [stage, ms] : per) {
      const double sum = sum_of(ms);
      const std::string share =
          is_work(stage) && busy > 0 ? format_number_fixed(100.0 * sum / busy, 1) + "%" : std::string();
      std::fprintf(stderr, "%-14s %10.2f %10.1f %6s\n", stage.c_str(), core::summarize(ms).median, sum, share.c_str());
    }
    const unsigned cores = static_cast<unsigned>(core::usable_cores());
    if (d_) {  // the stages are every rank's, the processor time only this one's
      std::fprintf(stderr, "wall %.1f ms, stages %.1f ms (%d processes)\n", wall_ms, busy, d_->size());
      return;
    }
    std::fprintf(stderr, "wall %.1f ms, stages %.1f ms, cpu %.1f ms: %.2f of %u cores busy\n", wall_ms, busy, cpu_ms,
                 wall_ms > 0 ? cpu_ms / wall_ms : 0.0, cores);
  }

  void summary(double secs) {
    const auto n = static_cast<long long>(entries_.size());
    const long long failed = failed_.load(), done = n - failed;
    const std::string where = d_ ? " on " + std::to_string(d_->size()) + " processes" : "";
    char line[320];
    std::snprintf(line, sizeof line, "dctool: transformed %lld of %lld inputs (%lld failed) in %.2f s%s, %.1f inputs/s",
                  done, n, failed, secs, where.c_str(), secs > 0 ? double(done) / secs : 0.0);
    bar_.message(line);
  }

  const GlobalOptions& g_;
  const BatchRun& b_;
  const int jobs_;
  core::AtomicFile* report_;
  dispatch::Dispatcher* const d_;  // distributed: the job's dispatcher; null: this process alone
  WorkerPlans plans_;
  // The tensors of the inputs in flight, and of their results (as many blocks as were ever out at once).
  core::TensorPool inputs_, outputs_;
  std::vector<std::string> entries_;  // the report's entries, in input order
  std::vector<core::StageTable> times_;
  std::mutex mu_;
  // Per input, under mu_ (the interrupt line reads it): pending, or recorded with its output or with an error.
  enum : char { kPending, kRecordedDone, kRecordedFailed };
  std::vector<char> done_;
  ProgressBar bar_;
  std::atomic<std::int64_t> failed_{0};
};

}  // namespace

int run_single(const GlobalOptions& g, BatchTask& task, const std::string& report, const std::string& input,
               const std::string& output, const core::Stopwatch& total) {
  refuse_compressor_name(g.backend);
  const auto rep = open_report(report, {input}, {output});
  core::StageTable times;
  task.open(times);
  // One input: the GPU's context is made on another thread while the file is read, into ordinary memory (page-locked
  // memory would wait for the context, and making it costs more than the driver's chunked copy of ordinary memory).
  // The output is page-locked on a GPU: making it (about 0.35 s per GiB) costs less than the driver's copy into
  // ordinary memory (0.7 s per GiB) (docs/decisions.md, "One input on a GPU"). An input that open() sent to the CPU
  // leaves the GPU alone.
  std::jthread warm;
  if (!task.host_only)
    warm = std::jthread([&g] {
      try {
        if (const core::Runtime* rt = registry().transfer_runtime(g.backend)) rt->warm_up();
      } catch (...) {  // a problem with the backend shows again, as an error, when the plan is made
      }
    });
  // (transfer_runtime asks the GPU's driver whether a device is there: not for an input open() kept on the CPU.) That
  // question loads the driver (about 0.1 s, beside the warm-up thread's context): the stage `start`.
  const core::Stopwatch started;
  const core::Runtime* rt = task.host_only ? nullptr : registry().transfer_runtime(g.backend);
  if (rt != nullptr && rt->memory() == core::Memory::kDevice) times.add("start", started.elapsed_ms());
  core::TensorPool inputs(core::allocate_heap), outputs(host_blocks(rt));
  task.inputs = &inputs;
  task.outputs = &outputs;
  // One input has the cores to itself: its file is read in parts at once (a batch has a reader per core instead).
  task.read_threads = static_cast<int>(std::clamp(static_cast<unsigned>(core::usable_cores()), 1u, kSingleReadThreads));
  run_alone(g, task, times);
  times.add("total", total.elapsed_ms());
  print_timing(g, times);
  const std::string json = task.json(times) + "\n";
  commit_report(rep.get(), json);
  if (g.json) std::fputs(json.c_str(), stdout);
  return 0;
}

int run_batch(const GlobalOptions& g, const BatchRun& b) {
  // Under an MPI launcher every process runs this command line and rank 0 alone tells: the others are quiet and
  // leave a problem found before the batch starts (the same for all) to rank 0, exiting 0 (a launcher stops the job
  // at the first other exit code, which could cut rank 0 off before its line is out). docs/decisions.md §8.
  const bool other_rank = dispatch::launched_distributed() && dispatch::launcher_rank() != 0;
  GlobalOptions local = g;
  if (other_rank) local.quiet = true, local.timing = false, local.json = false;
  const auto n = static_cast<std::int64_t>(b.inputs.size());
  std::unique_ptr<core::AtomicFile> report;
  std::unique_ptr<dispatch::Dispatcher> d;
  try {
    check_batch_outputs(b.inputs, b.outputs, b.dir);
    if (b.check_backend) check_backend_usable(g.backend);
    if (!other_rank) report = open_report(b.options.report, b.inputs, b.outputs);
    if (!std::filesystem::is_directory(b.dir)) create_output_directory(b.dir);
    if (n == 1 && other_rank) return 0;  // one input is not spread: rank 0 does it
    if (n > 1) d = dispatch::Dispatcher::start(n);
  } catch (const Error&) {
    if (other_rank) return 0;
    throw;
  }
  // The host's cores are shared by the ranks on it: --jobs defaults to this rank's share, and so do FFTW's threads.
  const int ranks_here = d ? std::max(1, dispatch::local_size()) : 1;
  const int cores = core::share_of_cores(ranks_here);
  const int jobs = static_cast<int>(
      std::max<std::int64_t>(1, std::min<std::int64_t>(b.options.jobs > 0 ? b.options.jobs : cores, n)));
  configure_runtimes(g.device, g.threads > 0 ? g.threads : std::max(1, cores / jobs));
  return TransformBatch(local, b, jobs, report.get(), d.get()).run();
}

}  // namespace dct::app
