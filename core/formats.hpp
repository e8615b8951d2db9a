#pragma once
// File formats (README "Formats"): .npy, text (.txt/.csv), raw (.raw/.f32/.f64 with --shape), and images through
// an ImageCodec adapter (implemented with stb in app/, since core includes no third-party headers).
// Every reader validates before allocating and throws dct::Error(kInput) naming the file.
// Every writer goes through AtomicFile: a temporary in the destination directory renamed on success.
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/tensor.hpp"

namespace dct::core {

// Images with more pixels (width x height) than this are refused before anything is allocated (--max-pixels).
inline constexpr std::int64_t kDefaultMaxPixels = std::int64_t{1} << 28;

// Where a tensor came from; decides the PSNR peak and how it may be written back.
enum class SourceKind { kMatrix, kImage8, kImage16 };

// An 8-bit image's samples as decoded: rows x cols pixels of `channels` interleaved bytes.
struct Samples8 {
  AlignedBuffer bytes;  // rows * cols * channels
  const unsigned char* data() const { return static_cast<const unsigned char*>(bytes.data()); }
  unsigned char* data() { return static_cast<unsigned char*>(bytes.data()); }
  std::int64_t rows = 0, cols = 0;
  int channels = 0;
};

// An 8-bit JPEG file's quantized coefficients as stored, not decoded (ReadOptions::jpeg_coefficients): a GPU decodes
// them to the samples libjpeg-turbo gives (math/jpeg_decode.hpp; cuda-jpeg-fused), so the host does only the
// entropy decoding. Baseline or extended sequential files of 1 (gray) or 3 (YCbCr) components whose luma is sampled
// 1x1, 2x1 or 2x2 and chroma 1x1 (4:4:4, 4:2:2, 4:2:0).
struct JpegCoefficients8 {
  std::int64_t rows = 0, cols = 0;
  int components = 0;              // 1 or 3 (decoded to R, G, B)
  int h_factor = 1, v_factor = 1;  // the luma's sampling factors
  struct Plane {
    std::int64_t blocks_wide = 0, blocks_high = 0;  // the component's blocks that hold its samples
    std::array<std::uint16_t, 64> q{};              // its quantization table, natural order
    std::int64_t offset = 0;                        // where its blocks start in coef(), in values
  };
  std::vector<Plane> planes;
  // Every plane's blocks one plane after another, each block's 64 quantized values in natural order, blocks in
  // raster order: `values` int16 values.
  AlignedBuffer coef_bytes;
  std::int64_t values = 0;
  const std::int16_t* coef() const { return static_cast<const std::int16_t*>(coef_bytes.data()); }
  std::int16_t* coef() { return static_cast<std::int16_t*>(coef_bytes.data()); }
  // The same file decoded by libjpeg-turbo on the host: for whoever needs the samples there (a CPU compressor, the
  // blocks whose decoding the device cannot vouch for).
  std::function<std::shared_ptr<const Samples8>()> decode;
};

struct Dataset {
  Dataset() = default;
  Dataset(HostTensor t, SourceKind k, std::shared_ptr<const Samples8> s = {})
      : tensor(std::move(t)), kind(k), samples8(std::move(s)) {}
  HostTensor tensor;  // planes = channels (gray 1, gray+alpha 2, RGB 3, RGBA 4; npy (H,W,C) gives C)
  SourceKind kind = SourceKind::kMatrix;
  // Read with ReadOptions::samples8, an 8-bit gray or RGB image comes back as its interleaved samples, `tensor`
  // left empty: the CPU compressor's jpeg block loop reads them as they are, and whoever needs the planes makes
  // them (app::ensure_planes) once.
  std::shared_ptr<const Samples8> samples8;
  // Read with ReadOptions::jpeg_coefficients, a JPEG file the GPU can decode comes back as its coefficients alone
  // (no samples8, no planes; app::ensure_samples8 decodes it on the host where needed).
  std::shared_ptr<const JpegCoefficients8> jpeg;
  bool has_planes() const { return !tensor.empty(); }
  std::int64_t rows() const {
    return has_planes() ? tensor.rows() : samples8 ? samples8->rows : jpeg ? jpeg->rows : tensor.rows();
  }
  std::int64_t cols() const {
    return has_planes() ? tensor.cols() : samples8 ? samples8->cols : jpeg ? jpeg->cols : tensor.cols();
  }
  std::int64_t channels() const {
    return has_planes() ? tensor.channels()
           : samples8   ? samples8->channels
           : jpeg       ? jpeg->components
                        : tensor.channels();
  }
};

// What a .npy header says: the array's shape as stored (1 to 3 extents; read_npy gives a 1-D (N,) array as the
// tensor 1xN and a 3-D (A, B, C) one as the C planes of AxB) and whether its values are float64.
struct NpyInfo {
  std::vector<std::int64_t> shape;
  bool float64 = false;
};

// A .npy read by parts (a distributed transform: each process its own rows): the header checked as read_npy checks
// it (C order, 1 to 3 dimensions, exactly the values' bytes after it), and where the values start.
struct NpyLayout {
  std::vector<std::int64_t> shape;
  bool float64 = false;
  std::string descr;  // numpy's dtype ("<f4")
  std::int64_t data_offset = 0;
  bool fortran = false;  // column-major values (2-D or 3-D): read_npy reads them, NpySource and read_npy_values do not
};

class TensorPool;

struct ReadOptions {
  Precision prec = Precision::kF32;  // precision of the returned tensor
  std::optional<Shape2> shape;       // required for raw files (--shape HxW)
  std::string dtype;                 // raw: "f32" | "f64" | "u8" | "u16" | "i16" | "i32"; "" = from extension
  bool allow_nonfinite = false;      // NaN/Inf are an input error unless allowed
  std::int64_t max_pixels = kDefaultMaxPixels;  // images: width x height above this is an input error
  // Where the file's tensor, its 8-bit samples or a JPEG's coefficients come from (core/tensor_pool.hpp), also for a
  // JpegCoefficients8's host decode later (the pool outlives the Dataset); null: the heap.
  TensorPool* pool = nullptr;
  int threads = 1;             // a large matrix file's values are read by up to this many threads at once
  // A 3-D .npy (A, B, C) as one plane of (A*B) x C in the file's C order (the arrays of dct/dst/r2r), not the C
  // channels of A x B (the (H, W, C) image convention of the other commands).
  bool volume = false;
  // 8-bit gray and RGB images come back as Dataset::samples8, without planes (the compressor's fast path).
  bool samples8 = false;
  // With samples8: a JPEG file that JpegCoefficients8 describes comes back as Dataset::jpeg alone (cuda-jpeg-fused).
  bool jpeg_coefficients = false;
};

struct WriteOptions {
  Precision prec = Precision::kF32;  // .npy / .txt / raw value type
  std::string dtype;                 // raw: overrides the extension ("f32" | "f64")
  int image_bit_depth = 8;           // images: 8 (or 16 for 16-bit PNG)
  // .npy: the shape to write, of the tensor's layout: (N,) for a 1xN single-channel tensor, (H, W) or (H, W, C)
  // otherwise (C the channels), or (A, B, C) for a single-channel (A*B) x C tensor (ReadOptions::volume); empty:
  // (H, W) or (H, W, C) from the tensor.
  std::vector<std::int64_t> npy_shape;
};

// Limits that guard allocations made from header fields.
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 32;  // 4 Gi values
// A distributed transform's input (read_npy_layout): each process allocates only its slab, and the header must match
// the file's size, so the whole may be as large as the file system holds.
inline constexpr std::int64_t kMaxDistributedElements = std::int64_t{1} << 40;
inline constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;

// The image adapter: decode to planar float planes of the raw 8/16-bit values, encode with rounding
// and clamping. `clamped` (if not null) receives how many values were clamped. read(path, opt) honours
// opt.max_pixels; read(path, prec) uses the default limit.
class ImageCodec {
 public:
  virtual ~ImageCodec() = default;
  virtual bool handles_read(const std::string& path) const = 0;   // by extension
  virtual bool handles_write(const std::string& path) const = 0;  // by extension
  virtual Dataset read(const std::string& path, Precision prec) const = 0;
  virtual Dataset read(const std::string& path, const ReadOptions& opt) const { return read(path, opt.prec); }
  virtual void write(const std::string& path, const HostTensor& t, int bit_depth, std::int64_t* clamped) const = 0;
};

// Writes a file atomically: data goes to a temporary file next to `path`; commit() renames it over `path` (not synced
// to the disk: the page cache's durability, as other image tools).
// Destroying an uncommitted AtomicFile removes the temporary. Throws kInput when the directory is missing
// or not writable.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }
  std::FILE* file() { return fp_; }  // opened "wb"
  void write(const void* data, std::size_t bytes);
  // Flushes what was written and sets the file's size to `bytes`: the rest is for PartWriters or write_at to fill.
  void resize(std::int64_t bytes);
  // After resize: `bytes` at `offset`, from any thread (pwrite).
  void write_at(std::int64_t offset, const void* data, std::size_t bytes) const;
  void commit();

