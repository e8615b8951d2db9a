#pragma once
// One matrix .npy to a .npy on its own (not in a batch), streamed: the plan reads the input's values from the file and
// writes the output's into the output's temporary by parts on every core (core::Plan::execute_streamed), so that no
// host array of the whole is made; on a GPU each part goes through a page-locked chunk. Used by dct2, idct2, dct4
// (app/cmd_transform.cpp) and dct, dst, r2r (app/cmd_r2r.cpp). docs/decisions.md §11.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/backend.hpp"
#include "core/formats.hpp"
#include "core/plan_cache.hpp"
#include "core/timing.hpp"

namespace dct::app {

// Whether one input of `elements` values to transform stays on the CPU under `backend` (auto only): a GPU process
// pays about 300 ms to start (the driver and the device's context) before its transform, which is what cpu-fftw takes
// for about kOneShotCpuValuesPerCore values per core it runs on (`cpu_threads`, default the host's usable cores).
bool one_shot_on_cpu(const std::string& backend, std::int64_t elements, int cpu_threads = 0);

class StreamedRun {
 public:
  // The output's temporary is made now (its blocks allocated on another thread while the device starts and the input
  // is read): `out_shape` as the .npy will hold it.
  StreamedRun(std::string input, core::NpyLayout layout, const std::string& output,
              const std::vector<std::int64_t>& out_shape, core::Precision prec, bool on_cpu);
  // Selects the backend for `d` (`on_cpu`: auto's choice among the CPU backends), plans, and runs it from the input's
  // file into the output's temporary; adds "plan", "read" and "device" to `t`. Errors name the input.
  const core::Backend& run(const GlobalOptions& g, const core::TransformDesc& d, core::PlanCache& plans,
                           bool allow_nonfinite, core::StageTable& t);
  // Commits the output; adds "write" (the output's download, write and commit).
  void commit(core::StageTable& t);

 private:
  std::string input_;
  core::NpyLayout layout_;
  std::unique_ptr<core::NpySink> sink_;
  bool on_cpu_;
  double out_ms_ = 0;
};

}  // namespace dct::app
