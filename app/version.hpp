#pragma once
// What this dctool is: its version, the git revision it was built from, and the libraries it was built with.
#include <string>

namespace dct::app {

std::string version();   // "0.1.0"
std::string revision();  // `git describe --always --dirty` of the source tree at configure time, or "unknown"
// The text of `dctool --version`: "dctool <version> (<revision>)", then one line per library.
std::string version_report();

}  // namespace dct::app
