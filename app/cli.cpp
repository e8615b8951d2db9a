// Command-line parsing (CLI11). Each subcommand's callback only fills an options struct; commands.hpp
// runs it. Errors become one line on stderr and the exit codes of DESIGN §6.
#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>

#include "app/commands.hpp"
#include "core/error.hpp"

namespace dct::app {
namespace {

CLI::Validator number_at_least(double lo, const char* what) {
  return CLI::Validator(
      [lo, what](std::string& v) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0' || !(x >= lo)) return "'" + v + "' is not " + what;
        return {};
      },
      "", what);
}
const CLI::Validator kPositive = number_at_least(1e-300, "a positive number");
const CLI::Validator kNonNegative = number_at_least(0, "a non-negative number");

// The subcommands, for naming an unknown one in the error message.
constexpr const char* kCommands[] = {"dct2", "idct2", "dct4", "lot", "psnr", "backends", "bench", "compress"};
// Global options that take a value (their value is not a command name).
constexpr const char* kValueOptions[] = {"-b", "--backend", "-p", "--precision", "--device", "--threads"};

// The first bare word of the command line, if it is not a known command.
std::string unknown_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.empty() || a[0] == '-') {
      for (const char* o : kValueOptions)
        if (a == o) ++i;
      continue;
    }
    for (const char* c : kCommands)
      if (a == c) return {};
    return a;
  }
  return {};
}

void add_input_options(CLI::App* c, InputOptions& in) {
  c->add_option("--shape", in.shape, "raw input shape HxW");
  c->add_option("--dtype", in.dtype, "raw input dtype (f32|f64|u8|u16|i16|i32); default from the extension");
}