 private:
  std::string path_, temp_;
  std::FILE* fp_ = nullptr;
  bool committed_ = false;
};

// Writes parts of a file that another process created and sized (AtomicFile::resize), at their offsets: a distributed
// transform's output, each process its own values. Errors are kRuntime naming `subject` (the output).
class PartWriter {
 public:
  PartWriter(const std::string& path, std::string subject);
  ~PartWriter();
  PartWriter(const PartWriter&) = delete;
  PartWriter& operator=(const PartWriter&) = delete;
  void write_at(std::int64_t offset, const void* data, std::size_t bytes);
  void close();  // on the disk (fsync), then closed

 private:
  std::string subject_;
  int fd_ = -1;
};

// An AtomicFile's temporary for `path` is ".NAME.tmp.XXXXXX" beside it (NAME: path's file name; XXXXXX: mkstemp's
// six characters). Removes every such file of these outputs, left by a process that died before committing or
// removing its own (another process of a distributed batch), and returns how many. It takes no lock of the
// temporaries' registry (the interrupt cleanup calls it while holding that); files of other names are never touched.
std::size_t remove_temporaries_of(const std::vector<std::string>& outputs);

// Per format.
Dataset read_npy(const std::string& path, const ReadOptions& opt);
void write_npy(const std::string& path, const HostTensor& t, const WriteOptions& opt);
NpyInfo read_npy_info(const std::string& path);  // the header only, validated as read_npy does
NpyLayout read_npy_layout(const std::string& path, std::int64_t max_elements = kMaxElements);
// Values first .. first+count-1 (C order) of the .npy `path` into `dst` as `prec`; a NaN or Inf among them is an
// input error naming its index unless `allow_nonfinite`. `threads` > 1: in that many parts at once (parts of at least
// 16 MiB).
void read_npy_values(const std::string& path, const NpyLayout& layout, std::int64_t first, std::int64_t count,
                     void* dst, Precision prec, bool allow_nonfinite, int threads = 1);
