// The backend table. Order is the `auto` preference order (README, Backends): GPU backends first (they are
// skipped when no device is usable), then the CPU ones; the oracle last and never picked by auto.
#include "app/registry.hpp"

#include "app/image_codec.hpp"
#include "core/unavailable.hpp"
#include "cpu/backends.hpp"
#include "cpu/block8.hpp"
#include "cpu/compress.hpp"
#include "cpu/dct4_sections.hpp"
#include "cpu/lot.hpp"
#include "kernels/backends.hpp"  // the CUDA backend table (plain C++; its factories exist only with CUDA)
#include "kernels/dist/group.hpp"

namespace dct::app {
namespace {

core::Registry build() {
  core::Registry r;
  // CUDA rows first (skipped by auto when no device is usable); without CUDA the same rows, unavailable.
#ifndef DCTOOL_HAVE_CUDA
  static const core::UnavailableRuntime kNoCuda("cuda", "dctool was built without CUDA");
#endif
  for (const cuda::BackendRow& row : cuda::kBackendTable) {
#ifdef DCTOOL_HAVE_CUDA
    r.add(cuda::make_backend(row), row.auto_eligible);
#else
    r.add(std::make_unique<core::UnavailableBackend>(std::string(row.name),
                                                     std::vector<core::Op>(row.ops.begin(), row.ops.end()),
                                                     std::string(row.sizes), std::string(row.description), kNoCuda),
          /*auto_eligible=*/false);
#endif
  }
  r.add(cpu::make_block8_flmad_backend());                         // before cpu-fftw: auto prefers them for --block 8
  r.add(cpu::make_block8_aan_backend(), /*auto_eligible=*/false);  // named: cpu-8x8-flmad is faster
  r.add(cpu::make_fftw_backend());
  r.add(cpu::make_lot_backend());
  r.add(cpu::make_dct4_sections_backend(4), /*auto_eligible=*/false);  // [3], N = 17 only
  r.add(cpu::make_dct4_sections_backend(8), /*auto_eligible=*/false);
  r.add(cpu::make_naive_backend(), /*auto_eligible=*/false);
  r.add(cpu::make_block8_naive_backend(), /*auto_eligible=*/false);  // the 8x8 definition, a reference
  return r;
}

}  // namespace

const core::Registry& registry() {
  static const core::Registry r = build();
  return r;
}

core::PlanCache& plan_cache() {
  static core::PlanCache cache(32);
  return cache;
}

const std::vector<const core::Compressor*>& compressors() {
  static const auto owned = [] {
    std::vector<std::unique_ptr<core::Compressor>> v;
#ifdef DCTOOL_HAVE_CUDA
    v.push_back(cuda::make_fused_jpeg_compressor());
    v.push_back(cuda::make_whole_compressor());  // threshold / keep
#endif
    v.push_back(cpu::make_cpu_compressor(registry()));
    return v;
  }();
  static const auto list = [] {
    std::vector<const core::Compressor*> v;
    for (const auto& c : owned) v.push_back(c.get());
    return v;
  }();
  return list;
}

const core::ImageCodec& image_codec() {
  static const ImageFileCodec codec;
  return codec;
}

const core::Compressor* find_compressor(std::string_view name) {
  for (const core::Compressor* c : compressors())
    if (c->name() == name) return c;
  return nullptr;
}

bool cuda_compiled() {
#ifdef DCTOOL_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

void configure_runtimes(int device, int threads) {
  cpu::set_threads(threads);
#ifdef DCTOOL_HAVE_CUDA
  cuda::set_device(device);
#else
  (void)device;
#endif
}

int visible_devices() {
#ifdef DCTOOL_HAVE_CUDA
  return cuda::visible_devices();
#else
  return 0;
#endif
}

void bind_thread_device(int ordinal) {
#ifdef DCTOOL_HAVE_CUDA
  cuda::bind_thread_device(ordinal);
#else
  (void)ordinal;
#endif
}

void set_thread_cpu_only(bool on) {
#ifdef DCTOOL_HAVE_CUDA
  cuda::set_thread_cpu_only(on);
#else
  (void)on;
#endif
}

void retire_devices() {
#ifdef DCTOOL_HAVE_CUDA
  cuda::retire_devices();
#endif
}

int active_device() {
#ifdef DCTOOL_HAVE_CUDA
  return cuda::current_device();
#else
  return 0;
#endif
}

std::unique_ptr<core::dist::DeviceGroup> make_device_group(const core::TransformDesc& whole,
                                                           const std::vector<int>& devices, const std::string& backend,
                                                           std::vector<std::string>& backends) {
  if (devices.empty()) throw Error(ErrorCode::kUnsupported, "no CUDA device to split the array over");
#ifdef DCTOOL_HAVE_CUDA
  const int bound = cuda::current_device();
  struct Rebind {  // the calling thread's device as it was
    int device;
    ~Rebind() { bind_thread_device(device); }
  } rebind{bound};
  return cuda::make_device_group(whole, devices, [&](const core::TransformDesc& d, int device) {
    bind_thread_device(device);
    const core::Backend& b = registry().select(d, backend);
    if (b.runtime().memory() != core::Memory::kDevice)
      throw Error(ErrorCode::kUnsupported, "a transform over several GPUs runs its local steps on a CUDA backend (" +
                                               std::string(b.name()) + " runs on the host)");
    backends.emplace_back(b.name());
    return b.make_plan(d);
  });
#else
  (void)whole, (void)devices, (void)backend, (void)backends;
  throw Error(ErrorCode::kUnsupported, "a transform over several GPUs needs CUDA: dctool was built without it");
#endif
}

}  // namespace dct::app
