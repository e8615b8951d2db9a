#include "core/tensor.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/error.hpp"

namespace dct::core {

AlignedBuffer::AlignedBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) throw Error(ErrorCode::kRuntime, "out of host memory (" + std::to_string(bytes) + " bytes)");
  ptr_.reset(p);
}

AlignedBuffer::AlignedBuffer(void* data, std::size_t bytes, Release release)
    : ptr_(data, Free{std::move(release)}), bytes_(bytes) {}

void AlignedBuffer::Free::operator()(void* p) const noexcept {
  if (release)
    release(p);
  else
    std::free(p);
}

HostTensor::HostTensor(Shape2 shape, std::int64_t channels, Precision prec)
    : shape_(shape),
      channels_(channels),
      prec_(prec),
      buf_(static_cast<std::size_t>(shape.count() * channels) * element_size(prec)) {
  if (buf_.bytes() != 0) std::memset(buf_.data(), 0, buf_.bytes());
}

HostTensor HostTensor::uninitialized(Shape2 shape, std::int64_t channels, Precision prec) {
  HostTensor t;
  t.shape_ = shape;
  t.channels_ = channels;
  t.prec_ = prec;
  t.buf_ = AlignedBuffer(static_cast<std::size_t>(shape.count() * channels) * element_size(prec));
  return t;
}

HostTensor HostTensor::adopt(AlignedBuffer storage, Shape2 shape, std::int64_t channels, Precision prec) {
  const std::size_t bytes = static_cast<std::size_t>(shape.count() * channels) * element_size(prec);
  if (storage.bytes() != bytes)
    throw Error(ErrorCode::kRuntime, "internal: storage of " + std::to_string(storage.bytes()) +
                                         " bytes for a tensor of " + std::to_string(bytes));
  HostTensor t;
  t.shape_ = shape;
  t.channels_ = channels;
  t.prec_ = prec;
  t.buf_ = std::move(storage);
  return t;
}

HostTensor HostTensor::clone() const {
  HostTensor t = uninitialized(shape_, channels_, prec_);
  if (bytes() != 0) std::memcpy(t.raw(), raw(), bytes());
  return t;
}

double HostTensor::get(std::int64_t i) const {
  return prec_ == Precision::kF32 ? static_cast<double>(data<float>()[i]) : data<double>()[i];
}

void HostTensor::set(std::int64_t i, double v) {
  if (prec_ == Precision::kF32)
    data<float>()[i] = static_cast<float>(v);
  else
    data<double>()[i] = v;
}

HostTensor HostTensor::to(Precision prec) const {
  if (prec == prec_) return clone();
  HostTensor t(shape_, channels_, prec);
  const std::int64_t n = elements();
  if (prec == Precision::kF64) {
    const float* s = data<float>();
    double* d = t.data<double>();
    for (std::int64_t i = 0; i < n; ++i) d[i] = s[i];
  } else {
    const double* s = data<double>();
    float* d = t.data<float>();
    for (std::int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(s[i]);
  }
  return t;
}

HostTensor HostTensor::channel(std::int64_t c) const {
  HostTensor t(shape_, 1, prec_);
  const std::size_t plane = static_cast<std::size_t>(shape_.count()) * element_size(prec_);
  if (plane != 0) std::memcpy(t.raw(), static_cast<const char*>(raw()) + c * plane, plane);
  return t;
}

}  // namespace dct::core
