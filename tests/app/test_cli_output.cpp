// Global options that shape the output: --version, --help, --timing (stage table on stderr), --json
// (a result object on stdout), -q.
#include <regex>
#include <string>
#include <vector>

#include "app_support.hpp"

using namespace dct::test;
using namespace dct::test::cli;

TEST_CASE("cli: --version prints the version, the git revision and the libraries, and exits 0", "[app][cli]") {
  const RunResult r = run_dctool("--version");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  const auto lines = split_lines(r.out);
  REQUIRE(lines.size() >= 3);
  CHECK(std::regex_match(lines[0], std::regex(R"(dctool 0\.1\.0 \([^ ()]+\))")));
  const std::regex cuda(R"(CUDA: (not compiled in|compiled in, runtime \d+\.\d+, cuFFT \d+, driver (\d+\.\d+|none)))");
  CHECK(std::regex_match(lines[1], cuda));
  CHECK(std::regex_match(lines[2], std::regex(R"(FFTW: fftw-3\.\S+)")));
}

TEST_CASE("cli: the man page script writes NAME, SYNOPSIS, DESCRIPTION and a subsection per subcommand", "[app][cli]") {
  if (run_cmd("command -v cmake").code != 0) {
    WARN("cmake not found: the man page is not checked");
    return;
  }
  TempDir dir;
  const std::string page = dir.file("dctool.1");
  const RunResult r = run_cmd("cmake -DDCTOOL=" + q(DCTOOL_BINARY) + " -DOUT=" + q(page) + " -DVERSION=0.1.0 -P " +
                              q(source_dir() + "/cmake/man_page.cmake"));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const std::string man = slurp(page);
  CHECK(man.rfind(".TH DCTOOL 1 ", 0) == 0);
  for (const std::string s : {".SH NAME\ndctool \\- ", ".SH SYNOPSIS\n", ".SH DESCRIPTION\n", ".SH SUBCOMMANDS\n"}) {
    INFO(s);
    CHECK(contains(man, s));
  }
  for (const std::string cmd : {"dct2", "idct2", "dct4", "lot", "psnr", "compress", "backends", "bench"}) {
    INFO(cmd);
    CHECK(contains(man, ".SS " + cmd + "\n.nf\n"));
  }
  CHECK(contains(man, "\\-\\-quality"));  // compress's help, hyphens escaped
}

TEST_CASE("cli: -h and --help exit 0 and list the subcommands", "[app][cli]") {
  for (const std::string h : {"-h", "--help"}) {
    const RunResult r = run_dctool(h);
    INFO(h << ": " << r.out << r.err);
    CHECK(r.code == 0);
    for (const std::string cmd : {"dct2", "idct2", "dct4", "psnr", "backends", "bench"}) {
      INFO(cmd);
      CHECK(contains(r.out, cmd));
    }
  }
  const RunResult r = run_dctool("dct2 --help");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(contains(r.out, "--norm"));
  CHECK(contains(r.out, "--axis"));
}

TEST_CASE("cli: --timing prints a per-stage table on stderr and leaves the result unchanged", "[app][cli]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 16, 16, std::vector<double>(256, 2.0));
  const RunResult plain = run_dctool("-p f64 dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("a.npy")));
  REQUIRE(plain.code == 0);
  const RunResult r = run_dctool("--timing -p f64 dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("b.npy")));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(dir.file("a.npy")) == slurp(dir.file("b.npy")));
  // A table: several lines with numbers, in milliseconds, covering at least the file read and write stages.
  int numeric_lines = 0;
  for (const auto& l : split_lines(r.err))
    if (std::regex_search(l, std::regex(R"([0-9]+(\.[0-9]+)?)"))) ++numeric_lines;
  CHECK(numeric_lines >= 3);
  CHECK(contains(r.err, "ms"));
  CHECK(contains(lower(r.err), "read"));
  CHECK(contains(lower(r.err), "write"));
  CHECK_FALSE(contains(r.err, "error"));
}

TEST_CASE("cli: --json dct2 prints one JSON object with the backend on stdout", "[app][cli]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 8, 12, std::vector<double>(96, 0.5));
  const RunResult r = run_dctool("--json -b cpu-fftw dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("o.npy")));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const FlatJson j = parse_json_text(dir, r.out);
  INFO(j.error);
  REQUIRE(j.type == "dict");
  CHECK(j.at("backend") == "\"cpu-fftw\"");
  CHECK(j.at("shape") == "[8, 12]");
  CHECK(j.at("out_shape") == "[8, 12]");
  // A .npy to a .npy is streamed (app/streamed.hpp): its own stages.
  for (const char* stage : {"\"open\": ", "\"plan\": ", "\"read\": ", "\"device\": ", "\"write\": "})
    CHECK(contains(j.at("timing_ms"), stage));
  check_json_typed(dir, r.out);
  CHECK(exists(dir.file("o.npy")));
  // Whole arrays (a text output): making the output's buffer has its own stage.
  const RunResult w = run_dctool("--json -b cpu-fftw dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("o.txt")));
  REQUIRE(w.code == 0);
  const FlatJson jw = parse_json_text(dir, w.out);
  CHECK(contains(jw.at("timing_ms"), "\"execute_e2e\": "));
  CHECK(contains(jw.at("timing_ms"), "\"output\": "));
  // With --timing as well, stdout stays pure JSON (the table goes to stderr).
  const RunResult t =
      run_dctool("--json --timing -b cpu-naive dct4 " + q(dir.file("in.npy")) + " -o " + q(dir.file("p.npy")));
  INFO(t.out << t.err);
  REQUIRE(t.code == 0);
  const FlatJson jt = parse_json_text(dir, t.out);
  INFO(jt.error);
  REQUIRE(jt.type == "dict");
  CHECK(jt.at("backend") == "\"cpu-naive\"");
}

TEST_CASE("cli: -q makes a successful transform print nothing", "[app][cli]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 4, 4, std::vector<double>(16, 1.0));
  const RunResult r = run_dctool("-q dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("o.npy")));
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  CHECK(exists(dir.file("o.npy")));
  // Errors are still reported under -q.
  const RunResult e = run_dctool("-q dct2 " + q(dir.file("missing.npy")) + " -o " + q(dir.file("o2.npy")));
  check_one_line_error(e, 3, {"missing.npy"});
}

TEST_CASE("cli: a successful transform replaces an existing output and leaves no temporaries", "[app][cli]") {
  TempDir dir;
  write_npy_f64(dir.file("in.npy"), 4, 4, std::vector<double>(16, 1.0));
  spit(dir.file("o.npy"), "old contents");
  const RunResult r = run_dctool("dct2 " + q(dir.file("in.npy")) + " -o " + q(dir.file("o.npy")));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(dir.file("o.npy")).rfind("\x93NUMPY", 0) == 0);
  CHECK(list_dir(dir.path().string()) == std::set<std::string>{"in.npy", "o.npy"});
}
