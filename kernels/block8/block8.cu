/* cuda-8x8 and cuda-8x8-def: 2-D DCT-II / its inverse on independent 8x8 tiles (block mode, --block 8;
   docs/algorithms.md §4).

   cuda-8x8-def ([2], kernel 1 "by definition"): one thread per coefficient; a CTA of 32x8 threads holds
   4 horizontally adjacent blocks in shared memory; each thread forms one row-transform value
   t[i][v] = Σ_k x[i][k] C[v][k], then one output Y[u][v] = Σ_k C[u][k] t[k][v], with the orthonormal basis
   C in constant memory (the inverse uses C^T). 16 multiply-adds per output.

   cuda-8x8 ([2]'s kernel 2, taken to Hopper): separable 8-point Feig-Linzer butterflies in registers
   (block8.cuh), 32 blocks (an 8 x 256 tile) per 256-thread CTA. Global memory moves as 16-byte vectors, each
   warp reading/writing contiguous 512 bytes; the tile sits in padded shared memory (block8.cuh) so the column
   pass (thread = column) and the row pass (thread = one row of one block) are both free of bank conflicts.
   Forward: Y = S ∘ (K X K^T), the scale table applied after the row pass; inverse: X = K^T (S' ∘ Y) K,
   scaled as it is read. One read and one write of the data: the kernel is memory-bound. */
#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernels/algorithms.cuh"
#include "kernels/block8/block8.cuh"
#include "kernels/common/plan.cuh"
#include "math/block8.hpp"

namespace dct::cuda {
namespace block8 {

template <class T>
Table64<T> scale_table(core::Op op, core::Norm norm) {
  const bool fwd = op == core::Op::kDct2;
  const std::array<double, 8> s = math::block8::fl_scale();  // the same for the forward and the inverse
  Table64<T> t{};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double v = s[i] * s[j];
      if (norm == core::Norm::kNone) {
        const double si = i == 0 ? 4 * std::sqrt(2.0) : 4.0, sj = j == 0 ? 4 * std::sqrt(2.0) : 4.0;
        v = fwd ? v * si * sj : v / (si * sj);
      }
      t.v[i * 8 + j] = static_cast<T>(v);
    }
  return t;
}
template Table64<float> scale_table<float>(core::Op, core::Norm);
template Table64<double> scale_table<double>(core::Op, core::Norm);

}  // namespace block8

