#pragma once
// The one place that knows which backends exist and whether CUDA was compiled in.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/compress.hpp"
#include "core/distributed.hpp"
#include "core/formats.hpp"
#include "core/plan_cache.hpp"
#include "core/registry.hpp"

namespace dct::app {

const core::Registry& registry();
core::PlanCache& plan_cache();
const core::ImageCodec& image_codec();  // app/image_codec.hpp
// The compress implementations in preference order: the fused GPU jpeg path first (when CUDA is compiled
// in), the CPU compressor last (it supports every request).
const std::vector<const core::Compressor*>& compressors();
// The compressor of that name in compressors(), or null.
const core::Compressor* find_compressor(std::string_view name);
bool cuda_compiled();
// Applies --device N / thread count before the registry is first used.
void configure_runtimes(int device, int threads);
// CUDA devices present (0 without CUDA, a driver or a device).
int visible_devices();
// Binds the calling thread to a CUDA device (plans and compressor states it makes live there; -1: --device's).
void bind_thread_device(int ordinal);
// The device the calling thread's CUDA work goes to (the plan cache's key); 0 without CUDA.
int active_device();
// GPU faults in a batch: keep the calling thread's work off the GPU while `on` (an input too large for the device
// memory), or every thread's from now on (after a device error).
void set_thread_cpu_only(bool on);
// Keeps the calling thread's work off the GPU while it lives (when `on`).
class ThreadCpuOnly {
 public:
  explicit ThreadCpuOnly(bool on = true) : on_(on) {
    if (on_) set_thread_cpu_only(true);
  }
  ~ThreadCpuOnly() {
    if (on_) set_thread_cpu_only(false);
  }
  ThreadCpuOnly(const ThreadCpuOnly&) = delete;
  ThreadCpuOnly& operator=(const ThreadCpuOnly&) = delete;

 private:
  bool on_;
};
void retire_devices();
// One transform of a 2-D or 3-D array over these GPUs of this process (core::dist::DeviceGroup, kernels/dist/): each
// local step's plan on its device by `backend` (auto: the registry's choice), their names appended to `backends`.
// kUnsupported without CUDA, or when a local step would run on the host.
std::unique_ptr<core::dist::DeviceGroup> make_device_group(const core::TransformDesc& whole,
                                                           const std::vector<int>& devices, const std::string& backend,
                                                           std::vector<std::string>& backends);

}  // namespace dct::app
