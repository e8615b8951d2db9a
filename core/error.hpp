#pragma once
// dct::Error: the one exception type, carrying an exit code (README "Exit codes").
#include <stdexcept>
#include <string>
#include <string_view>

namespace dct {

enum class ErrorCode : int {
  kRuntime = 1,      // GPU error, out of memory, internal
  kUsage = 2,        // bad command line
  kInput = 3,        // missing/unreadable/corrupt/truncated file, NaN/Inf, shape mismatch, size over limit
  kUnsupported = 4,  // op/size/precision not supported by the backend, backend not compiled in
};

// What failed, for kRuntime errors raised by a GPU (a batch falls back to the CPU on them, README "GPU faults").
enum class Fault : int {
  kNone = 0,
  kDeviceMemory,  // the device's memory is too small for the request (nothing else is wrong with the device)
  kDevice,        // any other CUDA or cuFFT failure: the device may be unusable for the rest of the process
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string subject, const std::string& what, Fault fault = Fault::kNone)
      : std::runtime_error(what), code_(code), subject_(std::move(subject)), fault_(fault) {}
  Error(ErrorCode code, const std::string& what) : Error(code, "", what) {}
  ErrorCode code() const noexcept { return code_; }
  Fault fault() const noexcept { return fault_; }
  int exit_code() const noexcept { return static_cast<int>(code_); }
  // The file (or backend, or option) the message is about; may be empty.
  const std::string& subject() const noexcept { return subject_; }
  // "dctool: error: <subject>: <what>" (without the subject part when it is empty), one printable line: both
  // parts pass through printable(), and an empty reason says what failed.
  std::string message() const;

 private:
  ErrorCode code_;
  std::string subject_;
  Fault fault_;
};

// `text` as one printable line: control bytes (C0, DEL, C1) and bytes that are not UTF-8 become \xNN (so a
// newline or an escape sequence read from a file cannot break the line or drive the terminal); an empty
// `text` becomes `if_empty`. Every error message dctool prints goes through it.
std::string printable(std::string_view text, std::string_view if_empty = {});

// Re-throws `e` with `subject` filled in when it has none (used to name the file an error concerns).
[[noreturn]] void rethrow_with_subject(const Error& e, const std::string& subject);

}  // namespace dct
