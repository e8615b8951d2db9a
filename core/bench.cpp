#include "core/bench.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/metrics.hpp"
#include "core/timing.hpp"

namespace dct::core {
namespace {

// Input sets are rotated so repeated runs do not measure a warm cache: enough sets to cover twice the
// cache, at most 8.
int rotation_count(std::size_t set_bytes, std::size_t cache_bytes) {
  if (set_bytes == 0 || set_bytes >= 2 * cache_bytes) return 1;
  std::size_t n = (2 * cache_bytes + set_bytes - 1) / set_bytes + 1;
  return static_cast<int>(std::min<std::size_t>(n, 8));
}

// Uniform in [-1, 1): element i is a hash (splitmix64) of (seed, i), filled by the host's threads, so that inputs of
// billions of elements (a batch of 20,000 images) take a fraction of a second rather than minutes.
HostTensor random_input(Shape2 shape, std::int64_t batch, Precision prec, std::uint64_t seed) {
  HostTensor t(shape, batch, prec);
  const std::int64_t n = t.elements();
  const auto value = [seed](std::int64_t i) {
    std::uint64_t z = seed * 0xD1B54A32D192ED03ULL + static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
  };
  const auto fill = [&](std::int64_t lo, std::int64_t hi) {
    if (prec == Precision::kF32) {
      float* p = static_cast<float*>(t.raw());
      for (std::int64_t i = lo; i < hi; ++i) p[i] = static_cast<float>(value(i));
    } else {
      double* p = static_cast<double*>(t.raw());
      for (std::int64_t i = lo; i < hi; ++i) p[i] = value(i);
    }
  };
  const std::int64_t workers = n < (1 << 22) ? 1 : std::clamp<std::int64_t>(usable_cores(), 1, 64);
  std::vector<std::thread> pool;
  for (std::int64_t w = 1; w < workers; ++w) pool.emplace_back(fill, n * w / workers, n * (w + 1) / workers);
  fill(0, n / workers);
  for (std::thread& th : pool) th.join();
  return t;
}

struct DeviceSets {
  std::vector<std::unique_ptr<Buffer>> bufs;
};

DeviceSets upload_sets(const Runtime& rt, int count, Shape2 shape, std::int64_t batch, Precision prec,
                       std::size_t bytes, std::uint64_t seed) {
  DeviceSets s;
  for (int i = 0; i < count; ++i) {
    HostTensor h = random_input(shape, batch, prec, seed + static_cast<std::uint64_t>(i));
    auto b = rt.allocate(bytes);
    // Pad (complex FFT inputs) with random bytes of the same distribution: copy what we have.
    std::vector<unsigned char> staging(bytes);
    std::memcpy(staging.data(), h.raw(), std::min(bytes, h.bytes()));
    if (bytes > h.bytes()) {
      HostTensor extra = random_input(
          Shape2{1, static_cast<std::int64_t>((bytes - h.bytes()) / element_size(prec)) + 1}, 1, prec, seed + 1000 + i);
      std::memcpy(staging.data() + h.bytes(), extra.raw(), bytes - h.bytes());
    }
    rt.upload(*b, staging.data(), bytes);
    s.bufs.push_back(std::move(b));
  }
  return s;
}

// Times `fn(i)` (i = rotation index) with the runtime's timer on `stream`; `prep(i)` runs untimed first.
Stats time_runs(const Runtime& rt, Stream stream, int warmup, int reps, int rot, const std::function<void(int)>& fn,
                const std::function<void(int)>& prep = {}) {
  auto timer = rt.make_timer();
  for (int i = 0; i < warmup; ++i) {
    if (prep) prep(i % rot);
    fn(i % rot);
  }
  rt.synchronize();
  std::vector<double> samples;
  samples.reserve(reps);
  for (int i = 0; i < reps; ++i) {
    if (prep) prep(i % rot);
    timer->start(stream);
    fn(i % rot);
    timer->stop(stream);
    samples.push_back(timer->elapsed_ms());
  }
  return summarize(std::move(samples));
}

View view_of(Buffer& b, Shape2 shape, std::int64_t batch, Precision prec, Memory mem) {
  return View{b.data(), shape, batch, prec, mem};
}

// The copy floor and the FFT baseline of one runtime for the current (op, shape, precision).
struct Floors {
  const Runtime* rt = nullptr;
  double copy_ms = 0;
  double fft_ms = 0;
};

// One sweep: every (op, shape, precision) in order, each backend, then the plain-DCT baseline rows. Inputs
// are random, seeded from one counter in the order they are made.
class Sweep {
 public:
  Sweep(const BenchRequest& req, const std::function<void(const std::string&)>& on_note,
        const std::function<void(const BenchRow&)>& on_row)
      : req_(req), on_note_(on_note), on_row_(on_row) {}

