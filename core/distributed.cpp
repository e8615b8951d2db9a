// The slab decomposition of core/distributed.hpp. Process r of P holds rows [r n0 / P ...) of axis 0 (Part): an
// (m_r, n1, n2) slab, transformed along axes 1 and 2 where it lies. For the exchange it is cut into one block per
// destination s, its columns [b_s, b_s + c_s) of axis 1, in rank order; the block from rank r lands at row a_r of the
// receiver's (n0, c_s, n2) array, so the received blocks need no rearranging: axis 0 is then whole. That array is
// also the receiver's part of the output in the output's own order: n0 runs of c_s * n2 values, one per row of axis 0.
// Axis 0 is transformed as contiguous lines: the (n0, c_s * n2) array transposed, its rows transformed, transposed
// back (FFTW along a strided axis of 2048 x 2048 f32 took 75-86 ms where the two transposes and contiguous rows took
// 39 ms, development machine). The normalization of the r2r family is a factor per index of each axis
// (core/r2r.hpp), so the two local steps, each with its own axes, compose to the transform of the whole.
#include "core/distributed.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <thread>

#include "core/cores.hpp"
#include "core/tensor.hpp"
#include "core/timing.hpp"

namespace dct::core::dist {

Part part_of(std::int64_t n, int parts, int r) {
  const std::int64_t base = n / parts, extra = n % parts;
  return {r * base + std::min<std::int64_t>(r, extra), base + (r < extra ? 1 : 0)};
}

void LocalExchange::alltoallv(const void* send, const std::vector<std::int64_t>& send_counts,
                              const std::vector<std::int64_t>& send_displs, void* recv,
                              const std::vector<std::int64_t>& recv_counts,
                              const std::vector<std::int64_t>& recv_displs, std::size_t unit) {
  if (send_counts[0] != recv_counts[0])
    throw Error(ErrorCode::kRuntime, "internal: an exchange of one process sends and receives different counts");
  std::memmove(static_cast<char*>(recv) + recv_displs[0] * static_cast<std::int64_t>(unit),
               static_cast<const char*>(send) + send_displs[0] * static_cast<std::int64_t>(unit),
               static_cast<std::size_t>(send_counts[0]) * unit);
}

void LocalExchange::alltoall(const void* send, void* recv, std::size_t bytes) { std::memmove(recv, send, bytes); }

void collective(Exchange& ex, const std::function<void()>& step) {
  std::optional<Error> mine;
  try {
    step();
  } catch (const Error& e) {
    mine = e;
  } catch (const std::bad_alloc&) {
    mine = Error(ErrorCode::kRuntime, "out of host memory");
  } catch (const std::exception& e) {
    mine = Error(ErrorCode::kRuntime, std::string("internal: ") + e.what());
  }
  if (std::optional<Error> agreed = ex.agree(mine)) throw *agreed;
}

SlabTransform::SlabTransform(const TransformDesc& whole, int rank, int size, const PlanMaker& make, int threads,
                             std::int64_t chunk_elements)
    : whole_(whole), rank_(rank), size_(size), threads_(std::max(1, threads)) {
  const R2rSpec& s = whole.r2r;
  if (whole.op != Op::kR2r || whole.batch != 1 || s.rank < 2 || s.rank > kMaxR2rRank)
    throw Error(ErrorCode::kUnsupported,
                "a distributed transform is of one 2-D or 3-D array (this is " + whole.to_string() + ")");
  n0_ = s.dims[0];
  n1_ = s.dims[1];
  n2_ = s.rank == 3 ? s.dims[2] : 1;
  // More processes than planes of a 3-D array: pencils (the array as n0·n1 lines of axis 2, split among the processes),
  // then slabs of axis 2. The view (n0·n1, n2, 1) goes through the same cutting, packing and exchange.
  pencils_ = s.rank == 3 && size > n0_;
  if (pencils_) {
    n0_ = s.dims[0] * s.dims[1];
    n1_ = s.dims[2];
    n2_ = 1;
  }
  if (size > n0_)
    throw Error(ErrorCode::kUnsupported, (pencils_ ? "the first two axes (" + std::to_string(n0_) + " lines) are"
                                                   : "the first axis (" + std::to_string(n0_) + ") is") +
                                             " split among the processes: at most " + std::to_string(n0_) +
                                             " processes for " + s.dims_text() + ", not " + std::to_string(size));
  rows_ = part_of(n0_, size, rank);
  cols_ = part_of(n1_, size, rank);
  exchange_ = s.kinds[0] != R2rKind::kNone || (pencils_ && s.kinds[1] != R2rKind::kNone);

  auto desc_of = [&](const R2rSpec& spec) {
    TransformDesc d = r2r_desc(spec, whole.norm, 1, whole.prec);
    d.effort = whole.effort;
    return d;
  };
  if (pencils_) {
    if (s.kinds[2] != R2rKind::kNone) {  // axis 2 of the pencils: (lines, n2)
      R2rSpec local = s;
      local.rank = 2;
      local.dims = {rows_.count, s.dims[2], 0};
      local.kinds = {R2rKind::kNone, s.kinds[2], R2rKind::kNone};
      slab_desc_ = desc_of(local);
      plan_slab_ = chunked(*slab_desc_, make, chunk_elements);
    }
    if (exchange_ && cols_.count > 0) {  // axes 0 and 1 of the (n0, n1, c) slab of axis 2, where they lie
      R2rSpec block = s;
      block.dims = {s.dims[0], s.dims[1], cols_.count};
      block.kinds = {s.kinds[0], s.kinds[1], R2rKind::kNone};
      axis0_desc_ = desc_of(block);
      plan_axis0_ = chunked(*axis0_desc_, make, chunk_elements);  // one plan: its first axis is transformed
    }
    return;
  }
  R2rSpec local = s;
  local.kinds[0] = R2rKind::kNone;
  local.dims[0] = rows_.count;
  bool other_axes = false;
  for (int a = 1; a < s.rank; ++a) other_axes = other_axes || s.kinds[a] != R2rKind::kNone;
  if (other_axes) {
    slab_desc_ = desc_of(local);
    plan_slab_ = chunked(*slab_desc_, make, chunk_elements);
  }
  if (exchange_ && cols_.count > 0) {
    R2rSpec lines;
    lines.rank = 2;
    lines.dims = {cols_.count * n2_, n0_, 0};
    lines.kinds = {R2rKind::kNone, s.kinds[0], R2rKind::kNone};
    lines.inverse = s.inverse;
    axis0_desc_ = desc_of(lines);
    plan_axis0_ = chunked(*axis0_desc_, make, chunk_elements);
  }
}

SlabTransform::Chunked SlabTransform::chunked(const TransformDesc& d, const PlanMaker& make,
                                              std::int64_t chunk_elements) {
  Chunked c;
  std::int64_t elements = 1;
  for (int a = 0; a < d.r2r.rank; ++a) elements *= d.r2r.dims[a];
  c.items = d.r2r.kinds[0] == R2rKind::kNone ? d.r2r.dims[0] : 1;  // a transformed first axis is never cut
  c.item_elements = elements / c.items;
  c.per = std::clamp<std::int64_t>(chunk_elements / std::max<std::int64_t>(1, c.item_elements), 1, c.items);
  auto with_items = [&](std::int64_t n) {
    R2rSpec spec = d.r2r;
    spec.dims[0] = n;
    TransformDesc t = r2r_desc(spec, d.norm, d.batch, d.prec);
    t.effort = d.effort;
    return t;
  };
  c.full = make(c.per == c.items ? d : with_items(c.per));
  if (c.items % c.per != 0) c.last = make(with_items(c.items % c.per));
  return c;
}

std::int64_t SlabTransform::buffer_elements() const {
  const std::int64_t slab = rows_.count * n1_ * n2_;
  return exchange_ ? std::max(slab, n0_ * cols_.count * n2_) : slab;
}

SlabTransform::Runs SlabTransform::output() const {
  if (!exchange_) return {rows_.begin * n1_ * n2_, rows_.count * n1_ * n2_, 1, rows_.count * n1_ * n2_};
  return {cols_.begin * n2_, cols_.count * n2_, cols_.count > 0 ? n0_ : 0, n1_ * n2_};
}

void SlabTransform::pack(const void* slab, void* blocks) const {
  const std::size_t line = static_cast<std::size_t>(n2_) * element_size(whole_.prec);
  const auto* src = static_cast<const char*>(slab);
  auto* dst = static_cast<char*>(blocks);
  for (int s = 0; s < size_; ++s) {
    const Part c = part_of(n1_, size_, s);
    for (std::int64_t i = 0; i < rows_.count; ++i, dst += c.count * line)
      std::memcpy(dst, src + (i * n1_ + c.begin) * line, static_cast<std::size_t>(c.count) * line);
  }
}

namespace {

// A tile of the transpose: square, in cache with its destination, written row by row (contiguously) and read
// column by column. At 2048 x 2048 f32 (a power-of-two stride) 3.7 ms where reading rows and writing columns took 14
// (development machine).
constexpr std::int64_t kTile = 32;

template <class T>
void transpose_rows(const T* in, T* out, std::int64_t rows, std::int64_t cols, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t i0 = r0; i0 < r1; i0 += kTile)
    for (std::int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const std::int64_t i1 = std::min(r1, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (std::int64_t j = j0; j < j1; ++j)
        for (std::int64_t i = i0; i < i1; ++i) out[j * rows + i] = in[i * cols + j];
    }
}

// out (cols x rows) = in (rows x cols) transposed, values of `esize` bytes; bands of tile rows on `threads` threads.
void transpose(const void* in, void* out, std::int64_t rows, std::int64_t cols, std::size_t esize, int threads) {
  auto band = [&](std::int64_t r0, std::int64_t r1) {
    if (esize == 4)
      transpose_rows(static_cast<const std::uint32_t*>(in), static_cast<std::uint32_t*>(out), rows, cols, r0, r1);
    else
      transpose_rows(static_cast<const std::uint64_t*>(in), static_cast<std::uint64_t*>(out), rows, cols, r0, r1);
  };
  // Threads only for arrays of 64 Ki values or more each, at most one per band of tiles.
  const std::int64_t tiles = (rows + kTile - 1) / kTile;
  const std::int64_t n = std::max<std::int64_t>(1, std::min({std::int64_t{threads}, tiles, rows * cols >> 16}));
  auto rows_of = [&](std::int64_t k) { return std::min(rows, tiles * k / n * kTile); };
  std::vector<std::thread> helpers;
  for (std::int64_t k = 1; k < n; ++k) helpers.emplace_back(band, rows_of(k), rows_of(k + 1));
  band(0, rows_of(1));
  for (auto& h : helpers) h.join();
}

// The plan run host to host on `in` -> `out`, each holding its descriptor's one array.
void run(const Plan& plan, const void* in, void* out) {
  const TransformDesc& d = plan.desc();
  plan.execute_host(ConstView{in, d.shape, 1, d.prec, Memory::kHost}, View{out, d.shape, 1, d.prec, Memory::kHost});
}

}  // namespace

void SlabTransform::Chunked::run(const void* in, void* out) const {
  const std::int64_t bytes = item_elements * static_cast<std::int64_t>(element_size(full->desc().prec));
  for (std::int64_t i = 0; i < items; i += per) {
    const Plan& plan = items - i >= per ? *full : *last;
    dist::run(plan, static_cast<const char*>(in) + i * bytes, static_cast<char*>(out) + i * bytes);
  }
}

void* SlabTransform::execute(Exchange& ex, void* a, void* b, SlabTimes* times) const {
  SlabTimes t;
  void* cur = a;
  auto other = [&](void* p) { return p == a ? b : a; };
  Stopwatch sw;
  if (!plan_slab_.empty()) {
    plan_slab_.run(cur, other(cur));
    cur = other(cur);
  }
  t.local_ms += sw.elapsed_ms();
  if (exchange_) {
    sw.reset();
    void* blocks = other(cur);
    pack(cur, blocks);
    t.copy_ms = sw.elapsed_ms();
    const auto p = static_cast<std::size_t>(size_);
    std::vector<std::int64_t> send_counts(p), send_displs(p), recv_counts(p), recv_displs(p);
    for (int r = 0; r < size_; ++r) {
      const Part c = part_of(n1_, size_, r), rows = part_of(n0_, size_, r);
      send_counts[r] = rows_.count * c.count;
      send_displs[r] = rows_.count * c.begin;
      recv_counts[r] = rows.count * cols_.count;
      recv_displs[r] = rows.begin * cols_.count;
      if (r != rank_) t.bytes_sent += send_counts[r] * n2_ * static_cast<std::int64_t>(element_size(whole_.prec));
    }
    sw.reset();
    ex.alltoallv(blocks, send_counts, send_displs, cur, recv_counts, recv_displs,
                 static_cast<std::size_t>(n2_) * element_size(whole_.prec));
    t.exchange_ms = sw.elapsed_ms();
    if (!plan_axis0_.empty() && pencils_) {
      sw.reset();
      plan_axis0_.run(cur, other(cur));
      cur = other(cur);
      t.local_ms += sw.elapsed_ms();
    } else if (!plan_axis0_.empty()) {
      const std::int64_t lines = cols_.count * n2_;
      sw.reset();
      transpose(cur, other(cur), n0_, lines, element_size(whole_.prec), threads_);
      t.copy_ms += sw.elapsed_ms();
      sw.reset();
      plan_axis0_.run(other(cur), cur);
      t.local_ms += sw.elapsed_ms();
      sw.reset();
      transpose(cur, other(cur), lines, n0_, element_size(whole_.prec), threads_);
      cur = other(cur);
      t.copy_ms += sw.elapsed_ms();
    }
  }
  if (times != nullptr) *times = t;
  return cur;
}

namespace {

// Value g of the synthetic input: smooth plus a hashed part, never all zeros.
template <class T>
void fill(T* p, std::int64_t first, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
    const auto g = static_cast<std::uint64_t>(first + i);
    p[i] = static_cast<T>(std::sin(0.001 * static_cast<double>(g)) +
                          static_cast<double>((g * 2654435761u) % 1024) / 1024.0);
  }
}

// The synthetic input of values [first, first + count) into p, on the process's cores.
void fill_values(void* p, Precision prec, std::int64_t first, std::int64_t count) {
  const auto parts = static_cast<std::size_t>(std::clamp<std::int64_t>(count >> 20, 1, usable_cores()));
  run_parts(parts, [&](std::size_t k) {
    const auto n = static_cast<std::int64_t>(parts), i = static_cast<std::int64_t>(k);
    const std::int64_t from = count * i / n, to = count * (i + 1) / n;
    if (prec == Precision::kF32)
      fill(static_cast<float*>(p) + from, first + from, to - from);
    else
      fill(static_cast<double*>(p) + from, first + from, to - from);
  });
}

// A bench row's times: the transform's median, min and max, the exchange's median.
SlabBenchRow timed_row(const TransformDesc& whole, int processes, int reps, const std::vector<double>& total,
                       const std::vector<double>& exchange) {
  SlabBenchRow row;
  row.dims = whole.r2r.dims_text();
  row.precision = std::string(to_string(whole.prec));
  row.processes = processes;
  row.reps = reps;
  const Stats s = summarize(total);
  row.median_ms = s.median;
  row.min_ms = s.min;
  row.max_ms = s.max;
  row.exchange_ms = summarize(exchange).median;
  return row;
}

}  // namespace

