#pragma once
// A three-stage pipeline for batch commands: reader threads turn each input index into zero or more values,
// worker threads turn each value into zero or more results, writer threads consume the results. The stages are joined
// by bounded queues, so at most about `depth` values and `depth` results are held at once whatever the number of
// inputs; inputs are taken in index order. With PipelineShape::inline_stages the workers alone run all three stages
// of each input in turn (at most `workers` inputs held). Stage functions report their own failures (they must not
// throw out of the pipeline: an exception that escapes one is rethrown by run_pipeline after every thread ended).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace dct::app {

// A first-in first-out queue of at most `capacity` values: push waits while it is full, pop waits while it is
// empty and returns nothing once it is closed and drained.
template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  void push(T v) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [this] { return q_.size() < capacity_ || closed_; });
    q_.push_back(std::move(v));
    not_empty_.notify_one();
  }

  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [this] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    not_full_.notify_one();
    return v;
  }

  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> q_;
  std::size_t capacity_;
  bool closed_ = false;
};

struct PipelineShape {
  int readers = 1, workers = 1, writers = 1;
  std::size_t depth = 2;  // capacity of each of the two queues
  // Called on each worker thread before its first value, with the worker's number 0..workers-1 (binds a worker to
  // a GPU with --devices); none: nothing.
  std::function<void(int)> worker_init;
  // Where readers take input indices: none: 0..n-1 from a local counter; set: each call gives the next index to
  // read, nothing when there are no more (a distributed batch's indices handed out by its rank 0, app/dispatch.hpp).
  std::function<std::optional<std::int64_t>()> next_index;
  // Each of `workers` threads runs the three stages of its input one after another (no queues, no readers or
  // writers of their own): an input stays on one core from its decode to its write.
  bool inline_stages = false;
};

// Runs read(i, emit) for i = 0..n-1 (or for each index shape.next_index gives) on the readers, work(value, emit) on
// the workers, write(result) on the writers (each emit hands a value or a result to the next stage and may wait for
// room); returns when everything is written.
template <class Value, class Result>
void run_pipeline(std::int64_t n, const PipelineShape& shape,
                  const std::function<void(std::int64_t, const std::function<void(Value&&)>&)>& read,
                  const std::function<void(Value&&, const std::function<void(Result&&)>&)>& work,
                  const std::function<void(Result&&)>& write) {
  BoundedQueue<Value> values(shape.depth);
  BoundedQueue<Result> results(shape.depth);
  std::mutex next_mu, error_mu;
  std::int64_t next = 0;
  std::exception_ptr error;
  auto guard = [&](auto&& body) {
    try {
      body();
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
      values.close();  // nobody waits for room that will never come
      results.close();
    }
  };
  const std::function<void(Value &&)> emit_value = [&](Value&& v) { values.push(std::move(v)); };
  // Readers claim indices under a lock, so values reach the queue close to input order.
  auto take = [&]() -> std::optional<std::int64_t> {
    {
      std::lock_guard<std::mutex> lock(error_mu);
      if (error) return std::nullopt;  // a stage threw: no more inputs
    }
    if (shape.next_index) return shape.next_index();
    std::lock_guard<std::mutex> lock(next_mu);
    if (next >= n) return std::nullopt;
    return next++;
  };
  auto reader = [&] {
    guard([&] {
      while (const std::optional<std::int64_t> i = take()) read(*i, emit_value);
    });
  };
  const std::function<void(Result &&)> emit = [&](Result&& r) { results.push(std::move(r)); };
  auto worker = [&](int k) {
    guard([&] {
      if (shape.worker_init) shape.worker_init(k);
      while (auto v = values.pop()) work(std::move(*v), emit);
    });
  };
  auto writer = [&] {
    guard([&] {
      while (auto r = results.pop()) write(std::move(*r));
    });
  };
  if (shape.inline_stages) {
    const std::function<void(Result &&)> write_now = [&](Result&& r) { write(std::move(r)); };
    const std::function<void(Value &&)> work_now = [&](Value&& v) { work(std::move(v), write_now); };
    auto chain = [&](int k) {
      guard([&] {
        if (shape.worker_init) shape.worker_init(k);
        while (const std::optional<std::int64_t> i = take()) read(*i, work_now);
      });
    };
    std::vector<std::thread> ct;
    for (int k = 0; k < (shape.workers > 0 ? shape.workers : 1); ++k) ct.emplace_back(chain, k);
    for (auto& t : ct) t.join();
    if (error) std::rethrow_exception(error);
    return;
  }
  auto start = [](int count, auto fn) {
    std::vector<std::thread> t;
    for (int k = 0; k < (count > 0 ? count : 1); ++k) t.emplace_back(fn);
    return t;
  };
  std::vector<std::thread> wt = start(shape.writers, writer);
  std::vector<std::thread> kt;
  for (int k = 0; k < (shape.workers > 0 ? shape.workers : 1); ++k) kt.emplace_back(worker, k);
  std::vector<std::thread> rt = start(shape.readers, reader);
  for (auto& t : rt) t.join();
  values.close();
  for (auto& t : kt) t.join();
  results.close();
  for (auto& t : wt) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace dct::app
