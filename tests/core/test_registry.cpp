// Backend selection (core/registry) and the plan cache (core/plan_cache) with fake backends and runtimes.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/plan_cache.hpp"
#include "core/registry.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::test::error_of;

namespace {

class FakeRuntime final : public Runtime {
 public:
  explicit FakeRuntime(bool usable) : usable_(usable) {}
  std::string_view name() const override { return "fake"; }
  Memory memory() const override { return Memory::kHost; }
  Support usable() const override { return usable_ ? Support::yes() : Support::no("no fake device"); }
  std::string device_name() const override { return "fake device"; }
  std::size_t cache_bytes() const override { return 0; }
  std::unique_ptr<Buffer> allocate(std::size_t) const override { return nullptr; }
  void upload(Buffer&, const void*, std::size_t) const override {}
  void download(void*, const Buffer&, std::size_t) const override {}
  void copy(Buffer&, const Buffer&, std::size_t, Stream) const override {}
  void fill_bytes(Buffer&, unsigned char) const override {}
  std::unique_ptr<Timer> make_timer() const override { return nullptr; }
  void synchronize() const override {}
  std::unique_ptr<Plan> make_baseline(Baseline, Shape2, std::int64_t, Precision, Effort) const override {
    return nullptr;
  }

 private:
  bool usable_;
};

class FakePlan final : public Plan {
 public:
  explicit FakePlan(const TransformDesc& d) : desc_(d) {}
  const TransformDesc& desc() const override { return desc_; }
  Memory memory() const override { return Memory::kHost; }
  void execute(ConstView, View, Stream) const override {}

 private:
  TransformDesc desc_;
};

// Supports every shape, or only 8x8 when `only8` is set; counts the plans it makes.
class FakeBackend final : public Backend {
 public:
  FakeBackend(std::string name, bool usable, bool only8, std::vector<Op> ops = {Op::kDct2, Op::kIdct2})
      : name_(std::move(name)), runtime_(usable), only8_(only8), ops_(std::move(ops)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "fake"; }
  std::vector<Op> ops() const override { return ops_; }
  std::string_view sizes() const override { return only8_ ? "8x8" : "any"; }
  const Runtime& runtime() const override { return runtime_; }
  Support supports(const TransformDesc& d) const override {
    if (only8_ && d.shape != Shape2{8, 8}) return Support::no("only 8x8");
    return Support::yes();
  }
  std::unique_ptr<Plan> make_plan(const TransformDesc& d) const override {
    ++plans_made;
    return std::make_unique<FakePlan>(d);
  }
  mutable int plans_made = 0;

 private:
  std::string name_;
  FakeRuntime runtime_;
  bool only8_;
  std::vector<Op> ops_;
};

TransformDesc desc_of(Shape2 s, Op op = Op::kDct2) {
  TransformDesc d;
  d.op = op;
  d.shape = s;
  return d;
}

// gpu-fake (unusable here), cpu-8x8 (8x8 only), cpu-any, oracle (not auto-eligible).
Registry make_registry() {
  Registry r;
  r.add(std::make_unique<FakeBackend>("gpu-fake", false, false));
  r.add(std::make_unique<FakeBackend>("cpu-8x8", true, true));
  r.add(std::make_unique<FakeBackend>("cpu-any", true, false, std::vector<Op>{Op::kDct2, Op::kDct4}));
  r.add(std::make_unique<FakeBackend>("oracle", true, false), /*auto_eligible=*/false);
  return r;
}

}  // namespace

TEST_CASE("registry: lists backends in insertion order and finds them by name", "[core][registry]") {
  const Registry r = make_registry();
  REQUIRE(r.all().size() == 4);
  CHECK(r.all()[0]->name() == "gpu-fake");
  CHECK(r.all()[3]->name() == "oracle");
  REQUIRE(r.find("cpu-any") != nullptr);
  CHECK(r.find("cpu-any")->name() == "cpu-any");
  CHECK(r.find("nope") == nullptr);
  CHECK(r.auto_eligible(*r.find("cpu-any")));
  CHECK_FALSE(r.auto_eligible(*r.find("oracle")));
}

TEST_CASE("registry: an unknown backend name is a usage error listing the known ones", "[core][registry]") {
  const Registry r = make_registry();
  auto e = error_of([&] { r.select(desc_of({8, 8}), "cuda-magic"); });
  CHECK(e.code() == dct::ErrorCode::kUsage);
  CHECK_THAT(e.what(), Catch::Contains("cuda-magic") && Catch::Contains("cpu-8x8") && Catch::Contains("oracle"));
}

