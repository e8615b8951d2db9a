/* cuda-jpeg-fused: DESIGN §4's jpeg mode in one kernel, 8-bit planes in, 8-bit planes out (issue 4: the image
   crosses device memory once each way).

   A CTA owns an 8 x 256 tile of the padded image (32 blocks) for every coded plane. Per tile:
     load     edge-replicated samples (row/column clamped to the image: the padding of §4), RGB -> JFIF YCbCr
              rounded to 8-bit samples (core/compress.hpp), level shift −128, into padded shared memory;
     columns  the Feig-Linzer 8-point DCT down each column (thread = column, block8.cuh);
     rows     per thread one row of one block, in registers: forward DCT, the ortho scale D_i D_j,
              q = floor(F/Q + 0.5) (histogrammed for the entropy estimate), F' = q·Q, the inverse scale and
              the inverse row DCT;
     columns  the inverse DCT down each column, +128, rounded and clamped to 0..255;
     store    YCbCr -> RGB rounded and clamped, cropped to the image; alpha copied through.
   The same arithmetic as the CPU compressor (cpu/compress_cpu.cpp) in f32 up to operation order and FMA
   contraction: a coefficient on a rounding boundary may land on the other side (CPU/GPU agree > 50 dB). */
#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include "core/compress.hpp"
#include "core/error.hpp"
#include "kernels/backends.hpp"
#include "kernels/block8.cuh"
#include "kernels/block8_backends.hpp"
#include "kernels/gpu_plan.cuh"

namespace dct::cuda {
namespace {

using block8::tile_index;
constexpr int kBins = 4096;  // q histogram over [−2048, 2047] (|q| <= 1024·√… fits; clamped anyway)
constexpr int kZeroBin = 2048;

struct FusedParams {
  const unsigned char* in;
  unsigned char* out;
  unsigned long long* hist;
  int h, w, channels, planes;
  int wp;
  int tiles_per_strip;
  float fwd[64], inv[64];
  float quant[2][64];
};

__device__ __forceinline__ float round_u8(float v) { return fminf(fmaxf(floorf(v + 0.5f), 0.f), 255.f); }

__global__ void __launch_bounds__(block8::kThreads) fused_jpeg_kernel(const FusedParams p) {
  __shared__ float tile[3][8 * block8::kStride];
  __shared__ unsigned int hist[kBins];
  const int t = threadIdx.x;
  const int strip = blockIdx.x / p.tiles_per_strip;
  const int c0 = (blockIdx.x % p.tiles_per_strip) * block8::kTileCols;
  const int row0 = strip * 8;
  const int cols = min(block8::kTileCols, p.wp - c0);
  const long long hw = static_cast<long long>(p.h) * p.w;
  for (int i = t; i < kBins; i += block8::kThreads) hist[i] = 0;

  for (int i = t; i < 8 * block8::kTileCols; i += block8::kThreads) {
    const int r = i / block8::kTileCols, c = i % block8::kTileCols;
    if (c >= cols) continue;
    const long long s = static_cast<long long>(min(row0 + r, p.h - 1)) * p.w + min(c0 + c, p.w - 1);
    if (p.planes == 1) {
      tile[0][tile_index(r, c)] = float(p.in[s]) - 128.f;
    } else {
      const float R = p.in[s], G = p.in[hw + s], B = p.in[2 * hw + s];
      tile[0][tile_index(r, c)] = round_u8(0.299f * R + 0.587f * G + 0.114f * B) - 128.f;
      tile[1][tile_index(r, c)] = round_u8(-0.168735892f * R - 0.331264108f * G + 0.5f * B + 128.f) - 128.f;
      tile[2][tile_index(r, c)] = round_u8(0.5f * R - 0.418687589f * G - 0.081312411f * B + 128.f) - 128.f;
    }
  }
  __syncthreads();

  for (int pl = 0; pl < p.planes; ++pl) {
    float* tl = tile[pl];
    if (t < cols) {
      float v[8];
#pragma unroll
      for (int r = 0; r < 8; ++r) v[r] = tl[tile_index(r, t)];
      block8::fl_forward(v);
#pragma unroll
      for (int r = 0; r < 8; ++r) tl[tile_index(r, t)] = v[r];
    }
  }
  __syncthreads();

  {
    // Most q are 0: count those per thread and add them once per warp (one shared atomic per warp instead of
    // one per coefficient on the same bin); the others go to the shared histogram directly.
    unsigned int zeros = 0;
    const int r = t >> 5, b = t & 31;
    if (8 * b < cols)
      for (int pl = 0; pl < p.planes; ++pl) {
        float* tl = tile[pl];
        const float* q = p.quant[pl > 0 ? 1 : 0];
        float v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = tl[tile_index(r, 8 * b + k)];
        block8::fl_forward(v);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          const float f = v[k] * p.fwd[r * 8 + k];
          const float qs = q[r * 8 + k];
          const float qv = floorf(__fdiv_rn(f, qs) + 0.5f);
          if (qv == 0.f) {
            ++zeros;
          } else {
            const int bin = min(max(static_cast<int>(qv) + kZeroBin, 0), kBins - 1);
            atomicAdd(&hist[bin], 1u);
          }
          v[k] = qv * qs * p.inv[r * 8 + k];
        }
        block8::fl_inverse(v);
#pragma unroll
        for (int k = 0; k < 8; ++k) tl[tile_index(r, 8 * b + k)] = v[k];
      }
    zeros = __reduce_add_sync(0xffffffffu, zeros);  // every lane of the warp reaches here
    if ((t & 31) == 0 && zeros != 0) atomicAdd(&hist[kZeroBin], zeros);
  }
  __syncthreads();

