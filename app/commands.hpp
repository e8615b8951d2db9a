#pragma once
// Parsed options of each subcommand and the functions that run them. The CLI11 callbacks in cli.cpp only
// fill these structs; the functions here turn them into descriptors and call core.
#include <string>
#include <vector>

namespace dct::app {

struct GlobalOptions {
  std::string backend = "auto";
  std::string precision = "f32";
  int device = 0;
  int threads = 0;
  bool timing = false;
  bool json = false;
  bool quiet = false;
  bool verbose = false;
};

struct InputOptions {
  std::string shape;  // raw inputs: HxW
  std::string dtype;  // raw inputs: f32|f64|u8|u16|i16|i32
};

struct TransformOptions {
  std::string op;  // dct2 | idct2 | dct4 | lot
  std::string input, output;
  std::string norm;  // "" = default (none; ortho in block mode)
  std::string axis;  // "" = default (both; rows for dct4)
  int block = 0;
  bool inverse = false;
  bool visualize = false;  // image output of coefficients: a log-magnitude picture
  InputOptions in;
};


struct PsnrOptions {
  std::string reference, test;
  double peak = 0;  // 0 = from the input kind
  InputOptions in;
};

struct BenchOptions {
  std::string ops = "dct2,idct2";
  std::string sizes = "512x512,1024x1024,2048x2048";
  std::string backends = "auto";
  std::string precisions;  // "" = the global --precision
  std::string norm = "none";
  std::string axis = "both";
  std::string effort = "measure";
  int block = 0;
  long long batch = 1;
  int reps = 20;
  int warmup = 3;
  bool verify = false;
  std::string format = "table";
  std::string output;
};

struct CompressOptions {
  std::vector<std::string> inputs;
  std::string output;      // a file (one input) or a directory (batch)
  std::string mode = "jpeg";
  int quality = 75;
  double threshold = -1;   // < 0: not given
  double keep = -1;        // < 0: not given
  std::string report;      // --report FILE.json
  int jobs = 0;            // 0: all cores
};

int run_transform(const GlobalOptions& g, const TransformOptions& o);
int run_compress(const GlobalOptions& g, const CompressOptions& o);
int run_psnr(const GlobalOptions& g, const PsnrOptions& o);
int run_backends(const GlobalOptions& g);
int run_bench(const GlobalOptions& g, const BenchOptions& o);

}  // namespace dct::app