  std::vector<BenchRow> run() {
    for (Op op : req_.ops)
      for (Shape2 shape : req_.sizes)
        for (Precision prec : req_.precisions) {
          floors_.clear();  // baselines are measured once per runtime for this (op, shape, precision)
          const TransformDesc d = desc_of(op, shape, prec);
          for (const Backend* b : timed(d))
            if (std::optional<BenchRow> r = bench_backend(*b, d)) emit(std::move(*r));
          if (req_.baseline_rows && op == Op::kDct2 && req_.block == 0) bench_plain_dct2(shape, prec);
        }
    for (const R2rBenchOp& op : req_.r2r_ops)
      for (const ShapeN& size : req_.extents)
        for (Precision prec : req_.precisions) {
          floors_.clear();
          if (!op.every_axis && static_cast<int>(op.kinds.size()) > size.rank) {
            on_note_("skip " + op.name + " " + size.to_string() + ": more kinds than axes");
            continue;
          }
          const TransformDesc d = bench_r2r_desc(op, size, req_, prec);
          for (const Backend* b : timed(d))
            if (std::optional<BenchRow> r = bench_backend(*b, d, op.name)) {
              r->dims = size.to_string();
              emit(std::move(*r));
            }
        }
    return std::move(rows_);
  }

 private:
  // The backends that time d: every requested one, or with auto_pick the one auto takes (none where it takes none, or
  // where it is not among them: the other devices' sweep of bench --devices has it).
  std::vector<const Backend*> timed(const TransformDesc& d) const {
    if (!req_.auto_pick) return req_.backends;
    const Backend* pick = nullptr;
    try {
      pick = req_.auto_pick(d);
    } catch (const Error& e) {
      on_note_("skip auto: " + std::string(e.what()));
      return {};
    }
    if (std::find(req_.backends.begin(), req_.backends.end(), pick) == req_.backends.end()) return {};
    return {pick};
  }

  TransformDesc desc_of(Op op, Shape2 shape, Precision prec) const {
    TransformDesc d;
    d.op = op;
    d.norm = req_.norm;
    d.axis = req_.axis;
    d.block = req_.block;
    d.shape = shape;
    d.batch = req_.batch;
    d.prec = prec;
    d.effort = req_.effort;
    return d;
  }

  void emit(BenchRow r) {
    if (on_row_) on_row_(r);
    rows_.push_back(std::move(r));
  }

  // A row's identity and its device-time statistics; `bytes` is what one call reads and writes.
  BenchRow row_of(std::string op, std::string backend, const TransformDesc& d, const Stats& st, double bytes,
                  const Runtime& rt) const {
    BenchRow r;
    r.op = std::move(op);
    r.backend = std::move(backend);
    r.precision = std::string(to_string(d.prec));
    r.shape = d.shape;
    r.batch = d.batch;
    r.reps = req_.reps;
    r.median_ms = st.median;
    r.min_ms = st.min;
    r.max_ms = st.max;
    r.gbps = st.median > 0 ? bytes / (st.median * 1e6) : 0;
    r.device = rt.device_name();
    r.axis = d.op == Op::kR2r ? std::string() : std::string(to_string(d.axis));
    return r;
  }

  void add_ratios(BenchRow& r, const Runtime& rt, const TransformDesc& d) {
    const Floors fl = floors_for(rt, d);
    if (fl.copy_ms > 0) r.x_copy = r.median_ms / fl.copy_ms;
    if (fl.fft_ms > 0) r.x_fft = r.median_ms / fl.fft_ms;
  }

  Floors floors_for(const Runtime& rt, const TransformDesc& d) {
    for (const Floors& f : floors_)
      if (f.rt == &rt) return f;
    const std::size_t bytes = d.bytes();
    const int rot = rotation_count(2 * bytes, rt.cache_bytes());
    DeviceSets src = upload_sets(rt, rot, d.shape, d.batch, d.prec, bytes, seed_++);
    auto dst = rt.allocate(bytes);
    const Stats copy =
        time_runs(rt, Stream{}, req_.warmup, req_.reps, rot, [&](int i) { rt.copy(*dst, *src.bufs[i], bytes); });
    floors_.push_back({&rt, copy.median, fft_floor(rt, d, rot)});
    return floors_.back();
  }

