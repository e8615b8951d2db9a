#!/usr/bin/env bash
# Host emulation of the fused jpeg kernel (kernels/compress/jpeg_fused.cuh, cuda-jpeg-fused) for machines without a
# GPU: the header is compiled as plain C++ with the CUDA intrinsics it uses written out below (bit-exact for the
# arguments the kernel gives them), each CTA run as 128 std::threads with a std::barrier for __syncthreads
# (CTAs one after another), and the reconstruction, nonzero count and entropy compared with the CPU compressor
# (cpu-8x8-flmad) on data/*.png and synthetic odd sizes (alpha, partial CTAs, W % 8 != 0) at quality 10/50/90,
# for the three kernels (DCTOOL_JPEG_FUSED: v3, one thread per block; v5, eight threads per block, __syncwarp a
# barrier of the warp's threads; v6, tensor cores, mma.sync emulated across the warp). Pass: PSNR(CPU, emulated GPU) > 50 dB
# everywhere for v3 and v5, alpha carried through unchanged, v5's output and histogram bit-identical to v3's; v6
# (the GPU default since run11; f16 products, so not bit-exact) within the gpu test's nonzero / entropy tolerances,
# its PSNR listed (V6-BELOW-50 where <= 50 dB: one synthetic case, the 24x40 ramp at q50, 49.9 dB), and with 2 and 4
# block pairs per warp (v62, v64) bit-identical to one pair; v64 runs the f32 dequantizer, the others the f16 one (which
# the kernel takes where every Q >= 2: here at every quality).
# Usage: scripts/jpeg-emulate.sh [BUILD_DIR]   (needs libdct_app.a, libdct_cpu.a, libdct_core.a; run from the repo root)
set -eu
B=$(cd "${1:-build}" && pwd); R=$(pwd); T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/emu.cpp" <<'CPP'
#include <atomic>
#include <barrier>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>
#include "app/registry.hpp"
#include "core/metrics.hpp"
#include "scripts/emulate/cuda_host.hpp"
using std::min;
inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const std::uint64_t v = (std::uint64_t(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline unsigned __vimin_s16x2_relu(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 2; ++i) {
    const int x = std::int16_t(a >> (16 * i)), y = std::int16_t(b >> (16 * i));
    r |= unsigned(std::max(std::min(x, y), 0) & 0xffff) << (16 * i);
  }
  return r;
}
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
// Round toward −inf: the sum in long double (exact for the kernel's operands: |values| < 2^25, ulps >= 2^-40).
inline float down(long double s) { float r = float(s); return r > s ? std::nextafter(r, -INFINITY) : r; }
inline float __fadd_rd(float a, float b) { return down((long double)a + b); }
inline float __fmaf_rd(float a, float b, float c) { return down((long double)a * b + c); }
inline float __saturatef(float v) { return v > 0.f ? (v < 1.f ? v : 1.f) : 0.f; }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}
// v6 (kernels/compress/jpeg_fused_tc.cuh): f16 conversions (_Float16: round to nearest even) and the warp's
// mma.sync m16n8k16 through an exchange array between two CTA barriers (every thread of the CTA calls it the same
// number of times, as the kernel does); D = A·B + C summed in double and rounded once (the tensor core's f32
// accumulation may differ in the last bits: v6 is held to PSNR(CPU) > 50 dB, not to bit equality).
#define DCT_EMULATE 1
inline float __frcp_rn(float x) { return 1.f / x; }
inline float h2f(unsigned short h) { _Float16 v; std::memcpy(&v, &h, 2); return float(v); }
inline unsigned short f2h(float f) { const _Float16 v = static_cast<_Float16>(f); unsigned short h; std::memcpy(&h, &v, 2); return h; }
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
inline unsigned __viaddmin_s16x2_relu(unsigned a, unsigned b, unsigned c) {
  unsigned r = 0;
  for (int i = 0; i < 2; ++i) {
    const int s = std::int16_t(std::uint16_t((a >> (16 * i)) + (b >> (16 * i)))), y = std::int16_t(c >> (16 * i));
    r |= unsigned(std::max(std::min(s, y), 0) & 0xffff) << (16 * i);
  }
  return r;
}
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned((std::uint64_t(a) * b) >> 32); }
struct MmaLane { unsigned a[4], b[2]; };
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
// even, as scripts/tc-f16acc-probe.cu found the tensor core does.
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
std::vector<unsigned long long> g_last_hist;  // the device histogram of the last emulate()

