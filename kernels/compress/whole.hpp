#pragma once
// The GPU keep-selection of cuda-compress-whole (kernels/compress/whole.cu) on its own, for the tests: plain
// C++ (no CUDA types), compiled in only in CUDA builds. The compressor's factory is in
// kernels/backends.hpp with the other compressors.
#include <cstdint>
#include <vector>

namespace dct::cuda {

// Per channel: keep |c| > thr, and of the |c| == thr those at flat index <= last (ties: lower index first).
// ties = how many |c| equal thr, rank = how many of them are kept.
struct KeepSelection {
  double thr = 0;
  std::int64_t last = -1;
  std::uint64_t ties = 0, rank = 0;
};
// Runs the device selection of the k largest |c| (1 <= k <= n) on `channels` planes of n values each (c holds
// channels * n values) with the radix select. Throws dct::Error(kRuntime) without a usable device.
std::vector<KeepSelection> gpu_keep_select(const std::vector<float>& c, std::int64_t n, int channels, std::int64_t k);
std::vector<KeepSelection> gpu_keep_select(const std::vector<double>& c, std::int64_t n, int channels, std::int64_t k);

}  // namespace dct::cuda
