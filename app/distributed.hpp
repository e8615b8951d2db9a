#pragma once
// The transform commands (dct, dst, r2r, dct2, idct2, dct4) on one .npy input under an MPI launcher of several
// processes, or with --distributed: the whole array transformed across the job's processes (core/distributed.hpp),
// each reading its slab of the input and writing its part of the output at their offsets, never gathered on one;
// rank 0 writes the output's header and commits it (docs/distributed.md).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/commands.hpp"
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

// Runs it on every process of the job; returns the exit code. Every step's outcome is agreed among the processes: a
// failure on any is the same error on all, which exit with its code after rank 0 printed its one line, and no output
// is left.
int run_distributed(const GlobalOptions& g, const DistributedRun& r);

}  // namespace dct::app
