// .npy reading and writing (core/formats): numpy-written files of every supported dtype, layout and version,
// our files read by numpy, and every kind of malformed header.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/formats.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::ErrorCode;
using dct::test::error_of;
using dct::test::run_python;
using dct::test::TempDir;
using dct::test::wopt;
using dct::test::io::slurp;
using namespace std::string_literals;

namespace {

std::vector<double> read_f64_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<double> v(bytes.size() / 8);
  std::memcpy(v.data(), bytes.data(), v.size() * 8);
  return v;
}

// A version 1.0 .npy with the given header dict and data bytes.
void write_npy_bytes(const std::string& path, const std::string& dict, std::size_t data_bytes, int major = 1) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  f << "\x93NUMPY" << static_cast<char>(major) << '\0';
  f << static_cast<char>(header.size() & 0xff) << static_cast<char>(header.size() >> 8) << header;
  f << std::string(data_bytes, '\x01');
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

double pattern(std::int64_t c, std::int64_t h, std::int64_t w) { return (c * 100 + h * 10 + w) / 7.0 - 3; }

}  // namespace

TEST_CASE("npy: numpy files of every supported dtype, either byte order, read exactly", "[core][npy]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
d = sys.argv[1]
i = np.arange(15, dtype=np.float64)
vals = {
    'float32': (i - 7) * 0.25 + 1.0 / (i + 1),
    'float64': (i - 7) * 0.25 + 1.0 / (i + 1),
    'uint8': [0, 1, 2, 100, 127, 128, 200, 254, 255, 3, 4, 5, 6, 7, 8],
    'uint16': [0, 1, 255, 256, 1000, 32767, 32768, 65534, 65535, 9, 10, 11, 12, 13, 14],
    'int16': [-32768, -32767, -1, 0, 1, 32767, -300, 300, 5, 6, 7, 8, 9, 10, 11],
    'int32': [-2147483648, 2147483647, -1, 0, 1, 65536, -65536, 123456789, 5, 6, 7, 8, 9, 10, 11],
    'int8': [-128, -127, -1, 0, 1, 127, 100, -100, 5, 6, 7, 8, 9, 10, 11],
    'uint32': [0, 1, 65535, 65536, 2**31, 2**32 - 1, 123456789, 7, 8, 9, 10, 11, 12, 13, 14],
    'int64': [-2**63, 2**63 - 1, -1, 0, 1, 2**40 + 1, -2**53, 123456789012, 5, 6, 7, 8, 9, 10, 11],
    'uint64': [0, 1, 2**64 - 1, 2**63, 2**53, 12345678901234, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    'float16': [0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, 2.0**-24, 2.0**-14, 1.0 / 3, 0.1, 1000.5, 3, 4, 5, 6],
    'bool': [True, False, True, True, False, False, True, False, True, False, True, False, True, False, True],
}
for name, v in vals.items():
    a = np.array(v).astype(name).reshape(3, 5)
    np.save(os.path.join(d, name + '.npy'), a)
    np.save(os.path.join(d, name + '.be.npy'), a.astype(a.dtype.newbyteorder('>')))  # big-endian
    a.astype('<f8').tofile(os.path.join(d, name + '.expect'))
)PY") == 0);
  for (const char* name : {"float32", "float64", "uint8", "uint16", "int16", "int32", "int8", "uint32", "int64",
                           "uint64", "float16", "bool"}) {
    INFO(name);
    const std::vector<double> expect = read_f64_file(dir.file(std::string(name) + ".expect"));
    REQUIRE(expect.size() == 15);
    for (const std::string file : {std::string(name) + ".npy", std::string(name) + ".be.npy"}) {
      INFO(file);
      ReadOptions opt;
      opt.prec = Precision::kF64;
      Dataset d64 = read_npy(dir.file(file), opt);
      CHECK(d64.kind == SourceKind::kMatrix);
      REQUIRE(d64.tensor.shape() == Shape2{3, 5});
      REQUIRE(d64.tensor.channels() == 1);
      CHECK(d64.tensor.precision() == Precision::kF64);
      for (std::int64_t k = 0; k < 15; ++k) CHECK(d64.tensor.get(k) == expect[k]);

      opt.prec = Precision::kF32;
      Dataset d32 = read_any(dir.file(file), opt, nullptr);
      REQUIRE(d32.tensor.precision() == Precision::kF32);
      for (std::int64_t k = 0; k < 15; ++k) CHECK(d32.tensor.data<float>()[k] == static_cast<float>(expect[k]));
    }
  }
}

