// Matrix file formats (README "Formats"): .npy (NEP 1 / numpy.lib.format, versions 1.0-3.0), text (.txt/.csv) and
// raw little-endian (.raw/.f32/.f64 with --shape), and the dispatch by extension that also routes images to
// the ImageCodec. Readers check every header field against the file size and kMaxElements before allocating.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <string_view>
#include <type_traits>

#include "core/cores.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/tensor_pool.hpp"

namespace dct::core {
namespace {

// ---- element types ---------------------------------------------------------------------------------

enum class Dtype { kF32, kF64, kU8, kU16, kI16, kI32, kI8, kU32, kI64, kU64, kF16, kBool };

struct DtypeInfo {
  Dtype id;
  std::string_view name;   // --dtype spelling
  std::string_view numpy;  // numpy name (also accepted by --dtype)
  std::string_view descr;  // .npy descr without the byte-order character
  std::size_t size;
};

// In the order of Dtype. int8 has no short name: numpy's 'i8' is int64.
constexpr std::array<DtypeInfo, 12> kDtypes{{
    {Dtype::kF32, "f32", "float32", "f4", 4},
    {Dtype::kF64, "f64", "float64", "f8", 8},
    {Dtype::kU8, "u8", "uint8", "u1", 1},
    {Dtype::kU16, "u16", "uint16", "u2", 2},
    {Dtype::kI16, "i16", "int16", "i2", 2},
    {Dtype::kI32, "i32", "int32", "i4", 4},
    {Dtype::kI8, "int8", "int8", "i1", 1},
    {Dtype::kU32, "u32", "uint32", "u4", 4},
    {Dtype::kI64, "i64", "int64", "i8", 8},
    {Dtype::kU64, "u64", "uint64", "u8", 8},
    {Dtype::kF16, "f16", "float16", "f2", 2},
    {Dtype::kBool, "bool", "bool", "b1", 1},
}};

// "f32|f64|…" (the --dtype names) or "float32, float64, …" (numpy's).
std::string dtype_list(bool numpy) {
  std::string out;
  for (const auto& d : kDtypes) out += (out.empty() ? "" : numpy ? ", " : "|") + std::string(numpy ? d.numpy : d.name);
  return out;
}

const DtypeInfo& info(Dtype d) { return kDtypes[static_cast<std::size_t>(d)]; }

// How values are stored in a file: their type and, for a .npy, their byte order.
struct Stored {
  Stored(Dtype t, bool b = false) : type(t), big(b) {}  // NOLINT(google-explicit-constructor): a Dtype is little-endian
  Dtype type;
  bool big;  // big-endian ('>' in a .npy descr)
};

// Reverses the bytes of each of `n` values of `size` bytes in place (big-endian values read on a little-endian host).
void swap_bytes(unsigned char* p, std::int64_t n, std::size_t size) {
  for (std::int64_t k = 0; k < n; ++k, p += size) std::reverse(p, p + size);
}

Dtype dtype_of(Precision p) { return p == Precision::kF32 ? Dtype::kF32 : Dtype::kF64; }

Dtype parse_dtype(const std::string& s) {
  for (const auto& d : kDtypes)
    if (s == d.name || s == d.numpy) return d.id;
  throw Error(ErrorCode::kUsage, "invalid --dtype '" + s + "' (expected " + dtype_list(false) + ")");
}

// Whether a file's values of `d` are the bytes of single-channel `t` (little-endian host, same float type): then
// reading and writing need no conversion.
bool same_layout(Dtype d, const HostTensor& t) {
  return std::endian::native == std::endian::little && t.channels() == 1 && d == dtype_of(t.precision());
}

// numpy's float16 (IEEE binary16), converted exactly.
struct Half {
  std::uint16_t bits;
  explicit operator double() const {
    const int e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
    const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
    if (e == 0) return sign * std::ldexp(m, -24);
    if (e == 31) return m != 0 ? std::nan("") : sign * HUGE_VAL;
    return sign * std::ldexp(m + 1024, e - 25);
  }
  explicit operator float() const { return static_cast<float>(static_cast<double>(*this)); }
};

template <class T>
T load_le(const unsigned char* p) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  U u = 0;
  for (std::size_t b = 0; b < sizeof(T); ++b) u |= static_cast<U>(static_cast<U>(p[b]) << (8 * b));
  return std::bit_cast<T>(u);
}

template <class T>
void store_le(unsigned char* p, T v) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const U u = std::bit_cast<U>(v);
  for (std::size_t b = 0; b < sizeof(T); ++b) p[b] = static_cast<unsigned char>(u >> (8 * b));
}

// Converts `n` stored elements, the `first`.. of the file, into planar `dst`. Files with `channels` > 1 hold
// (H, W, C) interleaved: element i is channel i % C of pixel i / C.
template <class Out, class In>
void decode_chunk(const unsigned char* src, std::int64_t n, std::int64_t first, std::int64_t channels,
                  std::int64_t plane, Out* dst) {
  if constexpr (std::is_same_v<Out, In> && std::endian::native == std::endian::little) {
    if (channels == 1) {
      std::memcpy(dst + first, src, static_cast<std::size_t>(n) * sizeof(In));
      return;
    }
  }
  std::int64_t pixel = first / channels, c = first % channels;
  for (std::int64_t k = 0; k < n; ++k) {
    dst[c * plane + pixel] = static_cast<Out>(load_le<In>(src + k * static_cast<std::int64_t>(sizeof(In))));
    if (++c == channels) {
      c = 0;
      ++pixel;
    }
  }
}