TEST_CASE("registry: a named backend that cannot run the request is unsupported, with the reason", "[core][registry]") {
  const Registry r = make_registry();
  auto e = error_of([&] { r.select(desc_of({16, 16}), "cpu-8x8"); });
  CHECK(e.code() == dct::ErrorCode::kUnsupported);
  CHECK(e.subject() == "cpu-8x8");
  CHECK_THAT(e.what(), Catch::Contains("only 8x8"));

  auto g = error_of([&] { r.select(desc_of({8, 8}), "gpu-fake"); });
  CHECK(g.code() == dct::ErrorCode::kUnsupported);
  CHECK_THAT(g.what(), Catch::Contains("no fake device"));

  CHECK(r.select(desc_of({16, 16}), "oracle").name() == "oracle");
  CHECK(r.select(desc_of({8, 8}), "cpu-8x8").name() == "cpu-8x8");
}

TEST_CASE("registry: auto takes the first usable, supporting, auto-eligible backend", "[core][registry]") {
  const Registry r = make_registry();
  CHECK(r.select(desc_of({8, 8}), "auto").name() == "cpu-8x8");
  CHECK(r.select(desc_of({16, 16}), "auto").name() == "cpu-any");

  Registry only_oracle;
  only_oracle.add(std::make_unique<FakeBackend>("gpu-fake", false, false));
  only_oracle.add(std::make_unique<FakeBackend>("cpu-8x8", true, true));
  only_oracle.add(std::make_unique<FakeBackend>("oracle", true, false), false);
  auto e = error_of([&] { only_oracle.select(desc_of({16, 16}), "auto"); });
  CHECK(e.code() == dct::ErrorCode::kUnsupported);
  CHECK_THAT(e.what(), Catch::Contains("gpu-fake: no fake device") && Catch::Contains("cpu-8x8: only 8x8"));
  CHECK_THAT(e.what(), !Catch::Contains("oracle"));
}

TEST_CASE("registry: usable_for keeps table order and drops unusable or non-listing backends", "[core][registry]") {
  const Registry r = make_registry();
  auto dct2 = r.usable_for(Op::kDct2);
  REQUIRE(dct2.size() >= 2);
  CHECK(dct2[0]->name() == "cpu-8x8");
  CHECK(dct2[1]->name() == "cpu-any");
  for (const auto* b : dct2) CHECK(b->name() != "gpu-fake");
  auto dct4 = r.usable_for(Op::kDct4);
  REQUIRE(dct4.size() == 1);
  CHECK(dct4[0]->name() == "cpu-any");
  CHECK(r.usable_for(Op::kLot).empty());
}

TEST_CASE("plan cache: hits reuse the plan, keys include descriptor, backend and device", "[core][plan_cache]") {
  FakeBackend a("a", true, false), b("b", true, false);
  PlanCache cache(8);
  auto p1 = cache.get(a, desc_of({8, 8}));
  auto p2 = cache.get(a, desc_of({8, 8}));
  CHECK(p1 == p2);
  CHECK(a.plans_made == 1);
  CHECK(cache.hits() == 1);
  CHECK(cache.misses() == 1);

  auto p3 = cache.get(b, desc_of({8, 8}));
  auto p4 = cache.get(a, desc_of({8, 8}), /*device=*/1);
  auto p5 = cache.get(a, desc_of({8, 8}, Op::kIdct2));
  CHECK(p3 != p1);
  CHECK(p4 != p1);
  CHECK(p5 != p1);
  CHECK(p5->desc().op == Op::kIdct2);
  CHECK(cache.misses() == 4);
  CHECK(cache.size() == 4);
}

TEST_CASE("plan cache: bounded, evicting the least recently used", "[core][plan_cache]") {
  FakeBackend a("a", true, false);
  PlanCache cache(2);
  auto pa = cache.get(a, desc_of({1, 1}));
  cache.get(a, desc_of({2, 2}));
  cache.get(a, desc_of({1, 1}));  // refreshes 1x1
  cache.get(a, desc_of({3, 3}));  // evicts 2x2
  CHECK(cache.size() == 2);
  CHECK(a.plans_made == 3);

  auto again = cache.get(a, desc_of({1, 1}));
  CHECK(again == pa);
  CHECK(a.plans_made == 3);
  cache.get(a, desc_of({2, 2}));
  CHECK(a.plans_made == 4);

  for (int n = 4; n < 14; ++n) {
    cache.get(a, desc_of({n, n}));
    CHECK(cache.size() <= 2);
  }
  CHECK(pa->desc().shape == Shape2{1, 1});  // an evicted plan stays alive while held
  CHECK(cache.hits() + cache.misses() == 16);
}