  // The FFT of the same data: a 2-D FFT for --axis both, batched 1-D FFTs along the transformed axis; 0 when
  // the runtime has none.
  double fft_floor(const Runtime& rt, const TransformDesc& d, int rot) {
    if (d.op == Op::kR2r && d.r2r.rank > 2) return 0;  // the runtimes' baselines are 2-D
    Shape2 fshape = d.shape;
    std::int64_t fbatch = d.batch;
    if (d.axis == Axis::kRows) fshape = {1, d.shape.cols}, fbatch = d.batch * d.shape.rows;
    if (d.axis == Axis::kCols) fshape = {1, d.shape.rows}, fbatch = d.batch * d.shape.cols;
    const bool inverse = d.op == Op::kIdct2 || d.op == Op::kIdct4 || d.op == Op::kIlot;
    const Precision prec = d.prec;
    auto fft = rt.make_baseline(inverse ? Runtime::Baseline::kFftInverse : Runtime::Baseline::kFftForward, fshape,
                                fbatch, prec, req_.effort);
    if (!fft) return 0;
    const std::size_t bytes = d.bytes();
    const std::size_t cbytes = Runtime::fft_complex_bytes(fshape, fbatch, prec);
    const std::size_t in_bytes = inverse ? cbytes : bytes;
    const std::size_t out_bytes = inverse ? bytes : cbytes;
    DeviceSets fin = upload_sets(rt, rot, fshape, fbatch, prec, in_bytes, seed_++);
    auto work = rt.allocate(in_bytes);
    auto fout = rt.allocate(out_bytes);
    Stream fs = fft->stream();
    // C2R transforms may overwrite their input: restore it (untimed) before every run.
    const Stats st = time_runs(
        rt, fs, req_.warmup, req_.reps, rot,
        [&](int) {
          fft->execute(ConstView{work->data(), fshape, fbatch, prec, rt.memory()},
                       View{fout->data(), fshape, fbatch, prec, rt.memory()}, fs);
        },
        [&](int i) { rt.copy(*work, *fin.bufs[i], in_bytes, fs); });
    return st.median;
  }

  // One backend on one case: device time on rotated inputs, the ratios, end to end, and the error (--verify).
  std::optional<BenchRow> bench_backend(const Backend& b, const TransformDesc& d, const std::string& op_name = {}) {
    const Runtime& rt = b.runtime();
    if (Support u = rt.usable(); !u) {
      on_note_("skip " + std::string(b.name()) + ": not usable here: " + u.reason);
      return std::nullopt;
    }
    if (Support s = b.supports(d); !s) {
      on_note_("skip " + std::string(b.name()) + " " + d.to_string() + ": " + s.reason);
      return std::nullopt;
    }
    auto plan = b.make_plan(d);
    const Shape2 oshape = d.out_shape();
    const std::size_t in_bytes = d.bytes();
    const std::size_t out_bytes = static_cast<std::size_t>(oshape.count() * d.batch) * element_size(d.prec);
    const int rot = rotation_count(in_bytes + out_bytes, rt.cache_bytes());
    DeviceSets in = upload_sets(rt, rot, d.shape, d.batch, d.prec, in_bytes, seed_++);
    auto out = rt.allocate(out_bytes);
    Stream ps = plan->stream();
    const double cpu0 = process_cpu_ms();
    const Stats st = time_runs(rt, ps, req_.warmup, req_.reps, rot, [&](int i) {
      plan->execute(view_of(*in.bufs[i], d.shape, d.batch, d.prec, rt.memory()),
                    view_of(*out, oshape, d.batch, d.prec, rt.memory()), ps);
    });
    const double cpu_total = process_cpu_ms() - cpu0;

    BenchRow r = row_of(op_name.empty() ? std::string(to_string(d.op)) : op_name, std::string(b.name()), d, st,
                        static_cast<double>(in_bytes + out_bytes), rt);
    r.cpu_ms = cpu_total / (req_.reps + req_.warmup);
    add_ratios(r, rt, d);

    HostTensor hin = random_input(d.shape, d.batch, d.prec, seed_++);
    HostTensor hout(oshape, d.batch, d.prec);
    r.e2e_ms = e2e_median(*plan, hin, hout);
    if (req_.verify) r.max_rel_err = max_rel_err(d, hin, hout);
    return r;
  }

  // Host memory to host memory (transfers included for device plans), after one warming call.
  double e2e_median(const Plan& plan, const HostTensor& hin, HostTensor& hout) const {
    std::vector<double> e2e;
    const int e2e_reps = std::max(1, std::min(req_.reps, 5));
    plan.execute_host(hin.view(), hout.view());  // warm the staging path
    for (int i = 0; i < e2e_reps; ++i) e2e.push_back(plan.execute_host(hin.view(), hout.view()).e2e_ms);
    return summarize(e2e).median;
  }

  // Relative L2 error of `hout` against the first f64 oracle that supports the case.
  std::optional<double> max_rel_err(const TransformDesc& d, const HostTensor& hin, const HostTensor& hout) const {
    TransformDesc d64 = d;
    d64.prec = Precision::kF64;
    d64.effort = Effort::kEstimate;
    for (const Backend* o : req_.oracles) {
      if (!o->supports(d64)) continue;
      auto oplan = o->make_plan(d64);
      HostTensor ref(d.out_shape(), d.batch, Precision::kF64);
      oplan->execute_host(hin.to(Precision::kF64).view(), ref.view());
      return relative_l2(hout.to(Precision::kF64), ref);
    }
    on_note_("no f64 reference for " + d64.to_string() + ": max_rel_err left empty");
    return std::nullopt;
  }

