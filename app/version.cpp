#include "app/version.hpp"

#include <png.h>
#include <CLI/Version.hpp>

#include <cstdio>

#include <jpeglib.h>  // after <cstdio>: it uses FILE

#include "cpu/backends.hpp"
#include "kernels/backends.hpp"

#ifndef DCTOOL_VERSION
#define DCTOOL_VERSION "unknown"
#endif
#include "dctool_revision.hpp"  // DCTOOL_GIT_REVISION: generated at build time (cmake/revision.cmake)

namespace dct::app {

std::string version() { return DCTOOL_VERSION; }

std::string revision() { return DCTOOL_GIT_REVISION; }

std::string version_report() {
  std::string s = "dctool " + version() + " (" + revision() + ")\n";
#ifdef DCTOOL_HAVE_CUDA
  s += "CUDA: compiled in, " + cuda::version_info() + "\n";
#else
  s += "CUDA: not compiled in\n";
#endif
  s += "FFTW: " + cpu::fftw_version() + "\n";
  s += "CLI11: " CLI11_VERSION "\n";
  s += std::string("libpng: ") + png_get_libpng_ver(nullptr) + "\n";
#ifdef LIBJPEG_TURBO_VERSION
#define DCTOOL_STR2(x) #x
#define DCTOOL_STR(x) DCTOOL_STR2(x)
  s += "libjpeg-turbo: " DCTOOL_STR(LIBJPEG_TURBO_VERSION) "\n";
#endif
  s.pop_back();  // CLI11 ends the version text with a newline
  return s;
}

}  // namespace dct::app