template <class Out>
void decode_chunk_to(Dtype d, const unsigned char* src, std::int64_t n, std::int64_t first, std::int64_t channels,
                     std::int64_t plane, Out* dst) {
  using Decode = void (*)(const unsigned char*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, Out*);
  // In the order of Dtype; numpy stores bool False / True as the bytes 0 / 1.
  static constexpr std::array<Decode, kDtypes.size()> kDecode{
      &decode_chunk<Out, float>,         &decode_chunk<Out, double>,        &decode_chunk<Out, std::uint8_t>,
      &decode_chunk<Out, std::uint16_t>, &decode_chunk<Out, std::int16_t>,  &decode_chunk<Out, std::int32_t>,
      &decode_chunk<Out, std::int8_t>,   &decode_chunk<Out, std::uint32_t>, &decode_chunk<Out, std::int64_t>,
      &decode_chunk<Out, std::uint64_t>, &decode_chunk<Out, Half>,          &decode_chunk<Out, std::uint8_t>};
  kDecode[static_cast<std::size_t>(d)](src, n, first, channels, plane, dst);
}

// The inverse for writing: stored elements first.. of an (H, W, C) file from planar `src`.
template <class Out, class In>
void encode_chunk(const In* src, std::int64_t first, std::int64_t n, std::int64_t channels, std::int64_t plane,
                  unsigned char* dst) {
  std::int64_t pixel = first / channels, c = first % channels;
  for (std::int64_t k = 0; k < n; ++k) {
    store_le<Out>(dst + k * static_cast<std::int64_t>(sizeof(Out)), static_cast<Out>(src[c * plane + pixel]));
    if (++c == channels) {
      c = 0;
      ++pixel;
    }
  }
}

template <class Out>
void encode_chunk_from(const HostTensor& t, std::int64_t first, std::int64_t n, unsigned char* dst) {
  if (t.precision() == Precision::kF32)
    encode_chunk<Out>(t.data<float>(), first, n, t.channels(), t.shape().count(), dst);
  else
    encode_chunk<Out>(t.data<double>(), first, n, t.channels(), t.shape().count(), dst);
}

constexpr std::int64_t kChunkElements = 1 << 16;

// ---- input files -------------------------------------------------------------------------------------

// Reads of at most this many bytes: a value check that follows each one finds its bytes still in cache (L2).
constexpr std::size_t kReadChunk = std::size_t{256} << 10;
// A file's values are read by several threads (ReadOptions::threads) only in parts of at least this many bytes.
constexpr std::size_t kMinReadPart = std::size_t{16} << 20;

