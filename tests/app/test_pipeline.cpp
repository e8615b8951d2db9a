// app/pipeline.hpp: both shapes (reader, worker and writer threads joined by queues; every stage of an input inline
// on one thread) give each (input, value) exactly one result, call worker_init once per worker with its number, take
// indices from next_index when set, and rethrow a stage's exception after taking no more inputs.
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include <catch2/catch.hpp>

#include "app/pipeline.hpp"

namespace {

using dct::app::PipelineShape;
using dct::app::run_pipeline;

using Value = std::pair<std::int64_t, int>;  // (input, which of its two values)

struct Seen {
  std::mutex mu;
  std::map<Value, int> results;                      // how often each (input, k) was written
  std::map<std::int64_t, std::thread::id> read_on;   // the thread that read each input
  std::map<Value, std::thread::id> worked_on, written_on;
  std::multiset<int> inits;
};

PipelineShape shape_of(bool inline_stages) {
  PipelineShape s;
  s.readers = s.workers = s.writers = 3;
  s.depth = 4;
  s.inline_stages = inline_stages;
  return s;
}

void run(std::int64_t n, PipelineShape shape, Seen& seen, std::int64_t throw_at = -1) {
  shape.worker_init = [&](int k) {
    std::lock_guard<std::mutex> lock(seen.mu);
    seen.inits.insert(k);
  };
  run_pipeline<Value, Value>(
      n, shape,
      [&](std::int64_t i, const std::function<void(Value&&)>& emit) {
        {
          std::lock_guard<std::mutex> lock(seen.mu);
          seen.read_on[i] = std::this_thread::get_id();
        }
        if (i == throw_at) throw std::runtime_error("stage failed");
        emit(Value{i, 0});
        emit(Value{i, 1});
      },
      [&](Value&& v, const std::function<void(Value&&)>& emit) {
        {
          std::lock_guard<std::mutex> lock(seen.mu);
          seen.worked_on[v] = std::this_thread::get_id();
        }
        emit(std::move(v));
      },
      [&](Value&& v) {
        std::lock_guard<std::mutex> lock(seen.mu);
        ++seen.results[v];
        seen.written_on[v] = std::this_thread::get_id();
      });
}

}  // namespace

TEST_CASE("pipeline: every value once, in both shapes", "[app][pipeline]") {
  for (const bool inline_stages : {false, true}) {
    INFO((inline_stages ? "inline stages" : "three stages"));
    Seen seen;
    run(100, shape_of(inline_stages), seen);
    REQUIRE(seen.results.size() == 200);
    for (const auto& [v, count] : seen.results) CHECK(count == 1);
    CHECK(seen.inits == std::multiset<int>{0, 1, 2});
    if (inline_stages)  // an input's values are worked and written on the thread that read it
      for (const auto& [v, id] : seen.worked_on) {
        CHECK(id == seen.read_on.at(v.first));
        CHECK(seen.written_on.at(v) == id);
      }
  }
}

TEST_CASE("pipeline: indices from next_index", "[app][pipeline]") {
  for (const bool inline_stages : {false, true}) {
    Seen seen;
    PipelineShape shape = shape_of(inline_stages);
    std::mutex mu;
    std::int64_t next = 10;
    shape.next_index = [&]() -> std::optional<std::int64_t> {  // 10, 13, ..., 37, then none
      std::lock_guard<std::mutex> lock(mu);
      if (next > 37) return std::nullopt;
      const std::int64_t i = next;
      next += 3;
      return i;
    };
    run(1000, shape, seen);
    std::set<std::int64_t> inputs;
    for (const auto& [v, count] : seen.results) inputs.insert(v.first);
    CHECK(inputs == std::set<std::int64_t>{10, 13, 16, 19, 22, 25, 28, 31, 34, 37});
  }
}

TEST_CASE("pipeline: a stage's exception is rethrown and no more inputs are taken", "[app][pipeline]") {
  for (const bool inline_stages : {false, true}) {
    INFO((inline_stages ? "inline stages" : "three stages"));
    Seen seen;
    CHECK_THROWS_WITH(run(100000, shape_of(inline_stages), seen, 5), "stage failed");
    CHECK(seen.read_on.size() < 100000);
  }
}
