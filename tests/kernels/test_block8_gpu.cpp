// GPU 8x8 family (label gpu): cuda-8x8 and cuda-8x8-def against the CPU 8x8 backends and the f64 oracle
// (relative L2 within 1e-5 for f32, 1e-12 for f64), and CPU vs GPU compress reconstructions (PSNR > 50 dB,
// [2]'s criterion) in every mode: jpeg through the fused kernel and through the CPU compressor on cuda-8x8,
// threshold/keep through the CPU compressor on the GPU whole-image DCT.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "app/registry.hpp"
#include "core/compress.hpp"
#include "core/metrics.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;

}  // namespace

TEST_CASE("block8 gpu: cuda-8x8 and cuda-8x8-def agree with cpu-8x8-flmad and the oracle", "[block8][gpu]") {
  const std::string name = GENERATE(values<std::string>({"cuda-8x8", "cuda-8x8-def"}));
  const core::Backend& b = test::usable_backend(name);
  const core::Backend& cpu = test::usable_backend("cpu-8x8-flmad");
  std::uint64_t seed = 7;
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (Op op : {Op::kDct2, Op::kIdct2})
      for (Norm norm : {Norm::kOrtho, Norm::kNone})
        for (Shape2 shape :
             {Shape2{8, 8}, Shape2{16, 24}, Shape2{64, 64}, Shape2{24, 264}, Shape2{512, 512}, Shape2{40, 1000}})
          for (std::int64_t batch : {1, 3}) {
            core::TransformDesc d;
            d.op = op;
            d.norm = norm;
            d.block = 8;
            d.shape = shape;
            d.batch = batch;
            d.prec = prec;
            INFO(name << ": " << d.to_string());
            REQUIRE(b.supports(d).ok);
            const core::HostTensor in = test::random_tensor(shape, batch, prec, seed++);
            const core::HostTensor got = test::run_backend(b, d, in).to(Precision::kF64);
            const core::HostTensor ref = test::oracle(d, in);
            const core::HostTensor host = test::run_backend(cpu, d, in).to(Precision::kF64);
            const double tol = prec == Precision::kF32 ? 1e-5 : 1e-12;
            const double e1 = core::relative_l2(got, ref), e2 = core::relative_l2(got, host);
            INFO("rel L2 vs oracle " << e1 << ", vs cpu-8x8-flmad " << e2);
            CHECK(e1 <= tol);
            CHECK(e2 <= tol);
          }
}

TEST_CASE("block8 gpu: CPU and GPU compress reconstructions agree to PSNR > 50 dB in every mode", "[compress][gpu]") {
  const core::Compressor* fused = app::find_compressor("cuda-jpeg-fused");
  const core::Compressor* cpu = app::find_compressor("cpu");
  REQUIRE(fused != nullptr);
  REQUIRE(cpu != nullptr);
  for (const char* file : {"camera.png", "astronaut.png"}) {
    const core::Dataset in = app::image_codec().read(test::source_dir() + "/data/" + file, Precision::kF32);
    struct Case {
      core::CompressMode mode;
      double param;
      std::string gpu_transform;  // "" = the fused kernel
    };
    const Case cases[] = {
        {core::CompressMode::kJpeg, 10, ""},
        {core::CompressMode::kJpeg, 50, ""},
        {core::CompressMode::kJpeg, 90, ""},
        {core::CompressMode::kJpeg, 97, ""},  // 97: the kernel's f32 dequantizer
        {core::CompressMode::kJpeg, 50, "cuda-8x8"},
        {core::CompressMode::kJpeg, 50, "cuda-8x8-def"},
        {core::CompressMode::kThreshold, 20, "cuda-fft2d"},
        {core::CompressMode::kKeep, 0.05, "cuda-fft2d"},
        {core::CompressMode::kThreshold, 20, "cuda-rowcol"},
    };
    for (const Case& c : cases) {
      core::CompressRequest r;
      r.mode = c.mode;
      if (c.mode == core::CompressMode::kJpeg) r.quality = static_cast<int>(c.param);
      if (c.mode == core::CompressMode::kThreshold) r.threshold = c.param;
      if (c.mode == core::CompressMode::kKeep) r.keep = c.param;
      core::CompressRequest rc = r;
      rc.backend = c.mode == core::CompressMode::kJpeg ? "cpu-8x8-flmad" : "cpu-fftw";
      const core::CompressResult want = cpu->run(rc, in);
      core::CompressResult got;
      if (c.gpu_transform.empty()) {
        REQUIRE(fused->supports(r, in).ok);
        got = fused->run(r, in);
      } else {
        if (app::registry().find(c.gpu_transform) == nullptr) {
          WARN("no backend " << c.gpu_transform << " registered: case skipped");
          continue;
        }
        r.backend = c.gpu_transform;
        got = cpu->run(r, in);
      }
      const double p = core::psnr_db(core::mse(want.image, got.image), 255.0);
      INFO(file << " " << core::to_string(c.mode) << " " << c.param << " via "
                << (c.gpu_transform.empty() ? "cuda-jpeg-fused" : c.gpu_transform) << ": PSNR(CPU, GPU) " << p
                << " dB; nonzero " << want.nonzero << " / " << got.nonzero << ", entropy " << want.entropy_bits << " / "
                << got.entropy_bits);
      CHECK(p > 50.0);
      CHECK(std::abs(want.nonzero_fraction() - got.nonzero_fraction()) < 1e-3);
      CHECK(std::abs(want.entropy_bits - got.entropy_bits) < 1e-2);
    }
  }
}

