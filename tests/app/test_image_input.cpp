// Image input through the CLI: a truncated file of every format through dct2, psnr and compress; header claims out of
// proportion to the file; zero-sized images; --max-pixels; control bytes in names and headers printed as one safe
// line; and dct2 --block 8 --jpeg-coefficients against the coefficients dctool's own compressor quantized.
#include <chrono>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "app_support.hpp"
#include "core/compress.hpp"
#include "core/formats.hpp"
#include "core/metrics.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

// Runs `args`, expecting failure with `code`, one line naming `names`, and no new files in `dir`.
RunResult expect_failure(const TempDir& dir, const std::string& args, int code, const std::vector<std::string>& names) {
  const auto before = list_dir(dir.path().string());
  const RunResult r = run_dctool(args);
  INFO("dctool " << args);
  check_one_line_error(r, code, names);
  CHECK(list_dir(dir.path().string()) == before);
  return r;
}

std::string le16(unsigned v) { return {char(v & 255), char(v >> 8)}; }
std::string le32(std::uint32_t v) { return le16(v & 0xffff) + le16(v >> 16); }

const char* kFormats = R"PY(
import numpy as np, os, sys
from PIL import Image
d, src = sys.argv[1], sys.argv[2]
ast = np.asarray(Image.open(os.path.join(src, 'data', 'astronaut.png')))[:101, :67]
cam = np.asarray(Image.open(os.path.join(src, 'data', 'camera.png')))[:101, :67]
Image.fromarray(ast).save(os.path.join(d, 'a.png'))
Image.fromarray(ast).save(os.path.join(d, 'a.jpg'), quality=90)
Image.fromarray(ast).save(os.path.join(d, 'p.jpg'), quality=90, progressive=True)
Image.fromarray(ast).save(os.path.join(d, 'a.bmp'))
Image.fromarray(ast).save(os.path.join(d, 'a.tga'))
Image.fromarray(ast).save(os.path.join(d, 'r.tga'), compression='tga_rle')
Image.fromarray(cam).save(os.path.join(d, 'g.pgm'))
Image.fromarray(ast).save(os.path.join(d, 'a.ppm'))
)PY";

}  // namespace

TEST_CASE("image input: a truncated file of every format is exit 3, one line naming it, no output",
          "[app][image][bad-input]") {
  TempDir src, dir;
  REQUIRE(run_python(src, kFormats) == 0);
  for (const std::string name : {"a.png", "a.jpg", "p.jpg", "a.bmp", "a.tga", "r.tga", "g.pgm", "a.ppm"}) {
    const std::string bytes = slurp(src.file(name));
    const std::string cut = "cut_" + name;
    spit(dir.file(cut), bytes.substr(0, bytes.size() * 2 / 3));
    const std::string out = q(dir.file("out.npy"));
    expect_failure(dir, "dct2 " + q(dir.file(cut)) + " -o " + out, 3, {cut});
    expect_failure(dir, "psnr " + q(src.file(name)) + " " + q(dir.file(cut)), 3, {cut});
    expect_failure(dir, "compress " + q(dir.file(cut)) + " -o " + q(dir.file("out.png")), 3, {cut});
    // The untouched file reads.
    CHECK(run_dctool("psnr " + q(src.file(name)) + " " + q(src.file(name))).code == 0);
  }
}

TEST_CASE("image input: absurd dimensions fail fast, zero dimensions are exit 3 naming the file",
          "[app][image][bad-input]") {
  TempDir dir;
  std::string pgm = "P5\n20000 20000\n255\n";
  pgm += std::string(499 - pgm.size(), '\x7f');
  spit(dir.file("big.pgm"), pgm);
  std::string bmp = "BM" + le32(2048) + le32(0) + le32(54) + le32(40) + le32(12976160) + le32(24) + le16(1) + le16(24) +
                    le32(0) + le32(0) + le32(2835) + le32(2835) + le32(0) + le32(0);
  bmp += std::string(2048 - bmp.size(), '\x10');
  spit(dir.file("big.bmp"), bmp);
  for (const std::string name : {"big.pgm", "big.bmp"}) {
    for (const std::string limit : {"", "--max-pixels 4294967296 "}) {
      const auto t0 = std::chrono::steady_clock::now();
      const RunResult r =
          expect_failure(dir, limit + "dct2 " + q(dir.file(name)) + " -o " + q(dir.file("o.npy")), 3, {name});
      CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
      CHECK(contains(r.err, limit.empty() ? "--max-pixels" : "truncated"));
    }
  }
  spit(dir.file("zero.pgm"), "P5 0 7 255\n");
  spit(dir.file("one.pgm"), std::string("P5 1 1 255\n", 11) + "\x05");
  for (const std::string& cmd : {"dct2 " + q(dir.file("zero.pgm")) + " -o " + q(dir.file("o.npy")),
                                "psnr " + q(dir.file("zero.pgm")) + " " + q(dir.file("zero.pgm")),
                                "compress " + q(dir.file("zero.pgm")) + " -o " + q(dir.file("o.png"))})
    CHECK(contains(expect_failure(dir, cmd, 3, {"zero.pgm"}).err, "at least 1"));
  // --max-pixels: a limit below the image refuses it; 0 is a usage error.
  const RunResult small = expect_failure(
      dir, "--max-pixels 1000 dct2 " + q(source_dir() + "/data/camera.png") + " -o " + q(dir.file("o.npy")), 3,
      {"camera.png", "--max-pixels"});
  CHECK(contains(small.err, "512x512"));
  expect_failure(dir, "--max-pixels 0 dct2 " + q(dir.file("one.pgm")) + " -o " + q(dir.file("o.npy")), 2, {});
  CHECK(run_dctool("--max-pixels 1 dct2 " + q(dir.file("one.pgm")) + " -o " + q(dir.file("o.npy"))).code == 0);
}

