/* cpu-8x8-naive: the separable definition ([4] §3.2.1): the orthonormal 8-point DCT-II
   matrix C[k][n] = √(2/8) c_k cos(π k (2n+1)/16), c_0 = 1/√2, c_k = 1, applied to the columns and then to
   the rows of every block, Y = C X C^T, and X = C^T Y C for the inverse (C is orthogonal). 64 multiply-adds
   per 8 points. Here K = C and K' = C^T, so both scalings are 1 (the `none` norm still goes through the
   driver's table). The matrix is computed in double and rounded once to the working precision. */
#include <cmath>

#include "cpu/block8.hpp"

namespace dct::cpu::block8 {
namespace {

struct Matrix {
  double c[8][8];
  Matrix() {
    const double pi = std::acos(-1.0);
    for (int k = 0; k < 8; ++k)
      for (int n = 0; n < 8; ++n)
        c[k][n] = std::sqrt(2.0 / 8) * (k == 0 ? std::sqrt(0.5) : 1.0) * std::cos(pi * k * (2 * n + 1) / 16);
  }
};
const Matrix kC;

// y_k = Σ_n m[k][n] x_n (transpose: m[n][k]).
template <class T, bool kTranspose>
void apply(const T* __restrict x, std::ptrdiff_t xs, T* __restrict y, std::ptrdiff_t ys, std::ptrdiff_t n) {
  T m[8][8];
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 8; ++j) m[k][j] = static_cast<T>(kTranspose ? kC.c[j][k] : kC.c[k][j]);
  for (int k = 0; k < 8; ++k) {
    T* __restrict yk = y + k * ys;
#pragma omp simd
    for (std::ptrdiff_t l = 0; l < n; ++l) {
      T acc = 0;
      for (int j = 0; j < 8; ++j) acc += m[k][j] * x[j * xs + l];
      yk[l] = acc;
    }
  }
}

template <class T>
void forward(const T* x, std::ptrdiff_t xs, T* y, std::ptrdiff_t ys, std::ptrdiff_t n) {
  apply<T, false>(x, xs, y, ys, n);
}
template <class T>
void inverse(const T* x, std::ptrdiff_t xs, T* y, std::ptrdiff_t ys, std::ptrdiff_t n) {
  apply<T, true>(x, xs, y, ys, n);
}

Algorithm make() {
  const std::array<double, 8> one = {1, 1, 1, 1, 1, 1, 1, 1};
  return {"cpu-8x8-naive",
          "8x8 block DCT by the separable definition (8x8 matrix products), reference",
          one,
          one,
          forward<float>,
          inverse<float>,
          forward<double>,
          inverse<double>};
}

}  // namespace

const Algorithm& naive_algorithm() {
  static const Algorithm a = make();
  return a;
}

}  // namespace dct::cpu::block8