namespace {

using block8::Table64;
using block8::Table8;
using block8::tile_index;

// The orthonormal 8-point DCT-II matrix C[k][n] = √(2/8) c_k cos(π k (2n+1)/16).
__constant__ double kBasis[64] = {
    0.35355339059327379,   0.35355339059327379,  0.35355339059327379,  0.35355339059327379,  0.35355339059327379,
    0.35355339059327379,   0.35355339059327379,  0.35355339059327379,  0.49039264020161522,  0.41573480615127267,
    0.27778511650980109,   0.097545161008064166, -0.09754516100806411, -0.27778511650980092, -0.41573480615127267,
    -0.49039264020161522,  0.46193976625564331,  0.19134171618254492,  -0.19134171618254486, -0.46193976625564331,
    -0.46193976625564337,  -0.19134171618254517, 0.19134171618254503,  0.4619397662556432,   0.41573480615127267,
    -0.09754516100806411,  -0.49039264020161522, -0.27778511650980103, 0.27778511650980087,  0.49039264020161522,
    0.097545161008064402,  -0.41573480615127256, 0.35355339059327384,  -0.35355339059327373, -0.35355339059327384,
    0.35355339059327368,   0.3535533905932739,   -0.35355339059327334, -0.35355339059327362, 0.35355339059327329,
    0.27778511650980109,   -0.49039264020161522, 0.097545161008064152, 0.41573480615127278,  -0.41573480615127256,
    -0.097545161008064013, 0.49039264020161538,  -0.27778511650980076, 0.19134171618254492,  -0.46193976625564337,
    0.4619397662556432,    -0.19134171618254495, -0.19134171618254531, 0.46193976625564331,  -0.46193976625564315,
    0.19134171618254478,   0.097545161008064166, -0.27778511650980103, 0.41573480615127278,  -0.49039264020161538,
    0.49039264020161527,   -0.41573480615127251, 0.2777851165098007,   -0.097545161008064291};
__constant__ float kBasisF[64] = {
    0.35355339059327379f,   0.35355339059327379f,  0.35355339059327379f,  0.35355339059327379f,  0.35355339059327379f,
    0.35355339059327379f,   0.35355339059327379f,  0.35355339059327379f,  0.49039264020161522f,  0.41573480615127267f,
    0.27778511650980109f,   0.097545161008064166f, -0.09754516100806411f, -0.27778511650980092f, -0.41573480615127267f,
    -0.49039264020161522f,  0.46193976625564331f,  0.19134171618254492f,  -0.19134171618254486f, -0.46193976625564331f,
    -0.46193976625564337f,  -0.19134171618254517f, 0.19134171618254503f,  0.4619397662556432f,   0.41573480615127267f,
    -0.09754516100806411f,  -0.49039264020161522f, -0.27778511650980103f, 0.27778511650980087f,  0.49039264020161522f,
    0.097545161008064402f,  -0.41573480615127256f, 0.35355339059327384f,  -0.35355339059327373f, -0.35355339059327384f,
    0.35355339059327368f,   0.3535533905932739f,   -0.35355339059327334f, -0.35355339059327362f, 0.35355339059327329f,
    0.27778511650980109f,   -0.49039264020161522f, 0.097545161008064152f, 0.41573480615127278f,  -0.41573480615127256f,
    -0.097545161008064013f, 0.49039264020161538f,  -0.27778511650980076f, 0.19134171618254492f,  -0.46193976625564337f,
    0.4619397662556432f,    -0.19134171618254495f, -0.19134171618254531f, 0.46193976625564331f,  -0.46193976625564315f,
    0.19134171618254478f,   0.097545161008064166f, -0.27778511650980103f, 0.41573480615127278f,  -0.49039264020161538f,
    0.49039264020161527f,   -0.41573480615127251f, 0.2777851165098007f,   -0.097545161008064291f};

template <class T>
__device__ __forceinline__ T basis(int k, int n, bool transpose) {
  const int i = transpose ? n * 8 + k : k * 8 + n;
  if constexpr (sizeof(T) == 4) {
    return kBasisF[i];
  } else {
    return kBasis[i];
  }
}

// ---- cuda-8x8-def ------------------------------------------------------------------------------------
// blockDim (32, 8): x = column within 4 blocks, y = row. Grid: (ceil(W/32), strips). The `none` norm is a
// factor per coefficient index: on the output for the forward (σ_u σ_v), on the input for the inverse.
template <class T>
__global__ void __launch_bounds__(256) def_kernel(const T* __restrict__ in, T* __restrict__ out, long long w,
                                                  bool inverse, Table64<T> in_scale, Table64<T> out_scale) {
  __shared__ T s[8][33];
  __shared__ T t[8][33];
  const int x = threadIdx.x, y = threadIdx.y;
  const long long col = static_cast<long long>(blockIdx.x) * 32 + x;
  const long long base = static_cast<long long>(blockIdx.y) * 8 * w;
  const bool live = col < w;  // W is a multiple of 8: a block is entirely in or out
  const int b0 = x & ~7, v = x & 7;
  s[y][x] = live ? in[base + y * w + col] * in_scale.v[y * 8 + v] : T(0);
  __syncthreads();
  T acc = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) acc += s[y][b0 + k] * basis<T>(v, k, inverse);
  t[y][x] = acc;
  __syncthreads();
  acc = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) acc += basis<T>(y, k, inverse) * t[k][x];
  if (live) out[base + y * w + col] = acc * out_scale.v[y * 8 + v];
}

// ---- cuda-8x8 ---------------------------------------------------------------------------------------
template <class T>
struct Vec;
template <>
struct Vec<float> {
  using type = float4;
  static constexpr int n = 4;
};
template <>
struct Vec<double> {
  using type = double2;
  static constexpr int n = 2;
};

template <class T>
__device__ __forceinline__ void vec_to_tile(T* tile, int r, int c, const typename Vec<T>::type& v) {
  if constexpr (Vec<T>::n == 4) {
    tile[tile_index(r, c)] = v.x;
    tile[tile_index(r, c + 1)] = v.y;
    tile[tile_index(r, c + 2)] = v.z;
    tile[tile_index(r, c + 3)] = v.w;
  } else {
    tile[tile_index(r, c)] = v.x;
    tile[tile_index(r, c + 1)] = v.y;
  }
}

