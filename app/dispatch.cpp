// The launcher's environment, the rank record and the payload fields of app/dispatch.hpp; without MPI compiled in,
// the Dispatcher that refuses a distributed batch (app/dispatch_mpi.cpp is the one with MPI).
#include "app/dispatch.hpp"

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/interrupt.hpp"

namespace dct::app::dispatch {
namespace {

// A non-negative number in the environment variable `name`; nothing when it is unset or not a number.
std::optional<int> env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  int n = 0;
  const char* end = v + std::strlen(v);
  const auto [p, ec] = std::from_chars(v, end, n);
  if (ec != std::errc() || p != end || n < 0) return std::nullopt;
  return n;
}

struct Ranks {
  std::atomic<int> rank{0}, size{1}, local_rank{0}, local_size{1};
};

Ranks& ranks() {
  static Ranks r;
  return r;
}

}  // namespace

int launcher_size() {
  if (const auto n = env_int("OMPI_COMM_WORLD_SIZE")) return *n;
  if (const auto n = env_int("PMI_SIZE")) return *n;
  if (std::getenv("PMIX_RANK") != nullptr) return env_int("SLURM_NTASKS").value_or(-1);
  return 0;
}

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const auto r = env_int(name)) return *r;
  return 0;
}

bool launched_distributed() {
  const int n = launcher_size();
  return n > 1 || n < 0;
}

void set_ranks(int rank, int size, int local_rank, int local_size) {
  Ranks& r = ranks();
  r.rank = rank;
  r.size = size;
  r.local_rank = local_rank;
  r.local_size = local_size;
}

int rank() { return ranks().rank; }
int size() { return ranks().size; }
bool root() { return rank() == 0; }
int local_rank() { return ranks().local_rank; }
int local_size() { return ranks().local_size; }

// ---- payloads ----------------------------------------------------------------------------------------------
PayloadWriter& PayloadWriter::i64(std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int b = 0; b < 8; ++b) bytes_ += static_cast<char>((u >> (8 * b)) & 0xff);
  return *this;
}

PayloadWriter& PayloadWriter::f64(double v) {
  std::uint64_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  return i64(static_cast<std::int64_t>(u));
}

PayloadWriter& PayloadWriter::str(std::string_view s) {
  i64(static_cast<std::int64_t>(s.size()));
  bytes_.append(s);
  return *this;
}

std::int64_t PayloadReader::i64() {
  if (bytes_.size() < 8) throw Error(ErrorCode::kRuntime, "internal: a batch entry's payload ends early");
  std::uint64_t u = 0;
  for (int b = 0; b < 8; ++b) u |= std::uint64_t(static_cast<unsigned char>(bytes_[b])) << (8 * b);
  bytes_.remove_prefix(8);
  return static_cast<std::int64_t>(u);
}

double PayloadReader::f64() {
  const auto u = static_cast<std::uint64_t>(i64());
  double v = 0;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

std::string PayloadReader::str() {
  const std::int64_t n = i64();
  if (n < 0 || static_cast<std::uint64_t>(n) > bytes_.size())
    throw Error(ErrorCode::kRuntime, "internal: a batch entry's payload ends early");
  std::string s(bytes_.substr(0, static_cast<std::size_t>(n)));
  bytes_.remove_prefix(static_cast<std::size_t>(n));
  return s;
}

#ifndef DCTOOL_HAVE_MPI
std::unique_ptr<Dispatcher> Dispatcher::start(std::int64_t) {
  if (!launched_distributed()) return nullptr;
  // Every process would otherwise do the whole batch, writing each output once per process.
  throw Error(ErrorCode::kUnsupported, "MPI",
              "started by an MPI launcher with several processes, but this dctool was built without MPI (install "
              "libopenmpi-dev and rebuild with DCTOOL_ENABLE_MPI=ON)");
}
#endif

EntryCollector::EntryCollector(Dispatcher* d, std::function<void(const Finished&)> record,
                               std::function<std::string()> interrupted, std::vector<std::string> outputs)
    : d_(d), record_(std::move(record)), interrupted_(std::move(interrupted)), outputs_(std::move(outputs)) {
  if (!d_) return;
  if (!d_->root()) {
    core::set_interrupt_summary([this](const std::string&) {
      core::remove_temporaries_of(outputs_);
      return std::string();
    });
    return;
  }
  core::set_interrupt_summary([this](const std::string&) { return interrupted_(); });
  thread_ = std::thread([this] {
    while (const std::optional<Finished> f = d_->receive()) record_(*f);
  });
}

EntryCollector::~EntryCollector() {
  if (!d_) return;
  d_->finish();
  if (thread_.joinable()) thread_.join();
  if (d_->root())
    core::set_interrupt_summary({});
  else
    core::set_interrupt_summary([](const std::string&) { return std::string(); });
}

}  // namespace dct::app::dispatch
