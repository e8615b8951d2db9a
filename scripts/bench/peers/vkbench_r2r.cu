// vkbench_r2r.cu - peer benchmark: VkFFT 1.3.4 (CUDA backend, VKFFT_BACKEND=1) on the real-to-real family
// that ../shared/peers/vkbench.cu does not cover: 3-D DCT-II/III, 2-D DCT-I and DST-II/III, and batched
// 2-D DCT-II/III (many small matrices), each beside cuFFT's R2C/C2R of the same shape and a device-to-device
// copy of the same bytes, timed in the same process. A copy of vkbench.cu, extended; the measurement is its:
// CUDA events on the legacy default stream, median and min of --reps runs after --warm warm-ups, out-of-place,
// random inputs in [-1, 1), FFTW's normalisation (no scaling), and a host double reference on sampled lines.
//
// Build: scripts/bench/peers/build.sh [OUT] (from the repository root), i.e.
//   nvcc -O2 -std=c++17 -DVKFFT_BACKEND=1 -I ../shared/peers/vkFFT \
//        -gencode=arch=compute_90,code=sm_90 vkbench_r2r.cu -lcuda -lnvrtc -lcufft
//
// Output: CSV on stdout (everything else, VkFFT's and NVRTC's printf included, goes to stderr):
//   peer,op,precision,shape,batch,median_ms,min_ms,copy_ms,fft_ms,x_copy,x_fft,max_rel_err
// Shapes are row-major, the last extent contiguous:
//   dct2_3d, dct3_3d   shape DxHxW, batch 1; VkFFT FFTdim=3 (size[0]=W, size[1]=H, size[2]=D), performDCT=2/3;
//                      fft_ms: cuFFT cufftPlan3d(D, H, W) R2C (D2Z) for dct2, C2R (Z2D) for dct3
//   dct1_2d, dst2_2d, dst3_2d   shape HxW (rows x cols), batch 1; VkFFT FFTdim=2, performDCT=1 or
//                      performDST=2/3; fft_ms: cuFFT cufftPlan2d R2C (C2R for dst3)
//   dct2_2d, dct3_2d   (batched) shape HxW, batch B: B matrices of H x W one after the other; VkFFT FFTdim=2
//                      with numberBatches=B; fft_ms: cuFFT cufftPlanMany rank 2, batch B, R2C (C2R for dct3)
// plus the rows of the baselines themselves (peer cuda op memcpy_d2d; peer cufft ops r2c_3d, c2r_3d, r2c_2d,
// c2r_2d with the same shape and batch). A VkFFT plan that fails leaves a row with nan times.
//
// VkFFT 1.3.4 has DSTs: VkFFTConfiguration.performDST = 1..4 beside performDCT = 1..4 (vkFFT_Structs.h).
// Its DST-II negates the odd-indexed inputs, runs the DCT-II and reverses the output (vkFFT_R2R.h), which is
// FFTW's RODFT10; its DCT-I is the real FFT of the even extension of length 2(N-1), FFTW's REDFT00.
// DCT-III and DST-III are performDCT=3 / performDST=3 run forward (the kernel family of the inverse of type 2).
//
// max_rel_err = max |vk - s*ref| / max |s*ref| over the compared lines, ref computed on the host in double with
// the FFTW conventions, per axis (n, k = 0..N-1):
//   DCT-I  (REDFT00): y_k = x_0 + (-1)^k x_{N-1} + 2 sum_{n=1}^{N-2} x_n cos(pi k n / (N-1))
//   DCT-II (REDFT10): y_k = 2 sum_n x_n cos(pi k (2n+1) / (2N))
//   DCT-III(REDFT01): y_k = x_0 + 2 sum_{n>=1} x_n cos(pi n (2k+1) / (2N))
//   DST-II (RODFT10): y_k = 2 sum_n x_n sin(pi (k+1)(2n+1) / (2N))
//   DST-III(RODFT01): y_k = (-1)^k x_{N-1} + 2 sum_{n<=N-2} x_n sin(pi (2k+1)(n+1) / (2N))
// and s the scale detected (least squares) at the small check shapes (10x12x16 for 3-D, 66x50 for 2-D, 7 matrices
// of 24x20 for the batch), printed to stderr ("vk/ref = 1" means VkFFT == FFTW's convention) with a WARNING line
// where it is not 1. At the check shapes every output line is compared; at benchmark shapes the lines
// (k0, k1) with k0, k1 in {0, 1, n/3, n-1} of the two outer axes (3-D), the rows {0, 1, H/3, H-1} (2-D), or
// those rows of the matrices {0, 1, B/3, B-1} (batched).
//
// --tune: as vkbench: also plans with useLUT=1 (f32 only), coalescedMemory=64 and aimThreads=256; the fastest
// whose error is no worse than ~4x the default's is reported again as op "<op>_tuned".
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <cuComplex.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

#include "vkFFT.h"

static FILE* g_csv = nullptr;  // the real stdout
static CUdevice g_dev;
static int g_warm = 5, g_reps = 30;
static double g_max_seconds = 1e30;
static bool g_verify = true;
static bool g_tune = false;
static std::chrono::steady_clock::time_point g_t0;

static double elapsed_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_t0).count();
}

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_),   \
              __FILE__, __LINE__, #x);                                           \
      exit(2);                                                                   \
    }                                                                            \
  } while (0)