// A .npy's values as the bytes of a one-channel tensor of `prec` (a matrix in C order), for a streamed execution: read
// by parts from several threads at once, each part's values checked while in cache (a NaN or Inf is an input error
// naming its row and column, as require_finite's, unless `allow_nonfinite`). Errors name `path`.
class NpySource final : public ByteSource {
 public:
  NpySource(const std::string& path, const NpyLayout& layout, Precision prec, bool allow_nonfinite);
  ~NpySource() override;
  void read(std::size_t at, void* dst, std::size_t bytes) const override;
  // After a read threw for a NaN or Inf: the parts run at once, so it may not be the file's first. This reads the file
  // from the start and throws the error of the first one (as a whole-array read names it).
  [[noreturn]] void throw_first_nonfinite() const;
  bool saw_nonfinite() const;

 private:
  struct File;
  std::unique_ptr<File> f_;
};

// An output .npy of `shape` in `prec` written by parts: its temporary holds the header and is sized at once, the values
// come at their offsets from several threads; commit() renames it into place (AtomicFile). Where the file system
// allows, the temporary's blocks are allocated (fallocate: a full disk is an error, not a fault mid-write) and the file
// is mapped into memory on another thread while the input is read and transformed (the first write waits for it), and
// the parts are copied into the mapping: its page faults run in parallel, where pwrite(2) takes the file's lock for
// each write (docs/decisions.md §11). Errors name `path`.
class NpySink final : public ByteSink {
 public:
  NpySink(const std::string& path, const std::vector<std::int64_t>& shape, Precision prec,
          std::int64_t max_elements = kMaxElements);
  ~NpySink() override;
  NpySink(const NpySink&) = delete;
  NpySink& operator=(const NpySink&) = delete;
  void write(std::size_t at, const void* src, std::size_t bytes) const override;
  void commit();

