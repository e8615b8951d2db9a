// dctool backends: every registered backend with its ops and whether it is usable here (and why not);
// -b cuda-* on a machine where CUDA cannot run is "unsupported" (exit 4) with the reason.
#include <filesystem>
#include <string>
#include <vector>

#include "app_support.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

// True when this machine has an NVIDIA device node (then cuda-* rows may legitimately say "yes").
bool gpu_present() { return std::filesystem::exists("/dev/nvidia0") || std::filesystem::exists("/dev/nvidiactl"); }

// The text row whose first field is `name` ("" when none).
std::string row_of(const std::string& listing, const std::string& name) {
  for (const auto& line : split_lines(listing)) {
    std::stringstream ss(line);
    std::string first;
    ss >> first;
    if (first == name) return line;
  }
  return "";
}

std::vector<std::string> cuda_rows(const std::string& listing) {
  std::vector<std::string> out;
  for (const auto& line : split_lines(listing)) {
    std::stringstream ss(line);
    std::string first;
    ss >> first;
    if (first.rfind("cuda-", 0) == 0) out.push_back(first);
  }
  return out;
}

}  // namespace

TEST_CASE("backends: cpu-fftw and cpu-naive listed usable with their ops", "[app][backends]") {
  const RunResult r = run_dctool("backends");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  for (const std::string name : {"cpu-fftw", "cpu-naive"}) {
    const std::string row = row_of(r.out, name);
    INFO("row for " << name << ": '" << row << "'");
    REQUIRE(!row.empty());
    CHECK(contains(row, "yes"));
    CHECK_FALSE(contains(row, "no:"));
    CHECK(contains(row, "dct2"));
    CHECK(contains(row, "idct2"));
    CHECK(contains(row, "dct4"));
  }
}

TEST_CASE("backends: the compressors of compress are listed too", "[app][backends][compress]") {
  const RunResult r = run_dctool("backends");
  REQUIRE(r.code == 0);
  const std::string cpu = row_of(r.out, "cpu");
  INFO(r.out);
  REQUIRE(!cpu.empty());
  CHECK(contains(cpu, "compress"));
  CHECK(contains(cpu, "yes"));
  // With CUDA compiled in, the GPU compressors' rows are there; without a GPU they say why not. (A build without CUDA
  // lists the cuda-* transform backends as unusable, and no GPU compressors.)
  if (!cuda_rows(r.out).empty() && !contains(row_of(r.out, "cuda-fft2d"), "built without CUDA"))
    for (const std::string name : {"cuda-jpeg-fused", "cuda-compress-whole"}) {
      const std::string row = row_of(r.out, name);
      INFO(name);
      REQUIRE(!row.empty());
      CHECK(contains(row, "compress"));
      if (!gpu_present()) CHECK(contains(row, "no: "));
    }
}

