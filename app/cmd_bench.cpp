// bench: parses the sweep into a core::BenchRequest and renders the rows (README "bench" columns). JSON is an
// object: what measured (dctool version and revision, the command, the date, the device) and the rows.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/distributed.hpp"
#include "app/options.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "app/version.hpp"
#include "core/bench.hpp"
#include "core/distributed.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"

namespace dct::app {
namespace {

struct BenchOptions {
  std::string ops = "dct2,idct2";
  std::string sizes = "512x512,1024x1024,2048x2048";
  std::string backends = "auto";
  std::string precisions;  // "" = the global --precision
  std::string norm = "none";
  std::string axis = "both";
  std::string effort = "measure";
  int block = 0;
  long long batch = 1;
  int reps = 20;
  int warmup = 3;
  bool verify = false;
  bool distributed = false;
  std::string format = "table";
  std::string output;
};

std::vector<const core::Backend*> pick_backends(const std::string& spec, const core::BenchRequest& req) {
  const auto& reg = registry();
  std::vector<const core::Backend*> out;
  auto add = [&](const core::Backend* b) {
    for (auto* x : out)
      if (x == b) return;
    out.push_back(b);
  };
  if (spec == "auto") {
    // The backend auto would pick, per op / size / precision.
    for (core::Op op : req.ops)
      for (core::Shape2 s : req.sizes)
        for (core::Precision p : req.precisions) {
          core::TransformDesc d{op, req.norm, req.axis, req.block, s, req.batch, p, req.effort, {}};
          try {
            add(&reg.select(d, "auto"));
          } catch (const Error&) {
          }
        }
    for (const core::R2rBenchOp& op : req.r2r_ops)
      for (const core::ShapeN& s : req.extents)
        for (core::Precision p : req.precisions) {
          try {
            add(&reg.select(core::bench_r2r_desc(op, s, req, p), "auto"));
          } catch (const Error&) {
          }
        }
  } else if (spec == "all") {
    // Every usable auto-eligible backend; oracles (cpu-naive) only when named.
    for (const core::Backend* b : reg.all())
      if (reg.auto_eligible(*b) && b->runtime().usable()) add(b);
  } else {
    for (const std::string& name : split_list(spec)) {
      const core::Backend* b = reg.find(name);
      if (b == nullptr) throw reg.unknown(name, "--backends", "auto, all");
      add(b);
    }
  }
  if (out.empty()) throw Error(ErrorCode::kUnsupported, "--backends", "no usable backend for this sweep");
  return out;
}

Format format_for(const BenchOptions& o, const GlobalOptions& g) {
  // -o FILE follows its extension (.csv, .json, .md; others: the table); a --format that names another is exit 2.
  const std::string& f = o.output;
  const std::string by_ext = f.ends_with(".csv")    ? "csv"
                             : f.ends_with(".json") ? "json"
                             : f.ends_with(".md")   ? "md"
                                                    : "";
  const std::string asked = g.json ? "json" : o.format;
  if (!by_ext.empty() && asked != "table" && asked != by_ext)
    throw Error(ErrorCode::kUsage, g.json ? "--json" : "--format",
                asked + " does not match -o " + f + " (its extension makes it " + by_ext + ")");
  if (g.json) return Format::kJson;
  if (o.format != "table" || f.empty()) return parse_format(o.format);
  return by_ext.empty() ? Format::kTable : parse_format(by_ext);
}

core::Effort effort_of(const BenchOptions& o) {
  if (o.effort == "estimate") return core::Effort::kEstimate;
  if (o.effort != "measure")
    throw Error(ErrorCode::kUsage, "--effort", "invalid value '" + o.effort + "' (expected measure|estimate)");
  return core::Effort::kMeasure;
}

core::BenchRequest request_of(const GlobalOptions& g, const BenchOptions& o) {
  core::BenchRequest req;
  for (const auto& s : split_list(o.ops)) {
    if (std::optional<core::R2rBenchOp> r = core::parse_r2r_bench_op(s)) {
      req.r2r_ops.push_back(std::move(*r));
    } else if (s == "dct2" || s == "idct2" || s == "dct4" || s == "idct4" || s == "lot" || s == "ilot") {
      req.ops.push_back(core::parse_op(s));
    } else {
      throw Error(ErrorCode::kUsage, "--ops",
                  "invalid value '" + s + "' (expected dct2|idct2|dct4|idct4|lot|ilot, " +
                      std::string(core::kR2rBenchOpForms) + ")");
    }
  }
  // Every size is an extent of the real-to-real ops; those of rank 1 and 2 are also sizes of the older ops.
  for (const auto& s : split_list(o.sizes)) {
    const core::ShapeN n = core::parse_shape_n(s);
    req.extents.push_back(n);
    if (n.rank <= 2) req.sizes.push_back(n.rank == 1 ? core::Shape2{1, n.dims[0]} : core::Shape2{n.dims[0], n.dims[1]});
  }
  if (!req.ops.empty() && req.sizes.empty() && !req.extents.empty())
    throw Error(ErrorCode::kUsage, "--sizes", "3-D sizes are for the real-to-real ops (dct1, dst2, r2r:...) only");
  for (const auto& s : split_list(o.precisions.empty() ? std::string(core::to_string(precision_of(g))) : o.precisions))
    req.precisions.push_back(core::parse_precision(s));
  if ((req.ops.empty() && req.r2r_ops.empty()) || req.extents.empty() || req.precisions.empty())
    throw Error(ErrorCode::kUsage, "bench needs at least one op, size and precision");
  req.norm = core::parse_norm(o.norm);
  req.axis = core::parse_axis(o.axis);
  req.block = o.block;
  req.batch = o.batch;
  for (const core::ShapeN& sz : req.extents) {  // as file headers are: no sweep point over the element limit
    std::int64_t n = req.batch;
    for (int a = 0; a < sz.rank; ++a)
      if (n > core::kMaxElements / sz.dims[a])
        throw Error(ErrorCode::kUsage, "bench --sizes " + sz.to_string() + " with --batch " +
                                           std::to_string(req.batch) + " exceeds the limit of 2^32 elements");
      else
        n *= sz.dims[a];
  }
  req.reps = o.reps;
  req.warmup = o.warmup;
  req.verify = o.verify;
  req.effort = effort_of(o);
  const std::string spec = g.backend != "auto" && o.backends == "auto" ? g.backend : o.backends;
  req.backends = pick_backends(spec, req);
  if (spec == "auto") req.auto_pick = [](const core::TransformDesc& d) { return &registry().select(d, "auto"); };
  // f64 references, in order: FFTW, then the LOT's (tested against the matrix definition), then the
  // direct definitions.
  for (const char* name : {"cpu-fftw", "cpu-lot", "cpu-naive"})
    if (const core::Backend* b = registry().find(name)) req.oracles.push_back(b);
  return req;
}

// "64x64x64" with its JSON array [64, 64, 64], as Cell::shape gives HxW.
Cell dims_cell(const std::string& dims) {
  std::string json = "[";
  for (char c : dims) json += c == 'x' ? std::string(", ") : std::string(1, c);
  return {Cell::Kind::kText, dims, 0, 0, json + "]"};
}

Table table_of(const std::vector<core::BenchRow>& rows) {
  Table t;
  t.columns = core::bench_columns();
  for (const auto& r : rows) {
    t.rows.push_back({Cell::str(r.op), Cell::str(r.backend), Cell::str(r.precision),
                      r.dims.empty() ? Cell::shape(r.shape) : dims_cell(r.dims),
                      Cell::num(static_cast<double>(r.batch), 12), Cell::num(r.reps, 12), Cell::num(r.median_ms),
                      Cell::num(r.min_ms), Cell::num(r.max_ms), Cell::num(r.gbps), Cell::opt(r.x_copy, 3),
                      Cell::opt(r.x_fft, 3), Cell::opt(r.e2e_ms), Cell::opt(r.cpu_ms), Cell::opt(r.max_rel_err, 3),
                      Cell::str(r.device), Cell::str(r.axis)});
  }
  return t;
}

// Now, UTC, ISO 8601: "2025-06-01T12:34:56Z".
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The devices the swept backends run on, each named once ("; " between several).
std::string device_names_of(const std::vector<const core::Backend*>& backends) {
  std::vector<std::string> names;
  for (const core::Backend* b : backends) {
    if (!b->runtime().usable()) continue;
    const std::string n = b->runtime().device_name();
    bool seen = false;
    for (const auto& x : names) seen = seen || x == n;
    if (!seen) names.push_back(n);
  }
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : "; ") + n;
  return s;
}

// {"dctool": version, "revision", "command", "date", "device", "rows": [the rows as objects]}.
std::string bench_json(const GlobalOptions& g, const std::string& date, const std::string& device, const Table& t) {
  std::string rows = render(t, Format::kJson);
  while (!rows.empty() && rows.back() == '\n') rows.pop_back();
  return "{\"dctool\": " + json_escape(version()) + ", \"revision\": " + json_escape(revision()) +
         ", \"command\": " + json_escape(g.command_line) + ", \"date\": " + json_escape(date) +
         ", \"device\": " + json_escape(device) + ",\n \"rows\": " + rows + "}\n";
}

void write_report(const BenchOptions& o, const std::string& text) {
  if (o.output.empty()) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  core::AtomicFile f(o.output);
  f.write(text.data(), text.size());
  f.commit();
}

using NoteFn = std::function<void(const std::string&)>;
using RowFn = std::function<void(const core::BenchRow&)>;

// One aggregate row per case measured on several devices: their rates added (the devices ran the case at the same
// time, each on its own thread), so median_ms is the time per transform of the devices together.
std::vector<core::BenchRow> aggregate_rows(const std::vector<std::vector<core::BenchRow>>& per_device) {
  std::vector<core::BenchRow> out;
  if (per_device.size() < 2) return out;
  for (const core::BenchRow& first : per_device.front()) {
    core::BenchRow a = first;
    double rate = 0, rate_min = 0, rate_max = 0;  // transforms per ms at the median, best and worst times
    a.gbps = 0;
    int found = 0;
    for (const auto& rows : per_device)
      for (const core::BenchRow& r : rows)
        if (r.op == first.op && r.backend == first.backend && r.precision == first.precision &&
            r.shape.rows == first.shape.rows && r.shape.cols == first.shape.cols && r.dims == first.dims &&
            r.median_ms > 0) {
          rate += 1.0 / r.median_ms;
          rate_min += 1.0 / r.max_ms;
          rate_max += 1.0 / std::max(r.min_ms, 1e-12);
          a.gbps += r.gbps;
          ++found;
          break;
        }
    if (found != static_cast<int>(per_device.size())) continue;
    a.median_ms = 1.0 / rate;
    a.min_ms = 1.0 / rate_max;
    a.max_ms = 1.0 / rate_min;
    a.x_copy = a.x_fft = a.e2e_ms = a.cpu_ms = a.max_rel_err = std::nullopt;
    a.device = "all " + std::to_string(per_device.size()) + " devices at once";
    out.push_back(a);
  }
  return out;
}

// bench --devices: CPU backends once; the GPU backends on every listed device at the same time, one thread per device,
// rows named "cuda:N <device>", then the aggregate rows.
std::vector<core::BenchRow> bench_on_devices(const core::BenchRequest& req, const std::vector<int>& devices,
                                             const NoteFn& on_note, const RowFn& on_row) {
  core::BenchRequest cpu = req, gpu = req;
  cpu.backends.clear();
  gpu.backends.clear();
  for (const core::Backend* b : req.backends) (b->runtime().name() == "cuda" ? gpu : cpu).backends.push_back(b);
  std::vector<core::BenchRow> rows;
  if (!cpu.backends.empty()) rows = core::run_bench(cpu, on_note, on_row);
  if (gpu.backends.empty() || devices.empty()) return rows;
  std::mutex mu;
  const NoteFn note_locked = [&](const std::string& m) {
    std::lock_guard<std::mutex> lock(mu);
    on_note(m);
  };
  const RowFn row_locked = [&](const core::BenchRow& r) {
    std::lock_guard<std::mutex> lock(mu);
    if (on_row) on_row(r);
  };
  std::vector<std::vector<core::BenchRow>> per(devices.size());
  std::vector<std::exception_ptr> errors(devices.size());
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < devices.size(); ++k)
    threads.emplace_back([&, k] {
      try {
        bind_thread_device(devices[k]);
        per[k] = core::run_bench(gpu, note_locked, row_locked);
        for (auto& r : per[k]) r.device = "cuda:" + std::to_string(devices[k]) + " " + r.device;
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (const auto& p : per) rows.insert(rows.end(), p.begin(), p.end());
  const std::vector<core::BenchRow> agg = aggregate_rows(per);
  rows.insert(rows.end(), agg.begin(), agg.end());
  return rows;
}

// ---- bench --distributed ------------------------------------------------------------------------------------

// An op of a distributed sweep as real-to-real kinds: dct2, idct2, dct4 and idct4 along every axis, or a real-to-real
// op of the sweep; `inverse` set for idct2 and idct4.
core::R2rBenchOp distributed_op(const std::string& s, bool& inverse) {
  inverse = s == "idct2" || s == "idct4";
  if (s == "dct2" || s == "idct2") return {s, {core::R2rKind::kDct2}, true};
  if (s == "dct4" || s == "idct4") return {s, {core::R2rKind::kDct4}, true};
  if (std::optional<core::R2rBenchOp> r = core::parse_r2r_bench_op(s)) return *r;
  throw Error(ErrorCode::kUsage, "--ops",
              "'" + s + "' has no distributed form (dct2, idct2, dct4, idct4, dct1, dct3, dst1..dst4, r2r:KIND+KIND)");
}

Table distributed_table() {
  Table t;
  t.columns = {"op",         "backend", "precision", "dims",        "processes",      "gpus",          "reps",
               "median_ms",  "min_ms",  "max_ms",    "exchange_ms", "exchange_share", "exchange_gbps", "alltoall_gbps",
               "x_alltoall", "device"};
  return t;
}

void add_distributed_row(Table& t, const std::string& op, const std::string& backends,
                         const core::dist::SlabBenchRow& r, int gpus, const std::string& device) {
  // Over devices the copies overlap the slab step: their rate is that of the copies timed alone.
  const double copy_ms = r.copies_ms > 0 ? r.copies_ms : r.exchange_ms;
  const double gbps = copy_ms > 0 ? r.exchange_bytes / copy_ms * 1e-6 : 0;
  const bool plain = r.alltoall_ms > 0;
  const auto opt = [&](double v) { return plain ? Cell::num(v, 4) : Cell{}; };
  t.rows.push_back({Cell::str(op), Cell::str(backends), Cell::str(r.precision), dims_cell(r.dims),
                    Cell::num(r.processes, 12), Cell::num(gpus, 12), Cell::num(r.reps, 12), Cell::num(r.median_ms),
                    Cell::num(r.min_ms), Cell::num(r.max_ms), Cell::num(r.exchange_ms),
                    Cell::num(r.median_ms > 0 ? r.exchange_ms / r.median_ms : 0, 3), opt(gbps),
                    opt(r.exchange_bytes / r.alltoall_ms * 1e-6), opt(copy_ms / r.alltoall_ms), Cell::str(device)});
}

// One transform of each size across the job's processes: the slowest process's time, the all-to-all's share of it,
// and the bytes/s of the exchange (the bytes that cross between processes) beside those of a plain MPI_Alltoall of
// as many bytes in the same run (x_alltoall: the exchange's time over the plain one's).
int run_distributed_bench(const GlobalOptions& g, const BenchOptions& o) {
  return run_on_job(g, [&](core::dist::Exchange& ex) {
    core::BenchRequest req;
    Format fmt = Format::kTable;
    std::vector<std::pair<core::R2rBenchOp, bool>> ops;
    GlobalOptions local = g;  // the one backend of the local steps: --backends NAME, else -b
    core::dist::collective(ex, [&] {
      if (o.verify || o.block != 0 || o.batch != 1)
        throw Error(ErrorCode::kUsage, "--distributed",
                    "times one whole-array transform: --verify, --block and --batch do not apply");
      if (o.backends != "auto") {
        if (o.backends == "all" || split_list(o.backends).size() != 1)
          throw Error(ErrorCode::kUsage, "--distributed", "times one backend (--backends NAME or -b NAME)");
        local.backend = o.backends;
      }
      fmt = format_for(o, g);
      for (const auto& s : split_list(o.ops)) {
        bool inverse = false;
        core::R2rBenchOp op = distributed_op(s, inverse);
        ops.emplace_back(std::move(op), inverse);
      }
      for (const auto& s : split_list(o.sizes)) {
        const core::ShapeN n = core::parse_shape_n(s);
        if (n.rank < 2) throw Error(ErrorCode::kUsage, "--sizes", "a distributed transform is 2-D or 3-D, not " + s);
        req.extents.push_back(n);
      }
      for (const auto& s :
           split_list(o.precisions.empty() ? std::string(core::to_string(precision_of(g))) : o.precisions))
        req.precisions.push_back(core::parse_precision(s));
      req.norm = core::parse_norm(o.norm);
      req.effort = effort_of(o);
      if (!o.output.empty() && ex.root()) core::check_output_path(o.output, {});
    });
    Table t = distributed_table();
    std::string device;
    // One process given --devices: the transform over those GPUs, the data kept on them.
    const bool on_devices = ex.size() == 1 && !g.devices.empty();
    const std::vector<int> devices = on_devices ? devices_of(g) : std::vector<int>{};
    for (const auto& op_inverse : ops)
      for (const core::ShapeN& size : req.extents)
        for (core::Precision prec : req.precisions) {
          const auto& op = op_inverse.first;  // not a structured binding: lambdas below capture it (clang 14)
          const bool inverse = op_inverse.second;
          core::TransformDesc whole;
          std::unique_ptr<core::dist::SlabTransform> slabs;
          std::vector<std::string> backends;
          if (on_devices) {
            whole = core::bench_r2r_desc(op, size, req, prec);
            whole.r2r.inverse = inverse;
            const auto group = make_device_group(whole, devices, local.backend, backends);
            device = registry().find(backends.front())->runtime().device_name();
            add_distributed_row(t, op.name, backend_names(backends),
                                core::dist::bench_group(*group, whole, o.reps, o.warmup), group->devices(), device);
            continue;
          }
          core::dist::collective(ex, [&] {
            whole = core::bench_r2r_desc(op, size, req, prec);
            whole.r2r.inverse = inverse;
            slabs = make_slab_transform(local, ex, whole, backends);
            device = registry().find(backends.front())->runtime().device_name();
          });
          const core::dist::SlabBenchRow r = core::dist::bench_slab(ex, *slabs, whole, o.reps, o.warmup);
          add_distributed_row(t, op.name, backend_names(backends), r, 0, device);
          if (g.verbose && ex.root())
            note(g, op.name + " " + r.precision + " " + r.dims + " on " + std::to_string(r.processes) +
                        " processes: " + format_number(r.median_ms, 4) + " ms");
        }
    core::dist::collective(ex, [&] {
      if (ex.root())
        write_report(o, fmt == Format::kJson
                            ? bench_json(g, utc_now(), device + ", " + std::to_string(ex.size()) + " processes", t)
                            : render(t, fmt));
    });
    return 0;
  });
}

int run_bench(const GlobalOptions& g, const BenchOptions& o) {
  if (o.distributed) return run_distributed_bench(g, o);
  configure_runtimes(g.device, g.threads);
  const Format fmt = format_for(o, g);
  const core::BenchRequest req = request_of(g, o);
  if (!o.output.empty()) core::check_output_path(o.output, {});

  const std::string date = utc_now();
  std::string first_skip;
  const NoteFn on_note = [&](const std::string& msg) {
    if (first_skip.empty() && msg.rfind("skip ", 0) == 0) first_skip = msg.substr(5);
    note(g, msg);
  };
  const RowFn on_row = [&](const core::BenchRow& r) {
    if (g.verbose)
      note(g, r.op + " " + r.backend + " " + r.precision + " " + core::to_string(r.shape) + ": " +
                  format_number(r.median_ms, 4) + " ms");
  };
  auto rows =
      g.devices.empty() ? core::run_bench(req, on_note, on_row) : bench_on_devices(req, devices_of(g), on_note, on_row);
  // Nothing measured is not a result: exit 4 (README "Exit codes") rather than an empty table, or one of only the
  // plain-DCT baseline rows that accompany the requested cases.
  const bool measured = std::any_of(rows.begin(), rows.end(),
                                    [](const core::BenchRow& r) { return r.backend.rfind("baseline:", 0) != 0; });
  if (!measured)
    throw Error(
        ErrorCode::kUnsupported, "bench",
        "no requested backend can run any requested case" + (first_skip.empty() ? "" : " (" + first_skip + ")"));
  const Table t = table_of(rows);
  write_report(o, fmt == Format::kJson ? bench_json(g, date, device_names_of(req.backends), t) : render(t, fmt));
  return 0;
}

}  // namespace

void add_bench(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* c = app.add_subcommand("bench", "time backends (median/min/max, GB/s, x_copy, x_fft, e2e)");
  c->add_option("--ops", o->ops,
                "comma list: dct2,idct2,dct4,idct4,lot,ilot; real-to-real: dct1,dct3,dst1..dst4 (every axis), "
                "r2r:KIND+KIND (the last axes)");
  c->add_option("--sizes", o->sizes, "comma list of N, HxW or DxHxW (3-D: real-to-real ops only)");
  c->add_option("--backends", o->backends, "auto|all|comma list");
  c->add_option("--precision", o->precisions, "comma list: f32,f64 (default the global -p)");
  c->add_option("--norm", o->norm, "none|ortho (real-to-real ops: also backward|forward)");
  c->add_option("--axis", o->axis, "both|rows|cols");
  c->add_option("--block", o->block, "BxB tiles")->check(non_negative());
  c->add_option("--batch", o->batch, "matrices per call")->check(positive());
  c->add_option("--reps", o->reps, "timed repetitions (default 20)")->check(positive());
  c->add_option("--warmup", o->warmup, "untimed repetitions first (default 3)")->check(non_negative());
  c->add_option("--effort", o->effort, "FFTW planning: measure|estimate (default measure)");
  c->add_flag("--verify", o->verify, "relative L2 error against the f64 CPU oracle");
  c->add_flag("--distributed", o->distributed,
              "under an MPI launcher: one transform of each 2-D/3-D size across the processes (docs/distributed.md): "
              "time, the all-to-all's share, its bytes/s against a plain MPI_Alltoall of the same bytes");
  c->add_option("--format", o->format, "table|md|csv|json");
  c->add_option("-o,--output", o->output, "write the report to FILE instead of stdout");
  c->callback([o, &g, &action] { action = [o, &g] { return run_bench(g, *o); }; });
}

}  // namespace dct::app
