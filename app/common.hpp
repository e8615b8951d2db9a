#pragma once
// Small pieces shared by the subcommands: option conversion, notes on stderr, timing output.
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/formats.hpp"
#include "core/timing.hpp"
#include "core/types.hpp"

namespace dct::app {

core::Precision precision_of(const GlobalOptions& g);
core::ReadOptions read_options(const GlobalOptions& g, const InputOptions& in, core::Precision prec);
// Reads `path`; errors name the file.
core::Dataset read_input(const std::string& path, const core::ReadOptions& opt);
void note(const GlobalOptions& g, const std::string& msg);  // "dctool: <msg>" on stderr unless --quiet
void print_timing(const GlobalOptions& g, const core::StageTable& t);
std::vector<std::string> split_list(const std::string& s);  // "a,b, c" -> {a, b, c}
// The CUDA devices a batch spreads its workers over: --devices (all: every device present, none without one; a list:
// each must exist, else exit 4), or --device alone.
std::vector<int> devices_of(const GlobalOptions& g);
// A batch worker's device: workers take the devices in turn (worker k: devices[k mod count]).
void bind_worker(const std::vector<int>& devices, int worker);

}  // namespace dct::app
