#pragma once
// One real-to-real transform of a 2-D or 3-D array spread over the processes of a job (docs/distributed.md): a slab
// of axis 0 per process; the axes it holds whole (1 and 2) transformed where they lie; one all-to-all after which each
// process holds all of axis 0 for a slab of axis 1; then axis 0. The local steps are plans a backend makes for the
// local shapes (PlanMaker: the registry's choice), so any backend of the r2r family can do them; the processes talk
// through an Exchange (MPI in app/exchange_mpi.cpp, LocalExchange for one process). core includes no MPI header.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"

namespace dct::core::dist {

// Part r of `parts` of n items: [begin, begin + count), the first n % parts parts one item longer.
struct Part {
  std::int64_t begin = 0, count = 0;
};
Part part_of(std::int64_t n, int parts, int r);

// The processes of a distributed transform and the collectives it needs. Every call is collective: each rank makes
// it, in the same order.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool root() const { return rank() == 0; }
  // Items of `unit` bytes: send_counts[r] items from send + send_displs[r] items go to rank r; recv_counts[r] items
  // from rank r land at recv + recv_displs[r] items.
  virtual void alltoallv(const void* send, const std::vector<std::int64_t>& send_counts,
                         const std::vector<std::int64_t>& send_displs, void* recv,
                         const std::vector<std::int64_t>& recv_counts, const std::vector<std::int64_t>& recv_displs,
                         std::size_t unit) = 0;
  // `bytes` to every rank from send + r * bytes, into recv + r * bytes: the plain all-to-all bench compares with.
  virtual void alltoall(const void* send, void* recv, std::size_t bytes) = 0;
  virtual void barrier() = 0;
  virtual double max(double v) = 0;
  virtual double sum(double v) = 0;
  // Rank 0's `text`, on every rank.
  virtual std::string broadcast(const std::string& text) = 0;
  // The outcome of a step every rank took: the error of the lowest rank that failed, on every rank; nothing when none
  // failed.
  virtual std::optional<Error> agree(const std::optional<Error>& mine) = 0;
};

// A job of one process: the all-to-all is a copy, the agreement its own outcome.
class LocalExchange final : public Exchange {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void alltoallv(const void* send, const std::vector<std::int64_t>& send_counts,
                 const std::vector<std::int64_t>& send_displs, void* recv, const std::vector<std::int64_t>& recv_counts,
                 const std::vector<std::int64_t>& recv_displs, std::size_t unit) override;
  void alltoall(const void* send, void* recv, std::size_t bytes) override;
  void barrier() override {}
  double max(double v) override { return v; }
  double sum(double v) override { return v; }
  std::string broadcast(const std::string& text) override { return text; }
  std::optional<Error> agree(const std::optional<Error>& mine) override { return mine; }
};

// Runs `step` on this rank, then agrees on the outcome: throws on every rank the error of the lowest rank whose step
// failed (any exception becomes an Error: out of host memory, internal).
void collective(Exchange& ex, const std::function<void()>& step);

// Makes the plan of a local step (the caller picks the backend).
using PlanMaker = std::function<std::unique_ptr<Plan>(const TransformDesc&)>;

// One execute's stages on this rank (milliseconds), and the bytes it sent to other ranks.
struct SlabTimes {
  double local_ms = 0;     // the local transforms
  double copy_ms = 0;      // the local rearranging: the slab cut into blocks, axis 0 turned into lines and back
  double exchange_ms = 0;  // the all-to-all
  std::int64_t bytes_sent = 0;
};

// The most values one local plan transforms at once (docs/decisions.md, "Distributed local steps").
constexpr std::int64_t kChunkElements = std::int64_t{1} << 28;

class SlabTransform {
 public:
  // `whole`: a kR2r descriptor of a 2-D or 3-D array, batch 1 (as core::r2r::check_r2r_desc accepts). With no more
  // processes than rows of axis 0, slabs of axis 0 (axes 1 and 2 first, then axis 0); a 3-D array on more processes
  // than its n0 planes is cut into pencils instead: its n0·n1 lines of axis 2 split among the processes (axis 2
  // first), then slabs of axis 2 (axes 0 and 1). Throws kUnsupported for a 1-D array, a 2-D array on more processes
  // than rows, or a 3-D array on more than n0·n1. The local plans are made here, by `make`; the local copies run on
  // `threads` threads.
  // `chunk_elements`: the most values one local plan takes (tests make it small).
  SlabTransform(const TransformDesc& whole, int rank, int size, const PlanMaker& make, int threads = 1,
                std::int64_t chunk_elements = kChunkElements);

