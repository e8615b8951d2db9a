// The command line (CLI11): the global options here, each subcommand's in its app/cmd_*.cpp. Errors become
// one line on stderr and an exit code (README "Exit codes").
#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "app/commands.hpp"
#include "app/common.hpp"
#include "app/options.hpp"
#include "app/version.hpp"
#include "core/error.hpp"
#include "core/formats.hpp"

namespace dct::app {
namespace {

void add_global_options(CLI::App& app, GlobalOptions& g) {
  app.set_version_flag("--version", [] { return version_report(); });
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("-b,--backend", g.backend, "implementation (default auto; see `dctool backends`)");
  app.add_option("-p,--precision", g.precision, "f32|f64 (default f32; dct/dst/r2r: f64 for a float64 input)");
  app.add_option("--device", g.device, "CUDA device ordinal (default 0)")->check(CLI::Range(0, 1023));
  // Checked on every command, also those that do not spread work (whether the devices exist: when a batch needs them).
  app.add_option("--devices", g.devices,
                 "batch commands and bench: spread the work over these CUDA devices, all or a list 0,2,...; with "
                 "--distributed, one array over them (default: --device alone)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (v == "all") return {};
            try {
              device_ordinals(v);
            } catch (const Error& e) {
              return e.what();
            }
            return {};
          },
          "all|LIST"));
  app.add_option("--threads", g.threads, "CPU threads for FFTW/OpenMP, at most 1024 (default all cores)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--max-pixels", g.max_pixels,
                 "refuse images of more pixels (width x height) than this, before decoding (default 2^28 = " +
                     std::to_string(core::kDefaultMaxPixels) + ")")
      ->check(CLI::Range(std::int64_t{1}, core::kMaxElements));
  app.add_flag("--timing", g.timing, "print a per-stage timing table on stderr");
  app.add_flag("--json", g.json, "machine-readable result on stdout");
  CLI::Option* quiet = app.add_flag("-q,--quiet", g.quiet, "no notes on stderr");
  app.add_flag("-v,--verbose", g.verbose, "more notes on stderr")->excludes(quiet);
}

// The command line as one string; words the shell would split or expand are single-quoted.
std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+=.,:/@%") == std::string::npos;
    std::string word = "'";
    for (char c : a) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += (i ? " " : "") + (plain ? a : word + "'");
  }
  return line;
}

// A global option's names when it takes a value (the next word is its value, not a command).
bool takes_value(const CLI::App& app, const std::string& word) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_items_expected_max() == 0) continue;
    for (const std::string& n : opt->get_lnames())
      if (word == "--" + n) return true;
    for (const std::string& n : opt->get_snames())
      if (word == "-" + n) return true;
  }
  return false;
}

// The first bare word of the command line, if it is not a subcommand's name.
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.empty() || a[0] == '-') {
      if (takes_value(app, a)) ++i;
      continue;
    }
    for (const CLI::App* c : app.get_subcommands({}))
      if (a == c->get_name()) return {};
    return a;
  }
  return {};
}

// Parses; an exit code when dctool should stop here (--help, --version, a usage error).
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  if (const std::string bad = unknown_command(app, argc, argv); !bad.empty()) {
    std::fprintf(stderr, "dctool: error: unknown command '%s' (see dctool --help)\n", printable(bad).c_str());
    return static_cast<int>(ErrorCode::kUsage);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "dctool: error: %s (see dctool --help)\n", printable(e.what(), "bad command line").c_str());
    return static_cast<int>(ErrorCode::kUsage);
  }
  return std::nullopt;
}

int run_action(const Action& action) {
  try {
    return action ? action() : 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.message().c_str());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dctool: error: out of host memory\n");
    return static_cast<int>(ErrorCode::kRuntime);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dctool: error: internal: %s\n", printable(e.what(), "unknown exception").c_str());
    return static_cast<int>(ErrorCode::kRuntime);
  }
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"dctool: discrete cosine transforms on NVIDIA GPUs (CUDA, cuFFT) and CPUs (FFTW3)", "dctool"};
  GlobalOptions g;
  g.command_line = command_line(argc, argv);
  add_global_options(app, g);
  Action action;
  add_transforms(app, g, action);
  add_r2r(app, g, action);
  add_psnr(app, g, action);
  add_compress(app, g, action);
  add_backends(app, g, action);
  add_bench(app, g, action);
  add_plan(app, g, action);
  if (const std::optional<int> stop = parse(app, argc, argv)) return *stop;
  return run_action(action);
}

}  // namespace dct::app
