// Image I/O through the image codec (app/image_codec): channel counts, 8/16-bit reads, rounding and clamping,
// cross-checks against Pillow, and corrupt inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/image_codec.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/metrics.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::ErrorCode;
using dct::app::ImageFileCodec;
using dct::test::error_of;
using dct::test::run_python;
using dct::test::TempDir;
using dct::test::io::slurp;
namespace fs = std::filesystem;

namespace {

int pattern(std::int64_t c, std::int64_t h, std::int64_t w) { return static_cast<int>((c * 50 + h * 7 + w * 3) % 256); }

HostTensor patterned(std::int64_t channels, Shape2 s = {5, 7}) {
  HostTensor t(s, channels, Precision::kF32);
  for (std::int64_t c = 0; c < channels; ++c)
    for (std::int64_t h = 0; h < s.rows; ++h)
      for (std::int64_t w = 0; w < s.cols; ++w) t.set((c * s.rows + h) * s.cols + w, pattern(c, h, w));
  return t;
}

const std::string kCamera = dct::test::source_dir() + "/data/camera.png";

}  // namespace

TEST_CASE("image: PNG keeps 1, 2, 3 and 4 channels exactly, Pillow reads what we write", "[core][image]") {
  TempDir dir;
  ImageFileCodec codec;
  for (std::int64_t channels = 1; channels <= 4; ++channels) {
    INFO(channels);
    const std::string p = dir.file("c" + std::to_string(channels) + ".png");
    const HostTensor t = patterned(channels);
    std::int64_t clamped = -1;
    codec.write(p, t, 8, &clamped);
    CHECK(clamped == 0);
    Dataset d = codec.read(p, Precision::kF64);
    CHECK(d.kind == SourceKind::kImage8);
    REQUIRE(d.tensor.shape() == Shape2{5, 7});
    REQUIRE(d.tensor.channels() == channels);
    CHECK(d.tensor.precision() == Precision::kF64);
    CHECK(max_abs_error(d.tensor, t.to(Precision::kF64)) == 0.0);
  }
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
from PIL import Image
d = sys.argv[1]
modes = {1: 'L', 2: 'LA', 3: 'RGB', 4: 'RGBA'}
for c in range(1, 5):
    im = Image.open(os.path.join(d, 'c%d.png' % c))
    assert im.mode == modes[c], (c, im.mode)
    a = np.asarray(im).reshape(5, 7, c).astype(int)
    for ci in range(c):
        for h in range(5):
            for w in range(7):
                assert a[h, w, ci] == (ci * 50 + h * 7 + w * 3) % 256, (c, ci, h, w, a[h, w, ci])
)PY") == 0);
}

TEST_CASE("image: BMP and TGA round-trip RGB and RGBA exactly", "[core][image]") {
  TempDir dir;
  ImageFileCodec codec;
  for (const char* ext : {".bmp", ".tga"}) {
    for (std::int64_t channels : {3, 4}) {
      INFO(ext << " " << channels);
      const std::string p = dir.file("x" + std::to_string(channels) + ext);
      const HostTensor t = patterned(channels);
      codec.write(p, t, 8, nullptr);
      Dataset d = codec.read(p, Precision::kF32);
      REQUIRE(d.tensor.channels() == channels);
      CHECK(max_abs_error(d.tensor, t) == 0.0);
    }
  }
  const HostTensor gray = patterned(1);
  codec.write(dir.file("g.tga"), gray, 8, nullptr);
  Dataset g = codec.read(dir.file("g.tga"), Precision::kF32);
  REQUIRE(g.tensor.channels() == 1);
  CHECK(max_abs_error(g.tensor, gray) == 0.0);
}

