/* Host emulation of cuda-jpeg-fused for machines without a GPU: the kernel (kernels/compress/jpeg_fused_tc.cuh, the
   8x8 DCTs on the tensor cores) compiled as plain C++ and launched exactly as kernels/compress/jpeg_fused.cu launches
   it (tc::kPairs = 4 block pairs per warp; the f16 dequantizer where tc::deq_f16_ok, else the f32 one; a 1-D grid of
   chunks of (column, strip) units; the dynamic shared memory the staging areas, then the histogram), with the CUDA
   intrinsics it uses written out below (bit-exact for the arguments the kernel gives them), each CTA run as 256
   std::threads with a std::barrier for __syncthreads and one per warp for __syncwarp (CTAs one after another), and
   the warp's mma.sync emulated across the warp (the exact sum of the f16 products rounded once; see emu_mma_sums).
   The chunk is 3 units (the device takes it from the occupancy): chunks cross columns where strips % 3 != 0, and the
   last one is short.
   Checks:
   - the forward colour conversion (tc::ycc_h2's MMAs and ycc_tail) on all 2^24 colours against the CPU's
     (core::rgb_to_ycc): Y 3464, Cb 0, Cr 2666 samples differ, each an exact tie the CPU rounds down (+1), none by
     more;
   - the reconstruction, nonzero count and entropy against the CPU compressor (cpu-8x8-flmad) on the sample images
     (data/camera.png, data/astronaut.png) and synthetic odd sizes (alpha, partial CTAs, W % 8 != 0) at quality 10,
     50, 90 (the f16 dequantizer) and 97 (tables with Q = 1: the f32 one): the gpu test's tolerances (nonzero
     fraction within 1e-3, entropy within 1e-2 bits), the same coefficient count, alpha carried through unchanged;
     PSNR(CPU, emulated GPU) listed, BELOW-50 where <= 50 dB (f16 products, so not bit-exact: one known synthetic
     case, the 24x40 ramp at q50, 49.9 dB; listed, not failed);
   - where the kernel takes the f16 dequantizer, the f32 one on the same image: output and histogram bit-identical;
   - the coefficient kernels (kernels/compress/jpeg_coef.cuh, a .jpg output), every block and pixel on the host: q
     and the reconstruction's squared error equal the CPU compressor's (keep_coefficients) exactly, 4:4:4 and 4:2:0,
     planar and interleaved input, on the same images and qualities; their YCbCr -> RGB on all 2^24 samples and the
     per-sample h2v2 fancy upsampling equal the CPU's;
   - the decoder of JPEG inputs read as their coefficients (kernels/compress/jpeg_decode.cuh, every block and pixel
     on the host): equal to libjpeg-turbo's own decode of the file, byte for byte, for files libjpeg-turbo writes
     (gray; 4:4:4, 4:2:2, 4:2:0; sizes 1x1 to 640x480 and the sample images; qualities 5 to 100; noise, smooth and
     blocky content; restart markers); a progressive file is decoded by libjpeg-turbo instead, and a block outside
     the range where libjpeg-turbo's SIMD and C code agree is reported. */
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/image_codec.hpp"
#include "core/compress.hpp"
#include "core/metrics.hpp"
#include "core/registry.hpp"
#include "core/tensor_pool.hpp"
#include "cpu/block8.hpp"
#include "cpu/compress.hpp"
#include "cuda_host.hpp"
#include "kernels/compress/jpeg_coef.cuh"
#include "kernels/compress/jpeg_decode.cuh"
// after the kernels' headers
#include <jpeglib.h>

#include <random>

#include "app/image_decode.hpp"

