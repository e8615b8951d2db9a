// cuda-jpeg-fused's coefficient kernel (label gpu; kernels/compress/jpeg_coef.cuh): with keep_coefficients (a .jpg
// output) the GPU's quantized coefficients equal the CPU compressor's exactly, 4:4:4 and 4:2:0, gray and RGB, on
// the sample images and crops of odd sizes with alpha, from planes and (gray, RGB) from the decoder's interleaved
// samples; nonzero count, entropy and the reconstruction's mean squared error equal too. A JPEG input read as its
// coefficients and decoded on the device (kernels/compress/jpeg_decode.cuh) gives what libjpeg-turbo's decode of the
// file gives, and a block the device cannot vouch for falls back to that decode. (The host emulator,
// tests/emulate/emulate_jpeg.cpp, checks the same arithmetic without a GPU.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/image_decode.hpp"
#include "app/jpeg_file.hpp"
#include "app/registry.hpp"
#include "core/compress.hpp"
#include "core/tensor_pool.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Precision;
using core::Shape2;

core::Dataset crop(const core::Dataset& src, std::int64_t h, std::int64_t w, bool alpha) {
  const std::int64_t H = src.tensor.rows(), W = src.tensor.cols(), C = src.tensor.channels();
  core::Dataset in;
  in.kind = src.kind;
  const std::int64_t ch = C + (alpha ? 1 : 0);
  in.tensor = core::HostTensor(Shape2{h, w}, ch, Precision::kF32);
  for (std::int64_t c = 0; c < ch; ++c)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j)
        in.tensor.set((c * h + i) * w + j,
                      c < C ? src.tensor.get((c * H + i % H) * W + j % W) : double((7 * i + 3 * j) % 256));
  return in;
}

// `d`'s gray or RGB planes as the decoder's interleaved samples (Dataset::samples8), without planes.
core::Dataset as_samples8(const core::Dataset& d) {
  const std::int64_t h = d.tensor.rows(), w = d.tensor.cols(), c = d.tensor.channels();
  auto s = std::make_shared<core::Samples8>();
  s->rows = h;
  s->cols = w;
  s->channels = static_cast<int>(c);
  s->bytes = core::AlignedBuffer(static_cast<std::size_t>(h * w * c));
  for (std::int64_t k = 0; k < c; ++k)
    for (std::int64_t i = 0; i < h * w; ++i)
      s->data()[i * c + k] = static_cast<unsigned char>(d.tensor.get(k * h * w + i));
  return core::Dataset(core::HostTensor(), d.kind, std::move(s));
}

// q plane by plane, the nonzero count, the entropy and the error: equal.
void check_same(const core::CompressResult& want, const core::CompressResult& got) {
  const core::QuantizedCoefficients &a = want.quantized, &b = got.quantized;
  REQUIRE(a.planes.size() == b.planes.size());
  for (std::size_t p = 0; p < a.planes.size(); ++p) {
    REQUIRE(a.planes[p].size() == b.planes[p].size());
    std::int64_t diff = 0;
    for (std::size_t i = 0; i < a.planes[p].size(); ++i) diff += a.planes[p][i] != b.planes[p][i];
    INFO("plane " << p << ": " << diff << " of " << a.planes[p].size() << " values differ");
    CHECK(diff == 0);
  }
  CHECK(want.nonzero == got.nonzero);
  CHECK(want.entropy_bits == got.entropy_bits);
  CHECK(want.mse == got.mse);
}

}  // namespace

