#include "kernels/common/plan.cuh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/timing.hpp"

namespace dct::cuda {

// ---- GpuPlan -------------------------------------------------------------------------------------

GpuPlan::GpuPlan(const core::TransformDesc& d, std::size_t in_bytes, std::size_t out_bytes, bool check_views)
    : desc_(d),
      device_(current_device()),
      in_bytes_(in_bytes),
      out_bytes_(out_bytes),
      check_views_(check_views),
      dev_in_(in_bytes),
      dev_out_(out_bytes) {}

void GpuPlan::execute(core::ConstView in, core::View out, core::Stream s) const {
  if (in.data == nullptr || out.data == nullptr)
    throw Error(ErrorCode::kRuntime, "internal: null view passed to a CUDA plan");
  if (in.mem != core::Memory::kDevice || out.mem != core::Memory::kDevice)
    throw Error(ErrorCode::kRuntime,
                "internal: a CUDA plan's execute() takes device views (use execute_host for host memory)");
  if (check_views_ &&
      (in.bytes() != in_bytes_ || out.bytes() != out_bytes_ || in.prec != desc_.prec || out.prec != desc_.prec))
    throw Error(ErrorCode::kRuntime, "internal: views do not match the plan (" + desc_.to_string() + ")");
  DCT_CUDA_CHECK(cudaSetDevice(device_));
  const cudaStream_t st = s.handle != nullptr ? static_cast<cudaStream_t>(s.handle) : stream_.get();
  run(in.data, out.data, st);
}

core::StageTimes GpuPlan::execute_host(core::ConstView in, core::View out) const {
  if (in.data == nullptr || out.data == nullptr)
    throw Error(ErrorCode::kRuntime, "internal: null view passed to a CUDA plan");
  if (check_views_ && (in.bytes() != in_bytes_ || out.bytes() != out_bytes_))
    throw Error(ErrorCode::kRuntime, "internal: host views do not match the plan (" + desc_.to_string() + ")");
  DCT_CUDA_CHECK(cudaSetDevice(device_));
  const cudaStream_t st = stream_.get();
  double load_ms = 0;
  if (!loaded_) {
    // CUDA loads a kernel at its first launch (lazy module loading, milliseconds per module): one run on zeroed
    // buffers first, so that device_ms is the transform's time. Then the output buffer is poisoned (NaN) so
    // that an element the real run does not write cannot pass as a result.
    core::Stopwatch lw;
    DCT_CUDA_CHECK(cudaMemsetAsync(dev_in_.get(), 0, in_bytes_, st));
    run(dev_in_.get(), dev_out_.get(), st);
    DCT_CUDA_CHECK(cudaMemsetAsync(dev_out_.get(), 0xFF, out_bytes_, st));
    DCT_CUDA_CHECK(cudaStreamSynchronize(st));
    loaded_ = true;
    load_ms = lw.elapsed_ms();
  }
  // Page-locked memory (Runtime::allocate_host) and ordinary memory alike go straight to cudaMemcpyAsync: the driver
  // moves ordinary memory through its own pinned chunks, overlapping its host copy with the DMA. (A staging copy of
  // our own took the whole host copy first, after making pinned buffers of the input's size; a ring of two pinned
  // chunks of ours for the download was no faster than the driver's: docs/decisions.md, "Host memory".)
  core::Stopwatch sw;
  ev_[0].record(st);
  DCT_CUDA_CHECK(cudaMemcpyAsync(dev_in_.get(), in.data, in_bytes_, cudaMemcpyHostToDevice, st));
  ev_[1].record(st);
  run(dev_in_.get(), dev_out_.get(), st);
  ev_[2].record(st);
  DCT_CUDA_CHECK(cudaMemcpyAsync(out.data, dev_out_.get(), out_bytes_, cudaMemcpyDeviceToHost, st));
  ev_[3].record(st);
  DCT_CUDA_CHECK(cudaStreamSynchronize(st));
  core::StageTimes t;
  t.e2e_ms = sw.elapsed_ms();
  t.h2d_ms = ev_[1].since(ev_[0]);
  t.device_ms = ev_[2].since(ev_[1]);
  t.d2h_ms = ev_[3].since(ev_[2]);
  t.load_ms = load_ms;
  return t;
}

namespace {
// execute_streamed: the parts a worker moves at a time, and the most workers. Eight workers read a cached file at
// 24-27 GB/s against one's 3.6-4.3 (NVIDIA H200 host) and copy into a mapped output at 4.4-5.0 GB/s against 1.3-1.5,
// while the copy engines take the parts in turn; 8 MiB parts keep each copy long against its set-up (the part size was
// not tuned) (docs/decisions.md §11).
constexpr std::size_t kStreamPart = std::size_t{8} << 20;
constexpr int kStreamWorkers = 8;
}  // namespace

core::StreamTimes GpuPlan::execute_streamed(const core::ByteSource& in, const core::ByteSink& out, int threads) const {
  DCT_CUDA_CHECK(cudaSetDevice(device_));
  const std::size_t parts = (std::max(in_bytes_, out_bytes_) + kStreamPart - 1) / kStreamPart;
  const auto workers = static_cast<std::size_t>(
      std::clamp<std::int64_t>(std::min<std::int64_t>(threads, static_cast<std::int64_t>(parts)), 1, kStreamWorkers));
  if (slots_.size() < workers) slots_.resize(workers);
  // Each worker takes the next part until none is left: `move` it between the part's bytes at `at` in the
  // worker's chunk and the device. The first error stops the others taking parts; it is rethrown.
  auto by_workers = [&](std::size_t total, const auto& move) {
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    core::run_parts(workers, [&](std::size_t w) {
      try {
        DCT_CUDA_CHECK(cudaSetDevice(device_));
        StreamSlot& slot = slots_[w];
        if (slot.chunk.get() == nullptr) slot.chunk = PinnedBuffer(kStreamPart);
        for (std::size_t k = next++; k * kStreamPart < total && !failed; k = next++) {
          const std::size_t at = k * kStreamPart;
          move(slot, at, std::min(kStreamPart, total - at));
        }
      } catch (...) {
        failed = true;
        throw;
      }
    });
  };
  core::StreamTimes t;
  core::Stopwatch sw;
  by_workers(in_bytes_, [&](StreamSlot& slot, std::size_t at, std::size_t n) {
    in.read(at, slot.chunk.get(), n);
    DCT_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dev_in_.get()) + at, slot.chunk.get(), n, cudaMemcpyHostToDevice,
                                   slot.stream.get()));
    DCT_CUDA_CHECK(cudaStreamSynchronize(slot.stream.get()));
  });
  t.in_ms = sw.lap_ms();
  const cudaStream_t st = stream_.get();
  run(dev_in_.get(), dev_out_.get(), st);
  DCT_CUDA_CHECK(cudaStreamSynchronize(st));
  t.device_ms = sw.lap_ms();
  by_workers(out_bytes_, [&](StreamSlot& slot, std::size_t at, std::size_t n) {
    DCT_CUDA_CHECK(cudaMemcpyAsync(slot.chunk.get(), static_cast<const char*>(dev_out_.get()) + at, n,
                                   cudaMemcpyDeviceToHost, slot.stream.get()));
    DCT_CUDA_CHECK(cudaStreamSynchronize(slot.stream.get()));
    out.write(at, slot.chunk.get(), n);
  });
  t.out_ms = sw.lap_ms();
  return t;
}

