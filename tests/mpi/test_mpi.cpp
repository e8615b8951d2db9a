// compress under mpirun (README "compress on a cluster"): three processes give the outputs of one, byte for byte, and
// the same report entries (but timing_ms), rank 0 alone prints; a broken input is one error line and exit 3; a rank
// killed mid-batch leaves no temporary and no partial output, and rank 0 names the inputs not done.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "app/app_support.hpp"

extern char** environ;

namespace {

using namespace dct::test;
using namespace dct::test::cli;

// mpirun refuses to start as root without these (CI runs as root).
const char* const kAllowRoot = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";

std::string mpirun(int np) {
  return std::string(kAllowRoot) + " " + q(DCTOOL_MPIEXEC) + " --oversubscribe -np " + std::to_string(np) + " " +
         q(DCTOOL_BINARY);
}

// Ten generated images beside the two of data/: gray, gray+alpha, RGB and RGBA, odd sizes, smooth and noisy.
std::vector<std::string> sample_images(const TempDir& dir) {
  const std::string in = dir.file("in");
  fs::create_directories(in);
  const std::string gen = dir.file("gen.py");
  spit(gen, R"PY(
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from dctest import write_png
rng = np.random.default_rng(7)
for n, (h, w, c, depth) in enumerate([(64, 64, 1, 8), (37, 91, 3, 8), (120, 80, 3, 8), (17, 17, 1, 8),
                                      (96, 128, 4, 8), (50, 70, 1, 8), (200, 8, 3, 8), (1, 33, 1, 8),
                                      (77, 77, 3, 8), (128, 96, 2, 8)]):
    y, x = np.mgrid[0:h, 0:w]
    top = 65535 if depth == 16 else 255
    base = (np.sin(x / 7.0 + n) * np.cos(y / 5.0) + 1) * 0.4 * top
    img = np.stack([base + rng.uniform(0, 0.2 * top, (h, w)) for _ in range(c)], axis=-1)
    img = np.clip(img, 0, top).astype(np.uint16 if depth == 16 else np.uint8)
    write_png("%s/gen%02d.png" % (sys.argv[2], n), img[:, :, 0] if c == 1 else img, depth)
)PY");
  dctest_py(dir);  // writes dctest.py beside gen.py
  const RunResult r = run_cmd(q(python()) + " " + q(gen) + " " + q(dir.path().string()) + " " + q(in));
  INFO(r.err);
  REQUIRE(r.code == 0);
  fs::copy_file(source_dir() + "/data/astronaut.png", in + "/astronaut.png");
  fs::copy_file(source_dir() + "/data/camera.png", in + "/camera.png");
  std::vector<std::string> files;
  for (const auto& f : list_dir(in)) files.push_back(in + "/" + f);
  REQUIRE(files.size() == 12);
  return files;
}

std::string words(const std::vector<std::string>& files) {
  std::string s;
  for (const auto& f : files) s += " " + q(f);
  return s;
}

// Both reports hold the same entries, in the same order, but for timing_ms and the output directory's name.
void check_same_reports(const TempDir& dir, const std::string& one, const std::string& many, const std::string& one_dir,
                        const std::string& many_dir) {
  const std::string cmp = dir.file("cmp.py");
  spit(cmp, R"PY(
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert len(a) == len(b), (len(a), len(b))
for x, y in zip(a, b):
    x.pop("timing_ms"); y.pop("timing_ms")
    y["output"] = y["output"].replace(sys.argv[4], sys.argv[3], 1)
    assert x == y, (x, y)
print(len(a))
)PY");
  const RunResult r =
      run_cmd(q(python()) + " " + q(cmp) + " " + q(one) + " " + q(many) + " " + q(one_dir) + " " + q(many_dir));
  INFO(r.out << r.err);
  CHECK(r.code == 0);
}

std::vector<std::string> dctool_lines(const std::string& err) {
  std::vector<std::string> out;
  for (const auto& line : split_lines(err))
    if (line.rfind("dctool:", 0) == 0) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("mpirun -np 3 compress: the outputs and report entries of one process, printed by rank 0 alone", "[mpi]") {
  TempDir dir;
  const std::vector<std::string> files = sample_images(dir);
  for (const std::string opts : {" --report ", " --format png --mode lot --quality 40,90 --report "}) {
    INFO("options" << opts);
    const std::string one = dir.file("one"), many = dir.file("many");
    fs::remove_all(one);
    fs::remove_all(many);
    const RunResult r1 =
        run_dctool("compress" + words(files) + " -o " + q(one) + opts + q(dir.file("one.json")) + " --json");
    INFO(r1.err);
    REQUIRE(r1.code == 0);
    const RunResult r3 = run_cmd(mpirun(3) + " compress" + words(files) + " -o " + q(many) + opts +
                                 q(dir.file("many.json")) + " --json");
    INFO(r3.err);
    REQUIRE(r3.code == 0);
    const auto names = list_dir(one);
    CHECK(names.size() == (contains(opts, "40,90") ? 24u : 12u));
    CHECK(list_dir(many) == names);
    for (const auto& n : names) {
      INFO(n);
      CHECK(slurp(many + "/" + n) == slurp(one + "/" + n));
    }
    check_same_reports(dir, dir.file("one.json"), dir.file("many.json"), one, many);
    // --json on stdout once; on stderr, the notes of one process (the .jpg of an RGBA input has no alpha) and the
    // summary once, with the number of processes.
    const FlatJson j = parse_json_text(dir, r3.out);
    CHECK(j.type == "list");
    CHECK(j.size == names.size());
    const auto lines = dctool_lines(r3.err), lines1 = dctool_lines(r1.err);
    REQUIRE(lines.size() == lines1.size());
    std::multiset<std::string> notes, notes1;
    for (std::size_t k = 0; k + 1 < lines.size(); ++k) {
      notes.insert(lines[k]);
      std::string n = lines1[k];
      n.replace(n.find(one), one.size(), many);
      notes1.insert(n);
    }
    CHECK(notes == notes1);
    CHECK(contains(lines.back(), " of " + std::to_string(names.size()) + " "));
    CHECK(contains(lines.back(), "0 failed)"));
    CHECK(contains(lines.back(), " on 3 processes"));
  }
}

TEST_CASE("mpirun -np 3 compress with a broken input: its error line once, the others written, exit 3", "[mpi]") {
  TempDir dir;
  std::vector<std::string> files = sample_images(dir);
  const std::string broken = dir.file("in/broken.png");
  spit(broken, slurp(files[0]).substr(0, 60));
  files.insert(files.begin() + 5, broken);
  const std::string out = dir.file("out");
  const RunResult r =
      run_cmd(mpirun(3) + " compress" + words(files) + " -o " + q(out) + " --report " + q(dir.file("report.json")));
  INFO(r.err);
  CHECK(r.code == 3);
  std::vector<std::string> errors;
  for (const auto& l : dctool_lines(r.err))
    if (l.rfind("dctool: error: ", 0) == 0) errors.push_back(l);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("dctool: error: " + broken + ": ", 0) == 0);
  REQUIRE(!dctool_lines(r.err).empty());
  CHECK(contains(dctool_lines(r.err).back(), "compressed 12 of 13 images (1 failed)"));
  CHECK(list_dir(out).size() == 12);
  CHECK_FALSE(exists(out + "/broken.jpg"));
  const FlatJson rep = parse_json_text(dir, slurp(dir.file("report.json")));
  CHECK(rep.size == 13);
  CHECK(unquote(rep.at("5.input")) == broken);
  CHECK(rep.has("5.error"));
}

namespace {

// The processes whose parent is `parent` (from /proc).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> kids;
  DIR* proc = opendir("/proc");
  REQUIRE(proc != nullptr);
  while (const dirent* e = readdir(proc)) {
    const std::string f = e->d_name;
    if (f.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat("/proc/" + f + "/stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos) continue;
    std::stringstream ss(line.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    ss >> state >> ppid;
    if (ppid == parent) kids.push_back(static_cast<pid_t>(std::stol(f)));
  }
  closedir(proc);
  return kids;
}

std::string environment_of(pid_t pid, const std::string& name) {
  const std::string env = slurp("/proc/" + std::to_string(pid) + "/environ");
  for (const auto& v : split(env, '\0'))
    if (v.rfind(name + "=", 0) == 0) return v.substr(name.size() + 1);
  return "";
}

// A temporary output `pid` has open under `dir` ("" if none).
std::string open_temporary(pid_t pid, const std::string& dir) {
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = opendir(fds.c_str());
  if (d == nullptr) return "";
  std::string found;
  while (const dirent* e = readdir(d)) {
    char target[4096];
    const ssize_t n = readlink((fds + "/" + e->d_name).c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    const std::string t(target, static_cast<std::size_t>(n));
    if (t.rfind(dir + "/", 0) == 0 && contains(t, ".tmp.")) found = t;
  }
  closedir(d);
  return found;
}

}  // namespace

namespace {

struct KilledRun {
  std::string err;          // the job's stderr
  int status = 0;           // mpirun's wait status
  bool ended = false;       // mpirun ended by itself within 50 s
  bool killed = false;      // rank 1 was killed
  std::string victim_temp;  // the temporary rank 1 had open when killed ("" if none)
};

// Runs `args` (an mpirun command line) and kills rank 1's dctool, a child of mpirun, while it writes an output
// once a few are done in `out` (or after eight seconds).
KilledRun kill_rank1_mid_batch(std::vector<std::string> args, const std::string& out, const std::string& err_file) {
  std::vector<std::string> env = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t mpirun_pid = 0;
  const int rc = posix_spawn(&mpirun_pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  KilledRun r;
  pid_t victim = 0;
  while (!r.ended && Clock::now() - t0 < std::chrono::seconds(50)) {
    if (waitpid(mpirun_pid, &r.status, WNOHANG) == mpirun_pid) {
      r.ended = true;
      break;
    }
    if (victim == 0) {
      for (pid_t kid : children_of(mpirun_pid))
        if (environment_of(kid, "OMPI_COMM_WORLD_RANK") == "1") victim = kid;
    } else if (!r.killed && (list_dir(out).size() > 8 || Clock::now() - t0 > std::chrono::seconds(8))) {
      r.victim_temp = open_temporary(victim, out);
      if (!r.victim_temp.empty() || Clock::now() - t0 > std::chrono::seconds(8)) {
        kill(victim, SIGKILL);
        r.killed = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  if (!r.ended) {
    kill(mpirun_pid, SIGKILL);
    waitpid(mpirun_pid, &r.status, 0);
  }
  r.err = slurp(err_file);
  return r;
}

}  // namespace

TEST_CASE("mpirun -np 3 compress, a rank killed mid-batch: rank 0 names what is not done, no temporary is left",
          "[mpi]") {
  TempDir dir;
  const std::string in = dir.file("in"), out = dir.file("out"), ref = dir.file("ref.png");
  fs::create_directories(in);
  constexpr int kImages = 120;  // about three seconds on two cores
  const std::vector<std::string> opts = {"--mode", "threshold", "--threshold", "5", "--format", "png"};
  // Every input is the same image, so every whole output equals this one.
  REQUIRE(run_dctool("-q compress " + q(source_dir() + "/data/astronaut.png") + " -o " + q(ref) +
                     " --mode threshold --threshold 5")
              .code == 0);
  const std::string reference = slurp(ref);
  std::vector<std::string> args = {DCTOOL_MPIEXEC, "--oversubscribe", "-np", "3", DCTOOL_BINARY, "compress"};
  for (int i = 0; i < kImages; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "/img%03d.png", i);
    fs::copy_file(source_dir() + "/data/astronaut.png", in + name);
    args.push_back(in + name);
  }
  args.push_back("-o");
  args.push_back(out);
  args.insert(args.end(), opts.begin(), opts.end());

  // Open MPI 4.1's mpirun, once a rank dies, sends the others SIGTERM and a second later SIGKILL, and exits without
  // always forwarding what they wrote to stderr in between: on a loaded host rank 0's line can be lost on the way
  // although rank 0 wrote it. Such a run is repeated (up to three in all); the files are checked after every run.
  std::string line;
  for (int attempt = 1; attempt <= 3 && line.empty(); ++attempt) {
    fs::remove_all(out);
    const KilledRun r = kill_rank1_mid_batch(args, out, dir.file("stderr"));
    INFO("run " << attempt << ", stderr: " << r.err);
    REQUIRE(r.ended);
    CHECK(r.killed);
    CHECK(!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0));

    // Nothing partial in DIR: no temporary (the dead rank's included), every output whole.
    INFO("killed rank 1 while it had " << (r.victim_temp.empty() ? "no temporary" : r.victim_temp) << " open");
    if (!r.victim_temp.empty()) CHECK_FALSE(exists(r.victim_temp));
    const auto written = list_dir(out);
    for (const auto& f : written) {
      INFO(f);
      CHECK(f.find(".tmp.") == std::string::npos);
      CHECK(slurp(out + "/" + f) == reference);
    }
    const std::size_t whole = written.size();
    CHECK(whole < static_cast<std::size_t>(kImages));

    // Rank 0's line: the outputs finished and the inputs not done (the first ten named, then how many more); every
    // input without its output is among those not done.
    for (const auto& l : dctool_lines(r.err))
      if (l.rfind("dctool: interrupted by SIGTERM: ", 0) == 0) line = l;
    if (line.empty()) {
      // Only the launcher's own report of the dead rank may stand in its place.
      REQUIRE(contains(r.err, "exited on signal 9"));
      WARN("run " << attempt << ": rank 0's interrupt line did not reach mpirun's stderr; stderr: " << r.err);
      continue;
    }
    INFO(line);
    const std::size_t nd = line.find("; not done: ");
    REQUIRE(nd != std::string::npos);
    std::string listed = line.substr(nd + 12);
    std::size_t more = 0;
    if (const std::size_t a = listed.find(" and "); a != std::string::npos) {
      more = std::stoul(listed.substr(a + 5));
      listed = listed.substr(0, a);
    }
    const std::vector<std::string> names = split(listed, ',');
    CHECK(!names.empty());
    for (const auto& n : names) {
      const std::string name = n.substr(n.find_first_not_of(' '));
      INFO(name);
      CHECK(name.rfind(in + "/img", 0) == 0);
    }
    CHECK(names.size() + more >= kImages - whole);
  }
  CHECK(!line.empty());
}

TEST_CASE("mpirun -np 3 dct2, idct2 and r2r batches: the bytes and report entries of one process, a broken input alone",
          "[mpi]") {
  TempDir dir;
  const std::string in = dir.file("m");
  fs::create_directories(in);
  const RunResult made = run_cmd(q(python()) + " -c " +
                                 q("import numpy as np\n"
                                   "for i in range(9):\n"
                                   "    np.save('" + in + "/m%d.npy' % i, np.random.default_rng(i).random((17 + i, 9 + 2 * i)))\n"));
  REQUIRE(made.code == 0);
  std::vector<std::string> files;
  for (int i = 0; i < 9; ++i) files.push_back(in + "/m" + std::to_string(i) + ".npy");
  for (const std::string cmd : {"dct2", "idct2 --norm ortho", "r2r --kinds dct3,dst2"}) {
    INFO(cmd);
    const std::string one = dir.file("one"), many = dir.file("many");
    fs::remove_all(one);
    fs::remove_all(many);
    const RunResult r1 = run_dctool(cmd + words(files) + " -o " + q(one) + " --report " + q(dir.file("one.json")));
    INFO(r1.err);
    REQUIRE(r1.code == 0);
    const RunResult r3 =
        run_cmd(mpirun(3) + " " + cmd + words(files) + " -o " + q(many) + " --report " + q(dir.file("many.json")));
    INFO(r3.err);
    REQUIRE(r3.code == 0);
    const auto names = list_dir(one);
    CHECK(names.size() == files.size());
    CHECK(list_dir(many) == names);
    for (const auto& n : names) CHECK(slurp(many + "/" + n) == slurp(one + "/" + n));
    check_same_reports(dir, dir.file("one.json"), dir.file("many.json"), one, many);
    const auto lines = dctool_lines(r3.err);
    REQUIRE(lines.size() == 1);
    CHECK(contains(lines.back(), "transformed 9 of 9 inputs (0 failed)"));
    CHECK(contains(lines.back(), " on 3 processes"));
  }
  // A truncated input among them: its one line (from rank 0), the others written, exit 3.
  const std::string bad = in + "/bad.npy";
  spit(bad, slurp(files[0]).substr(0, 100));
  std::vector<std::string> with_bad = files;
  with_bad.insert(with_bad.begin() + 4, bad);
  const std::string out = dir.file("bad-out");
  const RunResult r = run_cmd(mpirun(3) + " dct2" + words(with_bad) + " -o " + q(out));
  INFO(r.err);
  CHECK(r.code == 3);
  const auto lines = dctool_lines(r.err);
  REQUIRE(lines.size() == 2);
  CHECK(contains(lines[0], "dctool: error: " + bad + ": "));
  CHECK(list_dir(out).size() == files.size());
}
