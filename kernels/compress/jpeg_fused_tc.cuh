#pragma once
/* The kernel of cuda-jpeg-fused: the 8x8 DCTs on the tensor cores (mma.sync m16n8k16, f16 in; f32 accumulation in
   step 2, whose result the quantizer takes, f16 in steps 1, 3 and 4). In a CPU-exact kernel with eight threads per
   block (docs/decisions.md §2) the four 8-point graphs per plane, their transposes and the quantizer tables take
   ≈ 60 of its 126 instructions per pixel; here they are four MMAs per plane and block pair (0.25 warp-instructions
   per pixel each) and one f16x2 packing, with no transposes at all.

   A warp codes kPairs block pairs side by side per strip (each 8 rows x 16 columns: blocks A and B), lane (g, t) =
   (lane / 4, lane % 4); the pairs' MMA chains are independent, so one hides the other's latency. With C' = 2√2 C
   (C the orthonormal DCT-II matrix: C' has rows of ones and of ±1 at 0 and 4, √2 cos elsewhere) the 2-D transform is F'
   = C' X C'ᵀ = 8 F. Four products, each D = A·B (+ C) with a constant 16x16 A and the data as B (16 x 8, column n = g,
   rows k = 2t, 2t+1 in b0 and 2t+8, 2t+9 in b1):
     1. rows:     B = 1024 + the samples, = 1152 + X (thread: row g, columns 4t .. 4t+3 of the pair, the slot order
                  folded into A1), A1 = C' per block on the slots of that block, f16 accumulator −9216 at u = 0 (the
                  1152s off: code_pair): D1[(blk, u)][r] = Σ_c C'[u][c] X[r][c] (D1 is step 2's B as it comes,
                  rounded once to nearest even).
     2. columns:  the accumulator of step 1 as B (its (row g, cols 2t, 2t+1 / g+8) layout is the B layout of
                  the transposed matrix: no shuffles), A2 = diag(C', C'): D2[(blk, v)][u] = F'[v][u].
     3. inverse along u: the dequantized q·Q/64 as B, A3 = 8 diag(C'ᵀ, C'ᵀ): D3[(blk, x)][v] = W[v][x] (f16
                  accumulator: step 4's B).
     4. inverse along v: A4 = diag(C'ᵀ, C'ᵀ), f16 accumulator initialised to 1152 = 1024 + 128 (see sample_h2):
                  D4[(blk, y)][x] = 1024 + the sample rounded to an integer,
                  i.e. row g, columns 2t, 2t+1 of block A (d[0]) and of block B (d[1]).
   The tensor core rounds an f16 result once, to nearest even, from the exact sum (a device probe on an
   H100: 16 of 16 cases, ties and three-term sums included; docs/algorithms.md §5), as cvt.rn of an f32 result would;
   the f16 accumulation saves those conversions (six per plane and block pair). Quantizer: one FFMA, M + q = rn(F'·r +
   M) (M + q: the histogram's integer; M = kMagicQ), r = fl(1/(8Q)): F'·r rounded to the nearest integer. Exact ties
   F'·r = k + 1/2, which the CPU rounds up, occur only at (v, u) ∈ {0, 4}², where F' is an exact integer (rows 0 and 4
   of C' are ±1, so the MMAs add integers exactly): step 2's accumulator starts at 1/4 there (0 elsewhere), so the FFMA
   sees F' + 1/4, exact in f32. A rounding boundary of F'/(8Q) lies at F' = 4Q(2k + 1), an integer, so adding 1/4 moves
   ties up and crosses no other boundary; r's relative error (2^-24, |F'·r| <= 128) is 2^-17 at most, far inside the
   1/(32Q) >= 2^-13 left between F' + 1/4 and a boundary. Dequantizer: one PRMT and one HFMA2 per two coefficients,
   q·Q/64 exactly (code_pair; the f32 form where a table has Q = 1). Precision: the samples and q·Q are exact in f16; C'
   and the two intermediate products are rounded to f16 (11 bits), so F' carries ≈ 2^-12 relative error: coefficients
   within that of a rounding boundary may be quantized the other way than in f32. A numpy model gives PSNR(exact f64
   pipeline, this one) 59.8–63.0 dB at quality 10–90 on the sample images, PSNR against the original changed by < 0.002
   dB; the gpu test holds it to [2]'s CPU/GPU criterion (> 50 dB) and to the CPU's nonzero count and entropy (PSNR
   against the CPU-exact result: 57.3–63.8 dB on the sample images). Host emulation (tests/emulate/emulate_jpeg.cpp):
   one synthetic case below 50 dB, a 24x40 linear ramp at quality 50 (49.9 dB: one coefficient flip in 960 pixels). Lane
   set-up: the A fragments and quantizer constants of each lane are made on the host (make_lane_setup) and read with
   coalesced 16-byte loads. Output: staged per warp in shared memory and stored as whole rows of the warp's segment
   (2-byte stores from the lanes' registers cost 2.6-3.1x the L2 write requests and made the kernel L2-bound). Input:
   the interior strip loop copies the next strip into a per-warp area of shared memory with cp.async. Against the
   CPU-exact kernels it replaced (docs/decisions.md §2; H100, 4096²): RGB 0.047 vs 0.086 ms, gray 0.017 vs
   0.025 ms. RGB: the forward colour conversion is exact integer arithmetic on the tensor cores (ycc_h2), the output
   side clamps in f16x2 arithmetic (sample_h2) and the inverse colour conversion on the tensor cores (rgb_bytes); gray's
   bytes come from step 4's f16 by byte_pair (one VIADDMNMX per two pixels; H100: 3-6% faster than rounding
   and packing in f32). Edges: rows and columns clamped on load (block mode's edge padding), stores cropped; block B of
   the last pair may lie past the padded width (odd blocks_x): coded, neither stored nor counted. Whole warps past the
   image run along (MMAs are warp-wide). */
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/compress/jpeg_fused.cuh"

#if defined(__CUDACC__)
#define DCT_TC_NOINLINE __noinline__  // the edge paths: out of the main loop's code
#else
#define DCT_TC_NOINLINE
#endif

