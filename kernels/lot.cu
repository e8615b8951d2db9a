/* cuda-lot: Malvar's type-I fast LOT, block 8 (seed 004 §3.3.3 and §4.2.2; DESIGN §4), forward and
   inverse, rows and columns in ONE kernel per direction (seed 004 needed several render passes; we load
   halos instead).

   The flowgraph (derived in cpu/lot.cpp): per 8-sample block the Feig-Linzer DCT (kernels/block8.cuh) with
   the output scaling D/2, the first butterflies p = e − o, q = e + o (e, o: even / odd coefficients); per
   window j the second butterflies top = p_{j−1} + q_j, bot = p_{j−1} − q_j, then Z̃ᵀ = R3ᵀR2ᵀR1ᵀ on bot.
   Inverse, backwards: Z̃ on bot, A = top + bot, B = top − bot; block m: e = B_m + A_{m+1},
   o = B_m − A_{m+1}, scaled by D/2, Feig-Linzer IDCT. Zero extension: blocks outside the data are zero.

   Forward mapping. Coefficient window (J, I) depends on data blocks {J−1, J} x {I−1, I}. A CTA owns
   kTy x kTx windows and loads the (kTy+1) x (kTx+1) blocks under them (a one-block halo on the top and
   left, zero outside the image) into shared memory S, then:
     A. per (row, block) of S: DCT, p and q, written back in place;          sync
     B. per (row, window): the row windows into shared W (8(kTy+1) x 8kTx);  sync
     C. per (column, block) of W: DCT, p and q in place;                     sync
     D. per (column, window): the column windows, straight to global memory (coalesced along columns).
   Inverse mapping. Data block (m, n) depends on windows {m, m+1} x {n, n+1}: a CTA owns kTy x kTx data
   blocks and loads (kTy+1) x (kTx+1) windows (halo bottom and right); the same four phases with the
   inverse steps. One read of the input (halo re-reads hit L2), one write of the output. Threads with
   consecutive indices take consecutive rows in A/B (row stride odd: no bank conflicts) and consecutive
   columns in C/D. scripts/lot-emulate.sh runs these kernel bodies on the host (256 threads per CTA, a
   barrier for __syncthreads) against cpu-lot, for machines without a GPU. */
#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "cpu/block8.hpp"
#include "cpu/lot.hpp"
#include "kernels/backends.hpp"
#include "kernels/block8.cuh"
#include "kernels/gpu_plan.cuh"
#include "kernels/lot_backends.hpp"

namespace dct::cuda {
namespace {

template <class T>
struct LotConsts {
  T dh[8];  // Feig-Linzer D / 2
  T c[3], s[3];
};

template <class T>
LotConsts<T> lot_consts() {
  const double pi = std::acos(-1.0);
  const auto& d = cpu::block8::flmad_algorithm().fwd_scale;
  LotConsts<T> k{};
  for (int i = 0; i < 8; ++i) k.dh[i] = static_cast<T>(d[i] / 2);
  for (int i = 0; i < 3; ++i) {
    k.c[i] = static_cast<T>(std::cos(cpu::lot::kTheta[i] * pi));
    k.s[i] = static_cast<T>(std::sin(cpu::lot::kTheta[i] * pi));
  }
  return k;
}

// Tile sizes (windows or blocks per CTA) per precision: shared memory stays under 48 KiB.
template <class T>
struct Tile {
  static constexpr int kTx = sizeof(T) == 4 ? 16 : 8;
  static constexpr int kTy = 4;
  static constexpr int kRows = 8 * (kTy + 1);
  static constexpr int kSCols = 8 * (kTx + 1), kSStride = kSCols + 1;  // odd strides: conflict-free rows
  static constexpr int kWCols = 8 * kTx, kWStride = kWCols + 1;
  static constexpr int kThreads = 256;
};

// 8 samples -> (p0..p3, q0..q3).
template <class T>
__device__ __forceinline__ void to_pq(T (&v)[8], const LotConsts<T>& k) {
  block8::fl_forward<T>(v);
  T e[4], o[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    e[i] = v[2 * i] * k.dh[2 * i];
    o[i] = v[2 * i + 1] * k.dh[2 * i + 1];
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    v[i] = e[i] - o[i];
    v[4 + i] = e[i] + o[i];
  }
}

// p of the lower block and q of the upper one -> the window's 8 coefficients.
template <class T>
__device__ __forceinline__ void window(const T (&p)[4], const T (&q)[4], T (&y)[8], const LotConsts<T>& k) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    y[i] = p[i] + q[i];
    y[4 + i] = p[i] - q[i];
  }
#pragma unroll
  for (int r = 0; r < 3; ++r) {
    const T u = y[4 + r], w = y[5 + r];
    y[4 + r] = k.c[r] * u - k.s[r] * w;
    y[5 + r] = k.s[r] * u + k.c[r] * w;
  }
}