TEST_CASE("jpeg coef gpu: the GPU's quantized coefficients equal the CPU compressor's, 4:4:4 and 4:2:0",
          "[compress][gpu]") {
  const core::Compressor* fused = app::find_compressor("cuda-jpeg-fused");
  const core::Compressor* cpu = app::find_compressor("cpu");
  REQUIRE(fused != nullptr);
  REQUIRE(cpu != nullptr);
  for (const char* file : {"camera.png", "astronaut.png"}) {
    const core::Dataset src = app::image_codec().read(test::source_dir() + "/data/" + file, Precision::kF32);
    struct Crop {
      std::int64_t h, w;
      bool alpha;
    };
    for (const Crop cr : {Crop{src.tensor.rows(), src.tensor.cols(), false}, Crop{203, 301, false},
                          Crop{205, 296, true}, Crop{17, 9, false}, Crop{1, 1, false}, Crop{1080, 1920, false}})
      for (const int quality : {10, 50, 90, 97})
        for (const auto sampling : {core::ChromaSampling::k444, core::ChromaSampling::k420}) {
          const core::Dataset in = crop(src, cr.h, cr.w, cr.alpha);
          core::CompressRequest r;
          r.quality = quality;
          r.sampling = sampling;
          r.keep_coefficients = true;
          core::CompressRequest rc = r;
          rc.backend = "cpu-8x8-flmad";
          const core::CompressResult want = cpu->run(rc, in);
          REQUIRE(fused->supports(r, in).ok);
          // The decoder's interleaved samples where the image is gray or RGB (the batch path), else the planes.
          const bool s8 = in.tensor.channels() == 1 || in.tensor.channels() == 3;
          const core::CompressResult got = s8 ? fused->run(r, as_samples8(in)) : fused->run(r, in);
          INFO(file << " " << cr.h << "x" << cr.w << (cr.alpha ? " +alpha" : "") << " q" << quality << " "
                    << core::to_string(sampling));
          const core::QuantizedCoefficients &a = want.quantized, &b = got.quantized;
          CHECK(a.blocks_high == b.blocks_high);
          CHECK(a.blocks_wide == b.blocks_wide);
          CHECK(a.chroma_blocks_high == b.chroma_blocks_high);
          CHECK(a.chroma_blocks_wide == b.chroma_blocks_wide);
          CHECK(a.sampling == b.sampling);
          CHECK(a.chroma == b.chroma);
          CHECK(want.coefficients == got.coefficients);
          // q, their count and entropy, and the error of the decoder's image (4:2:0's chroma by fancy upsampling): the
          // CPU loop's, exactly.
          CHECK(std::isfinite(got.mse));
          check_same(want, got);
          // The .jpg files are byte-identical.
          CHECK(app::encode_jpeg(a, cr.h, cr.w, false, "cpu.jpg") == app::encode_jpeg(b, cr.h, cr.w, false, "gpu.jpg"));
        }
  }
  // Without keep_coefficients 4:2:0 is not the GPU's (it has no 4:2:0 reconstruction): the CPU compressor runs it.
  const core::Dataset rgb = app::image_codec().read(test::source_dir() + "/data/astronaut.png", Precision::kF32);
  core::CompressRequest r;
  r.sampling = core::ChromaSampling::k420;
  CHECK_FALSE(fused->supports(r, rgb).ok);
}

namespace {

// `d` (gray or RGB planes) as a JPEG file: the CPU compressor's coefficients at quality 90 (4:4:4 or 4:2:0), or
// libjpeg-turbo's own encoding of the samples (its default 4:2:0).
std::vector<unsigned char> jpeg_file_of(const core::Dataset& d, int kind) {
  const std::int64_t h = d.tensor.rows(), w = d.tensor.cols();
  if (kind == 2) {
    const core::Dataset s = as_samples8(d);
    return app::encode_jpeg_pixels(s.samples8->data(), h, w, s.samples8->channels, 90, "in.jpg");
  }
  core::CompressRequest r;
  r.quality = 90;
  r.sampling = kind == 0 ? core::ChromaSampling::k444 : core::ChromaSampling::k420;
  r.keep_coefficients = true;
  r.backend = "cpu-8x8-flmad";
  return app::encode_jpeg(app::find_compressor("cpu")->run(r, d).quantized, h, w, false, "in.jpg");
}

}  // namespace

