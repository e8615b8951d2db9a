// The MPI side of app/dispatch.hpp, and MPI's start-up (app/mpi_world.hpp). Rank 0's communication thread answers index
// requests from its shared counter (its own readers take from the counter directly) and queues the entries other
// ranks send for receive(); another rank's communication thread turns its readers' requests and its finished entries
// into messages to rank 0, and says kDone after its last entry. MPI keeps the order of the messages between two
// ranks, so rank 0 has every entry of a rank once it has that rank's kDone.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "app/dispatch.hpp"
#include "app/mpi_world.hpp"
#include "core/error.hpp"

namespace dct::app::dispatch {
namespace {

enum Tag : int {
  kRequest = 1,  // to rank 0, empty: the next index, please
  kIndex = 2,    // from rank 0: the index (8 bytes), -1 when none is left
  kEntry = 3,    // to rank 0: the index (8 bytes), then the entry's payload
  kDone = 4,     // to rank 0, empty: this rank sends nothing more
};

// Waits poll with a sleep: Open MPI's blocking calls spin a core that the batch's workers need. The interval bounds
// what a request waits for rank 0 to notice it.
constexpr auto kPoll = std::chrono::microseconds(200);

void wait_polling(MPI_Request& req) {
  for (;;) {
    int done = 0;
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(kPoll);
  }
}

void send_bytes(const std::string& bytes, int to, int tag) {
  MPI_Request req;
  check(MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD, &req), "MPI_Isend");
  wait_polling(req);
}

class MpiDispatcher final : public Dispatcher {
 public:
  MpiDispatcher(int rank, int size, std::int64_t count) : rank_(rank), size_(size), count_(count) {
    comm_ = std::thread([this] { communicate(); });
  }

  ~MpiDispatcher() override {
    finish();
    comm_.join();
    MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::optional<std::int64_t> next_index() override {
    if (root()) {
      std::lock_guard<std::mutex> lock(mu_);
      if (next_ >= count_) return std::nullopt;
      return next_++;
    }
    auto reply = std::make_shared<std::promise<std::optional<std::int64_t>>>();
    std::future<std::optional<std::int64_t>> got = reply->get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (exhausted_ || !failure_.empty()) return std::nullopt;
      requests_.push_back(reply);
    }
    work_cv_.notify_one();
    return got.get();
  }

  void send(std::int64_t index, std::string payload) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (root()) {
      incoming_.push_back(Finished{index, 0, std::move(payload)});
      received_cv_.notify_all();
    } else if (failure_.empty()) {
      outgoing_.push_back(PayloadWriter().i64(index).take() + payload);
      work_cv_.notify_one();
    }
  }

  void finish() override {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    // Rank 0's own readers stop only once every index is handed out; before that, finishing means this batch broke
    // here, and the other ranks are not to start more of it.
    if (root()) next_ = count_;
    work_cv_.notify_one();
    received_cv_.notify_all();
  }

  std::optional<Finished> receive() override {
    std::unique_lock<std::mutex> lock(mu_);
    received_cv_.wait(lock,
                      [this] { return !incoming_.empty() || (finished_ && (others_done_ || !failure_.empty())); });
    if (incoming_.empty()) return std::nullopt;
    Finished f = std::move(incoming_.front());
    incoming_.pop_front();
    return f;
  }

