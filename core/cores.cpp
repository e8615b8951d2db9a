#include "core/cores.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

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

}  // namespace dct::core