using std::min;
inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const std::uint64_t v = (std::uint64_t(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline unsigned __viaddmin_s16x2_relu(unsigned a, unsigned b, unsigned c) {
  unsigned r = 0;
  for (int i = 0; i < 2; ++i) {
    const int s = std::int16_t(std::uint16_t((a >> (16 * i)) + (b >> (16 * i)))), y = std::int16_t(c >> (16 * i));
    r |= unsigned(std::max(std::min(s, y), 0) & 0xffff) << (16 * i);
  }
  return r;
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}

// The kernel's f16 operations (DCT_EMULATE: jpeg_fused_tc.cuh calls the emu_ forms): f16 conversions (_Float16: round
// to nearest even), and the warp's mma.sync m16n8k16 through an exchange array between two CTA barriers (every thread
// of the CTA calls it the same number of times, as the kernel does); D = A·B + C summed in double and rounded once
// (the tensor core's f32 accumulation may differ in the last bits: the kernel is held to the CPU's tolerances, not to
// bit equality).
#define DCT_EMULATE 1
inline float h2f(unsigned short h) {
  _Float16 v;
  std::memcpy(&v, &h, 2);
  return float(v);
}
inline unsigned short f2h(float f) {
  const _Float16 v = static_cast<_Float16>(f);
  unsigned short h;
  std::memcpy(&h, &v, 2);
  return h;
}
inline unsigned emu_h2(float lo, float hi) { return f2h(lo) | (unsigned(f2h(hi)) << 16); }
inline unsigned emu_hsub2(unsigned a, unsigned b) {
  return emu_h2(h2f(a & 0xffff) - h2f(b & 0xffff), h2f(a >> 16) - h2f(b >> 16));
}
inline unsigned emu_hmin2(unsigned a, unsigned b) {
  return emu_h2(std::fmin(h2f(a & 0xffff), h2f(b & 0xffff)), std::fmin(h2f(a >> 16), h2f(b >> 16)));
}
inline unsigned emu_hmax2(unsigned a, unsigned b) {
  return emu_h2(std::fmax(h2f(a & 0xffff), h2f(b & 0xffff)), std::fmax(h2f(a >> 16), h2f(b >> 16)));
}
// a·b + c per half, rounded once (the product of two f16 and the sum are exact in double; double -> _Float16 rounds
// once, to nearest even).
inline unsigned emu_hfma2(unsigned a, unsigned b, unsigned c) {
  auto f = [](unsigned x, int k) { return double(h2f(static_cast<unsigned short>(x >> (16 * k)))); };
  unsigned r = 0;
  for (int k = 0; k < 2; ++k) {
    const _Float16 v = static_cast<_Float16>(f(a, k) * f(b, k) + f(c, k));
    unsigned short h;
    std::memcpy(&h, &v, 2);
    r |= unsigned(h) << (16 * k);
  }
  return r;
}
struct MmaLane {
  unsigned a[4], b[2];
};
inline MmaLane g_mma[1024];
// s + the sum of entry i (m = g + 8 (i >> 1), n = 2t + (i & 1)) of lane `lane`'s D = A·B, the warp's fragments in w
// (A(m, k) from lane (m % 8, (k % 8) / 2), B(k, n) from lane (n, (k % 8) / 2)), in double: exact, f16 products.
inline double mma_entry(const MmaLane* w, int lane, int i, double s) {
  auto half = [](unsigned r, int k) { return h2f(static_cast<unsigned short>(r >> (16 * (k & 1)))); };
  const int m = (lane >> 2) + 8 * (i >> 1), n = 2 * (lane & 3) + (i & 1);
  for (int k = 0; k < 16; ++k)
    s += double(half(w[(m % 8) * 4 + (k % 8) / 2].a[(m >= 8) + 2 * (k >= 8)], k)) *
         half(w[n * 4 + (k % 8) / 2].b[k >= 8], k);
  return s;
}
// The warp's D = A·B + C in double (exact: f16 products, 17 terms), with c[i] the accumulator of entry i of this lane.
inline void emu_mma_sums(double (&s)[4], const unsigned (&a)[4], unsigned b0, unsigned b1, const double (&c)[4]) {
  const unsigned me = threadIdx.x, base = me & ~31u;
  g_mma[me] = {{a[0], a[1], a[2], a[3]}, {b0, b1}};
  __syncthreads();
  for (int i = 0; i < 4; ++i) s[i] = mma_entry(g_mma + base, int(me & 31), i, c[i]);
  __syncthreads();
}
inline void emu_mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1, const float (&c)[4]) {
  double s[4];
  emu_mma_sums(s, a, b0, b1, {c[0], c[1], c[2], c[3]});
  for (int i = 0; i < 4; ++i) d[i] = float(s[i]);
}
// The f16-accumulating form (C, D f16x2; c0: row g, c1: row g + 8): the exact sum rounded to f16 once, to nearest
// even, as the tensor core does (measured on an H100: 16 of 16 probes, ties and three-term sums included).
inline void emu_mma16816_h(unsigned (&d)[2], const unsigned (&a)[4], unsigned b0, unsigned b1, unsigned c0,
                           unsigned c1) {
  auto half = [](unsigned c, int k) { return double(h2f(static_cast<unsigned short>(c >> (16 * k)))); };
  double s[4];
  emu_mma_sums(s, a, b0, b1, {half(c0, 0), half(c0, 1), half(c1, 0), half(c1, 1)});
  d[0] = d[1] = 0;
  for (int i = 0; i < 4; ++i) {
    const _Float16 v = static_cast<_Float16>(s[i]);
    unsigned short hb;
    std::memcpy(&hb, &v, 2);
    d[i >> 1] |= unsigned(hb) << (16 * (i & 1));
  }
}

#include "kernels/compress/jpeg_fused.cuh"
#include "kernels/compress/jpeg_fused_tc.cuh"

using namespace dct;
namespace jf = dct::cuda::jpeg_fused;
namespace tc = dct::cuda::jpeg_fused::tc;

// The kernel's dequantizer: as kernels/compress/jpeg_fused.cu picks it, or the f32 one.
enum class Deq { kAsLaunched, kF32 };

struct Emulated {
  core::CompressResult res;
  std::vector<unsigned long long> hist;  // the device histogram
  bool deq_f16 = false;                  // the dequantizer the run took
};

// The launch and the result exactly as kernels/compress/jpeg_fused.cu does them (params_for, launch_for with tc_chunk
// 3, upload_and_run, count_histogram).
template <int kPlanes, bool kDeqF16>
void run_grid(const jf::Params& p, long long ctas) {
  const std::size_t smem = tc::smem_bytes(p.half_bins, kPlanes, tc::kPairs);
  std::vector<uint4> dyn((smem + sizeof(uint4) - 1) / sizeof(uint4));  // the CTA's dynamic shared memory
  auto* const stage = reinterpret_cast<unsigned char*>(dyn.data());
  auto* const hist = reinterpret_cast<unsigned*>(stage + tc::stage_bytes(kPlanes, tc::kPairs));
  for (long long cta = 0; cta < ctas; ++cta) {
    blockIdx = {static_cast<unsigned>(cta), 0, 0};
    std::memset(stage, 0xA5, tc::stage_bytes(kPlanes, tc::kPairs));  // poison: the kernel clears the histogram itself
    std::memset(hist, 0xFF, smem - tc::stage_bytes(kPlanes, tc::kPairs));
    emu_run_cta(static_cast<unsigned>(tc::kThreads), [&](unsigned t) {
      tc::fused_jpeg_cta<kPlanes, tc::kPairs, kDeqF16>(p, stage, hist, static_cast<int>(t), static_cast<int>(cta));
    });
  }
}

Emulated emulate(const core::Dataset& in, int quality, Deq deq) {
  const core::HostTensor& t = in.tensor;
  const int planes = core::coded_planes(t.channels());
  const long long bytes = t.elements();
  std::vector<unsigned char> src(static_cast<std::size_t>(bytes)), dst(static_cast<std::size_t>(bytes), 0xA5);
  for (long long i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(std::clamp(t.get(i), 0.0, 255.0));
  constexpr long long kCtaPixels = 16LL * tc::kWarps * tc::kPairs;
  jf::Params p{};
  p.h = static_cast<int>(t.rows());
  p.w = static_cast<int>(t.cols());
  p.channels = static_cast<int>(t.channels());
  p.half_bins = jf::half_bins_for(quality);
  p.blocks_x = static_cast<int>(core::round_up8(p.w) / 8);
  p.strips = static_cast<int>(core::round_up8(p.h) / 8);
  p.ctas_x = static_cast<int>((core::round_up8(p.w) + kCtaPixels - 1) / kCtaPixels);
  jf::make_tables(quality, p.tab);
  std::vector<unsigned long long> hist(jf::kBins, 0);
  p.in = src.data();
  p.out = dst.data();
  p.hist = hist.data();
  float cp[64];
  tc::make_cprime(cp);
  std::vector<tc::LaneSetup> setup(32);
  tc::make_lane_setup(cp, p.tab, *reinterpret_cast<tc::LaneSetup(*)[32]>(setup.data()));
  p.tc_setup = setup.data();
  p.tc_chunk = 3;
  const long long units = static_cast<long long>(p.ctas_x) * p.strips, ctas = (units + p.tc_chunk - 1) / p.tc_chunk;
  const bool f16 = deq == Deq::kAsLaunched && tc::deq_f16_ok(p.tab);
  if (planes == 3) {
    if (f16)
      run_grid<3, true>(p, ctas);
    else
      run_grid<3, false>(p, ctas);
  } else {
    if (f16)
      run_grid<1, true>(p, ctas);
    else
      run_grid<1, false>(p, ctas);
  }
  Emulated e;
  e.deq_f16 = f16;
  e.hist = hist;
  core::CompressResult& res = e.res;
  res.image = core::HostTensor(t.shape(), t.channels(), t.precision());
  for (long long i = 0; i < bytes; ++i) res.image.set(i, dst[i]);
  std::vector<std::int64_t> counts(hist.begin(), hist.end());
  res.coefficients = core::round_up8(p.h) * core::round_up8(p.w) * planes;
  std::int64_t nonzero = 0;
  for (std::int64_t c : counts) nonzero += c;
  counts[jf::kZeroBin] = res.coefficients - nonzero;
  res.nonzero = nonzero;
  res.entropy_bits = core::entropy_of_histogram(counts);
  return e;
}

core::Dataset synthetic(std::int64_t h, std::int64_t w, std::int64_t ch, const core::Dataset* crop_of) {
  core::Dataset d;
  d.kind = core::SourceKind::kImage8;
  d.tensor = core::HostTensor(core::Shape2{h, w}, ch, core::Precision::kF32);
  for (std::int64_t c = 0; c < ch; ++c)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) {
        double v = double((7 * i + 3 * j + 50 * c) % 256);  // alpha / a ramp
        if (crop_of != nullptr && c < crop_of->tensor.channels()) {
          const auto& s = crop_of->tensor;
          v = s.get((c * s.rows() + i % s.rows()) * s.cols() + j % s.cols());
        }
        d.tensor.set((c * h + i) * w + j, v);
      }
  return d;
}

// The forward colour conversion (tc::ycc_h2: two MMAs per plane, then ycc_tail) against the CPU's (core::rgb_to_ycc),
// all 2^24 colours: 128 per warp, each lane's four pixels as the kernel gives them (R, G, B words of columns 4t ..
// 4t + 3), the lane set-up's weight fragments, the warp's MMAs summed exactly (mma_entry, as emu_mma_sums sums them,
// in one thread), then each lane's ycc_tail. Returns the number of failed checks (0 or 1).
int colour_conversion() {
  jf::Table tab[2];
  jf::make_tables(50, tab);
  float cp[64];
  tc::make_cprime(cp);
  tc::LaneSetup ls[32];
  tc::make_lane_setup(cp, tab, ls);
  long diff[3] = {0, 0, 0}, far = 0;
  for (unsigned c0 = 0; c0 < (1u << 24); c0 += 128) {
    unsigned words[32][3];
    MmaLane w1[32], w2[32];  // per lane: the A fragment of the R, G bytes / of the B bytes, B: this plane's weights
    for (int lane = 0; lane < 32; ++lane) {
      for (int ch = 0; ch < 3; ++ch) {
        words[lane][ch] = 0;
        for (int k = 0; k < 4; ++k) words[lane][ch] |= (((c0 + 4 * lane + k) >> (16 - 8 * ch)) & 0xFFu) << (8 * k);
      }
      const unsigned* wd = words[lane];
      const unsigned x1[4] = {tc::bytes_1024(wd[0], 0), tc::bytes_1024(wd[0], 1), tc::bytes_1024(wd[1], 0),
                              tc::bytes_1024(wd[1], 1)};
      const unsigned x2[4] = {tc::bytes_1024(wd[2], 0), tc::bytes_1024(wd[2], 1), tc::kH1024, tc::kH1024};
      std::memcpy(w1[lane].a, x1, sizeof x1);
      std::memcpy(w2[lane].a, x2, sizeof x2);
    }
    for (int pl = 0; pl < 3; ++pl) {
      for (int lane = 0; lane < 32; ++lane) {
        w1[lane].b[0] = ls[lane].ycc[pl][0], w1[lane].b[1] = ls[lane].ycc[pl][1];
        w2[lane].b[0] = ls[lane].ycc[pl][2], w2[lane].b[1] = ls[lane].ycc[pl][3];
      }
      double d[32][4];
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) d[lane][i] = mma_entry(w2, lane, i, mma_entry(w1, lane, i, 0.0));
      for (int lane = 0; lane < 32; ++lane) {
        const float df[4] = {float(d[lane][0]), float(d[lane][1]), float(d[lane][2]), float(d[lane][3])};
        for (int i = 0; i < 4; ++i) far += df[i] != d[lane][i];  // a sum not exact in f32
        unsigned out[2];
        if (pl == 0) tc::ycc_tail<0>(df, out);
        if (pl == 1) tc::ycc_tail<1>(df, out);
        if (pl == 2) tc::ycc_tail<2>(df, out);
        for (int k = 0; k < 4; ++k) {
          const unsigned c = c0 + 4 * lane + k;
          const auto want = core::rgb_to_ycc(int(c >> 16), int((c >> 8) & 255), int(c & 255));
          const double got = h2f(static_cast<unsigned short>(out[k >> 1] >> (16 * (k & 1)))) - 1024.0;
          diff[pl] += got != want[pl];
          far += got != want[pl] && got != want[pl] + 1;
        }
      }
    }
  }
  const bool ok = far == 0 && diff[0] == 3464 && diff[1] == 0 && diff[2] == 2666;
  std::printf(
      "colour conversion, 2^24 colours: Y %ld, Cb %ld, Cr %ld differ from the CPU (expected 3464, 0, 2666 "
      "ties, each +1), %ld by more: %s\n",
      diff[0], diff[1], diff[2], far, ok ? "ok" : "FAIL");
  std::fflush(stdout);
  return ok ? 0 : 1;
}

