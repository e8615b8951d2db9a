/* cpu-lot: Malvar's type-I fast LOT with block N = 8 ([8]; [4] §3.3.3, Fig. 3.10-3.13).

   Matrix form (docs/algorithms.md §7.1). C is the orthonormal 8-point DCT-II; D_e / D_o hold its even / odd basis
   vectors as columns, so for a block a: e_a = D_eᵀa = (X_0, X_2, X_4, X_6), o_a = D_oᵀa = (X_1, X_3, X_5, X_7).
   The DCT of the reversed block Ja is X_k(Ja) = (−1)^k X_k(a), i.e. D_eᵀJ = D_eᵀ and D_oᵀJ = −D_oᵀ.
   With P = ½ [[D_e − D_o, D_e − D_o], [J(D_e − D_o), −J(D_e − D_o)]] and a window [a; b] of two blocks:
     Pᵀ [a; b] = ½ [ (D_e − D_o)ᵀa + (D_e − D_o)ᵀJb ; (D_e − D_o)ᵀa − (D_e − D_o)ᵀJb ]
               = ½ [ p_a + q_b ; p_a − q_b ],   p = e − o,  q = e + o.
   So the flowgraph is exactly:
     1. an 8-point DCT of every block (Feig-Linzer, math/block8.hpp);
     2. the first butterflies, inside each block: p = e − o, q = e + o;
     3. the second butterflies, across each pair of neighbouring blocks, and ½:
        window j gives (½(p_{j−1} + q_j), ½(p_{j−1} − q_j));
     4. Zᵀ = diag(I4, Z̃ᵀ), Z̃ᵀ = R3ᵀR2ᵀR1ᵀ: the odd half is rotated by R1ᵀ, then R2ᵀ, then R3ᵀ, R_iᵀ acting
        on coordinates (i−1, i) as (u, v) ↦ (cos θ_i u − sin θ_i v, sin θ_i u + cos θ_i v).
   Zero extension (x̃ = [0₈, x, 0₈], [4] §3.3.3): window j covers x blocks j−1 and j, blocks outside
   the data are zero (p_{−1} = q_M = 0), so a length-8M signal gives M + 1 windows, 8M + 8 coefficients,
   all blocks computed alike. ½ is folded into the DCT's output scaling (D/2 in place of D).
   Inverse x = Tᵀy, the flowgraph run backwards: per window, Z̃ = R1R2R3 on the odd half (R3 first),
   A_j = ½(top + bot), B_j = ½(top − bot); block m receives B_m from window m and A_{m+1} from window
   m + 1: e_m = B_m + A_{m+1}, o_m = B_m − A_{m+1}; then the 8-point IDCT (A_0 and B_M fall on the zero
   extension and are dropped). Orthogonality of T makes this exact: ||y|| = ||x||.
   2-D: rows then columns (separable); an HxW input gives (H+8)x(W+8). Each 1-D sweep runs along the
   blocks of up to kRowLanes rows or kColLanes columns at once (lanes vectorized), lines spread over OpenMP threads ([4]
   §4.1.5/§4.1.6: outer loop over blocks of lines). */
#include "cpu/lot.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "cpu/backends.hpp"
#include "cpu/block8.hpp"
#include "cpu/common.hpp"
#include "math/block8.hpp"
#include "math/lot.hpp"

