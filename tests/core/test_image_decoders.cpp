// The image decoders (app/image_decode.hpp) against references: PNG of every colour type and depth, interlaced,
// palette and tRNS, against Pillow or values computed by the script that wrote the file; JPEG (baseline 4:2:0 and
// 4:4:4, progressive, gray) against djpeg's output; BMP, TGA and PNM variants against Pillow or computed values.
// Then truncation of every file, header claims out of proportion to the file, zero dimensions, unsupported
// variants, and the printable() sanitizer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/image_codec.hpp"
#include "app/image_decode.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/metrics.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::Error;
using dct::ErrorCode;
using dct::app::ImageFileCodec;
using dct::test::error_of;
using dct::test::run_python;
using dct::test::TempDir;
using dct::test::io::slurp;
namespace fs = std::filesystem;

namespace {

// Writes the sample files; beside each X.ext whose decode is known, X.npy holds the expected (H, W[, C]) samples.
const char* kSamples = R"PY(
import numpy as np, os, struct, subprocess, sys, zlib
from PIL import Image
d, src = sys.argv[1], sys.argv[2]
P = lambda n: os.path.join(d, n)
rng = np.random.default_rng(7)
ast = np.asarray(Image.open(os.path.join(src, 'data', 'astronaut.png')))[100:137, 200:253].copy()
cam = np.asarray(Image.open(os.path.join(src, 'data', 'camera.png')))[100:137, 200:253].copy()
H, W = cam.shape
alpha = rng.integers(0, 256, (H, W), dtype=np.uint8)
rgba = np.dstack([ast, alpha])
def save(name, a):
    a = np.asarray(a)
    np.save(P(name + '.npy'), a.astype(np.int32) if a.dtype.kind in 'iub' else a)

# ---- PNG: Pillow writes, Pillow's decode (palette expanded) is the reference
for name, im in [('png_gray8', Image.fromarray(cam)), ('png_ga8', Image.fromarray(np.dstack([cam, alpha]), 'LA')),
                 ('png_rgb8', Image.fromarray(ast)), ('png_rgba8', Image.fromarray(rgba)),
                 ('png_pal8', Image.fromarray(ast).quantize(40))]:
    im.save(P(name + '.png'))
    save(name, np.asarray(Image.open(P(name + '.png')).convert({'P': 'RGB'}.get(im.mode, im.mode))))
pal = Image.fromarray(ast).quantize(40)
pal.save(P('png_paltrns.png'), transparency=bytes([0, 255, 128] + [255] * 37))
save('png_paltrns', np.asarray(Image.open(P('png_paltrns.png')).convert('RGBA')))

# ---- PNG: hand-made (low bit depths, 16 bits, tRNS on gray, Adam7)
def chunk(t, data):
    return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
def rows(a, depth):
    out = b''
    for r in a.reshape(a.shape[0], -1):
        if depth == 16: out += b'\0' + r.astype('>u2').tobytes()
        elif depth == 8: out += b'\0' + r.astype(np.uint8).tobytes()
        else:
            bits = ''.join(format(int(v), '0%db' % depth) for v in r)
            bits += '0' * (-len(bits) % 8)
            out += b'\0' + int(bits, 2).to_bytes(len(bits) // 8, 'big')
    return out
def adam7(a, depth):
    out = b''
    for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
        sub = a[y0::dy, x0::dx]
        if sub.size: out += rows(sub, depth)
    return out
def png(name, a, depth, ctype, extra=b'', interlace=0):
    h, w = a.shape[:2]
    data = adam7(a, depth) if interlace else rows(a, depth)
    with open(P(name + '.png'), 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, interlace)) +
                extra + chunk(b'IDAT', zlib.compress(data)) + chunk(b'IEND', b''))
