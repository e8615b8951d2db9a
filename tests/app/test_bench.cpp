// dctool bench: the exact csv header, rows with the fields filled (x_fft against FFTW r2c,
// max_rel_err with --verify), json (an object: what measured, and the rows with the csv keys, shapes as
// arrays), a markdown table, and -o FILE.
#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "app_support.hpp"

using namespace dct::test;
using namespace dct::test::cli;

namespace {

const std::string kHeader =
    "op,backend,precision,shape,batch,reps,median_ms,min_ms,max_ms,gbps,x_copy,x_fft,e2e_ms,cpu_ms,max_rel_err,device,"
    "axis";
const std::vector<std::string> kKeys = {"op",        "backend", "precision",   "shape",  "batch",  "reps",
                                        "median_ms", "min_ms",  "max_ms",      "gbps",   "x_copy", "x_fft",
                                        "e2e_ms",    "cpu_ms",  "max_rel_err", "device", "axis"};
const std::string kCmd = "bench --ops dct2 --sizes 32x32 --backends cpu-fftw --reps 3 --warmup 1 --verify";

// A number from a csv cell or a JSON value; NaN when it is not one.
double num(const std::string& s) {
  std::string t = s;
  if (t.size() >= 2 && t.front() == '"') t = t.substr(1, t.size() - 2);
  if (t.empty() || t == "null") return std::nan("");
  try {
    std::size_t pos = 0;
    const double v = std::stod(t, &pos);
    return pos == t.size() ? v : std::nan("");
  } catch (...) {
    return std::nan("");
  }
}

// The fields of one row of the 32x32 dct2 cpu-fftw run, as strings (csv: quoted JSON strings).
void check_row(const FlatJson& j, std::size_t i, bool verify, double tol) {
  const std::string p = std::to_string(i) + ".";
  INFO("row " << i);
  for (const auto& k : kKeys) {
    INFO("key " << k);
    CHECK(j.has(p + k));
  }
  const double median = num(j.at(p + "median_ms")), mn = num(j.at(p + "min_ms")), mx = num(j.at(p + "max_ms"));
  INFO("median " << median << " min " << mn << " max " << mx << " gbps " << j.at(p + "gbps") << " x_fft "
                 << j.at(p + "x_fft") << " max_rel_err " << j.at(p + "max_rel_err") << " cpu_ms "
                 << j.at(p + "cpu_ms"));
  CHECK(median > 0);
  CHECK(mn > 0);
  CHECK(mn <= median);
  CHECK(median <= mx);
  CHECK(num(j.at(p + "gbps")) > 0);
  CHECK(num(j.at(p + "x_fft")) > 0);
  CHECK(num(j.at(p + "batch")) >= 1);
  const double cpu = num(j.at(p + "cpu_ms"));
  CHECK(cpu >= 0);
  CHECK(!unquote(j.at(p + "device")).empty());
  const double err = num(j.at(p + "max_rel_err"));
  if (verify) {
    CHECK(err >= 0);
    CHECK(err < tol);
  } else {
    CHECK(std::isnan(err));  // empty / null without --verify
  }
}

// bench may add reference rows (backend "baseline:..."); the assertions below are about the backend rows.
bool is_baseline(const FlatJson& j, std::size_t i) {
  return unquote(j.at(std::to_string(i) + ".backend")).rfind("baseline:", 0) == 0;
}

}  // namespace

TEST_CASE("bench --format csv: exact header and a verified row with x_fft", "[app][bench]") {
  TempDir dir;
  const RunResult r = run_dctool(kCmd + " --format csv");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto lines = split_lines(r.out);
  REQUIRE(!lines.empty());
  CHECK(lines[0] == kHeader);
  const FlatJson j = parse_csv_text(dir, r.out);
  INFO(j.error);
  REQUIRE(j.type == "list");
  REQUIRE(j.size >= 1);
  bool found = false;
  for (std::size_t i = 0; i < j.size; ++i) {
    if (is_baseline(j, i)) continue;
    const std::string p = std::to_string(i) + ".";
    CHECK(unquote(j.at(p + "op")) == "dct2");
    CHECK(unquote(j.at(p + "backend")) == "cpu-fftw");
    CHECK(unquote(j.at(p + "shape")) == "32x32");
    CHECK(unquote(j.at(p + "reps")) == "3");
    const std::string prec = unquote(j.at(p + "precision"));
    CHECK((prec == "f32" || prec == "f64"));
    check_row(j, i, true, prec == "f32" ? 1e-5 : 1e-11);
    found = true;
  }
  CHECK(found);
  // Every data row has exactly the header's number of fields.
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    INFO(lines[i]);
    if (!contains(lines[i], "\"")) CHECK(split(lines[i], ',').size() == kKeys.size());
  }
}

