#pragma once
/* Row real FFTs of the reordered matrix ([1] eq. 13), the reorder folded into the kernels' own global
   loads and stores: the first stage of cuda-fft2d's DCT-II "row R2C -> column C2C -> post_2d" (and the last
   stage of its inverse). Rows of n2 = 2M reals, M = 2^p, 8 <= M <= 4096 (n2 = 16 .. 8192).

   nat(m, n) = 2m for m < (n+1)/2, else 2(n-m)-1 (eq. 13); row r of the reordered matrix is input row nat(r, n1)
   (one address per line) and its element c is x_row(nat(c, n2)).

   Forward. v(c) = x_row(nat(c)), z(m) = v(2m) + i v(2m+1) (m < M), Z = FFT_M(z) and the split
     V(k) = E − P,  V(M−k) = conj(E + P),  E = ½[Z(k) + conj Z(M−k)],  P = i W^k ½[Z(k) − conj Z(M−k)],
   W = e^{−2πi/n2}, Z(M) ≡ Z(0), k = 0..M (the second line is the first at M−k, with W^{M−k} = −conj W^k).
   Proof: Z(k) = Σ_m v(2m) W^{2mk} + i Σ_m v(2m+1) W^{2mk} = Ev(k) + i Od(k) with Ev, Od the (Hermitian)
   DFTs of the even and odd samples; Ev = E, i Od = Z − E, V(k) = Ev(k) + W^k Od(k) = E − i W^k (Z − E).
   The reorder in z: for j < M/2, 4j+3 < n2 and nat(2j) = 4j, nat(2j+1) = 4j+2, nat(n2−2−2j) = 4j+3,
   nat(n2−1−2j) = 4j+1, so the 16 bytes x_row[4j .. 4j+3] carry
     z(j) = x[4j] + i x[4j+2]  and  z(M−1−j) = x[4j+3] + i x[4j+1].
   Inverse (unnormalized, cuFFT C2R): with E' = V(k) + conj V(M−k), Q = i conj(W^k) [conj V(M−k) − V(k)],
     Z'(k) = E' − Q = 2 Z(k),  Z'(M−k) = conj(E' + Q),  z' = IFFT_M(Z') (unnormalized) = 2M z,
   and z'(m) goes back to the natural positions as above (Im V(0), Im V(M) are zeroed: C2R ignores them).
   IFFT_M(Z') = conj FFT_M(conj Z'): both conjugations are sign flips in the merge and in the stores.

   FFT_M: the fixed-size Stockham machinery of kernels/dct4/rows.cuh (dct4_rows_fixed): M a template
   parameter, VPT = 8 or 16 complex values per thread (16 where it saves a shared pass), a first pass of radix
   R0 = M / VPT^(passes−1) and radix-VPT passes, padded ping-pong shared buffers (one barrier per pass),
   per-pass twiddle runs W^1, W^2, W^4 (, W^8). The inverse runs the transposed passes in reverse order
   (F_M is symmetric: (P_L ⋯ P_1)^T = P_1^T ⋯ P_L^T; a transposed pass reads where the pass wrote, takes the
   DFT, then the twiddles, and writes where the pass read), so it consumes Z in the forward's output layout
   and produces z in the forward's input layout.

   Lanes. A line has TPL = M/VPT threads; lane pairs (t, t ^ kH), kH = min(16, TPL/2), exchange with one
   shuffle. Loads/stores of x (first pass): butterfly jp of the pair owns the mirror points (k ↔ M−1−k at
   register i ↔ VPT−1−i), so a thread loads the 16-byte quads of its points k < M/2 (i mod R0 < R0/2) and
   sends z(M−1−k) to its partner (dct4_rows_fixed's DIRECT layout). Split/merge (last pass): butterfly jl of
   the pair owns k ↔ M−k (pairs jl ↔ TPL−jl, q ↔ VPT−1−q); the two self-paired butterflies 0 and TPL/2 share
   a lane pair and use their own registers. Each thread computes V(k) and V(M−k) for half its points
   (VPT/2 complex shuffles), the lane of butterfly 0 also V(M/2) (and V(M) from Z(0)). Barriers: passes − 1
   per kernel (none for M <= 16, one for M = 32 .. 256, two for M >= 512); the split/merge needs none.

   Global access: x in 16-byte quads, V in 8-byte (f32) / 16-byte (f64) elements (V rows have a pitch >= M+1
   complex given at launch, in general not 16-byte aligned), half-warps on contiguous 128..256-byte runs; VPT/2 quads
   (f32: 128 bytes, f64: 256 bytes at VPT 16) in flight per thread. A CTA of max(2048, M)/VPT threads holds max(2048, M)
   complex points (2048/M lines; M = 4096: one line, 256 threads, 2 x 4352 complex of shared memory).

   Plain CUDA C++ with no host-runtime dependencies: tests/emulate/emulate_rfft.cpp compiles it on the host. */