// The coefficient kernels, every block of every plane and every pixel (one thread each on the device), against the
// CPU compressor with keep_coefficients: q equal, and the squared error of the reconstruction (pixel_error) equal to
// its in-loop mse, with the input planar and, for gray and RGB, interleaved (Dataset::samples8). Returns the number of
// differing values (an mse that differs counts one).
long long coefficient_check(const core::Compressor& cpu, const core::Dataset& d, int quality,
                            core::ChromaSampling sampling) {
  core::CompressRequest r;
  r.quality = quality;
  r.sampling = sampling;
  r.keep_coefficients = true;
  const core::CompressResult want = cpu.run(r, d);
  const core::HostTensor& t = d.tensor;
  namespace jc = cuda::jpeg_coef;
  jc::Params p{};
  p.h = static_cast<int>(t.rows());
  p.w = static_cast<int>(t.cols());
  p.planes = core::coded_planes(t.channels());
  const bool s420 = p.planes == 3 && sampling == core::ChromaSampling::k420;
  p.bh = (p.h + 7) / 8;
  p.bw = (p.w + 7) / 8;
  p.cbh = p.planes == 3 ? (s420 ? (p.h + 15) / 16 : p.bh) : 0;
  p.cbw = p.planes == 3 ? (s420 ? (p.w + 15) / 16 : p.bw) : 0;
  p.s420 = s420;
  math::jpeg::fl_scale_table(p.scale);
  for (int c = 0; c < 2; ++c) {
    const auto table = core::quant_table(quality, c == 1);
    for (int k = 0; k < 64; ++k) p.qt[c][k] = static_cast<float>(table[k]);
  }
  const std::int64_t hw = t.rows() * t.cols();
  long long diff = 0;
  for (int layout : {0, p.planes}) {
    if (layout != 0 && t.channels() != p.planes) continue;  // samples8 holds gray or RGB only
    std::vector<unsigned char> src(static_cast<std::size_t>(hw * p.planes));
    for (std::int64_t c = 0; c < p.planes; ++c)
      for (std::int64_t i = 0; i < hw; ++i)
        src[static_cast<std::size_t>(layout ? i * p.planes + c : c * hw + i)] =
            static_cast<unsigned char>(std::clamp(t.get(c * hw + i), 0.0, 255.0));
    p.in = src.data();
    p.interleaved = layout;
    std::vector<std::vector<std::int16_t>> got;
    std::vector<std::vector<unsigned char>> rec;
    for (int pl = 0; pl < p.planes; ++pl) {
      const std::size_t n = static_cast<std::size_t>((pl == 0 ? p.bh * p.bw : p.cbh * p.cbw) * 64);
      got.emplace_back(n, std::int16_t(0x5A5A));
      rec.emplace_back(n, static_cast<unsigned char>(0xA5));
      p.q[pl] = got.back().data();
      p.rec[pl] = rec.back().data();
    }
    std::int16_t q[64];
    for (long long b = 0; b < jc::total_blocks(p); ++b) jc::code_block(p, b, q);
    std::int64_t sse = 0;
    for (int y = 0; y < p.h; ++y)
      for (int x = 0; x < p.w; ++x) sse += jc::pixel_error(p, y, x);
    diff += want.quantized.planes.size() == got.size() ? 0 : 1;
    for (std::size_t pl = 0; pl < got.size() && diff == 0; ++pl) {
      const auto& w = want.quantized.planes[pl];
      if (w.size() != got[pl].size()) {
        ++diff;
        break;
      }
      for (std::size_t i = 0; i < w.size(); ++i) diff += w[i] != got[pl][i];
    }
    const double mse = double(sse) / double(hw * p.planes);
    if (!(mse == want.mse)) {
      std::printf("  mse %.17g, the CPU's %.17g (%s)\n", mse, want.mse, layout ? "interleaved" : "planar");
      ++diff;
    }
  }
  if (want.quantized.blocks_high != p.bh || want.quantized.blocks_wide != p.bw ||
      want.quantized.chroma_blocks_high != p.cbh || want.quantized.chroma_blocks_wide != p.cbw)
    ++diff;
  return diff;
}