  // The runtime's plain DCT (FFTW REDFT10) beside the backends, once per runtime, for dct2 only.
  void bench_plain_dct2(Shape2 shape, Precision prec) {
    std::vector<const Runtime*> seen;
    for (const Backend* b : req_.backends) {
      const Runtime& rt = b->runtime();
      if (std::find(seen.begin(), seen.end(), &rt) != seen.end() || !rt.usable()) continue;
      seen.push_back(&rt);
      auto plain = rt.make_baseline(Runtime::Baseline::kPlainDct2, shape, req_.batch, prec, req_.effort);
      if (!plain || req_.axis != Axis::kBoth) continue;
      const TransformDesc d{Op::kDct2, Norm::kNone, Axis::kBoth, 0, shape, req_.batch, prec, req_.effort, {}};
      const std::size_t bytes = static_cast<std::size_t>(shape.count() * req_.batch) * element_size(prec);
      const int rot = rotation_count(2 * bytes, rt.cache_bytes());
      DeviceSets in = upload_sets(rt, rot, shape, req_.batch, prec, bytes, seed_++);
      auto out = rt.allocate(bytes);
      const Stats st = time_runs(rt, plain->stream(), req_.warmup, req_.reps, rot, [&](int i) {
        plain->execute(view_of(*in.bufs[i], shape, req_.batch, prec, rt.memory()),
                       view_of(*out, shape, req_.batch, prec, rt.memory()), plain->stream());
      });
      BenchRow r = row_of("dct2", "baseline:plain-dct2", d, st, 2.0 * bytes, rt);
      add_ratios(r, rt, d);
      emit(std::move(r));
    }
  }

  const BenchRequest& req_;
  const std::function<void(const std::string&)>& on_note_;
  const std::function<void(const BenchRow&)>& on_row_;
  std::uint64_t seed_ = 12345;
  std::vector<Floors> floors_;
  std::vector<BenchRow> rows_;
};

}  // namespace

std::optional<R2rBenchOp> parse_r2r_bench_op(std::string_view s) {
  R2rBenchOp op;
  op.name = std::string(s);
  if (s.starts_with("r2r:")) {
    std::string_view rest = s.substr(4);
    while (true) {
      const auto plus = rest.find('+');
      op.kinds.push_back(parse_r2r_kind(rest.substr(0, plus)));
      if (plus == std::string_view::npos) break;
      rest = rest.substr(plus + 1);
    }
    if (op.kinds.size() > static_cast<std::size_t>(kMaxR2rRank))
      throw Error(ErrorCode::kUsage, "--ops", "'" + op.name + "': at most 3 kinds");
    return op;
  }
  for (std::string_view k : {"dct1", "dct3", "dst1", "dst2", "dst3", "dst4"})
    if (s == k) {
      op.kinds = {parse_r2r_kind(k)};
      op.every_axis = true;
      return op;
    }
  return std::nullopt;
}

TransformDesc bench_r2r_desc(const R2rBenchOp& op, const ShapeN& size, const BenchRequest& req, Precision prec) {
  R2rSpec spec;
  spec.rank = size.rank;
  spec.dims = size.dims;
  if (op.every_axis) {
    for (int a = 0; a < size.rank; ++a) spec.kinds[a] = op.kinds[0];
  } else {
    const int k = static_cast<int>(op.kinds.size());
    if (k > size.rank)
      throw Error(ErrorCode::kUsage, "--ops",
                  "'" + op.name + "' has " + std::to_string(k) + " kinds for the size " + size.to_string());
    for (int i = 0; i < k; ++i) spec.kinds[size.rank - k + i] = op.kinds[i];
  }
  TransformDesc d = r2r_desc(spec, req.norm, req.batch, prec);
  d.effort = req.effort;
  return d;
}

const std::vector<std::string>& bench_columns() {
  static const std::vector<std::string> kColumns{"op",        "backend", "precision",   "shape",  "batch",  "reps",
                                                 "median_ms", "min_ms",  "max_ms",      "gbps",   "x_copy", "x_fft",
                                                 "e2e_ms",    "cpu_ms",  "max_rel_err", "device", "axis"};
  return kColumns;
}

std::vector<BenchRow> run_bench(const BenchRequest& req, const std::function<void(const std::string&)>& on_note,
                                const std::function<void(const BenchRow&)>& on_row) {
  return Sweep(req, on_note, on_row).run();
}

}  // namespace dct::core
