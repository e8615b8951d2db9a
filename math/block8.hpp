#pragma once
// The 8-point flowgraphs of cpu-8x8-flmad (cpu/block8_flmad.cpp derives them: Feig-Linzer [7], [4]
// eqs. 3.15-3.18) and cpu-8x8-aan (cpu/block8_aan.cpp: Arai-Agui-Nakajima, Fig. 3.7), written once over a
// value type V: a scalar (the lane loops, vectorized by the compiler) or a SIMD register (the AVX2 block
// kernels of cpu/block8_avx2.cpp). Constants come in as values of V (broadcast by the caller). The GPU 8x8, LOT
// and JPEG kernels use the Feig-Linzer scale fl_scale().
#include <array>
#include <cmath>
#include <cstddef>

#include "math/hd.hpp"
namespace dct::math::block8 {

// t_j = tan(jπ/16), r = cos(π/16)/cos(3π/16).
inline constexpr double kFlT1 = 0.19891236737965800691, kFlT2 = 0.41421356237309504880;
inline constexpr double kFlT3 = 0.66817863791929891999, kFlR = 1.1795804271032746;
// AAN: a1 = √2/2, a2 = √2 cos(3π/8), a4 = √2 cos(π/8), a5 = cos(3π/8); inverse graph: √2, 2cos(π/8),
// 2(cos(π/8) − cos(3π/8)), 2(cos(π/8) + cos(3π/8)).
inline constexpr double kAanA1 = 0.70710678118654752440, kAanA2 = 0.54119610014619698440;
inline constexpr double kAanA4 = 1.30656296487637652786, kAanA5 = 0.38268343236508977173;
inline constexpr double kAanI1 = 1.41421356237309504880, kAanI2 = 1.84775906502257351225;
inline constexpr double kAanI3 = 1.08239220029239396880, kAanI4 = 2.61312592975275305571;

// The Feig-Linzer graph's output scaling: the orthonormal 8-point DCT-II is C = diag(fl_scale()) · K, and its
// inverse C^T = K' · diag(fl_scale()).
inline std::array<double, 8> fl_scale() {
  const double pi = 3.14159265358979323846;
  const double c2 = std::cos(2 * pi / 16), c3 = std::cos(3 * pi / 16), c4 = std::cos(4 * pi / 16);
  const double h = 0.5, q = 0.5 / std::sqrt(2.0);
  return {q, q * c3, h * c2, h * c3, h * c4, h * c3, h * c2, q * c3};
}

template <class V>
struct Consts4 {
  V a, b, c, d;
};

// K (no output scaling): c = {t1, t2, t3, r}.
template <class V>
DCT_HD void fl_forward(V (&x)[8], const Consts4<V>& c) {
  const V s0 = x[0] + x[7], s1 = x[1] + x[6], s2 = x[2] + x[5], s3 = x[3] + x[4];
  const V d0 = x[0] - x[7], d1 = x[1] - x[6], d2 = x[2] - x[5], d3 = x[3] - x[4];
  const V e0 = s0 + s3, e2 = s0 - s3, e1 = s1 + s2, e3 = s1 - s2;
  const V u4 = d3 + c.c * d0, u7 = d0 - c.c * d3, u5 = d2 + c.a * d1, u6 = d1 - c.a * d2;
  const V v4 = u4 + c.d * u6, v6 = u4 - c.d * u6, v7 = u7 + c.d * u5, v5 = u7 - c.d * u5;
  x[0] = e0 + e1;
  x[1] = v7 + v4;
  x[2] = e2 + c.b * e3;
  x[3] = v5;
  x[4] = e0 - e1;
  x[5] = v6;
  x[6] = c.b * e2 - e3;
  x[7] = v7 - v4;
}

// K^T: forward's graph run backwards.
template <class V>
DCT_HD void fl_inverse(V (&y)[8], const Consts4<V>& c) {
  const V v7 = y[1] + y[7], v4 = y[1] - y[7];
  const V u4 = v4 + y[5], u6 = c.d * (v4 - y[5]), u7 = v7 + y[3], u5 = c.d * (v7 - y[3]);
  const V d0 = c.c * u4 + u7, d3 = u4 - c.c * u7, d1 = c.a * u5 + u6, d2 = u5 - c.a * u6;
  const V e0 = y[0] + y[4], e1 = y[0] - y[4], e2 = y[2] + c.b * y[6], e3 = c.b * y[2] - y[6];
  const V s0 = e0 + e2, s3 = e0 - e2, s1 = e1 + e3, s2 = e1 - e3;
  y[0] = s0 + d0;
  y[1] = s1 + d1;
  y[2] = s2 + d2;
  y[3] = s3 + d3;
  y[4] = s3 - d3;
  y[5] = s2 - d2;
  y[6] = s1 - d1;
  y[7] = s0 - d0;
}

// AAN forward: c = {a1, a2, a4, a5}.
template <class V>
DCT_HD void aan_forward(V (&x)[8], const Consts4<V>& c) {
  const V p0 = x[0] + x[7], p7 = x[0] - x[7], p1 = x[1] + x[6], p6 = x[1] - x[6];
  const V p2 = x[2] + x[5], p5 = x[2] - x[5], p3 = x[3] + x[4], p4 = x[3] - x[4];
  const V q10 = p0 + p3, q13 = p0 - p3, q11 = p1 + p2, q12 = p1 - p2;
  const V z1 = (q12 + q13) * c.a;
  const V r10 = p4 + p5, r11 = p5 + p6, r12 = p6 + p7;
  const V z5 = (r10 - r12) * c.d;
  const V z2 = c.b * r10 + z5, z4 = c.c * r12 + z5, z3 = r11 * c.a;
  const V z11 = p7 + z3, z13 = p7 - z3;
  x[0] = q10 + q11;
  x[1] = z11 + z4;
  x[2] = q13 + z1;
  x[3] = z13 - z2;
  x[4] = q10 - q11;
  x[5] = z13 + z2;
  x[6] = q13 - z1;
  x[7] = z11 - z4;
}

// AAN inverse graph: c = {i1, i2, i3, i4}.
template <class V>
DCT_HD void aan_inverse(V (&y)[8], const Consts4<V>& c) {
  const V a10 = y[0] + y[4], a11 = y[0] - y[4];
  const V a13 = y[2] + y[6], a12 = (y[2] - y[6]) * c.a - a13;
  const V e0 = a10 + a13, e3 = a10 - a13, e1 = a11 + a12, e2 = a11 - a12;
  const V z13 = y[5] + y[3], z10 = y[5] - y[3], z11 = y[1] + y[7], z12 = y[1] - y[7];
  const V o7 = z11 + z13;
  const V b11 = (z11 - z13) * c.a;
  const V z5 = (z10 + z12) * c.b;
  const V b10 = z5 - z12 * c.c, b12 = z5 - z10 * c.d;
  const V o6 = b12 - o7, o5 = b11 - o6, o4 = b10 - o5;
  y[0] = e0 + o7;
  y[1] = e1 + o6;
  y[2] = e2 + o5;
  y[3] = e3 + o4;
  y[4] = e3 - o4;
  y[5] = e2 - o5;
  y[6] = e1 - o6;
  y[7] = e0 - o7;
}

// The lane loop of the CPU 8x8 backends: one 8-point transform per lane l (gather v[i] = in[i*is + l],
// apply `Graph`, scatter out[k*os + l]); lanes are contiguous so the loop vectorizes across them.
template <class T, void (*Graph)(T (&)[8], const Consts4<T>&)>
inline void lanes(const T* __restrict in, std::ptrdiff_t is, T* __restrict out, std::ptrdiff_t os, std::ptrdiff_t n,
                  const Consts4<T>& c) {
#if defined(_OPENMP)
#pragma omp simd
#endif
  for (std::ptrdiff_t l = 0; l < n; ++l) {
    T v[8];
    for (int i = 0; i < 8; ++i) v[i] = in[i * is + l];
    Graph(v, c);
    for (int k = 0; k < 8; ++k) out[k * os + l] = v[k];
  }
}

}  // namespace dct::math::block8