// pixel_error's pieces: math::jpeg::ycc_to_rgb8 against the decoder's conversion in double on all 2^24 samples, and
// h2v2_fancy_at against h2v2_fancy_row on random rows of every n from 1 to 40, both output widths. Returns mismatches.
int reconstruction_pieces() {
  int bad = 0;
  for (int y = 0; y < 256; ++y)
    for (int cb = 0; cb < 256; ++cb)
      for (int cr = 0; cr < 256; ++cr) {
        int got[3];
        math::jpeg::ycc_to_rgb8(y, cb, cr, got);
        namespace mj = math::jpeg;  // the decoder's conversion written out (core::ycc_to_rgb now calls ycc_to_rgb8)
        const double want[3] = {core::round_to_u8(y + mj::kRCr * (cr - 128.0)),
                                core::round_to_u8(y + mj::kGCb * (cb - 128.0) + mj::kGCr * (cr - 128.0)),
                                core::round_to_u8(y + mj::kBCb * (cb - 128.0))};
        for (int c = 0; c < 3; ++c) bad += got[c] != static_cast<int>(want[c]);
      }
  std::uint32_t seed = 12345;
  auto next = [&] { return (seed = seed * 1664525u + 1013904223u) >> 24; };
  for (long long n = 1; n <= 40; ++n)
    for (long long w : {2 * n - 1, 2 * n}) {
      std::vector<std::uint8_t> near(static_cast<std::size_t>(n)), far(near.size()), row(static_cast<std::size_t>(w));
      for (int rep = 0; rep < 20; ++rep) {
        for (std::size_t i = 0; i < near.size(); ++i) {
          near[i] = static_cast<std::uint8_t>(next());
          far[i] = static_cast<std::uint8_t>(next());
        }
        math::jpeg::h2v2_fancy_row(near.data(), far.data(), n, w, row.data());
        for (long long x = 0; x < w; ++x) bad += math::jpeg::h2v2_fancy_at(near.data(), far.data(), n, x) != row[x];
      }
    }
  std::printf("reconstruction pieces (YCbCr -> RGB on 2^24 samples, h2v2 fancy per sample): %d differ from the CPU's%s\n",
              bad, bad ? "  FAIL" : "");
  return bad;
}

