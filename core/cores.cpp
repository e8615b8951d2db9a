#include "core/cores.hpp"

#include <sched.h>

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace dct::core {
namespace {
int online_cores() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}
}  // namespace

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return online_cores();
}

int share_of_cores(int processes) {
  const int usable = usable_cores(), online = online_cores();
  if (usable < online) return usable;
  return std::max(1, online / std::max(1, processes));
}

void run_parts(std::size_t parts, const std::function<void(std::size_t)>& part) {
  std::vector<std::exception_ptr> errors(parts);
  auto guarded = [&](std::size_t k) {
    try {
      part(k);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::size_t k = 1; k < parts; ++k) {
      try {
        helpers.emplace_back(guarded, k);
      } catch (const std::system_error&) {
        guarded(k);
      }
    }
    if (parts > 0) guarded(0);
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace dct::core
