#include "app/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace dct::app {

namespace {
constexpr int kWidth = 30;
}

ProgressBar::ProgressBar(std::int64_t total, bool enabled, std::string unit)
    : total_(total), enabled_(enabled), unit_(std::move(unit)) {}

ProgressBar::~ProgressBar() {
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
}

bool ProgressBar::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void ProgressBar::advance(const std::string& item) {
  std::lock_guard<std::mutex> lock(mu_);
  ++done_;
  if (enabled_) draw_locked(item);
}

void ProgressBar::message(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
  std::fprintf(stderr, "%s\n", line.c_str());
  if (enabled_ && done_ > 0) draw_locked("");
  std::fflush(stderr);
}

void ProgressBar::clear_locked() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
  std::fflush(stderr);
}

void ProgressBar::draw_locked(const std::string& item) {
  const double frac = total_ > 0 ? double(done_) / double(total_) : 1.0;
  const int fill = static_cast<int>(frac * kWidth + 0.5);
  const double s = clock_.elapsed_ms() / 1000.0;
  std::string bar(static_cast<std::size_t>(fill), '#');
  bar.append(static_cast<std::size_t>(kWidth - fill), '.');
  std::string name = item;
  if (name.size() > 32) name = "..." + name.substr(name.size() - 29);
  std::fprintf(stderr, "\r\033[K[%s] %lld/%lld %3d%%  %.1f %s/s  %s", bar.c_str(), static_cast<long long>(done_),
               static_cast<long long>(total_), static_cast<int>(frac * 100 + 0.5), s > 0 ? done_ / s : 0.0,
               unit_.c_str(), name.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace dct::app
