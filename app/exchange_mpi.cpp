// The MPI exchange of a distributed transform (app/exchange.hpp): MPI_COMM_WORLD, every call made on the main thread.
// An all-to-all's items (lines of the array) travel as one contiguous MPI type, so its counts and displacements,
// which MPI takes as int, count lines rather than values or bytes.
#include <climits>
#include <cstring>

#include "app/dispatch.hpp"
#include "app/exchange.hpp"
#include "app/mpi_world.hpp"
#include "core/error.hpp"

namespace dct::app::dispatch {
namespace {

int as_int(std::int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw Error(ErrorCode::kUnsupported, "MPI",
                std::string(what) + " of " + std::to_string(v) + " is over MPI's limit of " + std::to_string(INT_MAX) +
                    " (use more processes)");
  return static_cast<int>(v);
}

std::vector<int> as_ints(const std::vector<std::int64_t>& v, const char* what) {
  std::vector<int> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = as_int(v[i], what);
  return out;
}

// An MPI datatype of `bytes` contiguous bytes, freed with its owner.
class ContiguousType {
 public:
  explicit ContiguousType(std::size_t bytes) {
    check(MPI_Type_contiguous(as_int(static_cast<std::int64_t>(bytes), "an exchanged line's size in bytes"), MPI_BYTE,
                              &type_),
          "MPI_Type_contiguous");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~ContiguousType() { MPI_Type_free(&type_); }
  ContiguousType(const ContiguousType&) = delete;
  ContiguousType& operator=(const ContiguousType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

class MpiExchange final : public core::dist::Exchange {
 public:
  MpiExchange(int rank, int size) : rank_(rank), size_(size) {}
  ~MpiExchange() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void alltoallv(const void* send, const std::vector<std::int64_t>& send_counts,
                 const std::vector<std::int64_t>& send_displs, void* recv, const std::vector<std::int64_t>& recv_counts,
                 const std::vector<std::int64_t>& recv_displs, std::size_t unit) override {
    const ContiguousType line(unit);
    const std::vector<int> sc = as_ints(send_counts, "an exchange block"), sd = as_ints(send_displs, "an offset"),
                           rc = as_ints(recv_counts, "an exchange block"), rd = as_ints(recv_displs, "an offset");
    check(MPI_Alltoallv(send, sc.data(), sd.data(), line.get(), recv, rc.data(), rd.data(), line.get(), MPI_COMM_WORLD),
          "MPI_Alltoallv");
  }

  void alltoall(const void* send, void* recv, std::size_t bytes) override {
    const ContiguousType block(bytes);
    check(MPI_Alltoall(send, 1, block.get(), recv, 1, block.get(), MPI_COMM_WORLD), "MPI_Alltoall");
  }

  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

  double max(double v) override { return reduce(v, MPI_MAX); }
  double sum(double v) override { return reduce(v, MPI_SUM); }

  std::string broadcast(const std::string& text) override { return broadcast_from(0, text); }

  std::optional<Error> agree(const std::optional<Error>& mine) override {
    int first = mine ? rank_ : size_;
    check(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    if (first == size_) return std::nullopt;
    std::string payload;
    if (rank_ == first)
      payload = PayloadWriter()
                    .i64(static_cast<std::int64_t>(mine->code()))
                    .i64(static_cast<std::int64_t>(mine->fault()))
                    .str(mine->subject())
                    .str(mine->what())
                    .take();
    payload = broadcast_from(first, payload);
    PayloadReader r(payload);
    const auto code = static_cast<ErrorCode>(r.i64());
    const auto fault = static_cast<Fault>(r.i64());
    std::string subject = r.str();
    return Error(code, std::move(subject), r.str(), fault);
  }

 private:
  double reduce(double v, MPI_Op op) {
    check(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, op, MPI_COMM_WORLD), "MPI_Allreduce");
    return v;
  }

  std::string broadcast_from(int root, std::string text) {
    auto n = static_cast<long long>(text.size());
    check(MPI_Bcast(&n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
    text.resize(static_cast<std::size_t>(n));
    check(MPI_Bcast(text.data(), as_int(n, "a broadcast"), MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast");
    return text;
  }

  const int rank_, size_;
};

}  // namespace

std::unique_ptr<core::dist::Exchange> start_exchange() {
  if (launcher_size() == 0) return std::make_unique<core::dist::LocalExchange>();
  const int size = start_mpi();
  return std::make_unique<MpiExchange>(rank(), size);
}

}  // namespace dct::app::dispatch