// ---- tables --------------------------------------------------------------------------------------

template <class T>
AxisTableBuffers<T>::AxisTableBuffers(i64 n, core::Norm norm, double gain, double scale)
    : tw_(sizeof(cx_t<T>) * n), fs_(sizeof(T) * n), ia_(sizeof(T) * n) {
  std::vector<cx_t<T>> tw(n);
  std::vector<T> fs(n), ia(n);
  const long double pi = 3.141592653589793238462643383279502884L;
  const bool ortho = norm == core::Norm::kOrtho;
  for (i64 k = 0; k < n; ++k) {
    const long double th = pi * static_cast<long double>(k) / (2.0L * static_cast<long double>(n));
    tw[k] = cx_t<T>{static_cast<T>(std::cos(th)), static_cast<T>(-std::sin(th))};
    long double f = 1.0L;
    if (ortho) f = std::sqrt(1.0L / (2.0L * n)) * (k == 0 ? std::sqrt(0.5L) : 1.0L);
    fs[k] = static_cast<T>(gain * scale * f);
    ia[k] = static_cast<T>(scale * (ortho ? 1.0L / f : 1.0L) / (2.0L * n));
  }
  DCT_CUDA_CHECK(cudaMemcpy(tw_.get(), tw.data(), tw_.bytes(), cudaMemcpyHostToDevice));
  DCT_CUDA_CHECK(cudaMemcpy(fs_.get(), fs.data(), fs_.bytes(), cudaMemcpyHostToDevice));
  DCT_CUDA_CHECK(cudaMemcpy(ia_.get(), ia.data(), ia_.bytes(), cudaMemcpyHostToDevice));
}

