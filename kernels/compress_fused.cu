/* cuda-jpeg-fused: DESIGN §4's jpeg mode in one kernel, 8-bit planes in, 8-bit planes out (issue 4: the image
   crosses device memory once each way). The device code and its design are in kernels/compress_fused_tc.cuh (v6,
   the default: the 8x8 DCTs on the tensor cores) and kernels/compress_fused.cuh (v3 and v5, CPU-exact, by
   DCTOOL_JPEG_FUSED); scripts/jpeg-emulate.sh runs all three on the host. This file is the launch and the
   Compressor. CPU and GPU agree to > 50 dB: v3/v5 quantize the coefficients that can sit exactly on a rounding tie
   bit-exactly and differ elsewhere only where f32 noise decides the rounding; v6's f16 products move a few more
   coefficients across a rounding boundary (PSNR(CPU, v6) 57.3-63.8 dB on the sample images, run13). */
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/compress.hpp"
#include "core/error.hpp"
#include "kernels/backends.hpp"
#include "kernels/block8_backends.hpp"
#include "kernels/compress_fused.cuh"
#include "kernels/compress_fused_tc.cuh"
#include "kernels/gpu_plan.cuh"

namespace dct::cuda {
namespace {

using jpeg_fused::kBins;
using jpeg_fused::kThreads;
using jpeg_fused::kZeroBin;

template <int kPlanes>
__global__ void __launch_bounds__(kThreads, 3) fused_jpeg_kernel(const jpeg_fused::Params p) {
  extern __shared__ float4 smem[];  // RGB: two 8x8 float slots per thread; then the histogram
  float4* slots = smem;
  auto* hist = reinterpret_cast<unsigned*>(smem + (kPlanes == 3 ? 2 * jpeg_fused::kSlotFloat4 * kThreads : 0));
  jpeg_fused::fused_jpeg_cta<kPlanes>(p, slots, hist, threadIdx.x, blockIdx.x);
}

template <int kPlanes>
__global__ void __launch_bounds__(jpeg_fused::rows::kThreads, 4) fused_jpeg_kernel_rows(const jpeg_fused::Params p) {
  namespace jr = jpeg_fused::rows;
  extern __shared__ float4 smem[];  // lane tables, the blocks' transpose areas, the histogram
  auto* tabs = reinterpret_cast<jr::LaneTable*>(smem);
  float* tr = reinterpret_cast<float*>(tabs + jr::kLaneTables);
  auto* hist = reinterpret_cast<unsigned*>(tr + jr::kBlocks * jr::kTrBlock);
  jr::fused_jpeg_cta<kPlanes>(p, tabs, tr, hist, threadIdx.x, blockIdx.x, blockIdx.y);
}

// Gray at 3 CTAs per SM (80 registers, 24 warps), RGB at 2 (128 registers).
template <int kPlanes, int kPairs, bool kDeqF16>
__global__ void __launch_bounds__(jpeg_fused::tc::kThreads, kPlanes == 1 ? 3 : 2)
    fused_jpeg_kernel_tc(const jpeg_fused::Params p) {
  extern __shared__ uint4 smem_tc[];  // the warps' input and output staging areas, then the CTA's histogram
  auto* stage = reinterpret_cast<unsigned char*>(smem_tc);
  auto* hist = reinterpret_cast<unsigned*>(stage + jpeg_fused::tc::stage_bytes(kPlanes, kPairs));
  jpeg_fused::tc::fused_jpeg_cta<kPlanes, kPairs, kDeqF16>(p, stage, hist, threadIdx.x, blockIdx.x);
}

// v6's kernels by planes (1, 3), dequantizer (f16 where every Q >= 2, else f32: tc::deq_f16_ok) and block pairs per
// warp (1, 2, 4).
template <int kPlanes, bool kDeqF16>
constexpr void (*kTcKernels[3])(jpeg_fused::Params) = {fused_jpeg_kernel_tc<kPlanes, 1, kDeqF16>,
                                                         fused_jpeg_kernel_tc<kPlanes, 2, kDeqF16>,
                                                         fused_jpeg_kernel_tc<kPlanes, 4, kDeqF16>};

enum class Kernel { kV3, kV5, kV6 };

// A positive integer switch from the environment (v6's DCTOOL_JPEG_TC_STRIPS, _PAIRS), dflt when unset (0: unset); anything
// else is a usage error.
int env_positive(const char* name, int dflt) {
  const char* e = std::getenv(name);
  if (e == nullptr) return dflt;
  char* end = nullptr;
  const long v = std::strtol(e, &end, 10);
  if (end == e || *end != '\0' || v < 1 || v > 65536)
    throw Error(ErrorCode::kUsage, name, std::string("'") + e + "' is not a count from 1 to 65536");
  return static_cast<int>(v);
}

// DCTOOL_JPEG_FUSED picks the kernel: v6 (the default: the DCTs on the tensor cores, f16 products, four block pairs
// per warp, the output staged per warp in shared memory; kernels/compress_fused_tc.cuh), or the CPU-exact ones, v3 (one
// thread per block, all planes in registers) and v5 (eight threads per 8x8 block, a row each; compress_fused.cuh),
// whose output and histogram are bit-identical to each other. H200, quality 50 (run11, notes/block8.md): 4096^2 RGB
// v6 0.069, v5 0.087, v3 0.097 ms; 4096^2 gray v6 0.022, v3 0.025 ms. Anything else is a usage error, so that a
// mistyped A/B run cannot silently measure the default.
Kernel pick_kernel() {
  const char* e = std::getenv("DCTOOL_JPEG_FUSED");
  if (e == nullptr || std::strcmp(e, "v6") == 0) return Kernel::kV6;
  if (std::strcmp(e, "v5") == 0) return Kernel::kV5;
  if (std::strcmp(e, "v3") == 0) return Kernel::kV3;
  throw Error(ErrorCode::kUsage, "DCTOOL_JPEG_FUSED", std::string("unknown kernel '") + e + "' (v3, v5, v6)");
}

// How one kernel is launched: CTA size, pixels of a strip per CTA, strips per CTA (v3: one, a 1-D grid; v6: chosen
// at launch), dynamic shared memory.
struct Shape {
  void (*kernel)(jpeg_fused::Params);
  unsigned threads;
  long long cta_pixels, strips_per_cta;
  std::size_t smem;
};

// v6's block pairs per warp: DCTOOL_JPEG_TC_PAIRS (1, 2 or 4; anything else is a usage error), else dflt.
int tc_pairs(int dflt) {
  const int n = env_positive("DCTOOL_JPEG_TC_PAIRS", dflt);
  if (n != 1 && n != 2 && n != 4)
    throw Error(ErrorCode::kUsage, "DCTOOL_JPEG_TC_PAIRS", "'" + std::to_string(n) + "' is not 1, 2 or 4");
  return n;
}

// v6's dequantizer: the f16 one where the tables allow it (tc::deq_f16_ok), unless DCTOOL_JPEG_TC_DEQ=f32 (the other
// one, for A/B runs and the gpu test that both give the same bits; anything but f16 or f32 is a usage error).
bool tc_deq_f16(const jpeg_fused::Table (&tab)[2]) {
  const char* e = std::getenv("DCTOOL_JPEG_TC_DEQ");
  if (e != nullptr && std::strcmp(e, "f32") != 0 && std::strcmp(e, "f16") != 0)
    throw Error(ErrorCode::kUsage, "DCTOOL_JPEG_TC_DEQ", std::string("'") + e + "' is not f16 or f32");
  return (e == nullptr || std::strcmp(e, "f16") == 0) && jpeg_fused::tc::deq_f16_ok(tab);
}

Shape shape_of(Kernel kind, int planes, int half_bins, int tc_pairs, bool deq_f16) {
  const bool three = planes == 3;
  const std::size_t hist = 2 * static_cast<std::size_t>(half_bins) * sizeof(unsigned);
  switch (kind) {
    case Kernel::kV6: {
      const int i = tc_pairs == 4 ? 2 : tc_pairs == 2 ? 1 : 0;
      void (*const k)(jpeg_fused::Params) = three ? (deq_f16 ? kTcKernels<3, true>[i] : kTcKernels<3, false>[i])
                                                  : (deq_f16 ? kTcKernels<1, true>[i] : kTcKernels<1, false>[i]);
      return {k, jpeg_fused::tc::kThreads,
              16LL * jpeg_fused::tc::kWarps * tc_pairs, 0, jpeg_fused::tc::smem_bytes(half_bins, planes, tc_pairs)};
    }
    case Kernel::kV5:
      return {three ? fused_jpeg_kernel_rows<3> : fused_jpeg_kernel_rows<1>, jpeg_fused::rows::kThreads,
              8 * jpeg_fused::rows::kBlocks, jpeg_fused::rows::kStrips, jpeg_fused::rows::smem_bytes(half_bins)};
    case Kernel::kV3:
      break;
  }
  return {three ? fused_jpeg_kernel<3> : fused_jpeg_kernel<1>, kThreads, 8 * kThreads, 1,
          (three ? 2 * jpeg_fused::kSlotFloat4 * kThreads * sizeof(float4) : 0) + hist};
}

class FusedJpegCompressor final : public core::Compressor {
 public:
  std::string_view name() const override { return "cuda-jpeg-fused"; }

