// AtomicFile, output-path safety, input file checks and dispatch by extension (core/formats).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/formats.hpp"
#include "support.hpp"

using namespace dct::core;
using dct::ErrorCode;
using dct::test::error_of;
using dct::test::TempDir;
using dct::test::io::slurp;
namespace fs = std::filesystem;

namespace {

int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("atomic file: a hidden temporary beside the target, renamed on commit", "[core][atomic]") {
  TempDir dir;
  const std::string p = dir.file("out.bin");
  const mode_t old_mask = umask(022);
  {
    AtomicFile f(p);
    CHECK(fs::path(f.temp_path()).parent_path() == dir.path());
    CHECK(fs::path(f.temp_path()).filename().string().rfind(".out.bin.tmp.", 0) == 0);
    CHECK(fs::exists(f.temp_path()));
    CHECK_FALSE(fs::exists(p));
    f.write("hello ", 6);
    std::fputs("world", f.file());
    f.commit();
    CHECK_FALSE(fs::exists(f.temp_path()));
  }
  umask(old_mask);
  CHECK(slurp(p) == "hello world");
  CHECK(entries(dir.path()) == 1);
  struct stat st {};
  REQUIRE(stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("atomic file: uncommitted writes leave neither a temporary nor a changed target", "[core][atomic]") {
  TempDir dir;
  const std::string p = dir.file("keep.txt");
  std::ofstream(p) << "original";
  std::string temp;
  {
    AtomicFile f(p);
    temp = f.temp_path();
    f.write("partial", 7);
  }
  CHECK_FALSE(fs::exists(temp));
  CHECK(slurp(p) == "original");
  CHECK(entries(dir.path()) == 1);

  // A refused write (two channels to text) keeps the old file.
  HostTensor t(Shape2{2, 2}, 2, Precision::kF32);
  CHECK_THROWS_AS(write_any(p, t, {}, nullptr), dct::Error);
  CHECK(slurp(p) == "original");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("atomic file: a missing directory is an input error naming the path", "[core][atomic]") {
  TempDir dir;
  const std::string p = dir.file("no/such/dir/out.npy");
  auto e = error_of([&] { AtomicFile f(p); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(e.subject() == p);
  CHECK(std::string(e.what()) == "output directory does not exist");
  HostTensor t(Shape2{2, 2}, 1, Precision::kF32);
  auto w = error_of([&] { write_any(p, t, {}, nullptr); });
  CHECK(w.code() == ErrorCode::kInput);
  CHECK(w.subject() == p);
  CHECK(error_of([&] { AtomicFile f(dir.path().string()); }).code() == ErrorCode::kInput);
}

TEST_CASE("check_output_path: refuses an output that is one of the inputs, however spelled", "[core][atomic]") {
  TempDir dir;
  const std::string in = dir.file("in.npy");
  std::ofstream(in) << "x";
  fs::create_directory(dir.path() / "sub");
  fs::create_symlink(in, dir.path() / "link.npy");
  fs::create_hard_link(in, dir.path() / "hard.npy");

  for (const std::string& out :
       {in, dir.file("sub/../in.npy"), dir.file("./in.npy"), dir.file("link.npy"), dir.file("hard.npy")}) {
    INFO(out);
    auto e = error_of([&] { check_output_path(out, {dir.file("other.npy"), in}); });
    CHECK(e.code() == ErrorCode::kInput);
    CHECK(e.subject() == out);
    CHECK(std::string(e.what()) == "output would overwrite input '" + in + "'");
  }
  // The input named through a relative path from the current directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  CHECK_THROWS_AS(check_output_path(in, {"in.npy"}), dct::Error);
  CHECK_NOTHROW(check_output_path("new.npy", {"in.npy"}));
  fs::current_path(cwd);

  CHECK_NOTHROW(check_output_path(dir.file("new.npy"), {in}));
  CHECK_NOTHROW(check_output_path(dir.file("sub/in.npy"), {in}));
  auto m = error_of([&] { check_output_path(dir.file("missing/out.npy"), {in}); });
  CHECK(m.code() == ErrorCode::kInput);
  CHECK(std::string(m.what()) == "output directory does not exist");
}

TEST_CASE("InputPaths: one resolution of many inputs serves every output's check", "[core][atomic]") {
  TempDir dir;
  std::vector<std::string> inputs;
  for (int i = 0; i < 50; ++i) {
    inputs.push_back(dir.file("in" + std::to_string(i) + ".jpg"));
    std::ofstream(inputs.back()) << i;
  }
  inputs.push_back(dir.file("not-yet.jpg"));  // an input that does not exist is still an input's name
  fs::create_directory(dir.path() / "out");
  fs::create_symlink(inputs[7], dir.path() / "out" / "link7.jpg");
  fs::create_hard_link(inputs[9], dir.path() / "out" / "hard9.jpg");
  const InputPaths paths(inputs);
  for (int i = 0; i < 50; ++i) CHECK_NOTHROW(paths.check_output(dir.file("out/in" + std::to_string(i) + ".jpg")));
  const std::pair<std::string, std::string> same[] = {{dir.file("out/../in3.jpg"), inputs[3]},
                                                      {dir.file("out/link7.jpg"), inputs[7]},
                                                      {dir.file("out/hard9.jpg"), inputs[9]},
                                                      {dir.file("./not-yet.jpg"), inputs[50]}};
  for (const auto& pair : same) {
    const std::string &out = pair.first, &in = pair.second;  // not a structured binding: the lambda below uses them
    INFO(out);
    auto e = error_of([&] { paths.check_output(out); });
    CHECK(e.code() == ErrorCode::kInput);
    CHECK(e.subject() == out);
    CHECK(std::string(e.what()) == "output would overwrite input '" + in + "'");
  }
  CHECK(error_of([&] { paths.check_output(dir.file("missing/x.jpg")); }).code() == ErrorCode::kInput);
  CHECK_NOTHROW(InputPaths({}).check_output(dir.file("out/x.jpg")));
}

TEST_CASE("read_any/write_any: dispatch by lowercase extension, unknown types are usage errors", "[core][formats]") {
  TempDir dir;
  auto e = error_of([&] { read_any(dir.file("m.xyz"), {}, nullptr); });
  CHECK(e.code() == ErrorCode::kUsage);
  CHECK(e.subject() == dir.file("m.xyz"));
  CHECK(std::string(e.what()) == "unknown file type '.xyz' (expected .npy .txt .csv .raw .f32 .f64 or an image)");
  CHECK(error_of([&] { read_any(dir.file("noext"), {}, nullptr); }).code() == ErrorCode::kUsage);

  HostTensor t(Shape2{2, 2}, 1, Precision::kF32);
  CHECK(error_of([&] { write_any(dir.file("m.XYZ"), t, {}, nullptr); }).code() == ErrorCode::kUsage);
  CHECK(error_of([&] { write_any(dir.file("m.png"), t, {}, nullptr); }).code() == ErrorCode::kUnsupported);
  CHECK(entries(dir.path()) == 0);

  std::int64_t clamped = -1;
  t.set(0, 1000.0);
  write_any(dir.file("M.TXT"), t, {}, nullptr, &clamped);
  CHECK(clamped == 0);
  CHECK(read_any(dir.file("M.TXT"), {}, nullptr).tensor.get(0) == 1000.0);

  CHECK(lower_extension("a/b.JPeG") == ".jpeg");
  CHECK(lower_extension("a.b/c") == "");
  CHECK(lower_extension("x.tar.GZ") == ".gz");
  for (const char* p : {"a.png", "a.JPG", "a.jpeg", "a.bmp", "a.tga", "a.pgm", "a.PPM"}) CHECK(is_image_path(p));
  for (const char* p : {"a.npy", "a.gif", "png", "a.txt"}) CHECK_FALSE(is_image_path(p));
}

TEST_CASE("inputs: missing, empty and directory inputs are input errors naming the file", "[core][formats]") {
  TempDir dir;
  for (const char* name : {"a.npy", "a.txt", "a.png"}) {
    INFO(name);
    auto e = error_of([&] { read_any(dir.file(name), {}, nullptr); });
    CHECK(e.code() == ErrorCode::kInput);
    CHECK(e.subject() == dir.file(name));
    CHECK(std::string(e.what()) == "no such file");
  }
  std::ofstream(dir.file("e.npy")).close();
  auto e = error_of([&] { read_any(dir.file("e.npy"), {}, nullptr); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(std::string(e.what()) == "empty file");
  fs::create_directory(dir.path() / "d.npy");
  CHECK(std::string(error_of([&] { read_any(dir.file("d.npy"), {}, nullptr); }).what()) == "is a directory");
}

TEST_CASE("require_finite: names the first non-finite value's position", "[core][formats]") {
  HostTensor t(Shape2{3, 4}, 1, Precision::kF32);
  CHECK_NOTHROW(require_finite(t, "f"));
  t.set(2 * 4 + 3, INFINITY);
  auto e = error_of([&] { require_finite(t, "f.npy"); });
  CHECK(e.code() == ErrorCode::kInput);
  CHECK(e.subject() == "f.npy");
  CHECK_THAT(e.what(), Catch::StartsWith("Inf at row 3, column 4"));
  t.set(1, std::nan(""));
  CHECK_THAT(error_of([&] { require_finite(t, "f.npy"); }).what(), Catch::StartsWith("NaN at row 1, column 2"));
}

TEST_CASE("remove_temporaries_of removes only the AtomicFile temporaries of the outputs named", "[core][atomic]") {
  TempDir dir;
  const fs::path d = dir.path();
  const std::string a = (d / "a.png").string();
  for (const char* name : {".a.png.tmp.Q1w2e3", "a.png", ".a.png.tmp.short", ".a.png.tmp.toolong1", ".b.png.tmp.Q1w2e3",
                           ".a.png.tmp.Q1-2e3", "x.a.png.tmp.Q1w2e3"})
    std::ofstream(d / name) << "x";
  {
    AtomicFile live(a);  // the temporary as AtomicFile names it (as a process that died leaves it)
    const std::string t = live.temp_path();
    CHECK(remove_temporaries_of({a, (d / "missing" / "c.png").string()}) == 2);
    CHECK_FALSE(fs::exists(t));
  }
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(d)) left.insert(e.path().filename().string());
  CHECK(left == std::set<std::string>{"a.png", ".a.png.tmp.short", ".a.png.tmp.toolong1", ".b.png.tmp.Q1w2e3",
                                      ".a.png.tmp.Q1-2e3", "x.a.png.tmp.Q1w2e3"});
}
