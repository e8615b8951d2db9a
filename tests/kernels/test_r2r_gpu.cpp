// cuda-r2r (the real-to-real family on the GPU) against cpu-fftw in f64 on arrays larger than the conformance
// shapes: the three-stage N-D route (2-D and 3-D runs of one family, dst axes mixed in), the line route along every
// axis (strided and contiguous; DCT-II/III and DST-II/III axes of smooth lengths by one smooth-lines kernel, DCT-I and
// DST-I axes by one dct1_lines kernel, of smooth FFT length or by Bluestein's), 1-D
// vectors, batches, odd, prime and power-of-two extents, random kinds, axes, directions and norms (seeded); every
// norm where the run goes through cuda-fft2d's engine (2-D DCT-II/III, also batched, and the DST-II/III and DCT/DST
// mixes it computes with signs and reversals folded in, on each of its routes). Outputs poisoned with NaN bytes on the
// device. Label gpu: needs a GPU.
#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "core/backend.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Norm;
using core::Precision;
using core::R2rKind;

constexpr R2rKind kKinds[] = {R2rKind::kDct1, R2rKind::kDct2, R2rKind::kDct3, R2rKind::kDct4,
                              R2rKind::kDst1, R2rKind::kDst2, R2rKind::kDst3, R2rKind::kDst4};

struct Shape {
  int rank;
  std::array<std::int64_t, 3> dims;
  std::int64_t batch;
};

void check(const core::R2rSpec& s, Norm norm, std::int64_t batch, Precision prec, std::uint64_t seed,
           core::Effort effort = core::Effort::kEstimate) {
  const core::Backend& gpu = test::usable_backend("cuda-r2r");
  const core::Backend& ref = test::backend("cpu-fftw");
  core::TransformDesc d = core::r2r_desc(s, norm, batch, prec);
  d.effort = effort;
  REQUIRE(gpu.supports(d).ok);
  const core::HostTensor in = test::random_tensor(d.shape, d.batch, d.prec, seed);
  const core::HostTensor got = test::execute_on_device(*gpu.make_plan(d), gpu.runtime(), d, in);
  core::TransformDesc d64 = d;
  d64.prec = Precision::kF64;
  const core::HostTensor want = test::run_backend(ref, d64, in.to(Precision::kF64));
  const double err = test::rel_l2_finite(got.to(Precision::kF64), want);
  INFO(d.to_string() << " kinds " << s.kinds_text() << (s.inverse ? " inverse" : "") << ": rel L2 " << err);
  CHECK(err <= test::tol(prec));
}

core::R2rSpec spec(const Shape& sh, std::array<R2rKind, 3> kinds, bool inverse) {
  core::R2rSpec s;
  s.rank = sh.rank;
  for (int a = 0; a < sh.rank; ++a) s.dims[a] = sh.dims[a], s.kinds[a] = kinds[a];
  s.inverse = inverse;
  return s;
}

}  // namespace

// 3-D forward runs with a side other than a power of two take the split (cuda-fft2d's engine on the last two axes, a
// smooth line kernel down the first), and so do f32 ones whose trailing sides take the engine's smooth route (4 x 128 x
// 256); the other powers of two and the inverse family, the N-D step.
TEST_CASE("cuda-r2r: the N-D three-stage route (or the 3-D split) on 2-D and 3-D arrays equals cpu-fftw",
          "[gpu][r2r]") {
  const std::vector<Shape> shapes = {
      {3, {64, 48, 40}, 1}, {3, {33, 17, 50}, 2},  {2, {240, 240}, 3},   {2, {1080, 193}, 1}, {3, {2, 128, 3}, 1},
      {2, {2, 2}, 4},       {3, {96, 120, 64}, 1}, {3, {5, 81, 100}, 2}, {3, {16, 8, 32}, 2}, {3, {4, 128, 256}, 1}};
  std::uint64_t seed = 2800;
  for (const Shape& sh : shapes)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (bool inverse : {false, true})
        for (unsigned mask = 0; mask < (1u << sh.rank); ++mask) {  // dst on the axes of the mask
          std::array<R2rKind, 3> kinds{};
          for (int a = 0; a < sh.rank; ++a) kinds[a] = (mask >> a) & 1 ? R2rKind::kDst2 : R2rKind::kDct2;
          for (Norm norm : {Norm::kNone, Norm::kOrtho, Norm::kForward}) {
            if (mask != 0 && norm != static_cast<Norm>(seed % 3)) continue;  // every norm on the all-DCT run
            check(spec(sh, kinds, inverse), norm, sh.batch, prec, ++seed);
            // the family of type III (scipy's dct/dst type 3), run forward
            std::array<R2rKind, 3> k3 = kinds;
            for (int a = 0; a < sh.rank; ++a) k3[a] = core::inverse_kind(kinds[a]);
            check(spec(sh, k3, !inverse), norm, sh.batch, prec, ++seed);
          }
        }
}

