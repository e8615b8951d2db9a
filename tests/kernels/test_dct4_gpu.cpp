// The CUDA DCT-IV backends (cuda-dct4-fft, cuda-dct4-direct, cuda-dct4-sec4, cuda-dct4-sec8, cuda-dct4-small) against
// the f64 oracle (cpu-naive where O(N^2) is cheap, cpu-fftw f64 otherwise): N in {1, 2, 3, 6, 15, 16, 17, 31, 100, 105,
// 286, 1000, 1001, 1024, 3375, 3840, 4096, 4097} (sectioned: 17 only; small: up to 63, and every N = 1 .. 63; odd
// smooth N also with odd numbers of rows), f32/f64, norms
// none/ortho, dct4 and idct4, axes rows/cols/both for cuda-dct4-fft, -direct and -small, batches up to 10^6 rows; fresh
// random inputs, outputs poisoned with NaN bytes on the device. Label gpu: needs a GPU. Also prints [3]'s error figure
// on the GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Axis;
using core::Norm;
using core::Op;
using core::Precision;

const std::vector<std::int64_t> kSizes = {1,   2,   3,   6,    8,    15,   16,   17,   31,   32,  64,
                                          100, 105, 286, 1000, 1001, 1024, 3375, 3840, 4096, 4097};
const char* const kBackends[] = {"cuda-dct4-fft", "cuda-dct4-direct", "cuda-dct4-sec4", "cuda-dct4-sec8",
                                 "cuda-dct4-small"};

// The f64 oracle: cpu-naive (long double, direct) where rows * N^2 is small, cpu-fftw in f64 otherwise.
core::HostTensor dct4_oracle(core::TransformDesc d, const core::HostTensor& in) {
  d.prec = Precision::kF64;
  const double work = static_cast<double>(d.elements()) * std::max(d.shape.rows, d.shape.cols);
  const core::Backend* b = app::registry().find(work <= 2e7 ? "cpu-naive" : "cpu-fftw");
  REQUIRE(b != nullptr);
  return test::run_backend(*b, d, in.to(Precision::kF64));
}

// execute() on device buffers with the output poisoned (0xFF bytes = NaN in both precisions).
core::HostTensor run_device(const core::Backend& b, const core::TransformDesc& d, const core::HostTensor& in) {
  return test::execute_on_device(*b.make_plan(d), b.runtime(), d, in);
}

std::uint64_t g_seed = 1;

// Runs one case; returns false (and counts it) when the backend does not support it.
bool check_case(const core::Backend& b, const core::TransformDesc& d, int& skipped) {
  if (const core::Support s = b.supports(d); !s) {
    ++skipped;
    return false;
  }
  const core::HostTensor in = test::random_tensor(d.shape, d.batch, d.prec, ++g_seed);
  const core::HostTensor got = run_device(b, d, in);
  const double err = test::rel_l2_finite(got, dct4_oracle(d, in));
  INFO(b.name() << " " << d.to_string() << ": rel L2 " << err);
  CHECK(err <= test::tol(d.prec));
  return true;
}

// cuda-dct4-fft's rows of odd N: 1 row, 7 rows and an odd count that leaves a CTA's last complex line with one row;
// f32/f64, forward and inverse; every case supported.
void check_odd_rows(const std::vector<std::int64_t>& sizes) {
  const core::Backend& b = test::usable_backend("cuda-dct4-fft");
  int ran = 0, skipped = 0;
  for (std::int64_t n : sizes)
    for (std::int64_t rows : {std::int64_t{1}, std::int64_t{7}, 2 * (4096 / n) + 1})
      for (Precision prec : {Precision::kF32, Precision::kF64})
        for (Op op : {Op::kDct4, Op::kIdct4}) {
          const Norm norm = (rows + n) % 4 == 0 ? Norm::kOrtho : Norm::kNone;
          ran += check_case(b, test::desc(op, norm, Axis::kRows, {rows, n}, 1, prec), skipped);
        }
  CHECK(skipped == 0);
  CHECK(ran > 0);
}

}  // namespace