namespace dct::cuda::jpeg_fused::tc {

constexpr int kWarps = 8;  // warps per CTA, side by side along the strip
constexpr int kThreads = 32 * kWarps;
constexpr int kPairs = 4;  // block pairs per warp: the fastest of 1, 2, 4 at every size, gray and
                           // RGB (docs/decisions.md §1.2)

// The output goes through a per-warp staging area in shared memory, so that each row of a plane leaves as whole
// 32-byte sectors (a lane's own results are 2-byte pieces: stored directly, they made 2.6-3.1x the L2 write requests
// of whole-sector stores and bound the kernel on L2 throughput; docs/decisions.md §3.3). Row stride 20·pairs bytes:
// the lanes' 2-byte writes are conflict-free and every lane's 4·pairs-byte read is aligned.
__host__ __device__ constexpr int stage_stride(int pairs) { return 20 * pairs; }
// The input of the interior loop's next strip is copied into a per-warp area with cp.async (16-byte pieces, one per
// lane and plane with 4 pairs): row stride 16·pairs + 16 bytes, so that the lanes' 4-byte reads of a strip
// (row g, byte 16 j + 4 t) fall in distinct banks (pairs 2 and 4).
__host__ __device__ constexpr int in_stride(int pairs) { return 16 * pairs + 16; }
// Per warp: the input area (16-byte aligned: every size here is a multiple of 16), then the output staging area.
__host__ __device__ constexpr int warp_stage_bytes(int planes, int pairs) {
  return planes * 8 * (in_stride(pairs) + stage_stride(pairs));
}
__host__ __device__ constexpr std::size_t stage_bytes(int planes, int pairs) {
  return static_cast<std::size_t>(kWarps) * warp_stage_bytes(planes, pairs);
}
// Dynamic shared memory: the staging areas, then the histogram (2·half_bins bins).
__host__ __device__ constexpr std::size_t smem_bytes(int half_bins, int planes, int pairs) {
  return stage_bytes(planes, pairs) + 2 * static_cast<std::size_t>(half_bins) * sizeof(unsigned);
}

// C' (row-major, C'[k][n]), for the lane set-up.
// Rows k >= 1 are made (anti)symmetric by construction, C'[k][7 − n] = (−1)^k C'[k][n], so that their sums are exactly
// zero after any rounding of the entries (step 1 relies on it: its B carries the samples + 1152).
inline void make_cprime(float (&cp)[64]) {
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 4; ++n) {
      const float c =
          k == 0 ? 1.f : static_cast<float>(1.4142135623730951 * std::cos(3.141592653589793 * k * (2 * n + 1) / 16.0));
      cp[8 * k + n] = c;
      cp[8 * k + 7 - n] = (k & 1) ? -c : c;
    }
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

// f16x2 a − b.
__device__ __forceinline__ unsigned hsub2(unsigned a, unsigned b) {
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#elif defined(DCT_EMULATE)
  return emu_hsub2(a, b);
#else
  return a - b;
#endif
}

// f16x2 of 1024 + byte for bytes 0, 1 (k = 0) or 2, 3 (k = 1) of w: the f16 with bits 0x6400 | b.
__device__ __forceinline__ unsigned bytes_1024(unsigned w, int k) {
  return __byte_perm(w, 0x64646464u, k == 0 ? 0x4140u : 0x4342u);
}

// min(a, b) per f16 half.
__device__ __forceinline__ unsigned hmin2(unsigned a, unsigned b) {
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("min.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#elif defined(DCT_EMULATE)
  return emu_hmin2(a, b);
#else
  return a + b;
#endif
}

// a·b + c per f16 half, rounded once.
__device__ __forceinline__ unsigned hfma2(unsigned a, unsigned b, unsigned c) {
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#elif defined(DCT_EMULATE)
  return emu_hfma2(a, b, c);
#else
  return a * b + c;
#endif
}

// max(a, b) per f16 half.
__device__ __forceinline__ unsigned hmax2(unsigned a, unsigned b) {
#if defined(__CUDA_ARCH__)
  unsigned r;
  asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#elif defined(DCT_EMULATE)
  return emu_hmax2(a, b);
#else
  return a - b;
#endif
}

// The f16 bits of x (a positive normal f16 constant: 2^-14 <= x < 65504), rounded to nearest even, twice.
__host__ __device__ constexpr unsigned f16x2_const(double x) {
  int e = 0;
  while (x >= 2.0) x /= 2, ++e;
  while (x < 1.0) x *= 2, --e;
  const double m = (x - 1.0) * 1024.0;
  unsigned mi = static_cast<unsigned>(m);
  const double rem = m - mi;
  if (rem > 0.5 || (rem == 0.5 && (mi & 1u))) ++mi;  // 1024 carries into the exponent
  const unsigned h = (static_cast<unsigned>(e + 15) << 10) + mi;
  return h * 0x10001u;
}

// f16x2 of an integer 1024 <= n < 2048, twice.
__host__ __device__ constexpr unsigned f16x2_int(int n) {
  return (0x6400u + static_cast<unsigned>(n - 1024)) * 0x10001u;
}

struct AFrag {
  unsigned r[4];  // f16x2: (g, 2t..2t+1), (g+8, 2t..2t+1), (g, 2t+8..2t+9), (g+8, 2t+8..2t+9)
};

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

// D = A·B + C with C and D f16x2 (d[0], c0: row g, d[1], c1: row g + 8; columns 2t, 2t + 1): the sum is rounded to
// f16 once, to nearest even (a device probe; docs/algorithms.md §5).
__device__ __forceinline__ void mma_h(unsigned (&d)[2], const AFrag& a, unsigned b0, unsigned b1, unsigned c0,
                                      unsigned c1) {
#if defined(__CUDA_ARCH__)
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b0), "r"(b1), "r"(c0), "r"(c1));
#elif defined(DCT_EMULATE)
  emu_mma16816_h(d, a.r, b0, b1, c0, c1);
#else
  d[0] = c0 + a.r[0] + b0 + b1, d[1] = c1 + a.r[1];
#endif
}
// The same C in both rows.
__device__ __forceinline__ void mma_h(unsigned (&d)[2], const AFrag& a, unsigned b0, unsigned b1, unsigned c) {
  mma_h(d, a, b0, b1, c, c);
}