TEST_CASE("image: values are rounded to nearest and clamped to 0..255, and counted", "[core][image]") {
  TempDir dir;
  ImageFileCodec codec;
  HostTensor t(Shape2{1, 8}, 1, Precision::kF64);
  const double in[] = {-3.4, -0.4, 0.4, 0.6, 254.5, 255.4, 255.6, 1e9};
  const double out[] = {0, 0, 0, 1, 255, 255, 255, 255};
  for (int i = 0; i < 8; ++i) t.set(i, in[i]);
  std::int64_t clamped = -1;
  write_any(dir.file("r.png"), t, {}, &codec, &clamped);
  CHECK(clamped == 3);
  Dataset d = read_any(dir.file("r.png"), {}, &codec);
  for (int i = 0; i < 8; ++i) CHECK(d.tensor.get(i) == out[i]);

  t.set(3, -INFINITY);
  codec.write(dir.file("inf.png"), t, 8, &clamped);
  CHECK(clamped == 4);
}

TEST_CASE("image: JPEG at quality 95 is close to its input", "[core][image]") {
  TempDir dir;
  ImageFileCodec codec;
  HostTensor t(Shape2{64, 64}, 3, Precision::kF32);
  for (std::int64_t c = 0; c < 3; ++c)
    for (std::int64_t h = 0; h < 64; ++h)
      for (std::int64_t w = 0; w < 64; ++w) t.set((c * 64 + h) * 64 + w, 128 + 100 * std::sin(0.05 * (h + 2 * w) + c));
  codec.write(dir.file("a.jpg"), t, 8, nullptr);
  CHECK(slurp(dir.file("a.jpg")).substr(0, 2) == "\xff\xd8");
  Dataset d = codec.read(dir.file("a.jpg"), Precision::kF32);
  REQUIRE(d.tensor.channels() == 3);
  REQUIRE(d.tensor.shape() == Shape2{64, 64});
  CHECK(psnr_db(mse(d.tensor, t), 255) > 35);
  CHECK(psnr_db(mse(d.tensor, t), 255) < 80);
}

TEST_CASE("image: sample PNGs match Pillow's decoding", "[core][image]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
from PIL import Image
d, src = sys.argv[1], sys.argv[2]
for name in ['camera', 'astronaut']:
    np.save(os.path.join(d, name + '.npy'), np.asarray(Image.open(os.path.join(src, 'data', name + '.png'))))
)PY") == 0);
  ImageFileCodec codec;
  for (const auto& [name, channels] : {std::pair<std::string, int>{"camera", 1}, {"astronaut", 3}}) {
    INFO(name);
    Dataset img = read_any(dct::test::source_dir() + "/data/" + name + ".png", {}, &codec);
    CHECK(img.kind == SourceKind::kImage8);
    REQUIRE(img.tensor.shape() == Shape2{512, 512});
    REQUIRE(img.tensor.channels() == channels);
    Dataset ref = read_npy(dir.file(name + ".npy"), {});
    CHECK(max_abs_error(img.tensor, ref.tensor) == 0.0);
  }
}

TEST_CASE("image: 16-bit PNGs read as 16-bit values", "[core][image]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import os, struct, sys, zlib
d = sys.argv[1]
def png16(path, w, h, ctype, rows):
    raw = b''.join(b'\x00' + b''.join(struct.pack('>H', v) for v in r) for r in rows)
    def chunk(t, data):
        return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
    ihdr = struct.pack('>IIBBBBB', w, h, 16, ctype, 0, 0, 0)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
png16(os.path.join(d, 'gray16.png'), 4, 3, 0, [[0, 1, 255, 256], [1000, 32768, 65535, 12345], [54321, 2, 3, 4]])
png16(os.path.join(d, 'rgb16.png'), 2, 2, 2, [[65535, 0, 1, 300, 301, 302], [40000, 40001, 40002, 7, 8, 9]])
)PY") == 0);
  ImageFileCodec codec;
  Dataset g = codec.read(dir.file("gray16.png"), Precision::kF32);
  CHECK(g.kind == SourceKind::kImage16);
  REQUIRE(g.tensor.shape() == Shape2{3, 4});
  REQUIRE(g.tensor.channels() == 1);
  const double gray[] = {0, 1, 255, 256, 1000, 32768, 65535, 12345, 54321, 2, 3, 4};
  for (int i = 0; i < 12; ++i) CHECK(g.tensor.get(i) == gray[i]);

  Dataset c = codec.read(dir.file("rgb16.png"), Precision::kF64);
  CHECK(c.kind == SourceKind::kImage16);
  REQUIRE(c.tensor.shape() == Shape2{2, 2});
  REQUIRE(c.tensor.channels() == 3);
  const double planes[] = {65535, 300, 40000, 7, 0, 301, 40001, 8, 1, 302, 40002, 9};
  for (int i = 0; i < 12; ++i) CHECK(c.tensor.get(i) == planes[i]);
}