  for (int pl = 0; pl < p.planes; ++pl) {
    float* tl = tile[pl];
    if (t < cols) {
      float v[8];
#pragma unroll
      for (int r = 0; r < 8; ++r) v[r] = tl[tile_index(r, t)];
      block8::fl_inverse(v);
#pragma unroll
      for (int r = 0; r < 8; ++r) tl[tile_index(r, t)] = round_u8(v[r] + 128.f);
    }
  }
  __syncthreads();

  for (int i = t; i < 8 * block8::kTileCols; i += block8::kThreads) {
    const int r = i / block8::kTileCols, c = i % block8::kTileCols;
    const int y = row0 + r, x = c0 + c;
    if (c >= cols || y >= p.h || x >= p.w) continue;
    const long long o = static_cast<long long>(y) * p.w + x;
    if (p.planes == 1) {
      p.out[o] = static_cast<unsigned char>(tile[0][tile_index(r, c)]);
    } else {
      const float Y = tile[0][tile_index(r, c)], cb = tile[1][tile_index(r, c)] - 128.f,
                  cr = tile[2][tile_index(r, c)] - 128.f;
      p.out[o] = static_cast<unsigned char>(round_u8(Y + 1.402f * cr));
      p.out[hw + o] = static_cast<unsigned char>(round_u8(Y - 0.344136286f * cb - 0.714136286f * cr));
      p.out[2 * hw + o] = static_cast<unsigned char>(round_u8(Y + 1.772f * cb));
    }
    for (int ch = p.planes == 1 ? 1 : 3; ch < p.channels; ++ch) p.out[ch * hw + o] = p.in[ch * hw + o];
  }
  __syncthreads();
  for (int i = t; i < kBins; i += block8::kThreads)
    if (hist[i] != 0) atomicAdd(&p.hist[i], static_cast<unsigned long long>(hist[i]));
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

    FusedParams p{};
    p.h = h;
    p.w = w;
    p.channels = ch;
    p.planes = planes;
    p.wp = static_cast<int>(wp);
    p.tiles_per_strip = static_cast<int>((wp + block8::kTileCols - 1) / block8::kTileCols);
    const auto fwd = block8::scale_table<float>(core::Op::kDct2, core::Norm::kOrtho);
    const auto inv = block8::scale_table<float>(core::Op::kIdct2, core::Norm::kOrtho);
    for (int i = 0; i < 64; ++i) {
      p.fwd[i] = fwd.v[i];
      p.inv[i] = inv.v[i];
    }
    for (int c = 0; c < 2; ++c) {
      const auto q = core::quant_table(r.quality, c == 1);
      for (int i = 0; i < 64; ++i) p.quant[c][i] = static_cast<float>(q[i]);
    }
    std::vector<unsigned long long> hist(kBins);
    {
      std::lock_guard<std::mutex> lock(mu_);
      activate_device();
      if (!st_) st_ = std::make_unique<State>();
      State& st = *st_;
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
      DCT_CUDA_CHECK(cudaMemsetAsync(hist_.get(), 0, kBins * sizeof(unsigned long long), s));
      ev_[1].record(s);
      const dim3 grid(static_cast<unsigned>(p.tiles_per_strip * (hp / 8)));
      DCT_LAUNCH(fused_jpeg_kernel, grid, dim3(block8::kThreads), s, p);
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
    res.nonzero = res.coefficients - counts[kZeroBin];
    res.entropy_bits = core::entropy_of_histogram(counts);
    res.times.add("unpack", sw.elapsed_ms());
    return res;
  }

 private:
  // Device state, made on first use (constructing the compressor touches no device).
  struct State {
    DeviceBuffer dev_in, dev_out, hist{kBins * sizeof(unsigned long long)};
    PinnedBuffer pin_in, pin_out;
    CudaStream stream;
    CudaEvent ev[4];
  };
  mutable std::mutex mu_;
  mutable std::unique_ptr<State> st_;
};

}  // namespace

std::unique_ptr<core::Compressor> make_fused_jpeg_compressor() { return std::make_unique<FusedJpegCompressor>(); }

}  // namespace dct::cuda
