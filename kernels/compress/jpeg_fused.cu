/* cuda-jpeg-fused: the jpeg compress mode in one kernel, 8-bit planes in, 8-bit planes out (the image crosses device
   memory once each way). The device code and its design are in kernels/compress/jpeg_fused_tc.cuh (the 8x8 DCTs on
   the tensor cores); this file is the launch and the Compressor. CPU and GPU agree to > 50 dB: the kernel's f16
   products move a few coefficients across a rounding boundary (PSNR(CPU, GPU) 57.3-63.8 dB on the sample images).
   With CompressRequest::keep_coefficients (a .jpg output) the compressor runs the coefficient kernels instead
   (kernels/compress/jpeg_coef.cuh: q and the decoded image's squared error bit-identical to the CPU compressor's,
   4:4:4 and 4:2:0) and returns no reconstruction image; a JPEG input read as its coefficients
   (core::Dataset::jpeg) is decoded on the device first (kernels/compress/jpeg_decode.cuh: libjpeg-turbo's samples). */
#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/compress.hpp"
#include "core/error.hpp"
#include "core/tensor_pool.hpp"
#include "kernels/backends.hpp"
#include "kernels/common/plan.cuh"
#include "kernels/common/state_pool.cuh"
#include "kernels/compress/jpeg_coef.cuh"
#include "kernels/compress/jpeg_decode.cuh"
#include "kernels/compress/jpeg_fused.cuh"
#include "kernels/compress/jpeg_fused_tc.cuh"