// ---- FftStage ------------------------------------------------------------------------------------

namespace {
template <class T>
cufftType cufft_type(FftType t);
template <>
cufftType cufft_type<float>(FftType t) {
  return t == FftType::kR2C ? CUFFT_R2C : t == FftType::kC2R ? CUFFT_C2R : CUFFT_C2C;
}
template <>
cufftType cufft_type<double>(FftType t) {
  return t == FftType::kR2C ? CUFFT_D2Z : t == FftType::kC2R ? CUFFT_Z2D : CUFFT_Z2Z;
}
bool is_c2c(FftType t) { return t == FftType::kC2CForward || t == FftType::kC2CInverse; }
template <class T>
std::size_t in_elem(FftType t) {
  return t == FftType::kR2C ? sizeof(T) : sizeof(cx_t<T>);
}
template <class T>
std::size_t out_elem(FftType t) {
  return t == FftType::kC2R ? sizeof(T) : sizeof(cx_t<T>);
}
}  // namespace

template <class T>
void FftStage<T>::plan(int rank, long long* n, long long* inembed, long long istride, long long idist,
                       long long* onembed, long long ostride, long long odist, long long batch) {
  plan_ = std::make_unique<CufftPlan>();
  std::size_t work = 0;
  const cufftResult r = cufftMakePlanMany64(plan_->get(), rank, n, inembed, istride, idist, onembed, ostride, odist,
                                            cufft_type<T>(type_), batch, &work);
  if (r == CUFFT_SUCCESS) return;
  cudaGetLastError();
  // cuFFT reports a plan whose work area does not fit as CUFFT_ALLOC_FAILED or, for 64-bit sizes, as
  // CUFFT_INTERNAL_ERROR: say what it needs (its size query) against what is free.
  std::size_t need = 0;
  {
    CufftPlan probe;
    if (cufftGetSizeMany64(probe.get(), rank, n, inembed, istride, idist, onembed, ostride, odist, cufft_type<T>(type_),
                           batch, &need) != CUFFT_SUCCESS)
      need = 0;
  }
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
  if (r == CUFFT_ALLOC_FAILED || (need > 0 && need > free_b) || (r == CUFFT_INTERNAL_ERROR && need == 0))
    throw Error(ErrorCode::kRuntime, "",
                std::string("out of GPU memory: cuFFT's plan ") +
                    (need > 0 ? "needs a work area of " + bytes_text(need) : "could not be made") + " (" +
                    device_memory_text() + "; " + cufft_result_name(r) + ")",
                Fault::kDeviceMemory);
  throw_cufft_error(r, "cufftMakePlanMany64", __FILE__, __LINE__);
}

template <class T>
FftStage<T> FftStage<T>::lines(FftType t, i64 n, i64 count) {
  FftStage s;
  s.type_ = t;
  if (n == 1 && !is_c2c(t)) {
    s.identity_count_ = count;
    return s;
  }
  long long nn[1] = {n};
  s.plan(1, nn, nullptr, 1, 0, nullptr, 1, 0, count);
  return s;
}

