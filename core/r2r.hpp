#pragma once
// What every backend of the real-to-real family (op kR2r) shares, on the host: the support rule, the kind each axis
// computes, FFTW's logical size and the normalization as an input and an output factor per index
// (docs/algorithms.md, "The real-to-real family"). cpu-fftw and cpu-naive apply the factors on the host; cuda-r2r
// uploads them as per-axis tables.
#include <cstdint>
#include <vector>

#include "core/backend.hpp"

namespace dct::core::r2r {

// The checks every r2r backend applies to an r2r request: rank 1..3, extents >= 1, at least one transformed axis,
// DCT-I along no axis of fewer than 2 points.
core::Support check_r2r_desc(const core::TransformDesc& d);

// The unnormalized transform an axis computes: its kind, or the inverse kind for an inverse request.
core::R2rKind computed_kind(core::R2rKind kind, bool inverse);

// FFTW's logical size M of the computed kind at n points (unnormalized forward then inverse = M times the
// identity): 2(n-1) for DCT-I, 2(n+1) for DST-I, 2n otherwise.
std::int64_t logical_size(core::R2rKind computed, std::int64_t n);

// The normalization of one axis as y_k = post[k] * T(pre ∘ x)_k, T the unnormalized computed kind. An empty
// vector means all ones.
struct AxisScale {
  std::vector<double> pre, post;
};
AxisScale axis_scale(core::R2rKind kind, bool inverse, core::Norm norm, std::int64_t n);

}  // namespace dct::core::r2r
