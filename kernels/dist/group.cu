// A transform over several GPUs of this process (kernels/dist/group.hpp). Device r holds its slab, rows [a_r, a_r +
// m_r) of axis 0, in a buffer of its own and transforms axes 1 and 2 into another. Then each device r pulls, from
// every device s, the block of s's slab at r's columns [b_r, b_r + c_r) of axis 1: 2-D copies (rows of c_r * n2
// values, pitch n1 * n2 at the source) straight into row a_s of its axis-0 plan's input, an (n0, c_r, n2) array, so
// nothing is packed before or rearranged after (peer copies over NVLink where the devices reach each other, through
// the host otherwise). Its axis-0 plan then transforms that array along axis 0 where it lies; the result is r's part of
// the output, n0 runs of c_r * n2 values. The slab step runs in kExchangeChunks chunks of planes on each device's
// compute stream, and each device's copy stream pulls a chunk's blocks as soon as its source has finished that chunk,
// so the exchange overlaps the slab step; a device's axis-0 step waits for its copies. Nothing else crosses devices
// (each step writes a buffer no other device reads). docs/distributed.md.
#include "kernels/dist/group.hpp"

#include <algorithm>
#include <string>

#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/timing.hpp"
#include "kernels/common/plan.cuh"

namespace dct::cuda {
namespace {

using core::dist::Part;
using core::dist::part_of;

// The slab step in 4 chunks of planes: the copies of a chunk start when it is done, so the exchange overlaps the rest
// of the step (docs/decisions.md, "Several GPUs of one process").
constexpr int kExchangeChunks = 4;

// The CUDA plan behind a local step (its device buffers are the group's), or kUnsupported.
const GpuPlan& gpu_plan(const std::unique_ptr<core::Plan>& p) {
  const auto* g = dynamic_cast<const GpuPlan*>(p.get());
  if (g == nullptr)
    throw Error(ErrorCode::kUnsupported, "the local steps of a transform over several GPUs run on a CUDA backend (" +
                                             p->desc().to_string() + " got a host plan)");
  return *g;
}

// Lets each device of the list read the others' memory directly where the hardware allows (NVLink or PCIe peer);
// elsewhere the copies go through the host, as cudaMemcpy does between devices without peer access.
void enable_peer_access(const std::vector<int>& devices) {
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      DCT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) continue;
      DCT_CUDA_CHECK(cudaSetDevice(a));
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();
      else
        DCT_CUDA_CHECK(e);
    }
}

class Group final : public core::dist::DeviceGroup {
 public:
  Group(const core::TransformDesc& whole, const std::vector<int>& devices, const DevicePlanMaker& make);

  const core::TransformDesc& desc() const override { return whole_; }
  core::Memory memory() const override { return core::Memory::kHost; }
  void execute(core::ConstView in, core::View out, core::Stream = {}) const override {
    execute_timed(in.data, out.data);
  }
  core::StageTimes execute_host(core::ConstView in, core::View out) const override {
    const core::dist::GroupTimes g = execute_timed(in.data, out.data);
    core::StageTimes t;
    t.h2d_ms = g.upload_ms;
    t.device_ms = g.local_ms + g.exchange_ms;
    t.d2h_ms = g.download_ms;
    t.e2e_ms = g.total_ms;
    return t;
  }
  int devices() const override { return static_cast<int>(parts_.size()); }
  core::dist::GroupTimes execute_timed(const void* in, void* out) const override;
  core::dist::GroupTimes run_resident() const override;
  double exchange_only_ms() const override { return run(false).exchange_ms; }
  double peer_copy_ms() const override;

