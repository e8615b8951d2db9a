// HostTensor storage, conversion and channel extraction (core/tensor).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "core/tensor.hpp"

using namespace dct::core;

TEST_CASE("tensor: zero-filled, 64-byte aligned, sized by shape x channels x precision", "[core][tensor]") {
  HostTensor t(Shape2{3, 5}, 2, Precision::kF64);
  CHECK(t.rows() == 3);
  CHECK(t.cols() == 5);
  CHECK(t.channels() == 2);
  CHECK(t.elements() == 30);
  CHECK(t.bytes() == 240);
  CHECK(reinterpret_cast<std::uintptr_t>(t.raw()) % 64 == 0);
  for (std::int64_t i = 0; i < t.elements(); ++i) CHECK(t.get(i) == 0.0);
  CHECK(HostTensor().empty());
  CHECK_FALSE(t.empty());
}

TEST_CASE("tensor: to() converts precision into an independent copy", "[core][tensor]") {
  HostTensor t(Shape2{2, 2}, 1, Precision::kF64);
  t.set(0, 0.1);
  t.set(1, -2.5);
  t.set(2, 1e300);
  t.set(3, 3.0);
  HostTensor f = t.to(Precision::kF32);
  CHECK(f.precision() == Precision::kF32);
  CHECK(f.shape() == t.shape());
  CHECK(f.data<float>()[0] == 0.1f);
  CHECK(f.data<float>()[1] == -2.5f);
  CHECK(std::isinf(f.data<float>()[2]));
  HostTensor back = f.to(Precision::kF64);
  CHECK(back.get(0) == static_cast<double>(0.1f));

  HostTensor same = t.to(Precision::kF64);
  CHECK(same.raw() != t.raw());
  same.set(3, 9.0);
  CHECK(t.get(3) == 3.0);
  HostTensor c = t.clone();
  c.set(0, 42.0);
  CHECK(t.get(0) == 0.1);
}

TEST_CASE("tensor: channel(c) copies plane c", "[core][tensor]") {
  HostTensor t(Shape2{2, 3}, 3, Precision::kF32);
  for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, static_cast<double>(i));
  for (std::int64_t c = 0; c < 3; ++c) {
    HostTensor p = t.channel(c);
    REQUIRE(p.channels() == 1);
    REQUIRE(p.shape() == t.shape());
    for (std::int64_t i = 0; i < 6; ++i) CHECK(p.get(i) == static_cast<double>(c * 6 + i));
  }
  HostTensor p = t.channel(1);
  p.set(0, -1.0);
  CHECK(t.get(6) == 6.0);
  auto v = t.view();
  CHECK(v.batch == 3);
  CHECK(v.bytes() == t.bytes());
}
