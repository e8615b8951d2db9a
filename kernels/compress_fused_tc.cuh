#pragma once
/* v6 of cuda-jpeg-fused (DCTOOL_JPEG_FUSED=v6): the 8x8 DCTs on the tensor cores (mma.sync m16n8k16, f16 in,
   f32 accumulate). v5's accounting (notes/block8.md) put the four 8-point graphs per plane, their transposes
   and the quantizer tables at ≈ 60 of its 126 instructions per pixel; here they are four MMAs per plane and
   block pair (0.25 warp-instructions per pixel each) and three f16x2 packings, with no transposes at all.

   One warp codes a block pair (8 rows x 16 columns: blocks A and B side by side), lane (g, t) = (lane / 4,
   lane % 4). With C' = 2√2 C (C the orthonormal DCT-II matrix: C' has rows of ones and of ±1 at 0 and 4,
   √2 cos elsewhere) the 2-D transform is F' = C' X C'ᵀ = 8 F. Four products, each D = A·B (+ C) with a
   constant 16x16 A and the data as B (16 x 8, column n = g, rows k = 2t, 2t+1 in b0 and 2t+8, 2t+9 in b1):
     1. rows:     B = the samples − 128 (thread: row g, columns 4t .. 4t+3 of the pair, the slot order folded
                  into A1), A1 = C' per block on the slots of that block: D1[(blk, u)][r] = Σ_c C'[u][c] X[r][c].
     2. columns:  the accumulator of step 1 as B (its (row g, cols 2t, 2t+1 / g+8) layout is the B layout of
                  the transposed matrix: no shuffles), A2 = diag(C', C'): D2[(blk, v)][u] = F'[v][u].
     3. inverse along u: the dequantized q·Q as B, A3 = diag(C'ᵀ, C'ᵀ) / 8: D3[(blk, x)][v] = W[v][x].
     4. inverse along v: A4 = diag(C'ᵀ, C'ᵀ), accumulator initialised to 128.5: D4[(blk, y)][x] = sample + 0.5,
                  i.e. row g, columns 2t, 2t+1 of block A (d0, d1) and of block B (d2, d3).
   Quantizer: q = floor(F'·r + c) onto M (FFMA, FADD.RM: M + q, the histogram's integer), r = fl(1/(8Q)),
   c = 1/2, or fl(1/2 + 1/(16Q)) at the tie coefficients (v, u) ∈ {0, 4}²: there F' is an exact integer (rows 0
   and 4 of C' are ±1, so the MMAs add integers exactly) and v5's proof applies (compress_fused.cuh,
   quantize_lane). Dequantizer: FFMA(M + q, Q, −M·Q) = q·Q exactly (an integer < 2048: exact in f16).
   Precision: the samples and q·Q are exact in f16; C' and the two intermediate products are rounded to f16
   (11 bits), so F' carries ≈ 2^-12 relative error: coefficients within that of a rounding boundary may be
   quantized the other way than in f32. Modelled in numpy before writing this: PSNR(exact f64 pipeline, this one)
   59.8–63.0 dB at quality 10–90 on the sample images, PSNR against the original changed by < 0.002 dB; the gpu test
   holds it to DESIGN's CPU/GPU criterion (> 50 dB) and to the CPU's nonzero count and entropy (H200, run10:
   PSNR(v5, v6) 57.7–63.8 dB).
   Measured (notes/block8.md, "Fused jpeg, v6"): correct but slower than v5 (RGB) and v3 (gray) — 108 instructions
   per pixel against the ≈ 67 predicted, issued at 0.57 per scheduler — so it is opt-in, not a default.
   Colour conversion, output rounding and byte packing are v3's (shared helpers). Edges as v3/v5: rows and columns
   clamped on load (the §4 padding), stores cropped; block B of the last pair may lie past the padded width (odd
   blocks_x): coded, neither stored nor counted. Whole warps past the image run along (MMAs are warp-wide). */
