#include "core/bench.hpp"

#include <algorithm>
#include <cstring>
#include <random>

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

HostTensor random_input(Shape2 shape, std::int64_t batch, Precision prec, std::uint64_t seed) {
  HostTensor t(shape, batch, prec);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, u(rng));
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
      HostTensor extra = random_input(Shape2{1, static_cast<std::int64_t>((bytes - h.bytes()) / element_size(prec)) + 1},
                                      1, prec, seed + 1000 + i);
      std::memcpy(staging.data() + h.bytes(), extra.raw(), bytes - h.bytes());
    }
    rt.upload(*b, staging.data(), bytes);
    s.bufs.push_back(std::move(b));
  }
  return s;
}

// Times `fn(i)` (i = rotation index) with the runtime's timer on `stream`; `prep(i)` runs untimed first.
Stats time_runs(const Runtime& rt, Stream stream, int warmup, int reps, int rot,
                const std::function<void(int)>& fn, const std::function<void(int)>& prep = {}) {
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

}  // namespace

const std::vector<std::string>& bench_columns() {
  static const std::vector<std::string> kColumns{"op",     "backend", "precision", "shape",  "batch",  "reps",
                                                 "median_ms", "min_ms", "max_ms",  "gbps",   "x_copy", "x_fft",
                                                 "e2e_ms", "cpu_ms",  "max_rel_err", "device"};
  return kColumns;
}