TEST_CASE("image input: control bytes in a file name or a header print as one escaped line",
          "[app][image][bad-input]") {
  TempDir dir;
  const std::string evil = "evil\x1b[2J\nname.png";
  spit(dir.file(evil), "not an image\x1b[31m at all");
  const RunResult r = expect_failure(dir, "dct2 " + q(dir.file(evil)) + " -o " + q(dir.file("o.npy")), 3,
                                     {"evil\\x1b[2J\\x0aname.png"});
  CHECK(r.err.find('\x1b') == std::string::npos);
  // An .npy header key holding an escape sequence and a newline.
  spit(dir.file("key.npy"),
       npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), '\x1b[2J\nx': 1, }", std::string(8, '\0')));
  const RunResult k = expect_failure(dir, "dct2 " + q(dir.file("key.npy")) + " -o " + q(dir.file("o.npy")), 3,
                                     {"key.npy", "\\x1b[2J\\x0ax"});
  CHECK(k.err.find('\x1b') == std::string::npos);
  // A PNG chunk whose type holds an escape byte.
  std::string png = slurp(source_dir() + "/data/camera.png");
  const std::size_t idat = png.find("IDAT");
  REQUIRE(idat != std::string::npos);
  png.replace(idat, 4, "\x1b[2J");
  spit(dir.file("chunk.png"), png);
  const RunResult c =
      expect_failure(dir, "dct2 " + q(dir.file("chunk.png")) + " -o " + q(dir.file("o.npy")), 3, {"chunk.png"});
  CHECK(c.err.find('\x1b') == std::string::npos);
}

TEST_CASE("jpeg coefficients: dct2 --block 8 --jpeg-coefficients equals what compress quantized, dequantized",
          "[app][image][jpeg]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
from PIL import Image
d, src = sys.argv[1], sys.argv[2]
Image.fromarray(np.asarray(Image.open(os.path.join(src, 'data', 'astronaut.png')))[:203, :301]).save(os.path.join(d, 'rgb.png'))
Image.fromarray(np.asarray(Image.open(os.path.join(src, 'data', 'camera.png')))[5:205, 7:111]).save(os.path.join(d, 'gray.png'))
Image.open(os.path.join(d, 'rgb.png')).save(os.path.join(d, 'sub420.jpg'), quality=80)
)PY") == 0);
  for (const std::string name : {"rgb", "gray"}) {
    INFO(name);
    const std::string png = dir.file(name + ".png"), jpg = dir.file(name + ".jpg"), npy = dir.file(name + ".npy");
    RunResult c = run_dctool("compress " + q(png) + " -o " + q(jpg) + " --quality 50");
    REQUIRE(c.code == 0);
    RunResult k = run_dctool("dct2 --block 8 " + q(jpg) + " --jpeg-coefficients -o " + q(npy));
    INFO(k.err);
    REQUIRE(k.code == 0);
    const dct::core::HostTensor got = dct::core::read_npy(npy, {}).tensor;

    // The same request in process: the CPU compressor's quantized coefficients times the tables.
    const dct::core::Dataset in = dct::app::image_codec().read(png, dct::core::Precision::kF32);
    dct::core::CompressRequest r;
    r.quality = 50;
    r.keep_coefficients = true;
    const dct::core::CompressResult res = dct::app::find_compressor("cpu")->run(r, in);
    const auto& qc = res.quantized;
    REQUIRE(got.channels() == static_cast<std::int64_t>(qc.planes.size()));
    REQUIRE(got.rows() == qc.blocks_high * 8);
    REQUIRE(got.cols() == qc.blocks_wide * 8);
    std::int64_t differ = 0;
    for (std::size_t p = 0; p < qc.planes.size(); ++p) {
      const auto table = dct::core::quant_table(50, qc.chroma[p]);
      for (std::int64_t by = 0; by < qc.blocks_high; ++by)
        for (std::int64_t bx = 0; bx < qc.blocks_wide; ++bx)
          for (int k8 = 0; k8 < 64; ++k8) {
            const double want = double(qc.planes[p][std::size_t((by * qc.blocks_wide + bx) * 64 + k8)]) * table[k8];
            const std::int64_t at = (std::int64_t(p) * got.rows() + by * 8 + k8 / 8) * got.cols() + bx * 8 + k8 % 8;
            differ += got.get(at) != want;
          }
    }
    CHECK(differ == 0);
  }
  // 4:2:0 is refused clearly; a non-JPEG input is an input error; --block other than 8 is a usage error.
  expect_failure(dir, "dct2 --block 8 " + q(dir.file("sub420.jpg")) + " --jpeg-coefficients -o " + q(dir.file("x.npy")),
                 3, {"sub420.jpg", "4:4:4"});
  expect_failure(dir, "dct2 --block 8 " + q(dir.file("rgb.png")) + " --jpeg-coefficients -o " + q(dir.file("x.npy")), 3,
                 {"rgb.png", "JPEG"});
  expect_failure(dir, "dct2 " + q(dir.file("rgb.jpg")) + " --jpeg-coefficients -o " + q(dir.file("x.npy")), 2,
                 {"--block 8"});
  expect_failure(
      dir, "dct2 --block 8 --norm none " + q(dir.file("rgb.jpg")) + " --jpeg-coefficients -o " + q(dir.file("x.npy")),
      2, {"ortho"});
}