#include <cmath>
#include <cstddef>

#include "kernels/compress_fused.cuh"

#if defined(__CUDACC__)
#define DCT_TC_NOINLINE __noinline__  // the edge paths: out of the main loop's code
#else
#define DCT_TC_NOINLINE
#endif

namespace dct::cuda::jpeg_fused::tc {

constexpr int kWarps = 8;              // block pairs per CTA, side by side: an 8 x 128 pixel segment of a strip
constexpr int kThreads = 32 * kWarps;
constexpr int kStrips = 16;            // default strips per CTA (Params::tc_strips; grid: ctas_x x ceil(strips / tc_strips)):
                                       // the lane set-up (divergent constant-bank reads) paid once per 16 strips

__host__ __device__ constexpr std::size_t smem_bytes(int half_bins) {
  return 2 * static_cast<std::size_t>(half_bins) * sizeof(unsigned);
}

// C' (row-major, C'[k][n]) into the kernel parameters.
inline void make_cprime(float (&cp)[64]) {
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 8; ++n)
      cp[8 * k + n] = k == 0 ? 1.f : static_cast<float>(1.4142135623730951 * std::cos(3.141592653589793 * k * (2 * n + 1) / 16.0));
  for (int n = 0; n < 8; ++n) cp[32 + n] = (n == 0 || n == 3 || n == 4 || n == 7) ? 1.f : -1.f;  // exactly ±1
}

// f16x2 {lo, hi}, each rounded to nearest even.
__device__ __forceinline__ unsigned h2(float lo, float hi) {
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#elif defined(DCT_EMULATE)
  return emu_h2(lo, hi);
#else
  return 0u * static_cast<unsigned>(lo + hi);
#endif
}

// Two bytes of w (k = 0: bytes 0, 1; k = 1: bytes 2, 3) as f16x2 of byte − 128, exactly: the f16 with bits
// 0x6400 | b is 1024 + b; minus 1152.
__device__ __forceinline__ unsigned bytes_h2(unsigned w, int k) {
  const unsigned v = __byte_perm(w, 0x64646464u, k == 0 ? 0x4140u : 0x4342u);
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(0x64806480u));
  return r;
#elif defined(DCT_EMULATE)
  return emu_hsub2(v, 0x64806480u);
#else
  return v;
#endif
}

struct AFrag {
  unsigned r[4];  // f16x2: (g, 2t..2t+1), (g+8, 2t..2t+1), (g, 2t+8..2t+9), (g+8, 2t+8..2t+9)
};

// This lane's fragment of the 16 x 16 matrix f(m, k). z = 0 (Params::zero) is added as z·(salt + 1 .. 4) to the
// four registers: expressions the compiler can neither fold nor merge (salt: distinct per matrix), so every
// fragment stays in its own four registers across the loop (with equal or known-zero values ptxas shares the
// registers and re-assembles the quads with MOVs before every MMA).
template <class F>
__device__ __forceinline__ AFrag afrag(int g, int t, float z, int salt, F f) {
  auto reg = [&](int i, int m, int k) {
    const float zi = z * static_cast<float>(salt + i + 1);
    return h2(f(m, k) + zi, f(m, k + 1) + zi);
  };
  return {{reg(0, g, 2 * t), reg(1, g + 8, 2 * t), reg(2, g, 2 * t + 8), reg(3, g + 8, 2 * t + 8)}};
}

// D = A·B + C over the warp; b0: B rows 2t, 2t+1 of column g, b1: rows 2t+8, 2t+9.
__device__ __forceinline__ void mma(float (&d)[4], const AFrag& a, unsigned b0, unsigned b1, const float (&c)[4]) {
#if defined(__CUDA_ARCH__)
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b0), "r"(b1), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
#elif defined(DCT_EMULATE)
  emu_mma16816(d, a.r, b0, b1, c);
