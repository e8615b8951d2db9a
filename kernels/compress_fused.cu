/* cuda-jpeg-fused: DESIGN §4's jpeg mode in one kernel, 8-bit planes in, 8-bit planes out (issue 4: the image
   crosses device memory once each way).

   A CTA owns an 8 x 256 tile of the padded image (32 blocks) for every coded plane. Per tile:
     load     edge-replicated samples (row/column clamped to the image: the padding of §4), RGB -> JFIF YCbCr
              rounded to 8-bit samples (core/compress.hpp), level shift −128, into padded shared memory; a strip
              inside the image (W a multiple of 8, 8 rows) reads 8 pixels per thread and plane as one 8-byte
              load, all planes' loads issued first; otherwise byte by byte with clamping;
     columns  the Feig-Linzer 8-point DCT down each column (thread = column, block8.cuh);
     rows     per thread one row of one block, in registers: forward DCT, the ortho scale D_i D_j,
              q = floor(F/Q + 0.5) (histogrammed for the entropy estimate), F' = q·Q, the inverse scale and
              the inverse row DCT; F/Q is correctly rounded (div_by_quant: the bits of __fdiv_rn, cheaper);
              zeros are counted per thread (popc of an 8-bit mask) and once per warp, nonzero q go to the
              shared histogram;
     columns  the inverse DCT down each column, +128, rounded and clamped to 0..255;
     store    YCbCr -> RGB rounded and clamped, cropped to the image; alpha copied through (interior tiles:
              8 pixels packed into one 8-byte store per plane).
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
constexpr int kBins = 4096;  // q histogram over [−2048, 2047] (|q| <= 1026 fits; clamped anyway)
constexpr int kZeroBin = 2048;

struct FusedParams {
  const unsigned char* in;
  unsigned char* out;
  unsigned long long* hist;  // kBins bins, q = i − kZeroBin
  int h, w, channels, planes;
  int half_bins;  // the shared histogram covers q in [−half_bins, half_bins − 1] (see half_bins_for)
  int wp;
  int tiles_per_strip;
  // Per table (luma, chroma): the forward and inverse ortho scales (the same in both: two copies, so that the
  // row pass reads every factor through the plane's table and the compiler does not keep 16 of them live
  // across the plane loop), Q and fl(1/Q).
  float fwd[2][64], inv[2][64], quant[2][64], rquant[2][64];
};

__device__ __forceinline__ float round_u8(float v) { return fminf(fmaxf(floorf(v + 0.5f), 0.f), 255.f); }

__device__ __forceinline__ float byte_of(const uint2& v, int k) {
  return static_cast<float>(((k < 4 ? v.x >> (8 * k) : v.y >> (8 * (k - 4)))) & 0xffu);
}

// fl(f / d) for d in 1..255 given r = fl(1/d): q0 = fl(f·r) is within an ulp of f/d and the remainder
// f − d·q0 is exact in an FMA, so one correction step gives the correctly rounded quotient (Markstein) —
// the same bits as __fdiv_rn (checked on the host for every d and 1.8e8 values of f, ties k + 1/2 and their
// neighbours included; only the sign of a zero quotient may differ, which floor(x + 0.5) ignores) in 3
// instructions instead of __fdiv_rn's reciprocal refinement and range check.
__device__ __forceinline__ float div_by_quant(float f, float d, float r) {
  const float q0 = __fmul_rn(f, r);
  return __fmaf_rn(__fmaf_rn(-d, q0, f), r, q0);
}

// JFIF RGB -> YCbCr rounded to 8-bit samples, level-shifted (core::rgb_to_ycc in f32), into the tile.
__device__ __forceinline__ void put_ycc(float (*tile)[8 * block8::kStride], int idx, float R, float G, float B) {
  tile[0][idx] = round_u8(0.299f * R + 0.587f * G + 0.114f * B) - 128.f;
  tile[1][idx] = round_u8(-0.168735892f * R - 0.331264108f * G + 0.5f * B + 128.f) - 128.f;
  tile[2][idx] = round_u8(0.5f * R - 0.418687589f * G - 0.081312411f * B + 128.f) - 128.f;
}

__global__ void __launch_bounds__(block8::kThreads) fused_jpeg_kernel(const FusedParams p) {
  __shared__ float tile[3][8 * block8::kStride];
  __shared__ unsigned int hist[kBins];
  const int t = threadIdx.x;
  const int strip = blockIdx.x / p.tiles_per_strip;
  const int c0 = (blockIdx.x % p.tiles_per_strip) * block8::kTileCols;
  const int row0 = strip * 8;
  const int cols = min(block8::kTileCols, p.wp - c0);
  const long long hw = static_cast<long long>(p.h) * p.w;
  // Interior tile (W a multiple of 8, so rows are 8-byte aligned and W = Wp: no column padding; all 8 rows
  // inside the image): warp = one row, lane = 8 pixels (lanes past `cols` idle); each thread issues its
  // 8-byte load of every plane before using any (256 contiguous bytes per warp and plane), and clears its
  // part of the histogram while they are in flight.
  const bool interior = (p.w & 7) == 0 && row0 + 8 <= p.h;
  const int vr = t >> 5, vc = 8 * (t & 31);
  const bool vlive = vc < cols;
  const long long vo = static_cast<long long>(row0 + vr) * p.w + c0 + vc;
  uint2 in0{}, in1{}, in2{};
  if (interior && vlive) {
    in0 = __ldg(reinterpret_cast<const uint2*>(p.in + vo));
    if (p.planes != 1) {
      in1 = __ldg(reinterpret_cast<const uint2*>(p.in + hw + vo));
      in2 = __ldg(reinterpret_cast<const uint2*>(p.in + 2 * hw + vo));
    }
  }
  const int nb = 2 * p.half_bins;
  for (int i = t; i < nb; i += block8::kThreads) hist[i] = 0;

  if (interior) {
    if (vlive && p.planes == 1) {
#pragma unroll
      for (int k = 0; k < 8; ++k) tile[0][tile_index(vr, vc + k)] = byte_of(in0, k) - 128.f;
    } else if (vlive) {
#pragma unroll
      for (int k = 0; k < 8; ++k)
        put_ycc(tile, tile_index(vr, vc + k), byte_of(in0, k), byte_of(in1, k), byte_of(in2, k));
    }
  } else {
    for (int i = t; i < 8 * block8::kTileCols; i += block8::kThreads) {
      const int r = i / block8::kTileCols, c = i % block8::kTileCols;
      if (c >= cols) continue;
      const long long s = static_cast<long long>(min(row0 + r, p.h - 1)) * p.w + min(c0 + c, p.w - 1);
      if (p.planes == 1)
        tile[0][tile_index(r, c)] = float(p.in[s]) - 128.f;
      else
        put_ycc(tile, tile_index(r, c), p.in[s], p.in[hw + s], p.in[2 * hw + s]);
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
        const int tb = pl > 0 ? 1 : 0;
        const float *fw = p.fwd[tb], *iv = p.inv[tb], *qs = p.quant[tb], *rq = p.rquant[tb];
        float v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = tl[tile_index(r, 8 * b + k)];
        block8::fl_forward(v);
        unsigned int nz = 0;  // bit k: q_k != 0 (one branch per row of 8 instead of one per coefficient)
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          v[k] = floorf(div_by_quant(__fmul_rn(v[k], fw[r * 8 + k]), qs[r * 8 + k], rq[r * 8 + k]) + 0.5f);
          nz |= (v[k] != 0.f ? 1u : 0u) << k;
        }
        zeros += 8 - __popc(nz);
        if (nz != 0) {
#pragma unroll
          for (int k = 0; k < 8; ++k)
            if (nz & (1u << k)) atomicAdd(&hist[min(max(static_cast<int>(v[k]) + p.half_bins, 0), nb - 1)], 1u);
        }
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = v[k] * qs[r * 8 + k] * iv[r * 8 + k];
        block8::fl_inverse(v);
#pragma unroll
        for (int k = 0; k < 8; ++k) tl[tile_index(r, 8 * b + k)] = v[k];
      }
    zeros = __reduce_add_sync(0xffffffffu, zeros);  // every lane of the warp reaches here
    if ((t & 31) == 0 && zeros != 0) atomicAdd(&hist[p.half_bins], zeros);
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

  if (interior && vlive) {
    // The mirror of the interior load: 8 pixels per thread packed into one 8-byte store per plane.
    unsigned int o[3][2] = {};
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int idx = tile_index(vr, vc + k), sh = 8 * (k & 3);
      if (p.planes == 1) {
        o[0][k >> 2] |= static_cast<unsigned int>(tile[0][idx]) << sh;
      } else {
        const float Y = tile[0][idx], cb = tile[1][idx] - 128.f, cr = tile[2][idx] - 128.f;
        o[0][k >> 2] |= static_cast<unsigned int>(round_u8(Y + 1.402f * cr)) << sh;
        o[1][k >> 2] |= static_cast<unsigned int>(round_u8(Y - 0.344136286f * cb - 0.714136286f * cr)) << sh;
        o[2][k >> 2] |= static_cast<unsigned int>(round_u8(Y + 1.772f * cb)) << sh;
      }
    }
    *reinterpret_cast<uint2*>(p.out + vo) = make_uint2(o[0][0], o[0][1]);
    if (p.planes != 1) {
      *reinterpret_cast<uint2*>(p.out + hw + vo) = make_uint2(o[1][0], o[1][1]);
      *reinterpret_cast<uint2*>(p.out + 2 * hw + vo) = make_uint2(o[2][0], o[2][1]);
    }
    for (int ch = p.planes == 1 ? 1 : 3; ch < p.channels; ++ch)  // alpha: carried through
      *reinterpret_cast<uint2*>(p.out + ch * hw + vo) = __ldg(reinterpret_cast<const uint2*>(p.in + ch * hw + vo));
  } else if (!interior) {
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
  }
  __syncthreads();
  for (int i = t; i < nb; i += block8::kThreads)
    if (hist[i] != 0) atomicAdd(&p.hist[i - p.half_bins + kZeroBin], static_cast<unsigned long long>(hist[i]));
}

// Half the shared histogram's width for these quantization tables. The level-shifted samples are in
// [−128, 127] and the orthonormal 8x8 DCT's basis functions have Σ|C_u(x) C_v(y)| <= 8, so |F| <= 1024 (plus
// f32 rounding, far below 1) and |q| <= 1024/Q + 1 < 1024/Q (integer) + 2. Rounded up to a multiple of the
// CTA size; at most kZeroBin (the full [−2048, 2047] range, quality 100). Quality 50: Q >= 10, 256 (512 bins
// to clear and flush per CTA instead of 4096). The clamp in the kernel stays as before.
int half_bins_for(int quality) {
  int qmax = 0;
  for (int c = 0; c < 2; ++c)
    for (int q : core::quant_table(quality, c == 1)) qmax = std::max(qmax, 1024 / q + 2);
  const int half = (qmax + 1 + block8::kThreads - 1) / block8::kThreads * block8::kThreads;
  return std::min(half, kZeroBin);
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
    p.half_bins = half_bins_for(r.quality);
    const auto fwd = block8::scale_table<float>(core::Op::kDct2, core::Norm::kOrtho);
    const auto inv = block8::scale_table<float>(core::Op::kIdct2, core::Norm::kOrtho);
    for (int c = 0; c < 2; ++c) {
      const auto q = core::quant_table(r.quality, c == 1);
      for (int i = 0; i < 64; ++i) {
        p.fwd[c][i] = fwd.v[i];
        p.inv[c][i] = inv.v[i];
        p.quant[c][i] = static_cast<float>(q[i]);
        p.rquant[c][i] = static_cast<float>(1.0 / q[i]);  // = fl(1/q): 1/q never lies on a float midpoint
      }
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