  core::Support supports(const core::CompressRequest& r, const core::Dataset& in) const override {
    if (r.mode != core::CompressMode::kJpeg) return core::Support::no("jpeg mode only");
    if (in.kind != core::SourceKind::kImage8) return core::Support::no("8-bit images only");
    if (in.tensor.channels() < 1 || in.tensor.channels() > 4) return core::Support::no("1 to 4 channels");
    if (r.prec != core::Precision::kF32) return core::Support::no("f32 only");
    if (in.tensor.rows() > (1 << 27) || in.tensor.cols() > (1 << 27)) return core::Support::no("image too large");
    return cuda_runtime().usable();
  }

  core::CompressResult run(const core::CompressRequest& r, const core::Dataset& in) const override {
    core::validate_compress(r, in);
    if (core::Support s = supports(r, in); !s) throw Error(ErrorCode::kUnsupported, "cuda-jpeg-fused", s.reason);
    core::CompressResult res;
    res.backend = "cuda-jpeg-fused";
    const int h = static_cast<int>(in.tensor.rows()), w = static_cast<int>(in.tensor.cols());
    const int ch = static_cast<int>(in.tensor.channels());
    const int planes = core::coded_planes(ch);
    const long long hp = core::round_up8(h), wp = core::round_up8(w);
    const std::size_t bytes = static_cast<std::size_t>(h) * w * ch;

    core::Stopwatch sw;
    std::vector<unsigned char> host(bytes);
    for (std::size_t i = 0; i < bytes; ++i)
      host[i] = static_cast<unsigned char>(std::clamp(in.tensor.get(static_cast<std::int64_t>(i)), 0.0, 255.0));
    res.times.add("pack", sw.elapsed_ms());

    jpeg_fused::Params p{};
    p.h = h;
    p.w = w;
    p.channels = ch;
    Kernel kind = pick_kernel();
    const int pairs = tc_pairs(jpeg_fused::tc::kPairs);
    const int strips_env = env_positive("DCTOOL_JPEG_TC_STRIPS", 0);
    p.half_bins = jpeg_fused::half_bins_for(r.quality);
    p.blocks_x = static_cast<int>(wp / 8);
    p.strips = static_cast<int>(hp / 8);
    p.byte_exp = 0x47000000u;
    jpeg_fused::make_tables(r.quality, p.tab);
    const bool deq_f16 = tc_deq_f16(p.tab);
    std::vector<unsigned long long> hist(kBins);
    {
      std::lock_guard<std::mutex> lock(mu_);
      activate_device();
      if (!st_) {
        st_ = std::make_unique<State>();
        st_->sms = current_sm_count();
        // Load every kernel now, outside every timed region (CUDA loads kernels lazily, at first use: milliseconds).
        cudaFuncAttributes fa{};
        DCT_CUDA_CHECK(cudaFuncGetAttributes(&fa, fused_jpeg_kernel<1>));
        DCT_CUDA_CHECK(cudaFuncGetAttributes(&fa, fused_jpeg_kernel<3>));
        DCT_CUDA_CHECK(cudaFuncGetAttributes(&fa, fused_jpeg_kernel_rows<1>));
        DCT_CUDA_CHECK(cudaFuncGetAttributes(&fa, fused_jpeg_kernel_rows<3>));
        for (int i = 0; i < 3; ++i)
          for (auto* k :
               {kTcKernels<1, true>[i], kTcKernels<3, true>[i], kTcKernels<1, false>[i], kTcKernels<3, false>[i]})
            DCT_CUDA_CHECK(cudaFuncGetAttributes(&fa, k));
      }
      State& st = *st_;
      // v5's grid has ceil(strips / 4) rows, at most 65535 (images up to 2 M rows); v6 counts its (column, strip)
      // units in an int (images up to 2^41 pixels); others take v3.
      Shape sh = shape_of(kind, planes, p.half_bins, pairs, deq_f16);
      if ((kind == Kernel::kV5 && (hp / 8 + sh.strips_per_cta - 1) / sh.strips_per_cta > 65535) ||
          (kind == Kernel::kV6 && (wp + sh.cta_pixels - 1) / sh.cta_pixels * (hp / 8) > INT_MAX))
        sh = shape_of(kind = Kernel::kV3, planes, p.half_bins, pairs, deq_f16);
      p.ctas_x = static_cast<int>((wp + sh.cta_pixels - 1) / sh.cta_pixels);
      if (sh.smem > 48 * 1024)
        DCT_CUDA_CHECK(cudaFuncSetAttribute(sh.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(sh.smem)));
      // v6: a 1-D grid of CTAs that are all resident at once, each coding an equal chunk of the (column, strip) units,
      // its set-up and histogram flush once (against one CTA per strip group: 3-9% faster at 2048^2 and 4096^2, 1.4%
      // slower at 8192^2, run12 call2); DCTOOL_JPEG_TC_STRIPS sets the chunk.
      long long grid_x = kind == Kernel::kV3 ? p.ctas_x * (hp / 8) : p.ctas_x;
      long long grid_y = kind == Kernel::kV5 ? (hp / 8 + sh.strips_per_cta - 1) / sh.strips_per_cta : 1;
      if (kind == Kernel::kV6) {
        const long long units = static_cast<long long>(p.ctas_x) * p.strips;
        int& per_sm = st.per_sm[{sh.kernel, sh.smem}];  // asked once per kernel and shared-memory size
        if (per_sm == 0)
          DCT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sh.kernel, sh.threads, sh.smem));
        const long long resident = std::max(1LL, static_cast<long long>(per_sm) * st.sms);
        const long long chunk = strips_env > 0 ? strips_env : (units + resident - 1) / resident;
        p.tc_chunk = static_cast<int>(std::min<long long>(chunk, 1 << 30));
        grid_x = (units + p.tc_chunk - 1) / p.tc_chunk;
      }
      if (st.dev_in.bytes() < bytes) {
        st.dev_in = DeviceBuffer(bytes);
        st.dev_out = DeviceBuffer(bytes);
        st.pin_in = PinnedBuffer(bytes);
        st.pin_out = PinnedBuffer(bytes);
      }
      auto& dev_in_ = st.dev_in;
      auto& dev_out_ = st.dev_out;
      auto& pin_in_ = st.pin_in;
      auto& pin_out_ = st.pin_out;
      auto& hist_ = st.hist;
      auto& ev_ = st.ev;
      const cudaStream_t s = st.stream.get();
      std::copy(host.begin(), host.end(), static_cast<unsigned char*>(pin_in_.get()));
      p.in = dev_in_.as<const unsigned char>();
      p.out = dev_out_.as<unsigned char>();
      p.hist = hist_.as<unsigned long long>();
      ev_[0].record(s);
      DCT_CUDA_CHECK(cudaMemcpyAsync(dev_in_.get(), pin_in_.get(), bytes, cudaMemcpyHostToDevice, s));
      if (kind == Kernel::kV6) {  // the lanes' MMA fragments and quantizer constants, made when the quality changes
        if (st.setup_for != r.quality) {
          float cp[64];
          jpeg_fused::tc::make_cprime(cp);
          auto& lanes = *static_cast<jpeg_fused::tc::LaneSetup(*)[32]>(st.pin_setup.get());
          jpeg_fused::tc::make_lane_setup(cp, p.tab, lanes);
          DCT_CUDA_CHECK(cudaMemcpyAsync(st.tc_setup.get(), st.pin_setup.get(), st.tc_setup.bytes(),
                                         cudaMemcpyHostToDevice, s));
          st.setup_for = r.quality;
        }
        p.tc_setup = st.tc_setup.get();
      }
      DCT_CUDA_CHECK(cudaMemsetAsync(hist_.get(), 0, kBins * sizeof(unsigned long long), s));
      ev_[1].record(s);
      const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
      sh.kernel<<<grid, sh.threads, sh.smem, s>>>(p);
      DCT_CUDA_CHECK(cudaGetLastError());
      ev_[2].record(s);
      DCT_CUDA_CHECK(cudaMemcpyAsync(pin_out_.get(), dev_out_.get(), bytes, cudaMemcpyDeviceToHost, s));
      DCT_CUDA_CHECK(cudaMemcpyAsync(hist.data(), hist_.get(), kBins * sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, s));
      ev_[3].record(s);
      DCT_CUDA_CHECK(cudaStreamSynchronize(s));
      res.times.add("h2d", ev_[1].since(ev_[0]));
      res.times.add("device", ev_[2].since(ev_[1]));
      res.times.add("d2h", ev_[3].since(ev_[2]));
      std::copy_n(static_cast<const unsigned char*>(pin_out_.get()), bytes, host.begin());
    }
    sw.reset();
    res.image = core::HostTensor(in.tensor.shape(), ch, in.tensor.precision());
    for (std::size_t i = 0; i < bytes; ++i) res.image.set(static_cast<std::int64_t>(i), host[i]);
    std::vector<std::int64_t> counts(hist.begin(), hist.end());
    res.coefficients = hp * wp * planes;
    std::int64_t nonzero = 0;  // the kernel does not count zeros
    for (std::int64_t c : counts) nonzero += c;
    counts[kZeroBin] = res.coefficients - nonzero;
    res.nonzero = nonzero;
    res.entropy_bits = core::entropy_of_histogram(counts);
    res.times.add("unpack", sw.elapsed_ms());
    return res;
  }

 private:
  // Device state, made on first use (constructing the compressor touches no device).
  struct State {
    DeviceBuffer dev_in, dev_out, hist{kBins * sizeof(unsigned long long)};
    DeviceBuffer tc_setup{32 * sizeof(jpeg_fused::tc::LaneSetup)};
    PinnedBuffer pin_in, pin_out, pin_setup{32 * sizeof(jpeg_fused::tc::LaneSetup)};
    int setup_for = -1;  // the quality of the lane set-up in tc_setup
    std::map<std::pair<void (*)(jpeg_fused::Params), std::size_t>, int> per_sm;  // v6: resident CTAs per SM
    int sms = 1;
    CudaStream stream;
    CudaEvent ev[4];
  };
  mutable std::mutex mu_;
  mutable std::unique_ptr<State> st_;
};

}  // namespace

std::unique_ptr<core::Compressor> make_fused_jpeg_compressor() { return std::make_unique<FusedJpegCompressor>(); }

}  // namespace dct::cuda
