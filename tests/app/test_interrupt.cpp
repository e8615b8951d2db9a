// SIGINT/SIGTERM during a batch (README "Exit codes"; compress and the transform commands): every temporary removed, exit 128 + signal, one line
// saying how many outputs were finished; finished outputs stay whole. A signal the process was started with
// ignored (a shell's background job, nohup) stays ignored.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "app_support.hpp"

extern char** environ;

namespace {

using namespace dct::test;
using namespace dct::test::cli;

struct Batch {
  TempDir dir;
  std::string out;
  std::vector<std::string> args;
  explicit Batch(int images)
      : Batch(images, "compress", source_dir() + "/data/astronaut.png", {"--mode", "threshold", "--threshold", "5"}) {}
  // `inputs` copies of `source` (in/img<i> with its extension) through `command` into out/, on 2 jobs.
  Batch(int inputs, const std::string& command, const std::string& source, const std::vector<std::string>& options) {
    out = dir.file("out");
    fs::create_directories(dir.file("in"));
    args = {DCTOOL_BINARY, command};
    for (int i = 0; i < inputs; ++i) {
      const std::string f = dir.file("in/img" + std::to_string(i) + fs::path(source).extension().string());
      fs::copy_file(source, f);
      args.push_back(f);
    }
    for (const std::string& a : {std::string("-o"), out}) args.push_back(a);
    args.insert(args.end(), options.begin(), options.end());
    for (const char* a : {"--jobs", "2"}) args.push_back(a);
    fs::create_directories(out);
  }

  // Starts the batch with `sig` at its default disposition (or ignored), sends `sig` once the first output
  // is committed, and returns the wait status; stderr goes to dir/stderr.
  int interrupt(int sig, bool start_ignored) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    const std::string err = dir.file("stderr");
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    posix_spawnattr_setsigdefault(&at, &set);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (start_ignored) signal(sig, SIG_IGN);  // inherited through exec; restored below
    const int rc = posix_spawn(&pid, argv[0], &fa, start_ignored ? nullptr : &at, argv.data(), environ);
    if (start_ignored) signal(sig, SIG_DFL);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    REQUIRE(rc == 0);
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    bool sent = false;
    while (true) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (!sent) {
        bool any = false;
        for (const auto& f : list_dir(out))
          if (f.find(".tmp.") == std::string::npos) any = true;
        if (any || std::chrono::steady_clock::now() - t0 > std::chrono::seconds(60)) {
          kill(pid, sig);
          sent = true;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return status;
  }
};

}  // namespace

TEST_CASE("SIGINT and SIGTERM during a batch: no temporary left, exit 130/143, one summary line", "[compress]") {
  for (int sig : {SIGINT, SIGTERM}) {
    Batch b(40);
    const int status = b.interrupt(sig, false);
    const std::string err = slurp(b.dir.file("stderr"));
    INFO("signal " << sig << ", stderr: " << err);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + sig);
    const auto files = list_dir(b.out);
    for (const auto& f : files) CHECK(f.find(".tmp.") == std::string::npos);
    CHECK(files.size() >= 1);
    CHECK(files.size() < 40);
    CHECK(contains(err, sig == SIGINT ? "dctool: interrupted by SIGINT: " : "dctool: interrupted by SIGTERM: "));
    CHECK(contains(err, "unfinished removed"));
    // Every output that is there is whole: psnr reads it.
    for (const auto& f : files)
      CHECK(run_dctool("psnr " + q(b.dir.file("in/img0.png")) + " " + q(b.out + "/" + f)).code == 0);
  }
}

TEST_CASE("a signal the batch was started with ignored stays ignored", "[compress]") {
  Batch b(3);
  const int status = b.interrupt(SIGINT, true);
  INFO("stderr: " << slurp(b.dir.file("stderr")));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(list_dir(b.out).size() == 3);
}

TEST_CASE("SIGINT during a transform batch: no temporary left, exit 130, finished outputs whole", "[app][batch]") {
  Batch b(40, "dct2", source_dir() + "/data/astronaut.png", {"--report", ""});
  const std::string rep = b.dir.file("r.json");
  b.args[b.args.size() - 3] = rep;
  const int status = b.interrupt(SIGINT, false);
  const std::string err = slurp(b.dir.file("stderr"));
  INFO("stderr: " << err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(contains(err, "dctool: interrupted by SIGINT: "));
  CHECK_FALSE(exists(rep));  // its temporary is gone too
  for (const auto& f : list_dir(b.dir.path().string())) CHECK(f.find(".tmp.") == std::string::npos);
  const auto files = list_dir(b.out);
  CHECK(files.size() >= 1);
  CHECK(files.size() < 40);
  const std::string alone = b.dir.file("alone.npy");
  REQUIRE(run_dctool("-q dct2 " + q(b.dir.file("in/img0.png")) + " -o " + q(alone)).code == 0);
  for (const auto& f : files) CHECK(slurp(b.out + "/" + f) == slurp(alone));
}
