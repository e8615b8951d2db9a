#include "core/plan_cache.hpp"

namespace dct::core {

std::shared_ptr<const Plan> PlanCache::get(const Backend& b, const TransformDesc& d, int device) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = items_.begin(); it != items_.end(); ++it) {
    if (it->device == device && it->backend == b.name() && it->desc == d) {
      items_.splice(items_.begin(), items_, it);
      ++hits_;
      return items_.front().plan;
    }
  }
  ++misses_;
  std::shared_ptr<const Plan> plan = b.make_plan(d);
  items_.push_front({d, std::string(b.name()), device, plan});
  while (items_.size() > capacity_) items_.pop_back();
  return plan;
}

std::size_t PlanCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return items_.size();
}

}  // namespace dct::core
