// Hidden timing check (run by hand: test_cpu "[.bench]" -s): the CPU compressor's jpeg stages on one thread, on a
// 1920x1080 RGB image (data/astronaut.png tiled), medians of 5: the whole block loop (compressor, jpeg_blocks), the
// 8x8 DCT alone (cpu-8x8-flmad dct2 + idct2 of the three padded planes), and the loop's stages one by one
// (colour conversion; per block transform + quantization + inverse + rounding; back to RGB). No timed assertions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/registry.hpp"
#include "core/compress.hpp"
#include "core/timing.hpp"
#include "cpu/backends.hpp"
#include "cpu/compress_jpeg.hpp"
#include "math/jpeg.hpp"
#include "support.hpp"

namespace {

using namespace dct;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double time5(F f) {
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) {
    core::Stopwatch sw;
    f();
    t.push_back(sw.elapsed_ms());
  }
  return median(t);
}

TEST_CASE("bench: jpeg block loop stages vs the 8x8 DCT, 1920x1080 RGB, one thread", "[.bench]") {
  cpu::set_threads(1);
  const core::Dataset src = app::image_codec().read(test::source_dir() + "/data/astronaut.png", core::Precision::kF32);
  const std::int64_t h = 1080, w = 1920, hw = h * w, sh = src.tensor.rows(), sw_ = src.tensor.cols();
  core::Dataset in;
  in.kind = core::SourceKind::kImage8;
  in.tensor = core::HostTensor(core::Shape2{h, w}, 3, core::Precision::kF32);
  for (std::int64_t c = 0; c < 3; ++c)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j)
        in.tensor.set(c * hw + i * w + j, src.tensor.get(c * sh * sw_ + (i % sh) * sw_ + j % sw_));
  const core::Compressor& comp = *app::compressors().back();
  core::CompressRequest r;
  r.quality = 50;
  r.backend = "cpu-8x8-flmad";
  const double whole = time5([&] { comp.run(r, in); });
  // The DCT alone: dct2 + idct2 --block 8 of the three padded planes.
  const core::Backend& flmad = *app::registry().find("cpu-8x8-flmad");
  core::TransformDesc d;
  d.op = core::Op::kDct2;
  d.norm = core::Norm::kOrtho;
  d.block = 8;
  d.shape = core::Shape2{1088, 1920};
  d.batch = 3;
  d.prec = core::Precision::kF32;
  core::HostTensor planes(d.shape, 3, core::Precision::kF32), coef(d.shape, 3, core::Precision::kF32);
  for (std::int64_t i = 0; i < planes.elements(); ++i) planes.set(i, double(i % 251) - 128.0);
  auto fwd = flmad.make_plan(d);
  d.op = core::Op::kIdct2;
  auto inv = flmad.make_plan(d);
  const double dct = time5([&] {
    fwd->execute_host(planes.view(), coef.view());
    inv->execute_host(coef.view(), planes.view());
  });
  // The loop's stages one by one, on the whole image.
  const cpu::jpeg::Stages& st = cpu::jpeg::stages();
  std::vector<std::uint8_t> y(hw), cb(hw), cr(hw), rec(hw);
  std::vector<std::int16_t> q(64);
  std::vector<float> out(3 * hw);
  const float* p = in.tensor.data<float>();
  const double ycc = time5([&] {
    for (std::int64_t i = 0; i < h; ++i)
      st.ycc_row(p + i * w, p + hw + i * w, p + 2 * hw + i * w, w, y.data() + i * w, cb.data() + i * w,
                 cr.data() + i * w);
  });
  float scale[64], qt[2][64];
  math::jpeg::fl_scale_table(scale);
  for (int t = 0; t < 2; ++t) {
    const auto tab = core::quant_table(50, t == 1);
    for (int k = 0; k < 64; ++k) qt[t][k] = float(tab[k]);
  }
  long long nz = 0;
  const double blocks = time5([&] {
    for (int pl = 0; pl < 3; ++pl) {
      const std::uint8_t* s = pl == 0 ? y.data() : pl == 1 ? cb.data() : cr.data();
      for (std::int64_t by = 0; by < h / 8; ++by)
        for (std::int64_t bx = 0; bx < w / 8; ++bx)
          nz += __builtin_popcountll(
              st.block(s + by * 8 * w + 8 * bx, w, scale, qt[pl > 0], q.data(), rec.data() + by * 8 * w + 8 * bx, w));
    }
  });
  const double rgb = time5([&] {
    for (std::int64_t i = 0; i < h; ++i)
      st.rgb_row(y.data() + i * w, cb.data() + i * w, cr.data() + i * w, w, false, out.data() + i * w,
                 out.data() + hw + i * w, out.data() + 2 * hw + i * w);
  });
  const double alloc = time5([&] { core::HostTensor t(core::Shape2{h, w}, 3, core::Precision::kF32); });
  std::printf("1920x1080 RGB q50, one thread, medians of 5 (ms):\n");
  std::printf("  the result's f32 image allocated (zeroed, page faults)  %8.2f\n", alloc);
  std::printf("  block loop (compressor's jpeg_blocks, everything)   %8.2f\n", whole);
  std::printf("  8x8 DCT alone (cpu-8x8-flmad dct2 + idct2, 3 planes) %8.2f\n", dct);
  std::printf(
      "  loop stages: RGB->YCbCr %.2f, blocks (level shift, DCT, quantize, dequantize, IDCT, round) %.2f, "
      "YCbCr->RGB %.2f\n",
      ycc, blocks, rgb);
  std::printf("  everything but the DCT: %.2f (block loop - DCT alone)  [nonzero %lld]\n", whole - dct, nz);
  cpu::set_threads(0);
}

}  // namespace
