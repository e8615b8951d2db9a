// MSE, PSNR, relative L2, max errors and zeroth-order entropy (core/metrics).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/metrics.hpp"

using namespace dct::core;

namespace {

HostTensor from(std::vector<double> v, Precision p = Precision::kF64, std::int64_t channels = 1) {
  const std::int64_t per = static_cast<std::int64_t>(v.size()) / channels;
  HostTensor t(Shape2{1, per}, channels, p);
  for (std::size_t i = 0; i < v.size(); ++i) t.set(static_cast<std::int64_t>(i), v[i]);
  return t;
}

}  // namespace

TEST_CASE("metrics: mse, max errors and psnr on known values", "[core][metrics]") {
  const HostTensor a = from({1, 2, 3, 4});
  const HostTensor b = from({1, 4, 3, 0}, Precision::kF32);
  CHECK(mse(a, b) == Approx((0 + 4 + 0 + 16) / 4.0));
  CHECK(max_abs_error(a, b) == 4.0);
  CHECK(max_abs(a) == 4.0);
  CHECK(max_abs(from({-7, 2})) == 7.0);
  CHECK(mse(a, a) == 0.0);
  CHECK(psnr_db(0.0, 255) == std::numeric_limits<double>::infinity());
  CHECK(psnr_db(1.0, 255) == Approx(20 * std::log10(255.0)));
  CHECK(psnr_db(34.1, 255) == Approx(32.80).epsilon(1e-3));
}

TEST_CASE("metrics: different shapes or channel counts are input errors", "[core][metrics]") {
  const HostTensor a = from({1, 2, 3, 4});
  const HostTensor b = from({1, 2, 3});
  const HostTensor c = from({1, 2, 3, 4}, Precision::kF64, 2);
  for (const HostTensor* other : {&b, &c}) {
    try {
      mse(a, *other);
      FAIL("no error");
    } catch (const dct::Error& e) {
      CHECK(e.code() == dct::ErrorCode::kInput);
      CHECK_THAT(e.what(), Catch::Contains("shape mismatch"));
    }
  }
  CHECK_THROWS_AS(relative_l2(a, b), dct::Error);
  CHECK_THROWS_AS(max_abs_error(a, c), dct::Error);
}

TEST_CASE("metrics: relative_l2 against a reference, and against zeros", "[core][metrics]") {
  const HostTensor ref = from({3, 4});
  CHECK(relative_l2(from({3, 4}), ref) == 0.0);
  CHECK(relative_l2(from({3, 5}), ref) == Approx(1.0 / 5.0));
  CHECK(relative_l2(from({0, 0}), ref) == Approx(1.0));
  CHECK(relative_l2(from({3, 4}), from({0, 0})) == Approx(5.0));
}

TEST_CASE("metrics: zeroth-order entropy in bits per symbol", "[core][metrics]") {
  CHECK(entropy_bits(std::vector<std::int32_t>{}) == 0.0);
  CHECK(entropy_bits(std::vector<std::int32_t>{5, 5, 5, 5}) == 0.0);
  CHECK(entropy_bits(std::vector<std::int32_t>{0, 1, 2, 3}) == Approx(2.0));
  CHECK(entropy_bits(std::vector<std::int32_t>{-1, 1}) == Approx(1.0));
  // p = (1/2, 1/4, 1/4): H = 1.5 bits.
  CHECK(entropy_bits(std::vector<std::int32_t>{7, 7, -3, 100000}) == Approx(1.5));
}
