#include <malloc.h>

#include "app/cli.hpp"
#include "core/interrupt.hpp"

namespace {

// glibc serves blocks over 128 KiB-32 MiB (its moving threshold) with fresh mmaps and gives freed heap tops back to
// the kernel, so a batch paid a page fault per 4 KiB of every image, coefficient plane and libjpeg buffer it made
// (180,000 faults, a tenth of the CPU time, for 30 1080p photos). Blocks up to 64 MiB now come from the heap and
// stay mapped for the next input (docs/decisions.md, "Host memory").
constexpr int kMmapThreshold = 64 << 20;
constexpr int kTrimThreshold = 1 << 30;

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
#endif
  dct::core::install_interrupt_cleanup();  // first: every thread started later inherits the blocked signals
  return dct::app::run_cli(argc, argv);
}
