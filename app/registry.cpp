// The backend table. Order is the `auto` preference order (DESIGN §5): GPU backends first (they are
// skipped when no device is usable), then the CPU ones; the oracle last and never picked by auto.
#include "app/registry.hpp"

#include "app/image_stb.hpp"
#include "cpu/backends.hpp"
#ifdef DCTOOL_HAVE_CUDA
#include "kernels/backends.hpp"
#endif

namespace dct::app {
namespace {

core::Registry build() {
  core::Registry r;
#ifdef DCTOOL_HAVE_CUDA
  for (auto& b : cuda::make_backends()) r.add(std::move(b));
#endif
  r.add(cpu::make_fftw_backend());
  r.add(cpu::make_naive_backend(), /*auto_eligible=*/false);
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

const core::ImageCodec& image_codec() {
  static const StbCodec codec;
  return codec;
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

}  // namespace dct::app