// The fused kernel's load/store paths: whole warp segments and the partial last one of a strip with 16-byte rows
// (W a multiple of 16, all 8 rows inside the image), and the byte path with edge replication (W not a multiple of 8,
// or the last strip of an H that is not). Crops of the sample images reach all of them; an added alpha plane must
// come back unchanged. Quality 50 takes the f16 dequantizer, quality 97 (tables with Q = 1) the f32 one.
TEST_CASE("block8 gpu: fused jpeg on partial tiles, odd sizes and alpha agrees with the CPU compressor",
          "[compress][gpu]") {
  const core::Compressor* fused = app::find_compressor("cuda-jpeg-fused");
  const core::Compressor* cpu = app::find_compressor("cpu");
  REQUIRE(fused != nullptr);
  REQUIRE(cpu != nullptr);
  for (const char* file : {"camera.png", "astronaut.png"}) {
    const core::Dataset src = app::image_codec().read(test::source_dir() + "/data/" + file, Precision::kF32);
    const std::int64_t H = src.tensor.rows(), W = src.tensor.cols(), C = src.tensor.channels();
    struct Crop {
      std::int64_t h, w;
      bool alpha;
    };
    for (const Crop cr :
         {Crop{H, W, false}, Crop{200, 360, false}, Crop{205, 296, true}, Crop{203, 301, false}, Crop{64, 8, true}}) {
      core::Dataset in;
      in.kind = src.kind;
      const std::int64_t ch = C + (cr.alpha ? 1 : 0);
      in.tensor = core::HostTensor(Shape2{cr.h, cr.w}, ch, Precision::kF32);
      for (std::int64_t c = 0; c < ch; ++c)
        for (std::int64_t i = 0; i < cr.h; ++i)
          for (std::int64_t j = 0; j < cr.w; ++j)
            in.tensor.set((c * cr.h + i) * cr.w + j,
                          c < C ? src.tensor.get((c * H + i) * W + j) : double((7 * i + 3 * j) % 256));
      for (const int quality : {50, 97}) {
        core::CompressRequest r;
        r.quality = quality;
        core::CompressRequest rc = r;
        rc.backend = "cpu-8x8-flmad";
        const core::CompressResult want = cpu->run(rc, in);
        REQUIRE(fused->supports(r, in).ok);
        const core::CompressResult gpu = fused->run(r, in);
        const core::CompressResult* got = &gpu;
        const double p = core::psnr_db(core::mse(want.image, got->image), 255.0);
        INFO(file << " crop " << cr.h << "x" << cr.w << (cr.alpha ? " +alpha" : "") << " quality " << quality
                  << ": PSNR(CPU, GPU) " << p << " dB; nonzero " << want.nonzero << " / " << got->nonzero
                  << ", entropy " << want.entropy_bits << " / " << got->entropy_bits);
        CHECK(p > 50.0);
        CHECK(want.coefficients == got->coefficients);
        CHECK(std::abs(want.nonzero_fraction() - got->nonzero_fraction()) < 1e-3);
        CHECK(std::abs(want.entropy_bits - got->entropy_bits) < 1e-2);
        if (cr.alpha) {
          const std::int64_t a0 = (ch - 1) * cr.h * cr.w;
          std::int64_t diff = 0;
          for (std::int64_t i = 0; i < cr.h * cr.w; ++i) diff += got->image.get(a0 + i) != in.tensor.get(a0 + i);
          CHECK(diff == 0);
        }
      }
    }
  }
}