TEST_CASE("image: missing, empty, garbage and truncated files are input errors", "[core][image]") {
  TempDir dir;
  ImageFileCodec codec;
  const std::string camera = slurp(kCamera);
  REQUIRE(camera.size() > 1000);
  std::ofstream(dir.file("garbage.png"), std::ios::binary) << "this is not a PNG at all, just some text";
  std::ofstream(dir.file("trunc.png"), std::ios::binary) << camera.substr(0, 100);
  std::ofstream(dir.file("half.png"), std::ios::binary) << camera.substr(0, camera.size() / 2);
  std::ofstream(dir.file("empty.png")).close();

  for (const char* name : {"garbage.png", "trunc.png", "half.png"}) {
    INFO(name);
    for (bool via_dispatch : {false, true}) {
      auto e = error_of([&] {
        if (via_dispatch)
          read_any(dir.file(name), {}, &codec);
        else
          codec.read(dir.file(name), Precision::kF32);
      });
      CHECK(e.code() == ErrorCode::kInput);
      CHECK(e.subject() == dir.file(name));
      CHECK_THAT(e.what(), Catch::StartsWith("cannot decode image: "));
      CHECK(std::string(e.what()).size() > std::string("cannot decode image: ").size());
    }
  }
  auto empty = error_of([&] { codec.read(dir.file("empty.png"), Precision::kF32); });
  CHECK(empty.code() == ErrorCode::kInput);
  CHECK(std::string(empty.what()) == "empty file");
  auto missing = error_of([&] { read_any(dir.file("missing.jpg"), {}, &codec); });
  CHECK(missing.code() == ErrorCode::kInput);
  CHECK(std::string(missing.what()) == "no such file");
}

TEST_CASE("image: NaN, too many channels, 16-bit BMP output and unwritable types leave no file", "[core][image]") {
  TempDir dir;
  ImageFileCodec codec;
  HostTensor t = patterned(3);
  t.set(4, std::nan(""));
  auto nan = error_of([&] { write_any(dir.file("nan.png"), t, {}, &codec); });
  CHECK(nan.code() == ErrorCode::kInput);
  CHECK(nan.subject() == dir.file("nan.png"));
  CHECK_THAT(nan.what(), Catch::Contains("NaN"));

  auto five = error_of([&] { codec.write(dir.file("five.png"), patterned(5), 8, nullptr); });
  CHECK(five.code() == ErrorCode::kUsage);
  WriteOptions sixteen;
  sixteen.image_bit_depth = 16;
  // 16-bit output is PNG only.
  auto deep = error_of([&] { write_any(dir.file("deep.bmp"), patterned(1), sixteen, &codec); });
  CHECK(deep.code() == ErrorCode::kUnsupported);
  auto pgm = error_of([&] { write_any(dir.file("x.pgm"), patterned(1), {}, &codec); });
  CHECK(pgm.code() == ErrorCode::kUsage);
  auto nodir = error_of([&] { codec.write(dir.file("nodir/x.png"), patterned(1), 8, nullptr); });
  CHECK(nodir.code() == ErrorCode::kInput);
  CHECK(std::string(nodir.what()) == "output directory does not exist");
  CHECK(fs::is_empty(dir.path()));

  CHECK(codec.handles_read("a.PGM"));
  CHECK(codec.handles_read("a.jpeg"));
  CHECK_FALSE(codec.handles_read("a.gif"));
  CHECK(codec.handles_write("a.JPG"));
  CHECK_FALSE(codec.handles_write("a.ppm"));
}
