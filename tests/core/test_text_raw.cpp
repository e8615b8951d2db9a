// Text (.txt/.csv) and raw (.raw/.f32/.f64) matrices (core/formats).
#include <catch2/catch.hpp>

#include <cmath>
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
using dct::test::TempDir;
using dct::test::wopt;
using dct::test::io::slurp;

namespace {

void put(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

ReadOptions f64_opts() {
  ReadOptions o;
  o.prec = Precision::kF64;
  return o;
}

}  // namespace

TEST_CASE("text: spaces, tabs and commas in any mix, comments and blank lines skipped", "[core][text]") {
  TempDir dir;
  const std::string p = dir.file("m.txt");
  put(p, "# a header comment\n1 2,3\t4\n  5,,6  7 ,8   # trailing comment\n\n9\t\t10 11, 12\r\n\n\n");
  Dataset d = read_text(p, f64_opts());
  CHECK(d.kind == SourceKind::kMatrix);
  REQUIRE(d.tensor.shape() == Shape2{3, 4});
  REQUIRE(d.tensor.channels() == 1);
  for (std::int64_t k = 0; k < 12; ++k) CHECK(d.tensor.get(k) == static_cast<double>(k + 1));

  put(dir.file("c.csv"), "1.5,-2e-3,+7\r\n0x10,-0,1e2");
  Dataset c = read_any(dir.file("c.csv"), f64_opts(), nullptr);
  REQUIRE(c.tensor.shape() == Shape2{2, 3});
  CHECK(c.tensor.get(0) == 1.5);
  CHECK(c.tensor.get(1) == -2e-3);
  CHECK(c.tensor.get(2) == 7.0);
  CHECK(c.tensor.get(3) == 16.0);
  CHECK(c.tensor.get(5) == 100.0);

  put(dir.file("one.txt"), "3.25\n");
  Dataset one = read_text(dir.file("one.txt"), {});
  CHECK(one.tensor.shape() == Shape2{1, 1});
  CHECK(one.tensor.precision() == Precision::kF32);
  CHECK(one.tensor.get(0) == 3.25);
}

TEST_CASE("text: ragged rows and non-numbers name the line", "[core][text]") {
  TempDir dir;
  const std::string p = dir.file("bad.txt");
  put(p, "1 2 3 4\n5 6 7 8\n9 10 11\n");
  auto e = error_of([&] { read_text(p, {}); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(e.subject() == p);
  CHECK(std::string(e.what()) == "line 3: expected 4 values, found 3");

  put(p, "# comment\n1 2\n3 4 5\n");
  CHECK(std::string(error_of([&] { read_text(p, {}); }).what()) == "line 3: expected 2 values, found 3");

  // A .csv's empty field (two commas in a row, or one at either end of a line) is an error, not a skipped value.
  const std::string csv = dir.file("bad.csv");
  for (const char* text : {"1,2,3\n4,,5,6\n", "1,2,3\n,4,5\n", "1,2,3\n4,5,6,\n", "1,2,3\n4, ,5,6\n"}) {
    put(csv, text);
    auto f = error_of([&] { read_text(csv, {}); });
    INFO(text);
    CHECK(f.code() == ErrorCode::kInput);
    CHECK(f.subject() == csv);
    CHECK(std::string(f.what()).rfind("line 2: an empty field", 0) == 0);
  }

  put(p, "1 2\n3 abc\n");
  auto n = error_of([&] { read_text(p, {}); });
  CHECK(n.code() == ErrorCode::kInput);
  CHECK(std::string(n.what()) == "line 2: not a number: 'abc'");

  put(p, "1.5x 2\n");
  CHECK(std::string(error_of([&] { read_text(p, {}); }).what()) == "line 1: not a number: '1.5x'");
  put(p, "1;2\n");
  CHECK(std::string(error_of([&] { read_text(p, {}); }).what()) == "line 1: not a number: '1;2'");
  put(p, std::string("1 \x01\x02z\n", 6));
  CHECK(std::string(error_of([&] { read_text(p, {}); }).what()) == "line 1: not a number: '??z'");

  put(p, "# only a comment\n\n   \n");
  CHECK_THAT(error_of([&] { read_text(p, {}); }).what(), Catch::Contains("no values"));
  put(p, "");
  auto empty = error_of([&] { read_text(p, {}); });
  CHECK(empty.code() == ErrorCode::kInput);
  CHECK(std::string(empty.what()) == "empty file");
  auto missing = error_of([&] { read_text(dir.file("missing.txt"), {}); });
  CHECK(missing.code() == ErrorCode::kInput);
  CHECK(missing.subject() == dir.file("missing.txt"));
  CHECK(std::string(missing.what()) == "no such file");
}

TEST_CASE("text: nan and inf tokens parse but are rejected unless allowed", "[core][text]") {
  TempDir dir;
  const std::string p = dir.file("nan.txt");
  put(p, "1 2\n3 nan\n");
  auto e = error_of([&] { read_text(p, {}); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK_THAT(e.what(), Catch::StartsWith("NaN at row 2, column 2"));
  ReadOptions allow;
  allow.allow_nonfinite = true;
  CHECK(std::isnan(read_text(p, allow).tensor.get(3)));
  put(p, "-inf 1\n");
  CHECK_THAT(error_of([&] { read_text(p, {}); }).what(), Catch::StartsWith("Inf at row 1, column 1"));
  put(p, "1e999 1\n");
  CHECK_THAT(error_of([&] { read_text(p, {}); }).what(), Catch::StartsWith("Inf at"));
}

TEST_CASE("text: written with %.9g (f32) or %.17g (f64), one row per line, and read back exactly", "[core][text]") {
  TempDir dir;
  HostTensor t(Shape2{2, 3}, 1, Precision::kF64);
  const double v[] = {1, 0.5, -2, 0.1, 1e-20, 12345678.9};
  for (int i = 0; i < 6; ++i) t.set(i, v[i]);
  write_text(dir.file("a.txt"), t, wopt(Precision::kF32));
  CHECK(slurp(dir.file("a.txt")) == "1 0.5 -2\n0.100000001 9.99999968e-21 12345679\n");
  write_text(dir.file("b.txt"), t, wopt(Precision::kF64));
  CHECK(slurp(dir.file("b.txt")) == "1 0.5 -2\n0.10000000000000001 9.9999999999999995e-21 12345678.9\n");
  write_any(dir.file("c.csv"), t, wopt(Precision::kF64), nullptr);
  CHECK(slurp(dir.file("c.csv")) == "1,0.5,-2\n0.10000000000000001,9.9999999999999995e-21,12345678.9\n");

  for (Precision prec : {Precision::kF32, Precision::kF64}) {
    HostTensor r = dct::test::random_tensor(Shape2{17, 9}, 1, prec, 3);
    for (std::int64_t i = 0; i < r.elements(); ++i)
      r.set(i, r.get(i) * std::pow(10.0, static_cast<double>(i % 13) - 6));
    write_any(dir.file("r.txt"), r, wopt(prec), nullptr);
    ReadOptions o;
    o.prec = prec;
    Dataset back = read_any(dir.file("r.txt"), o, nullptr);
    REQUIRE(back.tensor.shape() == r.shape());
    CHECK(std::memcmp(back.tensor.raw(), r.raw(), r.bytes()) == 0);
  }
}

TEST_CASE("text: multi-channel output is refused and leaves no file", "[core][text]") {
  TempDir dir;
  HostTensor t(Shape2{2, 2}, 3, Precision::kF32);
  auto e = error_of([&] { write_text(dir.file("x.txt"), t, {}); });
  CHECK(e.code() == ErrorCode::kUsage);
  CHECK(e.subject() == dir.file("x.txt"));
  CHECK_THAT(e.what(), Catch::Contains("one channel") && Catch::Contains("3"));
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("raw: dtype from the extension or --dtype, shape from --shape, round trip", "[core][raw]") {
  TempDir dir;
  HostTensor t = dct::test::random_tensor(Shape2{3, 5}, 1, Precision::kF64, 11);
  ReadOptions r = f64_opts();
  r.shape = Shape2{3, 5};

  write_any(dir.file("a.f64"), t, wopt(Precision::kF32), nullptr);
  CHECK(std::filesystem::file_size(dir.file("a.f64")) == 15 * 8);
  Dataset a = read_any(dir.file("a.f64"), r, nullptr);
  CHECK(std::memcmp(a.tensor.raw(), t.raw(), t.bytes()) == 0);

  write_any(dir.file("b.f32"), t, wopt(Precision::kF64), nullptr);
  CHECK(std::filesystem::file_size(dir.file("b.f32")) == 15 * 4);
  Dataset b = read_any(dir.file("b.f32"), r, nullptr);
  for (std::int64_t i = 0; i < 15; ++i) CHECK(b.tensor.get(i) == static_cast<double>(static_cast<float>(t.get(i))));

  // .raw: f32 by default on both sides; WriteOptions::dtype or the precision choose f64.
  write_any(dir.file("c.raw"), t, wopt(Precision::kF32), nullptr);
  CHECK(std::filesystem::file_size(dir.file("c.raw")) == 15 * 4);
  Dataset c = read_any(dir.file("c.raw"), r, nullptr);
  CHECK(c.tensor.get(7) == static_cast<double>(static_cast<float>(t.get(7))));
  write_any(dir.file("d.raw"), t, wopt(Precision::kF64), nullptr);
  CHECK(std::filesystem::file_size(dir.file("d.raw")) == 15 * 8);
  WriteOptions wd;
  wd.dtype = "f64";
  write_any(dir.file("e.raw"), t, wd, nullptr);
  CHECK(std::filesystem::file_size(dir.file("e.raw")) == 15 * 8);
  r.dtype = "f64";
  Dataset e = read_any(dir.file("e.raw"), r, nullptr);
  CHECK(std::memcmp(e.tensor.raw(), t.raw(), t.bytes()) == 0);
}

TEST_CASE("raw: integer dtypes are little-endian", "[core][raw]") {
  TempDir dir;
  put(dir.file("u16.raw"), std::string("\x01\x00\xff\xff\x00\x01\x34\x12", 8));
  ReadOptions r = f64_opts();
  r.shape = Shape2{2, 2};
  r.dtype = "u16";
  Dataset d = read_raw(dir.file("u16.raw"), r);
  CHECK(d.tensor.get(0) == 1);
  CHECK(d.tensor.get(1) == 65535);
  CHECK(d.tensor.get(2) == 256);
  CHECK(d.tensor.get(3) == 0x1234);
  r.dtype = "i16";
  CHECK(read_raw(dir.file("u16.raw"), r).tensor.get(1) == -1);
  r.dtype = "u8";
  r.shape = Shape2{2, 4};
  CHECK(read_raw(dir.file("u16.raw"), r).tensor.get(2) == 255);
  r.dtype = "i32";
  r.shape = Shape2{1, 2};
  CHECK(read_raw(dir.file("u16.raw"), r).tensor.get(1) == 0x12340100);
}

TEST_CASE("raw: missing shape, size mismatch, bad or conflicting dtype", "[core][raw]") {
  TempDir dir;
  const std::string p = dir.file("x.f32");
  put(p, std::string(1000, '\0'));
  auto e = error_of([&] { read_any(p, {}, nullptr); });
  CHECK(e.code() == ErrorCode::kUsage);
  CHECK(e.subject() == p);
  CHECK(std::string(e.what()) == "raw input needs --shape HxW");

  ReadOptions r;
  r.shape = Shape2{16, 16};
  auto m = error_of([&] { read_any(p, r, nullptr); });
  CHECK(m.code() == ErrorCode::kInput);
  CHECK(m.subject() == p);
  CHECK(std::string(m.what()) == "size 1000 bytes does not match --shape 16x16 of f32 (1024 bytes)");

  r.dtype = "f64";
  CHECK(error_of([&] { read_any(p, r, nullptr); }).code() == ErrorCode::kUsage);
  r.dtype = "c64";
  auto bad = error_of([&] { read_any(dir.file("y.raw"), r, nullptr); });
  CHECK(bad.code() == ErrorCode::kUsage);
  CHECK(bad.subject() == dir.file("y.raw"));
  CHECK_THAT(bad.what(), Catch::StartsWith("invalid --dtype 'c64'"));

  r.dtype.clear();
  r.shape = Shape2{std::int64_t{1} << 20, std::int64_t{1} << 20};
  auto big = error_of([&] { read_any(p, r, nullptr); });
  CHECK(big.code() == ErrorCode::kInput);
  CHECK_THAT(big.what(), Catch::Contains("limit"));

  HostTensor rgb(Shape2{2, 2}, 3, Precision::kF32);
  CHECK(error_of([&] { write_any(dir.file("rgb.f32"), rgb, {}, nullptr); }).code() == ErrorCode::kUsage);
  WriteOptions w;
  w.dtype = "u8";
  CHECK(error_of([&] { write_any(dir.file("u8.raw"), rgb.channel(0), w, nullptr); }).code() == ErrorCode::kUsage);
  CHECK_FALSE(std::filesystem::exists(dir.file("rgb.f32")));
  CHECK_FALSE(std::filesystem::exists(dir.file("u8.raw")));
}
