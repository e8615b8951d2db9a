#pragma once
// Device state of a compressor (stream, buffers, kernel attributes), one per concurrent caller and device: a batch's
// workers each lease their own, on the device their thread is bound to (--devices), so no two workers share a stream
// or wait for each other's transfers. A state is made on first need and kept for the next caller on its device.
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/common/plan.cuh"

namespace dct::cuda {

template <class State>
class StatePool {
 public:
  class Lease {
   public:
    Lease(StatePool& pool, State* s) : pool_(&pool), s_(s) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_->release(s_); }
    State& operator*() const { return *s_; }
    State* operator->() const { return s_; }

   private:
    StatePool* pool_;
    State* s_;
  };

  // A free state on the calling thread's device (activated), made by `make` (on that device) if none is free.
  Lease acquire(const std::function<std::unique_ptr<State>()>& make) {
    activate_device();
    const int dev = current_device();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (Slot& s : slots_)
        if (!s.busy && s.device == dev) {
          s.busy = true;
          return Lease(*this, s.state.get());
        }
    }
    std::unique_ptr<State> fresh = make();  // outside the lock: allocations and attribute queries take time
    std::lock_guard<std::mutex> lock(mu_);
    slots_.push_back(Slot{dev, true, std::move(fresh)});
    return Lease(*this, slots_.back().state.get());
  }

 private:
  struct Slot {
    int device;
    bool busy;
    std::unique_ptr<State> state;
  };
  void release(State* s) {
    std::lock_guard<std::mutex> lock(mu_);
    for (Slot& slot : slots_)
      if (slot.state.get() == s) slot.busy = false;
  }
  std::mutex mu_;
  std::vector<Slot> slots_;
};

}  // namespace dct::cuda