TEST_CASE("npy: 1-D is 1xN, 3-D (H,W,C) is de-interleaved into C planes, versions 2.0 and 3.0 read", "[core][npy]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
d = sys.argv[1]
np.save(os.path.join(d, 'v1d.npy'), np.arange(7, dtype='<f4') * 1.5)
h, w, c = 2, 3, 4
a = np.zeros((h, w, c))
for ci in range(c):
    for hi in range(h):
        for wi in range(w):
            a[hi, wi, ci] = (ci * 100 + hi * 10 + wi) / 7.0 - 3
np.save(os.path.join(d, 'hwc.npy'), a)
for ver in [(2, 0), (3, 0)]:
    with open(os.path.join(d, 'v%d.npy' % ver[0]), 'wb') as f:
        np.lib.format.write_array(f, a[:, :, 0].astype('<f4'), version=ver)
)PY") == 0);
  ReadOptions f64;
  f64.prec = Precision::kF64;

  Dataset v = read_npy(dir.file("v1d.npy"), f64);
  REQUIRE(v.tensor.shape() == Shape2{1, 7});
  for (std::int64_t k = 0; k < 7; ++k) CHECK(v.tensor.get(k) == 1.5 * k);

  Dataset t = read_npy(dir.file("hwc.npy"), f64);
  REQUIRE(t.tensor.shape() == Shape2{2, 3});
  REQUIRE(t.tensor.channels() == 4);
  for (std::int64_t c = 0; c < 4; ++c)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t w = 0; w < 3; ++w) CHECK(t.tensor.get(c * 6 + h * 3 + w) == pattern(c, h, w));

  for (const char* name : {"v2.npy", "v3.npy"}) {
    INFO(name);
    REQUIRE(slurp(dir.file(name))[6] == name[1] - '0');
    Dataset d = read_npy(dir.file(name), f64);
    REQUIRE(d.tensor.shape() == Shape2{2, 3});
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t w = 0; w < 3; ++w)
        CHECK(d.tensor.get(h * 3 + w) == static_cast<double>(static_cast<float>(pattern(0, h, w))));
  }
}

TEST_CASE("npy: a 3-D array read as a volume is one (A*B) x C plane in file order and writes back byte for byte",
          "[core][npy]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
a = np.zeros((2, 3, 4))
for ci in range(4):
    for hi in range(2):
        for wi in range(3):
            a[hi, wi, ci] = (ci * 100 + hi * 10 + wi) / 7.0 - 3
np.save(os.path.join(sys.argv[1], 'vol.npy'), a)
)PY") == 0);
  ReadOptions r;
  r.prec = Precision::kF64;
  r.volume = true;
  Dataset t = read_npy(dir.file("vol.npy"), r);
  REQUIRE(t.tensor.shape() == Shape2{6, 4});
  REQUIRE(t.tensor.channels() == 1);
  for (std::int64_t h = 0; h < 2; ++h)
    for (std::int64_t w = 0; w < 3; ++w)
      for (std::int64_t c = 0; c < 4; ++c) CHECK(t.tensor.get((h * 3 + w) * 4 + c) == pattern(c, h, w));
  WriteOptions w;
  w.prec = Precision::kF64;
  w.npy_shape = {2, 3, 4};
  write_npy(dir.file("back.npy"), t.tensor, w);
  CHECK(slurp(dir.file("back.npy")) == slurp(dir.file("vol.npy")));
}

