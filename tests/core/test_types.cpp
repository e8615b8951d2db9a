// Descriptor names, parsers and shapes (core/types).
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/types.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::test::error_of;

TEST_CASE("types: every enum name parses back to itself", "[core][types]") {
  for (Op op : {Op::kDct2, Op::kIdct2, Op::kDct4, Op::kIdct4, Op::kLot, Op::kIlot})
    CHECK(parse_op(to_string(op)) == op);
  for (Norm n : {Norm::kNone, Norm::kOrtho}) CHECK(parse_norm(to_string(n)) == n);
  for (Axis a : {Axis::kBoth, Axis::kRows, Axis::kCols}) CHECK(parse_axis(to_string(a)) == a);
  for (Precision p : {Precision::kF32, Precision::kF64}) CHECK(parse_precision(to_string(p)) == p);
  CHECK(to_string(Op::kDct2) == "dct2");
  CHECK(to_string(Norm::kOrtho) == "ortho");
  CHECK(to_string(Axis::kCols) == "cols");
  CHECK(to_string(Precision::kF64) == "f64");
}

TEST_CASE("types: bad enum values are usage errors naming the value and the choices", "[core][types]") {
  auto e = error_of([] { parse_norm("orth"); });
  CHECK(e.code() == dct::ErrorCode::kUsage);
  CHECK(e.subject() == "--norm");
  CHECK_THAT(e.what(), Catch::Contains("'orth'") && Catch::Contains("none|backward|ortho|forward"));
  CHECK(error_of([] { parse_precision("f16"); }).code() == dct::ErrorCode::kUsage);
  CHECK(error_of([] { parse_axis(""); }).code() == dct::ErrorCode::kUsage);
  CHECK(error_of([] { parse_op("DCT2"); }).code() == dct::ErrorCode::kUsage);
}

TEST_CASE("types: shapes parse as HxW or N and print as HxW", "[core][types]") {
  CHECK(parse_shape("3x4") == Shape2{3, 4});
  CHECK(parse_shape("512X256") == Shape2{512, 256});
  CHECK(parse_shape("7") == Shape2{1, 7});
  CHECK(to_string(Shape2{16, 9}) == "16x9");
  CHECK(Shape2{16, 9}.count() == 144);
  for (const char* bad : {"0x4", "4x0", "3x", "x3", "axb", "-1x2", "3x4x5", "", "1.5x2"}) {
    INFO(bad);
    auto e = error_of([&] { parse_shape(bad); });
    CHECK(e.code() == dct::ErrorCode::kUsage);
    CHECK(e.subject() == "--shape");
  }
}

TEST_CASE("types: descriptors give output shapes, names, inverses and hashes", "[core][types]") {
  TransformDesc d;
  d.op = Op::kLot;
  d.shape = {16, 24};
  CHECK(d.out_shape() == Shape2{24, 32});
  d.op = Op::kIlot;
  CHECK(d.out_shape() == Shape2{8, 16});
  d.op = Op::kDct2;
  CHECK(d.out_shape() == Shape2{16, 24});

  TransformDesc e;
  e.op = Op::kDct2;
  e.norm = Norm::kOrtho;
  e.shape = {512, 512};
  e.batch = 3;
  CHECK(e.to_string() == "dct2 ortho both 512x512 x3 f32");
  e.block = 8;
  e.batch = 1;
  e.prec = Precision::kF64;
  CHECK(e.to_string() == "dct2 ortho both block8 512x512 f64");
  CHECK(e.elements() == 512 * 512);
  CHECK(e.bytes() == 512 * 512 * 8);

  TransformDesc f = e;
  CHECK(f == e);
  CHECK(TransformDescHash{}(f) == TransformDescHash{}(e));
  f.batch = 2;
  CHECK_FALSE(f == e);
  CHECK(TransformDescHash{}(f) != TransformDescHash{}(e));

  CHECK(inverse_of(Op::kDct2) == Op::kIdct2);
  CHECK(inverse_of(Op::kIdct4) == Op::kDct4);
  CHECK(inverse_of(Op::kLot) == Op::kIlot);
  CHECK(element_size(Precision::kF32) == 4);
  CHECK(element_size(Precision::kF64) == 8);
}

TEST_CASE("real-to-real descriptors: kinds, shapes and r2r_desc", "[core]") {
  using dct::core::R2rKind;
  CHECK(dct::core::parse_r2r_kind("dst3") == R2rKind::kDst3);
  CHECK(dct::core::to_string(R2rKind::kDct1) == "dct1");
  CHECK(dct::core::inverse_kind(R2rKind::kDct2) == R2rKind::kDct3);
  CHECK(dct::core::inverse_kind(R2rKind::kDst3) == R2rKind::kDst2);
  CHECK(dct::core::inverse_kind(R2rKind::kDst1) == R2rKind::kDst1);
  CHECK(dct::core::r2r_kind(true, 4) == R2rKind::kDst4);
  CHECK_THROWS_AS(dct::core::parse_r2r_kind("dct5"), dct::Error);
  CHECK_THROWS_AS(dct::core::parse_r2r_kind("-"), dct::Error);
  CHECK_THROWS_AS(dct::core::r2r_kind(false, 0), dct::Error);
  CHECK(dct::core::parse_norm("backward") == dct::core::Norm::kNone);
  CHECK(dct::core::parse_norm("forward") == dct::core::Norm::kForward);

  const dct::core::ShapeN s = dct::core::parse_shape_n("4x5x6");
  CHECK(s.rank == 3);
  CHECK(s.count() == 120);
  CHECK(s.to_string() == "4x5x6");
  CHECK(dct::core::parse_shape_n("7").rank == 1);
  CHECK_THROWS_AS(dct::core::parse_shape_n("1x2x3x4"), dct::Error);
  CHECK_THROWS_AS(dct::core::parse_shape_n("4x0"), dct::Error);

  dct::core::R2rSpec spec;
  spec.rank = 3;
  spec.dims = {4, 5, 6};
  spec.kinds = {R2rKind::kNone, R2rKind::kDct3, R2rKind::kDst3};
  spec.inverse = true;
  const auto d = dct::core::r2r_desc(spec, dct::core::Norm::kOrtho, 2, dct::core::Precision::kF64);
  CHECK(d.op == dct::core::Op::kR2r);
  CHECK(d.shape == dct::core::Shape2{20, 6});
  CHECK(d.elements() == 240);
  CHECK(d.out_shape() == d.shape);
  CHECK(d.to_string() == "ir2r -+dct3+dst3 ortho 4x5x6 x2 f64");
  auto e = d;
  e.r2r.kinds[2] = R2rKind::kDst2;
  CHECK_FALSE(e == d);
  CHECK(dct::core::TransformDescHash{}(e) != dct::core::TransformDescHash{}(d));
}