#include <cmath>
#include <vector>

#include "kernels/common/pdl.cuh"
#include "kernels/dct4/rows.cuh"

namespace dct::cuda::rfft {

using dct4::RowsTypes;

constexpr int kMinLgM = 3, kMaxLgM = 12;  // M = 8 .. 4096

// 16 values per thread where that saves a shared pass (as kernels/dct4/rows.cuh's rows_vpt), else 8.
constexpr int vpt_for(int lgm) {
  return lgm >= 4 && dct4::rows_fixed_passes(lgm, 4) < dct4::rows_fixed_passes(lgm, 3) ? 16 : 8;
}

// Threads per CTA: the CTA holds max(2048, M) complex points.
constexpr int threads_for(int lgm, int vpt) { return (lgm > 11 ? 1 << lgm : 2048) / vpt; }

template <int LGM, int VPT>
struct Geo {
  static constexpr int M = 1 << LGM, N = 2 * M, kLgV = dct4::rows_detail::ilog2(VPT), TPL = M / VPT;
  static constexpr int kThreads = threads_for(LGM, VPT), LPB = kThreads * VPT / M;
  static constexpr int kPasses = dct4::rows_fixed_passes(LGM, kLgV);
  static constexpr int kR0 = 1 << (LGM - (kPasses - 1) * kLgV);
  static constexpr int kBuf = dct4::rows_buf_fixed(M, VPT), kBufs = dct4::rows_fixed_bufs(LGM, kLgV, true);
  static constexpr int kH = TPL >= 32 ? 16 : TPL / 2;
  static constexpr int kSmem = LPB * kBufs * kBuf * 2;  // elements of T
  static_assert((VPT == 8 || VPT == 16) && M >= VPT && LGM <= kMaxLgM && kR0 >= 2);
};

namespace detail {

using namespace dct4::rows_detail;

// The 16 bytes x[4j .. 4j+3]: lo = z(j) = (x[4j], x[4j+2]), hi = z(M−1−j) = (x[4j+3], x[4j+1]).
template <class C>
__device__ __forceinline__ void load_quad(const float* xl, int j, C& lo, C& hi) {
  const float4* p = reinterpret_cast<const float4*>(xl) + j;
  DCT_ASSERT_ALIGNED16(p);
  const float4 f = *p;
  lo = C{f.x, f.z};
  hi = C{f.w, f.y};
}
template <class C>
__device__ __forceinline__ void load_quad(const double* xl, int j, C& lo, C& hi) {
  const double2* p = reinterpret_cast<const double2*>(xl) + 2 * j;
  DCT_ASSERT_ALIGNED16(p);
  const double2 a = p[0], b = p[1];
  lo = C{a.x, b.x};
  hi = C{b.y, a.y};
}
template <class C>
__device__ __forceinline__ void store_quad(float* xl, int j, C lo, C hi) {
  float4* p = reinterpret_cast<float4*>(xl) + j;
  DCT_ASSERT_ALIGNED16(p);
  *p = float4{lo.x, hi.y, lo.y, hi.x};
}
template <class C>
__device__ __forceinline__ void store_quad(double* xl, int j, C lo, C hi) {
  double2* p = reinterpret_cast<double2*>(xl) + 2 * j;
  DCT_ASSERT_ALIGNED16(p);
  p[0] = double2{lo.x, hi.y};
  p[1] = double2{lo.y, hi.x};
}

// Per-thread geometry: line in the CTA, the lane pair's butterflies for the x side (jp) and the V side (jl).
template <class G>
struct Lane {
  int t, line;
  bool upper, b0;  // the pair's upper lane; the pair of butterflies 0 and TPL/2
  int jp, jl;
  __device__ __forceinline__ explicit Lane(int tid) {
    t = tid & (G::TPL - 1);
    line = tid >> ilog2(G::TPL);
    int b = 0;
    upper = false;
    if constexpr (G::kH > 0) {
      b = (t >> ilog2(2 * G::kH)) * G::kH + (t & (G::kH - 1));
      upper = (t & G::kH) != 0;
    }
    b0 = b == 0;
    jp = upper ? G::TPL - 1 - b : b;
    jl = upper ? (b == 0 ? G::TPL / 2 : G::TPL - b) : b;
  }
};

// The line a lane works on: its reordered global line g (b·n1 + r over the batch), whether it exists, and its
// two ping-pong buffers in the dynamic shared memory (both kernels start this way).
template <class G, class C>
struct LineCtx {
  C* lbuf;
  unsigned g;
  bool valid;
  __device__ __forceinline__ LineCtx(unsigned char* smem, const Lane<G>& ln, unsigned lines)
      : lbuf(reinterpret_cast<C*>(smem) + ln.line * G::kBufs * G::kBuf),
        g(blockIdx.x * unsigned(G::LPB) + unsigned(ln.line)),
        valid(g < lines) {}
  __device__ __forceinline__ C* buf(int i) const { return lbuf + (i % 2) * G::kBuf; }
};

// Element offset of the natural row (eq. 13's row order undone) of reordered line g, rows of n elements; nr: that
// row's index in its matrix.
__device__ __forceinline__ unsigned long long natural_row_offset(unsigned g, unsigned n1, unsigned n, unsigned& nr) {
  const unsigned bq = g / n1, r = g - bq * n1;
  nr = r < (n1 + 1) / 2 ? 2 * r : 2 * (n1 - r) - 1;
  return (static_cast<unsigned long long>(bq) * n1 + nr) * n;
}

// The DST's signs (math/dct2d.hpp, kFlipAxis0/1) on a quad of natural row nr: lo carries the even
// columns 4j, 4j+2, hi the odd ones 4j+3, 4j+1. Multipliers for lo and hi.
template <class T>
__device__ __forceinline__ void quad_signs(unsigned sign, unsigned nr, T& slo, T& shi) {
  slo = ((sign & 1u) && (nr & 1u)) ? T(-1) : T(1);
  shi = (sign & 2u) ? -slo : slo;
}

template <class G, class S>
__device__ __forceinline__ S mirror(S v) {
  if constexpr (G::kH == 0)
    return v;
  else
    return __shfl_xor_sync(0xffffffffu, v, G::kH);
}
template <class G, class C>
__device__ __forceinline__ C mirror_c(C v) {
  return C{mirror<G>(v.x), mirror<G>(v.y)};
}

// First-pass point i of butterfly group j0: k = j0 + (i / R0)·TPL + (i mod R0)·M/R0.
template <class G>
__device__ __forceinline__ int kof(int j0, int i) {
  return j0 + (i / G::kR0) * G::TPL + (i % G::kR0) * (G::M / G::kR0);
}

// The s-th point with k < M/2 (s < VPT/2): i mod R0 < R0/2; its mirror M−1−k is the partner's VPT−1−i.
template <class G>
__device__ __forceinline__ constexpr int low_point(int s) {
  return (s / (G::kR0 / 2)) * G::kR0 + s % (G::kR0 / 2);
}

// quad_signs on a thread's first-pass points of natural row nr: v[i] (the quads' even columns, i = low_point(s)) and
// h[s] (their odd columns).
template <class G, class C, int V>
__device__ __forceinline__ void sign_quads(unsigned sign, unsigned nr, C (&v)[V], C (&h)[V / 2]) {
  decltype(v[0].x) slo, shi;
  quad_signs(sign, nr, slo, shi);
#pragma unroll
  for (int s = 0; s < V / 2; ++s) {
    const int i = low_point<G>(s);
    v[i] = C{slo * v[i].x, slo * v[i].y};
    h[s] = C{shi * h[s].x, shi * h[s].y};
  }
}

// W^r (r < VPT) of pass p for k = j mod ns from the per-pass runs (the layout of kernels/dct4/rows.cuh, after tw's
// M split entries).
template <class G, class C>
__device__ __forceinline__ void pass_twiddles(C (&w)[16], const C* __restrict__ tw, int p, int k) {
  constexpr int VPT = 1 << G::kLgV;
  const int ns = G::kR0 << (G::kLgV * (p - 1));
  const C* tp = tw + G::M + dct4::rows_detail::pass_tw_offset(p, G::kR0, G::kLgV) + k;
  w[1] = tp[0];
  w[2] = tp[ns];
  w[4] = tp[2 * ns];
  if constexpr (VPT == 16) w[8] = tp[3 * ns];
  dct4::rows_detail::twiddle_powers<VPT>(w);
}

// Forward split: a = Z(k), b = Z(M−k), w = W^k -> V(k), V(M−k).
template <class C>
__device__ __forceinline__ void split(C a, C b, C w, C& vk, C& vmk) {
  using S = decltype(a.x);
  const S h = S(0.5);
  const C e{h * (a.x + b.x), h * (a.y - b.y)};
  const C o{h * (a.x - b.x), h * (a.y + b.y)};
  const C wo = mul(w, o);
  const C p{-wo.y, wo.x};  // i·w·o
  vk = C{e.x - p.x, e.y - p.y};
  vmk = C{e.x + p.x, -(e.y + p.y)};
}

// Inverse merge: a = V(k), b = V(M−k), w = W^k -> conj Z'(k), conj Z'(M−k) (the inputs of the forward-sign FFT).
template <class C>
__device__ __forceinline__ void merge(C a, C b, C w, C& zk, C& zmk) {
  const C e{a.x + b.x, a.y - b.y};   // V(k) + conj V(M−k)
  const C d{b.x - a.x, -b.y - a.y};  // conj V(M−k) − V(k)
  const C cw{w.x, -w.y};
  const C t = mul(cw, d);
  const C q{-t.y, t.x};           // i·conj(w)·d
  zk = C{e.x - q.x, q.y - e.y};   // conj(E' − Q)
  zmk = C{e.x + q.x, e.y + q.y};  // conj Z'(M−k) = E' + Q
}

}  // namespace detail

// Forward: lines g < lines (g = b·n1 + r) of V (row pitch `pitch` >= M+1 complex) from input rows b·n1 + nat(r, n1) of
// x, each value read negated where the DST's `sign` mask says (quad_signs);
// x. Block: Geo::kThreads threads, dynamic shared memory Geo::kSmem·sizeof(T); tw from rfft_twiddles.
template <class T, int LGM, int VPT>
__global__ void __launch_bounds__(threads_for(LGM, VPT))
    rfft_rows_fwd(const T* __restrict__ x, typename RowsTypes<T>::cx* __restrict__ V,
                  const typename RowsTypes<T>::cx* __restrict__ tw, unsigned n1, unsigned lines, unsigned pitch,
                  unsigned sign) {
  ::dct::cuda::wait_previous_grid();  // launched by launch_dependent
  using namespace detail;
  using C = typename RowsTypes<T>::cx;
  using G = Geo<LGM, VPT>;
  constexpr int M = G::M, N = G::N, TPL = G::TPL, R0 = G::kR0, L = G::kPasses;
  extern __shared__ __align__(16) unsigned char rfft_smem[];
  const Lane<G> ln(static_cast<int>(threadIdx.x));
  const LineCtx<G, C> lc(rfft_smem, ln, lines);
  const auto buf = [&](int i) { return lc.buf(i); };
  const unsigned g = lc.g;
  const bool valid = lc.valid;
  unsigned nr;
  const T* xl = x + natural_row_offset(g, n1, N, nr);

  C v[VPT];
  {
    C h[VPT / 2];
#pragma unroll
    for (int s = 0; s < VPT / 2; ++s) {
      const int i = low_point<G>(s);
      if (valid)
        load_quad(xl, kof<G>(ln.jp, i), v[i], h[s]);
      else
        v[i] = h[s] = C{};
    }
    if (sign != 0) sign_quads<G>(sign, nr, v, h);
#pragma unroll
    for (int s = 0; s < VPT / 2; ++s) v[VPT - 1 - low_point<G>(s)] = mirror_c<G>(h[s]);
  }
#pragma unroll
  for (int b = 0; b < VPT / R0; ++b) dft<R0>(v + b * R0);
  if constexpr (L > 1) {
    C* dst = buf(0);
#pragma unroll
    for (int b = 0; b < VPT / R0; ++b) {
      const int o = padv<VPT>((ln.jp + b * TPL) * R0);
#pragma unroll
      for (int q = 0; q < R0; ++q) dst[o + q] = v[b * R0 + q];
    }
  }
#pragma unroll
  for (int p = 1; p < L; ++p) {
    const int ns = R0 << (G::kLgV * (p - 1));
    const int j = p == L - 1 ? ln.jl : ln.t;
    const C* src = buf(p - 1);
    C* dst = buf(p);
    __syncthreads();
    const int pj = padv<VPT>(j);
#pragma unroll
    for (int q = 0; q < VPT; ++q) v[q] = src[pj + padv<VPT>(q * TPL)];
    const int k = j & (ns - 1);
    C w[16];
    pass_twiddles<G>(w, tw, p, k);
#pragma unroll
    for (int q = 1; q < VPT; ++q) v[q] = mul(v[q], w[q]);
    dft<VPT>(v);
    if (p < L - 1) {
      const int o = padv<VPT>((j - k) * VPT + k);
#pragma unroll
      for (int q = 0; q < VPT; ++q) dst[o + padv<VPT>(q * ns)] = v[q];
    }
  }
  // v[q] = Z(jl + q·TPL). Pair q with Z(M − k): the partner's v[VPT−1−q], or the own registers for the pair
  // of butterflies 0 (Z(M − q·TPL) = v[(VPT − q) mod VPT]) and TPL/2 (v[VPT−1−q]).
  C* const Vl = V + static_cast<unsigned long long>(g) * pitch;
  const bool lo0 = ln.b0 && !ln.upper, up0 = ln.b0 && ln.upper;
#pragma unroll
  for (int q = 0; q < VPT / 2; ++q) {
    const C s = mirror_c<G>(v[VPT - 1 - q]);
    const C b = lo0 ? v[(VPT - q) % VPT] : up0 ? v[VPT - 1 - q] : s;
    const int k = ln.jl + q * TPL;
    C vk, vmk;
    split(v[q], b, tw[k], vk, vmk);
    if (valid) {
      Vl[k] = vk;
      Vl[M - k] = vmk;
    }
  }
  if (lo0 && valid) {
    C vk, vmk;
    split(v[VPT / 2], v[VPT / 2], tw[M / 2], vk, vmk);
    Vl[M / 2] = vk;
  }
}

// Inverse: lines g of V -> output rows b·n1 + nat(r, n1) of x (values negated where `sign` says). Same launch as the
// forward kernel.
template <class T, int LGM, int VPT>
__global__ void __launch_bounds__(threads_for(LGM, VPT))
    rfft_rows_inv(const typename RowsTypes<T>::cx* __restrict__ V, T* __restrict__ x,
                  const typename RowsTypes<T>::cx* __restrict__ tw, unsigned n1, unsigned lines, unsigned pitch,
                  unsigned sign) {
  ::dct::cuda::wait_previous_grid();  // launched by launch_dependent
  using namespace detail;
  using C = typename RowsTypes<T>::cx;
  using G = Geo<LGM, VPT>;
  constexpr int M = G::M, N = G::N, TPL = G::TPL, R0 = G::kR0, L = G::kPasses, H = VPT / 2;
  extern __shared__ __align__(16) unsigned char rfft_smem[];
  const Lane<G> ln(static_cast<int>(threadIdx.x));
  const LineCtx<G, C> lc(rfft_smem, ln, lines);
  const auto buf = [&](int i) { return lc.buf(i); };
  const unsigned g = lc.g;
  const bool valid = lc.valid;
  const bool lo0 = ln.b0 && !ln.upper, up0 = ln.b0 && ln.upper;

  C v[VPT];
  {
    const C* const Vl = V + static_cast<unsigned long long>(g) * pitch;
    C a[H], bm[H], mid{};
#pragma unroll
    for (int q = 0; q < H; ++q) {
      const int k = ln.jl + q * TPL;
      a[q] = valid ? Vl[k] : C{};
      bm[q] = valid ? Vl[M - k] : C{};
    }
    if (lo0 && valid) mid = Vl[M / 2];
    if (lo0) {  // Im V(0), Im V(M): ignored (C2R)
      a[0].y = 0;
      bm[0].y = 0;
    }
    C zm[H], zmid, unused;
#pragma unroll
    for (int q = 0; q < H; ++q) merge(a[q], bm[q], tw[ln.jl + q * TPL], v[q], zm[q]);
    merge(mid, mid, tw[M / 2], zmid, unused);
    // v[VPT−1−q] = conj Z'(M − k_q): the partner's, or the own values for the pair of butterflies 0 and TPL/2.
#pragma unroll
    for (int q = 0; q < H; ++q) {
      const C s = mirror_c<G>(zm[q]);
      v[VPT - 1 - q] = lo0 ? (q + 1 < H ? zm[(q + 1) % H] : zmid) : up0 ? zm[q] : s;
    }
  }
  // Transposed radix-VPT passes p = L−1 .. 1: read where pass p wrote (registers for the last), DFT,
  // twiddles, write where it read.
#pragma unroll
  for (int p = L - 1; p >= 1; --p) {
    const int ns = R0 << (G::kLgV * (p - 1));
    const int j = p == L - 1 ? ln.jl : ln.t;
    const int k = j & (ns - 1);
    if (p < L - 1) {
      const C* src = buf(p);
      __syncthreads();
      const int o = padv<VPT>((j - k) * VPT + k);
#pragma unroll
      for (int q = 0; q < VPT; ++q) v[q] = src[o + padv<VPT>(q * ns)];
    }
    dft<VPT>(v);
    C w[16];
    pass_twiddles<G>(w, tw, p, k);
#pragma unroll
    for (int q = 1; q < VPT; ++q) v[q] = mul(v[q], w[q]);
    C* dst = buf(p - 1);
    const int pj = padv<VPT>(j);
#pragma unroll
    for (int q = 0; q < VPT; ++q) dst[pj + padv<VPT>(q * TPL)] = v[q];
  }
  // Transposed first pass (span 1, radix R0): v[b·R0 + r] = y(jp + b·TPL + r·M/R0).
  if constexpr (L > 1) {
    const C* src = buf(0);
    __syncthreads();
#pragma unroll
    for (int b = 0; b < VPT / R0; ++b) {
      const int o = padv<VPT>((ln.jp + b * TPL) * R0);
#pragma unroll
      for (int q = 0; q < R0; ++q) v[b * R0 + q] = src[o + q];
    }
  }
#pragma unroll
  for (int b = 0; b < VPT / R0; ++b) dft<R0>(v + b * R0);
  // z' = conj y; z'(k) (k < M/2) and z'(M−1−k) (the partner's v[VPT−1−i]) form the quad at 4k.
  unsigned nr;
  T* const xl = x + natural_row_offset(g, n1, N, nr);
  C h[VPT / 2];
#pragma unroll
  for (int s = 0; s < VPT / 2; ++s) h[s] = mirror_c<G>(v[VPT - 1 - low_point<G>(s)]);
  if (sign != 0) sign_quads<G>(sign, nr, v, h);  // (a branch: multiplying by 1 always cost the f64 inverse 4-6%)
  if (valid) {
#pragma unroll
    for (int s = 0; s < VPT / 2; ++s) {
      const int i = low_point<G>(s);
      store_quad(xl, kof<G>(ln.jp, i), C{v[i].x, -v[i].y}, C{h[s].x, -h[s].y});
    }
  }
}

// ---- launch table and tables (host) ----

template <class T>
using RfftFwdFn = void (*)(const T*, typename RowsTypes<T>::cx*, const typename RowsTypes<T>::cx*, unsigned, unsigned,
                           unsigned, unsigned);
template <class T>
using RfftInvFn = void (*)(const typename RowsTypes<T>::cx*, T*, const typename RowsTypes<T>::cx*, unsigned, unsigned,
                           unsigned, unsigned);

template <class T>
struct RfftLaunch {
  RfftFwdFn<T> fwd = nullptr;
  RfftInvFn<T> inv = nullptr;
  int threads = 0, smem_bytes = 0, lines_per_cta = 0, vpt = 8;
};

namespace detail {
template <class T, int LGM>
RfftLaunch<T> launch_for(int lgm) {
  if constexpr (LGM > kMaxLgM) {
    return {};
  } else {
    if (lgm != LGM) return launch_for<T, LGM + 1>(lgm);
    constexpr int VPT = vpt_for(LGM);
    using G = Geo<LGM, VPT>;
    return {&rfft_rows_fwd<T, LGM, VPT>,
            &rfft_rows_inv<T, LGM, VPT>,
            G::kThreads,
            G::kSmem * static_cast<int>(sizeof(T)),
            G::LPB,
            VPT};
  }
}
}  // namespace detail

// The kernels for M = 2^lgm (kMinLgM <= lgm <= kMaxLgM; fwd == nullptr otherwise).
template <class T>
RfftLaunch<T> rfft_launch(int lgm) {
  return lgm < kMinLgM ? RfftLaunch<T>{} : detail::launch_for<T, kMinLgM>(lgm);
}

// The kernels' table for M = 2^lgm and VPT values per thread, in long double rounded to T: M split twiddles
// W^k = e^{−2πik/2M}, then per pass p >= 1 (span ns, step = M/(VPT·ns)) the runs e^{−2πi·e·k·step/M},
// k < ns, e = 1, 2, 4 (, 8) at M + pass_tw_offset(p, R0, lgv).
template <class T>
std::vector<typename RowsTypes<T>::cx> rfft_twiddles(int lgm, int vpt) {
  const int m = 1 << lgm, lgv = dct4::rows_detail::ilog2(vpt), passes = dct4::rows_fixed_passes(lgm, lgv);
  const int r0 = 1 << (lgm - (passes - 1) * lgv);
  std::vector<long long> num;  // e^{−2πi num/den}: den = 2M for the split entries, M for the runs
  for (int k = 0; k < m; ++k) num.push_back(k);
  for (int p = 1; p < passes; ++p) {
    const int ns = r0 << (lgv * (p - 1)), step = m / (vpt * ns);
    for (int e = 1; e < vpt; e *= 2)
      for (int k = 0; k < ns; ++k) num.push_back(2LL * ((static_cast<long long>(e) * k * step) % m));
  }
  std::vector<typename RowsTypes<T>::cx> tw(num.size());
  for (std::size_t i = 0; i < num.size(); ++i) {
    const long double a = -3.141592653589793238462643383279502884L * static_cast<long double>(num[i]) / m;
    tw[i] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  return tw;
}

}  // namespace dct::cuda::rfft