TEST_CASE("npy: our files load in numpy with exact values, 64-byte aligned headers", "[core][npy]") {
  TempDir dir;
  for (Precision prec : {Precision::kF32, Precision::kF64}) {
    for (std::int64_t channels : {1, 3}) {
      HostTensor t(Shape2{4, 6}, channels, Precision::kF64);
      for (std::int64_t c = 0; c < channels; ++c)
        for (std::int64_t h = 0; h < 4; ++h)
          for (std::int64_t w = 0; w < 6; ++w) t.set(c * 24 + h * 6 + w, pattern(c, h, w));
      WriteOptions opt;
      opt.prec = prec;
      const std::string name = "out_" + std::string(to_string(prec)) + "_c" + std::to_string(channels) + ".npy";
      write_npy(dir.file(name), t, opt);
      const std::string bytes = slurp(dir.file(name));
      const std::size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
      CHECK((10 + header_len) % 64 == 0);
      CHECK(bytes[10 + header_len - 1] == '\n');
      CHECK(bytes.size() == 10 + header_len + 24 * channels * element_size(prec));
    }
  }
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
d = sys.argv[1]
for prec, dt in [('f32', np.float32), ('f64', np.float64)]:
    for c in [1, 3]:
        a = np.load(os.path.join(d, 'out_%s_c%d.npy' % (prec, c)), allow_pickle=False)
        assert a.dtype == dt, a.dtype
        assert a.flags['C_CONTIGUOUS']
        assert a.shape == ((4, 6) if c == 1 else (4, 6, c)), a.shape
        want = np.zeros((4, 6, c))
        for ci in range(c):
            for h in range(4):
                for w in range(6):
                    want[h, w, ci] = (ci * 100 + h * 10 + w) / 7.0 - 3
        want = want.astype(dt)
        if c == 1:
            want = want[:, :, 0]
        assert np.array_equal(a, want), (prec, c, a, want)
)PY") == 0);
}

TEST_CASE("npy: write then read round-trips every value and channel", "[core][npy]") {
  TempDir dir;
  for (Precision prec : {Precision::kF32, Precision::kF64}) {
    HostTensor t = dct::test::random_tensor(Shape2{5, 7}, 3, prec, 7);
    WriteOptions w;
    w.prec = prec;
    write_any(dir.file("rt.NPY"), t, w, nullptr);
    ReadOptions r;
    r.prec = prec;
    Dataset d = read_any(dir.file("rt.NPY"), r, nullptr);
    REQUIRE(d.tensor.shape() == t.shape());
    REQUIRE(d.tensor.channels() == 3);
    REQUIRE(std::memcmp(d.tensor.raw(), t.raw(), t.bytes()) == 0);
  }
}

