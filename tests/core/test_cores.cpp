// core::usable_cores and share_of_cores follow the affinity mask (taskset, a launcher's binding).
#include <catch2/catch.hpp>

#include <sched.h>

#include <algorithm>
#include <thread>

#include "core/cores.hpp"

TEST_CASE("usable cores: the affinity mask, else an equal share of the host", "[core]") {
  cpu_set_t all;
  REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
  const int online = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CHECK(dct::core::usable_cores() == CPU_COUNT(&all));
  if (CPU_COUNT(&all) == online) {
    CHECK(dct::core::share_of_cores(1) == online);
    CHECK(dct::core::share_of_cores(online * 2) == 1);  // never 0
  }
  // Bound to one CPU: one core, whatever the number of processes.
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  const int bound = dct::core::usable_cores(), share = dct::core::share_of_cores(4);
  REQUIRE(sched_setaffinity(0, sizeof all, &all) == 0);
  CHECK(bound == 1);
  CHECK(share == 1);
}
