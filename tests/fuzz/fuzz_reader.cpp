// libFuzzer harness for one of dctool's readers (tests/fuzz/CMakeLists.txt builds one binary per format).
// The input bytes are written to a file with the format's extension and read through core::read_any with the
// application's image codec, as `dctool` reads its inputs. dct::Error is the expected outcome of a bad file;
// anything else (a crash, a sanitizer report, another exception, a leak, an allocation over -malloc_limit_mb) is
// a finding. A file that reads must give a non-empty tensor of the size it claims; every value is touched.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "app/registry.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"
#include "core/tensor.hpp"

#ifndef DCT_FUZZ_EXT
#error "DCT_FUZZ_EXT (the file extension, with its dot) must be defined"
#endif

namespace {

// One scratch directory per process (in /dev/shm when it exists), removed at exit.
const std::string& scratch_file() {
  static const std::string path = [] {
    std::string tmpl = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/dctool-fuzz.XXXXXX");
    if (!mkdtemp(tmpl.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    static std::string dir = tmpl;
    std::atexit([] { rmdir(dir.c_str()); });
    return dir + "/input" DCT_FUZZ_EXT;
  }();
  return path;
}

void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
}

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "dctool fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  dct::core::ReadOptions opt;
  opt.prec = dct::core::Precision::kF32;
#ifdef DCT_FUZZ_RAW
  // Raw files need a shape and a dtype: the first two bytes choose them, the rest is the file.
  if (size < 2) return 0;
  static const char* const kDtypes[] = {"f32", "f64", "u8", "u16", "i16", "i32"};
  opt.dtype = kDtypes[data[0] % 6];
  const std::int64_t rows = 1 + (data[1] & 0x0f), cols = 1 + (data[1] >> 4);
  opt.shape = dct::core::Shape2{rows, cols};
  opt.prec = (data[0] & 0x80) ? dct::core::Precision::kF64 : dct::core::Precision::kF32;
  data += 2;
  size -= 2;
#endif
  const std::string& path = scratch_file();
  write_file(path, data, size);
  try {
    const dct::core::Dataset d = dct::core::read_any(path, opt, &dct::app::image_codec());
    const dct::core::HostTensor& t = d.tensor;
    if (t.rows() <= 0 || t.cols() <= 0 || t.channels() <= 0) finding("a reader returned an empty tensor");
    if (t.bytes() < static_cast<std::size_t>(t.elements()) * dct::core::element_size(t.precision()))
      finding("a reader returned a tensor smaller than its shape");
    // Touch every value (an out-of-bounds or uninitialised buffer shows up under the sanitizers).
    volatile double sink = 0;
    if (t.precision() == dct::core::Precision::kF32) {
      const float* v = t.data<float>();
      for (std::int64_t i = 0; i < t.elements(); ++i) sink = sink + v[i];
    } else {
      const double* v = t.data<double>();
      for (std::int64_t i = 0; i < t.elements(); ++i) sink = sink + v[i];
    }
  } catch (const dct::Error& e) {
    // Expected for a bad file; its message must name the file or carry a subject.
    (void)e.message();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dctool fuzz: unexpected exception: %s\n", e.what());
    std::abort();
  } catch (...) {
    finding("unexpected non-std exception");
  }
  unlink(path.c_str());
  return 0;
}
