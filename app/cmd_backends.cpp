// backends: every registered backend, its ops and sizes, and whether it can run here (with the reason); then the
// compressors of `compress`.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"

namespace dct::app {
namespace {

int run_backends(const GlobalOptions& g) {
  configure_runtimes(g.device, g.threads);
  const auto& reg = registry();
  Table t;
  t.columns = {"backend", "ops", "sizes", "usable", "description"};
  std::string json = "[";
  bool first = true;
  for (const core::Backend* b : reg.all()) {
    std::string ops, ops_json;
    for (core::Op op : b->ops()) {
      ops += (ops.empty() ? "" : ",") + std::string(core::to_string(op));
      ops_json += (ops_json.empty() ? "" : ", ") + json_escape(std::string(core::to_string(op)));
    }
    const core::Support u = b->runtime().usable();
    std::string usable = u ? "yes" : "no: " + u.reason;
    if (u && !reg.auto_eligible(*b)) usable += " (named only; not picked by auto)";
    t.rows.push_back({Cell::str(std::string(b->name())), Cell::str(ops), Cell::str(std::string(b->sizes())),
                      Cell::str(usable), Cell::str(std::string(b->description()))});
    json += std::string(first ? "\n  " : ",\n  ") + "{\"name\": " + json_escape(std::string(b->name())) +
            ", \"ops\": [" + ops_json + "], \"sizes\": " + json_escape(std::string(b->sizes())) +
            ", \"usable\": " + (u ? "true" : "false") + ", \"reason\": " + json_escape(u.reason) +
            ", \"auto\": " + (reg.auto_eligible(*b) ? "true" : "false") +
            ", \"runtime\": " + json_escape(std::string(b->runtime().name())) +
            ", \"device\": " + json_escape(u ? b->runtime().device_name() : std::string()) +
            ", \"description\": " + json_escape(std::string(b->description())) + "}";
    first = false;
  }
  // The compressors `compress -b NAME` takes (app/registry.hpp compressors()): a GPU one is usable where the CUDA
  // runtime is (cuda-fft2d's); auto picks among them per image.
  for (const core::Compressor* c : compressors()) {
    const core::Backend* rt = reg.find(c->on_gpu() ? "cuda-fft2d" : "cpu-fftw");
    const core::Support u = rt != nullptr ? rt->runtime().usable() : core::Support::no("built without CUDA");
    t.rows.push_back({Cell::str(std::string(c->name())), Cell::str("compress"), Cell::str(std::string(c->takes())),
                      Cell::str(u ? "yes" : "no: " + u.reason), Cell::str(std::string(c->description()))});
    json += ",\n  {\"name\": " + json_escape(std::string(c->name())) +
            ", \"ops\": [\"compress\"], \"sizes\": " + json_escape(std::string(c->takes())) +
            ", \"usable\": " + (u ? "true" : "false") + ", \"reason\": " + json_escape(u.reason) +
            ", \"auto\": true, \"runtime\": " +
            json_escape(rt != nullptr ? std::string(rt->runtime().name()) : std::string("cuda")) +
            ", \"device\": " + json_escape(u ? rt->runtime().device_name() : std::string()) +
            ", \"description\": " + json_escape(std::string(c->description())) + "}";
  }
  json += "\n]\n";
  std::fputs(g.json ? json.c_str() : render(t, Format::kTable).c_str(), stdout);
  return 0;
}

}  // namespace

void add_backends(CLI::App& app, const GlobalOptions& g, Action& action) {
  CLI::App* c = app.add_subcommand("backends", "list the backends, their ops and whether they are usable here");
  c->callback([&g, &action] { action = [&g] { return run_backends(g); }; });
}

}  // namespace dct::app