// The m16n8k8 form (A: 16 x 8, a0 = row g, a1 = row g + 8, columns 2t, 2t + 1; B: rows 2t, 2t + 1 of column g).
__device__ __forceinline__ void mma_h8(unsigned (&d)[2], unsigned a0, unsigned a1, unsigned b, unsigned c0,
                                       unsigned c1) {
#if defined(__CUDA_ARCH__)
  asm("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a0), "r"(a1), "r"(b), "r"(c0), "r"(c1));
#elif defined(DCT_EMULATE)
  const unsigned a[4] = {a0, a1, 0u, 0u};
  emu_mma16816_h(d, a, b, 0u, c0, c1);
#else
  d[0] = c0 + a0 + b, d[1] = c1 + a1;
#endif
}

// The forward colour conversion on the tensor cores, exact, with the CPU's integer weights (core::rgb_to_ycc,
// the jpeg compress mode): 1000 Y = 299 R + 587 G + 114 B, 1772 (Cb − 128) = 886 B − 299 R − 587 G, 1402 (Cr − 128) =
// 701 R − 587 G − 114 B, each rounded half up, Cb and Cr clamped to 255. Plane p's sum t = kr R + kg G + kb B is two
// MMAs with f32 accumulation, the pixels as A and the weights as B (on the CUDA cores: 8 dp2a and 4 multiply-highs per
// plane and lane, slower, docs/decisions.md §3.3):
//   A1 = the lane's R and G bytes as f16 of 1024 + byte (one PRMT per two: bytes_1024), A2 its B bytes and 1024s;
//   row g of A1 holds R at k = 2t + e and G at k = 2t + 8 + e of column 4t + e of the lane's row, row g + 8 those of
//   column 4t + 2 + e; with W1 = [kr I; kg I] and W2 = [kb I; offset rows], D's entries (g, 2t + e) and (g + 8, 2t + e)
//   are pixels 4t + e and 4t + 2 + e: this lane's own four, in step 1's slots (as bytes_1024 gives them for gray).
//   The offset rows (every lane: f16 (o / 4096, 2^-13), against A2's 1024s) add o + 1/2, o = s d − 1024 (kr + kg + kb)
//   with s = 0 for Y, 128 for Cb and Cr (the 1024s of the bytes off, s d on: o / 4096 = −250, 55.375, 43.8125, exact in
//   f16).
// Every product (f16 integers) and partial sum (a multiple of 1/2 below 2^22) is exact in f32, so D = t + s d + 1/2
// (all 2^24 colours were checked on the device; tests/emulate/emulate_jpeg.cpp checks them on the host), and with
// t + d/2 = q d + j, j in [0, d): D / d = q + s + (j − d/2 + 1/2) / d, at least 1/(2d) >= 2^-12 from a half while
// fl(1/d) moves it by < 2^-15, so one FFMA rounds it to the sample q + s (Y, Cb, Cr); its addend 1.5·2^23 + 0x6400
// leaves 0x6400 + q + s in the result's low 16 bits, and one PRMT makes two of them the f16x2 of 1024 + the sample =
// 1152 + the level-shifted sample, step 1's B (see code_pair). Over all 2^24 colours the sample equals the CPU's Cb
// everywhere, its Y and Cr at all but 3464 and 2666 exact ties that the CPU's doubles round down (checked by
// tests/emulate/emulate_jpeg.cpp).
struct YccPlane {
  int kr, kg, kb, d, s;  // s: what the quotient t / d lacks of the sample (Cb, Cr: 128)
};
inline constexpr YccPlane kYcc[3] = {
    {299, 587, 114, 1000, 0}, {-299, -587, 886, 1772, 128}, {701, -587, -114, 1402, 128}};
constexpr unsigned kH1024 = f16x2_int(1024);       // f16x2 of 1024, 1024
constexpr float kYccMagic = 12582912.f + 25600.f;  // 1.5·2^23 + 0x6400: ulp 1, low 16 bits 0x6400 + the integer added

// Plane kPlane's samples from the MMAs' d = t + s d + 1/2 of pixels 0 .. 3: f16x2 of 1024 + Y (Cb, Cr clamped to
// 255) of pixels 0, 1 and 2, 3 (step 1's B).
template <int kPlane>
__device__ __forceinline__ void ycc_tail(const float (&d)[4], unsigned (&out)[2]) {
  constexpr YccPlane k = kYcc[kPlane];
  constexpr float r = 1.f / static_cast<float>(k.d);  // fl(1/d)
  unsigned z[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) z[i] = fbits(__fmaf_rn(d[i], r, kYccMagic));
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const unsigned x = __byte_perm(z[2 * i], z[2 * i + 1], 0x5410u);  // f16x2 of 1024 + the sample
    out[i] = kPlane == 0 ? x : hmin2(x, f16x2_int(1024 + 255));       // Y <= 255 as it is
  }
}

// Plane kPlane of the conversion: w = the lane's W1 (rows 2t, 2t + 1 | 2t + 8, 2t + 9 of column g) and W2 fragments.
template <int kPlane>
__device__ __forceinline__ void ycc_plane(const AFrag& a1, const AFrag& a2, const unsigned (&w)[4],
                                          unsigned (&out)[2]) {
  const float zero[4] = {0.f, 0.f, 0.f, 0.f};
  float d[4];
  mma(d, a1, w[0], w[1], zero);
  mma(d, a2, w[2], w[3], d);
  ycc_tail<kPlane>(d, out);
}

// 1024 + Y, Cb, Cr of this lane's four pixels as f16x2 in step 1's slots (pixels 0, 1 and 2, 3), from their
// R, G, B bytes (r, g, b: columns 4t .. 4t + 3 of the pair in row g); w: the lane's weight fragments (LaneSetup::ycc).
__device__ __forceinline__ void ycc_h2(unsigned r, unsigned g, unsigned b, const unsigned (&w)[3][4], unsigned (&y)[2],
                                       unsigned (&cb)[2], unsigned (&cr)[2]) {
  const AFrag a1 = {{bytes_1024(r, 0), bytes_1024(r, 1), bytes_1024(g, 0), bytes_1024(g, 1)}};
  const AFrag a2 = {{bytes_1024(b, 0), bytes_1024(b, 1), kH1024, kH1024}};
  ycc_plane<0>(a1, a2, w[0], y);
  ycc_plane<1>(a1, a2, w[1], cb);
  ycc_plane<2>(a1, a2, w[2], cr);
}

// f16x2 of −8·1152 = −9216: step 1's accumulator at u = 0 (code_pair).
constexpr unsigned kStep1Dc = 0xF080F080u;
static_assert(f16x2_const(9216.0) == (kStep1Dc & 0x7FFF7FFFu), "f16 of 9216");

// The quantizer's addend M6 = 1.5·2^23 + 0x6600 (ulp 1): M6 + q has the bits kMagicBits + 0x6600 + q, whose low 16
// bits are those of the f16 of 1536 + q for −512 <= q < 512 (code_pair).
constexpr float kMagicQ = kMagic + 26112.f;
constexpr unsigned kMagicQBits = kMagicBits + 0x6600u;
static_assert(static_cast<long>(kMagicQ) == 512L * 24627, "M6 = 2^9 · 24627: M6 · Q/64 is exact in f32 for Q < 2^9");

// The f16 dequantizer needs −512 <= q < 512, which holds where every Q >= 2: |F| <= 1024 (|q| <= 512 only for the DC
// of a block of −128s, q = −512), so the kernel takes it then, and the f32 one where a table has a 1 (quality >= 93).
inline bool deq_f16_ok(const Table (&tab)[2]) {
  for (const Table& t : tab)
    for (float q : t.qf)
      if (q < 2.f) return false;
  return true;
}

