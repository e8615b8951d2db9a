// Interrupt cleanup: a registry of live temporaries and a sigwait() thread (see interrupt.hpp).
#include "core/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace dct::core {
namespace {

struct Registry {
  std::mutex mu;
  std::set<std::string> temps;
  std::int64_t committed = 0;
  std::function<std::string(const std::string&)> summary;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: the signal thread may use it during exit
  return *r;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal";
  }
}

[[noreturn]] void clean_up_and_exit(int sig) {
  Registry& r = registry();
  r.mu.lock();  // held until _exit: no temporary is created, renamed or forgotten meanwhile
  for (const std::string& t : r.temps) ::unlink(t.c_str());
  char own[120];
  std::snprintf(own, sizeof own, "%lld output%s finished, %zu unfinished removed", static_cast<long long>(r.committed),
                r.committed == 1 ? "" : "s", r.temps.size());
  std::string text = own;
  if (r.summary) {
    try {
      text = r.summary(own);
    } catch (...) {
      text = own;  // the hook's failure must not cost the cleanup
    }
  }
  if (!text.empty()) {
    const std::string line = std::string("dctool: interrupted by ") + signal_name(sig) + ": " + text + "\n";
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  }
  ::_exit(128 + sig);
}

}  // namespace

void install_interrupt_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    // A signal this process was started with ignored (nohup's SIGHUP, SIGINT of a shell's background job)
    // stays ignored: only the others are waited for.
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) sigaddset(&set, sig);
    }
    if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
    registry();
    std::thread([set] {
      int sig = 0;
      while (sigwait(&set, &sig) != 0) {
      }
      clean_up_and_exit(sig);
    }).detach();
  });
}

int create_temporary(std::string& templ) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const int fd = ::mkstemp(templ.data());
  if (fd >= 0) r.temps.insert(templ);
  return fd;
}

int commit_temporary(const std::string& temp, const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (std::rename(temp.c_str(), path.c_str()) != 0) return errno;
  r.temps.erase(temp);
  ++r.committed;
  return 0;
}

void discard_temporary(const std::string& temp) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  ::unlink(temp.c_str());
  r.temps.erase(temp);
}

std::int64_t committed_outputs() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.committed;
}

void set_interrupt_summary(std::function<std::string(const std::string&)> summary) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.summary = std::move(summary);
}

}  // namespace dct::core
