// File-system safety: atomic outputs, output-over-input refusal, input file checks, NaN/Inf checks.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/interrupt.hpp"

namespace dct::core {
namespace fs = std::filesystem;

namespace {

fs::path directory_of(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

// The process umask, read without changing it (umask(2) would race with threads creating files).
mode_t process_umask() {
  static const mode_t mask = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
    return static_cast<mode_t>(022);
  }();
  return mask;
}

std::string errno_text(int err) { return std::strerror(err); }

constexpr std::string_view kTempInfix = ".tmp.";
constexpr std::size_t kTempRandom = 6;  // mkstemp's XXXXXX

// ".NAME.tmp." for an output called NAME: the temporary's name up to mkstemp's characters.
std::string temporary_prefix(const std::string& path) {
  return "." + fs::path(path).filename().string() + std::string(kTempInfix);
}

bool is_temporary_name(const std::string& name, const std::string& prefix) {
  if (name.size() != prefix.size() + kTempRandom || name.compare(0, prefix.size(), prefix) != 0) return false;
  for (std::size_t i = prefix.size(); i < name.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

// All `bytes` at `offset` of `fd`; errors are kRuntime naming `subject`.
void pwrite_all(int fd, std::int64_t offset, const void* data, std::size_t bytes, const std::string& subject) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ErrorCode::kRuntime, subject, "write failed: " + errno_text(n < 0 ? errno : EIO));
    p += n;
    bytes -= static_cast<std::size_t>(n);
    offset += n;
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const fs::path dir = directory_of(path_);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(ErrorCode::kInput, path_, "output directory does not exist");
  if (fs::is_directory(path_, ec)) throw Error(ErrorCode::kInput, path_, "output is a directory");
  temp_ = (dir / (temporary_prefix(path_) + std::string(kTempRandom, 'X'))).string();
  int fd = create_temporary(temp_);
  if (fd < 0) {
    const int err = errno;
    temp_.clear();
    throw Error(ErrorCode::kInput, path_, "cannot create a file in '" + dir.string() + "': " + errno_text(err));
  }
  fchmod(fd, 0666 & ~process_umask());
  fp_ = fdopen(fd, "wb");
  if (fp_ == nullptr) {
    const int err = errno;
    close(fd);
    discard_temporary(temp_);
    temp_.clear();
    throw Error(ErrorCode::kRuntime, path_, "cannot open temporary file: " + errno_text(err));
  }
}

AtomicFile::~AtomicFile() {
  if (fp_ != nullptr) std::fclose(fp_);
  if (!committed_ && !temp_.empty()) discard_temporary(temp_);
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (fp_ == nullptr) throw Error(ErrorCode::kRuntime, path_, "write after commit");
  if (bytes != 0 && std::fwrite(data, 1, bytes, fp_) != bytes)
    throw Error(ErrorCode::kRuntime, path_, "write failed: " + errno_text(errno));
}

void AtomicFile::resize(std::int64_t bytes) {
  if (fp_ == nullptr) throw Error(ErrorCode::kRuntime, path_, "resize after commit");
  if (std::fflush(fp_) != 0 || ::ftruncate(fileno(fp_), static_cast<off_t>(bytes)) != 0)
    throw Error(ErrorCode::kRuntime, path_, "cannot size the output: " + errno_text(errno));
}

void AtomicFile::write_at(std::int64_t offset, const void* data, std::size_t bytes) const {
  if (fp_ == nullptr) throw Error(ErrorCode::kRuntime, path_, "write after commit");
  pwrite_all(fileno(fp_), offset, data, bytes, path_);
}

void AtomicFile::commit() {
  if (fp_ == nullptr) throw Error(ErrorCode::kRuntime, path_, "commit after commit");
  std::FILE* fp = fp_;
  fp_ = nullptr;
  // No fsync: the rename makes the output all or nothing for every reader and for a failing process, as cjpeg's,
  // ImageMagick's and ffmpeg's outputs are durable (the page cache's); syncing each file cost 3-12 ms per output of a
  // batch (docs/decisions.md, "Outputs not synced").
  const bool flushed = std::fflush(fp) == 0;
  const int err = errno;
  if (std::fclose(fp) != 0 || !flushed)
    throw Error(ErrorCode::kRuntime, path_, "write failed: " + errno_text(flushed ? errno : err));
  if (const int rename_err = commit_temporary(temp_, path_); rename_err != 0)
    throw Error(ErrorCode::kRuntime, path_, "cannot rename the temporary file into place: " + errno_text(rename_err));
  committed_ = true;
}

PartWriter::PartWriter(const std::string& path, std::string subject) : subject_(std::move(subject)) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(ErrorCode::kRuntime, subject_, "cannot open the temporary output: " + errno_text(errno));
}

PartWriter::~PartWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void PartWriter::write_at(std::int64_t offset, const void* data, std::size_t bytes) {
  pwrite_all(fd_, offset, data, bytes, subject_);
}

void PartWriter::close() {
  if (fd_ < 0) return;
  const int fd = std::exchange(fd_, -1);
  const bool synced = ::fsync(fd) == 0;
  const int err = errno;
  if (::close(fd) != 0 || !synced)
    throw Error(ErrorCode::kRuntime, subject_, "write failed: " + errno_text(synced ? errno : err));
}

std::size_t remove_temporaries_of(const std::vector<std::string>& outputs) {
  std::map<fs::path, std::set<std::string>> prefixes;  // directory -> ".NAME.tmp." of its outputs
  for (const std::string& out : outputs) prefixes[directory_of(out)].insert(temporary_prefix(out));
  std::size_t removed = 0;
  for (const auto& [dir, names] : prefixes) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) continue;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      const std::size_t infix = name.rfind(kTempInfix);
      if (infix == std::string::npos) continue;
      const auto p = names.find(name.substr(0, infix + kTempInfix.size()));
      if (p != names.end() && is_temporary_name(name, *p) && ::unlink((dir / name).c_str()) == 0) ++removed;
    }
    ::closedir(d);
  }
  return removed;
}

