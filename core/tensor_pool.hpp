#pragma once
// Host blocks reused by tensors that come and go at similar sizes (a batch's inputs, or its outputs). A tensor taken
// from the pool lends one of its blocks and gives it back when the tensor (or the one it was moved into) is
// destroyed; the next take that fits reuses it. A file's bytes then land in memory that is already mapped (no page
// faults and zeroing per input), and memory a runtime made for its transfers (page-locked for CUDA,
// Runtime::allocate_host) is made once per block, not once per input.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/backend.hpp"
#include "core/tensor.hpp"

namespace dct::core {

class TensorPool {
 public:
  // Makes a block of at least `bytes`, 64-byte aligned (Runtime::allocate_host). Throws on failure.
  using Allocate = std::function<std::unique_ptr<Buffer>(std::size_t bytes)>;

  explicit TensorPool(Allocate allocate);
  // Blocks still lent stay valid until their tensors go.
  ~TensorPool();
  TensorPool(const TensorPool&) = delete;
  TensorPool& operator=(const TensorPool&) = delete;

  // A tensor of that shape, not filled, on the smallest free block that holds it; else on a new block (a free block
  // too small for it is dropped first, so that the pool holds no more blocks than tensors were ever out at once).
  HostTensor take(Shape2 shape, std::int64_t channels, Precision prec);
  // `bytes` bytes, not filled, from a block as take's (a decoder's output: Samples8, JpegCoefficients8).
  AlignedBuffer take_bytes(std::size_t bytes);

  std::size_t blocks() const;       // blocks held, free or lent
  std::size_t allocations() const;  // blocks made so far

 private:
  struct State;
  std::shared_ptr<State> s_;
};

// A tensor of that shape from `pool`, or (null pool) from the heap; not filled either way.
HostTensor take_tensor(TensorPool* pool, Shape2 shape, std::int64_t channels, Precision prec);
// `bytes` bytes from `pool`, or (null pool) from the heap; not filled either way.
AlignedBuffer take_bytes(TensorPool* pool, std::size_t bytes);

}  // namespace dct::core
