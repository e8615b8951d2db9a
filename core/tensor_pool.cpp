#include "core/tensor_pool.hpp"

#include <list>
#include <mutex>

#include "core/error.hpp"

namespace dct::core {

// Shared by the pool and every tensor it lent, so that a tensor may outlive the pool.
struct TensorPool::State {
  struct Block {
    std::unique_ptr<Buffer> buf;
    bool lent = false;
  };
  Allocate allocate;
  std::mutex mu;
  std::list<Block> blocks;  // stable positions: a lent tensor keeps its block's iterator
  std::size_t made = 0;

  // Nothing here allocates or throws: it runs in a tensor's destructor.
  void give_back(std::list<Block>::iterator b) noexcept {
    std::lock_guard<std::mutex> lock(mu);
    b->lent = false;
  }
};

TensorPool::TensorPool(Allocate allocate) : s_(std::make_shared<State>()) { s_->allocate = std::move(allocate); }

TensorPool::~TensorPool() = default;

HostTensor TensorPool::take(Shape2 shape, std::int64_t channels, Precision prec) {
  const std::size_t bytes = static_cast<std::size_t>(shape.count() * channels) * element_size(prec);
  if (bytes == 0) return HostTensor::uninitialized(shape, channels, prec);
  return HostTensor::adopt(take_bytes(bytes), shape, channels, prec);
}

AlignedBuffer TensorPool::take_bytes(std::size_t bytes) {
  if (bytes == 0) return AlignedBuffer();
  State& s = *s_;
  std::unique_lock<std::mutex> lock(s.mu);
  auto best = s.blocks.end(), small = s.blocks.end();
  for (auto b = s.blocks.begin(); b != s.blocks.end(); ++b) {
    if (b->lent) continue;
    const std::size_t have = b->buf->bytes();
    if (have >= bytes && (best == s.blocks.end() || have < best->buf->bytes())) best = b;
    if (have < bytes && (small == s.blocks.end() || have < small->buf->bytes())) small = b;
  }
  if (best == s.blocks.end()) {
    std::unique_ptr<Buffer> dropped;
    if (small != s.blocks.end()) {
      dropped = std::move(small->buf);
      s.blocks.erase(small);
    }
    lock.unlock();
    dropped.reset();
    std::unique_ptr<Buffer> fresh = s.allocate(bytes);  // outside the lock: page-locked memory is slow to make
    if (!fresh || fresh->bytes() < bytes || fresh->data() == nullptr)
      throw Error(ErrorCode::kRuntime,
                  "internal: a tensor pool's allocator gave no block of " + std::to_string(bytes) + " bytes");
    lock.lock();
    best = s.blocks.insert(s.blocks.end(), State::Block{std::move(fresh), false});
    ++s.made;
  }
  best->lent = true;
  void* data = best->buf->data();
  lock.unlock();
  AlignedBuffer::Release release;
  try {
    release = [keep = s_, best](void*) { keep->give_back(best); };
  } catch (...) {
    s.give_back(best);
    throw;
  }
  return AlignedBuffer(data, bytes, std::move(release));
}

std::size_t TensorPool::blocks() const {
  std::lock_guard<std::mutex> lock(s_->mu);
  return s_->blocks.size();
}

std::size_t TensorPool::allocations() const {
  std::lock_guard<std::mutex> lock(s_->mu);
  return s_->made;
}

HostTensor take_tensor(TensorPool* pool, Shape2 shape, std::int64_t channels, Precision prec) {
  return pool != nullptr ? pool->take(shape, channels, prec) : HostTensor::uninitialized(shape, channels, prec);
}

AlignedBuffer take_bytes(TensorPool* pool, std::size_t bytes) {
  return pool != nullptr ? pool->take_bytes(bytes) : AlignedBuffer(bytes);
}

}  // namespace dct::core