SlabBenchRow bench_slab(Exchange& ex, const SlabTransform& t, const TransformDesc& whole, int reps, int warmup) {
  const std::size_t esize = element_size(whole.prec);
  const auto n = static_cast<std::size_t>(t.buffer_elements());
  AlignedBuffer a(std::max<std::size_t>(n, 1) * esize), b(std::max<std::size_t>(n, 1) * esize);
  const std::int64_t first = t.rows().begin * t.row_elements(), count = t.rows().count * t.row_elements();
  auto refill = [&] { fill_values(a.data(), whole.prec, first, count); };
  std::vector<double> total, exchange;
  double bytes = 0;
  for (int k = 0; k < warmup + reps; ++k) {
    refill();
    ex.barrier();
    SlabTimes st;
    Stopwatch sw;
    t.execute(ex, a.data(), b.data(), &st);
    const double ms = ex.max(sw.elapsed_ms()), x_ms = ex.max(st.exchange_ms);
    bytes = ex.sum(static_cast<double>(st.bytes_sent));
    if (k < warmup) continue;
    total.push_back(ms);
    exchange.push_back(x_ms);
  }
  SlabBenchRow row = timed_row(whole, ex.size(), reps, total, exchange);
  row.exchange_bytes = bytes;
  // The baseline: every pair of ranks exchanging an equal share of the same bytes in one MPI_Alltoall.
  const int p = ex.size();
  if (p > 1 && bytes > 0) {
    const auto pair = static_cast<std::size_t>(bytes / (static_cast<double>(p) * (p - 1)));
    std::vector<char> send(pair * static_cast<std::size_t>(p), 1), recv(pair * static_cast<std::size_t>(p));
    std::vector<double> plain;
    for (int k = 0; k < warmup + reps; ++k) {
      ex.barrier();
      Stopwatch sw;
      ex.alltoall(send.data(), recv.data(), pair);
      const double ms = ex.max(sw.elapsed_ms());
      if (k >= warmup) plain.push_back(ms);
    }
    row.alltoall_ms = summarize(plain).median;
  }
  return row;
}

