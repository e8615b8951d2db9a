/* cpu-8x8-aan: the Arai-Agui-Nakajima 8-point DCT ([6]; [4] §3.2.4, Fig. 3.7, eqs. 3.6-3.14).

   An N-point DCT is the real part of a 2N-point DFT of the symmetrically extended input, scaled
   (eq. 3.7): Re F(u) / (2 cos(πu/2N)) = Σ_n s(n) cos((2n+1)uπ/2N). AAN compute Re F(u), u = 0..7, of the
   16-point DFT with 5 multiplications by
     a1 = a3 = √2/2 (3.8, 3.10),  a2 = √2 cos(3π/8) (3.9),  a4 = √2 cos(π/8) (3.11),  a5 = cos(3π/8) (3.12),
   and leave the 8 output scalings s_u to the end (3.13-3.14). The graph below is Fig. 3.7 as written out by
   Pennebaker & Mitchell (the form of IJG's jfdctflt.c). Its outputs are y_u = 2√2·α_u·X^o_u with X^o the
   orthonormal DCT (norm `ortho`), α_0 = 1, α_u = √2 cos(uπ/16): so C = diag(1/(2√2 α_u))·K — the s_u of
   eq. 3.14 with the normalization folded in (s_0 = √2/4 up to the ortho factor).
   The inverse is the AAN IDCT graph (jidctflt.c's form, 5 multiplications), which computes
   C^T = K'·diag(α_u/(2√2)): the input is scaled by α_u/(2√2) per index, then the graph runs.
   The driver applies both scalings once per coefficient as 64-entry tables (8×8: product of two axes). */
#include <cmath>

#include "cpu/block8.hpp"
#include "math/block8.hpp"

namespace dct::cpu::block8 {

using namespace math::block8;  // NOLINT(google-build-using-namespace): the shared flowgraphs
namespace {

const double kPi = std::acos(-1.0);
// The lane loops (math/block8.hpp) over this algorithm's graph.
template <class T>
void forward(const T* __restrict x, std::ptrdiff_t xs, T* __restrict y, std::ptrdiff_t ys, std::ptrdiff_t n) {
  lanes<T, aan_forward<T>>(x, xs, y, ys, n, Consts4<T>{T(kAanA1), T(kAanA2), T(kAanA4), T(kAanA5)});
}

template <class T>
void inverse(const T* __restrict y, std::ptrdiff_t ys, T* __restrict x, std::ptrdiff_t xs, std::ptrdiff_t n) {
  lanes<T, aan_inverse<T>>(y, ys, x, xs, n, Consts4<T>{T(kAanI1), T(kAanI2), T(kAanI3), T(kAanI4)});
}

Algorithm make() {
  std::array<double, 8> f{}, i{};
  for (int u = 0; u < 8; ++u) {
    const double alpha = u == 0 ? 1.0 : std::sqrt(2.0) * std::cos(u * kPi / 16);
    f[u] = 1.0 / (2 * std::sqrt(2.0) * alpha);
    i[u] = alpha / (2 * std::sqrt(2.0));
  }
  return {"cpu-8x8-aan",
          "8x8 block DCT, Arai-Agui-Nakajima ([4] Fig. 3.7), separable, SIMD lanes, OpenMP over blocks",
          f,
          i,
          forward<float>,
          inverse<float>,
          forward<double>,
          inverse<double>,
          aan_strip_forward_avx2,
          aan_strip_inverse_avx2};
}

}  // namespace

const Algorithm& aan_algorithm() {
  static const Algorithm a = make();
  return a;
}

}  // namespace dct::cpu::block8
