#include "app/streamed.hpp"

#include <utility>

#include "app/registry.hpp"
#include "core/cores.hpp"
#include "core/error.hpp"

namespace dct::app {
namespace {

// A GPU process's ~300 ms start against cpu-fftw's 55-71 core-ns per value: NVIDIA H200 host, 16 cores, one call,
// 8192^2 f32 .npy 310 ms on the CPU against 425 on the GPU, 16384^2 1426 against 536 (docs/decisions.md §11).
constexpr std::int64_t kOneShotCpuValuesPerCore = 5'000'000;

}  // namespace

bool one_shot_on_cpu(const std::string& backend, std::int64_t elements, int cpu_threads) {
  return backend == "auto" &&
         elements < kOneShotCpuValuesPerCore * (cpu_threads > 0 ? cpu_threads : core::usable_cores());
}

StreamedRun::StreamedRun(std::string input, core::NpyLayout layout, const std::string& output,
                         const std::vector<std::int64_t>& out_shape, core::Precision prec, bool on_cpu)
    : input_(std::move(input)),
      layout_(std::move(layout)),
      sink_(std::make_unique<core::NpySink>(output, out_shape, prec)),
      on_cpu_(on_cpu) {}

const core::Backend& StreamedRun::run(const GlobalOptions& g, const core::TransformDesc& d, core::PlanCache& plans,
                                      bool allow_nonfinite, core::StageTable& t) {
  const ThreadCpuOnly cpu_only(on_cpu_);
  try {
    const core::Backend& backend = registry().select(d, g.backend);
    core::Stopwatch sw;
    const auto plan = plans.get(backend, d, active_device());
    t.add("plan", sw.lap_ms());
    const core::NpySource source(input_, layout_, d.prec, allow_nonfinite);
    const core::StreamTimes st = [&] {
      try {
        return plan->execute_streamed(source, *sink_, core::usable_cores());
      } catch (const Error&) {
        if (source.saw_nonfinite()) source.throw_first_nonfinite();  // the first in the file, not the first met
        throw;
      }
    }();
    t.add("read", st.in_ms);
    t.add("device", st.device_ms);
    out_ms_ = st.out_ms;
    return backend;
  } catch (const Error& e) {
    rethrow_with_subject(e, input_);
  }
}

void StreamedRun::commit(core::StageTable& t) {
  core::Stopwatch sw;
  sink_->commit();
  t.add("write", out_ms_ + sw.elapsed_ms());
}

}  // namespace dct::app
