// core/distributed.hpp without MPI: the parts of an axis, the slab transform of 1 to 5 processes (threads of this
// process exchanging through shared memory) against cpu-fftw's plan of the whole array for every kind, norm and
// direction on odd shapes, and the agreement on a failure.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstring>
#include <exception>
#include <functional>
#include <thread>

#include "core/distributed.hpp"
#include "core/r2r.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::R2rKind;
using core::dist::Exchange;
using core::dist::Part;

// P processes as P threads: each collective posts this rank's part in its slot, waits for every rank, reads the
// others' slots, and waits again before a slot is reused.
class ThreadJob {
 public:
  explicit ThreadJob(int p) : size(p), sync(p), slots(static_cast<std::size_t>(p)) {}
  struct Slot {
    const void* send = nullptr;
    const std::vector<std::int64_t>* counts = nullptr;
    const std::vector<std::int64_t>* displs = nullptr;
    double value = 0;
    std::string text;
    std::optional<Error> error;
  };
  const int size;
  std::barrier<> sync;
  std::vector<Slot> slots;
};

class ThreadExchange final : public Exchange {
 public:
  ThreadExchange(ThreadJob& job, int rank) : job_(job), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return job_.size; }

  void alltoallv(const void* send, const std::vector<std::int64_t>& send_counts,
                 const std::vector<std::int64_t>& send_displs, void* recv, const std::vector<std::int64_t>& recv_counts,
                 const std::vector<std::int64_t>& recv_displs, std::size_t unit) override {
    mine() = {send, &send_counts, &send_displs, 0, {}, {}};
    job_.sync.arrive_and_wait();
    for (int r = 0; r < job_.size; ++r) {
      const ThreadJob::Slot& from = job_.slots[static_cast<std::size_t>(r)];
      const std::int64_t n = (*from.counts)[static_cast<std::size_t>(rank_)];
      CHECK(n == recv_counts[static_cast<std::size_t>(r)]);
      std::memcpy(static_cast<char*>(recv) + recv_displs[static_cast<std::size_t>(r)] * static_cast<std::int64_t>(unit),
                  static_cast<const char*>(from.send) +
                      (*from.displs)[static_cast<std::size_t>(rank_)] * static_cast<std::int64_t>(unit),
                  static_cast<std::size_t>(n) * unit);
    }
    job_.sync.arrive_and_wait();
  }
  void alltoall(const void* send, void* recv, std::size_t bytes) override {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(job_.size), 1), displs(counts.size());
    for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<std::int64_t>(r);
    alltoallv(send, counts, displs, recv, counts, displs, bytes);
  }
  void barrier() override { job_.sync.arrive_and_wait(); }
  double max(double v) override {
    return reduce(v, [](double a, double b) { return std::max(a, b); });
  }
  double sum(double v) override {
    return reduce(v, [](double a, double b) { return a + b; });
  }
  std::string broadcast(const std::string& text) override {
    if (rank_ == 0) mine().text = text;
    job_.sync.arrive_and_wait();
    std::string out = job_.slots[0].text;
    job_.sync.arrive_and_wait();
    return out;
  }
  std::optional<Error> agree(const std::optional<Error>& e) override {
    mine().error = e;
    job_.sync.arrive_and_wait();
    std::optional<Error> first;
    for (const auto& s : job_.slots)
      if (!first && s.error) first = s.error;
    job_.sync.arrive_and_wait();
    return first;
  }

 private:
  ThreadJob::Slot& mine() { return job_.slots[static_cast<std::size_t>(rank_)]; }
  template <class F>
  double reduce(double v, F f) {
    mine().value = v;
    job_.sync.arrive_and_wait();
    double out = job_.slots[0].value;
    for (int r = 1; r < job_.size; ++r) out = f(out, job_.slots[static_cast<std::size_t>(r)].value);
    job_.sync.arrive_and_wait();
    return out;
  }

  ThreadJob& job_;
  const int rank_;
};