for depth in (1, 2, 4):
    g = rng.integers(0, 2 ** depth, (H, W))
    png('png_gray%d' % depth, g, depth, 0)
    save('png_gray%d' % depth, (g * 255 // (2 ** depth - 1)).astype(np.uint8))
g16 = rng.integers(0, 65536, (H, W)); png('png_gray16', g16, 16, 0); save('png_gray16', g16)
c16 = rng.integers(0, 65536, (H, W, 3)); png('png_rgb16', c16, 16, 2); save('png_rgb16', c16)
a16 = rng.integers(0, 65536, (H, W, 4)); png('png_rgba16', a16, 16, 6); save('png_rgba16', a16)
ga16 = rng.integers(0, 65536, (H, W, 2)); png('png_ga16', ga16, 16, 4); save('png_ga16', ga16)
png('png_graytrns', cam, 8, 0, extra=chunk(b'tRNS', struct.pack('>H', int(cam[0, 0]))))
save('png_graytrns', np.dstack([cam, np.where(cam == cam[0, 0], 0, 255)]))
png('png_adam7rgb', ast, 8, 2, interlace=1); save('png_adam7rgb', ast)
png('png_adam7gray16', g16, 16, 0, interlace=1); save('png_adam7gray16', g16)
# ancillary chunks dctool skips (gamma, text): the pixels stay as stored
png('png_ancillary', ast, 8, 2, extra=chunk(b'gAMA', struct.pack('>I', 45455)) + chunk(b'tEXt', b'k\0v'))
save('png_ancillary', ast)

# ---- JPEG: Pillow writes, djpeg (libjpeg's default integer IDCT) decodes the reference
big = np.asarray(Image.open(os.path.join(src, 'data', 'astronaut.png')))[:203, :301]
for name, im, kw in [('jpg_420', Image.fromarray(big), {}), ('jpg_444', Image.fromarray(big), {'subsampling': 0}),
                     ('jpg_prog', Image.fromarray(big), {'progressive': True}),
                     ('jpg_gray', Image.fromarray(np.asarray(Image.open(os.path.join(src, 'data', 'camera.png')))[:203, :301]), {})]:
    im.save(P(name + '.jpg'), quality=80, **kw)
    pnm = subprocess.run(['djpeg', '-pnm', P(name + '.jpg')], check=True, capture_output=True).stdout
    with open(P(name + '.ref.pnm'), 'wb') as f: f.write(pnm)
    save(name, np.asarray(Image.open(P(name + '.ref.pnm'))))
    os.remove(P(name + '.ref.pnm'))
Image.fromarray(big).convert('CMYK').save(P('cmyk.jpg.bad'), 'JPEG')

# ---- BMP
for name, im in [('bmp_1', Image.fromarray(cam > 100)), ('bmp_gray', Image.fromarray(cam)),
                 ('bmp_pal', Image.fromarray(ast).quantize(40)), ('bmp_rgb', Image.fromarray(ast)),
                 ('bmp_rgba', Image.fromarray(rgba))]:
    im.save(P(name + '.bmp'))
    # Pillow reads a 32-bit BMP without its alpha; dctool keeps it (as stb_image did): the reference is the array.
    save(name, rgba if im.mode == 'RGBA' else np.asarray(Image.open(P(name + '.bmp')).convert('RGB')))
def bmp(name, w, h, bpp, pixels, palette=b'', compression=0, masks=b''):
    info = struct.pack('<IiiHHIIiiII', 40, w, h, 1, bpp, compression, len(pixels), 2835, 2835, len(palette) // 4, 0)
    off = 14 + 40 + len(masks) + len(palette)
    with open(P(name + '.bmp'), 'wb') as f:
        f.write(b'BM' + struct.pack('<IHHI', off + len(pixels), 0, 0, off) + info + masks + palette + pixels)
# 16-bit 5-6-5 bit fields, top-down
v = rng.integers(0, 65536, (H, W)).astype('<u2')
stride = (W * 2 + 3) // 4 * 4
bmp('bmp_565td', W, -H, 16, b''.join(r.tobytes().ljust(stride, b'\0') for r in v), compression=3,
    masks=struct.pack('<III', 0xf800, 0x07e0, 0x001f))
r5, g6, b5 = (v >> 11) & 31, (v >> 5) & 63, v & 31
save('bmp_565td', np.dstack([(r5 << 3) | (r5 >> 2), (g6 << 2) | (g6 >> 4), (b5 << 3) | (b5 >> 2)]).astype(np.uint8))
# 4-bit palette, bottom-up
idx = rng.integers(0, 11, (H, W))
palette = bytes(sum(([3 * i, 20 * i, 255 - 9 * i, 0] for i in range(11)), []))
stride = ((W * 4 + 31) // 32) * 4
packed = b''
for r in idx[::-1]:
    s = bytes((int(r[i]) << 4) | (int(r[i + 1]) if i + 1 < W else 0) for i in range(0, W, 2))
    packed += s.ljust(stride, b'\0')
bmp('bmp_4', W, H, 4, packed, palette=palette)
pal_rgb = np.array([[255 - 9 * i, 20 * i, 3 * i] for i in range(11)])
save('bmp_4', pal_rgb[idx].astype(np.uint8))

# ---- TGA (Pillow: uncompressed and RLE, both origins)
for name, im, kw in [('tga_gray', Image.fromarray(cam), {}), ('tga_rgb', Image.fromarray(ast), {}),
                     ('tga_rgba', Image.fromarray(rgba), {}), ('tga_pal', Image.fromarray(ast).quantize(40), {}),
                     ('tga_rlegray', Image.fromarray(cam), {'compression': 'tga_rle'}),
                     ('tga_rlergb', Image.fromarray(ast), {'compression': 'tga_rle'}),
                     ('tga_rlergba', Image.fromarray(rgba), {'compression': 'tga_rle'}),
                     ('tga_topleft', Image.fromarray(ast), {'orientation': 1})]:
    im.save(P(name + '.tga'), **kw)
    ref = Image.open(P(name + '.tga'))
    save(name, np.asarray(ref.convert('RGB') if ref.mode == 'P' else ref))

# ---- PNM: Pillow for 8 bits; hand-made 16-bit and odd maxval
Image.fromarray(cam).save(P('pnm_gray.pgm')); save('pnm_gray', cam)
Image.fromarray(ast).save(P('pnm_rgb.ppm')); save('pnm_rgb', ast)
with open(P('pnm_gray16.pgm'), 'wb') as f: f.write(b'P5\n# a comment\n%d %d\n65535\n' % (W, H) + g16.astype('>u2').tobytes())
save('pnm_gray16', g16)
m = rng.integers(0, 1001, (H, W, 3))
with open(P('pnm_rgb1000.ppm'), 'wb') as f: f.write(b'P6 %d %d 1000\n' % (W, H) + m.astype('>u2').tobytes())
save('pnm_rgb1000', m)
)PY";

std::vector<std::string> samples(const TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string p = e.path().string();
    const std::string ext = lower_extension(p);
    if (ext != ".npy" && ext != ".py" && ext != ".bad") out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string le16(unsigned v) { return {char(v & 255), char(v >> 8)}; }
std::string le32(std::uint32_t v) { return le16(v & 0xffff) + le16(v >> 16); }

// The expected error of reading `path`: kInput, naming it.
Error read_error(const std::string& path, std::int64_t max_pixels = kDefaultMaxPixels) {
  ReadOptions opt;
  opt.max_pixels = max_pixels;
  ImageFileCodec codec;
  Error e = error_of([&] { codec.read(path, opt); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(e.subject() == path);
  CHECK(std::string(e.what()).size() > 10);
  return e;
}

}  // namespace

TEST_CASE("image decoders: every sample equals its reference (Pillow, djpeg or computed)", "[core][image]") {
  TempDir dir;
  REQUIRE(run_python(dir, kSamples) == 0);
  ImageFileCodec codec;
  const auto files = samples(dir);
  REQUIRE(files.size() >= 40);
  for (const std::string& f : files) {
    INFO(f);
    const std::string npy = f.substr(0, f.size() - lower_extension(f).size()) + ".npy";
    REQUIRE(fs::exists(npy));
    ReadOptions f64;
    f64.prec = Precision::kF64;
    const Dataset got = codec.read(f, f64);
    const Dataset ref = read_npy(npy, f64);
    REQUIRE(got.tensor.shape() == ref.tensor.shape());
    REQUIRE(got.tensor.channels() == ref.tensor.channels());
    CHECK(max_abs_error(got.tensor, ref.tensor) == 0.0);
    // The sample's own name tells its depth (not the whole path: the temporary directory's random name may hold
    // "16" too, which made this check fail at random).
    const std::string name = fs::path(f).filename().string();
    const bool deep = name.find("16") != std::string::npos && name.find("565") == std::string::npos;
    CHECK(got.kind == (deep || name.find("1000") != std::string::npos ? SourceKind::kImage16 : SourceKind::kImage8));
    // The plain function of the bytes gives the same.
    const std::string bytes = slurp(f);
    const Dataset again =
        dct::app::decode_image({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()}, f, f64);
    CHECK(max_abs_error(again.tensor, ref.tensor) == 0.0);
  }
  // Dispatch is by content: a PNG named .jpg decodes as the PNG it is.
  fs::copy_file(dir.file("png_rgb8.png"), dir.file("really_png.jpg"));
  CHECK(max_abs_error(codec.read(dir.file("really_png.jpg"), Precision::kF64).tensor,
                      read_npy(dir.file("png_rgb8.npy"), {}).tensor.to(Precision::kF64)) == 0.0);
  // CMYK JPEG: refused, saying so.
  fs::rename(dir.file("cmyk.jpg.bad"), dir.file("cmyk.jpg"));
  CHECK_THAT(read_error(dir.file("cmyk.jpg")).what(), Catch::Contains("CMYK"));
}

TEST_CASE("image decoders: every truncation of every sample is an input error naming the file", "[core][image]") {
  TempDir dir;
  REQUIRE(run_python(dir, kSamples) == 0);
  for (const std::string& f : samples(dir)) {
    const std::string bytes = slurp(f);
    // Pillow ends a TGA with a 26-byte footer that decoders may ignore: cut into the pixels.
    const std::size_t tail = lower_extension(f) == ".tga" ? 27 : 1;
    for (std::size_t cut :
         {std::size_t{1}, std::size_t{9}, std::size_t{20}, bytes.size() / 3, bytes.size() / 2, bytes.size() - tail}) {
      INFO(f << " cut to " << cut << " of " << bytes.size() << " bytes");
      const std::string t = dir.file("cut" + lower_extension(f));
      write_file(t, bytes.substr(0, cut));
      read_error(t);
    }
  }
}

TEST_CASE("image decoders: dimensions out of proportion to the file fail before any allocation", "[core][image]") {
  TempDir dir;
  // A 499-byte PGM that claims 20000 x 20000.
  std::string pgm = "P5\n20000 20000\n255\n";
  pgm += std::string(499 - pgm.size(), '\x7f');
  write_file(dir.file("big.pgm"), pgm);
  // A 2 KB BMP that claims 12976160 x 24 at 24 bits.
  std::string bmp = "BM" + le32(2048) + le32(0) + le32(54) + le32(40) + le32(12976160) + le32(24) + le16(1) + le16(24) +
                    le32(0) + le32(0) + le32(2835) + le32(2835) + le32(0) + le32(0);
  bmp += std::string(2048 - bmp.size(), '\x10');
  write_file(dir.file("big.bmp"), bmp);
  // A TGA (RLE) that claims 65535 x 65535 in 1 KB.
  std::string tga = std::string("\0\0\x0a", 3) + std::string(9, '\0') + le16(65535) + le16(65535) + "\x18\x20";
  tga += std::string(1024 - tga.size(), '\xff');
  write_file(dir.file("big.tga"), tga);
  // A small JPEG whose frame header is made to claim 60000 x 60000.
  REQUIRE(run_python(dir, R"PY(
import io, os, sys
from PIL import Image
b = io.BytesIO()
Image.new('RGB', (16, 16), (10, 200, 30)).save(b, 'JPEG')
j = bytearray(b.getvalue())
at = j.index(b'\xff\xc0')
j[at + 5:at + 9] = bytes([0xea, 0x60, 0xea, 0x60])
open(os.path.join(sys.argv[1], 'big.jpg'), 'wb').write(bytes(j))
)PY") == 0);

  for (const char* name : {"big.pgm", "big.bmp", "big.tga", "big.jpg"}) {
    INFO(name);
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THAT(read_error(dir.file(name)).what(), Catch::Contains("--max-pixels"));
    // With the limit raised as far as it goes, the uncompressed formats still compare with the file size.
    if (std::string(name) != "big.jpg")
      CHECK_THAT(read_error(dir.file(name), kMaxElements).what(), Catch::Contains("truncated"));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  }
  // A 16384^2 RGBA16 PNG with almost no data: over the limit lowered to 2^27, and an error fast at the default.
  TempDir png_dir;
  REQUIRE(run_python(png_dir, R"PY(
import os, struct, sys, zlib
d = sys.argv[1]
def chunk(t, data): return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
with open(os.path.join(d, 'huge.png'), 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16384, 16384, 16, 6, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(b'\0' * 1000)) + chunk(b'IEND', b''))
)PY") == 0);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THAT(read_error(png_dir.file("huge.png"), std::int64_t{1} << 27).what(), Catch::Contains("--max-pixels"));
  read_error(png_dir.file("huge.png"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("image decoders: zero dimensions, unsupported variants and bad samples are input errors", "[core][image]") {
  TempDir dir;
  write_file(dir.file("zero.pgm"), "P5 0 5 255\n");
  write_file(dir.file("ascii.pgm"), "P2 2 2 255\n1 2 3 4\n");
  write_file(dir.file("over.pgm"), std::string("P5 2 1 100\n", 11) + "\x10\x65");
  write_file(dir.file("zero.bmp"), "BM" + le32(60) + le32(0) + le32(54) + le32(40) + le32(0) + le32(5) + le16(1) +
                                       le16(24) + std::string(24, '\0') + std::string(6, '\0'));
  write_file(dir.file("rle.bmp"), "BM" + le32(70) + le32(0) + le32(54) + le32(40) + le32(2) + le32(2) + le16(1) +
                                      le16(8) + le32(1) + std::string(20, '\0') + std::string(16, '\0'));
  write_file(dir.file("zero.tga"),
             std::string("\0\0\x02", 3) + std::string(9, '\0') + le16(0) + le16(4) + std::string("\x18\x00", 2));
  write_file(dir.file("garbage.png"), "this is not an image at all, just some text");
  for (const char* name : {"zero.pgm", "ascii.pgm", "over.pgm", "zero.bmp", "rle.bmp", "zero.tga", "garbage.png"}) {
    INFO(name);
    const Error e = read_error(dir.file(name));
    INFO(e.what());
    const std::string w = e.what();
    if (std::string(name).rfind("zero", 0) == 0) CHECK_THAT(w, Catch::Contains("at least 1"));
  }
  CHECK_THAT(read_error(dir.file("ascii.pgm")).what(), Catch::Contains("not supported"));
  CHECK_THAT(read_error(dir.file("rle.bmp")).what(), Catch::Contains("RLE"));
  CHECK_THAT(read_error(dir.file("over.pgm")).what(), Catch::Contains("maxval"));
}

TEST_CASE("image: 16-bit PNG output round-trips exactly, Pillow reads the same values", "[core][image]") {
  TempDir dir;
  ImageFileCodec codec;
  for (std::int64_t channels = 1; channels <= 4; ++channels) {
    INFO(channels);
    HostTensor t(Shape2{5, 7}, channels, Precision::kF64);
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, (i * 2654435761u) % 65536);
    t.set(0, 65535);
    t.set(1, 70000.4);  // clamped
    const std::string p = dir.file("d" + std::to_string(channels) + ".png");
    std::int64_t clamped = -1;
    codec.write(p, t, 16, &clamped);
    CHECK(clamped == 1);
    t.set(1, 65535);
    const Dataset d = codec.read(p, Precision::kF64);
    CHECK(d.kind == SourceKind::kImage16);
    REQUIRE(d.tensor.channels() == channels);
    CHECK(max_abs_error(d.tensor, t) == 0.0);
    WriteOptions f64;
    f64.prec = Precision::kF64;
    write_npy(dir.file("d" + std::to_string(channels) + ".npy"), t, f64);
  }
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys, zlib
d = sys.argv[1]
# Pillow reads 16-bit gray as I;16 (1 channel); for the others check the raw 16-bit rows.
from PIL import Image
a = np.asarray(Image.open(os.path.join(d, 'd1.png'))).astype(np.int64)
ref = np.load(os.path.join(d, 'd1.npy'))
assert (a == ref).all()
)PY") == 0);
}

TEST_CASE("printable: control bytes and broken UTF-8 become xNN escapes, one line, empty reasons filled",
          "[core][error]") {
  using dct::printable;
  CHECK(printable("plain text: 1/2") == "plain text: 1/2");
  CHECK(printable("a\x1b[2Jb\nc\r\td") == "a\\x1b[2Jb\\x0ac\\x0d\\x09d");
  CHECK(printable("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");  // UTF-8 kept
  CHECK(printable("\xc2\x9b"
                  "31m") == "\\xc2\\x9b31m");    // C1 CSI escaped
  CHECK(printable("\xff\xc3") == "\\xff\\xc3");  // not UTF-8
  CHECK(printable(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(printable("\x7f") == "\\x7f");
  CHECK(printable("", "reading x") == "reading x");
  const Error e(ErrorCode::kInput, "evil\x1b]0;title\x07\nname.png", "bad chunk \x1b[2J\n");
  CHECK(e.message() == "dctool: error: evil\\x1b]0;title\\x07\\x0aname.png: bad chunk \\x1b[2J\\x0a");
  CHECK(Error(ErrorCode::kInput, "f.png", "").message() == "dctool: error: f.png: failed (no reason given)");
}
