#include "core/timing.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

namespace dct::core {

double process_cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

Stats summarize(std::vector<double> s) {
  Stats r;
  if (s.empty()) return r;
  std::sort(s.begin(), s.end());
  r.min = s.front();
  r.max = s.back();
  const std::size_t n = s.size();
  r.median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return r;
}

std::string StageTable::format() const {
  std::size_t w = 5;
  for (const auto& r : rows_) w = std::max(w, r.stage.size());
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-*s  %10s\n", static_cast<int>(w), "stage", "ms");
  out += line;
  for (const auto& r : rows_) {
    std::snprintf(line, sizeof line, "%-*s  %10.3f\n", static_cast<int>(w), r.stage.c_str(), r.ms);
    out += line;
  }
  return out;
}

}  // namespace dct::core