TEST_CASE("npy: truncated data names the expected and found byte counts", "[core][npy]") {
  TempDir dir;
  const std::string p = dir.file("trunc.npy");
  write_npy_bytes(p, dict("<f4", "(4, 4)"), 10);
  auto e = error_of([&] { read_npy(p, {}); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(e.subject() == p);
  CHECK(std::string(e.what()) == "truncated: expected 64 bytes of data, found 10");

  write_npy_bytes(p, dict("<f4", "(2, 2)"), 20);
  CHECK_THAT(error_of([&] { read_npy(p, {}); }).what(), Catch::Contains("trailing"));

  std::ofstream(p, std::ios::binary) << "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4'"s;
  auto h = error_of([&] { read_npy(p, {}); });
  CHECK(h.code() == ErrorCode::kInput);
  CHECK_THAT(h.what(), Catch::Contains("truncated"));
}

TEST_CASE("npy: absurd shapes are rejected from the header, before any allocation", "[core][npy]") {
  TempDir dir;
  const std::string p = dir.file("absurd.npy");
  write_npy_bytes(p, dict("<f8", "(1000000000, 1000000000)"), 16);
  const auto t0 = std::chrono::steady_clock::now();
  auto e = error_of([&] { read_npy(p, {}); });
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
  CHECK(e.code() == ErrorCode::kInput);
  CHECK_THAT(e.what(), Catch::Contains("limit"));

  // Legal by the limits (4e9 values) but 16 GB of data: the size check must come before the allocation.
  write_npy_bytes(p, dict("<f4", "(100000, 40000)"), 16);
  auto big = error_of([&] { read_npy(p, {}); });
  CHECK(big.code() == ErrorCode::kInput);
  CHECK(std::string(big.what()) == "truncated: expected 16000000000 bytes of data, found 16");

  write_npy_bytes(p, dict("<f4", "(3, 99999999999999999999999)"), 16);
  CHECK_THAT(error_of([&] { read_npy(p, {}); }).what(), Catch::Contains("limit"));
  write_npy_bytes(p, dict("<f4", "(65536, 65536, 2)"), 16);
  CHECK_THAT(error_of([&] { read_npy(p, {}); }).what(), Catch::Contains("limit"));
}

TEST_CASE("npy: Fortran-ordered arrays (np.save of a transpose) read as numpy reads them", "[core][npy]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
d = sys.argv[1]
m = (np.arange(15, dtype='<f8').reshape(5, 3) * 1.25 - 4).T  # a transposed view: np.save writes fortran_order True
hwc = np.asfortranarray(np.arange(24, dtype='<i2').reshape(2, 3, 4) * 3 - 20)
for name, a in (('m', m), ('hwc', hwc)):
    np.save(os.path.join(d, name + '.npy'), a)
    with open(os.path.join(d, name + '.npy'), 'rb') as f:
        np.lib.format.read_magic(f)
        assert np.lib.format.read_array_header_1_0(f)[1], name  # fortran_order
    a.astype('<f8').tofile(os.path.join(d, name + '.expect'))  # C order
)PY") == 0);
  for (const bool f32 : {false, true}) {
    INFO((f32 ? "f32" : "f64"));
    ReadOptions opt;
    opt.prec = f32 ? Precision::kF32 : Precision::kF64;
    const std::vector<double> em = read_f64_file(dir.file("m.expect")), eh = read_f64_file(dir.file("hwc.expect"));
    Dataset m = read_npy(dir.file("m.npy"), opt);
    REQUIRE(m.tensor.shape() == Shape2{3, 5});
    for (std::int64_t k = 0; k < 15; ++k) CHECK(m.tensor.get(k) == em[static_cast<std::size_t>(k)]);

    Dataset hwc = read_npy(dir.file("hwc.npy"), opt);  // (H, W, C): C planes
    REQUIRE(hwc.tensor.shape() == Shape2{2, 3});
    REQUIRE(hwc.tensor.channels() == 4);
    for (std::int64_t c = 0; c < 4; ++c)
      for (std::int64_t p = 0; p < 6; ++p) CHECK(hwc.tensor.get(c * 6 + p) == eh[static_cast<std::size_t>(p * 4 + c)]);

    opt.volume = true;  // a volume: (A·B) x C in C order
    Dataset vol = read_npy(dir.file("hwc.npy"), opt);
    REQUIRE(vol.tensor.shape() == Shape2{6, 4});
    for (std::int64_t k = 0; k < 24; ++k) CHECK(vol.tensor.get(k) == eh[static_cast<std::size_t>(k)]);
  }
  // The streamed and distributed reads take file order: they refuse the layout rather than misread it.
  const NpyLayout l = read_npy_layout(dir.file("m.npy"));
  CHECK(l.fortran);
  std::vector<double> buf(15);
  CHECK(error_of([&] { read_npy_values(dir.file("m.npy"), l, 0, 15, buf.data(), Precision::kF64, false, 1); }).code() ==
        ErrorCode::kInput);
}

TEST_CASE("npy: unsupported dtypes, byte order and layouts are input errors", "[core][npy]") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(
import numpy as np, os, sys
d = sys.argv[1]
a = np.arange(6).reshape(2, 3)
np.save(os.path.join(d, 'c8.npy'), a.astype('<c8'))
np.save(os.path.join(d, 'u3.npy'), a.astype('<U3'))
np.save(os.path.join(d, 'm8.npy'), a.astype('<M8[ns]'))
np.save(os.path.join(d, 'c16be.npy'), a.astype('>c16'))
np.save(os.path.join(d, 'obj.npy'), np.array([[1, 'x']], dtype=object), allow_pickle=True)
np.save(os.path.join(d, 'rec.npy'), np.zeros(3, dtype=[('a', '<f4'), ('b', '<i4')]))
np.save(os.path.join(d, 'scalar.npy'), np.float32(3))
np.save(os.path.join(d, 'four.npy'), np.zeros((1, 2, 2, 2), dtype='<f4'))
np.save(os.path.join(d, 'zero.npy'), np.zeros((0, 3), dtype='<f4'))
)PY") == 0);
  const std::vector<std::pair<std::string, std::string>> cases{
      {"c8.npy", "unsupported dtype '<c8'"},      {"u3.npy", "unsupported dtype '<U3'"},
      {"m8.npy", "unsupported dtype '<M8[ns]'"},  {"c16be.npy", "unsupported dtype '>c16'"},
      {"obj.npy", "unsupported dtype '|O'"},      {"rec.npy", "unsupported dtype (structured array)"},
      {"scalar.npy", "unsupported shape ()"},     {"four.npy", "unsupported shape (1, 2, 2, 2)"},
      {"zero.npy", "empty array (shape (0, 3))"},
  };
  for (const auto& [file, message] : cases) {
    INFO(file);
    const std::string path = dir.file(file);  // clang 14 cannot capture a structured binding
    auto e = error_of([&] { read_npy(path, {}); });
    CHECK(e.code() == ErrorCode::kInput);
    CHECK(e.subject() == dir.file(file));
    CHECK_THAT(e.what(), Catch::StartsWith(message));
  }
}