// The four constant matrices of this lane.
struct Mats {
  AFrag a1, a2, a3, a4;
  unsigned c1[2];      // step 1's accumulator, rows g and g + 8 (code_pair)
  unsigned ycc[3][4];  // RGB: the forward colour conversion's weight fragments (ycc_h2)
  unsigned rgb[4];     // RGB: the inverse's (rgb_bytes)
};

// The bits of the f16 nearest to f (ties to even), for 0 and 2^-14 <= |f| < 65504 (host side: the lane set-up).
inline unsigned f16_bits(float f) {
  unsigned x;
  std::memcpy(&x, &f, sizeof x);
  const unsigned s = (x >> 16) & 0x8000u, a = x & 0x7FFFFFFFu;
  if (a == 0) return s;
  const unsigned m = a & 0x7FFFFFu, hm = ((((a >> 23) - 112u) << 10) | (m >> 13)), rem = m & 0x1FFFu;
  return s | (hm + ((rem > 0x1000u || (rem == 0x1000u && (hm & 1u))) ? 1u : 0u));  // a carry moves into the exponent
}

// The fragment entry f(m, k) of this lane's four registers (row g / g+8, columns 2t.. / 2t+8..).
template <class F>
inline void afrag_host(unsigned (&r)[4], int g, int t, F f) {
  const int rows[4] = {g, g + 8, g, g + 8}, cols[4] = {2 * t, 2 * t, 2 * t + 8, 2 * t + 8};
  for (int i = 0; i < 4; ++i) r[i] = f16_bits(f(rows[i], cols[i])) | (f16_bits(f(rows[i], cols[i] + 1)) << 16);
}

// The B fragment (rows 2t, 2t + 1 of column g) of v times the 8x8 identity.
inline unsigned bfrag_diag(int g, int t, double v) {
  const float lo = g == 2 * t ? static_cast<float>(v) : 0.f, hi = g == 2 * t + 1 ? static_cast<float>(v) : 0.f;
  return f16_bits(lo) | (f16_bits(hi) << 16);
}

// What a lane needs, made on the host and read by each lane, once per CTA, with 10 (gray) or 14 (RGB) coalesced
// 16-byte loads (from the constant bank, the lane-divergent addresses were serialized: docs/decisions.md §3.3).
struct LaneSetup {
  unsigned a[4][4];   // the lane's fragments of A1 .. A4 (f16x2; A3 scaled by 64, see code_pair)
  float quant[2][8];  // luma, chroma at (v, u) = (g, 2t + e): r0, r1, Q0/64, Q1/64, −M6·Q0/64, −M6·Q1/64, then the
                      // bits of f16x2 (Q0/64, Q1/64) and of f16x2 (−24·Q0, −24·Q1)
  float init2[4];      // step 2's accumulator: 1/4 at the tie coefficients (v, u) ∈ {0, 4}², else 0
  unsigned c1[4];      // step 1's accumulator, rows g and g + 8 (the same; two registers: see code_pair), 0, 0
  unsigned ycc[3][4];  // the colour conversion's W1 and W2 fragments per plane (ycc_h2; RGB only)
  unsigned rgb[4];     // the inverse colour conversion's B fragments (rgb_bytes; RGB only)
};
static_assert(sizeof(LaneSetup) == 14 * 16 && offsetof(LaneSetup, ycc) == 10 * 16,
              "read as fourteen uint4, the RGB-only fragments last");

// The 32 lanes' set-up from C' (make_cprime) and the quality's tables.
inline void make_lane_setup(const float (&cp)[64], const Table (&tab)[2], LaneSetup (&ls)[32]) {
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    LaneSetup& l = ls[lane];
    // Step 1's slots: k = 2t' + e holds column 4t' + e of the pair, k = 2t' + 8 + e column 4t' + 2 + e.
    afrag_host(l.a[0], g, t, [&cp](int r, int k) {
      const int c = 4 * ((k & 7) >> 1) + 2 * (k >> 3) + (k & 1);
      return (r >> 3) == (c >> 3) ? cp[8 * (r & 7) + (c & 7)] : 0.f;
    });
    afrag_host(l.a[1], g, t, [&cp](int i, int j) { return (i >> 3) == (j >> 3) ? cp[8 * (i & 7) + (j & 7)] : 0.f; });
    afrag_host(l.a[2], g, t,
               [&cp](int i, int j) { return (i >> 3) == (j >> 3) ? 8.f * cp[8 * (j & 7) + (i & 7)] : 0.f; });
    afrag_host(l.a[3], g, t, [&cp](int i, int j) { return (i >> 3) == (j >> 3) ? cp[8 * (j & 7) + (i & 7)] : 0.f; });
    for (int c = 0; c < 2; ++c) {
      float* qv = l.quant[c];
      const int k0 = 8 * g + 2 * t;
      for (int e = 0; e < 2; ++e) {
        const float q = tab[c].qf[k0 + e];
        qv[e] = 1.f / (8.f * q);  // fl(1/(8Q)), as __frcp_rn
        qv[2 + e] = q / 64.f;
        qv[4 + e] = -kMagicQ * q / 64.f;  // exact: M6 = 2^9 · 24627
      }
      const unsigned qh = f16_bits(qv[2]) | (f16_bits(qv[3]) << 16);
      const unsigned nqh = f16_bits(-24.f * qv[2] * 64.f) | (f16_bits(-24.f * qv[3] * 64.f) << 16);
      std::memcpy(&qv[6], &qh, 4);
      std::memcpy(&qv[7], &nqh, 4);
    }
    // The colour conversion's weights (ycc_h2): W1 = [kr I; kg I], W2 = [kb I; offset rows], B fragments (rows 2t,
    // 2t + 1 of column g, then rows 2t + 8, 2t + 9).
    for (int pl = 0; pl < 3; ++pl) {
      const YccPlane& k = kYcc[pl];
      auto diag = [g, t](int v) { return bfrag_diag(g, t, v); };
      const int o = k.s * k.d - 1024 * (k.kr + k.kg + k.kb);  // exact in f16 after / 4096 (−250, 55.375, 43.8125)
      l.ycc[pl][0] = diag(k.kr);
      l.ycc[pl][1] = diag(k.kg);
      l.ycc[pl][2] = diag(k.kb);
      l.ycc[pl][3] = f16_bits(static_cast<float>(o) / 4096.f) | (f16_bits(0x1p-13f) << 16);
    }
    // The inverse conversion's B (rgb_bytes): rows k < 8 weigh Cr − 128 at pixel k, rows k >= 8 Cb − 128 at pixel
    // k − 8.
    l.rgb[0] = bfrag_diag(g, t, core::kRCr);  // R (m16n8k8 on Cr')
    l.rgb[1] = bfrag_diag(g, t, core::kGCr);  // G (m16n8k16 on Cr', Cb')
    l.rgb[2] = bfrag_diag(g, t, core::kGCb);
    l.rgb[3] = bfrag_diag(g, t, core::kBCb);  // B (m16n8k8 on Cb')
    // Accumulator i: (v, u) = (g, 2t + (i & 1)) of block i >> 1; ties only at even u.
    for (int i = 0; i < 4; ++i) l.init2[i] = (i & 1) == 0 && tie_slot(8 * g + 2 * t) >= 0 ? 0.25f : 0.f;
    l.c1[0] = l.c1[1] = g == 0 ? kStep1Dc : 0u;
    l.c1[2] = l.c1[3] = 0u;
  }
}