TEST_CASE("cuda DCT-IV backends agree with the oracle along rows", "[gpu][dct4]") {
  const std::string name =
      GENERATE(as<std::string>{}, kBackends[0], kBackends[1], kBackends[2], kBackends[3], kBackends[4]);
  const core::Backend& b = test::usable_backend(name);
  int ran = 0, skipped = 0;
  for (std::int64_t n : kSizes)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (Norm norm : {Norm::kNone, Norm::kOrtho})
        for (Op op : {Op::kDct4, Op::kIdct4}) {
          // 4099 rows: the 128-line CTAs of N = 8 .. 32 (dct4_rows_short) end with a partial one.
          const std::int64_t rows = n <= 64 ? 4099 : (n <= 1024 ? 64 : 6);
          ran += check_case(b, test::desc(op, norm, Axis::kRows, {rows, n}, 2, prec), skipped);
        }
  WARN(name << ": " << ran << " row cases run, " << skipped << " unsupported (skipped)");
  CHECK(ran > 0);
}

// cuda-dct4-fft's rows of odd N of prime factors 3 .. 13 (one kernel, two rows per complex FFT): numbers of rows that
// leave a CTA's last complex line with one row, and one row alone.
TEST_CASE("cuda-dct4-fft: rows of odd smooth N, odd row counts", "[gpu][dct4]") {
  check_odd_rows({3, 5, 9, 35, 77, 143, 225, 1125, 2187, 5005});
}

// Rows of odd N with a prime factor above 13 (Bluestein's FFTs inside the same kernel where the FFT length fits a CTA:
// f32 N <= 6823, f64 <= 3217; cuFFT's passes above): primes, products with a large prime, both sides of the limits.
TEST_CASE("cuda-dct4-fft: rows of odd N with a large prime factor", "[gpu][dct4]") {
  check_odd_rows({17, 19, 23, 51, 127, 289, 1023, 2047, 3217, 3219, 4097, 6823, 6827});
}

TEST_CASE("cuda DCT-IV backends: 10^6 rows of small N", "[gpu][dct4][large]") {
  const std::string name =
      GENERATE(as<std::string>{}, kBackends[0], kBackends[1], kBackends[2], kBackends[3], kBackends[4]);
  const core::Backend& b = test::usable_backend(name);
  int ran = 0, skipped = 0;
  for (std::int64_t n : {1, 2, 3, 16, 17})
    for (Precision prec : {Precision::kF32, Precision::kF64})
      ran += check_case(b, test::desc(Op::kDct4, Norm::kOrtho, Axis::kRows, {1000000, n}, 1, prec), skipped);
  WARN(name << ": " << ran << " 10^6-row cases run, " << skipped << " unsupported (skipped)");
  CHECK(ran > 0);
}

TEST_CASE("cuda-dct4-fft, -direct and -small along columns and both axes", "[gpu][dct4]") {
  const std::string name = GENERATE(as<std::string>{}, kBackends[0], kBackends[1], kBackends[4]);
  const core::Backend& b = test::usable_backend(name);
  int ran = 0, skipped = 0;
  for (std::int64_t n : kSizes)
    for (Precision prec : {Precision::kF32, Precision::kF64})
      for (Norm norm : {Norm::kNone, Norm::kOrtho})
        for (Op op : {Op::kDct4, Op::kIdct4}) {
          const std::int64_t w = n <= 64 ? 333 : 5;
          ran += check_case(b, test::desc(op, norm, Axis::kCols, {n, w}, 2, prec), skipped);
          const std::int64_t other = n <= 64 ? 31 : 3;
          ran += check_case(b, test::desc(op, norm, Axis::kBoth, {n, other}, 2, prec), skipped);
          ran += check_case(b, test::desc(op, norm, Axis::kBoth, {other, n}, 1, prec), skipped);
        }
  WARN(name << ": " << ran << " column/both cases run, " << skipped << " unsupported (skipped)");
  CHECK(ran > 0);
}

TEST_CASE("cuda DCT-IV: inverse after forward through execute_host", "[gpu][dct4]") {
  const std::string name =
      GENERATE(as<std::string>{}, kBackends[0], kBackends[1], kBackends[2], kBackends[3], kBackends[4]);
  const core::Backend& b = test::usable_backend(name);
  for (Precision prec : {Precision::kF32, Precision::kF64})
    for (Norm norm : {Norm::kNone, Norm::kOrtho}) {
      const core::TransformDesc fwd = test::desc(Op::kDct4, norm, Axis::kRows, {1000, 17}, 3, prec);
      core::TransformDesc inv = fwd;
      inv.op = Op::kIdct4;
      const core::HostTensor x = test::random_tensor(fwd.shape, fwd.batch, prec, ++g_seed);
      const core::HostTensor back = test::run_backend(b, inv, test::run_backend(b, fwd, x));
      INFO(name << " " << fwd.to_string());
      CHECK(test::rel_l2_finite(back, x) <= test::tol(prec));
    }
}

