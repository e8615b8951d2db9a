// plan: measures FFTW plans for the given shapes once, so that later one-shot commands on those shapes run with
// measured plans (the wisdom cache, README "Environment").
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/options.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "core/bench.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/timing.hpp"

namespace dct::app {
namespace {

struct PlanOptions {
  std::string ops = "dct2,idct2";
  std::string sizes;
  std::string precisions;  // "" = the global --precision
  std::string norm = "none";
  std::string axis = "both";
  long long batch = 1;
};

int run_plan(const GlobalOptions& g, const PlanOptions& o) {
  configure_runtimes(g.device, g.threads);
  const std::string backend = g.backend == "auto" ? "cpu-fftw" : g.backend;
  // Neither --precision nor -p: f32, as every command's default.
  const std::string precisions = !o.precisions.empty() ? o.precisions : !g.precision.empty() ? g.precision : "f32";
  // Every request parsed and checked before any is planned: a bad value is a usage error with nothing measured.
  std::vector<core::TransformDesc> requests;
  for (const auto& ps : split_list(precisions))
    for (const auto& ss : split_list(o.sizes))
      for (const auto& os : split_list(o.ops)) {
        // The real-to-real ops as bench names them (dct1, dst2, r2r:KIND+KIND ...), on sizes of rank 1 to 3.
        if (const std::optional<core::R2rBenchOp> r = core::parse_r2r_bench_op(os)) {
          core::BenchRequest req;
          req.norm = core::parse_norm(o.norm);
          req.batch = o.batch;
          req.effort = core::Effort::kMeasure;
          requests.push_back(core::bench_r2r_desc(*r, core::parse_shape_n(ss), req, core::parse_precision(ps)));
          continue;
        }
        if (os != "dct2" && os != "idct2" && os != "dct4" && os != "idct4")
          throw Error(ErrorCode::kUsage, "--ops",
                      "invalid value '" + os + "' (expected dct2|idct2|dct4|idct4, " +
                          std::string(core::kR2rBenchOpForms) + ")");
        if (core::parse_shape_n(ss).rank > 2)
          throw Error(ErrorCode::kUsage, "--sizes",
                      ss + ": 3-D sizes are for the real-to-real ops (dct1, dst2, r2r:...) only");
        core::TransformDesc d;
        d.op = core::parse_op(os);
        d.norm = core::parse_norm(o.norm);
        d.axis = core::parse_axis(o.axis);
        d.shape = core::parse_shape(ss);
        d.batch = o.batch;
        d.prec = core::parse_precision(ps);
        d.effort = core::Effort::kMeasure;
        if (d.shape.rows > core::kMaxElements / d.shape.cols || d.shape.count() > core::kMaxElements / d.batch)
          throw Error(ErrorCode::kUsage, "--sizes", ss + " exceeds the limit of 2^32 elements");
        requests.push_back(d);
      }
  if (requests.empty()) throw Error(ErrorCode::kUsage, "plan needs --sizes (and at least one op and precision)");
  std::vector<const core::Backend*> chosen;
  for (const auto& d : requests) chosen.push_back(&registry().select(d, backend));
  // --json: one object per request on stdout, {request, backend, plan_ms}, as the notes say it.
  std::string json = "[";
  for (std::size_t i = 0; i < requests.size(); ++i) {
    core::Stopwatch sw;
    chosen[i]->make_plan(requests[i]);
    const double ms = sw.elapsed_ms();
    note(g, "planned " + requests[i].to_string() + " on " + std::string(chosen[i]->name()) + " in " +
                format_number(ms, 4) + " ms");
    json += std::string(i == 0 ? "\n  " : ",\n  ") + "{\"request\": " + json_escape(requests[i].to_string()) +
            ", \"backend\": " + json_escape(std::string(chosen[i]->name())) + ", \"plan_ms\": " + format_number(ms, 4) +
            "}";
  }
  if (g.json) std::fputs((json + "\n]\n").c_str(), stdout);
  return 0;
}

}  // namespace

void add_plan(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* c = app.add_subcommand("plan", "measure FFTW plans for these shapes once; later commands reuse them");
  c->add_option("--sizes", o->sizes, "comma list of HxW (real-to-real ops: N, HxW or DxHxW)")->required();
  c->add_option("--ops", o->ops,
                "comma list: dct2,idct2,dct4,idct4, or bench's real-to-real ops on sizes of rank 1-3 (dct1, dst2, "
                "r2r:dct2+dst3, ...) (default dct2,idct2)");
  c->add_option("--precision", o->precisions, "comma list: f32,f64 (default the global -p, else f32)");
  c->add_option("--norm", o->norm, "none|ortho (real-to-real ops: also backward|forward)");
  c->add_option("--axis", o->axis, "both|rows|cols");
  c->add_option("--batch", o->batch, "matrices (channels) per transform")->check(CLI::PositiveNumber);
  c->callback([o, &g, &action] { action = [o, &g] { return run_plan(g, *o); }; });
}

}  // namespace dct::app