TEST_CASE("backend option: a compressor's name for a transform is a usage error saying so",
          "[app][backends][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 4, 4, std::vector<double>(16, 1.0));
  const RunResult r = run_dctool("-b cpu dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("out.npy")));
  check_one_line_error(r, 2, {"cpu", "compress"});
  CHECK_FALSE(exists(dir.file("out.npy")));
}

TEST_CASE("backends --json: array of objects with name ops sizes usable reason", "[app][backends]") {
  TempDir dir;
  const RunResult r = run_dctool("--json backends");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const FlatJson j = parse_json_text(dir, r.out);
  INFO(j.error);
  REQUIRE(j.type == "list");
  REQUIRE(j.size >= 2);
  bool fftw = false, naive = false;
  for (std::size_t i = 0; i < j.size; ++i) {
    const std::string p = std::to_string(i) + ".";
    INFO("entry " << i << " name " << j.at(p + "name"));
    for (const std::string k : {"name", "ops", "sizes", "usable", "reason"}) {
      INFO("key " << k);
      CHECK(j.has(p + k));
    }
    const std::string usable = j.at(p + "usable");
    CHECK((usable == "true" || usable == "false"));
    if (usable == "false") CHECK(j.at(p + "reason").size() > 2);  // a non-empty JSON string
    if (j.at(p + "name") == "\"cpu-fftw\"") {
      fftw = true;
      CHECK(usable == "true");
      CHECK(contains(j.at(p + "ops"), "dct2"));
    }
    if (j.at(p + "name") == "\"cpu-naive\"") {
      naive = true;
      CHECK(usable == "true");
    }
    if (!gpu_present() && contains(j.at(p + "name"), "\"cuda-")) CHECK(usable == "false");
  }
  CHECK(fftw);
  CHECK(naive);
}

TEST_CASE("backends: cuda rows say no with a reason on a machine without a usable GPU", "[app][backends]") {
  const RunResult r = run_dctool("backends");
  REQUIRE(r.code == 0);
  const auto rows = cuda_rows(r.out);
  if (rows.empty()) {
    WARN("SKIPPED: `dctool backends` lists no cuda-* rows (binary built without CUDA); cuda rows not checked");
    return;
  }
  if (gpu_present()) {
    WARN("SKIPPED: this machine has an NVIDIA device; cuda-* rows may be usable");
    return;
  }
  for (const auto& name : rows) {
    const std::string row = row_of(r.out, name);
    INFO(row);
    const auto pos = row.find("no: ");
    REQUIRE(pos != std::string::npos);
    // A reason follows "no: ".
    CHECK(row.find_first_not_of(' ', pos + 4) != std::string::npos);
    CHECK_FALSE(contains(row, " yes"));
  }
}

TEST_CASE("backend option: cuda-fft2d without a usable GPU exits 4 naming the backend and the reason",
          "[app][backends][bad-input]") {
  if (gpu_present()) {
    WARN("SKIPPED: this machine has an NVIDIA device");
    return;
  }
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 4, 4, std::vector<double>(16, 1.0));
  const auto before = list_dir(dir.path().string());
  std::vector<std::string> names = {"cuda-fft2d"};
  const RunResult l = run_dctool("backends");
  for (const auto& n : cuda_rows(l.out))
    if (n != "cuda-fft2d" && !contains(row_of(l.out, n), " compress ")) names.push_back(n);
  for (const auto& name : names) {
    INFO("backend " << name);
    const RunResult r = run_dctool("-b " + name + " dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("out.npy")));
    check_one_line_error(r, 4, {name});
    // Something beyond "dctool: error: cuda-fft2d:" explains why.
    const auto pos = r.err.find(name);
    CHECK((pos != std::string::npos && r.err.size() > pos + name.size() + 8));
    CHECK(list_dir(dir.path().string()) == before);
  }
}

TEST_CASE("backend option: unknown backend name is a usage error (exit 2) listing the known ones",
          "[app][backends][bad-input]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 4, 4, std::vector<double>(16, 1.0));
  const RunResult r = run_dctool("-b no-such-backend dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("out.npy")));
  check_one_line_error(r, 2, {"no-such-backend"});
  CHECK(contains(r.err, "cpu-fftw"));
  CHECK_FALSE(exists(dir.file("out.npy")));
}

TEST_CASE("backend option: cpu-naive and cpu-fftw are honoured (--json reports the backend that ran)",
          "[app][backends]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 4, 4, std::vector<double>(16, 1.0));
  for (const std::string b : {"cpu-naive", "cpu-fftw"}) {
    const RunResult r =
        run_dctool("--json -b " + b + " dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file(b + ".npy")));
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const FlatJson j = parse_json_text(dir, r.out);
    REQUIRE(j.type == "dict");
    CHECK(j.at("backend") == "\"" + b + "\"");
  }
  // auto never picks the oracle; on a machine without a GPU it picks cpu-fftw.
  if (!gpu_present()) {
    const RunResult r = run_dctool("--json dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("auto.npy")));
    REQUIRE(r.code == 0);
    CHECK(parse_json_text(dir, r.out).at("backend") == "\"cpu-fftw\"");
  }
}