TEST_CASE("cuda sectioned DCT-IV refuses N != 17 and other axes", "[gpu][dct4]") {
  for (const char* name : {"cuda-dct4-sec4", "cuda-dct4-sec8"}) {
    const core::Backend* b = app::registry().find(name);
    REQUIRE(b != nullptr);
    for (std::int64_t n : kSizes) {
      const core::TransformDesc d = test::desc(Op::kDct4, Norm::kNone, Axis::kRows, {4, n}, 1, Precision::kF32);
      CHECK(b->supports(d).ok == (n == 17));
    }
    CHECK_FALSE(b->supports(test::desc(Op::kDct4, Norm::kNone, Axis::kCols, {17, 17}, 1, Precision::kF32)).ok);
  }
}

TEST_CASE("Chiper-Dobrea error figure on the GPU: L2 error against the classical kernel over 1000 inputs",
          "[gpu][dct4][figure]") {
  // The paper's §5 check: 1000 random inputs in [-1, 1], L2 norm of (sectioned - classical); the classical
  // result is cuda-dct4-direct (f64 accumulation).
  const core::Backend& direct = test::usable_backend("cuda-dct4-direct");
  for (Precision prec : {Precision::kF64, Precision::kF32})
    for (const char* name : {"cuda-dct4-sec4", "cuda-dct4-sec8", "cuda-dct4-fft"}) {
      const core::Backend& b = test::usable_backend(name);
      const core::TransformDesc d = test::desc(Op::kDct4, Norm::kNone, Axis::kRows, {1000, 17}, 1, prec);
      const core::HostTensor in = test::random_tensor(d.shape, d.batch, prec, 2024);
      const core::HostTensor got = run_device(b, d, in), ref = run_device(direct, d, in);
      double worst = 0, sum = 0;
      for (int t = 0; t < 1000; ++t) {
        long double e2 = 0;
        for (int k = 0; k < 17; ++k) {
          const long double diff = static_cast<long double>(got.get(t * 17 + k)) - ref.get(t * 17 + k);
          e2 += diff * diff;
        }
        const double e = static_cast<double>(std::sqrt(e2));
        worst = std::max(worst, e);
        sum += e;
      }
      std::cout << "seed003-error-gpu " << name << " " << core::to_string(prec)
                << ": L2 error vs classical over 1000 inputs: mean " << sum / 1000 << " max " << worst << "\n";
      CHECK(worst <= (prec == Precision::kF64 ? 1e-12 : 3e-4));
    }
}

// The short-line kernel at every length it takes, each layout: rows (a last tile partly filled), columns (widths that
// leave a partial tile of columns), both axes; against the oracle, f32 and f64.
TEST_CASE("cuda-dct4-small at every N = 1 .. 63 along rows, columns and both", "[gpu][dct4]") {
  const core::Backend& b = test::usable_backend("cuda-dct4-small");
  int ran = 0, skipped = 0;
  for (std::int64_t n = 1; n <= 63; ++n)
    for (Precision prec : {Precision::kF32, Precision::kF64}) {
      const Norm norm = n % 2 ? Norm::kOrtho : Norm::kNone;
      const Op op = n % 3 ? Op::kDct4 : Op::kIdct4;
      ran += check_case(b, test::desc(op, norm, Axis::kRows, {1000 + n, n}, 3, prec), skipped);
      ran += check_case(b, test::desc(op, norm, Axis::kCols, {n, 100 + n}, 2, prec), skipped);
      ran += check_case(b, test::desc(op, norm, Axis::kBoth, {n, 64 - n}, 2, prec), skipped);
    }
  CHECK(skipped == 0);
  CHECK(ran == 63 * 2 * 3);
  CHECK_FALSE(b.supports(test::desc(Op::kDct4, Norm::kNone, Axis::kRows, {4, 64}, 1, Precision::kF32)));
  CHECK_FALSE(b.supports(test::desc(Op::kDct4, Norm::kNone, Axis::kCols, {64, 4}, 1, Precision::kF32)));
}
