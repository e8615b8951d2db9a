// The backend table. Order is the `auto` preference order (DESIGN §5): GPU backends first (they are
// skipped when no device is usable), then the CPU ones; the oracle last and never picked by auto.
#include "app/registry.hpp"

#include "app/image_stb.hpp"
#include "core/unavailable.hpp"
#include "cpu/backends.hpp"
#include "cpu/block8.hpp"
#include "cpu/compress.hpp"
#include "cpu/dct4_sections.hpp"
#include "cpu/lot.hpp"
#ifdef DCTOOL_HAVE_CUDA
#include "kernels/backends.hpp"
#include "kernels/block8_backends.hpp"
#include "kernels/dct4_backends.hpp"
#include "kernels/lot_backends.hpp"
#endif

namespace dct::app {
namespace {

core::Registry build() {
  core::Registry r;
#ifdef DCTOOL_HAVE_CUDA
  for (auto& b : cuda::make_backends()) r.add(std::move(b));
  for (auto& b : cuda::make_block8_backends()) r.add(std::move(b));  // cuda-8x8, then cuda-8x8-def
  for (auto& b : cuda::make_dct4_backends()) {  // only cuda-dct4-fft for auto; the rest are named baselines
    const bool eligible = b->name() == "cuda-dct4-fft";
    r.add(std::move(b), eligible);
  }
  r.add(cuda::make_lot_backend());
#else
  // Listed so that `dctool backends` shows them and `-b cuda-...` is "unsupported here" (exit 4).
  static const core::UnavailableRuntime kNoCuda("cuda", "dctool was built without CUDA");
  using core::Op;
  const std::vector<Op> dct23{Op::kDct2, Op::kIdct2}, dct4{Op::kDct4, Op::kIdct4},
      lot{Op::kLot, Op::kIlot};
  const std::pair<const char*, const std::vector<Op>*> kCudaBackends[] = {
      {"cuda-fft2d", &dct23},     {"cuda-rowcol", &dct23},   {"cuda-1d-n", &dct23},
      {"cuda-1d-2n-mirror", &dct23}, {"cuda-1d-2n-pad", &dct23}, {"cuda-1d-4n", &dct23},
      {"cuda-8x8", &dct23},       {"cuda-8x8-def", &dct23},  {"cuda-dct4-fft", &dct4},
      {"cuda-dct4-sec4", &dct4},  {"cuda-dct4-sec8", &dct4}, {"cuda-dct4-direct", &dct4}, {"cuda-lot", &lot}};
  for (const auto& [name, ops] : kCudaBackends)
    r.add(std::make_unique<core::UnavailableBackend>(name, *ops, kNoCuda), /*auto_eligible=*/false);
#endif
  r.add(cpu::make_block8_flmad_backend());  // before cpu-fftw: auto prefers them for --block 8
  r.add(cpu::make_block8_aan_backend());
  r.add(cpu::make_fftw_backend());
  r.add(cpu::make_lot_backend());
  r.add(cpu::make_dct4_sections_backend(4), /*auto_eligible=*/false);  // seed 003, N = 17 only
  r.add(cpu::make_dct4_sections_backend(8), /*auto_eligible=*/false);
  r.add(cpu::make_naive_backend(), /*auto_eligible=*/false);
  r.add(cpu::make_block8_naive_backend());
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
  static const StbCodec codec;
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

}  // namespace dct::app