template <class T>
FftStage<T> FftStage<T>::strided_lines(FftType t, i64 n, i64 in_len, i64 out_len, i64 count, i64 blocks) {
  FftStage s;
  s.type_ = t;
  if (n == 1 && !is_c2c(t)) {  // one element per line: the interleaved order is the contiguous one
    s.identity_count_ = count * blocks;
    return s;
  }
  long long nn[1] = {n}, ie[1] = {in_len}, oe[1] = {out_len};
  s.plan(1, nn, ie, count, 1, oe, count, 1, count);
  s.loops_ = blocks;
  s.in_step_ = in_len * count;
  s.out_step_ = out_len * count;
  return s;
}

template <class T>
FftStage<T> FftStage<T>::matrix(FftType t, i64 n1, i64 n2, i64 batch) {
  if (n1 == 1) return lines(t, n2, batch);
  if (n2 == 1) return lines(t, n1, batch);  // callers transpose N1 x 1 to 1 x N1 (same memory)
  FftStage s;
  s.type_ = t;
  long long nn[2] = {n1, n2};
  s.plan(2, nn, nullptr, 1, 0, nullptr, 1, 0, batch);
  return s;
}

template <class T>
FftStage<T> FftStage<T>::array(FftType t, int rank, const i64* n, i64 batch) {
  if (rank == 1) return lines(t, n[0], batch);
  FftStage s;
  s.type_ = t;
  long long nn[3] = {};
  for (int a = 0; a < rank; ++a) nn[a] = n[a];
  s.plan(rank, nn, nullptr, 1, 0, nullptr, 1, 0, batch);
  return s;
}

template <class T>
FftStage<T> FftStage<T>::complex_columns(FftType t, i64 n1, i64 w, i64 batch, i64 pitch) {
  FftStage s;
  s.type_ = t;
  if (n1 == 1) return s;  // identity in place: nothing to do
  if (pitch <= 0) pitch = w;
  long long nn[1] = {n1};
  long long em[1] = {n1};
  s.plan(1, nn, em, pitch, 1, em, pitch, 1, w);
  s.loops_ = batch;
  s.in_step_ = s.out_step_ = n1 * pitch;
  return s;
}

template <class T>
FftStage<T> FftStage<T>::columns(FftType t, i64 n1, i64 n2, i64 batch, i64 real_pitch) {
  FftStage s;
  s.type_ = t;
  const i64 nc = n1 / 2 + 1;
  if (n1 == 1) {
    s.identity_count_ = n2 * batch;
    return s;
  }
  long long nn[1] = {n1};
  long long re[1] = {n1}, cx[1] = {nc};
  const bool r2c = t == FftType::kR2C;
  s.plan(1, nn, r2c ? re : cx, n2, 1, r2c ? cx : re, n2, 1, n2);
  s.loops_ = batch;
  s.in_step_ = r2c ? real_pitch : nc * n2;
  s.out_step_ = r2c ? nc * n2 : real_pitch;
  return s;
}