namespace dct::cpu {
namespace {

using namespace block8;
using namespace math::block8;  // the shared Feig-Linzer flowgraph

// Lines per sweep: rows are gathered into tiles of kRowLanes; columns are read in place, kColLanes wide
// (wider strips walk fewer pages down the matrix).
constexpr std::ptrdiff_t kRowLanes = 32, kColLanes = 128;
constexpr std::int64_t kParallelMin = 1 << 14;

template <class T>
struct Consts {
  T dh[8];  // the Feig-Linzer output scaling D, halved (the flowgraph's ½)
  T c[3], s[3];
};

template <class T>
Consts<T> make_consts() {
  const double pi = std::acos(-1.0);
  const auto& d = flmad_algorithm().fwd_scale;
  Consts<T> k{};
  for (int i = 0; i < 8; ++i) k.dh[i] = T(d[i] / 2);
  for (int i = 0; i < 3; ++i) {
    k.c[i] = T(std::cos(math::lot::kTheta[i] * pi));
    k.s[i] = T(std::sin(math::lot::kTheta[i] * pi));
  }
  return k;
}

template <class T, std::ptrdiff_t L>
using Tile = T[8][L];

// Window m from block m (tile `in`; the zero block when kTail) and the state p_{m−1}; leaves p_m in `prev`.
template <class T, std::ptrdiff_t L, bool kTail>
void forward_step(const Tile<T, L>& in, T (&prev)[4][L], Tile<T, L>& out, std::ptrdiff_t n, const Consts<T>& k) {
  const Consts4<T> fc{T(kFlT1), T(kFlT2), T(kFlT3), T(kFlR)};
#pragma omp simd
  for (std::ptrdiff_t l = 0; l < n; ++l) {
    T p[4] = {}, q[4] = {};
    if constexpr (!kTail) {
      T v[8];
      for (int i = 0; i < 8; ++i) v[i] = in[i][l];
      fl_forward<T>(v, fc);
      for (int i = 0; i < 4; ++i) {
        const T e = v[2 * i] * k.dh[2 * i], o = v[2 * i + 1] * k.dh[2 * i + 1];
        p[i] = e - o;
        q[i] = e + o;
      }
    }
    T bot[4];
    for (int i = 0; i < 4; ++i) {
      const T pp = prev[i][l];
      out[i][l] = pp + q[i];
      bot[i] = pp - q[i];
      prev[i][l] = p[i];
    }
    for (int r = 0; r < 3; ++r) {
      const T u = bot[r], w = bot[r + 1];
      bot[r] = k.c[r] * u - k.s[r] * w;
      bot[r + 1] = k.s[r] * u + k.c[r] * w;
    }
    for (int i = 0; i < 4; ++i) out[4 + i][l] = bot[i];
  }
}

// Window j (tile `in`): block j−1 from B_{j−1} (in `prev`) and A_j when kEmit; leaves B_j in `prev`.
template <class T, std::ptrdiff_t L, bool kEmit>
void inverse_step(const Tile<T, L>& in, T (&prev)[4][L], Tile<T, L>& out, std::ptrdiff_t n, const Consts<T>& k) {
  const Consts4<T> fc{T(kFlT1), T(kFlT2), T(kFlT3), T(kFlR)};
#pragma omp simd
  for (std::ptrdiff_t l = 0; l < n; ++l) {
    T bot[4];
    for (int i = 0; i < 4; ++i) bot[i] = in[4 + i][l];
    for (int r = 2; r >= 0; --r) {
      const T u = bot[r], w = bot[r + 1];
      bot[r] = k.c[r] * u + k.s[r] * w;
      bot[r + 1] = k.c[r] * w - k.s[r] * u;
    }
    T v[8];
    for (int i = 0; i < 4; ++i) {
      const T top = in[i][l], a = top + bot[i], b = top - bot[i];
      if constexpr (kEmit) {
        const T bp = prev[i][l];
        v[2 * i] = (bp + a) * k.dh[2 * i];
        v[2 * i + 1] = (bp - a) * k.dh[2 * i + 1];
      }
      prev[i][l] = b;
    }
    if constexpr (kEmit) {
      fl_inverse<T>(v, fc);
      for (int i = 0; i < 8; ++i) out[i][l] = v[i];
    }
  }
}

// One 1-D sweep over n <= L lines: `blocks` data blocks (forward: in = blocks, out = blocks + 1
// windows; inverse: in = blocks + 1 windows, out = blocks). load(t, tile) / store(t, tile) move block t.
template <class T, std::ptrdiff_t L, class Load, class Store>
void sweep(bool forward, std::int64_t blocks, std::ptrdiff_t n, const Consts<T>& k, Load load, Store store) {
  alignas(64) T in[8][L];
  alignas(64) T out[8][L];
  alignas(64) T prev[4][L] = {};
  if (forward) {
    for (std::int64_t m = 0; m < blocks; ++m) {
      load(m, in);
      forward_step<T, L, false>(in, prev, out, n, k);
      store(m, out);
    }
    forward_step<T, L, true>(in, prev, out, n, k);
    store(blocks, out);
  } else {
    load(0, in);
    inverse_step<T, L, false>(in, prev, out, n, k);
    for (std::int64_t j = 1; j <= blocks; ++j) {
      load(j, in);
      inverse_step<T, L, true>(in, prev, out, n, k);
      store(j - 1, out);
    }
  }
}

// The 1-D LOT along every row (lanes = rows, gathered into tiles) of `batch` matrices of `rows` rows:
// src rows hold `src_cols` values, dst rows `dst_cols` (data blocks: the smaller of the two / 8).
template <class T>
void row_pass(bool forward, const T* src, T* dst, std::int64_t batch, std::int64_t rows, std::int64_t src_cols,
              std::int64_t dst_cols, const Consts<T>& k) {
  const std::int64_t blocks = std::min(src_cols, dst_cols) / 8;
  const std::int64_t groups = (rows + kRowLanes - 1) / kRowLanes, tasks = batch * groups;
#pragma omp parallel for schedule(static) if (batch * rows * src_cols >= kParallelMin) \
    num_threads(detail::thread_count())
  for (std::int64_t t = 0; t < tasks; ++t) {
    const std::int64_t b = t / groups, r0 = (t % groups) * kRowLanes;
    const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(std::min<std::int64_t>(kRowLanes, rows - r0));
    const T* s = src + (b * rows + r0) * src_cols;
    T* d = dst + (b * rows + r0) * dst_cols;
    sweep<T, kRowLanes>(
        forward, blocks, n, k,
        [&](std::int64_t m, Tile<T, kRowLanes>& tile) {
          for (std::ptrdiff_t l = 0; l < n; ++l)
            for (int i = 0; i < 8; ++i) tile[i][l] = s[l * src_cols + 8 * m + i];
        },
        [&](std::int64_t m, const Tile<T, kRowLanes>& tile) {
          for (std::ptrdiff_t l = 0; l < n; ++l)
            for (int i = 0; i < 8; ++i) d[l * dst_cols + 8 * m + i] = tile[i][l];
        });
  }
}

// The 1-D LOT along every column (lanes = columns, contiguous) of `batch` matrices of `cols` columns.
template <class T>
void col_pass(bool forward, const T* src, T* dst, std::int64_t batch, std::int64_t src_rows, std::int64_t dst_rows,
              std::int64_t cols, const Consts<T>& k) {
  const std::int64_t blocks = std::min(src_rows, dst_rows) / 8;
  const std::int64_t groups = (cols + kColLanes - 1) / kColLanes, tasks = batch * groups;
#pragma omp parallel for schedule(static) if (batch * src_rows * cols >= kParallelMin) \
    num_threads(detail::thread_count())
  for (std::int64_t t = 0; t < tasks; ++t) {
    const std::int64_t b = t / groups, c0 = (t % groups) * kColLanes;
    const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(std::min<std::int64_t>(kColLanes, cols - c0));
    const T* s = src + b * src_rows * cols + c0;
    T* d = dst + b * dst_rows * cols + c0;
    sweep<T, kColLanes>(
        forward, blocks, n, k,
        [&](std::int64_t m, Tile<T, kColLanes>& tile) {
          for (int i = 0; i < 8; ++i) std::memcpy(tile[i], s + (8 * m + i) * cols, n * sizeof(T));
        },
        [&](std::int64_t m, const Tile<T, kColLanes>& tile) {
          for (int i = 0; i < 8; ++i) std::memcpy(d + (8 * m + i) * cols, tile[i], n * sizeof(T));
        });
  }
}

template <class T>
class LotPlan final : public core::Plan {
 public:
  explicit LotPlan(const core::TransformDesc& d) : desc_(d), k_(make_consts<T>()) {
    forward_ = d.op == core::Op::kLot;
    const core::Shape2 data = forward_ ? d.shape : d.out_shape();
    h_ = data.rows;
    w_ = data.cols;
    work_ = core::AlignedBuffer(static_cast<std::size_t>(d.batch * h_ * (w_ + 8)) * sizeof(T));
  }

