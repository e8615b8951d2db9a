// A transform over several GPUs of one process (app::make_device_group, kernels/dist/group.cu) against cpu-fftw's
// plan of the whole array in f64: 2-D and 3-D arrays, odd extents not divisible by the parts, mixed kinds, axis 0
// alone, axis 0 untransformed, more parts than columns; 1 to 3 parts on device 0 (a device may take several parts,
// so one GPU runs every exchange pattern) and on every visible device. Output buffers poisoned (NaN); the transform
// run twice, so a second run on the same plans gives the same bytes, and a third in place (input and output one array).
// Label gpu: needs a GPU.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "app/registry.hpp"
#include "core/backend.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Norm;
using core::Precision;
using core::R2rKind;

core::R2rSpec spec(std::vector<std::int64_t> dims, std::vector<R2rKind> kinds, bool inverse) {
  core::R2rSpec s;
  s.rank = static_cast<int>(dims.size());
  for (int a = 0; a < s.rank; ++a) s.dims[a] = dims[a], s.kinds[a] = kinds[a];
  s.inverse = inverse;
  return s;
}

void check(const core::R2rSpec& s, Norm norm, Precision prec, const std::vector<int>& devices, std::uint64_t seed) {
  const core::TransformDesc d = core::r2r_desc(s, norm, 1, prec);
  std::vector<std::string> names;
  const auto group = app::make_device_group(d, devices, "auto", names);
  REQUIRE(group->devices() == static_cast<int>(devices.size()));
  const core::HostTensor in = test::random_tensor(d.shape, 1, prec, seed);
  core::HostTensor got(d.shape, 1, prec), again(d.shape, 1, prec);
  std::memset(got.raw(), 0xFF, got.bytes());
  const core::dist::GroupTimes t = group->execute_timed(in.raw(), got.raw());
  group->execute(in.view(), again.view());
  core::HostTensor inplace(d.shape, 1, prec);  // the input's memory taking the result (dctool --devices does)
  std::memcpy(inplace.raw(), in.raw(), in.bytes());
  group->execute_timed(inplace.raw(), inplace.raw());
  core::TransformDesc d64 = d;
  d64.prec = Precision::kF64;
  const core::HostTensor want = test::run_backend(test::backend("cpu-fftw"), d64, in.to(Precision::kF64));
  const double err = test::rel_l2_finite(got.to(Precision::kF64), want);
  INFO(d.to_string() << " kinds " << s.kinds_text() << (s.inverse ? " inverse" : "") << " on " << devices.size()
                     << " parts: rel L2 " << err);
  CHECK(err <= test::tol(prec));
  CHECK(std::memcmp(got.raw(), again.raw(), got.bytes()) == 0);
  CHECK(std::memcmp(got.raw(), inplace.raw(), got.bytes()) == 0);
  CHECK(t.total_ms > 0);
  // What crosses: every part's block for every other part (a part's own block stays).
  if (devices.size() > 1 && s.kinds[0] != R2rKind::kNone && s.dims[1] >= static_cast<std::int64_t>(devices.size()))
    CHECK(t.bytes_sent > 0);
}

}  // namespace

TEST_CASE("a transform over several GPUs equals cpu-fftw's whole-array plan", "[gpu][group]") {
  const int visible = app::visible_devices();
  REQUIRE(visible > 0);
  std::vector<std::vector<int>> device_sets = {{0}, {0, 0}, {0, 0, 0}};
  if (visible > 1) {
    std::vector<int> all;
    for (int k = 0; k < visible; ++k) all.push_back(k);
    device_sets.push_back(all);
  }
  const R2rKind c2 = R2rKind::kDct2, c4 = R2rKind::kDct4, s3 = R2rKind::kDst3, c1 = R2rKind::kDct1,
                none = R2rKind::kNone;
  struct Case {
    std::vector<std::int64_t> dims;
    std::vector<R2rKind> kinds;
  };
  const std::vector<Case> cases =
      {
          {{37, 50, 23}, {c2, c2, c2}}, {{64, 48, 40}, {c2, s3, c4}}, {{33, 20, 2}, {c1, none, c2}},
          {{45, 61}, {c2, c2}},         {{128, 96}, {c4, none}},      {{30, 17, 9}, {none, c2, c2}},
          {{5, 2, 7}, {c2, c2, c2}},  // more parts than columns of axis 1
      };
  std::uint64_t seed = 3000;
  for (const auto& devices : device_sets)
    for (const Case& c : cases)
      for (Precision prec : {Precision::kF32, Precision::kF64}) {
        const bool inverse = seed % 2 == 1;
        check(spec(c.dims, c.kinds, inverse), static_cast<Norm>(seed % 3), prec, devices, seed);
        ++seed;
      }
}

TEST_CASE("a transform over GPUs refuses more parts than rows of axis 0", "[gpu][group]") {
  std::vector<std::string> names;
  const core::TransformDesc d =
      core::r2r_desc(spec({2, 8}, {R2rKind::kDct2, R2rKind::kDct2}, false), Norm::kNone, 1, Precision::kF32);
  try {
    (void)app::make_device_group(d, {0, 0, 0}, "auto", names);
    FAIL("three parts of two rows were accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(e.message().find("at most 2 GPUs") != std::string::npos);
  }
}
