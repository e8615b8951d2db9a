#pragma once
// Host tensors (planar channels, 64-byte aligned) and the non-owning views plans execute on.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/types.hpp"

namespace dct::core {

// Non-owning views. `batch` matrices of `shape`, contiguous, row-major, in `mem`.
struct ConstView {
  const void* data = nullptr;
  Shape2 shape;
  std::int64_t batch = 1;
  Precision prec = Precision::kF32;
  Memory mem = Memory::kHost;
  std::int64_t elements() const { return shape.count() * batch; }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * element_size(prec); }
};

struct View {
  void* data = nullptr;
  Shape2 shape;
  std::int64_t batch = 1;
  Precision prec = Precision::kF32;
  Memory mem = Memory::kHost;
  std::int64_t elements() const { return shape.count() * batch; }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * element_size(prec); }
  operator ConstView() const { return ConstView{data, shape, batch, prec, mem}; }
};

// Owning, 64-byte aligned host storage (aligned for FFTW's SIMD and for 16-byte vector copies): its own memory, or
// memory lent by someone else (a TensorPool's block) and handed back when the buffer goes.
class AlignedBuffer {
 public:
  // Called once with the lent memory when the buffer lets go of it; must not throw.
  using Release = std::function<void(void*)>;
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes);
  // `bytes` of 64-byte aligned memory at `data` that `release` takes back.
  AlignedBuffer(void* data, std::size_t bytes, Release release);
  AlignedBuffer(AlignedBuffer&&) noexcept = default;
  AlignedBuffer& operator=(AlignedBuffer&&) noexcept = default;
  void* data() const { return ptr_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Free {
    Release release;  // empty: the memory is this buffer's own (std::free)
    void operator()(void* p) const noexcept;
  };
  std::unique_ptr<void, Free> ptr_;
  std::size_t bytes_ = 0;
};

// A stack of `channels` planes of rows x cols values in one precision. Channel c is plane c.
class HostTensor {
 public:
  HostTensor() = default;
  HostTensor(Shape2 shape, std::int64_t channels, Precision prec);  // zero-filled
  // Not filled: for a producer that writes every element (decoders, conversions).
  static HostTensor uninitialized(Shape2 shape, std::int64_t channels, Precision prec);
  // A tensor on `storage` as it is (not filled), which must hold exactly its bytes.
  static HostTensor adopt(AlignedBuffer storage, Shape2 shape, std::int64_t channels, Precision prec);
  HostTensor(HostTensor&&) noexcept = default;
  HostTensor& operator=(HostTensor&&) noexcept = default;
  HostTensor clone() const;

  Shape2 shape() const { return shape_; }
  std::int64_t rows() const { return shape_.rows; }
  std::int64_t cols() const { return shape_.cols; }
  std::int64_t channels() const { return channels_; }
  Precision precision() const { return prec_; }
  std::int64_t elements() const { return shape_.count() * channels_; }
  std::size_t bytes() const { return buf_.bytes(); }
  bool empty() const { return elements() == 0; }

  void* raw() { return buf_.data(); }
  const void* raw() const { return buf_.data(); }
  template <class T>
  T* data() {
    return static_cast<T*>(buf_.data());
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(buf_.data());
  }

  // Element i (0 <= i < elements()) as double, whatever the precision; and its setter.
  double get(std::int64_t i) const;
  void set(std::int64_t i, double v);

  // A copy converted to `prec` (a plain copy when it already is).
  HostTensor to(Precision prec) const;
  // One channel as a new tensor; and a tensor made of several.
  HostTensor channel(std::int64_t c) const;

  View view() { return View{raw(), shape_, channels_, prec_, Memory::kHost}; }
  ConstView view() const { return ConstView{raw(), shape_, channels_, prec_, Memory::kHost}; }

 private:
  Shape2 shape_{0, 0};
  std::int64_t channels_ = 0;
  Precision prec_ = Precision::kF32;
  AlignedBuffer buf_;
};

}  // namespace dct::core
