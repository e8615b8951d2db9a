// core::TensorPool (reused host blocks for tensors that come and go) and matrix reads into it: a block goes back
// when its tensor goes and the next take that fits reuses it; the smallest free block that fits; a free block too
// small is dropped, so the pool never holds more blocks than tensors were out at once; tensors may outlive the pool;
// reads into reused blocks give the bytes of fresh reads, whatever came before; a large file read in parts at once
// equals one read, and names the first NaN or Inf as one read would.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/tensor_pool.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::ErrorCode;
using dct::test::error_of;
using dct::test::TempDir;

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

std::string bytes_of(const HostTensor& t) { return std::string(static_cast<const char*>(t.raw()), t.bytes()); }

// A .npy (format 1.0) with `descr`, `shape` and these data bytes.
void write_npy(const std::string& path, const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  f << "\x93NUMPY" << '\x01' << '\0' << static_cast<char>(header.size() & 0xff) << static_cast<char>(header.size() >> 8)
    << header << data;
}

template <class T>
std::string values(std::int64_t n, double scale, double offset) {
  std::string s(static_cast<std::size_t>(n) * sizeof(T), '\0');
  for (std::int64_t i = 0; i < n; ++i) {
    const T v = static_cast<T>(std::fmod(static_cast<double>(i) * scale, 97.0) + offset);
    std::memcpy(s.data() + i * static_cast<std::int64_t>(sizeof(T)), &v, sizeof(T));
  }
  return s;
}

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

TEST_CASE("tensor pool: matrix reads into reused blocks give the bytes of fresh reads, whatever came before",
          "[core][pool][npy]") {
  TempDir dir;
  struct File {
    std::string name, descr, shape;
    std::int64_t count;
    std::string data;
  };
  const std::vector<File> files{
      {"big_f32.npy", "<f4", "(64, 80)", 64 * 80, values<float>(64 * 80, 0.37, -40)},
      {"small_f64.npy", "<f8", "(8, 8)", 64, values<double>(64, 1.3, 5)},
      {"u8.npy", "|u1", "(24, 16)", 24 * 16, values<std::uint8_t>(24 * 16, 3.0, 0)},
      {"rgb_f32.npy", "<f4", "(16, 16, 3)", 16 * 16 * 3, values<float>(16 * 16 * 3, 0.71, -20)},
      {"i16.npy", "<i2", "(32, 40)", 32 * 40, values<std::int16_t>(32 * 40, 7.0, -48)},
      {"wide_f64.npy", "<f8", "(48, 56)", 48 * 56, values<double>(48 * 56, 0.11, -3)},
      {"row_f32.npy", "<f4", "(100,)", 100, values<float>(100, 0.9, 1)},
  };
  for (const auto& f : files) write_npy(dir.file(f.name), f.descr, f.shape, f.data);
  const std::string raw = dir.file("m.f32");
  {
    std::ofstream o(raw, std::ios::binary);
    o << values<float>(40 * 24, 0.53, -9);
  }
  for (const Precision prec : {Precision::kF32, Precision::kF64}) {
    CountingHeap heap;
    TensorPool pool(heap.allocate());  // one tensor at a time: every read lands in the block of the last
    ReadOptions pooled, fresh;
    pooled.prec = fresh.prec = prec;
    pooled.pool = &pool;
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& f : files) {
        INFO(f.name << " " << to_string(prec));
        const HostTensor want = read_npy(dir.file(f.name), fresh).tensor;
        const HostTensor got = read_npy(dir.file(f.name), pooled).tensor;
        CHECK(got.shape() == want.shape());
        CHECK(got.channels() == want.channels());
        CHECK(bytes_of(got) == bytes_of(want));
      }
      pooled.shape = fresh.shape = Shape2{40, 24};
      CHECK(bytes_of(read_raw(raw, pooled).tensor) == bytes_of(read_raw(raw, fresh).tensor));
      pooled.shape = fresh.shape = std::nullopt;
    }
    CHECK(pool.blocks() == 1);
  }
}

TEST_CASE("tensor pool: a large file read in parts at once equals one read and names the first NaN or Inf",
          "[core][pool][npy]") {
  TempDir dir;
  const std::int64_t rows = 4096, cols = 3200;  // 52 MB of f32: three parts of at least 16 MB
  std::string data = values<float>(rows * cols, 0.013, -30);
  const std::string path = dir.file("large.npy");
  write_npy(path, "<f4", "(4096, 3200)", data);
  ReadOptions one, parts;
  parts.threads = 4;
  const HostTensor a = read_npy(path, one).tensor, b = read_npy(path, parts).tensor;
  CHECK(bytes_of(a) == bytes_of(b));
  ReadOptions f64 = parts;
  f64.prec = Precision::kF64;
  CHECK(read_npy(path, f64).tensor.get(rows * cols - 1) == a.get(rows * cols - 1));

  auto put = [&](std::int64_t r, std::int64_t c, float v) { std::memcpy(data.data() + (r * cols + c) * 4, &v, 4); };
  put(3900, 11, std::numeric_limits<float>::quiet_NaN());  // the last part
  write_npy(path, "<f4", "(4096, 3200)", data);
  for (const ReadOptions& o : {one, parts}) {
    const dct::Error e = error_of([&] { (void)read_npy(path, o); });
    CHECK(e.code() == ErrorCode::kInput);
    CHECK(std::string(e.what()).find("NaN at row 3901, column 12") != std::string::npos);
  }
  put(2000, 7, std::numeric_limits<float>::infinity());  // the middle part: it comes first
  write_npy(path, "<f4", "(4096, 3200)", data);
  for (const ReadOptions& o : {one, parts}) {
    const dct::Error e = error_of([&] { (void)read_npy(path, o); });
    CHECK(std::string(e.what()).find("Inf at row 2001, column 8") != std::string::npos);
  }
  ReadOptions allowed = parts;
  allowed.allow_nonfinite = true;
  CHECK(std::isinf(read_npy(path, allowed).tensor.get(2000 * cols + 7)));
}