  const core::TransformDesc& desc() const override { return desc_; }
  core::Memory memory() const override { return core::Memory::kHost; }

  void execute(core::ConstView in, core::View out, core::Stream) const override {
    detail::check_views("cpu-lot", desc_, in, out);
    const T* src = static_cast<const T*>(in.data);
    T* dst = static_cast<T*>(out.data);
    T* work = static_cast<T*>(work_.data());
    const std::int64_t b = desc_.batch;
    if (forward_) {  // rows: HxW -> Hx(W+8); columns: -> (H+8)x(W+8)
      row_pass<T>(true, src, work, b, h_, w_, w_ + 8, k_);
      col_pass<T>(true, work, dst, b, h_, h_ + 8, w_ + 8, k_);
    } else {  // columns: (H+8)x(W+8) -> Hx(W+8); rows: -> HxW
      col_pass<T>(false, src, work, b, h_ + 8, h_, w_ + 8, k_);
      row_pass<T>(false, work, dst, b, h_, w_ + 8, w_, k_);
    }
  }

 private:
  core::TransformDesc desc_;
  Consts<T> k_;
  bool forward_ = true;
  std::int64_t h_ = 0, w_ = 0;  // the data (not coefficient) shape
  core::AlignedBuffer work_;    // Hx(W+8) per matrix, between the two passes
};

class LotBackend final : public core::Backend {
 public:
  std::string_view name() const override { return "cpu-lot"; }
  std::string_view description() const override {
    return "Malvar type-I fast LOT, block 8 ([4] §3.3): Feig-Linzer DCT, butterflies, Z rotations; OpenMP";
  }
  std::vector<core::Op> ops() const override { return {core::Op::kLot, core::Op::kIlot}; }
  std::string_view sizes() const override { return "H, W multiples of 8 (ilot: of 8 and >= 16)"; }
  const core::Runtime& runtime() const override { return host_runtime(); }

  core::Support supports(const core::TransformDesc& d) const override {
    using core::Support;
    if (d.op != core::Op::kLot && d.op != core::Op::kIlot)
      return Support::no("implements lot and ilot only, not " + std::string(core::to_string(d.op)));
    if (d.batch < 1) return Support::no("batch must be >= 1");
    const std::int64_t min = d.op == core::Op::kLot ? 8 : 16;
    if (d.shape.rows < min || d.shape.cols < min || d.shape.rows % 8 != 0 || d.shape.cols % 8 != 0)
      return Support::no("shape " + core::to_string(d.shape) + ": " + std::string(core::to_string(d.op)) +
                         " needs H and W multiples of 8" + (min == 16 ? " and >= 16" : ""));
    return Support::yes();
  }

  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = supports(d); !s)
      throw Error(ErrorCode::kUnsupported, "cpu-lot", "does not support " + d.to_string() + ": " + s.reason);
    if (d.prec == core::Precision::kF32) return std::make_unique<LotPlan<float>>(d);
    return std::make_unique<LotPlan<double>>(d);
  }
};

}  // namespace

std::unique_ptr<core::Backend> make_lot_backend() { return std::make_unique<LotBackend>(); }

}  // namespace dct::cpu