// A window's 8 coefficients -> (A0..A3, B0..B3).
template <class T>
__device__ __forceinline__ void to_ab(T (&y)[8], const LotConsts<T>& k) {
#pragma unroll
  for (int r = 2; r >= 0; --r) {
    const T u = y[4 + r], w = y[5 + r];
    y[4 + r] = k.c[r] * u + k.s[r] * w;
    y[5 + r] = k.c[r] * w - k.s[r] * u;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const T t = y[i], b = y[4 + i];
    y[i] = t + b;
    y[4 + i] = t - b;
  }
}

// B of the block's own window and A of the next -> the block's 8 samples.
template <class T>
__device__ __forceinline__ void block_of(const T (&b)[4], const T (&a)[4], T (&x)[8], const LotConsts<T>& k) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    x[2 * i] = (b[i] + a[i]) * k.dh[2 * i];
    x[2 * i + 1] = (b[i] - a[i]) * k.dh[2 * i + 1];
  }
  block8::fl_inverse<T>(x);
}

// Stages the kRows x kSCols region into shared memory through registers: every global load of a thread is
// issued before its first shared store (memory-level parallelism). load(r, c) reads element (r, c) or 0.
template <class T, class Load>
__device__ __forceinline__ void stage(T* s, const Load& load) {
  using G = Tile<T>;
  constexpr int kN = G::kRows * G::kSCols, kIters = (kN + G::kThreads - 1) / G::kThreads;
  T v[kIters];
#pragma unroll
  for (int it = 0; it < kIters; ++it) {
    const int idx = static_cast<int>(threadIdx.x) + it * G::kThreads;
    v[it] = idx < kN ? load(idx / G::kSCols, idx % G::kSCols) : T(0);
  }
#pragma unroll
  for (int it = 0; it < kIters; ++it) {
    const int idx = static_cast<int>(threadIdx.x) + it * G::kThreads;
    if (idx < kN) s[(idx / G::kSCols) * G::kSStride + idx % G::kSCols] = v[it];
  }
}

// Forward: in h x w (data), out (h+8) x (w+8); blockIdx.z = matrix.
template <class T>
__global__ void __launch_bounds__(256) lot_forward_kernel(const T* __restrict__ in, T* __restrict__ out, int h, int w,
                                                          LotConsts<T> k) {
  using G = Tile<T>;
  __shared__ T s[G::kRows * G::kSStride];
  __shared__ T wsh[G::kRows * G::kWStride];
  const int tid = threadIdx.x;
  const int j0 = blockIdx.y * G::kTy, i0 = blockIdx.x * G::kTx;  // first window row / column
  const int ow = w + 8, oh = h + 8;
  in += static_cast<std::int64_t>(blockIdx.z) * h * w;
  out += static_cast<std::int64_t>(blockIdx.z) * oh * ow;
  const int r0 = 8 * j0 - 8, c0 = 8 * i0 - 8;  // data origin of the loaded region (one block of halo)
  stage(s, [&](int r, int c) {
    const int gr = r0 + r, gc = c0 + c;
    return (gr >= 0 && gr < h && gc >= 0 && gc < w) ? in[static_cast<std::int64_t>(gr) * w + gc] : T(0);
  });
  __syncthreads();
  // A: rows, per block.
  for (int u = tid; u < G::kRows * (G::kTx + 1); u += G::kThreads) {
    const int r = u % G::kRows, b = u / G::kRows;
    T* p = s + r * G::kSStride + 8 * b;
    T v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = p[i];
    to_pq(v, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) p[i] = v[i];
  }
  __syncthreads();
  // B: rows, per window (p of local block x, q of block x+1).
  for (int u = tid; u < G::kRows * G::kTx; u += G::kThreads) {
    const int r = u % G::kRows, x = u / G::kRows;
    const T* p = s + r * G::kSStride + 8 * x;
    T pp[4], qq[4], y[8];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      pp[i] = p[i];
      qq[i] = p[12 + i];
    }
    window(pp, qq, y, k);
    T* o = wsh + r * G::kWStride + 8 * x;
#pragma unroll
    for (int i = 0; i < 8; ++i) o[i] = y[i];
  }
  __syncthreads();
  // C: columns, per block.
  for (int u = tid; u < G::kWCols * (G::kTy + 1); u += G::kThreads) {
    const int c = u % G::kWCols, b = u / G::kWCols;
    T v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = wsh[(8 * b + i) * G::kWStride + c];
    to_pq(v, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) wsh[(8 * b + i) * G::kWStride + c] = v[i];
  }
  __syncthreads();
  // D: columns, per window, to global.
  for (int u = tid; u < G::kWCols * G::kTy; u += G::kThreads) {
    const int c = u % G::kWCols, y0 = u / G::kWCols;
    const int gj = j0 + y0, gc = 8 * i0 + c;
    if (8 * gj >= oh || gc >= ow) continue;
    T pp[4], qq[4], y[8];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      pp[i] = wsh[(8 * y0 + i) * G::kWStride + c];
      qq[i] = wsh[(8 * y0 + 12 + i) * G::kWStride + c];
    }
    window(pp, qq, y, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) out[static_cast<std::int64_t>(8 * gj + i) * ow + gc] = y[i];
  }
}