// A JFIF file of `px` (w x h, 1 or 3 interleaved components) written by libjpeg-turbo at quality q, the luma sampled
// hf x vf; progressive and restart markers where asked.
std::vector<unsigned char> write_jpeg(const std::vector<unsigned char>& px, int w, int h, int comps, int q, int hf,
                                      int vf, bool progressive = false, int restart_rows = 0) {
  jpeg_compress_struct c;
  jpeg_error_mgr e;
  c.err = jpeg_std_error(&e);
  jpeg_create_compress(&c);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &out, &size);
  c.image_width = static_cast<JDIMENSION>(w);
  c.image_height = static_cast<JDIMENSION>(h);
  c.input_components = comps;
  c.in_color_space = comps == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, q, TRUE);
  c.comp_info[0].h_samp_factor = comps == 3 ? hf : 1;
  c.comp_info[0].v_samp_factor = comps == 3 ? vf : 1;
  c.restart_in_rows = restart_rows;
  if (progressive) jpeg_simple_progression(&c);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(px.data() + std::size_t(c.next_scanline) * std::size_t(w) * std::size_t(comps));
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  std::vector<unsigned char> file(out, out + size);
  std::free(out);
  jpeg_destroy_compress(&c);
  return file;
}

// The file's quantized coefficients as libjpeg-turbo's own arrays hold them (its memory manager as it comes), in
// core::JpegCoefficients8's layout: each component's blocks in raster order, one component after another.
std::vector<std::int16_t> libjpeg_coefficients(const std::vector<unsigned char>& file) {
  jpeg_decompress_struct c;
  jpeg_error_mgr e;
  c.err = jpeg_std_error(&e);
  jpeg_create_decompress(&c);
  jpeg_mem_src(&c, file.data(), static_cast<unsigned long>(file.size()));
  jpeg_read_header(&c, TRUE);
  jvirt_barray_ptr* arrays = jpeg_read_coefficients(&c);
  std::vector<std::int16_t> out;
  for (int k = 0; k < c.num_components; ++k)
    for (JDIMENSION by = 0; by < c.comp_info[k].height_in_blocks; ++by) {
      JBLOCKARRAY row = (*c.mem->access_virt_barray)(reinterpret_cast<j_common_ptr>(&c), arrays[k], by, 1, FALSE);
      for (JDIMENSION bx = 0; bx < c.comp_info[k].width_in_blocks; ++bx)
        out.insert(out.end(), row[0][bx], row[0][bx] + 64);
    }
  jpeg_finish_decompress(&c);
  jpeg_destroy_decompress(&c);
  return out;
}