class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    require_input_file(path);
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(ErrorCode::kInput, path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      const int err = errno;
      ::close(fd_);
      throw Error(ErrorCode::kInput, path, std::string("cannot stat: ") + std::strerror(err));
    }
    size_ = static_cast<std::int64_t>(st.st_size);
    if (size_ == 0) {
      ::close(fd_);
      throw Error(ErrorCode::kInput, path, "empty file");
    }
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::int64_t size() const { return size_; }
  // The next `bytes` of the file, straight into `dst` (each read goes on where the last one ended).
  void read(void* dst, std::size_t bytes) {
    read_at(dst, bytes, pos_);
    pos_ += static_cast<std::int64_t>(bytes);
  }
  // Reads `count` values of `d` at byte `offset` into `dst` as `prec` (one channel), without a value check.
  void read_values_at(Stored s, std::int64_t offset, std::int64_t count, void* dst, Precision prec) const {
    const Dtype d = s.type;
    const std::size_t esize = info(d).size;
    if (std::endian::native == std::endian::little && !s.big && d == dtype_of(prec)) {
      read_at(dst, static_cast<std::size_t>(count) * esize, offset);
      return;
    }
    std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(count, kChunkElements)) * esize);
    for (std::int64_t first = 0; first < count; first += kChunkElements) {
      const std::int64_t n = std::min(kChunkElements, count - first);
      read_at(buf.data(), static_cast<std::size_t>(n) * esize, offset + first * static_cast<std::int64_t>(esize));
      if (s.big) swap_bytes(buf.data(), n, esize);
      if (prec == Precision::kF32)
        decode_chunk_to(d, buf.data(), n, first, 1, count, static_cast<float*>(dst));
      else
        decode_chunk_to(d, buf.data(), n, first, 1, count, static_cast<double*>(dst));
    }
  }
  // Reads `elements` values of `d` into planar `t` (which has `channels` interleaved in the file); with
  // `check_finite`, a NaN or Inf among them is an input error. `threads` > 1: a large file's values are read in that
  // many parts at once.
  void read_values(Stored s, std::int64_t elements, HostTensor& t, bool check_finite, int threads) {
    const Dtype d = s.type;
    const std::size_t esize = info(d).size;
    // The common case, one channel stored as the tensor holds it: the bytes go straight into the tensor (no
    // conversion pass), each chunk checked while it is in cache.
    if (!s.big && same_layout(d, t)) {
      const std::size_t total = static_cast<std::size_t>(elements) * esize;
      const std::size_t parts =
          std::clamp<std::size_t>(total / kMinReadPart, 1, static_cast<std::size_t>(std::max(1, threads)));
      if (parts == 1) {
        if (!read_checked(t, 0, total, check_finite)) require_finite(t, path_);
      } else {
        read_parts(t, total, parts, check_finite);
      }
      pos_ += static_cast<std::int64_t>(total);
      return;
    }
    std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(elements, kChunkElements)) * esize);
    const std::int64_t channels = t.channels(), plane = t.shape().count();
    for (std::int64_t first = 0; first < elements; first += kChunkElements) {
      const std::int64_t n = std::min(kChunkElements, elements - first);
      read(buf.data(), static_cast<std::size_t>(n) * esize);
      if (s.big) swap_bytes(buf.data(), n, esize);
      if (t.precision() == Precision::kF32)
        decode_chunk_to(d, buf.data(), n, first, channels, plane, t.data<float>());
      else
        decode_chunk_to(d, buf.data(), n, first, channels, plane, t.data<double>());
    }
    if (check_finite) require_finite(t, path_);
  }

 private:
  void read_at(void* dst, std::size_t bytes, std::int64_t offset) const {
    auto* p = static_cast<unsigned char*>(dst);
    while (bytes > 0) {
      const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error(ErrorCode::kInput, path_, std::string("read failed: ") + std::strerror(errno));
      if (n == 0) throw Error(ErrorCode::kInput, path_, "truncated file");
      p += n;
      bytes -= static_cast<std::size_t>(n);
      offset += n;
    }
  }

  // Bytes [from, to) of the tensor's values (from the read position on), chunk by chunk; false at the first chunk
  // holding a NaN or Inf (when checked), whose bytes are then read.
  bool read_checked(HostTensor& t, std::size_t from, std::size_t to, bool check_finite) const {
    auto* dst = static_cast<unsigned char*>(t.raw());
    const std::size_t esize = element_size(t.precision());
    for (std::size_t at = from; at < to; at += kReadChunk) {
      const std::size_t n = std::min(kReadChunk, to - at);
      read_at(dst + at, n, pos_ + static_cast<std::int64_t>(at));
      if (check_finite && !all_finite(dst + at, static_cast<std::int64_t>(n / esize), t.precision())) return false;
    }
    return true;
  }

  // read_checked over `parts` consecutive parts at once. Its errors as a single read would give them: the first
  // part's that failed, and a NaN or Inf named by require_finite's scan, which stops at the first one (every part
  // before it read in full).
  void read_parts(HostTensor& t, std::size_t total, std::size_t parts, bool check_finite) const {
    const std::size_t esize = element_size(t.precision());
    const std::size_t step = (total / parts + esize - 1) / esize * esize;
    std::vector<std::exception_ptr> errors(parts);  // kept per part: a NaN before a failed part is named first
    std::vector<char> finite(parts, 1);
    run_parts(parts, [&](std::size_t k) {
      try {
        finite[k] = read_checked(t, std::min(total, k * step), std::min(total, (k + 1) * step), check_finite);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
    for (std::size_t k = 0; k < parts; ++k) {
      if (errors[k]) std::rethrow_exception(errors[k]);
      if (!finite[k]) require_finite(t, path_);
    }
  }

  std::string path_;
  int fd_ = -1;
  std::int64_t size_ = 0;
  std::int64_t pos_ = 0;
};

std::string shape_text(const std::vector<std::int64_t>& dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  if (dims.size() == 1) s += ",";
  return s + ")";
}

// Product of `dims`, checked against kMaxDim and `max_elements` without overflowing.
std::int64_t checked_elements(const std::vector<std::int64_t>& dims, std::int64_t max_elements = kMaxElements) {
  std::int64_t n = 1;
  for (auto d : dims) {
    if (d <= 0) throw Error(ErrorCode::kInput, "empty array (shape " + shape_text(dims) + ")");
    if (d > kMaxDim)
      throw Error(ErrorCode::kInput,
                  "shape " + shape_text(dims) + ": dimension over the limit of " + std::to_string(kMaxDim));
    if (n > max_elements / d)
      throw Error(ErrorCode::kInput, "shape " + shape_text(dims) + " has more than the limit of " +
                                         std::to_string(max_elements) + " values");
    n *= d;
  }
  return n;
}

void write_values(AtomicFile& out, const HostTensor& t, Precision prec) {
  const std::size_t esize = element_size(prec);
  const std::int64_t elements = t.elements();
  if (same_layout(dtype_of(prec), t)) {
    out.write(t.raw(), static_cast<std::size_t>(elements) * esize);
    return;
  }
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(elements, kChunkElements)) * esize);
  for (std::int64_t first = 0; first < elements; first += kChunkElements) {
    const std::int64_t n = std::min(kChunkElements, elements - first);
    if (prec == Precision::kF32)
      encode_chunk_from<float>(t, first, n, buf.data());
    else
      encode_chunk_from<double>(t, first, n, buf.data());
    out.write(buf.data(), static_cast<std::size_t>(n) * esize);
  }
}

void require_nonempty(const HostTensor& t, const std::string& path) {
  if (t.empty()) throw Error(ErrorCode::kInput, path, "nothing to write (empty data)");
}

// ---- .npy header ---------------------------------------------------------------------------------------

constexpr std::string_view kNpyMagic = "\x93NUMPY";
constexpr std::uint32_t kMaxNpyHeader = 1 << 20;

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