SlabBenchRow bench_group(const DeviceGroup& group, const TransformDesc& whole, int reps, int warmup) {
  const std::size_t esize = element_size(whole.prec);
  const auto n = static_cast<std::int64_t>(whole.elements());
  AlignedBuffer in(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * esize),
      out(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * esize);
  fill_values(in.data(), whole.prec, 0, n);
  group.execute_timed(in.data(), out.data());  // the input onto the devices
  std::vector<double> total, exchange, copies, plain;
  double bytes = 0;
  for (int k = 0; k < warmup + reps; ++k) {
    const GroupTimes t = group.run_resident();
    const double alone = group.exchange_only_ms(), peer = group.peer_copy_ms();
    bytes = static_cast<double>(t.bytes_sent);
    if (k < warmup) continue;
    total.push_back(t.total_ms);
    exchange.push_back(t.exchange_ms);
    copies.push_back(alone);
    plain.push_back(peer);
  }
  SlabBenchRow row = timed_row(whole, 1, reps, total, exchange);
  row.exchange_bytes = bytes;
  if (group.devices() > 1 && row.exchange_bytes > 0) {
    row.alltoall_ms = summarize(plain).median;
    row.copies_ms = summarize(copies).median;
  }
  return row;
}

}  // namespace dct::core::dist