void check_output_path(const std::string& out, const std::vector<std::string>& inputs) {
  InputPaths(inputs).check_output(out);
}

// Two paths are the same file where both exist with the same device and inode (fs::equivalent), or where their
// weakly canonical forms are equal (an output not yet written that names an input through a link or "..").
InputPaths::InputPaths(const std::vector<std::string>& inputs) {
  for (const auto& in : inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) == 0) files_.emplace(std::pair<std::uint64_t, std::uint64_t>{st.st_dev, st.st_ino}, in);
    std::error_code ec;
    const fs::path canon = fs::weakly_canonical(in, ec);
    if (!ec && !canon.empty()) resolved_.emplace(canon.string(), in);
  }
}

void InputPaths::check_output(const std::string& out) const {
  std::error_code ec;
  if (!fs::is_directory(directory_of(out), ec)) throw Error(ErrorCode::kInput, out, "output directory does not exist");
  const std::string* same = nullptr;
  struct stat st {};
  if (!files_.empty() && ::stat(out.c_str(), &st) == 0) {
    const auto f = files_.find({st.st_dev, st.st_ino});
    if (f != files_.end()) same = &f->second;
  }
  if (same == nullptr && !resolved_.empty()) {
    const fs::path canon = fs::weakly_canonical(out, ec);
    const auto r = canon.empty() ? resolved_.end() : resolved_.find(canon.string());
    if (r != resolved_.end()) same = &r->second;
  }
  if (same != nullptr) throw Error(ErrorCode::kInput, out, "output would overwrite input '" + *same + "'");
}

void require_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw Error(ErrorCode::kInput, path, "no such file");
    throw Error(ErrorCode::kInput, path, "cannot read: " + errno_text(err));
  }
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::kInput, path, "is a directory");
  if (!S_ISREG(st.st_mode)) throw Error(ErrorCode::kInput, path, "not a regular file");
  if (st.st_size == 0) throw Error(ErrorCode::kInput, path, "empty file");
  if (::access(path.c_str(), R_OK) != 0) throw Error(ErrorCode::kInput, path, "cannot read: " + errno_text(errno));
}

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

namespace {

// Branch-free, so that it vectorizes: a value is NaN or Inf when its exponent bits are all set.
template <class T, class U>
bool finite_bits(const T* p, std::int64_t n) {
  constexpr U kExponent = sizeof(U) == 4 ? static_cast<U>(0x7f800000u) : static_cast<U>(0x7ff0000000000000ull);
  U bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad |= static_cast<U>((std::bit_cast<U>(p[i]) & kExponent) == kExponent);
  return bad == 0;
}

}  // namespace

bool all_finite(const void* data, std::int64_t count, Precision prec) {
  if (prec == Precision::kF32) return finite_bits<float, std::uint32_t>(static_cast<const float*>(data), count);
  return finite_bits<double, std::uint64_t>(static_cast<const double*>(data), count);
}

void require_finite(const HostTensor& t, const std::string& path) {
  if (all_finite(t.raw(), t.elements(), t.precision())) return;
  const std::int64_t n = t.elements();
  std::int64_t i = 0;
  if (t.precision() == Precision::kF32) {
    const float* p = t.data<float>();
    while (i < n && std::isfinite(p[i])) ++i;
  } else {
    const double* p = t.data<double>();
    while (i < n && std::isfinite(p[i])) ++i;
  }
  if (i == n) return;
  const double v = t.get(i);
  const std::int64_t plane = t.shape().count();
  const std::int64_t c = i / plane, p = i % plane;
  throw Error(ErrorCode::kInput, path,
              nonfinite_at(v, p / t.cols() + 1, p % t.cols() + 1, t.channels() > 1 ? c + 1 : 0));
}

std::string nonfinite_at(double v, std::int64_t row, std::int64_t col, std::int64_t channel) {
  return std::string(std::isnan(v) ? "NaN" : "Inf") + " at row " + std::to_string(row) + ", column " +
         std::to_string(col) + (channel > 0 ? ", channel " + std::to_string(channel) : std::string()) +
         " (non-finite values are not allowed)";
}

}  // namespace dct::core