// Inverse: in (h+8) x (w+8) coefficients, out h x w; blockIdx.z = matrix.
template <class T>
__global__ void __launch_bounds__(256) lot_inverse_kernel(const T* __restrict__ in, T* __restrict__ out, int h, int w,
                                                          LotConsts<T> k) {
  using G = Tile<T>;
  __shared__ T s[G::kRows * G::kSStride];
  __shared__ T wsh[G::kRows * G::kWStride];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * G::kTy, n0 = blockIdx.x * G::kTx;  // first data block row / column
  const int iw = w + 8, ih = h + 8;
  in += static_cast<std::int64_t>(blockIdx.z) * ih * iw;
  out += static_cast<std::int64_t>(blockIdx.z) * h * w;
  const int r0 = 8 * m0, c0 = 8 * n0;  // windows m0.. and n0.. (one window of halo below and right)
  stage(s, [&](int r, int c) {
    const int gr = r0 + r, gc = c0 + c;
    return (gr < ih && gc < iw) ? in[static_cast<std::int64_t>(gr) * iw + gc] : T(0);
  });
  __syncthreads();
  // A: rows, per window -> (A, B) in place.
  for (int u = tid; u < G::kRows * (G::kTx + 1); u += G::kThreads) {
    const int r = u % G::kRows, b = u / G::kRows;
    T* p = s + r * G::kSStride + 8 * b;
    T v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = p[i];
    to_ab(v, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) p[i] = v[i];
  }
  __syncthreads();
  // B: rows, per data block x: B of window x, A of window x+1.
  for (int u = tid; u < G::kRows * G::kTx; u += G::kThreads) {
    const int r = u % G::kRows, x = u / G::kRows;
    const T* p = s + r * G::kSStride + 8 * x;
    T bb[4], aa[4], v[8];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      bb[i] = p[4 + i];
      aa[i] = p[8 + i];
    }
    block_of(bb, aa, v, k);
    T* o = wsh + r * G::kWStride + 8 * x;
#pragma unroll
    for (int i = 0; i < 8; ++i) o[i] = v[i];
  }
  __syncthreads();
  // C: columns, per window.
  for (int u = tid; u < G::kWCols * (G::kTy + 1); u += G::kThreads) {
    const int c = u % G::kWCols, b = u / G::kWCols;
    T v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = wsh[(8 * b + i) * G::kWStride + c];
    to_ab(v, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) wsh[(8 * b + i) * G::kWStride + c] = v[i];
  }
  __syncthreads();
  // D: columns, per data block, to global.
  for (int u = tid; u < G::kWCols * G::kTy; u += G::kThreads) {
    const int c = u % G::kWCols, y0 = u / G::kWCols;
    const int gm = m0 + y0, gc = 8 * n0 + c;
    if (8 * gm >= h || gc >= w) continue;
    T bb[4], aa[4], v[8];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      bb[i] = wsh[(8 * y0 + 4 + i) * G::kWStride + c];
      aa[i] = wsh[(8 * y0 + 8 + i) * G::kWStride + c];
    }
    block_of(bb, aa, v, k);