TEST_CASE("npy: malformed headers are input errors", "[core][npy]") {
  TempDir dir;
  const std::string p = dir.file("bad.npy");
  const std::vector<std::pair<std::string, std::string>> dicts{
      {"{'descr': '<f4', 'shape': (2, 2), }", "missing key 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", "unexpected key 'x'"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 2), }", "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -2), }", "negative dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2) }x", "unexpected text"},
      {"['descr', '<f4']", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 2], }", "expected '('"},
  };
  for (const auto& [d, message] : dicts) {
    INFO(d);
    write_npy_bytes(p, d, 16);
    auto e = error_of([&] { read_npy(p, {}); });
    CHECK(e.code() == ErrorCode::kInput);
    CHECK_THAT(e.what(), Catch::StartsWith("malformed .npy header") && Catch::Contains(message));
  }

  std::ofstream(p, std::ios::binary) << "PK\x03\x04 this is a zip file, not an npy";
  CHECK_THAT(error_of([&] { read_npy(p, {}); }).what(), Catch::Contains("bad magic"));
  write_npy_bytes(p, dict("<f4", "(2, 2)"), 16, 4);
  CHECK_THAT(error_of([&] { read_npy(p, {}); }).what(), Catch::Contains("unsupported .npy version 4.0"));
  std::ofstream(p, std::ios::binary) << "\x93NUMPY\x01";
  CHECK_THAT(error_of([&] { read_npy(p, {}); }).what(), Catch::Contains("too short"));
  std::ofstream(p, std::ios::binary) << "\x93NUMPY\x02\x00\xff\xff\xff\x7f{}"s;
  CHECK_THAT(error_of([&] { read_npy(p, {}); }).what(), Catch::Contains("header length"));
}