// One quantization table at this lane's two positions (v, u) = (g, 2t + e), e = 0, 1 (u odd: never a tie).
struct Quant {
  float r[2];    // fl(1/(8Q))
  float q[2];    // Q/64 (the f32 dequantizer)
  float nmq[2];  // −M6·Q/64 (exact)
  unsigned qh;   // f16x2 of Q/64 (the f16 dequantizer)
  unsigned nqh;  // f16x2 of −24·Q (exact: 3Q < 2^11)
};

__device__ __forceinline__ Quant quant_of(uint4 lo, uint4 hi) {
  return {{__uint_as_float(lo.x), __uint_as_float(lo.y)},
          {__uint_as_float(lo.z), __uint_as_float(lo.w)},
          {__uint_as_float(hi.x), __uint_as_float(hi.y)},
          hi.z,
          hi.w};
}

__device__ __forceinline__ void floats_of(uint4 v, float (&f)[4]) {
  f[0] = __uint_as_float(v.x), f[1] = __uint_as_float(v.y), f[2] = __uint_as_float(v.z), f[3] = __uint_as_float(v.w);
}

// hist[q]++ for bits b = bits(M + q), zeros included (their bin is cleared before the flush: the host counts
// zeros as coefficients − nonzero). No branch: red.shared of 1 to an address, which ptxas makes one ATOMS.POPC.INC
// (the lanes of one address are added at once, so the many zeros cost one).
__device__ __forceinline__ void hist_add(HistAt h, unsigned b) {
#if defined(__CUDA_ARCH__)
  asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(h.base + 4u * b) : "memory");
#else
  atomicAdd(&h.hist[static_cast<int>(b - kMagicBits) + h.half_bins], 1u);
#endif
}

// Steps 1-3 of one plane of the warp's block pair: b0, b1 (f16x2 of 1024 + this lane's four samples, step 1's slots)
// in; step 4's B (f16x2 of W) out in w; every q into the CTA's histogram (blocks past the padded width and warps past
// the image code zeros: only the zero bin sees them). Steps 1 and 3 accumulate in f16: their results are step 2's and
// 4's B, f16 anyway, and the tensor core rounds them once as cvt.rn would (no conversions: 4 fewer instructions).
// Step 1 takes the samples as they come, 1152 + (sample − 128), and its accumulator m.c1 removes the 1152s: rows u
// >= 1 of C' sum to exactly 0 (make_cprime), row 0 to 8, so lanes g = 0 (u = 0 in both blocks) start at −8·1152 =
// −9216 and the others at 0 (saves the f16 subtraction of 1152 per two samples; the accumulator is loaded as two
// registers, as the MMA wants a register pair, else ptxas copies one into a pair per MMA). The exact sum is the same
// as with the level-shifted samples; the tensor core adds products up to 1279·1.41 instead of 128·1.41:
// a device probe found no f16 result that differs in 2^27 on an H100 (the probe lives in git history).
// The quantizer's FFMA adds M6 = kMagicQ, so that the low half of its result's bits is the f16 of 1536 + q; the f16
// dequantizer (kDeqF16) makes step 3's B from two of them with one PRMT and one HFMA2: (1536 + q)·Q/64 − 24Q = q·Q/64,
// exact (Q/64 and 24Q are exact in f16, q·Q/64 a multiple of 1/64 below 32, and the FMA rounds once), A3 scaled by 64
// to match (exact). The f32 one (tables with Q = 1: |q| up to 1024) computes q·Q/64 with one FFMA per coefficient
// and packs two by one cvt, as before; both give the same bits.
template <bool kDeqF16>
__device__ __forceinline__ void code_pair(const Mats& m, const Quant& qt, const float (&c2)[4], unsigned b0,
                                          unsigned b1, unsigned (&w)[2], HistAt h_at) {
  unsigned d1[2];
  mma_h(d1, m.a1, b0, b1, m.c1[0], m.c1[1]);
  float d[4];
  mma(d, m.a2, d1[0], d1[1], c2);
  float z[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) z[i] = __fmaf_rn(d[i], qt.r[i & 1], kMagicQ);
#pragma unroll
  for (int i = 0; i < 4; ++i) hist_add(h_at, fbits(z[i]));
  unsigned b3[2];
  if constexpr (kDeqF16) {
#pragma unroll
    for (int i = 0; i < 2; ++i)
      b3[i] = hfma2(__byte_perm(fbits(z[2 * i]), fbits(z[2 * i + 1]), 0x5410u), qt.qh,
                    qt.nqh);  // (1536 + q)·Q/64 − 24Q
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) z[i] = __fmaf_rn(z[i], qt.q[i & 1], qt.nmq[i & 1]);  // (M6 + q − M6)·Q/64
    b3[0] = h2(z[0], z[1]);
    b3[1] = h2(z[2], z[3]);
  }
  mma_h(w, m.a3, b3[0], b3[1], 0u);
}

// The output side in f16x2, two pixels per instruction. Step 4's f16 accumulator starts at 1152 = 1024 + 128, so its
// result (rounded to nearest even by the tensor core) is 1024 + the reconstructed sample rounded to an integer: f16's
// ulp is 1 in [1024, 2048), where the bits are 0x6400 + n, so an integer's low byte is its sample.
constexpr unsigned kH1152 = f16x2_int(1152), kH1279 = f16x2_int(1279);

// f16x2 of 1024 + clamp(rounded sample, 0, 255) from step 4's x: Y, Cb or Cr as the CPU's ycc_to_rgb takes it (ties
// to even, not up: the CPU's ties are exact halves, which sums of f16 products hit only by chance).
__device__ __forceinline__ unsigned sample_h2(unsigned x) { return hmin2(hmax2(x, kH1024), kH1279); }