 private:
  void prepare();  // fallocate and mmap, on the other thread
  AtomicFile file_;
  std::int64_t data_offset_ = 0;
  std::size_t file_bytes_ = 0;
  unsigned char* map_ = nullptr;  // the whole temporary (set by prepare), or null: pwrite
  std::shared_future<void> ready_;
};

// The bytes before the values of a .npy of `shape` in `prec` (numpy's layout: the values start at a multiple of 64).
std::string npy_header(const std::vector<std::int64_t>& shape, Precision prec);
Dataset read_text(const std::string& path, const ReadOptions& opt);
void write_text(const std::string& path, const HostTensor& t, const WriteOptions& opt);  // single channel
Dataset read_raw(const std::string& path, const ReadOptions& opt);
void write_raw(const std::string& path, const HostTensor& t, const WriteOptions& opt);

// By extension (case-insensitive). Unknown extensions are a kUsage error naming the file.
Dataset read_any(const std::string& path, const ReadOptions& opt, const ImageCodec* codec);
void write_any(const std::string& path, const HostTensor& t, const WriteOptions& opt, const ImageCodec* codec);
// The same, reporting through `clamped` (if not null) how many values an image output clamped (0 otherwise).
void write_any(const std::string& path, const HostTensor& t, const WriteOptions& opt, const ImageCodec* codec,
               std::int64_t* clamped);
bool is_image_path(const std::string& path);  // .png .jpg .jpeg .bmp .tga .pgm .ppm
bool is_raw_path(const std::string& path);    // .raw .f32 .f64 (read with --shape, --dtype)

// Refuses (kInput) an output that names one of the inputs (same file, also through links), and (kInput)
// an output whose directory does not exist.
void check_output_path(const std::string& out, const std::vector<std::string>& inputs);

// The same for many outputs against one list of inputs: the inputs are resolved once (their files' device and inode,
// their paths with links and dots resolved), so that a batch's n outputs cost n look-ups, not n x n resolutions.
class InputPaths {
 public:
  explicit InputPaths(const std::vector<std::string>& inputs);
  void check_output(const std::string& out) const;  // as check_output_path(out, inputs)

 private:
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> files_;  // (device, inode) of an existing input
  std::map<std::string, std::string> resolved_;                            // weakly_canonical path -> input
};

// Throws kInput naming `path` if any value is NaN or Inf.
void require_finite(const HostTensor& t, const std::string& path);
// Its message for value v at (1-based) row and column, and channel when channels > 1: "NaN at row 3, column 7 (...)".
std::string nonfinite_at(double v, std::int64_t row, std::int64_t col, std::int64_t channel = 0);
// Whether all `count` values of `prec` at `data` are finite.
bool all_finite(const void* data, std::int64_t count, Precision prec);

// The extension of `path` in lowercase with its dot (".png"), or "" when it has none.
std::string lower_extension(const std::string& path);
// Throws kInput naming `path` unless it is an existing, non-empty regular file ("no such file", "empty file").
void require_input_file(const std::string& path);

}  // namespace dct::core