TEST_CASE("npy: NaN and Inf are rejected unless allowed", "[core][npy]") {
  TempDir dir;
  HostTensor t(Shape2{2, 3}, 2, Precision::kF64);
  t.set(6 + 4, std::nan(""));
  write_npy(dir.file("nan.npy"), t, wopt(Precision::kF64));
  auto e = error_of([&] { read_npy(dir.file("nan.npy"), {}); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(e.subject() == dir.file("nan.npy"));
  CHECK_THAT(e.what(), Catch::StartsWith("NaN at row 2, column 2, channel 2"));

  ReadOptions allow;
  allow.allow_nonfinite = true;
  Dataset d = read_npy(dir.file("nan.npy"), allow);
  CHECK(std::isnan(d.tensor.get(10)));

  t.set(10, -INFINITY);
  write_npy(dir.file("inf.npy"), t, wopt(Precision::kF32));
  CHECK_THAT(error_of([&] { read_npy(dir.file("inf.npy"), {}); }).what(), Catch::StartsWith("Inf at"));
}

// A distributed transform reads only its slab, so its input may hold more than kMaxElements values (a sparse file of
// 2^32 + 65536 float32 values here: its header, checked against the file's size, is all that is read).
TEST_CASE("npy: the layout of a file over 2^32 values is read under the distributed limit only", "[core][npy]") {
  TempDir dir;
  const std::string path = dir.file("big.npy");
  const std::vector<std::int64_t> shape{65536, 65537};
  const std::string header = npy_header(shape, Precision::kF32);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
  }
  std::filesystem::resize_file(path, header.size() + std::uint64_t{65536} * 65537 * 4);
  CHECK(error_of([&] { read_npy_layout(path); }).code() == ErrorCode::kInput);
  const NpyLayout l = read_npy_layout(path, kMaxDistributedElements);
  CHECK(l.shape == shape);
  CHECK(l.data_offset == static_cast<std::int64_t>(header.size()));
  std::filesystem::resize_file(path, header.size() + 4);  // the header must still match the file
  CHECK(error_of([&] { read_npy_layout(path, kMaxDistributedElements); }).code() == ErrorCode::kInput);
}

// A distributed transform's slab is read in parts at once: the same values as one read, and a NaN in a later part
// named by its index.
TEST_CASE("npy: values read in parts at once equal one read, and a NaN is named wherever it is", "[core][npy]") {
  TempDir dir;
  const std::string path = dir.file("v.npy");
  const std::int64_t n = std::int64_t{12} << 20;  // 48 MiB of float32: three parts of 16 MiB
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i % 1000) * 0.5f;
  const std::string header = npy_header({n}, Precision::kF32);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(n * 4));
  }
  const NpyLayout l = read_npy_layout(path);
  for (const Precision prec : {Precision::kF32, Precision::kF64}) {
    const std::int64_t first = 12345, count = n - 2 * first;
    std::vector<double> one(static_cast<std::size_t>(count)), parts(one.size());
    read_npy_values(path, l, first, count, one.data(), prec, false, 1);
    read_npy_values(path, l, first, count, parts.data(), prec, false, 4);
    CHECK(std::memcmp(one.data(), parts.data(), static_cast<std::size_t>(count) * element_size(prec)) == 0);
    if (prec == Precision::kF32)
      CHECK(reinterpret_cast<const float*>(parts.data())[count - 1] == v[static_cast<std::size_t>(first + count - 1)]);
  }
  {  // a NaN in the last part
    std::fstream io(path, std::ios::binary | std::ios::in | std::ios::out);
    const float nan = std::nanf("");
    io.seekp(static_cast<std::streamoff>(header.size() + (n - 7) * 4));
    io.write(reinterpret_cast<const char*>(&nan), 4);
  }
  std::vector<float> got(static_cast<std::size_t>(n));
  const dct::Error e = error_of([&] { read_npy_values(path, l, 0, n, got.data(), Precision::kF32, false, 4); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK_THAT(e.message(), Catch::Contains("NaN at index (" + std::to_string(n - 7) + ",)"));
}

TEST_CASE("npy: NpySource reads any byte range of the values (converted), NpySink writes what write_npy writes",
          "[core][npy][streamed]") {
  TempDir dir;
  const std::int64_t rows = 300, cols = 517;
  HostTensor t(Shape2{rows, cols}, 1, Precision::kF64);
  for (std::int64_t i = 0; i < t.elements(); ++i) t.data<double>()[i] = std::sin(0.37 * static_cast<double>(i)) * 1e3;
  const std::string path = dir.file("m.npy");
  write_npy(path, t, wopt(Precision::kF64));
  const NpyLayout l = read_npy_layout(path);
  for (Precision prec : {Precision::kF32, Precision::kF64}) {
    const HostTensor want = t.to(prec);
    const NpySource src(path, l, prec, false);
    std::vector<unsigned char> got(want.bytes());
    const std::size_t es = element_size(prec);
    // Ranges of odd element counts, one of them longer than a 256 KiB read.
    for (std::size_t at = 0, k = 1; at < got.size(); ++k) {
      const std::size_t n = std::min(got.size() - at, es * (k % 3 == 0 ? 70001 : 13 * k));
      src.read(at, got.data() + at, n);
      at += n;
    }
    CHECK(std::memcmp(got.data(), want.raw(), want.bytes()) == 0);
    // The sink: parts in any order, then commit; the file is write_npy's.
    const std::string out = dir.file(std::string("o") + (prec == Precision::kF32 ? "32" : "64") + ".npy");
    {
      NpySink sink(out, {rows, cols}, prec);
      const std::size_t half = want.bytes() / 2 / es * es;
      sink.write(half, static_cast<const char*>(want.raw()) + half, want.bytes() - half);
      sink.write(0, want.raw(), half);
      sink.commit();
    }
    write_npy(dir.file("ref.npy"), want, wopt(prec));
    CHECK(slurp(out) == slurp(dir.file("ref.npy")));
  }
  {  // An uncommitted sink leaves nothing.
    NpySink sink(dir.file("gone.npy"), {2, 2}, Precision::kF32);
  }
  CHECK(!std::filesystem::exists(dir.file("gone.npy")));
  // A NaN: named by row and column, as require_finite names it.
  t.data<double>()[(rows - 2) * cols + 5] = std::nan("");
  write_npy(path, t, wopt(Precision::kF64));
  const NpySource src(path, l, Precision::kF32, false);
  std::vector<float> got(static_cast<std::size_t>(t.elements()));
  const dct::Error e = error_of([&] { src.read(0, got.data(), got.size() * 4); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(e.message() == "dctool: error: " + path + ": NaN at row 299, column 6 (non-finite values are not allowed)");
  CHECK_NOTHROW(NpySource(path, l, Precision::kF32, true).read(0, got.data(), got.size() * 4));
}
