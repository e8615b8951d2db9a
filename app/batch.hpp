#pragma once
// Batch mode of the transform commands (dct2, idct2, dct4, lot, dct, dst, r2r): several inputs, or -o naming a
// directory. The output names in the directory, the checks made before any work (colliding outputs, an output or
// the report over an input: exit 2), the report's temporary, and the run itself on the three-stage pipeline
// (app/pipeline.hpp), each worker with its own plans: a progress bar, one line per failed input, the report in
// input order, one summary line, exit 3 when an input failed.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/plan_cache.hpp"
#include "core/tensor_pool.hpp"
#include "core/timing.hpp"

namespace dct::app {

// --format, --report and --jobs of a transform command.
struct BatchOptions {
  std::string format;  // the outputs' format in -o DIR; "" = npy
  std::string report;  // --report FILE.json
  int jobs = 0;        // 0: all cores
};
void add_batch_options(CLI::App* c, BatchOptions& b);

// What -o means: a directory (several inputs, a name ending in '/', or an existing directory whose name is not
// that of an output file, such as out.npy) receiving DIR/<input stem>.<format>; else the one output file.
struct BatchTargets {
  bool dir = false;
  std::vector<std::string> outputs;  // one per input
};
// Throws kUsage: a file where a directory is needed, an unknown --format, a --format that disagrees with -o FILE.
BatchTargets resolve_targets(const std::vector<std::string>& inputs, const std::string& output,
                             const std::string& format);

// One input's work, stage by stage (a reader, a worker, a writer call them in turn). A stage throws dct::Error
// when the input fails; the later stages are then skipped. Each stage adds its rows to `t`.
class BatchTask {
 public:
  virtual ~BatchTask() = default;
  // One input on its own (run_single) only, before anything else: a look at the input that may set host_only.
  virtual void open(core::StageTable&) {}
  bool host_only = false;  // set by open(): this input runs on the CPU, so the GPU is not started
  virtual void read(core::StageTable& t) = 0;
  virtual void transform(core::PlanCache& plans, core::StageTable& t) = 0;
  virtual void write(core::StageTable& t) = 0;                    // the output, committed
  virtual std::string json(const core::StageTable& t) const = 0;  // the report entry of a success
  std::vector<std::string> notes;  // lines for stderr made by the stages ("dctool: " is added)
  bool in_batch = false;           // run by run_batch (GPU faults then fall back to the CPU under -b auto)
  // Where the stages take the tensors they read and compute (not filled: they write every element): blocks of host
  // memory reused from input to input, made by the runtime the backend transfers with (page-locked for CUDA). Set
  // by run_batch and run_single; null: the heap.
  core::TensorPool* inputs = nullptr;
  core::TensorPool* outputs = nullptr;
  int read_threads = 1;  // threads that read a large input file (ReadOptions::threads)
};

// One input and -o FILE (its checks made): the report opened, the stages in a row on this thread with the shared
// plan cache, notes printed as they come, errors propagated as in any command; then --timing, the report and
// --json. `total` runs from the command's start.
int run_single(const GlobalOptions& g, BatchTask& task, const std::string& report, const std::string& input,
               const std::string& output, const core::Stopwatch& total);

struct BatchRun {
  std::string op;  // the report's "op" of an entry that failed
  std::vector<std::string> inputs, outputs;
  std::string dir;  // -o DIR
  BatchOptions options;
  bool check_backend = true;  // whether a --backend runs (refused up front when unknown or unusable here)
  std::function<std::unique_ptr<BatchTask>(const std::string& input, const std::string& output)> task;
};
// Several inputs or -o DIR, once the command has checked what is its own (an output's format against the op): the
// outputs checked, the backend too, the report opened and the directory created, all before any work; then the
// pipeline on --jobs workers, each with --threads or its share of the cores. Returns 0, or 3 when an input failed.
int run_batch(const GlobalOptions& g, const BatchRun& b);

}  // namespace dct::app