TEST_CASE("bench without --verify leaves max_rel_err empty", "[app][bench]") {
  TempDir dir;
  const RunResult r = run_dctool("bench --ops dct2 --sizes 32x32 --backends cpu-fftw --reps 2 --warmup 0 --format csv");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const FlatJson j = parse_csv_text(dir, r.out);
  REQUIRE(j.type == "list");
  REQUIRE(j.size >= 1);
  std::size_t rows = 0;
  for (std::size_t i = 0; i < j.size; ++i)
    if (!is_baseline(j, i)) {
      check_row(j, i, false, 0);
      ++rows;
    }
  CHECK(rows >= 1);
}

TEST_CASE("bench --format json: an object with the version, command, date, device and the rows", "[app][bench]") {
  TempDir dir;
  const RunResult r = run_dctool(kCmd + " --format json");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  check_json_typed(dir, r.out);
  const FlatJson top = parse_json_text(dir, r.out);
  INFO(top.error);
  REQUIRE(top.type == "dict");
  const std::set<std::string> top_keys = {"dctool", "revision", "command", "date", "device", "rows"};
  std::set<std::string> got;
  for (const auto& [k, v] : top.v) got.insert(k);
  CHECK(got == top_keys);
  const RunResult version = run_dctool("--version");
  CHECK(contains(version.out, "dctool " + unquote(top.at("dctool")) + " (" + unquote(top.at("revision")) + ")\n"));
  CHECK(contains(unquote(top.at("command")), kCmd + " --format json"));
  CHECK(std::regex_match(unquote(top.at("date")), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  CHECK(!unquote(top.at("device")).empty());

  const FlatJson j = parse_json_member(dir, r.out, "rows");
  INFO(j.error);
  REQUIRE(j.type == "list");
  REQUIRE(j.size >= 1);
  std::size_t rows = 0;
  for (std::size_t i = 0; i < j.size; ++i) {
    if (is_baseline(j, i)) continue;
    ++rows;
    const std::string p = std::to_string(i) + ".";
    CHECK(j.at(p + "op") == "\"dct2\"");
    CHECK(j.at(p + "backend") == "\"cpu-fftw\"");
    CHECK(j.at(p + "shape") == "[32, 32]");
    CHECK(num(j.at(p + "reps")) == 3);
    const std::string prec = unquote(j.at(p + "precision"));
    check_row(j, i, true, prec == "f32" ? 1e-5 : 1e-11);
  }
  CHECK(rows >= 1);
  // Every object has exactly the 16 keys, no more.
  for (std::size_t i = 0; i < j.size; ++i) {
    std::set<std::string> keys;
    const std::string p = std::to_string(i) + ".";
    for (const auto& [k, v] : j.v)
      if (k.rfind(p, 0) == 0) keys.insert(k.substr(p.size()));
    INFO("object " << i);
    CHECK(keys == std::set<std::string>(kKeys.begin(), kKeys.end()));
  }
  // -o FILE.json: the same object in the file.
  const std::string out = dir.file("bench.json");
  REQUIRE(run_dctool(kCmd + " -o " + q(out)).code == 0);
  const FlatJson f = parse_json_text(dir, slurp(out));
  CHECK(f.type == "dict");
  CHECK(f.has("rows"));
}

TEST_CASE("bench --format md: a markdown table with the field names", "[app][bench]") {
  const RunResult r = run_dctool(kCmd + " --format md");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto lines = split_lines(r.out);
  bool header = false, separator = false, row = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (!header && l.rfind("|", 0) == 0 && contains(l, "op") && contains(l, "backend") && contains(l, "median_ms")) {
      header = true;
      separator = i + 1 < lines.size() && std::regex_match(lines[i + 1], std::regex(R"(^\|(\s*:?-{3,}:?\s*\|)+\s*$)"));
      row = i + 2 < lines.size() && lines[i + 2].rfind("|", 0) == 0 && contains(lines[i + 2], "cpu-fftw");
    }
  }
  CHECK(header);
  CHECK(separator);
  CHECK(row);
}

TEST_CASE("bench --format table (default) and -o FILE", "[app][bench]") {
  TempDir dir;
  const RunResult t = run_dctool("bench --ops dct2 --sizes 16x16 --backends cpu-fftw --reps 2 --warmup 0");
  INFO(t.out << t.err);
  REQUIRE(t.code == 0);
  CHECK(contains(t.out, "cpu-fftw"));
  CHECK(contains(t.out, "16x16"));

  const std::string out = dir.file("bench.csv");
  const RunResult r = run_dctool(kCmd + " --format csv -o " + q(out));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  REQUIRE(exists(out));
  const std::string text = slurp(out);
  CHECK(split_lines(text).at(0) == kHeader);
  CHECK(split_lines(text).size() >= 2);
  CHECK_FALSE(contains(r.out, kHeader));  // the table went to the file, not stdout

  // A --format (or --json) that contradicts -o FILE's extension is a usage error, and nothing is written.
  const std::string other = dir.file("b.csv");
  check_one_line_error(run_dctool(kCmd + " --format json -o " + q(other)), 2, {"--format", "b.csv"});
  check_one_line_error(run_dctool("--json " + kCmd + " -o " + q(other)), 2, {"--json", "b.csv"});
  CHECK_FALSE(exists(other));
}

TEST_CASE("bench: a verified sweep over ops and sizes and precisions and both CPU backends", "[app][bench]") {
  TempDir dir;
  const RunResult r = run_dctool(
      "bench --ops dct2,idct2,dct4 --sizes 16x16,8x24 --precision f32,f64 --backends cpu-fftw,cpu-naive --reps 2 "
      "--warmup 0 --verify --format csv");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const FlatJson j = parse_csv_text(dir, r.out);
  REQUIRE(j.type == "list");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < j.size; ++i) {
    if (is_baseline(j, i)) continue;
    const std::string p = std::to_string(i) + ".";
    const std::string key = unquote(j.at(p + "op")) + " " + unquote(j.at(p + "backend")) + " " +
                            unquote(j.at(p + "precision")) + " " + unquote(j.at(p + "shape"));
    INFO(key);
    seen.insert(key);
    const double err = num(j.at(p + "max_rel_err"));
    CHECK(err < (unquote(j.at(p + "precision")) == "f32" ? 1e-5 : 1e-11));
  }
  std::set<std::string> want;
  for (const std::string op : {"dct2", "idct2", "dct4"})
    for (const std::string b : {"cpu-fftw", "cpu-naive"})
      for (const std::string p : {"f32", "f64"})
        for (const std::string s : {"16x16", "8x24"}) want.insert(op + " " + b + " " + p + " " + s);
  CHECK(seen == want);
}