// clamp(x − 1024, 0, 255) per half of f16x2 x > 0 as a 16-bit integer (the bits are monotonic in x: below 1024
// they are below 0x6400, above 1279 above 0x64FF); one VIADDMNMX on sm_90.
__device__ __forceinline__ unsigned byte_pair(unsigned x) { return __viaddmin_s16x2_relu(x, 0x9C009C00u, 0x00FF00FFu); }

// The CPU's ycc_to_rgb (core/compress.cpp): R = Y + 1.402 Cr', G = Y − 0.714136 Cr' − 0.344136 Cb', B = Y + 1.772 Cb'
// (Cb' = Cb − 128, Cr' = Cr − 128), clamped to bytes, as one f16-accumulating MMA per colour: A = {Cr', Cb'} (row g:
// block A's pixel row g, Cr' of pixel x at k = x, Cb' at k = 8 + x; row g + 8 block B's: the layout step 4's results
// have as A fragments), B = the weights times the identity (LaneSetup::rgb; R and B weigh only one of Cr', Cb', so
// they are m16n8k8 MMAs on that half of A), C = 1024 + Y (step 4's layout again). D is the exact sum rounded once to
// nearest even (its value lies in [797, 1505]: ulp 1 from 1024; below 1024 the byte is 0 whatever the rounding), so the
// only other error is that of the f16 weights (relative <= 3.1·10^-4, at most 0.06 in a sample with |Cb'|, |Cr'| <=
// 128). Against the CPU's doubles a sample differs by 1 where the exact value lies that close to a half (the host
// emulation and the gpu test hold the result to PSNR > 50 dB against the CPU). This replaced 8 HFMA2 (whose G rounded
// an inner sum) by 3 MMAs.
__device__ __forceinline__ void rgb_bytes(const Mats& m, const unsigned (&y)[2], const unsigned (&cb)[2],
                                          const unsigned (&cr)[2], unsigned& r, unsigned& g, unsigned& b) {
  const AFrag a = {{cr[0], cr[1], cb[0], cb[1]}};
  unsigned o[3][2];
  mma_h8(o[0], cr[0], cr[1], m.rgb[0], y[0], y[1]);
  mma_h(o[1], a, m.rgb[1], m.rgb[2], y[0], y[1]);
  mma_h8(o[2], cb[0], cb[1], m.rgb[3], y[0], y[1]);
  r = __byte_perm(byte_pair(o[0][0]), byte_pair(o[0][1]), 0x6420u);
  g = __byte_perm(byte_pair(o[1][0]), byte_pair(o[1][1]), 0x6420u);
  b = __byte_perm(byte_pair(o[2][0]), byte_pair(o[2][1]), 0x6420u);
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

// The strip's coding: in (each pair's 4 bytes per plane, step 1's slots) to out (bytes: columns xa, xa + 1, xa + 8,
// xa + 9 of each pair), every q into the CTA's histogram.
template <int kPlanes, int kPairs, bool kDeqF16>
__device__ __forceinline__ void code_strip(const Mats& m, const Quant& ql, const Quant& qc, const float (&c2)[4],
                                           const unsigned (&in)[kPairs][kPlanes], unsigned (&out)[kPairs][kPlanes],
                                           HistAt h_at) {
#pragma unroll
  for (int j = 0; j < kPairs; ++j) {
    if constexpr (kPlanes == 1) {
      unsigned wv[2];
      code_pair<kDeqF16>(m, ql, c2, bytes_1024(in[j][0], 0), bytes_1024(in[j][0], 1), wv, h_at);
      unsigned o[2];  // f16x2 of 1024 + the sample, rounded (see sample_h2); byte_pair clamps
      mma_h(o, m.a4, wv[0], wv[1], kH1152);
      out[j][0] = __byte_perm(byte_pair(o[0]), byte_pair(o[1]), 0x6420u);
    } else {
      unsigned yv[2], cb[2], cr[2];
      ycc_h2(in[j][0], in[j][1], in[j][2], m.ycc, yv, cb, cr);
      unsigned wy[2], wb[2], wr[2];
      code_pair<kDeqF16>(m, ql, c2, yv[0], yv[1], wy, h_at);
      code_pair<kDeqF16>(m, qc, c2, cb[0], cb[1], wb, h_at);
      code_pair<kDeqF16>(m, qc, c2, cr[0], cr[1], wr, h_at);
      unsigned oy[2], ob[2], orr[2];  // step 4: f16x2 of 1024 + the sample, rounded (see sample_h2)
      mma_h(oy, m.a4, wy[0], wy[1], kH1152);
      mma_h(ob, m.a4, wb[0], wb[1], kH1152);
      mma_h(orr, m.a4, wr[0], wr[1], kH1152);
      const unsigned ys[2] = {sample_h2(oy[0]), sample_h2(oy[1])};
      const unsigned cbs[2] = {hsub2(sample_h2(ob[0]), kH1152), hsub2(sample_h2(ob[1]), kH1152)};
      const unsigned crs[2] = {hsub2(sample_h2(orr[0]), kH1152), hsub2(sample_h2(orr[1]), kH1152)};
      rgb_bytes(m, ys, cbs, crs, out[j][0], out[j][1], out[j][2]);
    }
  }
}

// This lane's output pieces into the warp's staging area (rows g of each plane, row stride stage_stride(kPairs)).
template <int kPlanes, int kPairs>
__device__ __forceinline__ void stage_strip(unsigned char* wstage, int g, int t,
                                            const unsigned (&out)[kPairs][kPlanes]) {
#pragma unroll
  for (int j = 0; j < kPairs; ++j)
#pragma unroll
    for (int pl = 0; pl < kPlanes; ++pl) {
      unsigned char* const s = wstage + (pl * 8 + g) * stage_stride(kPairs) + 16 * j + 2 * t;
      *reinterpret_cast<unsigned short*>(s) = static_cast<unsigned short>(out[j][pl]);
      *reinterpret_cast<unsigned short*>(s + 8) = static_cast<unsigned short>(out[j][pl] >> 16);
    }
}

// 16 bytes from global a to shared s, asynchronously (L2 only: the bytes are read once); cp_wait: this thread's
// copies have landed.
__device__ __forceinline__ void cp_async16(void* s, const void* a) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(s))),
               "l"(a)
               : "memory");
#else
#if defined(DCT_EMULATE)
  assert(((reinterpret_cast<std::uintptr_t>(s) | reinterpret_cast<std::uintptr_t>(a)) & 15u) == 0);  // as cp.async
#endif
  std::memcpy(s, a, 16);