 private:
  struct Slab {
    int device = 0;
    Part rows, cols;  // of axis 0 (the slab), of axis 1 (after the exchange)
    // The slab step by chunks of planes (rows relative to the slab), each chunk's plan (chunks of one size share
    // one); empty where axes 1 and 2 are not transformed.
    std::vector<Part> chunks;
    std::vector<const core::Plan*> chunk_plan;
    std::vector<std::unique_ptr<core::Plan>> slab_plans;
    std::unique_ptr<core::Plan> axis0_plan;  // absent where axis 0 is not transformed or the device has no columns
    DeviceBuffer slab_in, slab_out;          // the slab (m, n1, n2), before and after axes 1 and 2
    const void* mid = nullptr;               // the slab after axes 1 and 2 (slab_in where they are not transformed)
    void* recv = nullptr;                    // (n0, c, n2): axis 0 whole
    const void* result = nullptr;            // this device's part of the output
    // Made on the slab's device: the compute stream, the copy stream (the blocks from the other devices) and the
    // stream of the block this device keeps (a copy within its memory, alongside the peer copies: one stream for both
    // made the exchange take the sum of the two, 66-69% of the peer bandwidth, 2 x H200).
    CudaStream stream, copy_stream, self_stream;
    std::vector<CudaEvent> chunk_done;
    CudaEvent start, local, copy_start, copied, self_copied, stop;
  };

  std::size_t row_bytes() const { return static_cast<std::size_t>(n1_ * n2_) * es_; }
  // Bytes of the block device s sends device r.
  std::size_t block_bytes(const Slab& s, const Slab& r) const {
    return static_cast<std::size_t>(s.rows.count * r.cols.count * n2_) * es_;
  }
  // Queues the transform of the slabs on the devices' streams (`compute` false: the exchange's copies alone); waits
  // for it; the stages' times.
  core::dist::GroupTimes run(bool compute = true) const;

  core::TransformDesc whole_;
  std::int64_t n0_ = 1, n1_ = 1, n2_ = 1;
  std::size_t es_ = 4;
  bool exchange_ = false;
  std::vector<std::unique_ptr<Slab>> parts_;
};

core::ConstView device_view(const core::TransformDesc& d, const void* p) {
  return core::ConstView{p, d.shape, d.batch, d.prec, core::Memory::kDevice};
}
core::View device_view(const core::TransformDesc& d, void* p) {
  return core::View{p, d.shape, d.batch, d.prec, core::Memory::kDevice};
}

Group::Group(const core::TransformDesc& whole, const std::vector<int>& devices, const DevicePlanMaker& make)
    : whole_(whole), es_(element_size(whole.prec)) {
  const core::R2rSpec& s = whole.r2r;
  if (whole.op != core::Op::kR2r || whole.batch != 1 || s.rank < 2 || s.rank > core::kMaxR2rRank)
    throw Error(ErrorCode::kUnsupported,
                "a transform over several GPUs is of one 2-D or 3-D array (this is " + whole.to_string() + ")");
  const int p = static_cast<int>(devices.size());
  n0_ = s.dims[0];
  n1_ = s.dims[1];
  n2_ = s.rank == 3 ? s.dims[2] : 1;
  if (p < 1 || p > n0_)
    throw Error(ErrorCode::kUnsupported, "the first axis (" + std::to_string(n0_) +
                                             ") is split among the GPUs: at most " + std::to_string(n0_) +
                                             " GPUs for " + s.dims_text() + ", not " + std::to_string(p));
  exchange_ = s.kinds[0] != core::R2rKind::kNone;
  bool other_axes = false;
  for (int a = 1; a < s.rank; ++a) other_axes = other_axes || s.kinds[a] != core::R2rKind::kNone;
  auto desc_of = [&](const core::R2rSpec& spec) {
    core::TransformDesc d = core::r2r_desc(spec, whole.norm, 1, whole.prec);
    d.effort = whole.effort;
    return d;
  };
  enable_peer_access(devices);
  for (int r = 0; r < p; ++r) {
    DCT_CUDA_CHECK(cudaSetDevice(devices[static_cast<std::size_t>(r)]));
    auto slab = std::make_unique<Slab>();  // its stream and events on its device
    Slab& x = *slab;
    x.device = devices[static_cast<std::size_t>(r)];
    x.rows = part_of(n0_, p, r);
    x.cols = part_of(n1_, p, r);
    x.slab_in = DeviceBuffer(static_cast<std::size_t>(x.rows.count) * row_bytes());
    x.mid = x.slab_in.get();
    const int chunks = static_cast<int>(std::min<std::int64_t>(kExchangeChunks, x.rows.count));
    for (int k = 0; k < chunks; ++k) {
      x.chunks.push_back(part_of(x.rows.count, chunks, k));
      x.chunk_done.emplace_back();
    }
    if (other_axes) {
      x.slab_out = DeviceBuffer(static_cast<std::size_t>(x.rows.count) * row_bytes());
      x.mid = x.slab_out.get();
      for (const Part& c : x.chunks) {  // chunk sizes differ by one at most: one or two plans
        const core::Plan* same = nullptr;
        for (const auto& q : x.slab_plans)
          if (q->desc().r2r.dims[0] == c.count) same = q.get();
        if (same == nullptr) {
          core::R2rSpec local = s;
          local.kinds[0] = core::R2rKind::kNone;
          local.dims[0] = c.count;
          x.slab_plans.push_back(make(desc_of(local), x.device));
          (void)gpu_plan(x.slab_plans.back());
          same = x.slab_plans.back().get();
        }
        x.chunk_plan.push_back(same);
      }
      DCT_CUDA_CHECK(cudaSetDevice(x.device));
    }
    x.result = x.mid;
    if (exchange_ && x.cols.count > 0) {
      core::R2rSpec lines;  // axis 0 of the (n0, c, n2) block, where it lies
      lines.rank = 2;
      lines.dims = {n0_, x.cols.count * n2_, 0};
      lines.kinds = {s.kinds[0], core::R2rKind::kNone, core::R2rKind::kNone};
      lines.inverse = s.inverse;
      x.axis0_plan = make(desc_of(lines), x.device);
      const GpuPlan& g = gpu_plan(x.axis0_plan);
      x.recv = g.device_input();
      x.result = g.device_output();
    }
    parts_.push_back(std::move(slab));
  }
}

