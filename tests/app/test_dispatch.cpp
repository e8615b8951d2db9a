// app/dispatch.hpp short of MPI: which launcher environments make a batch distributed (and which leave MPI alone),
// the ranks before any start, and the payload fields an entry travels in.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "app/dispatch.hpp"
#include "core/error.hpp"

namespace {

using namespace dct::app::dispatch;

// Sets the launcher variables for one scope (unset when not given), restoring them after.
class LauncherEnv {
 public:
  explicit LauncherEnv(const std::map<std::string, std::string>& vars) {
    for (const char* name :
         {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "SLURM_NTASKS"}) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      const auto v = vars.find(name);
      if (v != vars.end())
        setenv(name, v->second.c_str(), 1);
      else
        unsetenv(name);
    }
  }
  ~LauncherEnv() {
    for (const auto& [name, v] : saved_)
      if (v)
        setenv(name.c_str(), v->c_str(), 1);
      else
        unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

}  // namespace

TEST_CASE("dispatch: the launcher's environment decides whether a batch is spread", "[app][dispatch]") {
  {
    LauncherEnv e({});
    CHECK(launcher_size() == 0);
    CHECK(launcher_rank() == 0);
    CHECK_FALSE(launched_distributed());
    CHECK(Dispatcher::start(10) == nullptr);  // no MPI call: a plain dctool
  }
  {
    LauncherEnv e({{"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_RANK", "0"}, {"PMIX_RANK", "0"}});
    CHECK(launcher_size() == 1);
    CHECK_FALSE(launched_distributed());  // mpirun -np 1: as plain
    CHECK(Dispatcher::start(10) == nullptr);
  }
  {
    LauncherEnv e({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "2"}, {"PMIX_RANK", "2"}});
    CHECK(launcher_size() == 4);
    CHECK(launcher_rank() == 2);
    CHECK(launched_distributed());
  }
  {
    LauncherEnv e({{"PMI_SIZE", "8"}, {"PMI_RANK", "5"}});
    CHECK(launcher_size() == 8);
    CHECK(launcher_rank() == 5);
    CHECK(launched_distributed());
  }
  {
    LauncherEnv e({{"PMIX_RANK", "3"}, {"SLURM_NTASKS", "6"}});
    CHECK(launcher_size() == 6);
    CHECK(launcher_rank() == 3);
  }
  {
    LauncherEnv e(std::map<std::string, std::string>{{"PMIX_RANK", "0"}});
    CHECK(launcher_size() == -1);  // MPI tells
    CHECK(launched_distributed());
  }
  {
    LauncherEnv e({{"OMPI_COMM_WORLD_SIZE", "three"}, {"PMI_SIZE", ""}});
    CHECK(launcher_size() == 0);
  }
  // No dispatcher started: this process alone.
  CHECK(rank() == 0);
  CHECK(size() == 1);
  CHECK(root());
  CHECK(local_rank() == 0);
  CHECK(local_size() == 1);
}

TEST_CASE("dispatch: payload fields come back as written, bit for bit, and a short payload is an error",
          "[app][dispatch]") {
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::string text("a\0b\xff", 4);
  const std::string p = PayloadWriter()
                            .i64(-3)
                            .f64(0.1)
                            .f64(std::numeric_limits<double>::infinity())
                            .f64(tiny)
                            .str(text)
                            .str("")
                            .i64(std::numeric_limits<std::int64_t>::max())
                            .take();
  PayloadReader r(p);
  CHECK(r.i64() == -3);
  CHECK(r.f64() == 0.1);
  CHECK(std::isinf(r.f64()));
  CHECK(r.f64() == tiny);
  CHECK(r.str() == text);
  CHECK(r.str().empty());
  CHECK(r.i64() == std::numeric_limits<std::int64_t>::max());
  CHECK_THROWS_AS(r.i64(), dct::Error);
  const std::string head = p.substr(0, 42);  // the string's length whole, two of its four bytes
  PayloadReader cut(head);                   // (a reader views its bytes: they must outlive it)
  for (int k = 0; k < 4; ++k) cut.i64();
  CHECK_THROWS_AS(cut.str(), dct::Error);
}