#endif
}
__device__ __forceinline__ void cp_wait() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}
__device__ __forceinline__ void cp_commit() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// Ask L2 for the sector holding a (no register waits on it).
__device__ __forceinline__ void prefetch_l2(const void* a) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
#else
  (void)a;
#endif
}

// A lane's 4·kPairs bytes of a staged row.
template <int kPairs>
struct ChunkOf {
  using type = unsigned;
};
template <>
struct ChunkOf<2> {
  using type = uint2;
};
template <>
struct ChunkOf<4> {
  using type = uint4;
};

// The work of thread tid of CTA cta: for each CTA column cx of its chunk (below), warp w codes kPairs adjacent block
// pairs, (cx·kWarps + w)·kPairs ..., of the chunk's strips (the pairs' MMA chains are independent: the compiler
// interleaves them, which hides the latency of one chain's four dependent MMAs; with one pair per warp the kernel
// was latency-bound for gray, docs/decisions.md §1.2). stage: the CTA's staging areas (stage_bytes), hist: its
// histogram.
template <int kPlanes, int kPairs, bool kDeqF16>
__device__ __forceinline__ void fused_jpeg_cta(const Params& p, unsigned char* stage, unsigned* hist, int tid,
                                               int cta) {
  using Chunk = typename ChunkOf<kPairs>::type;
  constexpr int kStride = stage_stride(kPairs);
  hist_clear(p, hist, tid, kThreads);
  const int lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int pairs = (p.blocks_x + 1) / 2;
  const int w = p.w, h = p.h, wp = 8 * p.blocks_x;
  const long long hw = static_cast<long long>(h) * w;
  unsigned char* const win = stage + (tid >> 5) * warp_stage_bytes(kPlanes, kPairs);  // input area
  unsigned char* const wstage = win + kPlanes * 8 * in_stride(kPairs);                // output staging area
  const int sr = lane >> 2, sc = 4 * kPairs * (lane & 3);
  Mats m;
  Quant ql, qc;
  float c2[4];
  {
    const uint4* src = static_cast<const uint4*>(p.tc_setup) + lane * (sizeof(LaneSetup) / sizeof(uint4));
    constexpr int kLoads = kPlanes == 3 ? static_cast<int>(sizeof(LaneSetup) / sizeof(uint4))
                                        : static_cast<int>(offsetof(LaneSetup, ycc) / sizeof(uint4));  // gray: no RGB
    uint4 v[sizeof(LaneSetup) / sizeof(uint4)];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) v[i] = __ldg(src + i);
    AFrag* const a[4] = {&m.a1, &m.a2, &m.a3, &m.a4};
#pragma unroll
    for (int i = 0; i < 4; ++i) *a[i] = {{v[i].x, v[i].y, v[i].z, v[i].w}};
    ql = quant_of(v[4], v[5]);
    qc = kPlanes == 3 ? quant_of(v[6], v[7]) : ql;
    floats_of(v[8], c2);
    if constexpr (kPlanes == 3) {
#pragma unroll
      for (int pl = 0; pl < 3; ++pl) {
        m.ycc[pl][0] = v[10 + pl].x, m.ycc[pl][1] = v[10 + pl].y;
        m.ycc[pl][2] = v[10 + pl].z, m.ycc[pl][3] = v[10 + pl].w;
      }
      m.rgb[0] = v[13].x, m.rgb[1] = v[13].y, m.rgb[2] = v[13].z, m.rgb[3] = v[13].w;
    }
    m.c1[0] = v[9].x, m.c1[1] = v[9].y;
  }
  const HistAt h_at = hist_at(hist, p.half_bins - static_cast<int>(kMagicQBits - kMagicBits));
  // cp.async copies 16-byte pieces: the rows of every plane must start 16-byte aligned (with 4 pairs seg_fast implies
  // w % 16 == 0; with 1 or 2 it does not).
  const bool in_aligned = ((reinterpret_cast<std::uintptr_t>(p.in) | static_cast<unsigned>(w)) & 15u) == 0;
  __syncthreads();
  // The strip's coding into the warp's staging area (out keeps the lane's bytes for the edge stores), and the staged
  // rows' store: lane = (row lane / 4, bytes 4·kPairs·(lane % 4) ... of the segment), o at that row and byte.
  auto code_staged = [&](const unsigned(&in)[kPairs][kPlanes], unsigned(&out)[kPairs][kPlanes]) {
    code_strip<kPlanes, kPairs, kDeqF16>(m, ql, qc, c2, in, out, h_at);
    __syncwarp();  // the previous strip's reads of the staging area are done
    stage_strip<kPlanes, kPairs>(wstage, g, t, out);
    __syncwarp();
  };
  auto store_rows = [&](unsigned char* o) {
#pragma unroll
    for (int pl = 0; pl < kPlanes; ++pl)
      *reinterpret_cast<Chunk*>(o + pl * hw) = *reinterpret_cast<const Chunk*>(wstage + (pl * 8 + sr) * kStride + sc);
  };
  // Strips s0 .. s1 − 1 of CTA column cx (the kWarps · kPairs block pairs from pair (cx · kWarps) · kPairs).
  auto column = [&](int cx, int s0, int s1) {
    const int pair0 = (cx * kWarps + (tid >> 5)) * kPairs;
    const int xin0 = 16 * pair0 + 4 * t, xa0 = 16 * pair0 + 2 * t;  // this lane's input / output columns, pair 0
    // Every pair of the warp inside the image with aligned words (per lane; else the edge paths, pair by pair).
    const bool fast_in = (w & 3) == 0 && xin0 + 16 * (kPairs - 1) + 4 <= w;
    const bool fast_out = (w & 1) == 0 && xa0 + 16 * (kPairs - 1) + 10 <= w;
    // The warp's segment (8 rows x 16·kPairs columns per plane) inside the image, rows of whole chunks: stored from the
    // staging area, lane = (row lane / 4, bytes 4·kPairs·(lane % 4) ...). Warp-uniform.
    const bool seg_fast = w % (4 * kPairs) == 0 && 16 * (pair0 + kPairs) <= w;
    auto load = [&](int strip, unsigned(&in)[kPairs][kPlanes]) {  // one branch per strip, not per plane or pair
      const long long row = static_cast<long long>(min(8 * strip + g, h - 1)) * w;
      if (fast_in) {
#pragma unroll
        for (int j = 0; j < kPairs; ++j)
#pragma unroll
          for (int pl = 0; pl < kPlanes; ++pl)
            in[j][pl] = __ldg(reinterpret_cast<const unsigned*>(p.in + row + pl * hw + xin0 + 16 * j));
      } else {
#pragma unroll
        for (int j = 0; j < kPairs; ++j)
#pragma unroll
          for (int pl = 0; pl < kPlanes; ++pl)
            in[j][pl] = pair0 + j < pairs ? load4_edge(p.in + pl * hw + row, w, wp, xin0 + 16 * j) : 0x80808080u;
      }
    };
    // Strips whose every load is an aligned word inside the image (rows 16-byte aligned for cp.async), whose 8 rows are
    // inside and whose segment rows leave as whole chunks (warp-uniform), without alpha: running pointers, no edge
    // tests (the general loop below does the rest; most warps of most images never enter it).
    int strip = s0;
    if (seg_fast && in_aligned && p.channels == kPlanes) {
      const int s_fast = min(s1, h / 8);
      const long long step = 8LL * w;
      unsigned char* op = p.out + static_cast<long long>(8 * s0 + sr) * w + 16 * pair0 + sc;
      // The next strip's segment (8 rows x 16·kPairs bytes per plane) goes to the warp's input area by cp.async while
      // this one is coded, lane = (row lane / kPairs, 16-byte piece lane % kPairs); each lane then reads its words from
      // there. (In registers, as the general loop below keeps them, ptxas sank RGB's 12 loads to the middle of the
      // loop at its register cap; this form frees those registers. H100: RGB 5% faster at 8192^2 by
      // itself, RGB 12-18% and gray 7-12% faster at 2048^2-8192^2 together with the f16 accumulation.)
      const int cr = lane / kPairs, cc = lane % kPairs;
      const unsigned char* cp_src = p.in + static_cast<long long>(8 * s0 + cr) * w + 16 * (pair0 + cc);
      auto copy_in = [&] {
        if (lane < 8 * kPairs) {
#pragma unroll
          for (int pl = 0; pl < kPlanes; ++pl)
            cp_async16(win + (pl * 8 + cr) * in_stride(kPairs) + 16 * cc, cp_src + pl * hw);
        }
        cp_commit();
        cp_src += step;
      };
      if (strip < s_fast) copy_in();
      for (; strip < s_fast; ++strip) {
        unsigned in[kPairs][kPlanes];
        cp_wait();
        __syncwarp();  // every lane's pieces have landed
#pragma unroll
        for (int j = 0; j < kPairs; ++j)
#pragma unroll
          for (int pl = 0; pl < kPlanes; ++pl)
            in[j][pl] = *reinterpret_cast<const unsigned*>(win + (pl * 8 + g) * in_stride(kPairs) + 16 * j + 4 * t);
        __syncwarp();                       // every lane has read its words
        if (strip + 1 < s_fast) copy_in();  // cp_src: now the strip after next
        // The strip after next into L2, so that its copy waits for L2, not for DRAM: gray at 8192^2 is bound by the
        // loads in flight (H200: 0.062 -> 0.059 ms; 3, 4, 6 or 8 strips ahead no faster), and RGB gains
        // 2-3% at 8192^2 too (docs/decisions.md §1.2).
        if (strip + 2 < s_fast && lane < 8 * kPairs) {
#pragma unroll
          for (int pl = 0; pl < kPlanes; ++pl) prefetch_l2(cp_src + pl * hw);
        }
        unsigned out[kPairs][kPlanes];
        code_staged(in, out);
        store_rows(op);
        op += step;
      }
    }
    unsigned next[kPairs][kPlanes];
    if (strip < s1) load(strip, next);
    for (; strip < s1; ++strip) {
      unsigned in[kPairs][kPlanes];
#pragma unroll
      for (int j = 0; j < kPairs; ++j)
#pragma unroll
        for (int pl = 0; pl < kPlanes; ++pl) in[j][pl] = next[j][pl];
      if (strip + 1 < s1) load(strip + 1, next);  // in flight while this strip is coded
      const int yr = 8 * strip + g;
      unsigned out[kPairs][kPlanes];  // bytes: columns xa, xa + 1, xa + 8, xa + 9 of each pair
      code_staged(in, out);
      if (seg_fast) {
        if (8 * strip + sr < h) store_rows(p.out + static_cast<long long>(8 * strip + sr) * w + 16 * pair0 + sc);
      } else if (yr < h) {  // from this lane's registers
        unsigned char* const row = p.out + static_cast<long long>(yr) * w;
        if (fast_out) {
#pragma unroll
          for (int j = 0; j < kPairs; ++j)
#pragma unroll
            for (int pl = 0; pl < kPlanes; ++pl) {
              unsigned char* const o = row + pl * hw + xa0 + 16 * j;
              *reinterpret_cast<unsigned short*>(o) = static_cast<unsigned short>(out[j][pl]);
              *reinterpret_cast<unsigned short*>(o + 8) = static_cast<unsigned short>(out[j][pl] >> 16);
            }
        } else {
          for (int j = 0; j < kPairs; ++j)
            if (pair0 + j < pairs)
              for (int pl = 0; pl < kPlanes; ++pl) store4_edge(row + pl * hw, w, xa0 + 16 * j, out[j][pl]);
        }
      }
      if (yr < h) {
        for (int ch = kPlanes; ch < p.channels; ++ch) {  // alpha: carried through, this lane's input columns
          const unsigned char* src = p.in + ch * hw + static_cast<long long>(yr) * w;
          unsigned char* dst = p.out + ch * hw + static_cast<long long>(yr) * w;
          for (int j = 0; j < kPairs; ++j) {
            const int x = xin0 + 16 * j;
            if (fast_in) {
              *reinterpret_cast<unsigned*>(dst + x) = __ldg(reinterpret_cast<const unsigned*>(src + x));
            } else {
              for (int k = 0; k < 4 && x + k < w; ++k) dst[x + k] = src[x + k];
            }
          }
        }
      }
    }
  };
  // This CTA's chunk of the (column, strip) units, column-major: tc_chunk units from cta · tc_chunk (the host makes one
  // chunk per resident CTA, so that all finish together; a chunk may end one column and start the next).
  // (units < 2^31: supports() refuses larger images)
  const int units = p.ctas_x * p.strips;
  int u = cta * p.tc_chunk;
  const int u1 = min(u, units - p.tc_chunk) + p.tc_chunk;
  while (u < u1) {
    const int cx = u / p.strips, s0 = u - cx * p.strips, s1 = min(p.strips, s0 + (u1 - u));
    column(cx, s0, s1);
    u += s1 - s0;
  }
  __syncthreads();
  if (tid == p.half_bins % kThreads) hist[p.half_bins] = 0;  // the zeros (this thread flushes that bin)
  hist_flush(p, hist, tid, kThreads);
}

}  // namespace dct::cuda::jpeg_fused::tc