core::dist::GroupTimes Group::run(bool compute) const {
  core::Stopwatch sw;
  for (const auto& x : parts_) {
    DCT_CUDA_CHECK(cudaSetDevice(x->device));
    const cudaStream_t st = x->stream.get();
    x->start.record(st);
    for (std::size_t k = 0; k < x->chunks.size(); ++k) {
      if (compute && !x->chunk_plan.empty()) {
        const core::Plan& plan = *x->chunk_plan[k];
        const std::size_t at = static_cast<std::size_t>(x->chunks[k].begin) * row_bytes();
        plan.execute(device_view(plan.desc(), static_cast<const char*>(x->slab_in.get()) + at),
                     device_view(plan.desc(), static_cast<char*>(const_cast<void*>(x->mid)) + at), core::Stream{st});
      }
      x->chunk_done[k].record(st);
    }
    x->local.record(st);
  }
  if (exchange_)
    for (const auto& r : parts_) {
      DCT_CUDA_CHECK(cudaSetDevice(r->device));
      const cudaStream_t cs = r->copy_stream.get(), ss = r->self_stream.get();
      r->copy_start.record(cs);
      DCT_CUDA_CHECK(cudaStreamWaitEvent(ss, r->copy_start.get(), 0));
      const std::size_t width = static_cast<std::size_t>(r->cols.count * n2_) * es_;
      // Chunk by chunk over the sources, so that the first chunks' blocks move while the last ones are transformed.
      for (std::size_t k = 0; k < kExchangeChunks && width > 0; ++k)
        for (const auto& s : parts_) {
          if (k >= s->chunks.size()) continue;
          const Part c = s->chunks[k];
          const cudaStream_t on = s == r ? ss : cs;
          DCT_CUDA_CHECK(cudaStreamWaitEvent(on, s->chunk_done[k].get(), 0));
          DCT_CUDA_CHECK(
              cudaMemcpy2DAsync(static_cast<char*>(r->recv) + (s->rows.begin + c.begin) * width, width,
                                static_cast<const char*>(s->mid) + c.begin * row_bytes() + r->cols.begin * n2_ * es_,
                                row_bytes(), width, static_cast<std::size_t>(c.count), cudaMemcpyDefault, on));
        }
      r->self_copied.record(ss);
      DCT_CUDA_CHECK(cudaStreamWaitEvent(cs, r->self_copied.get(), 0));
      r->copied.record(cs);
      DCT_CUDA_CHECK(cudaStreamWaitEvent(r->stream.get(), r->copied.get(), 0));
      if (compute && r->axis0_plan)
        r->axis0_plan->execute(device_view(r->axis0_plan->desc(), static_cast<const void*>(r->recv)),
                               device_view(r->axis0_plan->desc(), const_cast<void*>(r->result)),
                               core::Stream{r->stream.get()});
    }
  for (const auto& x : parts_) {
    DCT_CUDA_CHECK(cudaSetDevice(x->device));
    x->stop.record(x->stream.get());
  }
  core::dist::GroupTimes t;
  for (const auto& x : parts_) {
    DCT_CUDA_CHECK(cudaSetDevice(x->device));
    DCT_CUDA_CHECK(cudaStreamSynchronize(x->stream.get()));
    double local = x->local.since(x->start);
    if (exchange_) {
      // The exchange's time past this device's slab step (its copies of earlier chunks ran during the step).
      const double after = x->copied.since(x->local);
      t.exchange_ms = std::max(t.exchange_ms, std::max(0.0, after));
      local += x->stop.since(x->copied);
      for (const auto& s : parts_)
        if (s != x) t.bytes_sent += static_cast<std::int64_t>(block_bytes(*s, *x));
    }
    t.local_ms = std::max(t.local_ms, local);
  }
  t.total_ms = sw.elapsed_ms();
  return t;
}