TEST_CASE("cuda-r2r: every kind along every axis, random mixes, 1-D vectors", "[gpu][r2r]") {
  // Strided lines both ways: interleaved buffers ({31, 256}, {16, 24, 35}) and the tiled gather (fewer than 16 inner,
  // a line FFT of more than 1024 points: {2003, 40}, more than 64 outer blocks: {70, 33, 20}).
  const std::vector<Shape> shapes = {{1, {4097}, 2},       {1, {1000}, 1},       {2, {31, 256}, 2},
                                     {2, {1024, 9}, 1},    {3, {16, 24, 35}, 1}, {3, {7, 64, 2}, 2},
                                     {3, {1, 100, 13}, 1}, {2, {2003, 40}, 1},   {3, {70, 33, 20}, 1}};
  std::mt19937_64 rng(28);
  std::uint64_t seed = 2900;
  for (const Shape& sh : shapes)
    for (Precision prec : {Precision::kF32, Precision::kF64}) {
      for (R2rKind k : kKinds)  // one kind along each axis alone
        for (int a = 0; a < sh.rank; ++a) {
          if (k == R2rKind::kDct1 && sh.dims[a] < 2) continue;
          std::array<R2rKind, 3> kinds{};
          kinds[a] = k;
          check(spec(sh, kinds, rng() % 2 == 1), static_cast<Norm>(rng() % 3), sh.batch, prec, ++seed);
        }
      for (int t = 0; t < 12; ++t) {  // random kinds on random axis sets
        std::array<R2rKind, 3> kinds{};
        int used = 0;
        for (int a = 0; a < sh.rank; ++a)
          if (rng() % 3 != 0) {
            kinds[a] = kKinds[rng() % 8];
            if (kinds[a] == R2rKind::kDct1 && sh.dims[a] < 2) kinds[a] = R2rKind::kDct2;
            ++used;
          }
        if (used == 0) kinds[sh.rank - 1] = R2rKind::kDst4;
        check(spec(sh, kinds, rng() % 2 == 1), static_cast<Norm>(rng() % 3), sh.batch, prec, ++seed);
      }
    }
}

TEST_CASE("cuda-r2r: DCT-I and DST-I axes whose FFT length is smooth (one kernel per axis), every norm", "[gpu][r2r]") {
  // The FFT length M is n − 1 (DCT-I) or n + 1 (DST-I); these shapes give smooth M on every axis of the kind (rows
  // and down the columns, strided middle axes, batches, n = 2 and 1, CTAs of one to 256 lines; even M >= 4 by the
  // even/odd split, up to M = 8192, whose f64 lines fit no CTA), and 4096² the size of the benchmark (M = 4095 =
  // 3²·5·7·13).
  struct Case {
    Shape sh;
    R2rKind kind;
  };
  const std::vector<Case> cases = {{{2, {4097, 65}, 1}, R2rKind::kDct1},   {{2, {33, 1025}, 2}, R2rKind::kDct1},
                                   {{2, {1001, 241}, 1}, R2rKind::kDct1},  {{3, {9, 17, 129}, 1}, R2rKind::kDct1},
                                   {{2, {2, 3}, 3}, R2rKind::kDct1},       {{1, {4097}, 2}, R2rKind::kDct1},
                                   {{2, {63, 1023}, 1}, R2rKind::kDst1},   {{2, {4095, 7}, 1}, R2rKind::kDst1},
                                   {{3, {11, 99, 14}, 2}, R2rKind::kDst1}, {{2, {1, 239}, 4}, R2rKind::kDst1},
                                   {{2, {8193, 5}, 1}, R2rKind::kDct1},    {{2, {3, 8193}, 1}, R2rKind::kDct1},
                                   {{2, {8191, 3}, 1}, R2rKind::kDst1},    {{2, {4096, 4096}, 1}, R2rKind::kDct1}};
  std::uint64_t seed = 3050;
  for (const Case& c : cases)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (bool inverse : {false, true})
        for (Norm norm : {Norm::kNone, Norm::kOrtho, Norm::kForward}) {
          if (c.sh.dims[0] == 4096 && (prec == Precision::kF64 || inverse || norm != Norm::kOrtho)) continue;
          std::array<R2rKind, 3> kinds{};
          for (int a = 0; a < c.sh.rank; ++a) kinds[a] = c.kind;
          check(spec(c.sh, kinds, inverse), norm, c.sh.batch, prec, ++seed);
        }
}