// Parses the Python dict literal of a .npy header: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class NpyHeaderParser {
 public:
  explicit NpyHeaderParser(std::string_view s) : s_(s) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    skip_ws();
    expect('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() == '[') throw Error(ErrorCode::kInput, "unsupported dtype (structured array)");
        h.descr = parse_string();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = parse_bool();
        seen_order = true;
      } else if (key == "shape") {
        h.shape = parse_tuple();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the dictionary");
    if (!seen_descr) fail("missing key 'descr'");
    if (!seen_order) fail("missing key 'fortran_order'");
    if (!seen_shape) fail("missing key 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::kInput, "malformed .npy header: " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parse_string() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const auto end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string v(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return v;
  }
  bool parse_bool() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<std::int64_t> parse_tuple() {
    std::vector<std::int64_t> dims;
    expect('(');
    for (;;) {
      skip_ws();
      if (peek() == ')') break;
      if (peek() == '-') fail("negative dimension");
      if (peek() < '0' || peek() > '9') fail("expected a dimension");
      std::int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        constexpr std::int64_t kSaturated = std::int64_t{1} << 62;  // over kMaxDim, so rejected later
        v = v >= kSaturated / 10 ? kSaturated : v * 10 + (peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literal
      dims.push_back(v);
      if (dims.size() > 32) fail("too many dimensions");
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')' in shape");
    }
    ++pos_;
    return dims;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

Dtype npy_dtype(const std::string& descr) {
  if (descr.size() >= 2) {
    const char order = descr[0];
    const std::string_view body = std::string_view(descr).substr(1);
    for (const auto& d : kDtypes) {
      if (body != d.descr) continue;
      // One-byte types have no byte order: numpy reads '|u1', '<u1' and '>u1' alike.
      if (order == '<' || order == '>' || d.size == 1) return d.id;
    }
  }
  throw Error(ErrorCode::kInput, "unsupported dtype '" + descr + "' (expected " + dtype_list(true) + ")");
}

// The values of a .npy of dtype `descr` as stored (npy_dtype checks it).
Stored npy_stored(const std::string& descr) {
  const Dtype d = npy_dtype(descr);
  return Stored(d, descr[0] == '>' && info(d).size > 1);
}

// ---- text ----------------------------------------------------------------------------------------------

bool is_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\v' || c == '\f'; }

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (s.size() > 40) out += "...";
  return out;
}

std::string read_whole(InputFile& f) {
  std::string text(static_cast<std::size_t>(f.size()), '\0');
  f.read(text.data(), text.size());
  return text;
}

// ---- raw -----------------------------------------------------------------------------------------------

// The dtype a raw path implies: .f32 and .f64 name theirs; .raw implies none.
std::optional<Dtype> raw_extension_dtype(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".f32") return Dtype::kF32;
  if (ext == ".f64") return Dtype::kF64;
  return std::nullopt;
}

// --dtype wins where the extension says nothing; where both speak they must agree.
std::optional<Dtype> raw_dtype(const std::string& path, const std::string& option) {
  const auto from_ext = raw_extension_dtype(path);
  if (option.empty()) return from_ext;
  const Dtype d = parse_dtype(option);
  if (from_ext && *from_ext != d)
    throw Error(ErrorCode::kUsage, path,
                "--dtype " + std::string(info(d).name) + " conflicts with the extension " + lower_extension(path));
  return d;
}

const std::vector<std::string_view> kImageReadExtensions{".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm"};

}  // namespace

// ---- .npy ----------------------------------------------------------------------------------------------

namespace {

// Reads and parses the header of the open .npy file `f`; `data_offset` receives where the values start.
NpyHeader read_npy_header(InputFile& f, std::int64_t& data_offset) {
  unsigned char prefix[12];
  if (f.size() < 10) throw Error(ErrorCode::kInput, "not a .npy file (too short)");
  f.read(prefix, 8);
  if (std::memcmp(prefix, kNpyMagic.data(), kNpyMagic.size()) != 0)
    throw Error(ErrorCode::kInput, "not a .npy file (bad magic)");
  const int major = prefix[6], minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0)
    throw Error(ErrorCode::kInput, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
  const std::int64_t len_bytes = major == 1 ? 2 : 4;
  if (f.size() < 8 + len_bytes) throw Error(ErrorCode::kInput, "truncated: no header length");
  f.read(prefix + 8, static_cast<std::size_t>(len_bytes));
  const std::uint32_t header_len = major == 1 ? load_le<std::uint16_t>(prefix + 8) : load_le<std::uint32_t>(prefix + 8);
  if (header_len > kMaxNpyHeader)
    throw Error(ErrorCode::kInput, "header length " + std::to_string(header_len) + " is over the limit of " +
                                       std::to_string(kMaxNpyHeader));
  data_offset = 8 + len_bytes + header_len;
  if (f.size() < data_offset)
    throw Error(ErrorCode::kInput, "truncated: header of " + std::to_string(header_len) + " bytes, file has " +
                                       std::to_string(f.size()) + " bytes");
  std::string header(header_len, '\0');
  f.read(header.data(), header.size());
  if (header.find('\0') != std::string::npos) throw Error(ErrorCode::kInput, "malformed .npy header: NUL byte");

  return NpyHeaderParser(header).parse();
}

// read_npy_header, then what reading the values needs: 1 to 3 dimensions, a known dtype, and exactly their bytes after
// the header.
NpyHeader read_checked_npy_header(InputFile& f, std::int64_t& data_offset, std::int64_t max_elements = kMaxElements) {
  NpyHeader h = read_npy_header(f, data_offset);
  const Dtype dtype = npy_dtype(h.descr);
  if (h.shape.empty() || h.shape.size() > 3)
    throw Error(ErrorCode::kInput, "unsupported shape " + shape_text(h.shape) + " (expected 1-D, 2-D or 3-D (H,W,C))");
  const std::int64_t expected = checked_elements(h.shape, max_elements) * static_cast<std::int64_t>(info(dtype).size);
  const std::int64_t found = f.size() - data_offset;
  if (found < expected)
    throw Error(ErrorCode::kInput,
                "truncated: expected " + std::to_string(expected) + " bytes of data, found " + std::to_string(found));
  if (found > expected)
    throw Error(ErrorCode::kInput, "expected " + std::to_string(expected) + " bytes of data, found " +
                                       std::to_string(found) + " (trailing bytes)");
  return h;
}

// Streamed and distributed reads take values in file order: a Fortran-ordered array is read whole (read_npy).
void require_c_order(const NpyLayout& l) {
  if (l.fortran) throw Error(ErrorCode::kInput, "fortran_order True is read only whole (internal: streamed read)");
}

// "NaN at index (2, 0, 5)": where value `index` (C order) of an array of `shape` is.
std::string nonfinite_text(double v, std::int64_t index, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> at(shape.size());
  for (std::size_t a = shape.size(); a-- > 0;) {
    at[a] = index % shape[a];
    index /= shape[a];
  }
  return std::string(std::isnan(v) ? "NaN" : "Inf") + " at index " + shape_text(at) +
         " (non-finite values are not allowed)";
}

}  // namespace

NpyLayout read_npy_layout(const std::string& path, std::int64_t max_elements) {
  try {
    InputFile f(path);
    NpyLayout l;
    const NpyHeader h = read_checked_npy_header(f, l.data_offset, max_elements);
    l.shape = h.shape;
    l.descr = h.descr;
    l.float64 = npy_dtype(h.descr) == Dtype::kF64;
    l.fortran = h.fortran_order && h.shape.size() > 1;
    return l;
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

void read_npy_values(const std::string& path, const NpyLayout& layout, std::int64_t first, std::int64_t count,
                     void* dst, Precision prec, bool allow_nonfinite, int threads) {
  try {
    require_c_order(layout);
    const Stored stored = npy_stored(layout.descr);
    InputFile f(path);
    const auto esize = static_cast<std::int64_t>(info(stored.type).size),
               osize = static_cast<std::int64_t>(element_size(prec));
    const auto parts = static_cast<std::size_t>(
        std::clamp<std::int64_t>(count * esize / static_cast<std::int64_t>(kMinReadPart), 1, std::max(1, threads)));
    std::vector<char> finite(parts, 1);
    run_parts(parts, [&](std::size_t k) {  // each part read at its offset, then its values checked
      const std::int64_t b = count * static_cast<std::int64_t>(k) / static_cast<std::int64_t>(parts);
      const std::int64_t e = count * static_cast<std::int64_t>(k + 1) / static_cast<std::int64_t>(parts);
      void* at = static_cast<char*>(dst) + b * osize;
      f.read_values_at(stored, layout.data_offset + (first + b) * esize, e - b, at, prec);
      finite[k] = allow_nonfinite || all_finite(at, e - b, prec) ? 1 : 0;
    });
    if (std::find(finite.begin(), finite.end(), 0) == finite.end()) return;
    for (std::int64_t i = 0; i < count; ++i) {
      const double v = prec == Precision::kF32 ? static_cast<const float*>(dst)[i] : static_cast<const double*>(dst)[i];
      if (!std::isfinite(v)) throw Error(ErrorCode::kInput, nonfinite_text(v, first + i, layout.shape));
    }
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

struct NpySource::File {
  File(const std::string& p, const NpyLayout& l, Precision pr, bool allow)
      : path(p),
        file(p),
        stored(npy_stored(l.descr)),
        data_offset(l.data_offset),
        cols(l.shape.back()),
        prec(pr),
        allow_nonfinite(allow) {
    require_c_order(l);
  }
  std::string path;
  InputFile file;
  Stored stored;
  std::int64_t data_offset, cols;
  Precision prec;
  bool allow_nonfinite;
  mutable std::atomic<bool> nonfinite{false};
};

NpySource::NpySource(const std::string& path, const NpyLayout& layout, Precision prec, bool allow_nonfinite) try
    : f_(std::make_unique<File>(path, layout, prec, allow_nonfinite)) {
} catch (const Error& e) {
  rethrow_with_subject(e, path);
}

NpySource::~NpySource() = default;

void NpySource::read(std::size_t at, void* dst, std::size_t bytes) const {
  const File& f = *f_;
  const std::size_t osize = element_size(f.prec), esize = info(f.stored.type).size;
  try {
    for (std::size_t done = 0; done < bytes; done += kReadChunk) {  // each chunk checked while in cache
      const std::size_t n = std::min(kReadChunk, bytes - done);
      const auto first = static_cast<std::int64_t>((at + done) / osize), count = static_cast<std::int64_t>(n / osize);
      void* p = static_cast<char*>(dst) + done;
      f.file.read_values_at(f.stored, f.data_offset + first * static_cast<std::int64_t>(esize), count, p, f.prec);
      if (f.allow_nonfinite || all_finite(p, count, f.prec)) continue;
      for (std::int64_t i = 0; i < count; ++i) {
        const double v = f.prec == Precision::kF32 ? static_cast<const float*>(p)[i] : static_cast<const double*>(p)[i];
        if (std::isfinite(v)) continue;
        const std::int64_t index = first + i;
        f.nonfinite = true;
        throw Error(ErrorCode::kInput, nonfinite_at(v, index / f.cols + 1, index % f.cols + 1));
      }
    }
  } catch (const Error& e) {
    rethrow_with_subject(e, f.path);
  }
}

bool NpySource::saw_nonfinite() const { return f_->nonfinite.load(); }

void NpySource::throw_first_nonfinite() const {
  const std::size_t esize = element_size(f_->prec);
  const std::size_t total = static_cast<std::size_t>(f_->file.size() - f_->data_offset) / info(f_->stored.type).size *
                            esize;  // the values' bytes as `prec`
  std::vector<unsigned char> buf(kReadChunk);
  for (std::size_t at = 0; at < total; at += kReadChunk) read(at, buf.data(), std::min(kReadChunk, total - at));
  throw Error(ErrorCode::kRuntime, f_->path, "internal: a non-finite value was reported but not found again");
}

NpySink::NpySink(const std::string& path, const std::vector<std::int64_t>& shape, Precision prec,
                 std::int64_t max_elements) try
    : file_(path) {
  const std::string header = npy_header(shape, prec);
  file_.write(header.data(), header.size());
  data_offset_ = static_cast<std::int64_t>(header.size());
  const std::int64_t size =
      data_offset_ + checked_elements(shape, max_elements) * static_cast<std::int64_t>(element_size(prec));
  file_.resize(size);
  file_bytes_ = static_cast<std::size_t>(size);
  ready_ = std::async(std::launch::async, [this] { prepare(); }).share();
} catch (const Error& e) {
  rethrow_with_subject(e, path);
}

void NpySink::prepare() {
  const int fd = fileno(file_.file());
  // File systems without fallocate keep the pwrite route.
  if (::fallocate(fd, 0, 0, static_cast<off_t>(file_bytes_)) != 0) {
    if (errno == ENOSPC || errno == EDQUOT)
      throw Error(ErrorCode::kRuntime,
                  std::string("cannot write ") + std::to_string(file_bytes_) + " bytes: " + std::strerror(errno));
    return;
  }
  void* m = ::mmap(nullptr, file_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m != MAP_FAILED) map_ = static_cast<unsigned char*>(m);
}

NpySink::~NpySink() {
  if (ready_.valid()) ready_.wait();
  if (map_ != nullptr) ::munmap(map_, file_bytes_);
}

void NpySink::write(std::size_t at, const void* src, std::size_t bytes) const {
  try {
    ready_.get();
  } catch (const Error& e) {
    rethrow_with_subject(e, file_.path());
  }
  const auto offset = data_offset_ + static_cast<std::int64_t>(at);
  if (static_cast<std::size_t>(offset) + bytes > file_bytes_)
    throw Error(ErrorCode::kRuntime, "internal: a write past the end of the output");
  if (map_ != nullptr)
    std::memcpy(map_ + offset, src, bytes);
  else
    file_.write_at(offset, src, bytes);
}

void NpySink::commit() {
  ready_.get();
  if (map_ != nullptr) ::munmap(map_, file_bytes_);  // the mapped pages are the page cache's: no sync, as write(2)
  map_ = nullptr;
  file_.commit();
}

std::string npy_header(const std::vector<std::int64_t>& shape, Precision prec) {
  std::string dict = "{'descr': '<" + std::string(info(dtype_of(prec)).descr) +
                     "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // numpy pads the header with spaces so that the data starts at a multiple of 64 bytes.
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string prefix(kNpyMagic);
  prefix += '\x01';
  prefix += '\x00';
  prefix += static_cast<char>(dict.size() & 0xff);
  prefix += static_cast<char>(dict.size() >> 8);
  return prefix + dict;
}

NpyInfo read_npy_info(const std::string& path) {
  try {
    InputFile f(path);
    std::int64_t data_offset = 0;
    const NpyHeader h = read_npy_header(f, data_offset);
    return NpyInfo{h.shape, npy_dtype(h.descr) == Dtype::kF64};
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

Dataset read_npy(const std::string& path, const ReadOptions& opt) {
  try {
    InputFile f(path);
    std::int64_t data_offset = 0;
    const NpyHeader h = read_checked_npy_header(f, data_offset);
    const Stored stored = npy_stored(h.descr);
    const std::int64_t elements = checked_elements(h.shape);
    Shape2 shape{1, h.shape[0]};
    std::int64_t channels = 1;
    if (h.shape.size() >= 2) shape = Shape2{h.shape[0], h.shape[1]};
    if (h.shape.size() == 3 && opt.volume) shape = Shape2{h.shape[0] * h.shape[1], h.shape[2]};
    if (h.shape.size() == 3 && !opt.volume) channels = h.shape[2];
    // read_values writes every element.
    Dataset ds{take_tensor(opt.pool, shape, channels, opt.prec), SourceKind::kMatrix};
    if (!h.fortran_order || h.shape.size() == 1) {
      f.read_values(stored, elements, ds.tensor, !opt.allow_nonfinite, opt.threads);
      return ds;
    }
    // Fortran order (numpy's np.save of a transposed array): the file holds the values column-major. Read them in file
    // order, then gather each C-order element (i0, i1[, i2]) from file position i0 + s0·(i1 + s1·i2).
    HostTensor file_order(Shape2{1, elements}, 1, opt.prec);
    f.read_values(stored, elements, file_order, !opt.allow_nonfinite, opt.threads);
    const std::int64_t s0 = h.shape[0], s1 = h.shape[1], s2 = h.shape.size() == 3 ? h.shape[2] : 1;
    const std::int64_t plane = s0 * s1;
    const auto gather = [&](auto* dst, const auto* src) {
      for (std::int64_t i0 = 0; i0 < s0; ++i0)
        for (std::int64_t i1 = 0; i1 < s1; ++i1)
          for (std::int64_t i2 = 0; i2 < s2; ++i2) {
            const std::int64_t c = (i0 * s1 + i1) * s2 + i2;  // C-order position, or (channels) pixel and channel
            dst[channels > 1 ? i2 * plane + i0 * s1 + i1 : c] = src[i0 + s0 * (i1 + s1 * i2)];
          }
    };
    if (opt.prec == Precision::kF32)
      gather(ds.tensor.data<float>(), file_order.data<float>());
    else
      gather(ds.tensor.data<double>(), file_order.data<double>());
    return ds;
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

void write_npy(const std::string& path, const HostTensor& t, const WriteOptions& opt) {
  try {
    require_nonempty(t, path);
    std::vector<std::int64_t> shape{t.rows(), t.cols()};
    if (t.channels() > 1) shape.push_back(t.channels());
    if (!opt.npy_shape.empty()) {
      const auto& s = opt.npy_shape;
      const bool fits = (s.size() == 1 && t.rows() == 1 && t.channels() == 1 && s[0] == t.cols()) ||
                        (s.size() == 2 && t.channels() == 1 && s[0] == t.rows() && s[1] == t.cols()) ||
                        (s.size() == 3 && s[0] == t.rows() && s[1] == t.cols() && s[2] == t.channels()) ||
                        (s.size() == 3 && t.channels() == 1 && s[0] * s[1] == t.rows() && s[2] == t.cols());
      if (!fits) throw Error(ErrorCode::kRuntime, "internal: .npy shape " + shape_text(s) + " does not fit the data");
      shape = s;
    }
    const std::string header = npy_header(shape, opt.prec);
    AtomicFile out(path);
    out.write(header.data(), header.size());
    write_values(out, t, opt.prec);
    out.commit();
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

// ---- text ----------------------------------------------------------------------------------------------

Dataset read_text(const std::string& path, const ReadOptions& opt) {
  try {
    InputFile f(path);
    const std::string text = read_whole(f);
    std::vector<double> values;
    const bool csv = lower_extension(path) == ".csv";
    std::int64_t cols = 0, rows = 0, line_no = 0;
    std::string token;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t eol = text.find('\n', pos);
      if (eol == std::string::npos) eol = text.size();
      std::string_view line(text.data() + pos, eol - pos);
      pos = eol + 1;
      ++line_no;
      if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      std::int64_t count = 0;
      std::size_t i = 0;
      // In a .csv commas separate fields: two with only blanks between them, or one before the first value or after
      // the last, leave a field empty, which is an error rather than a value that silently moves the others (as
      // numpy.loadtxt). A .txt takes blanks and commas in any mix.
      const auto empty_field = [&]() {
        return Error(ErrorCode::kInput, "line " + std::to_string(line_no) +
                                            ": an empty field (two separators in a row, "
                                            "or one at the start or end of the line)");
      };
      while (i < line.size()) {
        int commas = 0;
        while (i < line.size() && is_separator(line[i])) commas += line[i++] == ',';
        if (i == line.size()) {
          if (csv && commas > 0) throw empty_field();
          break;
        }
        if (csv && (commas > 1 || (commas == 1 && count == 0))) throw empty_field();
        std::size_t j = i;
        while (j < line.size() && !is_separator(line[j])) ++j;
        token.assign(line.substr(i, j - i));
        char* end = nullptr;
        const double v = std::strtod(token.c_str(), &end);
        if (end != token.c_str() + token.size())
          throw Error(ErrorCode::kInput,
                      "line " + std::to_string(line_no) + ": not a number: '" + printable(token) + "'");
        values.push_back(v);
        ++count;
        i = j;
      }
      if (count == 0) continue;  // blank or comment line
      if (rows == 0) cols = count;
      if (count != cols)
        throw Error(ErrorCode::kInput, "line " + std::to_string(line_no) + ": expected " + std::to_string(cols) +
                                           " values, found " + std::to_string(count));
      ++rows;
      if (static_cast<std::int64_t>(values.size()) > kMaxElements)
        throw Error(ErrorCode::kInput, "more than the limit of " + std::to_string(kMaxElements) + " values");
    }
    if (rows == 0) throw Error(ErrorCode::kInput, "no values (only blank or comment lines)");
    Dataset ds{HostTensor(Shape2{rows, cols}, 1, opt.prec), SourceKind::kMatrix};
    for (std::size_t k = 0; k < values.size(); ++k) ds.tensor.set(static_cast<std::int64_t>(k), values[k]);
    if (!opt.allow_nonfinite) require_finite(ds.tensor, path);
    return ds;
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

void write_text(const std::string& path, const HostTensor& t, const WriteOptions& opt) {
  try {
    require_nonempty(t, path);
    if (t.channels() != 1)
      throw Error(ErrorCode::kUsage, "text output holds one channel, the data has " + std::to_string(t.channels()) +
                                         " (write .npy instead)");
    if (opt.npy_shape.size() > 2)
      throw Error(ErrorCode::kUsage, "text output holds a matrix, the data has " +
                                         std::to_string(opt.npy_shape.size()) + " dimensions " +
                                         shape_text(opt.npy_shape) + " (write .npy instead)");
    const char sep = lower_extension(path) == ".csv" ? ',' : ' ';
    const bool f32 = opt.prec == Precision::kF32;
    AtomicFile out(path);
    std::string buf;
    char num[40];
    for (std::int64_t r = 0; r < t.rows(); ++r) {
      for (std::int64_t c = 0; c < t.cols(); ++c) {
        const double v = t.get(r * t.cols() + c);
        const int n = f32 ? std::snprintf(num, sizeof num, "%.9g", static_cast<double>(static_cast<float>(v)))
                          : std::snprintf(num, sizeof num, "%.17g", v);
        if (c) buf += sep;
        buf.append(num, static_cast<std::size_t>(n));
      }
      buf += '\n';
      if (buf.size() >= (1 << 20)) {
        out.write(buf.data(), buf.size());
        buf.clear();
      }
    }
    out.write(buf.data(), buf.size());
    out.commit();
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

// ---- raw -----------------------------------------------------------------------------------------------

// A .raw file without --dtype is read as float32: the tool's default precision, and what it writes by default.
Dataset read_raw(const std::string& path, const ReadOptions& opt) {
  try {
    if (!opt.shape) throw Error(ErrorCode::kUsage, "raw input needs --shape HxW");
    const Dtype dtype = raw_dtype(path, opt.dtype).value_or(Dtype::kF32);
    const Shape2 shape = *opt.shape;
    const std::int64_t elements = checked_elements({shape.rows, shape.cols});
    InputFile f(path);
    const std::int64_t expected = elements * static_cast<std::int64_t>(info(dtype).size);
    if (f.size() != expected)
      throw Error(ErrorCode::kInput, "size " + std::to_string(f.size()) + " bytes does not match --shape " +
                                         to_string(shape) + " of " + std::string(info(dtype).name) + " (" +
                                         std::to_string(expected) + " bytes)");
    Dataset ds{take_tensor(opt.pool, shape, 1, opt.prec), SourceKind::kMatrix};  // read_values writes them all
    f.read_values(dtype, elements, ds.tensor, !opt.allow_nonfinite, opt.threads);
    return ds;
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

// Output dtype: the extension's (.f32/.f64), else WriteOptions::dtype, else the precision.
void write_raw(const std::string& path, const HostTensor& t, const WriteOptions& opt) {
  try {
    require_nonempty(t, path);
    const Dtype dtype = raw_dtype(path, opt.dtype).value_or(dtype_of(opt.prec));
    if (dtype != Dtype::kF32 && dtype != Dtype::kF64)
      throw Error(ErrorCode::kUsage, "raw output is f32 or f64, not " + std::string(info(dtype).name));
    if (t.channels() != 1)
      throw Error(ErrorCode::kUsage, "raw output holds one channel, the data has " + std::to_string(t.channels()) +
                                         " (write .npy instead)");
    AtomicFile out(path);
    write_values(out, t, dtype == Dtype::kF32 ? Precision::kF32 : Precision::kF64);
    out.commit();
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

// ---- dispatch ------------------------------------------------------------------------------------------

bool is_raw_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  return ext == ".raw" || ext == ".f32" || ext == ".f64";
}

bool is_image_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  return std::find(kImageReadExtensions.begin(), kImageReadExtensions.end(), ext) != kImageReadExtensions.end();
}

Dataset read_any(const std::string& path, const ReadOptions& opt, const ImageCodec* codec) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return read_npy(path, opt);
  if (ext == ".txt" || ext == ".csv") return read_text(path, opt);
  if (is_raw_path(path)) return read_raw(path, opt);
  if (is_image_path(path)) {
    require_input_file(path);
    if (codec == nullptr || !codec->handles_read(path))
      throw Error(ErrorCode::kUnsupported, path, "image input is not available in this build");
    try {
      return codec->read(path, opt);
    } catch (const Error& e) {
      rethrow_with_subject(e, path);
    }
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    require_input_file(path);  // "is a directory" (exit 3), whatever its name
  throw Error(ErrorCode::kUsage, path,
              (ext.empty() ? std::string("unknown file type (no extension; ") : "unknown file type '" + ext + "' (") +
                  "expected .npy .txt .csv .raw .f32 .f64 or an image)");
}

void write_any(const std::string& path, const HostTensor& t, const WriteOptions& opt, const ImageCodec* codec) {
  write_any(path, t, opt, codec, nullptr);
}

void write_any(const std::string& path, const HostTensor& t, const WriteOptions& opt, const ImageCodec* codec,
               std::int64_t* clamped) {
  if (clamped != nullptr) *clamped = 0;
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return write_npy(path, t, opt);
  if (ext == ".txt" || ext == ".csv") return write_text(path, t, opt);
  if (is_raw_path(path)) return write_raw(path, t, opt);
  if (is_image_path(path)) {
    if (codec == nullptr) throw Error(ErrorCode::kUnsupported, path, "image output is not available in this build");
    if (!codec->handles_write(path))
      throw Error(ErrorCode::kUsage, path, "cannot write images of type '" + ext + "' (expected .png .bmp .tga .jpg)");
    require_nonempty(t, path);
    try {
      return codec->write(path, t, opt.image_bit_depth, clamped);
    } catch (const Error& e) {
      rethrow_with_subject(e, path);
    }
  }
  throw Error(ErrorCode::kUsage, path,
              (ext.empty() ? std::string("unknown file type (no extension; ") : "unknown file type '" + ext + "' (") +
                  "expected .npy .txt .csv .raw .f32 .f64 .png .bmp .tga .jpg)");
}

}  // namespace dct::core