template <class T>
__device__ __forceinline__ typename Vec<T>::type tile_to_vec(const T* tile, int r, int c) {
  if constexpr (Vec<T>::n == 4) {
    return make_float4(tile[tile_index(r, c)], tile[tile_index(r, c + 1)], tile[tile_index(r, c + 2)],
                       tile[tile_index(r, c + 3)]);
  } else {
    return make_double2(tile[tile_index(r, c)], tile[tile_index(r, c + 1)]);
  }
}

// One 16-byte global store, plain (weak, write-back): a dereference of float4*/double2* was split into scalar
// stores, and __stwb's st.global.wb becomes a STRONG.SM store on sm_90.
__device__ __forceinline__ void store16(float4* p, const float4& v) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
__device__ __forceinline__ void store16(double2* p, const double2& v) {
  asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(v.x), "d"(v.y) : "memory");
}

// Grid: tiles_per_strip * strips CTAs of 256 threads; one CTA = 8 rows x 256 columns (32 blocks).
// Forward: `scale` (64 entries) after the row pass, indexed by the warp-uniform row and the unrolled k.
// Inverse: the table is rank one (s_i s_j), so `axis` (8 entries) scales each row in the column pass and
// each column in the row pass — always a warp-uniform index into the parameter bank (a lane-dependent one
// would serialize).
// Launch bounds: 8 CTAs (2048 threads) per SM for f32, 6 for f64 — what the register counts (32 / 40) give
// with the current compiler, stated so that a compiler change cannot silently lower the bytes in flight per SM.
template <class T, bool kInverse>
__global__ void __launch_bounds__(block8::kThreads, sizeof(T) == 4 ? 8 : 6)
    fast_kernel(const T* __restrict__ in, T* __restrict__ out, long long w, long long tiles_per_strip, Table64<T> scale,
                Table8<T> axis) {
  using V = typename Vec<T>::type;
  constexpr int kVn = Vec<T>::n;
  __shared__ T tile[8 * block8::kStride];
  const long long strip = blockIdx.x / tiles_per_strip;
  const long long c0 = (blockIdx.x % tiles_per_strip) * block8::kTileCols;
  const int cols = static_cast<int>(w - c0 < block8::kTileCols ? w - c0 : block8::kTileCols);
  const T* src = in + strip * 8 * w + c0;
  T* dst = out + strip * 8 * w + c0;
  const int t = threadIdx.x;
  constexpr int kVecPerRow = block8::kTileCols / kVn;
  // Vectors per thread: 2 (f32) or 4 (f64). Vector j of thread t is vector t + j·kThreads of the tile, so a
  // warp covers 512 contiguous bytes of one row.
  constexpr int kPer = 8 * kVecPerRow / block8::kThreads;
  static_assert(kPer * block8::kThreads == 8 * kVecPerRow, "the tile is a whole number of vectors per thread");
  constexpr int kRowStep = block8::kThreads / kVecPerRow;  // rows between a thread's vectors
  const int r0 = t / kVecPerRow, c = (t % kVecPerRow) * kVn;

  // global -> shared: every load of the thread is issued before the first is used (__ldg of the vector
  // type is one 16-byte load; a plain dereference was split into scalars and each load waited for its
  // shared store), then scattered into the padded tile.
  V buf[kPer];
  if (c < cols) {
#pragma unroll
    for (int j = 0; j < kPer; ++j) buf[j] = __ldg(reinterpret_cast<const V*>(src + (r0 + j * kRowStep) * w + c));
#pragma unroll
    for (int j = 0; j < kPer; ++j) vec_to_tile<T>(tile, r0 + j * kRowStep, c, buf[j]);
  }
  __syncthreads();

  // column pass: thread t owns column t
  if (t < cols) {
    T v[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      v[r] = tile[tile_index(r, t)];
      if constexpr (kInverse) v[r] *= axis.v[r];
    }
    if constexpr (kInverse)
      block8::fl_inverse(v);
    else
      block8::fl_forward(v);
#pragma unroll
    for (int r = 0; r < 8; ++r) tile[tile_index(r, t)] = v[r];
  }
  __syncthreads();

  // row pass: thread t owns row t/32 of block t%32
  {
    const int r = t >> 5, b = t & 31;
    if (8 * b < cols) {
      T v[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) v[k] = tile[tile_index(r, 8 * b + k)];
      if constexpr (kInverse) {
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] *= axis.v[k];
        block8::fl_inverse(v);
      } else {
        block8::fl_forward(v);
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] *= scale.v[r * 8 + k];
      }
#pragma unroll
      for (int k = 0; k < 8; ++k) tile[tile_index(r, 8 * b + k)] = v[k];
    }
  }
  __syncthreads();

  if (c < cols) {
#pragma unroll
    for (int j = 0; j < kPer; ++j) buf[j] = tile_to_vec<T>(tile, r0 + j * kRowStep, c);
#pragma unroll
    for (int j = 0; j < kPer; ++j) store16(reinterpret_cast<V*>(dst + (r0 + j * kRowStep) * w + c), buf[j]);
  }
}

