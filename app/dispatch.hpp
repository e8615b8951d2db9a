#pragma once
// A batch spread over the processes of an MPI job (mpirun, srun). Rank 0 hands input indices out one at a time on
// request, to every rank, its own readers included (a shared queue: a rank that is faster, or has easier inputs,
// takes more); each rank runs its usual pipeline on the indices it gets and sends every finished entry, as an
// opaque payload the batch serializes, to rank 0, which alone prints and writes reports.
//
// Distribution is decided from the launcher's environment, before any MPI call: a plain dctool (no launcher, or a
// launcher of one process) never initializes MPI, so it pays no MPI start-up and prints no MPI warning.
//
// Each rank's MPI calls are made by one communication thread (MPI_THREAD_SERIALIZED: MPI_Init_thread and
// MPI_Finalize on the main thread, which starts and joins it); the batch's threads talk to it through local queues.
// Only the app/*_mpi.cpp files include mpi.h (app/mpi_world.hpp); a build without MPI refuses a distributed batch
// (exit 4).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace dct::app::dispatch {

// ---- the launcher, from its environment ----------------------------------------------------------------
// The number of processes an MPI launcher started this one among: Open MPI's OMPI_COMM_WORLD_SIZE, PMI's PMI_SIZE
// (MPICH's Hydra, srun --mpi=pmi2), or SLURM_NTASKS beside PMIx's PMIX_RANK (srun --mpi=pmix); -1 when PMIX_RANK is
// set with no size known (MPI then tells); 0 when no launcher started this process.
int launcher_size();
// This process's rank per the launcher (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK); 0 without one.
int launcher_rank();
// Whether a batch is to be spread: a launcher started this process among more than one (or an unknown number).
bool launched_distributed();

// ---- this rank, once a Dispatcher started (before, and when not distributed: rank 0 of 1) -----------------
int rank();
int size();
bool root();
// The rank among those on the same host (MPI_COMM_TYPE_SHARED) and how many share it: a rank picks its GPU as
// local_rank() mod the device count, and its share of the host's cores.
int local_rank();
int local_size();

// ---- payloads: what a finished entry carries to rank 0 ----------------------------------------------------
// Fixed-width little-endian fields in order; doubles travel bit for bit (a report printed on rank 0 shows the very
// value computed on another rank).
class PayloadWriter {
 public:
  PayloadWriter& i64(std::int64_t v);
  PayloadWriter& f64(double v);
  PayloadWriter& str(std::string_view s);
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

// Reads the fields back in the order written; a payload that ends early is an internal error (kRuntime).
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view bytes) : bytes_(bytes) {}
  std::int64_t i64();
  double f64();
  std::string str();

 private:
  std::string_view bytes_;
};

// ---- the dispatcher ----------------------------------------------------------------------------------------
struct Finished {
  std::int64_t index = 0;  // the input index the entry belongs to
  int rank = 0;            // where it was done
  std::string payload;
};

class Dispatcher {
 public:
  // Starts MPI on the calling thread (the main thread) and this rank's communication thread, to hand out the
  // indices 0..count-1. Null when the batch is not to be spread: launched_distributed() is false, or MPI says the
  // job has one process. Throws kUnsupported when it is to be spread but MPI was not compiled in, kRuntime when MPI
  // cannot start.
  static std::unique_ptr<Dispatcher> start(std::int64_t count);
  // Calls finish(), joins the communication thread and finalizes MPI: on the thread that called start().
  virtual ~Dispatcher() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool root() const { return rank() == 0; }

  // The next index from rank 0's shared counter; nothing once all are handed out or communication failed. Any
  // thread (it suits PipelineShape::next_index).
  virtual std::optional<std::int64_t> next_index() = 0;
  // Sends a finished entry to rank 0 (on rank 0 it goes straight to receive()). Any thread.
  virtual void send(std::int64_t index, std::string payload) = 0;
  // This rank sends nothing more (its pipeline ended). Idempotent.
  virtual void finish() = 0;
  // Rank 0: the next finished entry of any rank, in arrival order; nothing once every rank finished (or
  // communication failed). One thread at a time.
  virtual std::optional<Finished> receive() = 0;
  // Why communication failed, if it did ("" if not): entries not received by then are lost.
  virtual std::string failure() const = 0;
};

// For the life of a distributed batch's pipeline (null `d`: nothing at all). On rank 0: a thread handing every entry
// received to `record`, and `interrupted` as the interrupt line (core/interrupt.hpp: a rank died and the launcher
// stops the job, or the user did; it names what is not done and removes the temporaries a dead rank left). On the
// other ranks: on a stop, the temporaries of every one of `outputs` removed (rank 0 may be the process that died; a
// live process whose temporary goes fails to commit it, so nothing partial stays). Ends once this rank's last entry
// is sent and, on rank 0, every rank's received.
class EntryCollector {
 public:
  EntryCollector(Dispatcher* d, std::function<void(const Finished&)> record, std::function<std::string()> interrupted,
                 std::vector<std::string> outputs);
  ~EntryCollector();
  EntryCollector(const EntryCollector&) = delete;
  EntryCollector& operator=(const EntryCollector&) = delete;

 private:
  Dispatcher* d_;
  std::function<void(const Finished&)> record_;
  std::function<std::string()> interrupted_;
  std::vector<std::string> outputs_;
  std::thread thread_;
};

// Records the ranks start() found (app/dispatch_mpi.cpp).
void set_ranks(int rank, int size, int local_rank, int local_size);

}  // namespace dct::app::dispatch
