#pragma once
// Wall-clock and CPU-time measurement, and the per-stage table that --timing prints.
#include <chrono>
#include <string>
#include <vector>

namespace dct::core {

class Stopwatch {
 public:
  Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
  void reset() { t0_ = std::chrono::steady_clock::now(); }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
  }
  // The time since the start or the last lap; a new lap starts now.
  double lap_ms() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - t0_).count();
    t0_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

// User + system CPU time of this process, milliseconds.
double process_cpu_ms();

// Summary statistics of repeated measurements.
struct Stats {
  double median = 0, min = 0, max = 0;
};
Stats summarize(std::vector<double> samples);

// Ordered (stage, milliseconds) rows, printed by --timing.
class StageTable {
 public:
  void add(std::string stage, double ms) { rows_.push_back({std::move(stage), ms}); }
  struct Row {
    std::string stage;
    double ms;
  };
  const std::vector<Row>& rows() const { return rows_; }
  std::string format() const;  // aligned text table

 private:
  std::vector<Row> rows_;
};

}  // namespace dct::core