core::dist::GroupTimes Group::execute_timed(const void* in, void* out) const {
  core::Stopwatch sw;
  // One host thread per device: the driver copies ordinary (pageable) memory through its own page-locked chunks,
  // returning when the copy is done, so one thread would serve the devices in turn.
  core::run_parts(parts_.size(), [&](std::size_t k) {
    const Slab& x = *parts_[k];
    DCT_CUDA_CHECK(cudaSetDevice(x.device));
    DCT_CUDA_CHECK(cudaMemcpyAsync(x.slab_in.get(), static_cast<const char*>(in) + x.rows.begin * row_bytes(),
                                   static_cast<std::size_t>(x.rows.count) * row_bytes(), cudaMemcpyHostToDevice,
                                   x.stream.get()));
    DCT_CUDA_CHECK(cudaStreamSynchronize(x.stream.get()));
  });
  const double upload_ms = sw.lap_ms();
  core::dist::GroupTimes t = run();
  sw.reset();
  core::run_parts(parts_.size(), [&](std::size_t k) {
    const Slab& x = *parts_[k];
    DCT_CUDA_CHECK(cudaSetDevice(x.device));
    if (!exchange_) {
      DCT_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(out) + x.rows.begin * row_bytes(), x.result,
                                     static_cast<std::size_t>(x.rows.count) * row_bytes(), cudaMemcpyDeviceToHost,
                                     x.stream.get()));
    } else if (x.cols.count > 0) {  // n0 runs of c * n2 values, one per row of axis 0
      const std::size_t width = static_cast<std::size_t>(x.cols.count * n2_) * es_;
      DCT_CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(out) + x.cols.begin * n2_ * es_, row_bytes(), x.result, width,
                                       width, static_cast<std::size_t>(n0_), cudaMemcpyDeviceToHost, x.stream.get()));
    }
    DCT_CUDA_CHECK(cudaStreamSynchronize(x.stream.get()));
  });
  t.upload_ms = upload_ms;
  t.download_ms = sw.elapsed_ms();
  t.total_ms += upload_ms + t.download_ms;
  return t;
}

core::dist::GroupTimes Group::run_resident() const { return run(); }

double Group::peer_copy_ms() const {
  if (parts_.size() < 2 || !exchange_) return 0;
  for (const auto& r : parts_) {
    DCT_CUDA_CHECK(cudaSetDevice(r->device));
    r->copy_start.record(r->stream.get());
    for (const auto& s : parts_)
      if (s != r && block_bytes(*s, *r) > 0)
        DCT_CUDA_CHECK(cudaMemcpyAsync(r->recv, s->mid, block_bytes(*s, *r), cudaMemcpyDefault, r->stream.get()));
    r->copied.record(r->stream.get());
  }
  double ms = 0;
  for (const auto& r : parts_) {
    DCT_CUDA_CHECK(cudaSetDevice(r->device));
    ms = std::max<double>(ms, r->copied.since(r->copy_start));
  }
  return ms;
}

}  // namespace

std::unique_ptr<core::dist::DeviceGroup> make_device_group(const core::TransformDesc& whole,
                                                           const std::vector<int>& devices,
                                                           const DevicePlanMaker& make) {
  return std::make_unique<Group>(whole, devices, make);
}

}  // namespace dct::cuda
