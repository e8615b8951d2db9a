// A file system without fallocate(2), for the other route of the one-shot .npy writer (core::NpySink writes with
// pwrite where fallocate fails, as on file systems that lack it): preloaded into dctool (LD_PRELOAD), fallocate fails
// with EOPNOTSUPP and says so on stderr, so that a test can tell that route was taken (tests/app/test_streamed.cpp).
// No headers of the calls it replaces: off_t is a long on the Linux targets dctool builds for.
#include <cerrno>

#include <unistd.h>

namespace {
void refused() {
  static const char m[] = "no_fallocate: fallocate refused\n";
  (void)!::write(2, m, sizeof m - 1);
}
}  // namespace

extern "C" int fallocate(int, int, long, long) {
  refused();
  errno = EOPNOTSUPP;
  return -1;
}

extern "C" int fallocate64(int, int, long, long) {
  refused();
  errno = EOPNOTSUPP;
  return -1;
}
