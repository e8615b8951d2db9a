#include "app/common.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "app/dispatch.hpp"
#include "app/registry.hpp"
#include "core/error.hpp"

namespace dct::app {

core::Precision precision_of(const GlobalOptions& g) {
  return g.precision.empty() ? core::Precision::kF32 : core::parse_precision(g.precision);
}

core::ReadOptions read_options(const GlobalOptions& g, const InputOptions& in, core::Precision prec) {
  core::ReadOptions r;
  r.prec = prec;
  r.max_pixels = g.max_pixels > 0 ? g.max_pixels : core::kDefaultMaxPixels;
  if (!in.shape.empty()) r.shape = core::parse_shape(in.shape);
  r.dtype = in.dtype;
  return r;
}

void check_raw_options(const InputOptions& in, const std::vector<std::string>& inputs) {
  if ((in.shape.empty() && in.dtype.empty()) || inputs.empty()) return;
  for (const std::string& p : inputs)
    if (core::is_raw_path(p)) return;
  throw Error(ErrorCode::kUsage, inputs.front(),
              std::string(in.shape.empty() ? "--dtype" : "--shape") +
                  " is for raw inputs (.raw, .f32, .f64); this file carries its own shape and type");
}

core::Dataset read_input(const std::string& path, const core::ReadOptions& opt) {
  try {
    return core::read_any(path, opt, &image_codec());
  } catch (const Error& e) {
    rethrow_with_subject(e, path);
  }
}

void note(const GlobalOptions& g, const std::string& msg) {
  if (!g.quiet) std::fprintf(stderr, "dctool: %s\n", printable(msg).c_str());
}

void print_timing(const GlobalOptions& g, const core::StageTable& t) {
  if (g.timing) std::fputs(t.format().c_str(), stderr);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return out;
}

std::vector<std::string> split_items(const std::string& s, const std::string& option) {
  const std::vector<std::string> items = split_list(s);
  std::size_t commas = 0;
  for (char c : s) commas += c == ',' ? 1 : 0;
  if (!s.empty() && items.size() != commas + 1)
    throw Error(ErrorCode::kUsage, option, "empty item in '" + s + "' (a comma list such as 0,1)");
  return items;
}

std::vector<int> device_ordinals(const std::string& list) {
  std::vector<int> out;
  for (const std::string& w : split_items(list, "--devices")) {
    char* end = nullptr;
    const long v = std::strtol(w.c_str(), &end, 10);
    if (w.empty() || *end != '\0' || v < 0 || v > 1023)
      throw Error(ErrorCode::kUsage, "--devices", "'" + w + "' is not a device ordinal (all, or a list such as 0,2)");
    for (int d : out)
      if (d == v) throw Error(ErrorCode::kUsage, "--devices", "device " + w + " is given twice");
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw Error(ErrorCode::kUsage, "--devices", "names no device (all, or a list such as 0,2)");
  return out;
}

std::vector<int> devices_of(const GlobalOptions& g) {
  // Without --devices and MPI ranks the driver is not asked (its start, 100-300 ms, would stall a batch that may run
  // on the CPU alone, or wait for the GPU's warm-up thread: docs/decisions.md §6).
  if (g.devices.empty() && dispatch::local_size() <= 1) return {g.device};
  const int present = visible_devices();
  // Several ranks of an MPI job on one host: each takes one GPU, by its rank on the host (docs/decisions.md §8).
  if (g.devices.empty())
    return present > 0 ? std::vector<int>{dispatch::local_rank() % present} : std::vector<int>{g.device};
  std::vector<int> out;
  if (g.devices == "all") {
    for (int d = 0; d < present; ++d) out.push_back(d);
    return out;
  }
  out = device_ordinals(g.devices);
  for (int v : out)
    if (v >= present)
      throw Error(ErrorCode::kUnsupported, "--devices",
                  "no CUDA device " + std::to_string(v) + " (" + std::to_string(present) + " device(s) present)");
  return out;
}

std::string not_done_line(std::int64_t finished, const std::vector<std::string>& not_done) {
  std::string text = std::to_string(finished) + (finished == 1 ? " output" : " outputs") + " finished";
  if (not_done.empty()) return text;
  constexpr std::size_t kNamed = 10;  // a line, not a listing: the report of a rerun tells the rest
  text += "; not done: ";
  for (std::size_t n = 0; n < not_done.size() && n < kNamed; ++n) text += (n ? ", " : "") + printable(not_done[n]);
  if (not_done.size() > kNamed) text += " and " + std::to_string(not_done.size() - kNamed) + " more";
  return text;
}

void run_with_gpu_fallback(bool enabled, const std::string& input, const std::function<void()>& work,
                           const std::function<void(const std::string&)>& tell) {
  try {
    work();
  } catch (const Error& e) {
    if (!enabled || e.fault() == Fault::kNone) throw;
    if (e.fault() == Fault::kDeviceMemory) {
      tell(input + ": " + e.what() + "; done on the CPU instead");
      const ThreadCpuOnly cpu_only;
      work();
      return;
    }
    static std::atomic<bool> retired{false};
    if (!retired.exchange(true)) {
      retire_devices();
      tell("after a device error the rest of the batch runs on the CPU");
    }
    throw;
  }
}

void bind_worker(const std::vector<int>& devices, int worker) {
  if (!devices.empty()) bind_thread_device(devices[static_cast<std::size_t>(worker) % devices.size()]);
}

}  // namespace dct::app