  // This rank's slab of the input: rows [begin, begin + count) of axis 0 (pencils: lines of axis 2, axes 0 and 1 as
  // one), each of row_elements() values.
  Part rows() const { return rows_; }
  std::int64_t row_elements() const { return n1_ * n2_; }
  // Values each of execute's two buffers holds.
  std::int64_t buffer_elements() const;
  // Where this rank's result goes in the whole array: `count` runs of `length` values, the first at value `first`
  // (C order), the next ones every `stride` values; they follow each other in the result buffer.
  struct Runs {
    std::int64_t first = 0, length = 0, count = 0, stride = 0;
  };
  Runs output() const;
  // Whether execute exchanges data (axis 0 is transformed; pencils: axis 0 or 1).
  bool exchanges() const { return exchange_; }
  // The local descriptors: axes 1 and 2 of the slab; axis 0 of the exchanged block, as the rows of a
  // (columns x n2, n0) array; absent where that step has nothing to do. Pencils: axis 2 of the (lines, n2) pencils;
  // axes 0 and 1 of the exchanged (n0, n1, columns of axis 2) block, one plan (not in chunks).
  const std::optional<TransformDesc>& slab_desc() const { return slab_desc_; }
  const std::optional<TransformDesc>& axis0_desc() const { return axis0_desc_; }

  // Transforms the slab in `a` (rows().count rows) using `b` as well (both of buffer_elements() values); returns the
  // buffer that holds the result, laid out as output() says. Collective.
  void* execute(Exchange& ex, void* a, void* b, SlabTimes* times = nullptr) const;

 private:
  // Copies the slab (rows x n1 x n2) into one block per destination rank (rows x its columns x n2), in rank order.
  void pack(const void* slab, void* blocks) const;

  // A local step in chunks of whole items of its first axis where that axis is untransformed (else one plan), so that
  // no plan holds more than chunk_elements values however large the slab: a GPU backend's plan keeps its input, output
  // and work area on the device. `full` takes `per` items, `last` the rest (absent when per divides the items).
  struct Chunked {
    std::unique_ptr<Plan> full, last;
    std::int64_t items = 0, per = 1, item_elements = 1;
    bool empty() const { return !full; }
    void run(const void* in, void* out) const;
  };
  static Chunked chunked(const TransformDesc& d, const PlanMaker& make, std::int64_t chunk_elements);

  TransformDesc whole_;
  int rank_ = 0, size_ = 1, threads_ = 1;
  std::int64_t n0_ = 1, n1_ = 1, n2_ = 1;
  Part rows_, cols_;  // this rank's rows of axis 0 (input), columns of axis 1 (after the exchange)
  bool exchange_ = false;
  bool pencils_ = false;  // more processes than planes of a 3-D array: n0_, n1_, n2_ are the view (n0·n1, n2, 1)
  std::optional<TransformDesc> slab_desc_, axis0_desc_;
  Chunked plan_slab_, plan_axis0_;
};

// One transform of a 2-D or 3-D array over several devices of this process, the slabs kept on them (kernels/dist/
// group.cu: GPUs, the exchange by peer copies between them; docs/distributed.md, "Several GPUs of one process"). The
// same decomposition as SlabTransform, device d of D taking the part of rank d of D. A Plan of host memory: execute()
// takes the whole array in and out (C order).
struct GroupTimes {
  double upload_ms = 0;    // the slabs onto the devices
  double local_ms = 0;     // the local transforms, the slowest device's
  double exchange_ms = 0;  // the copies between the devices past the slab step (they overlap it), the slowest device's
  double download_ms = 0;  // the parts of the result back into the output
  double total_ms = 0;
  std::int64_t bytes_sent = 0;  // that crossed between devices (a device's own block not counted)
};
class DeviceGroup : public Plan {
 public:
  virtual int devices() const = 0;
  // execute() with its stages timed. `in` may be `out`: every slab is on its device before any result comes back.
  virtual GroupTimes execute_timed(const void* in, void* out) const = 0;
  // The transform again on the input execute() last put on the devices, nothing moved to or from the host (bench).
  virtual GroupTimes run_resident() const = 0;
  // The exchange's copies alone, with no transform before or after them (their own rate), on the devices' data.
  virtual double exchange_only_ms() const = 0;
  // The bytes the exchange sends, moved by plain contiguous copies between every pair of devices at once: the links'
  // rate (bench's baseline); 0 with one device.
  virtual double peer_copy_ms() const = 0;
};

// bench --distributed: one transform timed across the job, and a plain all-to-all of the same bytes.
struct SlabBenchRow {
  std::string dims, precision;
  int processes = 1, reps = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;  // the whole transform (the slowest rank's time)
  double exchange_ms = 0;                        // the all-to-all's median (the slowest rank's)
  double exchange_bytes = 0;                     // bytes that crossed between ranks, all ranks together
  double alltoall_ms = 0;                        // a plain all-to-all of as many bytes, the median
  double copies_ms = 0;  // over devices: the exchange's copies timed alone (exchange_ms is their part past the slab
                         // step, which they overlap); 0 elsewhere
};
// Times `t` on synthetic data (never zeros) after `warmup` untimed runs. Collective.
SlabBenchRow bench_slab(Exchange& ex, const SlabTransform& t, const TransformDesc& whole, int reps, int warmup);
// The same for a transform over the devices of this process (processes 1): the data kept on the devices, the baseline
// plain copies of the same bytes between every pair of devices at once (DeviceGroup::peer_copy_ms).
SlabBenchRow bench_group(const DeviceGroup& group, const TransformDesc& whole, int reps, int warmup);

}  // namespace dct::core::dist