// jpeg_decode.cuh's kernels, every block and pixel, on a file read as its coefficients; the samples.
std::vector<unsigned char> device_decode(const core::JpegCoefficients8& j, bool& in_range) {
  namespace jd = dct::cuda::jpeg_decode;
  std::vector<unsigned char> planes(static_cast<std::size_t>(j.values)),
      out(std::size_t(j.rows * j.cols) * j.components);
  const jd::Params p = jd::params_for(j, j.coef(), planes.data(), out.data());
  in_range = true;
  for (long long b = 0; b < jd::total_blocks(p); ++b) in_range = jd::decode_block(p, b) && in_range;
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w; ++x) jd::decode_pixel(p, y, x);
  return out;
}

int input_decoder(const core::Dataset& cam, const core::Dataset& ast) {
  std::mt19937 rng(7);
  int cases = 0, bad = 0;
  // One pool for every read, as a batch's: the coefficients land in blocks that earlier files filled.
  core::TensorPool pool(core::allocate_heap);
  const auto check = [&](const std::vector<unsigned char>& file, const std::string& what, bool expect_coefficients) {
    core::ReadOptions ro;
    ro.samples8 = true;
    ro.jpeg_coefficients = true;
    ro.pool = &pool;
    const core::Dataset d = app::decode_image(file, what, ro);
    ++cases;
    if ((d.jpeg != nullptr) != expect_coefficients) {
      std::printf("%s: read %s  FAIL\n", what.c_str(), d.jpeg ? "as coefficients" : "decoded");
      ++bad;
      return;
    }
    if (!d.jpeg) return;
    const std::vector<std::int16_t> lib = libjpeg_coefficients(file);
    if (static_cast<std::int64_t>(lib.size()) != d.jpeg->values ||
        !std::equal(lib.begin(), lib.end(), d.jpeg->coef())) {
      std::printf("%s: the coefficients read differ from libjpeg-turbo's own arrays  FAIL\n", what.c_str());
      ++bad;
      return;
    }
    bool in_range = false;
    const std::vector<unsigned char> got = device_decode(*d.jpeg, in_range);
    const std::shared_ptr<const core::Samples8> want = d.jpeg->decode();
    long long differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != want->data()[i];
    if (differ != 0 || !in_range || want->channels != d.jpeg->components) {
      std::printf("%s: %lld samples differ from libjpeg-turbo's%s  FAIL\n", what.c_str(), differ,
                  in_range ? "" : " (a block out of range)");
      ++bad;
    }
  };
  const int sizes[][2] = {{1, 1},   {2, 3},    {4, 4},   {6, 5},   {5, 7},      {17, 9},   {33, 65},
                          {64, 48}, {129, 77}, {3, 200}, {200, 3}, {1001, 333}, {640, 480}};
  for (const auto& sz : sizes)
    for (int comps : {1, 3})
      for (int smp = 0; smp < (comps == 3 ? 3 : 1); ++smp)
        for (int q : {5, 50, 92, 100})
          for (int kind = 0; kind < 3; ++kind) {
            const int w = sz[0], h = sz[1], hf = smp == 0 ? 1 : 2, vf = smp == 2 ? 2 : 1;
            std::vector<unsigned char> px(std::size_t(w) * std::size_t(h) * std::size_t(comps));
            for (int y = 0; y < h; ++y)
              for (int x = 0; x < w; ++x)
                for (int k = 0; k < comps; ++k) {
                  const int v = kind == 0   ? int(rng() % 256)
                                : kind == 1 ? int(128 + 120 * std::sin(0.1 * x + 0.05 * y + k))
                                            : ((x / 4 + y / 4 + k) % 2 ? 250 : 5);
                  px[(std::size_t(y) * std::size_t(w) + std::size_t(x)) * std::size_t(comps) + std::size_t(k)] =
                      static_cast<unsigned char>(v);
                }
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " +
                                     (comps == 1 ? "gray"
                                      : smp == 0 ? "4:4:4"
                                      : smp == 1 ? "4:2:2"
                                                 : "4:2:0") +
                                     " q" + std::to_string(q) + " pattern " + std::to_string(kind);
            check(write_jpeg(px, w, h, comps, q, hf, vf, false, kind == 2 ? 1 : 0), what, true);
          }
  // The sample images (planar f32 tensors) as 8-bit interleaved pixels, 4:2:0 and 4:4:4 at quality 92.
  for (const core::Dataset* d : {&cam, &ast}) {
    const core::HostTensor& t = d->tensor;
    const int w = int(t.cols()), h = int(t.rows()), comps = int(t.channels());
    std::vector<unsigned char> px(std::size_t(w) * std::size_t(h) * std::size_t(comps));
    for (std::int64_t i = 0; i < t.rows() * t.cols(); ++i)
      for (int k = 0; k < comps; ++k)
        px[std::size_t(i) * std::size_t(comps) + std::size_t(k)] =
            static_cast<unsigned char>(t.get(k * t.rows() * t.cols() + i));
    for (int smp : {0, 2})
      check(write_jpeg(px, w, h, comps, 92, smp == 0 ? 1 : 2, smp == 0 ? 1 : 2),
            (comps == 1 ? "camera" : "astronaut") + std::string(smp == 0 ? " 4:4:4" : " 4:2:0") + " q92", true);
    check(write_jpeg(px, w, h, comps, 75, 2, 2, true), comps == 1 ? "camera progressive" : "astronaut progressive",
          false);
  }
  // A block no encoder of 8-bit samples writes: reported, not decoded silently.
  std::int16_t coef[64] = {};
  std::uint16_t qt[64];
  std::fill(qt, qt + 64, std::uint16_t{255});
  coef[0] = 100;  // 25500 > kMaxIn
  unsigned char blk[64];
  ++cases;
  if (math::jpeg::islow_idct(coef, qt, blk, 8)) {
    std::printf("a dequantized DC of 25500 was not reported  FAIL\n");
    ++bad;
  }
  std::printf("JPEG input decoder equal to libjpeg-turbo's decode in %d of %d cases\n", cases - bad, cases);
  return bad;
}

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : DCTOOL_SOURCE_DIR;
  core::Registry registry;
  registry.add(cpu::make_block8_flmad_backend());
  const std::unique_ptr<core::Compressor> cpu = cpu::make_cpu_compressor(registry);
  const app::ImageFileCodec codec;
  struct Case {
    std::string name;
    core::Dataset d;
  };
  std::vector<Case> cases;
  cases.reserve(8);
  cases.push_back({"camera.png", codec.read(root + "/data/camera.png", core::Precision::kF32)});
  cases.push_back({"astronaut.png", codec.read(root + "/data/astronaut.png", core::Precision::kF32)});
  const core::Dataset &cam = cases[0].d, &ast = cases[1].d;
  cases.push_back({"astronaut 203x301", synthetic(203, 301, 3, &ast)});
  cases.push_back({"astronaut 205x296 +alpha", synthetic(205, 296, 4, &ast)});
  cases.push_back({"camera 200x1100 +alpha", synthetic(200, 1100, 2, &cam)});
  cases.push_back({"astronaut 64x8 +alpha", synthetic(64, 8, 4, &ast)});
  cases.push_back({"ramp 203x301 rgb", synthetic(203, 301, 3, nullptr)});
  cases.push_back({"ramp 24x40 rgb", synthetic(24, 40, 3, nullptr)});
  int bad = colour_conversion();
  double worst = INFINITY;
  int low = 0, runs = 0, deq_same = 0, deq_pairs = 0;
  for (const Case& c : cases)
    for (int q : {10, 50, 90, 97}) {
      core::CompressRequest r;
      r.quality = q;
      r.backend = "cpu-8x8-flmad";
      const core::CompressResult want = cpu->run(r, c.d);
      const Emulated e = emulate(c.d, q, Deq::kAsLaunched);
      const core::CompressResult& got = e.res;
      const double psnr = core::psnr_db(core::mse(want.image, got.image), 255.0);
      const std::int64_t ch = c.d.tensor.channels(), hw = c.d.tensor.rows() * c.d.tensor.cols();
      std::int64_t alpha_diff = 0, deq_diff = 0;
      for (std::int64_t k = core::coded_planes(ch); k < ch; ++k)
        for (std::int64_t i = 0; i < hw; ++i) alpha_diff += got.image.get(k * hw + i) != c.d.tensor.get(k * hw + i);
      if (e.deq_f16) {  // the f32 dequantizer on the same image must give the same bits
        const Emulated e32 = emulate(c.d, q, Deq::kF32);
        deq_diff = e32.hist != e.hist;
        for (std::int64_t i = 0; i < ch * hw; ++i) deq_diff += e32.res.image.get(i) != got.image.get(i);
        ++deq_pairs;
        deq_same += deq_diff == 0;
      }
      // Not bit-exact (f16 products): the gpu test's criteria instead.
      const bool close = std::abs(want.nonzero_fraction() - got.nonzero_fraction()) < 1e-3 &&
                         std::abs(want.entropy_bits - got.entropy_bits) < 1e-2;
      const bool below = psnr <= 50.0;  // listed (and counted below), not failed
      const bool ok = close && alpha_diff == 0 && deq_diff == 0 && want.coefficients == got.coefficients;
      worst = std::min(worst, psnr);
      low += below;
      ++runs;
      bad += !ok;
      std::printf(
          "%-26s q%-3d %s PSNR(CPU,GPU) %7.2f dB  nonzero %lld / %lld (%+.2e)  entropy %.5f / %.5f "
          "(%+.1e)%s%s%s%s\n",
          c.name.c_str(), q, e.deq_f16 ? "f16 deq (f32 too)" : "f32 deq          ", psnr, (long long)want.nonzero,
          (long long)got.nonzero, want.nonzero_fraction() - got.nonzero_fraction(), want.entropy_bits, got.entropy_bits,
          got.entropy_bits - want.entropy_bits, alpha_diff ? "  ALPHA CHANGED" : "",
          deq_diff ? "  f32 DEQUANTIZER DIFFERS" : "", below ? "  BELOW-50" : "", ok ? "" : "  FAIL");
      std::fflush(stdout);
    }
  std::printf("f32 dequantizer identical to the f16 one in %d of %d cases\n", deq_same, deq_pairs);
  int coef_cases = 0, coef_bad = 0;
  for (const Case& c : cases)
    for (int q : {10, 50, 90, 97})
      for (auto smp : {core::ChromaSampling::k444, core::ChromaSampling::k420}) {
        const long long d = coefficient_check(*cpu, c.d, q, smp);
        ++coef_cases;
        if (d != 0) {
          ++coef_bad;
          std::printf("%-26s q%-3d %s coefficient kernel: %lld values differ from the CPU's  FAIL\n", c.name.c_str(), q,
                      std::string(core::to_string(smp)).c_str(), d);
        }
      }
  std::printf(
      "coefficient kernels equal to the CPU compressor's q and mse in %d of %d cases (4:4:4 and 4:2:0, planar and "
      "interleaved)\n",
      coef_cases - coef_bad, coef_cases);
  bad += coef_bad;
  bad += reconstruction_pieces();
  bad += input_decoder(cam, ast);
  std::printf("min PSNR(CPU, GPU) %.2f dB, below 50 dB in %d of %d cases\n%s\n", worst, low, runs, bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
