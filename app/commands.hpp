#pragma once
// The subcommands. Each app/cmd_*.cpp owns its CLI11 wiring: add_<cmd> adds the subcommand with its options,
// and its callback sets the action that turns the parsed options into a descriptor and calls core.
#include <cstdint>
#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace dct::app {

struct GlobalOptions {
  std::string backend = "auto";
  std::string precision;  // "" = not given: f32 (dct/dst/r2r: the input's float64 is kept)
  int device = 0;
  std::string devices;  // --devices all|0,2,...: batch work spread over these GPUs ("" = --device alone)
  int threads = 0;
  std::int64_t max_pixels = 0;  // images: refuse more pixels than this (0: core::kDefaultMaxPixels)
  bool timing = false;
  bool json = false;
  bool quiet = false;
  bool verbose = false;
  std::string command_line;  // as given (shell-quoted words), for reports
};

struct InputOptions {
  std::string shape;  // raw inputs: HxW
  std::string dtype;  // raw inputs: f32|f64|u8|u16|i16|i32|… (core/formats.cpp)
};

// What the chosen subcommand does once the whole command line is parsed; returns the exit code.
using Action = std::function<int()>;

void add_transforms(CLI::App& app, const GlobalOptions& g, Action& action);  // dct2, idct2, dct4, lot
void add_r2r(CLI::App& app, const GlobalOptions& g, Action& action);         // dct, dst, r2r
void add_psnr(CLI::App& app, const GlobalOptions& g, Action& action);
void add_compress(CLI::App& app, const GlobalOptions& g, Action& action);
void add_backends(CLI::App& app, const GlobalOptions& g, Action& action);
void add_bench(CLI::App& app, const GlobalOptions& g, Action& action);
void add_plan(CLI::App& app, const GlobalOptions& g, Action& action);

}  // namespace dct::app
