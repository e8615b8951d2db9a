// core::TensorPool (reused host blocks for tensors that come and go): a block goes back when its tensor goes and the
// next take that fits reuses it; the smallest free block that fits; a free block too small is dropped, so the pool
// never holds more blocks than tensors were out at once; tensors may outlive the pool.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/tensor_pool.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::ErrorCode;
using dct::test::error_of;

namespace {

// An allocator that counts its blocks and can be told to fail.
struct CountingHeap {
  std::atomic<int> made{0};
  std::atomic<bool> fail{false};
  TensorPool::Allocate allocate() {
    return [this](std::size_t bytes) {
      if (fail) throw dct::Error(ErrorCode::kRuntime, "no memory (test)");
      ++made;
      return allocate_heap(bytes);
    };
  }
};

}  // namespace

TEST_CASE("tensor pool: a block goes back with its tensor and the next take that fits reuses it", "[core][pool]") {
  CountingHeap heap;
  TensorPool pool(heap.allocate());
  const void* first = nullptr;
  {
    HostTensor t = pool.take({64, 80}, 1, Precision::kF32);
    CHECK(t.shape() == Shape2{64, 80});
    CHECK(t.bytes() == 64 * 80 * 4);
    CHECK(reinterpret_cast<std::uintptr_t>(t.raw()) % 64 == 0);
    first = t.raw();
    HostTensor moved = std::move(t);  // the block follows the tensor it was moved into
    CHECK(pool.blocks() == 1);
  }
  {
    HostTensor t = pool.take({32, 40}, 2, Precision::kF64);  // the same bytes in another shape
    CHECK(t.raw() == first);
    HostTensor smaller = pool.take({8, 8}, 1, Precision::kF32);  // the one block is lent: a second one
    CHECK(smaller.raw() != first);
  }
  CHECK(heap.made == 2);
  CHECK(pool.allocations() == 2);
  {
    // The smallest free block that holds it: the small one for a small tensor, the large one for a large.
    HostTensor a = pool.take({4, 4}, 1, Precision::kF32);
    HostTensor b = pool.take({64, 80}, 1, Precision::kF32);
    CHECK(b.raw() == first);
  }
  CHECK(heap.made == 2);
}

TEST_CASE("tensor pool: a free block too small for a take is dropped for the new one", "[core][pool]") {
  CountingHeap heap;
  TensorPool pool(heap.allocate());
  { HostTensor t = pool.take({8, 8}, 1, Precision::kF32); }
  CHECK(pool.blocks() == 1);
  for (std::int64_t n : {16, 32, 64}) {
    HostTensor t = pool.take({n, n}, 1, Precision::kF64);
    CHECK(pool.blocks() == 1);
  }
  CHECK(heap.made == 4);
  { HostTensor t = pool.take({8, 8}, 1, Precision::kF32); }  // the large block serves a small tensor
  CHECK(heap.made == 4);
}

TEST_CASE("tensor pool: tensors outlive the pool, and a failed allocation leaves it usable", "[core][pool]") {
  CountingHeap heap;
  HostTensor kept;
  {
    TensorPool pool(heap.allocate());
    heap.fail = true;
    CHECK(error_of([&] { (void)pool.take({8, 8}, 1, Precision::kF32); }).code() == ErrorCode::kRuntime);
    heap.fail = false;
    kept = pool.take({8, 8}, 1, Precision::kF32);
    CHECK(pool.blocks() == 1);
    std::memset(kept.raw(), 0x5a, kept.bytes());
  }
  CHECK(static_cast<const unsigned char*>(kept.raw())[kept.bytes() - 1] == 0x5a);
  CHECK(take_tensor(nullptr, {3, 5}, 2, Precision::kF64).bytes() == 3 * 5 * 2 * 8);
}