struct Stats {
  bool ok = false;
  double med = NAN, mn = NAN;
};

// Times body() with CUDA events on the legacy default stream: g_warm warm-ups,
// then g_reps timed runs, each bracketed by its own event pair. pre() (if any)
// runs before each run, outside the timed bracket (stream-ordered before it).
static Stats time_gpu(const std::function<bool()>& body, const std::function<void()>& pre = {}) {
  Stats s;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < g_warm; i++) {
    if (pre) pre();
    if (!body()) { cudaEventDestroy(a); cudaEventDestroy(b); return s; }
  }
  if (cudaDeviceSynchronize() != cudaSuccess) { fprintf(stderr, "sync failed: %s\n", cudaGetErrorString(cudaGetLastError())); return s; }
  std::vector<float> t;
  for (int i = 0; i < g_reps; i++) {
    if (pre) pre();
    CK(cudaEventRecord(a, 0));
    if (!body()) { cudaEventDestroy(a); cudaEventDestroy(b); return s; }
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { fprintf(stderr, "error after timing: %s\n", cudaGetErrorString(e)); return s; }
  std::sort(t.begin(), t.end());
  size_t n = t.size();
  s.med = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  s.mn = t[0];
  s.ok = true;
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return s;
}

static std::string fnum(double v, const char* fmt = "%.5f") {
  if (!std::isfinite(v)) return "nan";
  char b[64];
  snprintf(b, sizeof b, fmt, v);
  return b;
}

static void csv_row(const char* peer, const std::string& op, const char* prec, const std::string& shape,
                    long long batch, const Stats& s, double copy_ms, double fft_ms, double err) {
  double xc = (s.ok && copy_ms > 0) ? s.med / copy_ms : NAN;
  double xf = (s.ok && fft_ms > 0) ? s.med / fft_ms : NAN;
  fprintf(g_csv, "%s,%s,%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s\n", peer, op.c_str(), prec, shape.c_str(), batch,
          fnum(s.med).c_str(), fnum(s.mn).c_str(), fnum(copy_ms).c_str(), fnum(fft_ms).c_str(),
          fnum(xc, "%.3f").c_str(), fnum(xf, "%.3f").c_str(), fnum(err, "%.3e").c_str());
  fflush(g_csv);
}

