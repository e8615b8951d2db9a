// Hidden timing check (run by hand: test_cpu "[.bench]" -s): cpu-fftw dct2 f32 against the runtime's plain
// REDFT10 2-D baseline with the same effort (FFTW_MEASURE), interleaved, medians. No timed assertions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/registry.hpp"
#include "core/timing.hpp"
#include "cpu/backends.hpp"
#include "support.hpp"

namespace {

using namespace dct;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST_CASE("bench: cpu-fftw dct2 f32 vs plain REDFT10", "[.bench]") {
  const core::Backend* fftw = app::registry().find("cpu-fftw");
  REQUIRE(fftw != nullptr);
  const core::Runtime& rt = fftw->runtime();
  for (std::int64_t n : {2048, 4096}) {
    const core::Shape2 shape{n, n};
    const core::HostTensor x = test::random_tensor(shape, 1, core::Precision::kF32, 1);
    core::HostTensor y(shape, 1, core::Precision::kF32);
    core::Stopwatch plan_sw;
    auto plain =
        rt.make_baseline(core::Runtime::Baseline::kPlainDct2, shape, 1, core::Precision::kF32, core::Effort::kMeasure);
    const double plain_plan_ms = plan_sw.elapsed_ms();
    for (core::Norm norm : {core::Norm::kNone, core::Norm::kOrtho}) {
      core::TransformDesc d;
      d.op = core::Op::kDct2;
      d.norm = norm;
      d.shape = shape;
      d.prec = core::Precision::kF32;
      d.effort = core::Effort::kMeasure;
      plan_sw.reset();
      auto plan = fftw->make_plan(d);
      const double plan_ms = plan_sw.elapsed_ms();
      const int reps = n >= 4096 ? 10 : 20;
      std::vector<double> tp, tf;
      for (int i = 0; i < reps + 2; ++i) {
        core::Stopwatch sw;
        plain->execute(x.view(), y.view());
        const double a = sw.elapsed_ms();
        sw.reset();
        plan->execute(x.view(), y.view());
        const double b = sw.elapsed_ms();
        if (i >= 2) tp.push_back(a), tf.push_back(b);
      }
      std::printf(
          "%s  %s: plain REDFT10 %.2f ms, cpu-fftw %.2f ms, ratio %.3f (min ratio %.3f; plan %.0f / %.0f ms) on %s\n",
          core::to_string(shape).c_str(), std::string(core::to_string(norm)).c_str(), median(tp), median(tf),
          median(tf) / median(tp), *std::min_element(tf.begin(), tf.end()) / *std::min_element(tp.begin(), tp.end()),
          plain_plan_ms, plan_ms, rt.device_name().c_str());
    }
  }
}

}  // namespace