namespace dct::cuda {
namespace {

using jpeg_fused::kBins;
using jpeg_fused::kZeroBin;
namespace tc = jpeg_fused::tc;

// Gray at 3 CTAs per SM (80 registers, 24 warps), RGB at 2 (128 registers).
template <int kPlanes, bool kDeqF16>
__global__ void __launch_bounds__(tc::kThreads, kPlanes == 1 ? 3 : 2) fused_jpeg_kernel(const jpeg_fused::Params p) {
  extern __shared__ uint4 smem_tc[];  // the warps' input and output staging areas, then the CTA's histogram
  auto* stage = reinterpret_cast<unsigned char*>(smem_tc);
  auto* hist = reinterpret_cast<unsigned*>(stage + tc::stage_bytes(kPlanes, tc::kPairs));
  tc::fused_jpeg_cta<kPlanes, tc::kPairs, kDeqF16>(p, stage, hist, threadIdx.x, blockIdx.x);
}

// Blocks of every coded plane, a grid stride apart: q, the reconstruction (where p.rec is set), and the histogram of
// the nonzero q (bins q + kZeroBin) counted in shared memory, then added to `hist`.
__global__ void __launch_bounds__(jpeg_coef::kThreads) jpeg_coef_kernel(const jpeg_coef::Params p, unsigned* hist) {
  __shared__ unsigned bins[kBins];
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) bins[i] = 0;
  __syncthreads();
  const long long total = jpeg_coef::total_blocks(p);
  for (long long blk = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; blk < total;
       blk += static_cast<long long>(gridDim.x) * blockDim.x) {
    std::int16_t q[64];
    jpeg_coef::code_block(p, blk, q);
    for (int k = 0; k < 64; ++k)
      if (q[k] != 0) atomicAdd(&bins[min(max(q[k] + kZeroBin, 0), kBins - 1)], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kBins; i += blockDim.x)
    if (bins[i] != 0) atomicAdd(&hist[i], bins[i]);
}

// The reconstruction's squared error over every pixel (jpeg_coef::pixel_error), a grid stride apart, into *sse.
__global__ void __launch_bounds__(256) jpeg_error_kernel(const jpeg_coef::Params p, unsigned long long* sse) {
  const long long n = static_cast<long long>(p.h) * p.w;
  unsigned long long e = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    e += static_cast<unsigned>(jpeg_coef::pixel_error(p, static_cast<int>(i / p.w), static_cast<int>(i % p.w)));
  for (int o = 16; o > 0; o /= 2) e += __shfl_down_sync(0xffffffffu, e, o);
  if ((threadIdx.x & 31) == 0 && e != 0) atomicAdd(sse, e);
}

// A JPEG input's blocks, a grid stride apart, into their components' planes (jpeg_decode::decode_block); *bad set
// where a block leaves the range in which the device's samples are certainly libjpeg-turbo's.
__global__ void __launch_bounds__(jpeg_decode::kThreads)
    jpeg_decode_blocks_kernel(const jpeg_decode::Params p, unsigned* bad) {
  const long long total = jpeg_decode::total_blocks(p);
  bool ok = true;
  for (long long blk = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; blk < total;
       blk += static_cast<long long>(gridDim.x) * blockDim.x)
    ok = jpeg_decode::decode_block(p, blk) && ok;
  if (!ok) *bad = 1u;
}

// The decoded planes to interleaved 8-bit pixels (jpeg_decode::decode_pixel), a grid stride apart.
__global__ void __launch_bounds__(256) jpeg_decode_pixels_kernel(const jpeg_decode::Params p) {
  const long long n = static_cast<long long>(p.h) * p.w;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    jpeg_decode::decode_pixel(p, static_cast<int>(i / p.w), static_cast<int>(i % p.w));
}

using KernelFn = void (*)(jpeg_fused::Params);

// Whether `p` is page-locked host memory (the device copies it without staging).
bool page_locked(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

// The kernel for 1 or 3 coded planes and the dequantizer: f16 where every Q >= 2 (tc::deq_f16_ok), else f32.
KernelFn kernel_for(int planes, bool deq_f16) {
  if (planes == 3) return deq_f16 ? fused_jpeg_kernel<3, true> : fused_jpeg_kernel<3, false>;
  return deq_f16 ? fused_jpeg_kernel<1, true> : fused_jpeg_kernel<1, false>;
}

// Pixels of a strip one CTA codes side by side: kWarps warps of kPairs 16-pixel block pairs.
constexpr long long kCtaPixels = 16LL * tc::kWarps * tc::kPairs;

class FusedJpegCompressor final : public core::Compressor {
 public:
  std::string_view name() const override { return "cuda-jpeg-fused"; }
  std::string_view takes() const override { return "compress --mode jpeg (8-bit images, f32)"; }
  std::string_view description() const override {
    return "the whole round trip in one kernel: level shift, colour conversion, 8x8 DCTs on the tensor cores, "
           "quantization, inverse, 8-bit out";
  }
  bool on_gpu() const override { return true; }

  core::Support supports(const core::CompressRequest& r, const core::Dataset& in) const override {
    if (r.mode != core::CompressMode::kJpeg) return core::Support::no("jpeg mode only");
    if (in.kind != core::SourceKind::kImage8) return core::Support::no("8-bit images only");
    if (in.channels() < 1 || in.channels() > 4) return core::Support::no("1 to 4 channels");
    if (!r.keep_coefficients && !in.has_planes()) return core::Support::no("the reconstruction needs the planes");
    if (r.prec != core::Precision::kF32) return core::Support::no("f32 only");
    if (r.sampling != core::ChromaSampling::k444 && !r.keep_coefficients &&
        core::coded_planes(in.channels()) == 3)
      return core::Support::no("4:2:0 for a .jpg output only (the coefficients, no reconstruction)");
    if (in.rows() > (1 << 27) || in.cols() > (1 << 27)) return core::Support::no("image too large");
    // The kernel counts its (column, strip) units in an int.
    const long long units =
        (core::round_up8(in.cols()) + kCtaPixels - 1) / kCtaPixels * (core::round_up8(in.rows()) / 8);
    if (units > INT_MAX) return core::Support::no("image too large");
    return cuda_runtime().usable();
  }

  // The context, the kernels loaded and one state made (the first run's set-up).
  bool warm_up() const override {
    try {
      cuda_runtime().warm_up();
      if (!cuda_runtime().usable()) return false;
      const auto lease = pool_.acquire(make_state);
      return true;
    } catch (...) {  // a problem with the device shows again, as an error, when the compressor runs
      return false;
    }
  }

  core::CompressResult run(const core::CompressRequest& r, const core::Dataset& in) const override {
    core::validate_compress(r, in);
    if (core::Support s = supports(r, in); !s) throw Error(ErrorCode::kUnsupported, "cuda-jpeg-fused", s.reason);
    if (r.keep_coefficients) return coefficients(r, in);
    core::CompressResult res;
    res.backend = "cuda-jpeg-fused";
    const std::size_t bytes = static_cast<std::size_t>(in.tensor.elements());
    core::Stopwatch sw;
    std::vector<unsigned char> host = pack(in.tensor);
    res.times.add("pack", sw.elapsed_ms());
    jpeg_fused::Params p = params_for(r.quality, in.tensor);
    std::vector<unsigned long long> hist(kBins);
    {
      const auto lease = pool_.acquire(make_state);
      State& st = *lease;
      const Launch l = launch_for(st, p);
      upload_and_run(st, r.quality, l, p, host, hist, res.times);
    }
    sw.reset();
    res.image = core::HostTensor(in.tensor.shape(), in.tensor.channels(), in.tensor.precision());
    for (std::size_t i = 0; i < bytes; ++i) res.image.set(static_cast<std::int64_t>(i), host[i]);
    count_histogram(hist.data(), core::round_up8(p.h) * core::round_up8(p.w) * core::coded_planes(p.channels), res);
    res.times.add("unpack", sw.elapsed_ms());
    return res;
  }

 private:
  // The coefficient path's device buffers, grown to the largest image seen: the input, q, the reconstruction, and
  // the squared error (one u64) followed by the histogram (kBins u32). The input and q pass through a ring of two
  // page-locked slots of kSlot bytes (the host's copy of one slot overlapping the device's of the other): page-locked
  // buffers of an image's size per worker stalled a batch while they were made, and the driver's copies of ordinary
  // memory were slower (docs/decisions.md §6).
  // A JPEG input's coefficients go up through the same ring, into dev_coef, and are decoded into dev_planes (its
  // components' samples) and from there into dev_in.
  static constexpr std::size_t kSlot = std::size_t{2} << 20;
  // The squared error (u64), the histogram (kBins u32) and the decoder's flag (u32).
  static constexpr std::size_t kSmall = sizeof(unsigned long long) + (kBins + 1) * sizeof(unsigned);
  struct Coef {
    DeviceBuffer dev_in, dev_q, dev_rec, dev_coef, dev_planes, dev_small{kSmall};
    PinnedBuffer ring{2 * kSlot}, pin_small{kSmall};
    CudaEvent slot_free[2];  // recorded after the device's copy from or into each slot
  };
  // Device state, made on first use (constructing the compressor touches no device).
  struct State {
    DeviceBuffer dev_in, dev_out, hist{kBins * sizeof(unsigned long long)};
    DeviceBuffer tc_setup{32 * sizeof(tc::LaneSetup)};
    PinnedBuffer pin_in, pin_out, pin_setup{32 * sizeof(tc::LaneSetup)};
    int setup_for = -1;                                      // the quality of the lane set-up in tc_setup
    std::map<std::pair<KernelFn, std::size_t>, int> per_sm;  // resident CTAs per SM, per kernel and shared memory
    int sms = 1;
    CudaStream stream;
    CudaEvent ev[4];
    Coef coef;
  };
  struct Launch {
    KernelFn kernel;
    std::size_t smem;
    long long grid;
  };

  // The first `planes` channels of `t` as bytes, plane after plane.
  static void pack_planes(const core::HostTensor& t, std::int64_t planes, unsigned char* out) {
    const std::int64_t n = t.rows() * t.cols() * planes;
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>(std::clamp(t.get(i), 0.0, 255.0));
  }
  static std::vector<unsigned char> pack(const core::HostTensor& t) {
    std::vector<unsigned char> host(static_cast<std::size_t>(t.elements()));
    pack_planes(t, t.channels(), host.data());
    return host;
  }

  // `b` of at least `bytes`: a quarter more than asked when it must grow (images of varying sizes reallocate rarely).
  template <class Buffer>
  static void grow(Buffer& b, std::size_t bytes) {
    if (b.bytes() < bytes) b = Buffer(bytes + bytes / 4);
  }

  static jpeg_fused::Params params_for(int quality, const core::HostTensor& t) {
    jpeg_fused::Params p{};
    p.h = static_cast<int>(t.rows());
    p.w = static_cast<int>(t.cols());
    p.channels = static_cast<int>(t.channels());
    p.half_bins = jpeg_fused::half_bins_for(quality);
    p.blocks_x = static_cast<int>(core::round_up8(p.w) / 8);
    p.strips = static_cast<int>(core::round_up8(p.h) / 8);
    p.ctas_x = static_cast<int>((core::round_up8(p.w) + kCtaPixels - 1) / kCtaPixels);
    jpeg_fused::make_tables(quality, p.tab);
    return p;
  }

  static std::unique_ptr<State> make_state() {
    auto st = std::make_unique<State>();
    st->sms = current_sm_count();
    // Load every kernel now, outside every timed region (CUDA loads kernels lazily, at first use: milliseconds).
    cudaFuncAttributes fa{};
    for (int planes : {1, 3})
      for (bool f16 : {false, true}) DCT_CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel_for(planes, f16)));
    return st;
  }