void add_transform(CLI::App& app, const char* name, const char* help, TransformOptions& o,
                   std::function<void()>& action, const GlobalOptions& g, int& rc) {
  CLI::App* c = app.add_subcommand(name, help);
  o.op = name;
  c->add_option("input", o.input, "input file (.npy .txt .csv .raw .f32 .f64 or an image)")->required();
  c->add_option("-o,--output", o.output, "output file")->required();
  const std::string n = name;
  if (n == "lot") {
    c->add_flag("--inverse", o.inverse, "the exact inverse: (H+8)x(W+8) coefficients -> HxW");
  } else if (n == "dct4") {
    c->add_option("--norm", o.norm, "ortho|none (default none)");
    c->add_option("--axis", o.axis, "rows|cols|both (default rows)");
    c->add_flag("--inverse", o.inverse, "the exact inverse in the same norm");
  } else {
    c->add_option("--norm", o.norm, "ortho|none (default none; ortho with --block)");
    c->add_option("--axis", o.axis, "both|rows|cols (default both)");
    c->add_option("--block", o.block, "transform independent BxB tiles")->check(kPositive);
  }
  c->add_flag("--visualize", o.visualize, "write coefficients to an image as a log-magnitude picture");
  add_input_options(c, o.in);
  c->callback([&] { action = [&] { rc = run_transform(g, o); }; });
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"dctool: discrete cosine transforms on NVIDIA GPUs (CUDA, cuFFT) and CPUs (FFTW3)", "dctool"};
  app.set_version_flag("--version", "dctool " DCTOOL_VERSION);
  app.require_subcommand(1);
  app.fallthrough();

  GlobalOptions g;
  app.add_option("-b,--backend", g.backend, "implementation (default auto; see `dctool backends`)");
  app.add_option("-p,--precision", g.precision, "f32|f64 (default f32)");
  app.add_option("--device", g.device, "CUDA device ordinal (default 0)");
  app.add_option("--threads", g.threads, "CPU threads for FFTW/OpenMP (default all cores)")->check(kNonNegative);
  app.add_flag("--timing", g.timing, "print a per-stage timing table on stderr");
  app.add_flag("--json", g.json, "machine-readable result on stdout");
  app.add_flag("-q,--quiet", g.quiet, "no notes on stderr");
  app.add_flag("-v,--verbose", g.verbose, "more notes on stderr");

  int rc = 0;
  std::function<void()> action;
  TransformOptions dct2, idct2, dct4, lot;
  add_transform(app, "dct2", "2-D (or 1-D along --axis) DCT-II", dct2, action, g, rc);
  add_transform(app, "idct2", "inverse of dct2 with the same options (a DCT-III)", idct2, action, g, rc);
  add_transform(app, "dct4", "DCT-IV (default along rows)", dct4, action, g, rc);

  add_transform(app, "lot", "8x8 lapped orthogonal transform (Malvar): HxW -> (H+8)x(W+8)", lot, action, g, rc);

  PsnrOptions psnr;
  CLI::App* p = app.add_subcommand("psnr", "PSNR, MSE and max abs error of TEST against REF");
  p->add_option("reference", psnr.reference, "reference file")->required();
  p->add_option("test", psnr.test, "test file")->required();
  p->add_option("--peak", psnr.peak, "peak value (default 255 / 65535 for images, max|REF| for matrices)")
      ->check(kPositive);
  add_input_options(p, psnr.in);
  p->callback([&] { action = [&] { rc = run_psnr(g, psnr); }; });

  CompressOptions co;
  CLI::App* cp = app.add_subcommand("compress", "lossy image compression: jpeg (8x8 DCT + quantization), lot, threshold, keep");
  cp->add_option("inputs", co.inputs, "input images (several: batch mode, -o names a directory)")->required();
  cp->add_option("-o,--output", co.output, "output image, or directory in batch mode")->required();
  cp->add_option("--mode", co.mode, "jpeg|threshold|keep|lot (default jpeg; lot: jpeg with the 8x8 LOT); none: no transform (decode + encode only, a batch baseline)");
  cp->add_option("--quality", co.quality, "jpeg quality 1..100 (default 75, as cjpeg)");
  cp->add_option("--threshold", co.threshold, "threshold mode: zero DCT coefficients with |c| < E");
  cp->add_option("--keep", co.keep, "keep mode: keep the ceil(F*H*W) largest coefficients per channel");
  cp->add_option("--report", co.report, "write a JSON report (an array in batch mode)");
  cp->add_option("--jobs", co.jobs, "worker threads in batch mode (default all cores)")->check(kNonNegative);
  cp->callback([&] { action = [&] { rc = run_compress(g, co); }; });

  CLI::App* bk = app.add_subcommand("backends", "list the backends, their ops and whether they are usable here");
  bk->callback([&] { action = [&] { rc = run_backends(g); }; });

  BenchOptions bo;
  CLI::App* b = app.add_subcommand("bench", "time backends (median/min/max, GB/s, x_copy, x_fft, e2e)");
  b->add_option("--ops", bo.ops, "comma list: dct2,idct2,dct4,idct4");
  b->add_option("--sizes", bo.sizes, "comma list of HxW");
  b->add_option("--backends", bo.backends, "auto|all|comma list");
  b->add_option("--precision", bo.precisions, "comma list: f32,f64 (default the global -p)");
  b->add_option("--norm", bo.norm, "none|ortho");
  b->add_option("--axis", bo.axis, "both|rows|cols");
  b->add_option("--block", bo.block, "BxB tiles")->check(kNonNegative);
  b->add_option("--batch", bo.batch, "matrices per call")->check(kPositive);
  b->add_option("--reps", bo.reps, "timed repetitions (default 20)")->check(kPositive);
  b->add_option("--warmup", bo.warmup, "untimed repetitions first (default 3)")->check(kNonNegative);
  b->add_option("--effort", bo.effort, "FFTW planning: measure|estimate (default measure)");
  b->add_flag("--verify", bo.verify, "relative L2 error against the f64 CPU oracle");
  b->add_option("--format", bo.format, "table|md|csv|json");
  b->add_option("-o,--output", bo.output, "write the report to FILE instead of stdout");
  b->callback([&] { action = [&] { rc = run_bench(g, bo); }; });

  if (const std::string bad = unknown_command(argc, argv); !bad.empty()) {
    std::fprintf(stderr, "dctool: error: unknown command '%s' (see dctool --help)\n", bad.c_str());
    return static_cast<int>(ErrorCode::kUsage);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    std::fprintf(stderr, "dctool: error: %s (see dctool --help)\n", what.c_str());
    return static_cast<int>(ErrorCode::kUsage);
  }
  try {
    if (action) action();
    return rc;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.message().c_str());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dctool: error: out of host memory\n");
    return static_cast<int>(ErrorCode::kRuntime);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dctool: error: internal: %s\n", e.what());
    return static_cast<int>(ErrorCode::kRuntime);
  }
}

}  // namespace dct::app