#pragma unroll
    for (int i = 0; i < 8; ++i) out[static_cast<std::int64_t>(8 * gm + i) * w + gc] = v[i];
  }
}

template <class T>
class LotGpuPlan final : public GpuPlan {
 public:
  explicit LotGpuPlan(const core::TransformDesc& d)
      : GpuPlan(d, d.bytes(), static_cast<std::size_t>(d.out_shape().count() * d.batch) * sizeof(T)),
        k_(lot_consts<T>()) {}

 protected:
  void run(const void* in, void* out, cudaStream_t s) const override {
    using G = Tile<T>;
    const auto& d = desc();
    const bool fwd = d.op == core::Op::kLot;
    const core::Shape2 data = fwd ? d.shape : d.out_shape();
    const int h = static_cast<int>(data.rows), w = static_cast<int>(data.cols);
    // Forward: (h/8+1) x (w/8+1) windows; inverse: (h/8) x (w/8) data blocks.
    const int ny = h / 8 + (fwd ? 1 : 0), nx = w / 8 + (fwd ? 1 : 0);
    const dim3 grid(static_cast<unsigned>((nx + G::kTx - 1) / G::kTx), static_cast<unsigned>((ny + G::kTy - 1) / G::kTy),
                    static_cast<unsigned>(d.batch));
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    if (fwd)
      DCT_LAUNCH((lot_forward_kernel<T>), grid, dim3(G::kThreads), s, src, dst, h, w, k_);
    else
      DCT_LAUNCH((lot_inverse_kernel<T>), grid, dim3(G::kThreads), s, src, dst, h, w, k_);
  }

 private:
  LotConsts<T> k_;
};

class LotGpuBackend final : public core::Backend {
 public:
  std::string_view name() const override { return "cuda-lot"; }
  std::string_view description() const override {
    return "8x8 LOT (Malvar type-I fast): one kernel per direction, rows and columns in shared memory with halos";
  }
  std::vector<core::Op> ops() const override { return {core::Op::kLot, core::Op::kIlot}; }
  std::string_view sizes() const override { return "H, W multiples of 8 (ilot: and >= 16), < 2^31 per matrix"; }
  const core::Runtime& runtime() const override { return cuda_runtime(); }
  core::Support supports(const core::TransformDesc& d) const override {
    using core::Support;
    if (d.op != core::Op::kLot && d.op != core::Op::kIlot) return Support::no("implements lot and ilot only");
    const std::int64_t min = d.op == core::Op::kLot ? 8 : 16;
    if (d.shape.rows < min || d.shape.cols < min || d.shape.rows % 8 || d.shape.cols % 8)
      return Support::no("shape " + core::to_string(d.shape) + ": " + std::string(core::to_string(d.op)) +
                         " needs H and W multiples of 8" + (min == 16 ? " and >= 16" : ""));
    if (d.batch < 1 || d.batch > 65535) return Support::no("batch must be 1..65535");
    if ((d.shape.rows + 8) * (d.shape.cols + 8) >= (std::int64_t{1} << 31)) return Support::no("matrix too large");
    if ((d.shape.rows / 8 + 1 + Tile<float>::kTy - 1) / Tile<float>::kTy > 65535)
      return Support::no("more than " + std::to_string(8 * Tile<float>::kTy * 65535 - 8) + " rows");
    return Support::yes();
  }
  std::unique_ptr<core::Plan> make_plan(const core::TransformDesc& d) const override {
    if (core::Support s = supports(d); !s) throw_unsupported("cuda-lot", d, s);
    activate_device();
    if (d.prec == core::Precision::kF32) return std::make_unique<LotGpuPlan<float>>(d);
    return std::make_unique<LotGpuPlan<double>>(d);
  }
};

}  // namespace

std::unique_ptr<core::Backend> make_lot_backend() { return std::make_unique<LotGpuBackend>(); }

}  // namespace dct::cuda
