#pragma once
// Small pieces shared by the subcommands: option conversion, notes on stderr, timing output.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/formats.hpp"
#include "core/timing.hpp"
#include "core/types.hpp"

namespace dct::app {

core::Precision precision_of(const GlobalOptions& g);
core::ReadOptions read_options(const GlobalOptions& g, const InputOptions& in, core::Precision prec);
// --shape and --dtype describe raw inputs: a usage error naming the first input when they are given and no input is
// raw (a .npy or an image carries its own shape and type; the options would otherwise be ignored without a word).
void check_raw_options(const InputOptions& in, const std::vector<std::string>& inputs);
// Reads `path`; errors name the file.
core::Dataset read_input(const std::string& path, const core::ReadOptions& opt);
void note(const GlobalOptions& g, const std::string& msg);  // "dctool: <msg>" on stderr unless --quiet
void print_timing(const GlobalOptions& g, const core::StageTable& t);
std::vector<std::string> split_list(const std::string& s);  // "a,b, c" -> {a, b, c}
// The same, where an empty item ("0,,1", "1,") is a usage error of `option`.
std::vector<std::string> split_items(const std::string& s, const std::string& option);
// The ordinals of a --devices list (not `all`): 0..1023, no empty item, none twice, else a usage error (exit 2).
std::vector<int> device_ordinals(const std::string& list);
// The CUDA devices a batch spreads its workers over: --devices (all: every device present, none without one; a list:
// device_ordinals, each must exist, else exit 4), or --device alone.
std::vector<int> devices_of(const GlobalOptions& g);
// A batch worker's device: workers take the devices in turn (worker k: devices[k mod count]).
void bind_worker(const std::vector<int>& devices, int worker);
// GPU faults in a batch under -b auto (README "GPU faults"): when `work` runs out of device memory it runs again with
// the calling thread's work kept off the GPU, and `tell` hears one note naming `input`; after any other device error
// every later GPU work of the process is set aside (one note, once) and the error stands, failing this input alone.
// `enabled` false (one input, or a named backend): `work` runs as it is.
void run_with_gpu_fallback(bool enabled, const std::string& input, const std::function<void()>& work,
                           const std::function<void(const std::string&)>& tell);
// The interrupt line of a distributed batch's rank 0: "N outputs finished; not done: a, b, … and K more".
std::string not_done_line(std::int64_t finished, const std::vector<std::string>& not_done);

}  // namespace dct::app
