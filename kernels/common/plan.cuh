#pragma once
// What every CUDA plan shares: the plan base (its stream, event-timed execute_host: host memory that is page-locked
// moves directly, other memory through the driver's own pinned chunks),
// device-resident per-axis tables, and the cuFFT stage wrapper (plan made once, length-1 handled).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "kernels/common/cuda_util.cuh"
#include "kernels/dct2d/prepost.cuh"

namespace dct::cuda {

using i64 = std::int64_t;

// Selects the runtime's device on the calling thread; throws kRuntime with usable()'s reason if none.
void activate_device();
// The device activate_device() selects on this thread (kernels/backends.hpp, bind_thread_device).
int current_device();

// Page-locked host memory that every device's context sees as such (execute_host moves it without staging; the
// coefficient compressor copies into it).
class PortablePinnedBuffer final : public core::Buffer {
 public:
  explicit PortablePinnedBuffer(std::size_t bytes) : buf_(bytes, cudaHostAllocPortable) {}
  void* data() const override { return buf_.get(); }
  std::size_t bytes() const override { return buf_.bytes(); }

 private:
  PinnedBuffer buf_;
};

class GpuPlan : public core::Plan {
 public:
  // in_bytes / out_bytes: the device views execute() takes (and the pinned staging size).
  GpuPlan(const core::TransformDesc& d, std::size_t in_bytes, std::size_t out_bytes, bool check_views = true);
  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kDevice; }
  void execute(core::ConstView in, core::View out, core::Stream s = {}) const override;
  core::StageTimes execute_host(core::ConstView in, core::View out) const override;
  core::StreamTimes execute_streamed(const core::ByteSource& in, const core::ByteSink& out, int threads) const override;
  core::Stream stream() const override { return core::Stream{stream_.get()}; }
  // The device it was made on, and its own device buffers of in_bytes / out_bytes (execute_host's): a caller that
  // keeps its data on the device (kernels/dist/group.cu) runs execute() on them instead of buffers of its own.
  int device() const { return device_; }
  void* device_input() const { return dev_in_.get(); }
  void* device_output() const { return dev_out_.get(); }

 protected:
  // Queue the device work on `s`: in and out are device pointers of in_bytes / out_bytes.
  virtual void run(const void* in, void* out, cudaStream_t s) const = 0;

 private:
  core::TransformDesc desc_;
  int device_;  // the device the plan was made on: execute() runs there whatever the calling thread's device
  std::size_t in_bytes_, out_bytes_;
  bool check_views_;
  CudaStream stream_;
  DeviceBuffer dev_in_, dev_out_;
  CudaEvent ev_[4];
  mutable bool loaded_ = false;  // execute_host has made its first (loading) run
  // execute_streamed's workers: a page-locked chunk and a stream each, made on first use and kept.
  struct StreamSlot {
    PinnedBuffer chunk;
    CudaStream stream;
  };
  mutable std::vector<StreamSlot> slots_;
};

// A device copy of a make-time host table (at least one element's room, so that an empty table is a valid pointer).
template <class T>
DeviceBuffer upload_table(const std::vector<T>& v) {
  DeviceBuffer b(std::max<std::size_t>(1, v.size()) * sizeof(T));
  if (!v.empty()) DCT_CUDA_CHECK(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return b;
}

// Device copies of make-time tables for one axis (see AxisTables in kernels/dct2d/prepost.cuh); scale multiplies both
// fs and ia (cuda-r2r's norms other than cuda-fft2d's, kernels/r2r/r2r.cu).
template <class T>
class AxisTableBuffers {
 public:
  AxisTableBuffers() = default;
  AxisTableBuffers(i64 n, core::Norm norm, double gain, double scale = 1.0);
  AxisTables<T> view() const { return {tw_.as<const cx_t<T>>(), fs_.as<const T>(), ia_.as<const T>()}; }

 private:
  DeviceBuffer tw_, fs_, ia_;
};

enum class FftType { kR2C, kC2R, kC2CForward, kC2CInverse };

// One cuFFT execution pattern, planned once. Layouts:
//   lines(n, count):      count contiguous lines of length n (complex side n/2+1, or n for C2C)
//   matrix(n1, n2, b):    b row-major 2-D transforms (complex side n1 x (n2/2+1)); n1 or n2 may be 1
//   columns(n1, n2, b):   1-D transforms down the n2 columns of b matrices (complex side (n1/2+1) x n2);
//                         real matrices `real_pitch` elements apart (even: cuFFT wants 8-byte aligned pointers)
//   complex_columns(n1, w, b, pitch): C2C down the w columns of b complex n1 x w matrices, in place; rows are
//                  pitch complex apart (<= 0: w), matrices n1 * pitch
template <class T>
class FftStage {
 public:
  static FftStage lines(FftType t, i64 n, i64 count);
  //   strided_lines(n, in_len, out_len, count, blocks): blocks of count lines interleaved, element e of line j of
  //                 block b at (b * len + e) * count + j (len: in_len in, out_len out)
  static FftStage strided_lines(FftType t, i64 n, i64 in_len, i64 out_len, i64 count, i64 blocks);
  static FftStage matrix(FftType t, i64 n1, i64 n2, i64 batch);
  static FftStage columns(FftType t, i64 n1, i64 n2, i64 batch, i64 real_pitch);
  static FftStage complex_columns(FftType t, i64 n1, i64 w, i64 batch, i64 pitch = 0);
  //   array(rank, n, b):    b contiguous row-major arrays of rank 1..3 (complex side: last extent n/2+1); every
  //                         extent >= 2 (a length-1 axis is the caller's identity)
  static FftStage array(FftType t, int rank, const i64* n, i64 batch);
  void run(const void* in, void* out, cudaStream_t s) const;

 private:
  FftStage() = default;
  void plan(int rank, long long* n, long long* inembed, long long istride, long long idist, long long* onembed,
            long long ostride, long long odist, long long batch);
  FftType type_ = FftType::kR2C;
  std::unique_ptr<CufftPlan> plan_;  // null: identity (length-1 transform; a no-op for C2C)
  i64 identity_count_ = 0;
  i64 loops_ = 1, in_step_ = 0, out_step_ = 0;  // repeated executions (column layout over a batch), in elements
};

// --effort measure: the faster of two plans of d (median wall time of 5 executions after a warm-up, on scratch
// device buffers of zeros, the device synchronized each time); the other is dropped.
std::unique_ptr<core::Plan> faster_plan(std::unique_ptr<core::Plan> a, std::unique_ptr<core::Plan> b,
                                        const core::TransformDesc& d);

// Shared checks for every CUDA DCT backend; `axes` lists the axes the backend implements.
core::Support dct_support(const core::TransformDesc& d, bool rows_only, const char* rows_only_reason);
[[noreturn]] void throw_unsupported(std::string_view backend, const core::TransformDesc& d, const core::Support& s);

}  // namespace dct::cuda