  // A 1-D grid of CTAs that are all resident at once, each coding an equal chunk of the (column, strip) units, its
  // set-up and histogram flush once (docs/decisions.md: against one CTA per strip group). Sets p.tc_chunk.
  static Launch launch_for(State& st, jpeg_fused::Params& p) {
    const int planes = core::coded_planes(p.channels);
    Launch l{kernel_for(planes, tc::deq_f16_ok(p.tab)), tc::smem_bytes(p.half_bins, planes, tc::kPairs), 0};
    if (l.smem > 48 * 1024)
      DCT_CUDA_CHECK(
          cudaFuncSetAttribute(l.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(l.smem)));
    const long long units = static_cast<long long>(p.ctas_x) * p.strips;
    int& per_sm = st.per_sm[{l.kernel, l.smem}];  // asked once per kernel and shared-memory size
    if (per_sm == 0)
      DCT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, l.kernel, tc::kThreads, l.smem));
    const long long resident = std::max(1LL, static_cast<long long>(per_sm) * st.sms);
    p.tc_chunk = static_cast<int>(std::min<long long>((units + resident - 1) / resident, 1 << 30));
    l.grid = (units + p.tc_chunk - 1) / p.tc_chunk;
    return l;
  }

  // Copies the image in, runs the kernel, copies the image and the histogram out; h2d / device / d2h by events.
  static void upload_and_run(State& st, int quality, const Launch& l, jpeg_fused::Params& p,
                             std::vector<unsigned char>& host, std::vector<unsigned long long>& hist,
                             core::StageTable& times) {
    const std::size_t bytes = host.size();
    if (st.dev_in.bytes() < bytes) {
      st.dev_in = DeviceBuffer(bytes);
      st.dev_out = DeviceBuffer(bytes);
      st.pin_in = PinnedBuffer(bytes);
      st.pin_out = PinnedBuffer(bytes);
    }
    const cudaStream_t s = st.stream.get();
    std::copy(host.begin(), host.end(), static_cast<unsigned char*>(st.pin_in.get()));
    p.in = st.dev_in.as<const unsigned char>();
    p.out = st.dev_out.as<unsigned char>();
    p.hist = st.hist.as<unsigned long long>();
    st.ev[0].record(s);
    DCT_CUDA_CHECK(cudaMemcpyAsync(st.dev_in.get(), st.pin_in.get(), bytes, cudaMemcpyHostToDevice, s));
    if (st.setup_for != quality) {  // the lanes' MMA fragments and quantizer constants, made when the quality changes
      float cp[64];
      tc::make_cprime(cp);
      auto& lanes = *static_cast<tc::LaneSetup(*)[32]>(st.pin_setup.get());
      tc::make_lane_setup(cp, p.tab, lanes);
      DCT_CUDA_CHECK(
          cudaMemcpyAsync(st.tc_setup.get(), st.pin_setup.get(), st.tc_setup.bytes(), cudaMemcpyHostToDevice, s));
      st.setup_for = quality;
    }
    p.tc_setup = st.tc_setup.get();
    DCT_CUDA_CHECK(cudaMemsetAsync(st.hist.get(), 0, kBins * sizeof(unsigned long long), s));
    st.ev[1].record(s);
    l.kernel<<<static_cast<unsigned>(l.grid), tc::kThreads, l.smem, s>>>(p);
    DCT_CUDA_CHECK(cudaGetLastError());
    st.ev[2].record(s);
    DCT_CUDA_CHECK(cudaMemcpyAsync(st.pin_out.get(), st.dev_out.get(), bytes, cudaMemcpyDeviceToHost, s));
    DCT_CUDA_CHECK(
        cudaMemcpyAsync(hist.data(), st.hist.get(), kBins * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    st.ev[3].record(s);
    DCT_CUDA_CHECK(cudaStreamSynchronize(s));
    times.add("h2d", st.ev[1].since(st.ev[0]));
    times.add("device", st.ev[2].since(st.ev[1]));
    times.add("d2h", st.ev[3].since(st.ev[2]));
    std::copy_n(static_cast<const unsigned char*>(st.pin_out.get()), bytes, host.begin());
  }

  // keep_coefficients: the coefficient kernel's q (bit-identical to the CPU compressor's), their nonzero count and
  // entropy from its histogram, and the error of the decoder's image (the CPU compressor's mse, exactly); no
  // reconstruction image (res.image empty). The decoder's 8-bit interleaved samples (Dataset::samples8) go up as
  // they are; planes are packed to bytes first.
  // A JPEG input's coefficients decoded on the device (Dataset::jpeg) unless one of its blocks could decode otherwise
  // there than in libjpeg-turbo (math/jpeg_decode.hpp; no encoder of 8-bit images writes such a block): then the
  // file's samples as libjpeg-turbo decodes them.
  core::CompressResult coefficients(const core::CompressRequest& r, const core::Dataset& in) const {
    bool bad = false;
    core::CompressResult res = coefficients(r, in, bad);
    if (!bad) return res;
    core::Dataset decoded;
    decoded.kind = in.kind;
    decoded.samples8 = in.jpeg->decode();
    return coefficients(r, decoded, bad);
  }

  core::CompressResult coefficients(const core::CompressRequest& r, const core::Dataset& in, bool& bad) const {
    core::CompressResult res;
    res.backend = "cuda-jpeg-fused";
    core::Stopwatch sw;
    const core::JpegCoefficients8* jc = in.jpeg.get();
    const bool s8 = jc == nullptr && in.samples8 != nullptr;
    const int h = static_cast<int>(in.rows()), w = static_cast<int>(in.cols());
    const int np = core::coded_planes(in.channels());
    const bool s420 = np == 3 && r.sampling == core::ChromaSampling::k420;
    jpeg_coef::Params p{};
    p.h = h;
    p.w = w;
    p.planes = np;
    p.interleaved = jc != nullptr ? jc->components : s8 ? in.samples8->channels : 0;
    p.bh = (h + 7) / 8;
    p.bw = (w + 7) / 8;
    p.cbh = np == 3 ? (s420 ? (h + 15) / 16 : p.bh) : 0;
    p.cbw = np == 3 ? (s420 ? (w + 15) / 16 : p.bw) : 0;
    p.s420 = s420 ? 1 : 0;
    math::jpeg::fl_scale_table(p.scale);
    for (int t = 0; t < 2; ++t) {
      const auto table = core::quant_table(r.quality, t == 1);
      for (int k = 0; k < 64; ++k) p.qt[t][k] = static_cast<float>(table[k]);
    }
    core::QuantizedCoefficients& qc = res.quantized;
    qc.blocks_high = p.bh;
    qc.blocks_wide = p.bw;
    qc.chroma_blocks_high = p.cbh;
    qc.chroma_blocks_wide = p.cbw;
    qc.sampling = s420 ? core::ChromaSampling::k420 : core::ChromaSampling::k444;
    qc.quality = r.quality;
    std::size_t counts[3] = {}, total = 0;
    for (int pl = 0; pl < np; ++pl) {
      counts[pl] = static_cast<std::size_t>(pl == 0 ? static_cast<long long>(p.bh) * p.bw
                                                    : static_cast<long long>(p.cbh) * p.cbw) *
                   64;
      total += counts[pl];
      qc.chroma.push_back(pl > 0);
    }
    // q comes down straight into page-locked planes lent from q_blocks_; where none can be made, into planes of their
    // own through the ring.
    bool lent = true;
    try {
      for (int pl = 0; pl < np; ++pl)
        qc.planes.emplace_back(q_blocks_.take_bytes(counts[pl] * sizeof(std::int16_t)), counts[pl]);
    } catch (const Error&) {
      cudaGetLastError();
      lent = false;
      qc.planes.clear();
      for (int pl = 0; pl < np; ++pl) qc.planes.emplace_back(counts[pl]);
    }
    const std::size_t hw = static_cast<std::size_t>(h) * static_cast<std::size_t>(w);
    const std::size_t in_bytes = hw * static_cast<std::size_t>(p.interleaved != 0 ? p.interleaved : np);
    const auto lease = pool_.acquire(make_state);
    State& st = *lease;
    Coef& cb = st.coef;
    grow(cb.dev_in, in_bytes);
    grow(cb.dev_q, total * sizeof(std::int16_t));
    grow(cb.dev_rec, total);  // one byte per sample of every coded plane's blocks
    std::vector<unsigned char> packed;
    if (!s8 && jc == nullptr) {
      packed.resize(in_bytes);
      pack_planes(in.tensor, np, packed.data());
    }
    const unsigned char* src = s8 ? in.samples8->data() : packed.data();
    res.times.add("pack", sw.elapsed_ms());
    const cudaStream_t s = st.stream.get();
    p.in = cb.dev_in.as<const unsigned char>();
    std::size_t off = 0;
    for (int pl = 0; pl < np; ++pl) {
      p.q[pl] = cb.dev_q.as<std::int16_t>() + off;
      p.rec[pl] = cb.dev_rec.as<unsigned char>() + off;
      off += counts[pl];
    }
    auto* sse = cb.dev_small.as<unsigned long long>();
    auto* hist = reinterpret_cast<unsigned*>(sse + 1);
    auto* ring = static_cast<unsigned char*>(cb.ring.get());
    st.ev[0].record(s);
    std::size_t ring_at = 0;                                                                // slots handed out so far
    // Up: page-locked memory (e.g. a block of a batch's input pool, input_blocks in app/cmd_compress.cpp) straight,
    // ordinary memory through the ring.
    const auto up = [&](const unsigned char* from, std::size_t bytes, unsigned char* to) {
      if (page_locked(from)) {
        DCT_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, s));
        return;
      }
      for (std::size_t at = 0; at < bytes; at += kSlot, ++ring_at) {
        const std::size_t k = ring_at % 2, n = std::min(kSlot, bytes - at);
        if (ring_at >= 2) DCT_CUDA_CHECK(cudaEventSynchronize(cb.slot_free[k].get()));
        std::memcpy(ring + k * kSlot, from + at, n);
        DCT_CUDA_CHECK(cudaMemcpyAsync(to + at, ring + k * kSlot, n, cudaMemcpyHostToDevice, s));
        cb.slot_free[k].record(s);
      }
    };
    jpeg_decode::Params dp{};
    if (jc != nullptr) {
      const std::size_t coef_bytes = static_cast<std::size_t>(jc->values) * sizeof(std::int16_t);
      grow(cb.dev_coef, coef_bytes);
      grow(cb.dev_planes, static_cast<std::size_t>(jc->values));
      up(static_cast<const unsigned char*>(jc->coef_bytes.data()), coef_bytes, cb.dev_coef.as<unsigned char>());
      dp = jpeg_decode::params_for(*jc, cb.dev_coef.as<const std::int16_t>(), cb.dev_planes.as<unsigned char>(),
                                   cb.dev_in.as<unsigned char>());
    } else {
      up(src, in_bytes, cb.dev_in.as<unsigned char>());
    }
    DCT_CUDA_CHECK(cudaMemsetAsync(cb.dev_small.get(), 0, cb.dev_small.bytes(), s));
    st.ev[1].record(s);
    const long long resident = 8LL * st.sms;
    if (jc != nullptr) {
      const long long jb = jpeg_decode::total_blocks(dp);
      jpeg_decode_blocks_kernel<<<static_cast<unsigned>(
                                      std::min((jb + jpeg_decode::kThreads - 1) / jpeg_decode::kThreads, resident)),
                                  jpeg_decode::kThreads, 0, s>>>(dp, hist + kBins);
      DCT_CUDA_CHECK(cudaGetLastError());
      jpeg_decode_pixels_kernel<<<
          static_cast<unsigned>(std::min<long long>((static_cast<long long>(hw) + 255) / 256, resident)), 256, 0, s>>>(
          dp);
      DCT_CUDA_CHECK(cudaGetLastError());
    }
    const long long blocks = jpeg_coef::total_blocks(p);
    jpeg_coef_kernel<<<static_cast<unsigned>(std::min((blocks + jpeg_coef::kThreads - 1) / jpeg_coef::kThreads,
                                                      resident)),
                       jpeg_coef::kThreads, 0, s>>>(p, hist);
    DCT_CUDA_CHECK(cudaGetLastError());
    jpeg_error_kernel<<<static_cast<unsigned>(std::min<long long>((static_cast<long long>(hw) + 255) / 256, resident)),
                        256, 0, s>>>(p, sse);
    DCT_CUDA_CHECK(cudaGetLastError());
    st.ev[2].record(s);
    DCT_CUDA_CHECK(
        cudaMemcpyAsync(cb.pin_small.get(), cb.dev_small.get(), cb.dev_small.bytes(), cudaMemcpyDeviceToHost, s));
    // q down into the lent planes, or through the ring: slot k holds chunk i while the device fills the other; each
    // chunk is then copied into the planes it covers (q is the planes one after another on the device).
    const std::size_t q_bytes = total * sizeof(std::int16_t), chunks = lent ? 0 : (q_bytes + kSlot - 1) / kSlot;
    for (std::size_t pl = 0, at = 0; lent && pl < static_cast<std::size_t>(np); at += counts[pl], ++pl)
      DCT_CUDA_CHECK(cudaMemcpyAsync(qc.planes[pl].data(), cb.dev_q.as<std::int16_t>() + at,
                                     counts[pl] * sizeof(std::int16_t), cudaMemcpyDeviceToHost, s));
    const auto down = [&](std::size_t i) {
      const std::size_t k = i % 2, at = i * kSlot;
      DCT_CUDA_CHECK(cudaMemcpyAsync(ring + k * kSlot, cb.dev_q.as<unsigned char>() + at, std::min(kSlot, q_bytes - at),
                                     cudaMemcpyDeviceToHost, s));
      cb.slot_free[k].record(s);
    };
    for (std::size_t i = 0; i < std::min<std::size_t>(2, chunks); ++i) down(i);
    std::size_t plane = 0, plane_at = 0;  // where the next byte of q goes: plane and byte offset in it
    for (std::size_t i = 0; i < chunks; ++i) {
      const std::size_t k = i % 2, n = std::min(kSlot, q_bytes - i * kSlot);
      DCT_CUDA_CHECK(cudaEventSynchronize(cb.slot_free[k].get()));
      for (std::size_t done = 0; done < n;) {
        const std::size_t take = std::min(n - done, counts[plane] * sizeof(std::int16_t) - plane_at);
        std::memcpy(reinterpret_cast<unsigned char*>(qc.planes[plane].data()) + plane_at, ring + k * kSlot + done, take);
        done += take;
        plane_at += take;
        if (plane_at == counts[plane] * sizeof(std::int16_t)) ++plane, plane_at = 0;
      }
      if (i + 2 < chunks) down(i + 2);
    }
    st.ev[3].record(s);
    DCT_CUDA_CHECK(cudaStreamSynchronize(s));
    res.times.add("h2d", st.ev[1].since(st.ev[0]));
    res.times.add("device", st.ev[2].since(st.ev[1]));
    res.times.add("d2h", st.ev[3].since(st.ev[2]));
    sw.reset();
    const auto* small = static_cast<const unsigned long long*>(cb.pin_small.get());
    bad = reinterpret_cast<const unsigned*>(small + 1)[kBins] != 0;
    count_histogram(reinterpret_cast<const unsigned*>(small + 1), static_cast<std::int64_t>(total), res);
    res.mse = static_cast<double>(small[0]) / static_cast<double>(hw * static_cast<std::size_t>(np));
    res.times.add("unpack", sw.elapsed_ms());
    return res;
  }

  // `coefficients`, the nonzero count and the entropy from a kernel's kBins histogram of q (bin q + kZeroBin; the
  // kernels do not count zeros).
  template <class Count>
  static void count_histogram(const Count* hist, std::int64_t coefficients, core::CompressResult& res) {
    std::vector<std::int64_t> counts(hist, hist + kBins);
    res.coefficients = coefficients;
    std::int64_t nonzero = 0;
    for (std::int64_t c : counts) nonzero += c;
    counts[kZeroBin] = res.coefficients - nonzero;
    res.nonzero = nonzero;
    res.entropy_bits = core::entropy_of_histogram(counts);
  }

  mutable StatePool<State> pool_;  // one state per concurrent caller and device
  // Page-locked blocks lent to the coefficient path's planes (CoefficientPlane), back when the planes go: made once
  // per block, reused by the images after (making page-locked memory per image stalled a batch, above).
  mutable core::TensorPool q_blocks_{
      [](std::size_t bytes) -> std::unique_ptr<core::Buffer> { return std::make_unique<PortablePinnedBuffer>(bytes); }};
};

}  // namespace

std::unique_ptr<core::Compressor> make_fused_jpeg_compressor() { return std::make_unique<FusedJpegCompressor>(); }

}  // namespace dct::cuda