// --backends auto (the default) times, for each op, size and precision, the one backend auto takes for it (cpu-lot for
// the LOT, cpu-fftw for dct2 and idct2), and no other backend is tried on a case it does not take (no "skip" notes).
TEST_CASE("bench --backends auto: each case on the backend auto takes for it, and only that", "[app][bench]") {
  TempDir dir;
  const RunResult r = run_dctool("bench --ops dct2,lot,idct2 --sizes 64x64,32x48 --reps 1 --warmup 0 --format csv");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(!contains(r.err, "skip"));
  const FlatJson j = parse_csv_text(dir, r.out);
  REQUIRE(j.type == "list");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < j.size; ++i)
    if (!is_baseline(j, i))
      seen.insert(unquote(j.at(std::to_string(i) + ".op")) + " " + unquote(j.at(std::to_string(i) + ".backend")) + " " +
                  unquote(j.at(std::to_string(i) + ".shape")));
  const std::set<std::string> want{"dct2 cpu-fftw 64x64", "dct2 cpu-fftw 32x48",  "lot cpu-lot 64x64",
                                   "lot cpu-lot 32x48",   "idct2 cpu-fftw 64x64", "idct2 cpu-fftw 32x48"};
  CHECK(seen == want);
  // A case auto cannot take is a note with each backend's reason; the others are timed.
  const RunResult none = run_dctool("bench --ops dct2,lot --sizes 64x60 --reps 1 --warmup 0 --format csv");
  INFO(none.out << none.err);
  CHECK(none.code == 0);
  CHECK(contains(none.out, "dct2,cpu-fftw"));
  CHECK(!contains(none.out, "lot,"));
  CHECK(contains(none.err, "skip auto: no backend supports lot"));
  CHECK(contains(none.err, "cpu-lot: "));
}

TEST_CASE("bench: bad --format is a usage error", "[app][bench][bad-input]") {
  const RunResult r = run_dctool("bench --ops dct2 --sizes 16x16 --backends cpu-fftw --format xml");
  check_one_line_error(r, 2, {"xml"});
}

TEST_CASE("bench: unknown ops and backends are usage errors naming what is accepted", "[app][bench][bad-input]") {
  const RunResult op = run_dctool("bench --ops bogus --sizes 8x8 --backends cpu-fftw");
  check_one_line_error(op, 2, {"bogus"});
  CHECK(contains(op.err, "r2r:KIND+KIND"));
  CHECK(contains(op.err, "dst4"));
  // r2r alone has no kinds: a usage error, not a skipped case.
  check_one_line_error(run_dctool("bench --ops r2r --sizes 8x8 --backends cpu-fftw"), 2, {"r2r"});
  const RunResult b = run_dctool("bench --ops dct2 --sizes 8x8 --backends nosuch");
  check_one_line_error(b, 2, {"nosuch", "--backends"});
  CHECK(contains(b.err, "cpu-fftw"));
}

TEST_CASE("bench: every requested case skipped is exit 4, even beside the plain-DCT baseline", "[app][bench]") {
  const RunResult r = run_dctool("bench --ops dct2 --sizes 8x8 --backends cpu-fftw --reps 2 --norm forward");
  INFO(r.out << r.err);
  CHECK(r.code == 4);
  CHECK(contains(r.err, "no requested backend can run any requested case"));
}

TEST_CASE("plan: every value is checked before anything is planned", "[app][bench][bad-input]") {
  const RunResult r = run_dctool("plan --sizes 8x8,5x6x7 --ops dct2");
  check_one_line_error(r, 2, {"5x6x7"});
  CHECK_FALSE(contains(r.err, "planned"));
}