template <class T>
class Block8GpuPlan final : public GpuPlan {
 public:
  Block8GpuPlan(const core::TransformDesc& d, bool fast) : GpuPlan(d, d.bytes(), d.bytes()), fast_(fast) {
    scale_ = block8::scale_table<T>(d.op, d.norm);
    const std::array<double, 8> fl = math::block8::fl_scale();
    for (int i = 0; i < 8; ++i) {
      const double sigma = i == 0 ? 4 * std::sqrt(2.0) : 4.0;
      axis_.v[i] = static_cast<T>(d.op == core::Op::kDct2 ? fl[i] * (d.norm == core::Norm::kNone ? sigma : 1.0)
                                                          : fl[i] / (d.norm == core::Norm::kNone ? sigma : 1.0));
    }
    for (int i = 0; i < 64; ++i) in_scale_.v[i] = out_scale_.v[i] = T(1);
    if (d.norm == core::Norm::kNone)
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          const double si = i == 0 ? 4 * std::sqrt(2.0) : 4.0, sj = j == 0 ? 4 * std::sqrt(2.0) : 4.0;
          if (d.op == core::Op::kDct2)
            out_scale_.v[i * 8 + j] = static_cast<T>(si * sj);
          else
            in_scale_.v[i * 8 + j] = static_cast<T>(1.0 / (si * sj));
        }
  }

 protected:
  void run(const void* in, void* out, cudaStream_t s) const override {
    const auto& d = desc();
    const long long w = d.shape.cols, strips = d.batch * d.shape.rows / 8;
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    if (fast_) {
      if (((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) & 15) != 0)
        throw Error(ErrorCode::kRuntime, "internal: cuda-8x8 needs 16-byte aligned device buffers");
      const long long tiles = (w + block8::kTileCols - 1) / block8::kTileCols;
      const dim3 grid(static_cast<unsigned>(tiles * strips));
      if (d.op == core::Op::kDct2)
        DCT_LAUNCH((fast_kernel<T, false>), grid, dim3(block8::kThreads), s, src, dst, w, tiles, scale_, axis_);
      else
        DCT_LAUNCH((fast_kernel<T, true>), grid, dim3(block8::kThreads), s, src, dst, w, tiles, scale_, axis_);
      return;
    }
    const dim3 grid(static_cast<unsigned>((w + 31) / 32), static_cast<unsigned>(strips));
    DCT_LAUNCH((def_kernel<T>), grid, dim3(32, 8), s, src, dst, w, d.op == core::Op::kIdct2, in_scale_, out_scale_);
  }

 private:
  bool fast_;
  Table64<T> scale_{}, in_scale_{}, out_scale_{};
  Table8<T> axis_{};
};

template <bool kFast>
core::Support supports(const core::TransformDesc& d) {
  using core::Support;
  if (d.op != core::Op::kDct2 && d.op != core::Op::kIdct2)
    return Support::no("implements dct2 and idct2 in 8x8 blocks only");
  if (d.block != 8) return Support::no("8x8 blocks only (needs --block 8)");
  if (d.axis != core::Axis::kBoth) return Support::no("block mode needs --axis both");
  if (d.shape.rows < 8 || d.shape.cols < 8 || d.shape.rows % 8 || d.shape.cols % 8 || d.batch < 1)
    return Support::no("shape " + core::to_string(d.shape) + " is not a multiple of 8x8");
  if (!kFast && d.batch * d.shape.rows / 8 > 65535) return Support::no("more than 65535 block rows");
  return Support::yes();
}

template <bool kFast>
std::unique_ptr<core::Plan> make(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32) return std::make_unique<Block8GpuPlan<float>>(d, kFast);
  return std::make_unique<Block8GpuPlan<double>>(d, kFast);
}

}  // namespace

Algorithm block8_algorithm(bool fast) {
  return fast ? Algorithm{&supports<true>, &make<true>} : Algorithm{&supports<false>, &make<false>};
}

}  // namespace dct::cuda