// ---------------------------------------------------------------- host ref
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static inline float frand() {  // xorshift64*, uniform in [-1, 1)
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  uint64_t r = g_rng * 2685821657736338717ull;
  return (float)((double)(r >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

// The transforms: VkFFT's performDCT / performDST value, and whether cuFFT's C2R (not R2C) is the baseline.
enum Kind { kDct1, kDct2, kDct3, kDst2, kDst3 };
struct KindInfo {
  const char* name;
  int dct, dst;
  bool inverse;
};
static const KindInfo kKinds[] = {
    {"dct1", 1, 0, false}, {"dct2", 2, 0, false}, {"dct3", 3, 0, true}, {"dst2", 0, 2, false}, {"dst3", 0, 3, true}};

// 1-D kernel matrix K(N)[k][n] of one kind (FFTW REDFT00/10/01, RODFT10/01), from cos/sin tables of pi m / D
// indexed by exact integer m mod 2D.
struct R2rKernel {
  Kind kind;
  long long N, D;
  std::vector<double> ctab, stab;
  R2rKernel(Kind k, long long n) : kind(k), N(n) {
    D = (k == kDct1) ? std::max(1LL, n - 1) : 2 * n;
    ctab.resize(2 * D);
    stab.resize(2 * D);
    for (long long m = 0; m < 2 * D; m++) {
      ctab[m] = cos(M_PI * (double)m / (double)D);
      stab[m] = sin(M_PI * (double)m / (double)D);
    }
  }
  inline double operator()(long long k, long long n) const {
    const long long P = 2 * D;
    switch (kind) {
      case kDct1: return (n == 0 || n == N - 1 ? 1.0 : 2.0) * ctab[(k * n) % P];
      case kDct2: return 2.0 * ctab[(k * (2 * n + 1)) % P];
      case kDct3: return n == 0 ? 1.0 : 2.0 * ctab[(n * (2 * k + 1)) % P];
      case kDst2: return 2.0 * stab[((k + 1) * (2 * n + 1)) % P];
      default:  // kDst3: sin(pi (2k+1) N / 2N) = (-1)^k at n = N-1
        return (n == N - 1 ? 1.0 : 2.0) * stab[((2 * k + 1) * (n + 1)) % P];
    }
  }
};

// Reference output rows `rows` of the 2-D transform (kind on both axes) of the R x C matrix at x.
static std::vector<std::vector<double>> ref_rows_2d(const float* x, int R, int C, Kind kind, const std::vector<int>& rows) {
  R2rKernel K1(kind, R), K2(kind, C);
  std::vector<std::vector<double>> outs;
  std::vector<double> v(C);
  for (int k1 : rows) {
    std::fill(v.begin(), v.end(), 0.0);
    for (int n1 = 0; n1 < R; n1++) {
      double w = K1(k1, n1);
      const float* xr = x + (size_t)n1 * C;
      for (int n2 = 0; n2 < C; n2++) v[n2] += w * (double)xr[n2];
    }
    std::vector<double> out(C, 0.0);
    for (int k2 = 0; k2 < C; k2++) {
      double acc = 0;
      for (int n2 = 0; n2 < C; n2++) acc += K2(k2, n2) * v[n2];
      out[k2] = acc;
    }
    outs.push_back(std::move(out));
  }
  return outs;
}

// Reference output lines (k0, k1, :) of the 3-D transform (kind on every axis) of the D x H x W array x, for
// every k0 in k0s and k1 in k1s (k0 major): one contraction over n0 per k0, then rows as in 2-D.
static std::vector<std::vector<double>> ref_lines_3d(const std::vector<float>& x, int D, int H, int W, Kind kind,
                                                     const std::vector<int>& k0s, const std::vector<int>& k1s) {
  R2rKernel K0(kind, D), K1(kind, H), K2(kind, W);
  std::vector<std::vector<double>> outs;
  const size_t plane = (size_t)H * W;
  std::vector<double> P(plane), v(W);
  for (int k0 : k0s) {
    std::fill(P.begin(), P.end(), 0.0);
    for (int n0 = 0; n0 < D; n0++) {
      const double w = K0(k0, n0);
      const float* xs = &x[(size_t)n0 * plane];
      for (size_t i = 0; i < plane; i++) P[i] += w * (double)xs[i];
    }
    for (int k1 : k1s) {
      std::fill(v.begin(), v.end(), 0.0);
      for (int n1 = 0; n1 < H; n1++) {
        const double w = K1(k1, n1);
        const double* pr = &P[(size_t)n1 * W];
        for (int n2 = 0; n2 < W; n2++) v[n2] += w * pr[n2];
      }
      std::vector<double> out(W, 0.0);
      for (int k2 = 0; k2 < W; k2++) {
        double acc = 0;
        for (int n2 = 0; n2 < W; n2++) acc += K2(k2, n2) * v[n2];
        out[k2] = acc;
      }
      outs.push_back(std::move(out));
    }
  }
  return outs;
}

static std::vector<int> sample_rows(int R) {
  std::vector<int> r = {0, 1, R / 3, R - 1};
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  r.erase(std::remove_if(r.begin(), r.end(), [&](int v) { return v < 0 || v >= R; }), r.end());
  return r;
}

static std::vector<int> all_rows(int R) {
  std::vector<int> r(R);
  for (int i = 0; i < R; i++) r[i] = i;
  return r;
}

// detected scale (vk / ref) per "op/prec", from the check shapes
static std::map<std::string, double> g_scale;

// ---------------------------------------------------------------- VkFFT
struct VkPlan {
  VkFFTApplication app = {};
  bool ok = false, inplace = false;
  double init_ms = 0;
  void* in = nullptr;
  void* out = nullptr;
  uint64_t in_bytes = 0, out_bytes = 0;
};

// What VkFFT transforms: dim axes, n[0] the contiguous one, and `batches` such arrays one after the other.
struct Geo {
  int dim = 2;
  uint64_t n[3] = {1, 1, 1};
  uint64_t batches = 1;
};

// Tuning variants tried with --tune (variant 0 = VkFFT defaults).
struct Variant { const char* name; int useLUT; int coalesced; int aimThreads; bool f32only; };
static const Variant kVariants[] = {
    {"default", 0, 0, 0, false},
    {"lut", 1, 0, 0, true},          // precomputed twiddle LUT (default for f64 already)
    {"coal64", 0, 64, 0, false},     // coalescedMemory 64 B (default 32 on NVIDIA)
    {"threads256", 0, 0, 256, false} // aimThreads 256 (default 128)
};
static const int kNumVariants = sizeof(kVariants) / sizeof(kVariants[0]);

// batchMode 0: numberBatches; 1 (fallback): one more dimension of extent `batches`, omitted.
static VkFFTResult vk_init(VkPlan& p, Kind kind, bool dbl, const Geo& g, bool oop, int batchMode, int variant) {
  VkFFTConfiguration c = {};
  const Variant& V = kVariants[variant];
  if (V.useLUT) c.useLUT = V.useLUT;
  if (V.coalesced) c.coalescedMemory = V.coalesced;
  if (V.aimThreads) c.aimThreads = V.aimThreads;
  c.FFTdim = g.dim;
  for (int i = 0; i < g.dim; i++) c.size[i] = g.n[i];
  if (g.batches > 1) {
    if (batchMode == 0) {
      c.numberBatches = g.batches;
    } else {
      c.FFTdim = g.dim + 1;
      c.size[g.dim] = g.batches;
      c.omitDimension[g.dim] = 1;
    }
  }
  if (kKinds[kind].dct) c.performDCT = kKinds[kind].dct;
  if (kKinds[kind].dst) c.performDST = kKinds[kind].dst;
  c.doublePrecision = dbl ? 1 : 0;
  c.makeForwardPlanOnly = 1;
  c.device = &g_dev;
  c.num_streams = 0;  // legacy default stream
  c.bufferSize = &p.out_bytes;
  c.buffer = &p.out;
  if (oop) {
    c.isInputFormatted = 1;
    c.inputBufferSize = &p.in_bytes;
    c.inputBuffer = &p.in;
  } else {
    // in-place: buffer is both input and output
  }
  p.inplace = !oop;
  auto t0 = std::chrono::steady_clock::now();
  VkFFTResult r = initializeVkFFT(&p.app, c);
  p.init_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  p.ok = (r == VKFFT_SUCCESS);
  return r;
}

static bool vk_run(VkPlan& p) {
  VkFFTLaunchParams lp = {};
  lp.buffer = &p.out;
  if (!p.inplace) lp.inputBuffer = &p.in;
  VkFFTResult r = VkFFTAppend(&p.app, -1, &lp);
  if (r != VKFFT_SUCCESS) {
    fprintf(stderr, "VkFFTAppend failed: %d (%s)\n", (int)r, getVkFFTErrorString(r));
    return false;
  }
  return true;
}

// Makes a plan: out-of-place first, then in-place; for batches also the omitted-dimension fallback. Returns
// false if nothing worked.
static bool vk_make(VkPlan& p, Kind kind, bool dbl, const Geo& g, void* din, void* dout, uint64_t bytes,
                    const std::string& label, int variant) {
  const bool batched = g.batches > 1;
  for (int oop = 1; oop >= 0; oop--) {
    for (int bm = 0; bm < (batched ? 2 : 1); bm++) {
      p = VkPlan();
      p.in = oop ? din : dout;
      p.out = dout;
      p.in_bytes = p.out_bytes = bytes;
      if (!oop) CK(cudaMemcpy(dout, din, bytes, cudaMemcpyDeviceToDevice));
      VkFFTResult r = vk_init(p, kind, dbl, g, oop != 0, bm, variant);
      if (r == VKFFT_SUCCESS) {
        // one trial launch
        bool ok = vk_run(p) && cudaDeviceSynchronize() == cudaSuccess;
        if (ok) {
          fprintf(stderr, "# vkfft plan %s [%s]: %s%s, init %.1f ms\n", label.c_str(), kVariants[variant].name,
                  oop ? "out-of-place" : "in-place",
                  batched ? (bm ? " (batch as an omitted dimension)" : " (numberBatches)") : "", p.init_ms);
          return true;
        }
        fprintf(stderr, "# vkfft plan %s: trial launch failed (oop=%d bm=%d)\n", label.c_str(), oop, bm);
        cudaGetLastError();
        deleteVkFFT(&p.app);
      } else {
        fprintf(stderr, "# vkfft plan %s: initializeVkFFT failed %d (%s) (oop=%d bm=%d)\n", label.c_str(), (int)r,
                getVkFFTErrorString(r), oop, bm);
      }
    }
  }
  p.ok = false;
  return false;
}

// Compares output lines of dout (lines of C contiguous elements; `lines` holds their indices) to host refs.
// Returns max|vk - s*ref| / max|s*ref| over those lines. If detect, fits s.
static double compare_lines(const void* dout, bool dbl, int C, const std::vector<long long>& lines,
                            const std::vector<std::vector<double>>& refs, double& s, bool detect) {
  std::vector<std::vector<double>> got(lines.size(), std::vector<double>(C));
  size_t es = dbl ? 8 : 4;
  std::vector<char> buf((size_t)C * es);
  for (size_t i = 0; i < lines.size(); i++) {
    CK(cudaMemcpy(buf.data(), (const char*)dout + (size_t)lines[i] * C * es, (size_t)C * es, cudaMemcpyDeviceToHost));
    for (int j = 0; j < C; j++) got[i][j] = dbl ? ((double*)buf.data())[j] : (double)((float*)buf.data())[j];
  }
  if (detect) {
    double num = 0, den = 0;
    for (size_t i = 0; i < lines.size(); i++)
      for (int j = 0; j < C; j++) { num += got[i][j] * refs[i][j]; den += refs[i][j] * refs[i][j]; }
    s = den > 0 ? num / den : NAN;
  }
  double maxerr = 0, maxref = 0;
  for (size_t i = 0; i < lines.size(); i++)
    for (int j = 0; j < C; j++) {
      double r = s * refs[i][j];
      double e = fabs(got[i][j] - r);
      if (!(e <= maxerr)) maxerr = e;  // catches NaN
      maxref = std::max(maxref, fabs(r));
    }
  return maxref > 0 ? maxerr / maxref : NAN;
}

static std::string shape_str(long long r, long long c) { return std::to_string(r) + "x" + std::to_string(c); }
static std::string shape_str(long long d, long long r, long long c) { return std::to_string(d) + "x" + shape_str(r, c); }

// Times one VkFFT plan (variant v); verifies against refs.
struct VkOut {
  bool ok = false, inplace = false;
  Stats s;
  double err = NAN;
};
static VkOut bench_vk(Kind kind, bool dbl, const Geo& g, void* din, void* dout, uint64_t bytes,
                      const std::string& label, int v, bool check, const std::vector<long long>& lines,
                      const std::vector<std::vector<double>>& refs, const std::string& key) {
  VkOut o;
  VkPlan p;
  if (!vk_make(p, kind, dbl, g, din, dout, bytes, label, v)) return o;
  o.ok = true;
  o.inplace = p.inplace;
  std::function<void()> pre;
  if (p.inplace) pre = [&] { cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice, 0); };
  o.s = time_gpu([&] { return vk_run(p); }, pre);
  if ((g_verify || check) && !refs.empty()) {
    if (p.inplace) { CK(cudaMemcpy(dout, din, bytes, cudaMemcpyDeviceToDevice)); vk_run(p); }
    CK(cudaDeviceSynchronize());
    double sc = 1.0;
    if (check && v == 0) {
      o.err = compare_lines(dout, dbl, (int)g.n[0], lines, refs, sc, true);
      g_scale[key] = sc;
      const double tol = dbl ? 1e-12 : 1e-5;
      fprintf(stderr, "# scale %s (check %s): vk/ref = %.9g (1 == FFTW convention); max_rel_err %.3e\n", key.c_str(),
              label.c_str(), sc, o.err);
      if (!(fabs(sc - 1.0) < 1e-6))
        fprintf(stderr, "# WARNING: %s: VkFFT's output is %.9g x FFTW's definition (errors are against that multiple)\n",
                key.c_str(), sc);
      if (!(o.err < tol))
        fprintf(stderr, "# WARNING: %s: max_rel_err %.3e at the check shape: not FFTW's definition up to a scale\n",
                key.c_str(), o.err);
    } else {
      sc = g_scale.count(key) ? g_scale[key] : 1.0;
      o.err = compare_lines(dout, dbl, (int)g.n[0], lines, refs, sc, false);
    }
  }
  deleteVkFFT(&p.app);
  return o;
}

// Default plan -> row `op`; with --tune also every variant, best -> `op`_tuned.
static void bench_vk_all(Kind kind, bool dbl, const Geo& g, void* din, void* dout, uint64_t bytes,
                         const std::string& label, const std::string& op, const char* prec, const std::string& shp,
                         long long batch, double copy_ms, double fft_ms, bool check, const std::vector<long long>& lines,
                         const std::vector<std::vector<double>>& refs, const std::string& key) {
  VkOut d = bench_vk(kind, dbl, g, din, dout, bytes, label, 0, check, lines, refs, key);
  csv_row("vkfft", d.inplace ? op + "_inplace" : op, prec, shp, batch, d.s, copy_ms, fft_ms, d.err);
  if (!g_tune || check) return;
  VkOut best = d;
  int bestv = d.s.ok ? 0 : -1;
  std::string tl = "# tune " + label + ":";
  char b[96];
  snprintf(b, sizeof b, " default %.5f", d.s.med);
  tl += b;
  for (int v = 1; v < kNumVariants; v++) {
    if (kVariants[v].f32only && dbl) continue;
    if (elapsed_s() > g_max_seconds) { tl += " (rest skipped: time budget)"; break; }
    VkOut o = bench_vk(kind, dbl, g, din, dout, bytes, label, v, check, lines, refs, key);
    snprintf(b, sizeof b, " %s %.5f", kVariants[v].name, o.s.ok ? o.s.med : NAN);
    tl += b;
    // only accept a variant whose output is as correct as the default's
    bool good = o.s.ok && (!(std::isfinite(d.err)) || (std::isfinite(o.err) && o.err <= std::max(4 * d.err, dbl ? 1e-13 : 1e-5)));
    if (good && (bestv < 0 || o.s.med < best.s.med)) { best = o; bestv = v; }
  }
  fprintf(stderr, "%s -> best %s\n", tl.c_str(), bestv >= 0 ? kVariants[bestv].name : "none");
  csv_row("vkfft", (best.inplace ? op + "_inplace" : op) + "_tuned", prec, shp, batch, best.s, copy_ms, fft_ms, best.err);
}

// ---------------------------------------------------------------- cases
// The copy floor and cuFFT's R2C / C2R of `make_plan`'s shape (out-of-place) on din: rows memcpy_d2d,
// r2c_<tag>, c2r_<tag>, and their medians (nan where a plan failed).
struct Floors {
  double copy_ms = NAN, r2c_ms = NAN, c2r_ms = NAN;
};
static Floors time_floors(bool dbl, void* din, void* dout, size_t bytes, size_t cbytes, const std::string& tag,
                          const char* prec, const std::string& shp, long long batch,
                          const std::function<cufftResult(cufftHandle*, cufftType)>& make_plan) {
  Floors f;
  Stats cp = time_gpu([&] { return cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess; });
  f.copy_ms = cp.med;
  csv_row("cuda", "memcpy_d2d", prec, shp, batch, cp, f.copy_ms, NAN, NAN);

  void *dc, *dcp;
  CK(cudaMalloc(&dc, cbytes));
  CK(cudaMalloc(&dcp, cbytes));
  cufftHandle pf, pi;
  cufftResult e1 = make_plan(&pf, dbl ? CUFFT_D2Z : CUFFT_R2C);
  if (e1 == CUFFT_SUCCESS) {
    Stats s = time_gpu([&] {
      return (dbl ? cufftExecD2Z(pf, (cufftDoubleReal*)din, (cufftDoubleComplex*)dc)
                  : cufftExecR2C(pf, (cufftReal*)din, (cufftComplex*)dc)) == CUFFT_SUCCESS;
    });
    f.r2c_ms = s.med;
    csv_row("cufft", "r2c_" + tag, prec, shp, batch, s, f.copy_ms, f.r2c_ms, NAN);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(dcp, dc, cbytes, cudaMemcpyDeviceToDevice));  // realistic spectrum for C2R
    cufftDestroy(pf);
  } else {
    fprintf(stderr, "# cufft r2c plan %s %s %s failed: %d\n", tag.c_str(), shp.c_str(), prec, (int)e1);
    CK(cudaMemset(dcp, 0, cbytes));
  }
  cufftResult e2 = make_plan(&pi, dbl ? CUFFT_Z2D : CUFFT_C2R);
  if (e2 == CUFFT_SUCCESS) {
    // C2R may overwrite its input: restore it before each run (untimed).
    Stats s = time_gpu(
        [&] {
          return (dbl ? cufftExecZ2D(pi, (cufftDoubleComplex*)dc, (cufftDoubleReal*)dout)
                      : cufftExecC2R(pi, (cufftComplex*)dc, (cufftReal*)dout)) == CUFFT_SUCCESS;
        },
        [&] { cudaMemcpyAsync(dc, dcp, cbytes, cudaMemcpyDeviceToDevice, 0); });
    f.c2r_ms = s.med;
    csv_row("cufft", "c2r_" + tag, prec, shp, batch, s, f.copy_ms, f.c2r_ms, NAN);
    cufftDestroy(pi);
  } else {
    fprintf(stderr, "# cufft c2r plan %s %s %s failed: %d\n", tag.c_str(), shp.c_str(), prec, (int)e2);
  }
  CK(cudaFree(dc));
  CK(cudaFree(dcp));
  return f;
}

static void upload(void* din, const std::vector<float>& x, bool dbl) {
  if (dbl) {
    std::vector<double> xd(x.begin(), x.end());
    CK(cudaMemcpy(din, xd.data(), x.size() * 8, cudaMemcpyHostToDevice));
  } else {
    CK(cudaMemcpy(din, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  }
}

static double secs_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static std::vector<bool> g_precs = {true, true};  // f32, f64 for the 3-D and 2-D cases

// 3-D DCT-II / DCT-III of D x H x W (W contiguous), plus cuFFT 3-D R2C / C2R and the copy.
static void run_3d(int D, int H, int W, bool check) {
  const std::string shp = shape_str(D, H, W);
  const size_t n = (size_t)D * H * W;
  const size_t nc = (size_t)D * H * (W / 2 + 1);
  std::vector<float> x(n);
  for (auto& v : x) v = frand();

  const std::vector<int> k0s = check ? all_rows(D) : sample_rows(D);
  const std::vector<int> k1s = check ? all_rows(H) : sample_rows(H);
  std::vector<long long> lines;
  for (int a : k0s) for (int b : k1s) lines.push_back((long long)a * H + b);
  const Kind kinds[] = {kDct2, kDct3};
  std::map<int, std::vector<std::vector<double>>> refs;
  if (g_verify || check) {
    auto t0 = std::chrono::steady_clock::now();
    for (Kind k : kinds) refs[k] = ref_lines_3d(x, D, H, W, k, k0s, k1s);
    fprintf(stderr, "# host reference %s: %zu lines x 2 kinds in %.2f s\n", shp.c_str(), lines.size(), secs_since(t0));
  }

  for (int dbl = 0; dbl <= 1; dbl++) {
    const char* prec = dbl ? "f64" : "f32";
    if (!check && !g_precs[dbl]) continue;
    if (elapsed_s() > g_max_seconds) {
      fprintf(stderr, "# SKIPPED 3-D %s %s: over --max-seconds budget\n", shp.c_str(), prec);
      continue;
    }
    const size_t es = dbl ? 8 : 4;
    const size_t bytes = n * es, cbytes = nc * 2 * es;
    void *din, *dout;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dout, bytes));
    upload(din, x, dbl);
    Floors f = time_floors(dbl, din, dout, bytes, cbytes, "3d", prec, shp, 1,
                           [&](cufftHandle* p, cufftType t) { return cufftPlan3d(p, D, H, W, t); });
    Geo g;
    g.dim = 3;
    g.n[0] = W, g.n[1] = H, g.n[2] = D;
    for (Kind k : kinds) {
      const std::string op = std::string(kKinds[k].name) + "_3d";
      const std::string label = op + " " + prec + " " + shp;
      bench_vk_all(k, dbl != 0, g, din, dout, bytes, label, op, prec, shp, 1, f.copy_ms,
                   kKinds[k].inverse ? f.c2r_ms : f.r2c_ms, check, lines, refs[k], op + "/" + prec);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
}

// 2-D DCT-I, DST-II and DST-III of R x C, plus cuFFT 2-D R2C / C2R and the copy.
static void run_r2r_2d(int R, int C, bool check) {
  const std::string shp = shape_str(R, C);
  const size_t n = (size_t)R * C;
  const size_t nc = (size_t)R * (C / 2 + 1);
  std::vector<float> x(n);
  for (auto& v : x) v = frand();

  const std::vector<int> rows = check ? all_rows(R) : sample_rows(R);
  const std::vector<long long> lines(rows.begin(), rows.end());
  const Kind kinds[] = {kDct1, kDst2, kDst3};
  std::map<int, std::vector<std::vector<double>>> refs;
  if (g_verify || check) {
    auto t0 = std::chrono::steady_clock::now();
    for (Kind k : kinds) refs[k] = ref_rows_2d(x.data(), R, C, k, rows);
    fprintf(stderr, "# host reference %s: %zu rows x 3 kinds in %.2f s\n", shp.c_str(), rows.size(), secs_since(t0));
  }

  for (int dbl = 0; dbl <= 1; dbl++) {
    const char* prec = dbl ? "f64" : "f32";
    if (!check && !g_precs[dbl]) continue;
    if (elapsed_s() > g_max_seconds) {
      fprintf(stderr, "# SKIPPED 2-D %s %s: over --max-seconds budget\n", shp.c_str(), prec);
      continue;
    }
    const size_t es = dbl ? 8 : 4;
    const size_t bytes = n * es, cbytes = nc * 2 * es;
    void *din, *dout;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dout, bytes));
    upload(din, x, dbl);
    Floors f = time_floors(dbl, din, dout, bytes, cbytes, "2d", prec, shp, 1,
                           [&](cufftHandle* p, cufftType t) { return cufftPlan2d(p, R, C, t); });
    Geo g;
    g.dim = 2;
    g.n[0] = C, g.n[1] = R;
    for (Kind k : kinds) {
      const std::string op = std::string(kKinds[k].name) + "_2d";
      const std::string label = op + " " + prec + " " + shp;
      bench_vk_all(k, dbl != 0, g, din, dout, bytes, label, op, prec, shp, 1, f.copy_ms,
                   kKinds[k].inverse ? f.c2r_ms : f.r2c_ms, check, lines, refs[k], op + "/" + prec);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
}

// B matrices of H x W (one after the other), 2-D DCT-II / DCT-III of each, f32, plus cuFFT's batched 2-D
// R2C / C2R and the copy.
static void run_batch2d(int B, int H, int W, bool check) {
  const std::string shp = shape_str(H, W);
  const char* prec = "f32";
  if (elapsed_s() > g_max_seconds) {
    fprintf(stderr, "# SKIPPED batch %d x %s: over --max-seconds budget\n", B, shp.c_str());
    return;
  }
  const size_t per = (size_t)H * W;
  const size_t n = per * B;
  const size_t nc = (size_t)B * H * (W / 2 + 1);
  std::vector<float> x(n);
  for (auto& v : x) v = frand();

  const std::vector<int> mats = check ? all_rows(B) : sample_rows(B);
  const std::vector<int> rows = check ? all_rows(H) : sample_rows(H);
  std::vector<long long> lines;
  for (int b : mats) for (int r : rows) lines.push_back((long long)b * H + r);
  const Kind kinds[] = {kDct2, kDct3};
  std::map<int, std::vector<std::vector<double>>> refs;
  if (g_verify || check) {
    auto t0 = std::chrono::steady_clock::now();
    for (Kind k : kinds)
      for (int b : mats) {
        std::vector<std::vector<double>> r = ref_rows_2d(&x[(size_t)b * per], H, W, k, rows);
        for (auto& v : r) refs[k].push_back(std::move(v));
      }
    fprintf(stderr, "# host reference %d x %s: %zu rows x 2 kinds in %.2f s\n", B, shp.c_str(), lines.size(),
            secs_since(t0));
  }

  const size_t bytes = n * 4, cbytes = nc * 8;
  void *din, *dout;
  CK(cudaMalloc(&din, bytes));
  CK(cudaMalloc(&dout, bytes));
  upload(din, x, false);
  Floors f = time_floors(false, din, dout, bytes, cbytes, "2d", prec, shp, B, [&](cufftHandle* p, cufftType t) {
    int nn[2] = {H, W};
    return cufftPlanMany(p, 2, nn, nullptr, 1, 0, nullptr, 1, 0, t, B);
  });
  Geo g;
  g.dim = 2;
  g.n[0] = W, g.n[1] = H;
  g.batches = B;
  for (Kind k : kinds) {
    const std::string op = std::string(kKinds[k].name) + "_2d";
    const std::string label = op + " " + prec + " " + std::to_string(B) + " x " + shp;
    // batched plans take the scale of their own check (the batch layout is what it checks)
    bench_vk_all(k, false, g, din, dout, bytes, label, op, prec, shp, B, f.copy_ms,
                 kKinds[k].inverse ? f.c2r_ms : f.r2c_ms, check, lines, refs[k], op + "/batch/" + prec);
  }
  CK(cudaFree(din));
  CK(cudaFree(dout));
}

static void usage() {
  fprintf(stderr,
          "usage: vkbench_r2r [--reps N] [--warm N] [--no-verify] [--tune] [--max-seconds S] [--only 3d|2d|batch|check]\n"
          "                   [--precision f32,f64] [--shapes3d DxHxW,...] [--shapes HxW,...] [--batch2d BxHxW,...]\n"
          "  3d:    dct2_3d, dct3_3d at --shapes3d (default 256x256x256,512x512x512,384x512x640)\n"
          "  2d:    dct1_2d, dst2_2d, dst3_2d at --shapes (default 4096x4096,1080x1920)\n"
          "  batch: dct2_2d, dct3_2d of B matrices H x W, f32, at --batch2d (default 20000x240x240)\n"
          "  check: only the small check shapes (each of 3d, 2d, batch runs its own first); no --only: all\n"
          "  --precision: of the 3d and 2d cases (default f32,f64); --tune: also VkFFT variants, best -> op_tuned\n"
          "  CSV on stdout, diagnostics on stderr.\n");
}

// "AxBx..." -> its k extents, or empty.
static std::vector<int> parse_dims(const std::string& t, int k) {
  std::vector<int> d;
  size_t p = 0;
  while (p <= t.size()) {
    size_t q = t.find('x', p);
    if (q == std::string::npos) q = t.size();
    const std::string s = t.substr(p, q - p);
    char* end = nullptr;
    long v = strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v < 1 || v > (1L << 30)) return {};
    d.push_back((int)v);
    p = q + 1;
  }
  if ((int)d.size() != k) return {};
  return d;
}

static bool for_each_item(const std::string& list, int k, const char* flag,
                          const std::function<void(const std::vector<int>&)>& fn) {
  for (size_t p = 0; p < list.size();) {
    size_t q = list.find(',', p);
    if (q == std::string::npos) q = list.size();
    const std::string t = list.substr(p, q - p);
    std::vector<int> d = parse_dims(t, k);
    if (d.empty()) {
      fprintf(stderr, "vkbench_r2r: %s: '%s' is not %d extents joined by x\n", flag, t.c_str(), k);
      return false;
    }
    fn(d);
    p = q + 1;
  }
  return true;
}

int main(int argc, char** argv) {
  g_t0 = std::chrono::steady_clock::now();
  std::string only;
  std::string shapes3d = "256x256x256,512x512x512,384x512x640";
  std::string shapes2d = "4096x4096,1080x1920";
  std::string batch2d = "20000x240x240";
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) g_reps = atoi(argv[++i]);
    else if (a == "--warm" && i + 1 < argc) g_warm = atoi(argv[++i]);
    else if (a == "--no-verify") g_verify = false;
    else if (a == "--tune") g_tune = true;
    else if (a == "--max-seconds" && i + 1 < argc) g_max_seconds = atof(argv[++i]);
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--shapes3d" && i + 1 < argc) shapes3d = argv[++i];
    else if (a == "--shapes" && i + 1 < argc) shapes2d = argv[++i];
    else if (a == "--batch2d" && i + 1 < argc) batch2d = argv[++i];
    else if (a == "--precision" && i + 1 < argc) {
      std::string p = std::string(",") + argv[++i] + ",";
      g_precs = {p.find(",f32,") != std::string::npos, p.find(",f64,") != std::string::npos};
      if (!g_precs[0] && !g_precs[1]) { usage(); return 1; }
    } else { usage(); return a == "-h" || a == "--help" ? 0 : 1; }
  }
  if (g_reps < 1) g_reps = 1;
  if (!only.empty() && only != "3d" && only != "2d" && only != "batch" && only != "check") { usage(); return 1; }
  // every list is checked before anything runs
  auto nop = [](const std::vector<int>&) {};
  if (!for_each_item(shapes3d, 3, "--shapes3d", nop) || !for_each_item(shapes2d, 2, "--shapes", nop) ||
      !for_each_item(batch2d, 3, "--batch2d", nop))
    return 1;

  // CSV goes to the real stdout; route fd 1 (VkFFT/NVRTC printf) to stderr.
  fflush(stdout);
  int csvfd = dup(1);
  g_csv = fdopen(csvfd, "w");
  dup2(2, 1);

  CK(cudaSetDevice(0));
  CK(cudaFree(0));  // create the primary context, current on this thread
  if (cuDeviceGet(&g_dev, 0) != CUDA_SUCCESS) { fprintf(stderr, "cuDeviceGet failed\n"); return 2; }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0, nvm = 0, nvn = 0, cufftv = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  nvrtcVersion(&nvm, &nvn);
  cufftGetVersion(&cufftv);
  fprintf(stderr, "# device: %s (sm_%d%d, %d SMs, %.1f GiB); driver %d, runtime %d, nvrtc %d.%d, cufft %d, VkFFT %d\n",
          prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, drv, rt,
          nvm, nvn, cufftv, VkFFTGetVersion());
  fprintf(stderr, "# timing: CUDA events, median and min of %d runs after %d warm-ups; VkFFT out-of-place unless op ends in _inplace\n",
          g_reps, g_warm);
  fprintf(stderr, "# VkFFT 1.3.4 DST support: performDST = 1..4 (this benchmark times DST-II and DST-III)\n");

  fprintf(g_csv, "peer,op,precision,shape,batch,median_ms,min_ms,copy_ms,fft_ms,x_copy,x_fft,max_rel_err\n");
  fflush(g_csv);

  const bool all = only.empty();
  // correctness check shapes first (they also fix the scale factors), both precisions
  if (all || only == "check" || only == "3d") run_3d(10, 12, 16, true);
  if (all || only == "check" || only == "2d") run_r2r_2d(66, 50, true);
  if (all || only == "check" || only == "batch") run_batch2d(7, 24, 20, true);
  if (all || only == "3d")
    for_each_item(shapes3d, 3, "--shapes3d", [](const std::vector<int>& d) { run_3d(d[0], d[1], d[2], false); });
  if (all || only == "2d")
    for_each_item(shapes2d, 2, "--shapes", [](const std::vector<int>& d) { run_r2r_2d(d[0], d[1], false); });
  if (all || only == "batch")
    for_each_item(batch2d, 3, "--batch2d", [](const std::vector<int>& d) { run_batch2d(d[0], d[1], d[2], false); });
  fprintf(stderr, "# vkbench_r2r done in %.1f s\n", elapsed_s());
  fflush(g_csv);
  return 0;
}