  std::string failure() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return failure_;
  }

 private:
  bool root() const { return rank_ == 0; }

  void communicate() {
    try {
      if (root())
        serve();
      else
        relay();
    } catch (const Error& e) {
      fail(e.message());
    } catch (const std::exception& e) {
      fail(std::string("dctool: error: MPI: ") + e.what());
    }
  }

  // Rank 0: answers requests and collects entries until every other rank said kDone.
  void serve() {
    int done = 0;
    while (done < size_ - 1) {
      int flag = 0;
      MPI_Status st;
      check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
      if (!flag) {
        std::this_thread::sleep_for(kPoll);
        continue;
      }
      int bytes = 0;
      check(MPI_Get_count(&st, MPI_BYTE, &bytes), "MPI_Get_count");
      std::string msg(static_cast<std::size_t>(bytes), '\0');
      check(MPI_Recv(msg.data(), bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
      if (st.MPI_TAG == kRequest) {
        std::int64_t i = -1;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (next_ < count_) i = next_++;
        }
        send_bytes(PayloadWriter().i64(i).take(), st.MPI_SOURCE, kIndex);
      } else if (st.MPI_TAG == kEntry) {
        Finished f;
        f.index = PayloadReader(msg).i64();
        f.rank = st.MPI_SOURCE;
        f.payload = msg.substr(8);
        std::lock_guard<std::mutex> lock(mu_);
        incoming_.push_back(std::move(f));
        received_cv_.notify_all();
      } else if (st.MPI_TAG == kDone) {
        ++done;
      } else {
        throw Error(ErrorCode::kRuntime, "MPI",
                    "a message with an unknown tag from rank " + std::to_string(st.MPI_SOURCE));
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    others_done_ = true;
    received_cv_.notify_all();
  }

  // Another rank: sends its entries and asks for indices as its threads queue them; kDone after finish().
  void relay() {
    for (;;) {
      std::deque<std::shared_ptr<std::promise<std::optional<std::int64_t>>>> requests;
      std::deque<std::string> outgoing;
      bool finished = false;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [this] { return !requests_.empty() || !outgoing_.empty() || finished_; });
        requests.swap(requests_);
        outgoing.swap(outgoing_);
        finished = finished_;
      }
      for (const std::string& m : outgoing) send_bytes(m, 0, kEntry);
      while (!requests.empty()) {
        try {
          const std::optional<std::int64_t> i = ask();
          requests.front()->set_value(i);
        } catch (...) {
          for (auto& r : requests) r->set_value(std::nullopt);  // the readers stop; fail() tells why
          throw;
        }
        requests.pop_front();
      }
      if (finished) {
        send_bytes({}, 0, kDone);
        return;
      }
    }
  }

  // One index from rank 0 (nothing once it said none is left: it is not asked again).
  std::optional<std::int64_t> ask() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (exhausted_) return std::nullopt;
    }
    std::string reply(8, '\0');
    MPI_Request req;
    check(MPI_Irecv(reply.data(), 8, MPI_BYTE, 0, kIndex, MPI_COMM_WORLD, &req), "MPI_Irecv");
    send_bytes({}, 0, kRequest);
    wait_polling(req);
    const std::int64_t i = PayloadReader(reply).i64();
    if (i >= 0) return i;
    std::lock_guard<std::mutex> lock(mu_);
    exhausted_ = true;
    return std::nullopt;
  }

  void fail(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    failure_ = why;
    for (auto& r : requests_) r->set_value(std::nullopt);
    requests_.clear();
    outgoing_.clear();
    received_cv_.notify_all();
  }

  const int rank_, size_;
  const std::int64_t count_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;      // another rank's communication thread waits for requests and entries
  std::condition_variable received_cv_;  // receive() waits for entries
  std::int64_t next_ = 0;                // rank 0: the next index to hand out
  bool exhausted_ = false;               // another rank: rank 0 said no index is left
  bool finished_ = false;
  bool others_done_ = false;  // rank 0: every other rank said kDone
  std::string failure_;
  std::deque<std::shared_ptr<std::promise<std::optional<std::int64_t>>>> requests_;
  std::deque<std::string> outgoing_;  // another rank: kEntry messages
  std::deque<Finished> incoming_;     // rank 0: entries for receive()
  std::thread comm_;
};

}  // namespace

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(ErrorCode::kRuntime, "MPI", std::string(call) + " failed: " + std::string(text, text + len));
}

int start_mpi() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    throw Error(ErrorCode::kRuntime, "MPI", "MPI_Init_thread failed");
  try {
    if (provided < MPI_THREAD_SERIALIZED)
      throw Error(ErrorCode::kRuntime, "MPI",
                  "the MPI library does not allow calls from a thread other than the main one "
                  "(MPI_THREAD_SERIALIZED)");
    // Failures come back as codes, so that they become one error line rather than an abort.
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    int rank = 0, size = 1, local_rank = 0, local_size = 1;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
    MPI_Comm host;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
    check(MPI_Comm_rank(host, &local_rank), "MPI_Comm_rank");
    check(MPI_Comm_size(host, &local_size), "MPI_Comm_size");
    check(MPI_Comm_free(&host), "MPI_Comm_free");
    set_ranks(rank, size, local_rank, local_size);
    return size;
  } catch (...) {
    MPI_Finalize();
    throw;
  }
}

std::unique_ptr<Dispatcher> Dispatcher::start(std::int64_t count) {
  if (!launched_distributed()) return nullptr;
  const int size = start_mpi();
  if (size < 2) {
    MPI_Finalize();
    return nullptr;
  }
  return std::make_unique<MpiDispatcher>(dispatch::rank(), size, count);
}

}  // namespace dct::app::dispatch