TEST_CASE("cuda-r2r: DCT-I and DST-I axes whose FFT length has a prime factor above 13 (Bluestein's in the kernel)",
          "[gpu][r2r]") {
  // M = n − 1 (DCT-I) or n + 1 (DST-I) not smooth: where smooth::bluestein_pays, dct1_lines computes FFT_M by
  // Bluestein's through two FFTs of a smooth Lb >= 2M − 1: rows and down the columns (2048 x 48: M = 2047 = 23·89 and
  // 47; 1080 x 1920: 1079 = 13·83 and 1919 = 19·101), DST-I of 4096 (M = 4097 = 17·241, f32; f64's Lb fits no CTA)
  // along rows and columns, f64 M = 3218 (the largest whose Lb fits) and f32 6824; beside them the line step for M
  // the rule leaves to cuFFT (17, 19, 34, 37, 3219) or whose Lb does not fit (f64 4097, 6824; 6826).
  struct Case {
    Shape sh;
    R2rKind kind;
  };
  const std::vector<Case> cases = {{{2, {2048, 48}, 1}, R2rKind::kDct1},   {{2, {1080, 1920}, 1}, R2rKind::kDct1},
                                   {{3, {18, 20, 35}, 2}, R2rKind::kDct1}, {{2, {16, 36}, 3}, R2rKind::kDst1},
                                   {{2, {3, 4096}, 2}, R2rKind::kDst1},    {{2, {4096, 5}, 1}, R2rKind::kDst1},
                                   {{2, {3219, 3}, 1}, R2rKind::kDct1},    {{2, {2, 3220}, 1}, R2rKind::kDct1},
                                   {{1, {6825}, 2}, R2rKind::kDct1},       {{1, {6825}, 1}, R2rKind::kDst1}};
  std::uint64_t seed = 3200;
  for (const Case& c : cases)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (bool inverse : {false, true})
        for (Norm norm : {Norm::kNone, Norm::kOrtho, Norm::kForward}) {
          if (c.sh.dims[0] == 1080 && (inverse ? norm == Norm::kNone : norm == Norm::kForward)) continue;
          std::array<R2rKind, 3> kinds{};
          for (int a = 0; a < c.sh.rank; ++a) kinds[a] = c.kind;
          check(spec(c.sh, kinds, inverse), norm, c.sh.batch, prec, ++seed);
        }
}

TEST_CASE("cuda-r2r: DCT-II/III runs planned with --effort measure (the faster engine route, or the 3-D split)",
          "[gpu][r2r]") {
  const std::vector<Shape> shapes = {
      {3, {3, 240, 240}, 1}, {2, {1080, 193}, 1}, {2, {250, 96}, 2}, {3, {24, 40, 36}, 1}, {3, {16, 32, 64}, 2}};
  std::uint64_t seed = 3000;
  for (const Shape& sh : shapes)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (bool inverse : {false, true})
        for (Norm norm : {Norm::kNone, Norm::kOrtho}) {
          std::array<R2rKind, 3> kinds{};
          kinds[sh.rank - 1] = kinds[sh.rank - 2] = R2rKind::kDct2;
          if (sh.rank == 3 && sh.dims[0] != 3) kinds[0] = sh.batch == 1 ? R2rKind::kDct2 : R2rKind::kDst2;  // a 3-D run
          check(spec(sh, kinds, inverse), norm, sh.batch, prec, ++seed, core::Effort::kMeasure);
        }
}