// The launch and the result exactly as kernels/compress/jpeg_fused.cu does them (kernel v3, v5 or v6 with `pairs` block
// pairs per warp).
core::CompressResult emulate(const core::Dataset& in, int quality, int variant, int pairs = 1) {
  const int h = int(in.tensor.rows()), w = int(in.tensor.cols()), ch = int(in.tensor.channels());
  const int planes = core::coded_planes(ch);
  const long long hp = core::round_up8(h), wp = core::round_up8(w), bytes = 1LL * h * w * ch;
  std::vector<unsigned char> src(bytes), dst(bytes, 0xA5);
  for (long long i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(std::clamp(in.tensor.get(i), 0.0, 255.0));
  jf::Params p{};
  p.in = src.data();
  p.out = dst.data();
  std::vector<unsigned long long> hist(jf::kBins, 0);
  p.hist = hist.data();
  p.h = h;
  p.w = w;
  p.channels = ch;
  p.blocks_x = int(wp / 8);
  const int cta_pixels = variant == 6 ? 16 * jf::tc::kWarps * pairs : variant == 5 ? 8 * jf::rows::kBlocks : 8 * jf::kThreads;
  const int threads = variant == 6 ? jf::tc::kThreads : variant == 5 ? jf::rows::kThreads : jf::kThreads;
  p.ctas_x = int((wp + cta_pixels - 1) / cta_pixels);
  p.half_bins = jf::half_bins_for(quality);
  p.strips = int(hp / 8);
  p.byte_exp = 0x47000000u;
  jf::make_tables(quality, p.tab);
  float cp[64];
  jf::tc::make_cprime(cp);
  std::vector<jf::tc::LaneSetup> setup(32);
  jf::tc::make_lane_setup(cp, p.tab, *reinterpret_cast<jf::tc::LaneSetup(*)[32]>(setup.data()));
  p.tc_setup = setup.data();
  p.tc_chunk = 3;  // v6: chunks of 3 (column, strip) units, crossing columns where strips % 3 != 0, a short last one
  std::vector<float4> slots(2 * jf::kSlotFloat4 * jf::kThreads);
  std::vector<unsigned> shist(2 * p.half_bins);
  std::vector<jf::rows::LaneTable> tabs(jf::rows::kLaneTables);
  std::vector<float4> tr(jf::rows::kBlocks * jf::rows::kTrBlock / 4);
  std::vector<uint4> stage(jf::tc::stage_bytes(3, 4) / sizeof(uint4));  // v6's output staging (the largest)
  // v3: a 1-D grid of ctas_x x strips; v5: ctas_x x ceil(strips / 4) (cta = cx + ctas_x cy); v6: one CTA per chunk.
  const long long ctas = variant == 6 ? (1LL * p.ctas_x * p.strips + p.tc_chunk - 1) / p.tc_chunk
                         : variant == 5 ? p.ctas_x * ((p.strips + jf::rows::kStrips - 1) / jf::rows::kStrips)
                                        : p.ctas_x * (hp / 8);
  for (long long cta = 0; cta < ctas; ++cta) {
    std::memset(slots.data(), 0xFF, slots.size() * sizeof(float4));  // poison (NaN): unwritten slots show up
    std::memset(shist.data(), 0xFF, shist.size() * sizeof(unsigned));
    std::memset(tabs.data(), 0xFF, tabs.size() * sizeof(jf::rows::LaneTable));
    std::memset(tr.data(), 0xFF, tr.size() * sizeof(float4));
    std::memset(stage.data(), 0xA5, stage.size() * sizeof(uint4));
    emu_run_cta(static_cast<unsigned>(threads), [&](unsigned t) {
      float* const trf = reinterpret_cast<float*>(tr.data());
      const int cx = int(cta % p.ctas_x), cy = int(cta / p.ctas_x);
      if (variant == 6) {
        auto run = [&](auto k) {  // 4 pairs: the f32 dequantizer (must give the f16 one's bits), else the kernel's
          auto* st = reinterpret_cast<unsigned char*>(stage.data());
          constexpr int kP = decltype(k)::value;
          if (kP != 4 && jf::tc::deq_f16_ok(p.tab)) {
            if (planes == 3) jf::tc::fused_jpeg_cta<3, kP, true>(p, st, shist.data(), int(t), int(cta));
            else jf::tc::fused_jpeg_cta<1, kP, true>(p, st, shist.data(), int(t), int(cta));
          } else {
            if (planes == 3) jf::tc::fused_jpeg_cta<3, kP, false>(p, st, shist.data(), int(t), int(cta));
            else jf::tc::fused_jpeg_cta<1, kP, false>(p, st, shist.data(), int(t), int(cta));
          }
        };
        if (pairs == 4) run(std::integral_constant<int, 4>{});
        else if (pairs == 2) run(std::integral_constant<int, 2>{});
        else run(std::integral_constant<int, 1>{});
      } else if (variant == 5) {
        if (planes == 3) jf::rows::fused_jpeg_cta<3>(p, tabs.data(), trf, shist.data(), int(t), cx, cy);
        else jf::rows::fused_jpeg_cta<1>(p, tabs.data(), trf, shist.data(), int(t), cx, cy);
      } else if (planes == 3) {
        jf::fused_jpeg_cta<3>(p, slots.data(), shist.data(), int(t), int(cta));
      } else {
        jf::fused_jpeg_cta<1>(p, slots.data(), shist.data(), int(t), int(cta));
      }
    });
  }
  core::CompressResult res;
  res.image = core::HostTensor(in.tensor.shape(), ch, in.tensor.precision());
  for (long long i = 0; i < bytes; ++i) res.image.set(i, dst[i]);
  g_last_hist = hist;
  std::vector<std::int64_t> counts(hist.begin(), hist.end());
  res.coefficients = hp * wp * planes;
  std::int64_t nonzero = 0;
  for (std::int64_t c : counts) nonzero += c;
  counts[jf::kZeroBin] = res.coefficients - nonzero;
  res.nonzero = nonzero;
  res.entropy_bits = core::entropy_of_histogram(counts);
  return res;
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

int main(int argc, char** argv) {
  const std::string root = argv[1];
  const core::Compressor* cpu = nullptr;
  for (const core::Compressor* c : app::compressors())
    if (c->name() == "cpu") cpu = c;
  struct Case { std::string name; core::Dataset d; };
  std::vector<Case> cases;
  cases.reserve(8);
  cases.push_back({"camera.png", app::image_codec().read(root + "/data/camera.png", core::Precision::kF32)});
  cases.push_back({"astronaut.png", app::image_codec().read(root + "/data/astronaut.png", core::Precision::kF32)});
  const core::Dataset &cam = cases[0].d, &ast = cases[1].d;
  cases.push_back({"astronaut 203x301", synthetic(203, 301, 3, &ast)});
  cases.push_back({"astronaut 205x296 +alpha", synthetic(205, 296, 4, &ast)});
  cases.push_back({"camera 200x1100 +alpha", synthetic(200, 1100, 2, &cam)});
  cases.push_back({"astronaut 64x8 +alpha", synthetic(64, 8, 4, &ast)});
  cases.push_back({"ramp 203x301 rgb", synthetic(203, 301, 3, nullptr)});
  cases.push_back({"ramp 24x40 rgb", synthetic(24, 40, 3, nullptr)});
  int bad = 0, differ = 0;
  {  // v6's forward colour conversion (tc::ycc_h2: two MMAs per plane, then ycc_tail) against the CPU's
     // (core::rgb_to_ycc), all 2^24 colours: 128 per warp, each lane's four pixels as the kernel gives them (R, G, B
     // words of columns 4t .. 4t + 3), the lane set-up's weight fragments, the warp's MMAs summed exactly (mma_entry,
     // as emu_mma_sums sums them, in one thread), then each lane's ycc_tail.
    namespace tc = jf::tc;
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
    std::printf("v6 colour conversion, 2^24 colours: Y %ld, Cb %ld, Cr %ld differ from the CPU (expected 3464, 0, 2666 "
                "ties, each +1), %ld by more: %s\n", diff[0], diff[1], diff[2], far, ok ? "ok" : "FAIL");
    bad += !ok;
  }
  double worst = INFINITY, worst6 = INFINITY;
  int low6 = 0;
  for (const Case& c : cases)
    for (int q : {10, 50, 90}) {
      core::CompressRequest r;
      r.quality = q;
      r.backend = "cpu-8x8-flmad";
      const core::CompressResult want = cpu->run(r, c.d);
      std::vector<unsigned long long> hist3, hist6;
      std::vector<double> image3, image6;
      // 62, 64: v6 with 2 and 4 block pairs per warp (same arithmetic per pair: must equal v6 with one, bit for bit;
      // 64 with the f32 dequantizer, which must give the f16 one's bits too).
      for (int variant : {3, 5, 6, 62, 64}) {
        const int kernel = variant > 10 ? variant / 10 : variant, pairs = variant > 10 ? variant % 10 : 1;
        const core::CompressResult got = emulate(c.d, q, kernel, pairs);
        const double psnr = core::psnr_db(core::mse(want.image, got.image), 255.0);
        std::int64_t alpha_diff = 0, v3_diff = 0, v6_diff = 0;
        const std::int64_t ch = c.d.tensor.channels(), hw = c.d.tensor.rows() * c.d.tensor.cols();
        for (std::int64_t k = core::coded_planes(ch); k < ch; ++k)
          for (std::int64_t i = 0; i < hw; ++i) alpha_diff += got.image.get(k * hw + i) != c.d.tensor.get(k * hw + i);
        auto keep = [&](std::vector<unsigned long long>& hk, std::vector<double>& ik) {
          hk = g_last_hist;
          ik.resize(static_cast<std::size_t>(ch * hw));
          for (std::int64_t i = 0; i < ch * hw; ++i) ik[i] = got.image.get(i);
        };
        auto diff = [&](const std::vector<unsigned long long>& hk, const std::vector<double>& ik) {
          std::int64_t n = g_last_hist != hk;
          for (std::int64_t i = 0; i < ch * hw; ++i) n += got.image.get(i) != ik[i];
          return n;
        };
        if (variant == 3) {
          keep(hist3, image3);
        } else if (variant == 5) {
          v3_diff = diff(hist3, image3);
          differ += v3_diff != 0;
        } else if (variant == 6) {
          keep(hist6, image6);
        } else {
          v6_diff = diff(hist6, image6);
        }
        // v6 (tensor cores, f16 products) is not bit-identical: held to the gpu test's criteria instead.
        const bool close = std::abs(want.nonzero_fraction() - got.nonzero_fraction()) < 1e-3 &&
                           std::abs(want.entropy_bits - got.entropy_bits) < 1e-2;
        // v6's cases below 50 dB are listed as V6-BELOW-50 and in the summary (README and notes/block8.md name the one
        // known case); the exit status is v3's and v5's and v6's alpha, coefficient count, nonzero, entropy and
        // pairs-per-warp checks.
        const bool v6_low = kernel == 6 && psnr <= 50.0;
        const bool ok = (psnr > 50.0 || v6_low) && alpha_diff == 0 && want.coefficients == got.coefficients &&
                        v3_diff == 0 && v6_diff == 0 && (kernel != 6 || close);
        if (kernel == 6) {
          worst6 = std::min(worst6, psnr);
          low6 += v6_low && variant == 6;
        } else {
          worst = std::min(worst, psnr);
        }
        bad += !ok;
        std::printf("v%-2d %-26s q%-3d PSNR(CPU,GPU) %7.2f dB  nonzero %lld / %lld (%+.2e)  entropy %.5f / %.5f (%+.1e)%s%s%s%s\n",
                    variant, c.name.c_str(), q, psnr, (long long)want.nonzero, (long long)got.nonzero,
                    want.nonzero_fraction() - got.nonzero_fraction(), want.entropy_bits, got.entropy_bits,
                    got.entropy_bits - want.entropy_bits, alpha_diff ? "  ALPHA CHANGED" : "",
                    v3_diff ? "  DIFFERS FROM v3" : "", v6_diff ? "  DIFFERS FROM v6 (one pair per warp)" : "",
                    v6_low ? "  V6-BELOW-50" : ok ? "" : "  FAIL");
      }
    }
  std::printf("v5 identical to v3 in %d of %d cases\n", int(cases.size()) * 3 - differ, int(cases.size()) * 3);
  std::printf("min PSNR v3/v5 %.2f dB; v6 %.2f dB, below 50 dB in %d of %d cases\n%s\n", worst, worst6, low6,
              int(cases.size()) * 3, bad ? "FAIL" : "OK");
  return bad;
}
CPP
g++ -std=c++20 -O2 -ffp-contract=off -fopenmp -pthread -Wno-unknown-pragmas -I"$R" "$T/emu.cpp" "$B/libdct_app.a" \
  "$B/libdct_cpu.a" "$B/libdct_core.a" -lfftw3 -lfftw3f -lfftw3_omp -lfftw3f_omp -lfftw3_threads -lfftw3f_threads \
  -o "$T/emu"
"$T/emu" "$R"
