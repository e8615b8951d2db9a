#pragma once
// The transform commands (dct, dst, r2r, dct2, idct2, dct4) on one .npy input under an MPI launcher of several
// processes, or with --distributed: the whole array transformed across the job's processes (core/distributed.hpp),
// each reading its slab of the input and writing its part of the output at their offsets, never gathered on one;
// rank 0 writes the output's header and commits it (docs/distributed.md).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/distributed.hpp"
#include "core/types.hpp"

namespace CLI {
class App;
}

namespace dct::app {

// --distributed of a transform command.
void add_distributed_flag(CLI::App* c, bool& flag);

// Whether the command runs distributed: --distributed, or one input to one -o FILE under a launcher of several
// processes (several inputs there are a batch spread over them). --distributed with several inputs or -o DIR is a
// usage error.
bool distributed_mode(bool flag, std::size_t inputs, bool output_dir);

struct DistributedRun {
  std::string command;  // dct2, r2r, ... (the result's "op")
  std::string input, output, report;
  // The array's transform for the .npy's shape: its extents and a kind per axis (the command's options); throws as
  // the command would (kUsage, kInput).
  std::function<core::R2rSpec(const std::vector<std::int64_t>& shape)> spec;
  core::Norm norm = core::Norm::kNone;
  bool keep_float64 = false;  // without -p, a float64 input gives f64 (dct, dst, r2r); else f32
};

// Starts the job's exchange (app/exchange.hpp) and runs `body` on every process: runtimes configured with the process's
// share of its host (its cores; on a host of several GPUs, one of them), the processes other than rank 0 quiet when a
// signal stops them. An error of `body`, the same on every process where it comes from agreed steps
// (core::dist::collective), is printed by rank 0 alone; then every process returns its exit code.
int run_on_job(const GlobalOptions& g, const std::function<int(core::dist::Exchange&)>& body);

// The slab transform of `whole` on this process, its local plans made by the backends --backend selects (their names
// appended to `backends`).
std::unique_ptr<core::dist::SlabTransform> make_slab_transform(const GlobalOptions& g, const core::dist::Exchange& ex,
                                                               const core::TransformDesc& whole,
                                                               std::vector<std::string>& backends);
// The local steps' backends, each named once, "+" between them.
std::string backend_names(const std::vector<std::string>& names);

// Runs it on every process of the job; returns the exit code. Every step's outcome is agreed among the processes: a
// failure on any is the same error on all, which exit with its code after rank 0 printed its one line, and no output
// is left.
int run_distributed(const GlobalOptions& g, const DistributedRun& r);

}  // namespace dct::app