std::vector<BenchRow> run_bench(const BenchRequest& req, const std::function<void(const std::string&)>& on_note,
                                const std::function<void(const BenchRow&)>& on_row) {
  std::vector<BenchRow> rows;
  std::uint64_t seed = 12345;
  auto emit = [&](BenchRow r) {
    if (on_row) on_row(r);
    rows.push_back(std::move(r));
  };
  for (Op op : req.ops) {
    for (Shape2 shape : req.sizes) {
      for (Precision prec : req.precisions) {
        // Baselines are measured once per runtime for this (op, shape, precision).
        struct Floors {
          const Runtime* rt;
          double copy_ms;
          double fft_ms;
        };
        std::vector<Floors> floors;
        floors.reserve(8);  // floors_for hands out references
        auto floors_for = [&](const Runtime& rt, const TransformDesc& d) -> Floors& {
          for (auto& f : floors)
            if (f.rt == &rt) return f;
          const std::size_t bytes = d.bytes();
          const int rot = rotation_count(2 * bytes, rt.cache_bytes());
          DeviceSets src = upload_sets(rt, rot, d.shape, d.batch, prec, bytes, seed++);
          auto dst = rt.allocate(bytes);
          Stats copy = time_runs(rt, Stream{}, req.warmup, req.reps, rot,
                                 [&](int i) { rt.copy(*dst, *src.bufs[i], bytes); });
          // FFT of the same data: a 2-D FFT for --axis both, batched 1-D FFTs along the transformed axis.
          Shape2 fshape = d.shape;
          std::int64_t fbatch = d.batch;
          if (d.axis == Axis::kRows) fshape = {1, d.shape.cols}, fbatch = d.batch * d.shape.rows;
          if (d.axis == Axis::kCols) fshape = {1, d.shape.rows}, fbatch = d.batch * d.shape.cols;
          const bool inverse = op == Op::kIdct2 || op == Op::kIdct4 || op == Op::kIlot;
          double fft_ms = 0;
          if (auto fft = rt.make_baseline(inverse ? Runtime::Baseline::kFftInverse : Runtime::Baseline::kFftForward,
                                          fshape, fbatch, prec, req.effort)) {
            const std::size_t cbytes = Runtime::fft_complex_bytes(fshape, fbatch, prec);
            const std::size_t in_bytes = inverse ? cbytes : bytes;
            const std::size_t out_bytes = inverse ? bytes : cbytes;
            DeviceSets fin = upload_sets(rt, rot, fshape, fbatch, prec, in_bytes, seed++);
            auto work = rt.allocate(in_bytes);
            auto fout = rt.allocate(out_bytes);
            Stream fs = fft->stream();
            // C2R transforms may overwrite their input: restore it (untimed) before every run.
            Stats st = time_runs(
                rt, fs, req.warmup, req.reps, rot,
                [&](int) {
                  fft->execute(ConstView{work->data(), fshape, fbatch, prec, rt.memory()},
                               View{fout->data(), fshape, fbatch, prec, rt.memory()}, fs);
                },
                [&](int i) {
                  rt.copy(*work, *fin.bufs[i], in_bytes, fs);
                });
            fft_ms = st.median;
          }
          floors.push_back({&rt, copy.median, fft_ms});
          return floors.back();
        };

        for (const Backend* b : req.backends) {
          TransformDesc d;
          d.op = op;
          d.norm = req.norm;
          d.axis = req.axis;
          d.block = req.block;
          d.shape = shape;
          d.batch = req.batch;
          d.prec = prec;
          d.effort = req.effort;
          const Runtime& rt = b->runtime();
          if (Support u = rt.usable(); !u) {
            on_note("skip " + std::string(b->name()) + ": not usable here: " + u.reason);
            continue;
          }
          if (Support s = b->supports(d); !s) {
            on_note("skip " + std::string(b->name()) + " " + d.to_string() + ": " + s.reason);
            continue;
          }
          auto plan = b->make_plan(d);
          const Shape2 oshape = d.out_shape();
          const std::size_t in_bytes = d.bytes();
          const std::size_t out_bytes = static_cast<std::size_t>(oshape.count() * d.batch) * element_size(prec);
          const int rot = rotation_count(in_bytes + out_bytes, rt.cache_bytes());
          DeviceSets in = upload_sets(rt, rot, shape, d.batch, prec, in_bytes, seed++);
          auto out = rt.allocate(out_bytes);
          Stream ps = plan->stream();
          const double cpu0 = process_cpu_ms();
          Stats st = time_runs(rt, ps, req.warmup, req.reps, rot, [&](int i) {
            plan->execute(view_of(*in.bufs[i], shape, d.batch, prec, rt.memory()),
                          view_of(*out, oshape, d.batch, prec, rt.memory()), ps);
          });
          const double cpu_total = process_cpu_ms() - cpu0;

          BenchRow r;
          r.op = std::string(to_string(op));
          r.backend = std::string(b->name());
          r.precision = std::string(to_string(prec));
          r.shape = to_string(shape);
          r.batch = d.batch;
          r.reps = req.reps;
          r.median_ms = st.median;
          r.min_ms = st.min;
          r.max_ms = st.max;
          r.gbps = st.median > 0 ? (in_bytes + out_bytes) / (st.median * 1e6) : 0;
          r.cpu_ms = cpu_total / (req.reps + req.warmup);
          r.device = rt.device_name();
          const Floors& fl = floors_for(rt, d);
          if (fl.copy_ms > 0) r.x_copy = st.median / fl.copy_ms;
          if (fl.fft_ms > 0) r.x_fft = st.median / fl.fft_ms;

          // End to end: host memory to host memory (transfers included for device plans).
          HostTensor hin = random_input(shape, d.batch, prec, seed++);
          HostTensor hout(oshape, d.batch, prec);
          std::vector<double> e2e;
          const int e2e_reps = std::max(1, std::min(req.reps, 5));
          plan->execute_host(hin.view(), hout.view());  // warm the staging path
          for (int i = 0; i < e2e_reps; ++i) e2e.push_back(plan->execute_host(hin.view(), hout.view()).e2e_ms);
          r.e2e_ms = summarize(e2e).median;

          if (req.verify) {
            TransformDesc d64 = d;
            d64.prec = Precision::kF64;
            d64.effort = Effort::kEstimate;
            const Backend* oracle = nullptr;
            for (const Backend* o : req.oracles)
              if (o->supports(d64)) {
                oracle = o;
                break;
              }
            if (oracle == nullptr) {
              on_note("no f64 reference for " + d64.to_string() + ": max_rel_err left empty");
            } else {
              auto oplan = oracle->make_plan(d64);
              HostTensor ref(oshape, d.batch, Precision::kF64);
              oplan->execute_host(hin.to(Precision::kF64).view(), ref.view());
              r.max_rel_err = relative_l2(hout.to(Precision::kF64), ref);
            }
          }
          emit(std::move(r));
        }

        // The runtime's plain DCT (FFTW REDFT10) beside the backends, for dct2 only.
        if (req.baseline_rows && op == Op::kDct2 && req.block == 0) {
          std::vector<const Runtime*> seen;
          for (const Backend* b : req.backends) {
            const Runtime& rt = b->runtime();
            if (std::find(seen.begin(), seen.end(), &rt) != seen.end() || !rt.usable()) continue;
            seen.push_back(&rt);
            auto plain = rt.make_baseline(Runtime::Baseline::kPlainDct2, shape, req.batch, prec, req.effort);
            if (!plain || req.axis != Axis::kBoth) continue;
            const std::size_t bytes = static_cast<std::size_t>(shape.count() * req.batch) * element_size(prec);
            const int rot = rotation_count(2 * bytes, rt.cache_bytes());
            DeviceSets in = upload_sets(rt, rot, shape, req.batch, prec, bytes, seed++);
            auto out = rt.allocate(bytes);
            Stats st = time_runs(rt, plain->stream(), req.warmup, req.reps, rot, [&](int i) {
              plain->execute(view_of(*in.bufs[i], shape, req.batch, prec, rt.memory()),
                             view_of(*out, shape, req.batch, prec, rt.memory()), plain->stream());
            });
            BenchRow r;
            r.op = "dct2";
            r.backend = "baseline:plain-dct2";
            r.precision = std::string(to_string(prec));
            r.shape = to_string(shape);
            r.batch = req.batch;
            r.reps = req.reps;
            r.median_ms = st.median;
            r.min_ms = st.min;
            r.max_ms = st.max;
            r.gbps = st.median > 0 ? 2.0 * bytes / (st.median * 1e6) : 0;
            r.device = rt.device_name();
            TransformDesc d{Op::kDct2, Norm::kNone, Axis::kBoth, 0, shape, req.batch, prec, req.effort};
            const Floors& fl = floors_for(rt, d);
            if (fl.copy_ms > 0) r.x_copy = st.median / fl.copy_ms;
            if (fl.fft_ms > 0) r.x_fft = st.median / fl.fft_ms;
            emit(std::move(r));
          }
        }
      }
    }
  }
  return rows;
}

}  // namespace dct::core
