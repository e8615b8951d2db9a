#pragma once
// A progress bar on stderr for batch mode: drawn only when stderr is a terminal; thread-safe; messages
// (one-line errors) are printed above it.
#include <cstdint>
#include <mutex>
#include <string>

#include "core/timing.hpp"

namespace dct::app {

class ProgressBar {
 public:
  // `unit`: what an item is, in the rate ("img" for images, "inputs" for a transform batch's files).
  ProgressBar(std::int64_t total, bool enabled, std::string unit = "img");
  ~ProgressBar();  // clears the bar
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void advance(const std::string& item);  // one more item done
  void message(const std::string& line);  // a line on stderr, above the bar
  static bool stderr_is_terminal();

 private:
  void draw_locked(const std::string& item);
  void clear_locked();

  std::mutex mu_;
  std::int64_t total_, done_ = 0;
  bool enabled_;
  std::string unit_;
  bool drawn_ = false;
  core::Stopwatch clock_;
};

}  // namespace dct::app
