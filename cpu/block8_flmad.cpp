/* cpu-8x8-flmad: the Feig-Linzer 8-point DCT for multiply-add machines ([7]; [4] §3.2.4, eqs. 3.15-3.18).

   C = D·A3·A2·A1·A0 (eq. 3.16): every rotation is written in tangent form, cos θ·[1, t; −t, 1], so that
   each output is one multiply-add x + t·y and the cosines collect in the diagonal D. With
   X_k = Σ_n x_n cos(π k (2n+1)/16) (unnormalized, no factor 2), c_j = cos(jπ/16), t_j = tan(jπ/16):
     A0 (8 adds):    s_n = x_n + x_{7−n},  d_n = x_n − x_{7−n}                        (n = 0..3)
     A1 (even):      e0 = s0 + s3, e2 = s0 − s3, e1 = s1 + s2, e3 = s1 − s2
     even outputs:   X0 = e0 + e1,  X4 = c4 (e0 − e1),
                     X2 = c2 s0 + c6 s1 − c6 s2 − c2 s3 = c2 (e2 + t2 e3),  X6 = c2 (t2 e2 − e3)
     odd part, a 4-point DCT-IV of d (Loeffler's rotations by 3π/16 and π/16, then butterflies, then √2):
     A2 (4 MADs):    u4 = d3 + t3 d0, u7 = d0 − t3 d3, u5 = d2 + t1 d1, u6 = d1 − t1 d2
                     (the rotations c3·(u4, u7) and c1·(u5, u6))
     A3 (MADs):      with r = c1/c3 the two rotation scales become one:
                     v4 = u4 + r u6, v6 = u4 − r u6, v7 = u7 + r u5, v5 = u7 − r u5
                     X1 = c3 (v7 + v4)/√2, X7 = c3 (v7 − v4)/√2, X3 = c3 v5, X5 = c3 v6
   Counts: 8 + 6 adds, 4 + 8 multiply-adds (two of them plain adds), 8 multiplies in D — the figures of
   §3.2.4. Orthonormal scaling (norm `ortho`: X^o_k = ½ c'_k X_k, c'_0 = 1/√2) goes into D:
     D = ½ · (1/√2, c3/√2, c2, c3, c4, c3, c2, c3/√2).
   The kernel K below is A3·A2·A1·A0 (output y_k without D); the driver applies D_i·D_j once per
   coefficient. C is orthogonal, so C^{−1} = C^T = K^T·D (eqs. 3.17-3.18): the inverse kernel is the
   transposed flowgraph of K (every step run backwards), applied after scaling the input by D. */
#include <cmath>

#include "cpu/block8.hpp"
#include "math/block8.hpp"

namespace dct::cpu::block8 {

using namespace math::block8;  // NOLINT(google-build-using-namespace): the shared flowgraphs
namespace {

// The lane loops (math/block8.hpp) over this algorithm's graph.
template <class T>
void forward(const T* __restrict x, std::ptrdiff_t xs, T* __restrict y, std::ptrdiff_t ys, std::ptrdiff_t n) {
  lanes<T, fl_forward<T>>(x, xs, y, ys, n, Consts4<T>{T(kFlT1), T(kFlT2), T(kFlT3), T(kFlR)});
}

template <class T>
void inverse(const T* __restrict y, std::ptrdiff_t ys, T* __restrict x, std::ptrdiff_t xs, std::ptrdiff_t n) {
  lanes<T, fl_inverse<T>>(y, ys, x, xs, n, Consts4<T>{T(kFlT1), T(kFlT2), T(kFlT3), T(kFlR)});
}

Algorithm make() {
  const std::array<double, 8> d = fl_scale();
  return {"cpu-8x8-flmad",
          "8x8 block DCT, Feig-Linzer multiply-add ([4] §3.2.4), separable, SIMD lanes, OpenMP over blocks",
          d,
          d,
          forward<float>,
          inverse<float>,
          forward<double>,
          inverse<double>,
          fl_strip_forward_avx2,
          fl_strip_inverse_avx2};
}

}  // namespace

const Algorithm& flmad_algorithm() {
  static const Algorithm a = make();
  return a;
}

}  // namespace dct::cpu::block8
