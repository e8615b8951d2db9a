/* cuda-dct4-sec4 / cuda-dct4-sec8: [3]'s N = 17 DCT-IV (Chiper & Dobrea 2024, §3 and Appendix B) with
   each transform computed by S = 4 or 8 threads, one independent section each (the factorization, its
   tables and its operation counts: math/dct4_n17.hpp, shared with cpu-dct4-sec4/8). Many transforms per
   launch: a 256-thread block owns tiles of 256/S transforms (grid-stride over tiles):
     1. the tile's 17·256/S values are loaded coalesced into shared memory;
     2. every lane of a transform forms x_C and x_a in registers (the shared prologue, as in the paper);
     3. lane s runs section s: sec4 - both convolutions of its group; sec8 - one convolution, then
        partners s, s^1 swap their five products and data sums with __shfl_xor (no shared memory);
     4. lanes write their T_C(k) into the tile; the recursion Y(k) = T_C(k) - Y(k-1) becomes an alternating
        prefix sum Y(k) = (-1)^k Σ_{j<=k} (-1)^j T_C(j): each lane sums a chunk of k, an exclusive scan over
        the S lanes (__shfl_up, width S) gives its offset, and it finishes its chunk;
     5. the tile is stored coalesced.
   The lanes' constants (Winograd vectors, output indices, T_C factors) come as launch parameters, so the
   S sections run one instruction stream with no divergence (selects instead of branches). */
#include <algorithm>

#include "core/error.hpp"
#include "kernels/dct4/plans.cuh"
#include "math/dct4_n17.hpp"

namespace dct::cuda::dct4 {
namespace {

namespace n17 = dct::math::n17;
constexpr int kThreads = 256;

template <class T, int S>
struct Params {
  n17::Tables<T> t;
  n17::Sec4Lane<T> lane4[4];
  n17::Sec8Lane<T> lane8[8];
};

template <class T, int S>
__global__ void __launch_bounds__(kThreads)
    sections_kernel(const T* __restrict__ x, T* __restrict__ y, const Params<T, S> p, long long transforms) {
  constexpr int kTile = kThreads / S;  // transforms per tile
  constexpr int kN = n17::kN;
  __shared__ T tile[kTile * kN];
  const int s = threadIdx.x % S, tl = threadIdx.x / S;
  T* mine = tile + tl * kN;
  // Chunk of outputs for the recursion: [c0, c1).
  const int c0 = s == 0 ? 0 : 1 + 16 * s / S, c1 = s == S - 1 ? kN : 1 + 16 * (s + 1) / S;
  for (long long first = static_cast<long long>(blockIdx.x) * kTile; first < transforms;
       first += static_cast<long long>(gridDim.x) * kTile) {
    const int nt = static_cast<int>(min(static_cast<long long>(kTile), transforms - first));
    const T* src = x + first * kN;
    for (int i = threadIdx.x; i < kTile * kN; i += kThreads) tile[i] = i < nt * kN ? src[i] : T(0);
    __syncthreads();

    T xa[kN];
    n17::prologue(mine, p.t.pre, xa);
    T y0;
    if constexpr (S == 4) {
      const n17::Sec4Lane<T> L = p.lane4[s];
      T tc[4];
      n17::sec4_run(L, xa, tc, y0);
      __syncwarp();
#pragma unroll
      for (int a = 0; a < 4; ++a) mine[L.k[a]] = tc[a];
    } else {
      const n17::Sec8Lane<T> L = p.lane8[s];
      T m[5], pm[5], x0, tc[2];
      n17::sec8_products(L, xa, m, x0);
#pragma unroll
      for (int j = 0; j < 5; ++j) pm[j] = __shfl_xor_sync(0xffffffffu, m[j], 1);
      const T px0 = __shfl_xor_sync(0xffffffffu, x0, 1);
      n17::sec8_finish(L, m, pm, x0, px0, xa[0], tc, y0);
      __syncwarp();
      mine[L.k[0]] = tc[0];
      mine[L.k[1]] = tc[1];
    }
    if (s == 0) mine[0] = y0;
    __syncwarp();

    T local = 0;
    for (int j = c0; j < c1; ++j) local += (j & 1) ? -mine[j] : mine[j];
    T incl = local;
#pragma unroll
    for (int d = 1; d < S; d *= 2) {
      const T t = __shfl_up_sync(0xffffffffu, incl, d, S);
      if (s >= d) incl += t;
    }
    T acc = incl - local;
    for (int j = c0; j < c1; ++j) {
      acc += (j & 1) ? -mine[j] : mine[j];
      mine[j] = (j & 1) ? -acc : acc;
    }
    __syncthreads();
    T* dst = y + first * kN;
    for (int i = threadIdx.x; i < nt * kN; i += kThreads) dst[i] = tile[i];
    __syncthreads();
  }
}

template <class T, int S>
class SectionsPlan final : public GpuPlan {
 public:
  explicit SectionsPlan(const core::TransformDesc& d) : GpuPlan(d, d.bytes(), d.bytes()) {
    p_.t = n17::make_tables<T>(n17::sigma(d.op == core::Op::kIdct4, d.norm == core::Norm::kOrtho));
    for (int s = 0; s < 4; ++s) p_.lane4[s] = n17::sec4_lane(p_.t, s);
    for (int s = 0; s < 8; ++s) p_.lane8[s] = n17::sec8_lane(p_.t, s);
    transforms_ = d.batch * d.shape.rows;
    const int sms = current_sm_count();
    const long long tiles = (transforms_ + kThreads / S - 1) / (kThreads / S);
    blocks_ = static_cast<unsigned>(std::max<long long>(1, std::min<long long>(tiles, 16LL * sms)));
  }

 private:
  void run(const void* in, void* out, cudaStream_t s) const override {
    DCT_LAUNCH((sections_kernel<T, S>), dim3(blocks_), dim3(kThreads), s, static_cast<const T*>(in),
               static_cast<T*>(out), p_, static_cast<long long>(transforms_));
  }
  Params<T, S> p_{};
  i64 transforms_ = 0;
  unsigned blocks_ = 1;
};

}  // namespace

std::unique_ptr<core::Plan> make_sections_plan(const core::TransformDesc& d, int sections) {
  const bool f32 = d.prec == core::Precision::kF32;
  if (sections == 4) {
    if (f32) return std::make_unique<SectionsPlan<float, 4>>(d);
    return std::make_unique<SectionsPlan<double, 4>>(d);
  }
  if (f32) return std::make_unique<SectionsPlan<float, 8>>(d);
  return std::make_unique<SectionsPlan<double, 8>>(d);
}

}  // namespace dct::cuda::dct4
