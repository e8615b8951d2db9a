// bench: parses the sweep into a core::BenchRequest and renders the rows (DESIGN §8 column names).
#include <cstdio>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/bench.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"

namespace dct::app {
namespace {

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
          core::TransformDesc d{op, req.norm, req.axis, req.block, s, req.batch, p, req.effort};
          try {
            add(&reg.select(d, "auto"));
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
      if (b == nullptr) reg.select(core::TransformDesc{}, name);  // throws the unknown-backend error
      add(b);
    }
  }
  if (out.empty()) throw Error(ErrorCode::kUnsupported, "--backends", "no usable backend for this sweep");
  return out;
}

Format format_for(const BenchOptions& o, const GlobalOptions& g) {
  if (g.json) return Format::kJson;
  if (o.format != "table" || o.output.empty()) return parse_format(o.format);
  // -o FILE with the default format: follow the extension.
  const std::string& f = o.output;
  auto ends = [&](const char* e) { return f.size() >= std::string(e).size() && f.ends_with(e); };
  if (ends(".csv")) return Format::kCsv;
  if (ends(".json")) return Format::kJson;
  if (ends(".md")) return Format::kMarkdown;
  return Format::kTable;
}

}  // namespace

int run_bench(const GlobalOptions& g, const BenchOptions& o) {
  configure_runtimes(g.device, g.threads);
  const Format fmt = format_for(o, g);
  core::BenchRequest req;
  for (const auto& s : split_list(o.ops)) req.ops.push_back(core::parse_op(s));
  for (const auto& s : split_list(o.sizes)) req.sizes.push_back(core::parse_shape(s));
  for (const auto& s : split_list(o.precisions.empty() ? g.precision : o.precisions))
    req.precisions.push_back(core::parse_precision(s));
  if (req.ops.empty() || req.sizes.empty() || req.precisions.empty())
    throw Error(ErrorCode::kUsage, "bench needs at least one op, size and precision");
  req.norm = core::parse_norm(o.norm);
  req.axis = core::parse_axis(o.axis);
  req.block = o.block;
  req.batch = o.batch;
  req.reps = o.reps;
  req.warmup = o.warmup;
  req.verify = o.verify;
  if (o.effort == "estimate") req.effort = core::Effort::kEstimate;
  else if (o.effort != "measure")
    throw Error(ErrorCode::kUsage, "--effort", "invalid value '" + o.effort + "' (expected measure|estimate)");
  req.backends = pick_backends(g.backend != "auto" && o.backends == "auto" ? g.backend : o.backends, req);
  // f64 references, in order: FFTW, then the LOT's (tested against the matrix definition), then the
  // direct definitions.
  for (const char* name : {"cpu-fftw", "cpu-lot", "cpu-naive"})
    if (const core::Backend* b = registry().find(name)) req.oracles.push_back(b);
  if (!o.output.empty()) core::check_output_path(o.output, {});

  auto rows = core::run_bench(
      req, [&](const std::string& msg) { note(g, msg); },
      [&](const core::BenchRow& r) {
        if (g.verbose) note(g, r.op + " " + r.backend + " " + r.precision + " " + r.shape + ": " +
                                   format_number(r.median_ms, 4) + " ms");
      });

  Table t;
  t.columns = core::bench_columns();
  for (const auto& r : rows) {
    t.rows.push_back({Cell::str(r.op), Cell::str(r.backend), Cell::str(r.precision), Cell::str(r.shape),
                      Cell::num(static_cast<double>(r.batch), 12), Cell::num(r.reps, 12), Cell::num(r.median_ms),
                      Cell::num(r.min_ms), Cell::num(r.max_ms), Cell::num(r.gbps), Cell::opt(r.x_copy, 3),
                      Cell::opt(r.x_fft, 3), Cell::opt(r.e2e_ms), Cell::opt(r.cpu_ms), Cell::opt(r.max_rel_err, 3),
                      Cell::str(r.device)});
  }
  const std::string text = render(t, fmt);
  if (o.output.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    core::AtomicFile f(o.output);
    f.write(text.data(), text.size());
    f.commit();
  }
  return 0;
}

}  // namespace dct::app