TEST_CASE("cuda-r2r: 2-D DST-II/III runs (and DCT/DST mixes) through cuda-fft2d's engine on its every route",
          "[gpu][r2r]") {
  // Rows route with cuFFT's column stage (96 x 256), with ColumnFft unfused (2048 x 64, 4096 x 32, 1024 x 64 twice),
  // the r2c route (250 x 96), the tiles route of batches (33 x 128 twice, 45 x 30 three times, 3 x 64 x 128 with the
  // first axis untransformed), the smooth route (240 x 360: both sides have compiled smooth kernels; 2053 x 24 and
  // 16 x 4097: a side by Bluestein's FFT, f64 and f32 respectively); every mask of DST axes, both families (the type
  // III run forward too: the unnormalized DCT-III), all three norms, both directions.
  const std::vector<Shape> shapes = {{2, {96, 256}, 1},    {2, {33, 128}, 2},  {2, {2048, 64}, 1},
                                     {2, {4096, 32}, 1},   {2, {250, 96}, 1},  {2, {45, 30}, 3},
                                     {3, {3, 64, 128}, 1}, {2, {240, 360}, 1}, {2, {1024, 64}, 2},
                                     {2, {2053, 24}, 1},   {2, {16, 4097}, 1}};
  std::uint64_t seed = 3100;
  for (const Shape& sh : shapes)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (bool inverse : {false, true})
        for (unsigned mask = 1; mask < 4; ++mask)
          for (bool type3 : {false, true})
            for (Norm norm : {Norm::kNone, Norm::kOrtho, Norm::kForward}) {
              std::array<R2rKind, 3> kinds{};
              for (int b = 0; b < 2; ++b) {
                const R2rKind k = (mask >> b) & 1 ? R2rKind::kDst2 : R2rKind::kDct2;
                kinds[sh.rank - 2 + b] = type3 ? core::inverse_kind(k) : k;
              }
              check(spec(sh, kinds, inverse), norm, sh.batch, prec, ++seed);
            }
}

TEST_CASE(
    "cuda-r2r: DCT-II/III and DST-II/III along one smooth axis (one smooth-lines kernel) and batched 2-D runs, "
    "every norm",
    "[gpu][r2r]") {
  // One axis alone: contiguous lines, and down the columns of the trailing axes (strided).
  const std::vector<Shape> shapes = {{1, {1000}, 2}, {2, {96, 120}, 1}, {3, {12, 35, 64}, 1}, {2, {2, 4096}, 1}};
  std::uint64_t seed = 3100;
  for (const Shape& sh : shapes)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (int a = 0; a < sh.rank; ++a)
        for (R2rKind k : {R2rKind::kDct2, R2rKind::kDct3, R2rKind::kDst2, R2rKind::kDst3})
          for (bool inverse : {false, true})
            for (Norm norm : {Norm::kNone, Norm::kOrtho, Norm::kForward}) {
              std::array<R2rKind, 3> kinds{};
              kinds[a] = k;
              check(spec(sh, kinds, inverse), norm, sh.batch, prec, ++seed);
            }
  // A batch of power-of-two matrices through cuda-fft2d's engine (its r2c route: no per-matrix column launches).
  const std::vector<Shape> batches = {{3, {16, 64, 64}, 1}, {2, {128, 256}, 3}, {3, {5, 2048, 32}, 1}};
  for (const Shape& sh : batches)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (bool inverse : {false, true})
        for (Norm norm : {Norm::kNone, Norm::kOrtho, Norm::kForward}) {
          std::array<R2rKind, 3> kinds{};
          kinds[sh.rank - 1] = kinds[sh.rank - 2] = R2rKind::kDct2;
          check(spec(sh, kinds, inverse), norm, sh.batch, prec, ++seed);
        }
}
