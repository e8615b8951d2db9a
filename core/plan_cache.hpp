#pragma once
// A bounded LRU cache of plans keyed by (descriptor, backend, device), shared by batch mode and bench.
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "core/backend.hpp"

namespace dct::core {

class PlanCache {
 public:
  explicit PlanCache(std::size_t capacity = 16) : capacity_(capacity) {}
  // Returns the cached plan or makes (and caches) a new one; evicts the least recently used.
  std::shared_ptr<const Plan> get(const Backend& b, const TransformDesc& d, int device = 0);
  std::size_t size() const;
  std::size_t hits() const { return hits_; }
  std::size_t misses() const { return misses_; }

 private:
  struct Item {
    TransformDesc desc;
    std::string backend;
    int device;
    std::shared_ptr<const Plan> plan;
  };
  std::size_t capacity_;
  mutable std::mutex mu_;
  std::list<Item> items_;  // front = most recent
  std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace dct::core