template <class T>
void FftStage<T>::run(const void* in, void* out, cudaStream_t st) const {
  if (!plan_) {
    if (is_c2c(type_)) return;  // length-1 C2C in place
    if (type_ == FftType::kR2C)
      identity_r2c<T>(static_cast<const T*>(in), static_cast<cx_t<T>*>(out), identity_count_, st);
    else
      identity_c2r<T>(static_cast<const cx_t<T>*>(in), static_cast<T*>(out), identity_count_, st);
    return;
  }
  const cufftHandle h = plan_->get();
  DCT_CUFFT_CHECK(cufftSetStream(h, st));
  for (i64 i = 0; i < loops_; ++i) {
    void* src = const_cast<char*>(static_cast<const char*>(in)) + i * in_step_ * in_elem<T>(type_);
    void* dst = static_cast<char*>(out) + i * out_step_ * out_elem<T>(type_);
    if constexpr (std::is_same_v<T, float>) {
      switch (type_) {
        case FftType::kR2C:
          DCT_CUFFT_CHECK(cufftExecR2C(h, static_cast<cufftReal*>(src), static_cast<cufftComplex*>(dst)));
          break;
        case FftType::kC2R:
          DCT_CUFFT_CHECK(cufftExecC2R(h, static_cast<cufftComplex*>(src), static_cast<cufftReal*>(dst)));
          break;
        case FftType::kC2CForward:
          DCT_CUFFT_CHECK(
              cufftExecC2C(h, static_cast<cufftComplex*>(src), static_cast<cufftComplex*>(dst), CUFFT_FORWARD));
          break;
        case FftType::kC2CInverse:
          DCT_CUFFT_CHECK(
              cufftExecC2C(h, static_cast<cufftComplex*>(src), static_cast<cufftComplex*>(dst), CUFFT_INVERSE));
          break;
      }
    } else {
      switch (type_) {
        case FftType::kR2C:
          DCT_CUFFT_CHECK(cufftExecD2Z(h, static_cast<cufftDoubleReal*>(src), static_cast<cufftDoubleComplex*>(dst)));
          break;
        case FftType::kC2R:
          DCT_CUFFT_CHECK(cufftExecZ2D(h, static_cast<cufftDoubleComplex*>(src), static_cast<cufftDoubleReal*>(dst)));
          break;
        case FftType::kC2CForward:
          DCT_CUFFT_CHECK(cufftExecZ2Z(h, static_cast<cufftDoubleComplex*>(src), static_cast<cufftDoubleComplex*>(dst),
                                       CUFFT_FORWARD));
          break;
        case FftType::kC2CInverse:
          DCT_CUFFT_CHECK(cufftExecZ2Z(h, static_cast<cufftDoubleComplex*>(src), static_cast<cufftDoubleComplex*>(dst),
                                       CUFFT_INVERSE));
          break;
      }
    }
  }
}

template class AxisTableBuffers<float>;
template class AxisTableBuffers<double>;
template class FftStage<float>;
template class FftStage<double>;

// ---- support -------------------------------------------------------------------------------------

namespace {
double median_ms(const core::Plan& p, core::ConstView in, core::View out) {
  std::vector<double> t;
  for (int i = 0; i < 6; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    p.execute(in, out);
    DCT_CUDA_CHECK(cudaDeviceSynchronize());
    if (i > 0) t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

std::unique_ptr<core::Plan> faster_plan(std::unique_ptr<core::Plan> a, std::unique_ptr<core::Plan> b,
                                        const core::TransformDesc& d) {
  const DeviceBuffer in(d.bytes()), out(d.bytes());
  DCT_CUDA_CHECK(cudaMemset(in.get(), 0, d.bytes()));
  const core::ConstView vin{in.get(), d.shape, d.batch, d.prec, core::Memory::kDevice};
  const core::View vout{out.get(), d.out_shape(), d.batch, d.prec, core::Memory::kDevice};
  return median_ms(*b, vin, vout) < median_ms(*a, vin, vout) ? std::move(b) : std::move(a);
}

core::Support dct_support(const core::TransformDesc& d, bool rows_only, const char* rows_only_reason) {
  if (d.op != core::Op::kDct2 && d.op != core::Op::kIdct2)
    return core::Support::no("implements dct2 and idct2 only (DCT-II and its inverse)");
  if (d.block != 0) return core::Support::no("whole-matrix transforms only; --block is the 8x8 backends' work");
  if (d.shape.rows < 1 || d.shape.cols < 1 || d.batch < 1) return core::Support::no("empty input");
  if (rows_only && d.axis != core::Axis::kRows) return core::Support::no(rows_only_reason);
  return core::Support::yes();
}

void throw_unsupported(std::string_view backend, const core::TransformDesc& d, const core::Support& s) {
  throw Error(ErrorCode::kUnsupported, std::string(backend), "does not support " + d.to_string() + ": " + s.reason);
}

}  // namespace dct::cuda
