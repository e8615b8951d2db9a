// A distributed transform of one .npy (app/distributed.hpp): the steps, each agreed among the processes
// (core::dist::collective) so that a failure anywhere stops all of them with one error; the output is rank 0's
// AtomicFile, sized before any process writes its part and committed once every part is on the disk.
#include "app/distributed.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "app/common.hpp"
#include "app/dispatch.hpp"
#include "app/exchange.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/interrupt.hpp"
#include "core/r2r.hpp"
#include "core/tensor.hpp"

namespace dct::app {
namespace {

// The host's cores are shared by the processes on it, and a launcher may bind each process to some of them (Open MPI
// binds each of two processes to a core): core::share_of_cores (--threads: each process's).
int process_threads(const GlobalOptions& g) {
  if (g.threads > 0) return g.threads;
  return core::share_of_cores(dispatch::local_size());
}

void require_npy(const std::string& path, const char* what) {
  if (core::lower_extension(path) != ".npy")
    throw Error(ErrorCode::kUnsupported, path, std::string("a distributed transform ") + what + " .npy files");
}

core::Precision precision_for(const GlobalOptions& g, const DistributedRun& r, bool float64) {
  if (!g.precision.empty()) return precision_of(g);
  return r.keep_float64 && float64 ? core::Precision::kF64 : core::Precision::kF32;
}

std::string result_json(const DistributedRun& r, const core::TransformDesc& d, const std::string& backends,
                        int processes, int gpus, const core::StageTable& times) {
  return "{\"input\": " + json_escape(r.input) + ", \"output\": " + json_escape(r.output) +
         ", \"op\": " + json_escape(r.command) + ", \"kinds\": " + json_escape(d.r2r.kinds_text()) +
         ", \"inverse\": " + (d.r2r.inverse ? "true" : "false") +
         ", \"norm\": " + json_escape(d.norm == core::Norm::kNone ? "backward" : std::string(core::to_string(d.norm))) +
         ", \"backend\": " + json_escape(backends) + ", \"processes\": " + std::to_string(processes) +
         (gpus > 0 ? ", \"gpus\": " + std::to_string(gpus) : std::string()) +
         ", \"precision\": " + json_escape(std::string(core::to_string(d.prec))) +
         ", \"dims\": " + json_escape(d.r2r.dims_text()) + ", \"shape\": " + json_dims(d.r2r) +
         ", \"timing_ms\": " + json_timing(times) + "}";
}

// The transform and its buffers, once every process has checked the files and made its plans.
struct Setup {
  core::NpyLayout layout;
  core::TransformDesc whole;
  std::unique_ptr<core::dist::SlabTransform> slabs;
  std::vector<std::string> backends;
  core::AlignedBuffer a, b;
};

// The files checked, the input's layout read, the whole array's transform described (errors name the input).
void describe(const GlobalOptions& g, const DistributedRun& r, core::NpyLayout& layout, core::TransformDesc& whole) {
  require_npy(r.input, "reads");
  require_npy(r.output, "writes");
  core::check_output_path(r.output, {r.input});
  if (!r.report.empty()) core::check_output_path(r.report, {r.input, r.output});
  layout = core::read_npy_layout(r.input, core::kMaxDistributedElements);
  try {
    if (layout.shape.size() < 2)
      throw Error(ErrorCode::kUnsupported, "a distributed transform is of a 2-D or 3-D array; this one is 1-D");
    if (layout.fortran)
      throw Error(ErrorCode::kInput,
                  "fortran_order True: a distributed transform reads C-ordered arrays (save "
                  "np.ascontiguousarray(a))");
    whole = core::r2r_desc(r.spec(layout.shape), r.norm, 1, precision_for(g, r, layout.float64));
    if (const core::Support ok = core::r2r::check_r2r_desc(whole); !ok) throw Error(ErrorCode::kUnsupported, ok.reason);
  } catch (const Error& e) {
    rethrow_with_subject(e, r.input);
  }
}

void set_up(const GlobalOptions& g, const DistributedRun& r, const core::dist::Exchange& ex, Setup& s) {
  describe(g, r, s.layout, s.whole);
  try {
    s.slabs = make_slab_transform(g, ex, s.whole, s.backends);
  } catch (const Error& e) {
    rethrow_with_subject(e, r.input);
  }
  const std::size_t bytes =
      static_cast<std::size_t>(std::max<std::int64_t>(s.slabs->buffer_elements(), 1)) * element_size(s.whole.prec);
  s.a = core::AlignedBuffer(bytes);
  s.b = core::AlignedBuffer(bytes);
}

// How many threads write `bytes` of a result: at least 16 MiB each, at most `pieces` (the writes that cannot be split)
// and `threads`, at least one.
std::size_t write_parts(std::int64_t bytes, std::int64_t pieces, int threads) {
  return static_cast<std::size_t>(std::clamp<std::int64_t>(std::min(bytes >> 24, pieces), 1, std::max(1, threads)));
}

// This process's part of the result into the output's temporary (`temp`, made and sized by rank 0), after `header`:
// its runs at their offsets, shared out among `threads` threads (at least 16 MiB of runs each).
void write_part(const DistributedRun& r, const Setup& s, const std::string& temp, std::int64_t header,
                const char* result, int threads) {
  const auto esize = static_cast<std::int64_t>(element_size(s.whole.prec));
  core::PartWriter part(temp, r.output);
  const core::dist::SlabTransform::Runs runs = s.slabs->output();
  const std::int64_t bytes = runs.count * runs.length * esize;
  const std::size_t parts = write_parts(bytes, runs.count, threads);
  core::run_parts(parts, [&](std::size_t p) {
    const auto n = static_cast<std::int64_t>(parts), i = static_cast<std::int64_t>(p);
    for (std::int64_t k = runs.count * i / n; k < runs.count * (i + 1) / n; ++k)
      part.write_at(header + (runs.first + k * runs.stride) * esize, result + k * runs.length * esize,
                    static_cast<std::size_t>(runs.length * esize));
  });
  part.close();
}

}  // namespace

void add_distributed_flag(CLI::App* c, bool& flag) {
  c->add_flag(
      "--distributed", flag,
      "one transform of the whole .npy array across the processes of an MPI launcher (the default there with one input "
      "and -o FILE); without a launcher, the same slab path in this process, or over the GPUs --devices names");
}

bool distributed_mode(bool flag, std::size_t inputs, bool output_dir) {
  if (flag && (inputs != 1 || output_dir))
    throw Error(ErrorCode::kUsage, "--distributed", "transforms one input into one -o FILE.npy");
  return flag || (inputs == 1 && !output_dir && dispatch::launched_distributed());
}

int run_on_job(const GlobalOptions& g, const std::function<int(core::dist::Exchange&)>& body) {
  // Stopped by a signal (the launcher stops the job when a process fails or is killed), the other processes stay
  // quiet: rank 0 removes its temporaries and tells.
  const auto quiet = [](const std::string&) { return std::string(); };
  std::unique_ptr<core::dist::Exchange> ex;
  try {
    ex = dispatch::start_exchange();
  } catch (const Error&) {
    if (dispatch::launcher_rank() == 0) throw;
    core::set_interrupt_summary(quiet);
    return 0;  // rank 0 tells, as in a batch (docs/decisions.md §8)
  }
  if (!ex->root()) core::set_interrupt_summary(quiet);
  try {
    // On a host of several GPUs each process takes one (devices_of).
    core::dist::collective(*ex, [&] { configure_runtimes(devices_of(g).front(), process_threads(g)); });
    return body(*ex);
  } catch (const Error& e) {
    // Every process has this error (each step is agreed): rank 0 tells, and the line is out before any exits (a
    // launcher stops the job at the first process that exits with an error).
    if (ex->root()) {
      std::fprintf(stderr, "%s\n", e.message().c_str());
      std::fflush(stderr);
      core::set_interrupt_summary(quiet);
    }
    ex->barrier();
    return e.exit_code();
  }
}

std::unique_ptr<core::dist::SlabTransform> make_slab_transform(const GlobalOptions& g, const core::dist::Exchange& ex,
                                                               const core::TransformDesc& whole,
                                                               std::vector<std::string>& backends) {
  return std::make_unique<core::dist::SlabTransform>(
      whole, ex.rank(), ex.size(),
      [&](const core::TransformDesc& d) {
        const core::Backend& backend = registry().select(d, g.backend);
        backends.emplace_back(backend.name());
        return backend.make_plan(d);
      },
      process_threads(g));
}

std::string backend_names(const std::vector<std::string>& names) {
  std::string s;
  for (auto it = names.begin(); it != names.end(); ++it)
    if (std::find(names.begin(), it, *it) == it) s += (s.empty() ? "" : "+") + *it;
  return s;
}

namespace {

// One process with --devices: the whole array read into host memory, transformed over the GPUs (the slabs kept on
// them, the exchange between them), the result downloaded into the same memory and written back in parts.
int run_on_devices(const GlobalOptions& g, const DistributedRun& r, const core::Stopwatch& total) {
  core::StageTable times;
  core::Stopwatch sw;
  core::NpyLayout layout;
  core::TransformDesc whole;
  describe(g, r, layout, whole);
  const std::vector<int> devices = devices_of(g);
  std::vector<std::string> backends;
  std::unique_ptr<core::dist::DeviceGroup> group;
  try {
    group = make_device_group(whole, devices, g.backend, backends);
  } catch (const Error& e) {
    rethrow_with_subject(e, r.input);
  }
  times.add("plan", sw.lap_ms());

  const int threads = process_threads(g);
  // The output's temporary is allocated and mapped on another thread meanwhile (core::NpySink).
  core::NpySink out(r.output, layout.shape, whole.prec, core::kMaxDistributedElements);
  // One host array, input and then output: every slab is on its device before any result comes back, and its pages,
  // touched by the read, take the download without faulting.
  core::AlignedBuffer a(std::max<std::size_t>(whole.bytes(), 1));
  core::read_npy_values(r.input, layout, 0, whole.elements(), a.data(), whole.prec, false, threads);
  times.add("read", sw.lap_ms());

  core::dist::GroupTimes gt;
  try {
    gt = group->execute_timed(a.data(), a.data());
  } catch (const Error& e) {
    rethrow_with_subject(e, r.input);
  }
  times.add("upload", gt.upload_ms);
  times.add("local", gt.local_ms);
  times.add("exchange", gt.exchange_ms);
  times.add("download", gt.download_ms);

  sw.reset();
  // Copies into the mapping on every core: its page faults run in parallel (a pwrite takes the file's lock).
  const std::size_t bytes = whole.bytes();
  const std::size_t parts = write_parts(static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(bytes), threads);
  core::run_parts(parts, [&](std::size_t p) {
    const std::size_t from = bytes * p / parts, to = bytes * (p + 1) / parts;
    out.write(from, static_cast<const char*>(a.data()) + from, to - from);
  });
  out.commit();
  times.add("write", sw.elapsed_ms());
  times.add("total", total.elapsed_ms());

  const std::string json =
      result_json(r, whole, backend_names(backends), 1, static_cast<int>(devices.size()), times) + "\n";
  if (!r.report.empty()) {
    core::AtomicFile report(r.report);
    report.write(json.data(), json.size());
    report.commit();
  }
  if (g.verbose)
    note(g, r.output + ": " + whole.r2r.dims_text() + " over " + std::to_string(devices.size()) +
                " GPUs (slabs of axis 0), " + backend_names(backends));
  print_timing(g, times);
  if (g.json) std::fputs(json.c_str(), stdout);
  return 0;
}

}  // namespace

int run_distributed(const GlobalOptions& g, const DistributedRun& r) {
  const core::Stopwatch total;
  return run_on_job(g, [&](core::dist::Exchange& ex) {
    if (ex.size() == 1 && !g.devices.empty()) return run_on_devices(g, r, total);
    using core::dist::collective;
    const bool root = ex.root();
    core::StageTable times;
    auto stage = [&](const char* name, double ms) { times.add(name, ex.max(ms)); };  // the slowest process's
    Setup s;
    const int threads = process_threads(g);
    core::Stopwatch sw;
    collective(ex, [&] { set_up(g, r, ex, s); });
    stage("plan", sw.elapsed_ms());

    sw.reset();
    const std::string header = core::npy_header(s.layout.shape, s.whole.prec);
    std::unique_ptr<core::AtomicFile> out;  // rank 0's; its temporary goes when this scope is left by an error
    std::string temp;
    collective(ex, [&] {
      if (!root) return;
      out = std::make_unique<core::AtomicFile>(r.output);
      out->write(header.data(), header.size());
      out->resize(static_cast<std::int64_t>(header.size() + s.whole.bytes()));
      temp = out->temp_path();
    });
    temp = ex.broadcast(temp);
    const core::dist::Part rows = s.slabs->rows();
    collective(ex, [&] {
      core::read_npy_values(r.input, s.layout, rows.begin * s.slabs->row_elements(),
                            rows.count * s.slabs->row_elements(), s.a.data(), s.whole.prec, false, threads);
    });
    stage("read", sw.elapsed_ms());

    core::dist::SlabTimes st;
    const char* result = nullptr;
    collective(ex, [&] { result = static_cast<const char*>(s.slabs->execute(ex, s.a.data(), s.b.data(), &st)); });
    stage("local", st.local_ms);
    if (s.slabs->exchanges()) {
      stage("copy", st.copy_ms);
      stage("exchange", st.exchange_ms);
    }

    sw.reset();
    collective(ex, [&] { write_part(r, s, temp, static_cast<std::int64_t>(header.size()), result, threads); });
    collective(ex, [&] {
      if (root) out->commit();
    });
    stage("write", sw.elapsed_ms());
    stage("total", total.elapsed_ms());

    const std::string json = result_json(r, s.whole, backend_names(s.backends), ex.size(), 0, times) + "\n";
    collective(ex, [&] {
      if (!root || r.report.empty()) return;
      core::AtomicFile report(r.report);
      report.write(json.data(), json.size());
      report.commit();
    });
    if (!root) return 0;
    if (g.verbose)
      note(g, r.output + ": " + s.whole.r2r.dims_text() + " over " + std::to_string(ex.size()) +
                  " processes (slabs of axis 0), " + backend_names(s.backends));
    print_timing(g, times);
    if (g.json) std::fputs(json.c_str(), stdout);
    return 0;
  });
}

}  // namespace dct::app