// Runs body(exchange) on `p` threads; rethrows the first exception a thread ended with.
void on_threads(int p, const std::function<void(Exchange&)>& body) {
  ThreadJob job(p);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(p));
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r)
    threads.emplace_back([&, r] {
      ThreadExchange ex(job, r);
      try {
        body(ex);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

core::dist::PlanMaker fftw_plans() {
  return [](const core::TransformDesc& d) { return test::backend("cpu-fftw").make_plan(d); };
}

// The slab transform of `in` on `p` processes, each reading its rows and writing its runs into one output.
core::HostTensor distributed(const core::TransformDesc& whole, const core::HostTensor& in, int p,
                             std::int64_t chunk = core::dist::kChunkElements,
                             const core::dist::PlanMaker& make = fftw_plans()) {
  core::HostTensor out(in.shape(), 1, whole.prec);
  const std::size_t esize = core::element_size(whole.prec);
  on_threads(p, [&](Exchange& ex) {
    const core::dist::SlabTransform t(whole, ex.rank(), ex.size(), make, 3, chunk);
    const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(t.buffer_elements(), 1)) * esize;
    core::AlignedBuffer a(bytes), b(bytes);
    const Part rows = t.rows();
    std::memcpy(a.data(), static_cast<const char*>(in.raw()) + rows.begin * t.row_elements() * esize,
                static_cast<std::size_t>(rows.count * t.row_elements()) * esize);
    const char* result = static_cast<const char*>(t.execute(ex, a.data(), b.data()));
    const auto runs = t.output();
    for (std::int64_t k = 0; k < runs.count; ++k)
      std::memcpy(static_cast<char*>(out.raw()) + (runs.first + k * runs.stride) * static_cast<std::int64_t>(esize),
                  result + k * runs.length * static_cast<std::int64_t>(esize),
                  static_cast<std::size_t>(runs.length) * esize);
  });
  return out;
}

core::TransformDesc whole_desc(std::vector<std::int64_t> dims, std::vector<R2rKind> kinds, bool inverse,
                               core::Norm norm, core::Precision prec) {
  core::R2rSpec s;
  s.rank = static_cast<int>(dims.size());
  for (std::size_t a = 0; a < dims.size(); ++a) {
    s.dims[a] = dims[a];
    s.kinds[a] = kinds[a];
  }
  s.inverse = inverse;
  return core::r2r_desc(s, norm, 1, prec);
}

}  // namespace

TEST_CASE("distributed: an axis in parts, the first n % p of them one longer", "[core][distributed]") {
  for (std::int64_t n : {1, 5, 7, 13, 64})
    for (int p = 1; p <= 8; ++p) {
      std::int64_t next = 0;
      for (int r = 0; r < p; ++r) {
        const Part part = core::dist::part_of(n, p, r);
        CHECK(part.begin == next);
        CHECK(part.count == n / p + (r < n % p ? 1 : 0));
        next += part.count;
      }
      CHECK(next == n);
    }
}

namespace {

struct DistCase {
  std::vector<std::int64_t> dims;
  std::vector<R2rKind> kinds;
};

// Every norm, direction and precision of each case on processes first_p(dims) .. last_p(dims) (at most 6), with the
// local steps in chunks of each of `chunks` values, against cpu-fftw's plan of the whole array.
void check_against_fftw(const std::vector<DistCase>& cases, std::uint64_t seed,
                        const std::function<int(const std::vector<std::int64_t>&)>& first_p,
                        const std::function<int(const std::vector<std::int64_t>&)>& last_p,
                        const std::vector<std::int64_t>& chunks) {
  for (const DistCase& c : cases)
    for (const core::Norm norm : {core::Norm::kNone, core::Norm::kOrtho, core::Norm::kForward})
      for (const bool inverse : {false, true})
        for (const core::Precision prec : {core::Precision::kF64, core::Precision::kF32}) {
          const core::TransformDesc whole = whole_desc(c.dims, c.kinds, inverse, norm, prec);
          const core::HostTensor in = test::random_tensor(whole.shape, 1, prec, seed++);
          const core::HostTensor ref = test::run_backend(test::backend("cpu-fftw"), whole, in);
          for (int p = first_p(c.dims); p <= std::min(6, last_p(c.dims)); ++p)
            for (const std::int64_t chunk : chunks) {
              INFO(whole.to_string() << " on " << p << " processes, chunks of " << chunk << " values");
              const double err = test::rel_l2_finite(distributed(whole, in, p, chunk), ref);
              CHECK(err <= (prec == core::Precision::kF64 ? 1e-13 : 1e-5));
            }
        }
}

}  // namespace

TEST_CASE("distributed: 1 to 5 processes give cpu-fftw's whole-array transform, every kind and norm, odd shapes",
          "[core][distributed]") {
  using K = R2rKind;
  const std::vector<DistCase> cases = {
      {{7, 5}, {K::kDct2, K::kDct2}},
      {{5, 17}, {K::kDct2, K::kDst3}},
      {{13, 9, 6}, {K::kDct2, K::kDst3, K::kDct1}},
      {{13, 9, 6}, {K::kDst1, K::kNone, K::kDct4}},
      {{6, 3, 5}, {K::kNone, K::kDst2, K::kDct3}},  // axis 0 not transformed: no exchange
      {{9, 2, 4}, {K::kDst4, K::kNone, K::kNone}},  // only axis 0; more processes than columns of axis 1
      {{5, 11}, {K::kDct3, K::kNone}},
      {{700, 601}, {K::kDct2, K::kDst2}},  // the transposes in bands on three threads
  };
  check_against_fftw(
      cases, 100, [](const auto&) { return 1; },
      [](const auto& dims) { return static_cast<int>(std::min<std::int64_t>(5, dims[0])); },
      {core::dist::kChunkElements});
}

// A 3-D array on more processes than planes: pencils of axis 2, then slabs of axis 2 (core/distributed.hpp). Every
// kind on each axis, one plane (n0 = 1), axes 0 and 1 untransformed in turn, more processes than columns of axis 2
// (some idle in the second step), the local steps in chunks.
TEST_CASE("distributed: more processes than planes of a 3-D array give cpu-fftw's transform (pencils)",
          "[core][distributed]") {
  using K = R2rKind;
  const std::vector<DistCase> cases = {
      {{2, 3, 5}, {K::kDct2, K::kDst3, K::kDct1}}, {{1, 4, 6}, {K::kDct2, K::kDct2, K::kDct2}},
      {{3, 2, 7}, {K::kDst2, K::kNone, K::kDct3}}, {{2, 5, 3}, {K::kNone, K::kDct4, K::kDst1}},
      {{2, 3, 4}, {K::kNone, K::kNone, K::kDst4}},  // axis 2 only: no exchange
      {{2, 3, 2}, {K::kDct3, K::kDst2, K::kNone}},  // no pencil step; more processes than columns of axis 2
  };
  check_against_fftw(
      cases, 900, [](const auto& dims) { return static_cast<int>(dims[0]) + 1; },
      [](const auto& dims) { return static_cast<int>(dims[0] * dims[1]); }, {5, core::dist::kChunkElements});
}

// The local steps in chunks of whole lines or planes (a GPU plan holds its chunk, not the slab): the same values as in
// one plan, with and without a shorter last chunk.
TEST_CASE("distributed: local steps in chunks give the transform of one plan", "[core][distributed]") {
  using K = R2rKind;
  std::atomic<int> plans{0};
  const core::dist::PlanMaker counting = [&](const core::TransformDesc& d) {
    ++plans;
    return test::backend("cpu-fftw").make_plan(d);
  };
  int n = 0;
  for (const auto& [dims, kinds] :
       std::vector<std::pair<std::vector<std::int64_t>, std::vector<K>>>{{{13, 9, 6}, {K::kDct2, K::kDst3, K::kDct1}},
                                                                         {{11, 7}, {K::kDct2, K::kDst2}},
                                                                         {{8, 5, 4}, {K::kNone, K::kDct2, K::kDct3}}})
    for (const std::int64_t chunk : {1, 7, 54, 60, 1 << 20})
      for (int p = 1; p <= 3; ++p) {
        const core::TransformDesc whole =
            whole_desc(dims, kinds, n % 2 == 1, core::Norm::kOrtho, core::Precision::kF64);
        const core::HostTensor in = test::random_tensor(whole.shape, 1, core::Precision::kF64, 700 + n++);
        const core::HostTensor ref = test::run_backend(test::backend("cpu-fftw"), whole, in);
        plans = 0;
        INFO(whole.to_string() << " on " << p << " processes, chunks of " << chunk << " values");
        CHECK(test::rel_l2_finite(distributed(whole, in, p, chunk, counting), ref) <= 1e-13);
        CHECK(plans >= p);
      }
}

TEST_CASE(
    "distributed: more processes than rows (2-D) or lines (3-D) and a 1-D array are refused, and a failure is agreed "
    "by every process",
    "[core][distributed]") {
  const core::TransformDesc d =
      whole_desc({3, 8}, {R2rKind::kDct2, R2rKind::kDct2}, false, core::Norm::kNone, core::Precision::kF64);
  const Error e = test::error_of([&] { core::dist::SlabTransform(d, 0, 4, fftw_plans()); });
  CHECK(e.code() == ErrorCode::kUnsupported);
  CHECK(std::string(e.what()).find("at most 3 processes") != std::string::npos);
  // A 3-D array: pencils up to n0·n1 processes.
  const core::TransformDesc c = whole_desc({2, 3, 4}, {R2rKind::kDct2, R2rKind::kDct2, R2rKind::kDct2}, false,
                                           core::Norm::kNone, core::Precision::kF64);
  const Error ec = test::error_of([&] { core::dist::SlabTransform(c, 0, 7, fftw_plans()); });
  CHECK(ec.code() == ErrorCode::kUnsupported);
  CHECK(std::string(ec.what()).find("at most 6 processes") != std::string::npos);
  const core::TransformDesc v = whole_desc({16}, {R2rKind::kDct2}, false, core::Norm::kNone, core::Precision::kF64);
  CHECK(test::error_of([&] { core::dist::SlabTransform(v, 0, 1, fftw_plans()); }).code() == ErrorCode::kUnsupported);

  // Ranks 1 and 3 of 4 fail their step: every rank throws rank 1's error.
  std::vector<std::string> seen(4);
  on_threads(4, [&](Exchange& ex) {
    try {
      core::dist::collective(ex, [&] {
        if (ex.rank() % 2 == 1)
          throw Error(ErrorCode::kInput, "f" + std::to_string(ex.rank()), "failed on " + std::to_string(ex.rank()));
      });
    } catch (const Error& err) {
      seen[static_cast<std::size_t>(ex.rank())] = err.message() + " " + std::to_string(err.exit_code());
    }
  });
  for (const auto& s : seen) CHECK(s == "dctool: error: f1: failed on 1 3");
}