#else
  for (int i = 0; i < 4; ++i) d[i] = c[i] + static_cast<float>(a.r[0] + b0 + b1);
#endif
}

// The four constant matrices of this lane.
struct Mats {
  AFrag a1, a2, a3, a4;
};

// z: Params::zero (see afrag).
__device__ __forceinline__ Mats make_mats(const float* cp, float z, int g, int t) {
  Mats m;
  // Step 1's slots: k = 2t' + e holds column 4t' + e of the pair, k = 2t' + 8 + e column 4t' + 2 + e.
  m.a1 = afrag(g, t, z, 0, [cp](int r, int k) {
    const int c = 4 * ((k & 7) >> 1) + 2 * (k >> 3) + (k & 1);
    return (r >> 3) == (c >> 3) ? cp[8 * (r & 7) + (c & 7)] : 0.f;
  });
  m.a2 = afrag(g, t, z, 4, [cp](int i, int j) { return (i >> 3) == (j >> 3) ? cp[8 * (i & 7) + (j & 7)] : 0.f; });
  m.a3 = afrag(g, t, z, 8, [cp](int i, int j) { return (i >> 3) == (j >> 3) ? 0.125f * cp[8 * (j & 7) + (i & 7)] : 0.f; });
  m.a4 = afrag(g, t, z, 12, [cp](int i, int j) { return (i >> 3) == (j >> 3) ? cp[8 * (j & 7) + (i & 7)] : 0.f; });
  return m;
}

// One quantization table at this lane's two positions (v, u) = (g, 2t + e), e = 0, 1 (u odd: never a tie).
struct Quant {
  float r[2];    // fl(1/(8Q))
  float c0;      // 1/2, or fl(1/2 + 1/(16Q)) at a tie coefficient
  float q[2];    // Q
  float nmq[2];  // −M·Q (exact: 3Q · 2^22)
};

__device__ __forceinline__ Quant make_quant(const Table& tb, int g, int t) {
  Quant qt;
  const int k0 = 8 * g + 2 * t;
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    qt.q[e] = tb.qf[k0 + e];
    qt.r[e] = __frcp_rn(8.f * qt.q[e]);
    qt.nmq[e] = -kMagic * qt.q[e];
  }
  qt.c0 = tie_slot(k0) >= 0 ? tb.tie_c[tie_slot(k0)] : 0.5f;
  return qt;
}

// hist[q]++ for bits b = bits(M + q), zeros included (their bin is cleared before the flush: the host counts
// zeros as coefficients − nonzero). No branch: red.shared of 1 to an address, which ptxas makes one ATOMS.POPC.INC
// (the lanes of one address are added at once, so the many zeros cost one).
__device__ __forceinline__ void hist_add(rows::HistAt h, unsigned b) {
#if defined(__CUDA_ARCH__)
  asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(h.base + 4u * b) : "memory");
#else
  atomicAdd(&h.hist[static_cast<int>(b - kMagicBits) + h.half_bins], 1u);
#endif
}

// One plane of the warp's block pair: b0, b1 (f16x2 of this lane's four samples − 128, step 1's slots) in; the
// reconstruction + 128.5 at (row g; columns 2t, 2t+1 of block A, of block B) out in o; every q into the CTA's
// histogram (blocks past the padded width and warps past the image code zeros: only the zero bin sees them).
__device__ __forceinline__ void code_pair(const Mats& m, const Quant& qt, const float (&c4)[4], unsigned b0,
                                          unsigned b1, float (&o)[4], rows::HistAt h_at) {
  const float zero[4] = {0.f, 0.f, 0.f, 0.f};
  float d[4];
  mma(d, m.a1, b0, b1, zero);
  mma(d, m.a2, h2(d[0], d[1]), h2(d[2], d[3]), zero);
  float z[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) z[i] = __fadd_rd(__fmaf_rn(d[i], qt.r[i & 1], (i & 1) ? 0.5f : qt.c0), kMagic);
#pragma unroll
  for (int i = 0; i < 4; ++i) hist_add(h_at, fbits(z[i]));
#pragma unroll
  for (int i = 0; i < 4; ++i) z[i] = __fmaf_rn(z[i], qt.q[i & 1], qt.nmq[i & 1]);
  mma(d, m.a3, h2(z[0], z[1]), h2(z[2], z[3]), zero);
  mma(o, m.a4, h2(d[0], d[1]), h2(d[2], d[3]), c4);
}

