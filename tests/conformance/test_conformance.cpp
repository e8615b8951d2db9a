// One test body over every registered backend: each backend the registry lists (app/registry.cpp, with the CUDA rows
// of kernels/backends.hpp) runs every op it lists, in f32 and f64, on every shape class below, with every axis, norm
// and block size, and whatever it supports must match the f64 oracle (cpu-naive's direct definitions, or the LOT's
// matrix definition) to the tolerance (1e-5 f32, 1e-12 f64, relative L2), and give the same bytes when streamed
// (Plan::execute_streamed). What a backend does not support is counted
// and printed, never passed silently; a backend that supports none of the cases fails. A backend added to the table
// is tested here with no other edit. CUDA backends run in the [gpu] case (ctest label gpu), the others in the
// [conformance] case.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "app/registry.hpp"
#include "support.hpp"

namespace {

using namespace dct;
using core::Axis;
using core::Norm;
using core::Op;
using core::Precision;
using core::Shape2;

// The shape classes: degenerate (1 x 1, one row, one column), odd and prime sizes, powers of two (the GPU row and
// column kernels), 8x8 multiples (block mode, the LOT), N = 17 rows (the sectioned DCT-IV), batch 1 and 2.
struct Case {
  Shape2 shape;
  std::int64_t batch;
};
const std::vector<Case> kWholeCases = {{{1, 1}, 1},   {{1, 7}, 2},   {{7, 1}, 1},    {{5, 3}, 2},   {{17, 31}, 1},
                                       {{64, 48}, 2}, {{8, 16}, 1},  {{5, 1024}, 1}, {{256, 1}, 1}, {{3, 17}, 2},
                                       {{16, 24}, 1}, {{40, 64}, 2}, {{2048, 2}, 1}};
const std::vector<Case> kLotCases = {{{8, 8}, 1}, {{16, 24}, 2}, {{40, 32}, 1}, {{24, 16}, 1}};

// The real-to-real family (op r2r): every kind, forward and inverse, every norm, on arrays of rank 1 to 3 with odd,
// prime and 1-point extents, along every axis, single axes and axis pairs, and mixed kinds per axis (DCT-I along an
// axis of 1 point is refused by every backend: counted as not supported).
struct R2rCase {
  int rank;
  std::array<std::int64_t, 3> dims;
  std::vector<std::vector<int>> axis_sets;
  std::int64_t batch;
};
const std::vector<R2rCase> kR2rCases = {
    {1, {1, 0, 0}, {{0}}, 1},
    {1, {13, 0, 0}, {{0}}, 2},
    {2, {5, 3, 0}, {{0, 1}, {0}, {1}}, 1},
    {2, {1, 7, 0}, {{0, 1}}, 1},
    {3, {4, 3, 5}, {{0, 1, 2}, {1, 2}, {0, 2}, {1}}, 1},
    {3, {2, 1, 17}, {{0, 1, 2}, {0}}, 2},
};
constexpr core::R2rKind kAllKinds[] = {core::R2rKind::kDct1, core::R2rKind::kDct2, core::R2rKind::kDct3,
                                       core::R2rKind::kDct4, core::R2rKind::kDst1, core::R2rKind::kDst2,
                                       core::R2rKind::kDst3, core::R2rKind::kDst4};

std::vector<core::TransformDesc> r2r_descriptors(Precision prec) {
  std::vector<core::TransformDesc> out;
  for (const R2rCase& c : kR2rCases)
    for (const auto& axes : c.axis_sets)
      for (std::size_t ki = 0; ki < std::size(kAllKinds); ++ki)
        for (bool inverse : {false, true})
          for (Norm norm : {Norm::kNone, Norm::kOrtho, Norm::kForward}) {
            core::R2rSpec s;
            s.rank = c.rank;
            for (int a = 0; a < c.rank; ++a) s.dims[a] = c.dims[a];
            s.inverse = inverse;
            for (std::size_t i = 0; i < axes.size(); ++i)  // mixed: the next kinds along the further axes
              s.kinds[axes[i]] = kAllKinds[(ki + 3 * i) % std::size(kAllKinds)];
            out.push_back(core::r2r_desc(s, norm, c.batch, prec));
          }
  return out;
}

std::vector<core::TransformDesc> descriptors(Op op, Precision prec) {
  if (op == Op::kR2r) return r2r_descriptors(prec);
  std::vector<core::TransformDesc> out;
  if (op == Op::kLot || op == Op::kIlot) {
    for (const Case& c : kLotCases) {
      const Shape2 in = op == Op::kLot ? c.shape : Shape2{c.shape.rows + 8, c.shape.cols + 8};
      out.push_back(test::desc(op, Norm::kOrtho, Axis::kBoth, in, c.batch, prec));
    }
    return out;
  }
  for (const Case& c : kWholeCases)
    for (Axis axis : {Axis::kBoth, Axis::kRows, Axis::kCols})
      for (Norm norm : {Norm::kOrtho, Norm::kNone}) {
        out.push_back(test::desc(op, norm, axis, c.shape, c.batch, prec));
        if ((op == Op::kDct2 || op == Op::kIdct2) && axis == Axis::kBoth && c.shape.rows % 8 == 0 &&
            c.shape.cols % 8 == 0)
          out.push_back(test::desc(op, norm, axis, c.shape, c.batch, prec, 8));
      }
  return out;
}

struct Tally {
  int checked = 0, unsupported = 0;
  std::map<std::string, int> reasons;  // one example per distinct reason, counted
};

// The input and the oracle's output of a descriptor, made once and shared by every backend that supports it.
struct Reference {
  core::HostTensor in, out;
};
const Reference& reference(const core::TransformDesc& d) {
  static std::map<std::string, Reference> cache;
  auto it = cache.find(d.to_string());
  if (it == cache.end()) {
    core::HostTensor in = test::random_tensor(d.shape, d.batch, d.prec, 70000 + cache.size());
    core::HostTensor out = test::oracle(d, in);
    it = cache.emplace(d.to_string(), Reference{std::move(in), std::move(out)}).first;
  }
  return it->second;
}

// The body: every backend of the registry whose runtime is (or is not) "cuda".
void conformance(bool cuda) {
  int backends = 0;
  for (const core::Backend* b : app::registry().all()) {
    if ((b->runtime().name() == "cuda") != cuda) continue;
    ++backends;
    const std::string name(b->name());
    if (cuda) REQUIRE(b->runtime().usable().ok);  // the [gpu] case runs on a machine with a GPU
    Tally t;
    for (Op op : b->ops())
      for (Precision prec : {Precision::kF32, Precision::kF64})
        for (const core::TransformDesc& d : descriptors(op, prec)) {
          if (core::Support s = b->supports(d); !s) {
            ++t.unsupported;
            ++t.reasons[s.reason];
            continue;
          }
          const Reference& ref = reference(d);
          const core::HostTensor got = test::run_backend(*b, d, ref.in);
          const double e = test::rel_l2_finite(got.to(Precision::kF64), ref.out);
          INFO(name << " " << d.to_string() << ": relative L2 error " << e);
          CHECK(e <= test::tol(prec));
          // Streamed (a file's values by parts, Plan::execute_streamed): every byte moved once, the same values.
          bool ranges = false;
          const core::HostTensor streamed = test::run_backend_streamed(*b->make_plan(d), ref.in, 3, &ranges);
          CHECK(ranges);
          CHECK(std::memcmp(streamed.raw(), got.raw(), got.bytes()) == 0);
          ++t.checked;
        }
    std::string ops;
    for (Op op : b->ops()) ops += (ops.empty() ? "" : ",") + std::string(core::to_string(op));
    std::printf("conformance: %-18s %-22s %4d cases checked, %4d not supported", name.c_str(), ops.c_str(), t.checked,
                t.unsupported);
    if (!t.reasons.empty())
      std::printf(" (%zu reasons, e.g. \"%s\")", t.reasons.size(), t.reasons.begin()->first.c_str());
    std::printf("\n");
    INFO(name << " supports none of the conformance cases");
    CHECK(t.checked > 0);
  }
  std::printf("conformance: %d %s backends\n", backends, cuda ? "CUDA" : "CPU");
  CHECK(backends > 0);
}

}  // namespace

TEST_CASE("conformance: every CPU backend in the registry matches the f64 oracle", "[conformance]") {
  conformance(false);
}

TEST_CASE("conformance: every CUDA backend in the registry matches the f64 oracle", "[gpu]") { conformance(true); }
