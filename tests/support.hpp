#pragma once
// Shared test helpers: random inputs, the CLI runner, temporary directories, the oracle.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/tensor.hpp"

namespace dct::test {

// Uniform in [-1, 1], deterministic per seed.
core::HostTensor random_tensor(core::Shape2 shape, std::int64_t batch, core::Precision prec, std::uint64_t seed);

// Runs `build/dctool <args>` through the shell; captures stdout, stderr and the exit code.
struct RunResult {
  int code = -1;
  std::string out, err;
};
RunResult run_dctool(const std::string& args);
std::string source_dir();  // the repository root
std::string python();      // /usr/bin/python3 (with numpy/scipy)

// A fresh directory removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The f64 oracle: cpu-naive (direct definitions, long double accumulation) on `in` converted to f64.
core::HostTensor oracle(const core::TransformDesc& d, const core::HostTensor& in);
// Runs `backend` on `in` for `d` (host to host) and returns the output.
core::HostTensor run_backend(const core::Backend& b, const core::TransformDesc& d, const core::HostTensor& in);
// Names of every registered backend that lists `op` (usable here or not).
std::vector<const core::Backend*> backends_listing(core::Op op);

}  // namespace dct::test