// M + clamp(floor(v), 0, 255): the reconstructed Y as rgb_from_ycc takes it (v3's luma_out).
__device__ __forceinline__ float luma_clamped(float v) {
  return fminf(fmaxf(__fadd_rd(v, kMagic), kMagic), kMagic + 255.f);
}

// 4 bytes of a plane row at column x of the pair (x % 4 == 0) where they are not one aligned word inside the
// image: bytes with the column clamped (edge replication) up to the padded width wp, 128 past it (a block past
// the padded width then codes to all-zero q).
__device__ DCT_TC_NOINLINE unsigned load4_edge(const unsigned char* row, int w, int wp, int x) {
  unsigned b = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    b |= (x + k < wp ? static_cast<unsigned>(__ldg(row + min(x + k, w - 1))) : 0x80u) << (8 * k);
  return b;
}

// Bytes 0, 1 of v at columns x, x + 1 and bytes 2, 3 at x + 8, x + 9 of a row, those inside the image.
__device__ DCT_TC_NOINLINE void store4_edge(unsigned char* row, int w, int x, unsigned v) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int c = x + (k & 1) + 8 * (k >> 1);
    if (c < w) row[c] = static_cast<unsigned char>(v >> (8 * k));
  }
}

// The work of thread tid of CTA (cx, cy): warp w codes block pair cx·kWarps + w of strips kStrips·cy ...
template <int kPlanes>
__device__ __forceinline__ void fused_jpeg_cta(const Params& p, unsigned* hist, int tid, int cx, int cy) {
  hist_clear(p, hist, tid, kThreads);
  const int lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int pair = cx * kWarps + (tid >> 5);
  const bool active = pair < (p.blocks_x + 1) / 2;  // warp-uniform
  const int w = p.w, h = p.h, wp = 8 * p.blocks_x;
  const int xin = 16 * pair + 4 * t, xa = 16 * pair + 2 * t;       // this lane's input / output columns
  const bool fast_in = (w & 3) == 0 && xin + 4 <= w;                // one aligned word
  const bool fast_out = (w & 1) == 0 && xa + 10 <= w;               // two aligned 2-byte pieces
  const long long hw = static_cast<long long>(h) * w;
  const Mats m = make_mats(p.cprime, p.zero, g, t);
  const Quant ql = make_quant(p.tab[0], g, t);
  const Quant qc = make_quant(p.tab[kPlanes == 3 ? 1 : 0], g, t);
  const float c4[4] = {128.5f + 17 * p.zero, 128.5f + 18 * p.zero, 128.5f + 19 * p.zero, 128.5f + 20 * p.zero};  // afrag
  const rows::HistAt h_at = rows::hist_at(hist, p.half_bins);
  const unsigned e = p.byte_exp;
  __syncthreads();
  const int s0 = cy * p.tc_strips, s1 = min(s0 + p.tc_strips, p.strips);
  const unsigned char* const in_lane = p.in + xin;
  auto load = [&](int strip, unsigned (&in)[kPlanes]) {  // one branch per strip, not per plane
    const long long row = static_cast<long long>(min(8 * strip + g, h - 1)) * w;
    if (active && fast_in) {
#pragma unroll
      for (int pl = 0; pl < kPlanes; ++pl) in[pl] = __ldg(reinterpret_cast<const unsigned*>(in_lane + row + pl * hw));
    } else {
#pragma unroll
      for (int pl = 0; pl < kPlanes; ++pl) in[pl] = active ? load4_edge(p.in + pl * hw + row, w, wp, xin) : 0x80808080u;
    }
  };
  unsigned next[kPlanes];
  load(s0, next);
  for (int strip = s0; strip < s1; ++strip) {
    unsigned in[kPlanes];
#pragma unroll
    for (int pl = 0; pl < kPlanes; ++pl) in[pl] = next[pl];
    if (strip + 1 < s1) load(strip + 1, next);  // in flight while this strip is coded
    const int yr = 8 * strip + g;
    unsigned out[kPlanes];  // bytes: columns xa, xa + 1, xa + 8, xa + 9
    if constexpr (kPlanes == 1) {
      float o[4];
      code_pair(m, ql, c4, bytes_h2(in[0], 0), bytes_h2(in[0], 1), o, h_at);
      out[0] = pack4(__fadd_rd(o[0], kMagic), __fadd_rd(o[1], kMagic), __fadd_rd(o[2], kMagic),
                     __fadd_rd(o[3], kMagic));
    } else {
      float yv[4], cb[4], cr[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const uint2 r = make_uint2(in[0], 0u), gr = make_uint2(in[1], 0u), b = make_uint2(in[2], 0u);
        ycc_from_rgb(byte_float(r, c, e), byte_float(gr, c, e), byte_float(b, c, e), yv[c], cb[c], cr[c]);
      }
      float oy[4], ob[4], orr[4];
      code_pair(m, ql, c4, h2(yv[0], yv[1]), h2(yv[2], yv[3]), oy, h_at);
      code_pair(m, qc, c4, h2(cb[0], cb[1]), h2(cb[2], cb[3]), ob, h_at);
      code_pair(m, qc, c4, h2(cr[0], cr[1]), h2(cr[2], cr[3]), orr, h_at);
      float o[3][4];
#pragma unroll
      for (int c = 0; c < 4; ++c)
        rgb_from_ycc(luma_clamped(oy[c]), __fsub_rn(luma_clamped(ob[c]), kMagic + 128.f),
                     __fsub_rn(luma_clamped(orr[c]), kMagic + 128.f), o[0][c], o[1][c], o[2][c]);
#pragma unroll
      for (int pl = 0; pl < 3; ++pl) out[pl] = pack4(o[pl][0], o[pl][1], o[pl][2], o[pl][3]);
    }
    if (active && yr < h) {
      unsigned char* const row = p.out + static_cast<long long>(yr) * w;
      if (fast_out) {
#pragma unroll
        for (int pl = 0; pl < kPlanes; ++pl) {
          *reinterpret_cast<unsigned short*>(row + pl * hw + xa) = static_cast<unsigned short>(out[pl]);
          *reinterpret_cast<unsigned short*>(row + pl * hw + xa + 8) = static_cast<unsigned short>(out[pl] >> 16);
        }
      } else {
        for (int pl = 0; pl < kPlanes; ++pl) store4_edge(row + pl * hw, w, xa, out[pl]);
      }
      for (int ch = kPlanes; ch < p.channels; ++ch) {  // alpha: carried through, this lane's 4 input columns
        const unsigned char* src = p.in + ch * hw + static_cast<long long>(yr) * w;
        unsigned char* dst = p.out + ch * hw + static_cast<long long>(yr) * w;
        if (fast_in) {
          *reinterpret_cast<unsigned*>(dst + xin) = __ldg(reinterpret_cast<const unsigned*>(src + xin));
        } else {
          for (int k = 0; k < 4 && xin + k < w; ++k) dst[xin + k] = src[xin + k];
        }
      }
    }
  }
  __syncthreads();
  if (tid == p.half_bins % kThreads) hist[p.half_bins] = 0;  // the zeros (this thread flushes that bin)
  hist_flush(p, hist, tid, kThreads);
}

}  // namespace dct::cuda::jpeg_fused::tc