TEST_CASE("jpeg coef gpu: a JPEG input decoded on the device gives what libjpeg-turbo's decode gives",
          "[compress][gpu]") {
  const core::Compressor* fused = app::find_compressor("cuda-jpeg-fused");
  const core::Compressor* cpu = app::find_compressor("cpu");
  REQUIRE(fused != nullptr);
  REQUIRE(cpu != nullptr);
  core::ReadOptions ro;
  ro.samples8 = true;
  ro.jpeg_coefficients = true;
  for (const char* file : {"camera.png", "astronaut.png"}) {
    const core::Dataset src = app::image_codec().read(test::source_dir() + "/data/" + file, Precision::kF32);
    for (const Shape2 sz : {Shape2{src.tensor.rows(), src.tensor.cols()}, Shape2{203, 301}, Shape2{17, 9}, Shape2{1, 1},
                            Shape2{1080, 1920}})
      for (int kind : {0, 1, 2}) {
        const core::Dataset img = crop(src, sz.rows, sz.cols, false);
        const std::vector<unsigned char> bytes = jpeg_file_of(img, kind);
        const core::Dataset in = app::decode_image(bytes, "in.jpg", ro);
        REQUIRE(in.jpeg != nullptr);
        const core::Dataset decoded(core::HostTensor(), in.kind, in.jpeg->decode());
        for (const int quality : {10, 50, 95})
          for (const auto sampling : {core::ChromaSampling::k444, core::ChromaSampling::k420}) {
            INFO(file << " " << sz.rows << "x" << sz.cols << " input kind " << kind << " q" << quality << " "
                      << core::to_string(sampling));
            core::CompressRequest r;
            r.quality = quality;
            r.sampling = sampling;
            r.keep_coefficients = true;
            REQUIRE(fused->supports(r, in).ok);
            core::CompressRequest rc = r;
            rc.backend = "cpu-8x8-flmad";
            check_same(cpu->run(rc, decoded), fused->run(r, in));
          }
      }
  }
  // A block the device cannot vouch for (a dequantized coefficient no encoder of 8-bit samples writes): the file's
  // samples come from libjpeg-turbo (here: the decode callback) instead, and the result is theirs.
  const core::Dataset src = app::image_codec().read(test::source_dir() + "/data/astronaut.png", Precision::kF32);
  const core::Dataset in = app::decode_image(jpeg_file_of(src, 1), "in.jpg", ro);
  REQUIRE(in.jpeg != nullptr);
  const core::JpegCoefficients8& j = *in.jpeg;
  auto odd = std::make_shared<core::JpegCoefficients8>();
  odd->rows = j.rows;
  odd->cols = j.cols;
  odd->components = j.components;
  odd->h_factor = j.h_factor;
  odd->v_factor = j.v_factor;
  odd->planes = j.planes;
  odd->values = j.values;
  odd->coef_bytes = core::AlignedBuffer(static_cast<std::size_t>(j.values) * 2);
  std::copy_n(j.coef(), j.values, odd->coef());
  odd->coef()[64 * 100] = 32000;  // block 100's DC
  int decodes = 0;
  const std::shared_ptr<const core::Samples8> samples = j.decode();
  odd->decode = [&] {
    ++decodes;
    return samples;
  };
  core::Dataset bad;
  bad.kind = in.kind;
  bad.jpeg = odd;
  core::CompressRequest r;
  r.quality = 50;
  r.keep_coefficients = true;
  core::CompressRequest rc = r;
  rc.backend = "cpu-8x8-flmad";
  check_same(cpu->run(rc, core::Dataset(core::HostTensor(), in.kind, samples)), fused->run(r, bad));
  CHECK(decodes == 1);
}

TEST_CASE("jpeg coef gpu: inputs in page-locked blocks go up unstaged, same coefficients", "[compress][gpu]") {
  const core::Compressor* fused = app::find_compressor("cuda-jpeg-fused");
  const core::Compressor* cpu = app::find_compressor("cpu");
  REQUIRE(fused != nullptr);
  REQUIRE(cpu != nullptr);
  const core::Runtime* rt = app::registry().transfer_runtime("auto");
  REQUIRE(rt != nullptr);
  REQUIRE(rt->memory() == core::Memory::kDevice);
  // The batch's input pool under the GPU's coefficient path: page-locked blocks.
  core::TensorPool pool([rt](std::size_t bytes) { return rt->allocate_host(bytes); });
  REQUIRE(fused->warm_up());
  core::ReadOptions ro;
  ro.samples8 = true;
  ro.jpeg_coefficients = true;
  ro.pool = &pool;
  const core::Dataset src = app::image_codec().read(test::source_dir() + "/data/astronaut.png", Precision::kF32);
  for (const Shape2 sz : {Shape2{203, 301}, Shape2{200, 17}, Shape2{250, 330}})
    for (int kind : {0, 1, 2}) {
      INFO(sz.rows << "x" << sz.cols << " input kind " << kind);
      const core::Dataset in = app::decode_image(jpeg_file_of(crop(src, sz.rows, sz.cols, false), kind), "in.jpg", ro);
      REQUIRE(in.jpeg != nullptr);
      const core::Dataset decoded(core::HostTensor(), in.kind, in.jpeg->decode());
      for (const auto sampling : {core::ChromaSampling::k444, core::ChromaSampling::k420}) {
        core::CompressRequest r;
        r.quality = 60;
        r.sampling = sampling;
        r.keep_coefficients = true;
        core::CompressRequest rc = r;
        rc.backend = "cpu-8x8-flmad";
        check_same(cpu->run(rc, decoded), fused->run(r, in));
        // Samples in ordinary memory go up through the staging ring.
        core::Dataset s8;
        s8.kind = in.kind;
        s8.samples8 = decoded.samples8;
        check_same(cpu->run(rc, decoded), fused->run(r, s8));
      }
    }
  CHECK(pool.allocations() > 0);  // the coefficients were read into the page-locked pool
}
