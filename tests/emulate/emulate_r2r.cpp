/* Host emulation of cuda-r2r's kernels (kernels/r2r/r2r_kernels.cuh) for machines without a GPU: the header compiled
   as plain C++, each kernel run by one host "thread" (blockDim = gridDim = 1: the kernels' grid-stride loops cover
   every index), cuFFT replaced by direct long-double DFTs of the same layouts (R2C, C2R with cuFFT's Hermitian
   reading of the half spectrum, forward C2C; unnormalized). Compared with scipy's unnormalized definitions of the
   eight kinds, applied axis by axis, with random per-index factors standing in for the norms (pre by input index,
   post by output index):
     - line steps: every kind, n = 1 .. 17 and 32 (DCT-I from 2): 2 outer blocks of contiguous lines (inner = 1) and
       of strided ones (inner 3: the tiled gather); the interleaved buffers (1 × 16 and 3 × 21 inner); past the
       outer limit, 65 outer blocks of 16 inner (n = 5) and of 40 (n = 17: several gather tiles, one partial);
     - the N-D three-stage step, D = 2 and 3: both families (dct2/dst2 forward, dct3/dst3 inverse), every dst/dct
       mix per axis, even, odd and 2-point extents, batch 2.
   Error per case: max |out - ref| over max |ref|; pass f32 <= 2e-5, f64 <= 1e-12. Self-contained (no libraries). */
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "cuda_host.hpp"
#define __shared__  // kernels/dct4/rows.cuh (the complex types) declares shared memory in kernels not run here
#include "kernels/r2r/r2r_kernels.cuh"

using namespace dct::cuda::r2r;
using LD = long double;
using CLD = std::complex<LD>;

namespace {

const LD kPi = 3.141592653589793238462643383279502884L;

// scipy's unnormalized kernel of a kind: y_k = sum_m K(k, m) x_m.
LD kernel(int kind, i64 n, i64 k, i64 m) {
  const LD N = static_cast<LD>(n);
  switch (kind) {
    case kDct1:
      if (m == 0) return 1;
      if (m == n - 1) return (k & 1) ? -1 : 1;
      return 2 * std::cos(kPi * k * m / (N - 1));
    case kDct2:
      return 2 * std::cos(kPi * k * (2 * m + 1) / (2 * N));
    case kDct3:
      return m == 0 ? 1 : 2 * std::cos(kPi * m * (2 * k + 1) / (2 * N));
    case kDct4:
      return 2 * std::cos(kPi * (2 * k + 1) * (2 * m + 1) / (4 * N));
    case kDst1:
      return 2 * std::sin(kPi * (k + 1) * (m + 1) / (N + 1));
    case kDst2:
      return 2 * std::sin(kPi * (k + 1) * (2 * m + 1) / (2 * N));
    case kDst3:
      return m == n - 1 ? ((k & 1) ? -1 : 1) : 2 * std::sin(kPi * (m + 1) * (2 * k + 1) / (2 * N));
    default:
      return 2 * std::sin(kPi * (2 * k + 1) * (2 * m + 1) / (4 * N));
  }
}

// Apply kind along axis `ax` of a row-major array (dims), with pre/post factors; in place on a long-double copy.
void apply_axis(std::vector<LD>& a, const std::vector<i64>& dims, int ax, int kind, const std::vector<LD>& pre,
                const std::vector<LD>& post) {
  i64 outer = 1, inner = 1;
  for (int j = 0; j < ax; ++j) outer *= dims[j];
  for (std::size_t j = ax + 1; j < dims.size(); ++j) inner *= dims[j];
  const i64 n = dims[ax];
  std::vector<LD> line(n);
  for (i64 o = 0; o < outer; ++o)
    for (i64 i = 0; i < inner; ++i) {
      for (i64 m = 0; m < n; ++m) line[m] = pre[m] * a[(o * n + m) * inner + i];
      for (i64 k = 0; k < n; ++k) {
        LD s = 0;
        for (i64 m = 0; m < n; ++m) s += kernel(kind, n, k, m) * line[m];
        a[(o * n + k) * inner + i] = post[k] * s;
      }
    }
}

// cuFFT stand-ins on `lines` contiguous lines (unnormalized, long double inside).
template <class T>
void dft_r2c(const T* in, cx<T>* out, i64 L, i64 lines) {
  for (i64 l = 0; l < lines; ++l)
    for (i64 k = 0; k <= L / 2; ++k) {
      CLD s = 0;
      for (i64 t = 0; t < L; ++t) s += static_cast<LD>(in[l * L + t]) * std::polar(1.0L, -2 * kPi * t * k / L);
      out[l * (L / 2 + 1) + k] = cx<T>{static_cast<T>(s.real()), static_cast<T>(s.imag())};
    }
}
template <class T>
void dft_c2r(const cx<T>* in, T* out, i64 L, i64 lines) {  // reads the half spectrum as Hermitian
  const i64 h = L / 2 + 1;
  for (i64 l = 0; l < lines; ++l)
    for (i64 t = 0; t < L; ++t) {
      LD s = 0;
      for (i64 k = 0; k < L; ++k) {
        const cx<T> v = k < h ? in[l * h + k] : cx<T>{in[l * h + L - k].x, -in[l * h + L - k].y};
        CLD c(v.x, v.y);
        if (k == 0 || 2 * k == L) c = CLD(v.x, 0);
        s += (c * std::polar(1.0L, 2 * kPi * t * k / L)).real();
      }
      out[l * L + t] = static_cast<T>(s);
    }
}
template <class T>
void dft_c2c(const cx<T>* in, cx<T>* out, i64 L, i64 lines) {
  for (i64 l = 0; l < lines; ++l)
    for (i64 k = 0; k < L; ++k) {
      CLD s = 0;
      for (i64 t = 0; t < L; ++t) s += CLD(in[l * L + t].x, in[l * L + t].y) * std::polar(1.0L, -2 * kPi * t * k / L);
      out[l * L + k] = cx<T>{static_cast<T>(s.real()), static_cast<T>(s.imag())};
    }
}

void one_thread() {
  blockIdx = {0, 0, 0};
  blockDim = {1, 1, 1};
  gridDim = {1, 1, 1};
  threadIdx = {0, 0, 0};
}

std::mt19937_64 rng(28);
std::vector<LD> randoms(i64 n, LD lo, LD hi) {
  std::uniform_real_distribution<double> u(static_cast<double>(lo), static_cast<double>(hi));
  std::vector<LD> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}
template <class T>
std::vector<T> cast(const std::vector<LD>& v) {
  return std::vector<T>(v.begin(), v.end());
}

double error(const std::vector<LD>& ref, const std::vector<double>& got) {
  LD mx = 0, md = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    mx = std::max(mx, std::fabs(ref[i]));
    md = std::max(md, std::isfinite(static_cast<double>(got[i])) ? std::fabs(ref[i] - got[i]) : LD(INFINITY));
  }
  return static_cast<double>(md / (mx > 0 ? mx : 1));
}

const char* kName[] = {"-", "dct1", "dct2", "dct3", "dct4", "dst1", "dst2", "dst3", "dst4"};
int failures = 0, cases = 0;

void report(bool ok, const char* what, double e) {
  ++cases;
  if (!ok) {
    ++failures;
    std::printf("FAIL %s: error %.3g\n", what, e);
  }
}

template <class T>
double tol() {
  return sizeof(T) == 4 ? 2e-5 : 1e-12;
}

// An interleaved line buffer ([outer][len][inner], LineGeom::interleaved) to one line after another, or back: what
// cuFFT's strided plan reads and writes, for the direct DFTs, which take contiguous lines.
template <class E>
void relayout(E* data, i64 outer, i64 len, i64 inner, bool to_lines) {
  std::vector<E> tmp(data, data + outer * len * inner);
  for (i64 o = 0; o < outer; ++o)
    for (i64 e = 0; e < len; ++e)
      for (i64 i = 0; i < inner; ++i) {
        const i64 il = (o * len + e) * inner + i, ln = (o * inner + i) * len + e;
        data[to_lines ? ln : il] = tmp[to_lines ? il : ln];
      }
}

template <class T>
void line_case(int kind, i64 outer, i64 n, i64 inner) {
  const LineGeom g = line_geom(kind, outer, n, inner);
  const std::vector<LD> x = randoms(outer * n * inner, -1, 1), pre = randoms(n, 0.5, 1.5), post = randoms(n, 0.5, 1.5);
  const LineTwiddles<T> tw = line_twiddles<T>(kind, n);
  const std::vector<T> tpre = cast<T>(pre), tpost = cast<T>(post), xin = cast<T>(x);
  const LineTables<T> t{tw.w.data(), tw.ta.data(), tw.tb.data(), tpre.data(), tpost.data()};
  const i64 lines = outer * inner;
  std::vector<cx<T>> b1(lines * g.load_len), b2(lines * g.fft_len);  // complex: room for either type
  std::vector<T> y(outer * n * inner, T(NAN));
  one_thread();
  if (inner == 1)
    line_load<T, true>(xin.data(), b1.data(), t, g);
  else if (g.interleaved)
    line_load<T, false>(xin.data(), b1.data(), t, g);
  else  // the tiled gather: one thread (its tile is not shared here), every tile by the grid-strided loops
    emu_run_cta(1, [&](unsigned) { line_load_tiled<T>(xin.data(), b1.data(), t, g); });
  const bool real_in = g.fft == LineFft::kR2C, real_out = g.fft == LineFft::kC2R;
  if (g.interleaved) {
    if (real_in)
      relayout(reinterpret_cast<T*>(b1.data()), outer, g.load_len, inner, true);
    else
      relayout(b1.data(), outer, g.load_len, inner, true);
  }
  if (g.fft == LineFft::kR2C) dft_r2c<T>(reinterpret_cast<T*>(b1.data()), b2.data(), g.fft_n, lines);
  if (g.fft == LineFft::kC2R) dft_c2r<T>(b1.data(), reinterpret_cast<T*>(b2.data()), g.fft_n, lines);
  if (g.fft == LineFft::kC2C) dft_c2c<T>(b1.data(), b2.data(), g.fft_n, lines);
  if (g.interleaved) {
    if (real_out)
      relayout(reinterpret_cast<T*>(b2.data()), outer, g.fft_len, inner, false);
    else
      relayout(b2.data(), outer, g.fft_len, inner, false);
  }
  if (inner == 1)
    line_store<T, true>(b2.data(), y.data(), t, g);
  else
    line_store<T, false>(b2.data(), y.data(), t, g);
  std::vector<LD> ref = x;
  apply_axis(ref, {outer, n, inner}, 1, kind, pre, post);
  const double e = error(ref, std::vector<double>(y.begin(), y.end()));
  char what[128];
  std::snprintf(what, sizeof what, "line %s n=%lld outer=%lld inner=%lld%s %s", kName[kind], static_cast<long long>(n),
                static_cast<long long>(outer), static_cast<long long>(inner), g.interleaved ? " interleaved" : "",
                sizeof(T) == 4 ? "f32" : "f64");
  report(e <= tol<T>(), what, e);
}

template <class T, int D>
void nd_case(bool forward, const i64 (&n)[D], unsigned dst_mask, i64 batch) {
  NdArgs<T, D> a{};
  a.batch = batch;
  i64 vol = 1;
  std::vector<LineTwiddles<T>> tw;
  std::vector<std::vector<LD>> pre(D), post(D);
  std::vector<std::vector<T>> tpre(D), tpost(D);
  for (int j = 0; j < D; ++j) {
    a.n[j] = n[j];
    a.dst[j] = (dst_mask >> j) & 1;
    vol *= n[j];
    tw.push_back(line_twiddles<T>(kDct2, n[j]));
    pre[j] = randoms(n[j], 0.5, 1.5);
    post[j] = randoms(n[j], 0.5, 1.5);
    tpre[j] = cast<T>(pre[j]);
    tpost[j] = cast<T>(post[j]);
  }
  for (int j = 0; j < D; ++j) {
    a.w[j] = tw[j].w.data();
    a.pre[j] = tpre[j].data();
    a.post[j] = tpost[j].data();
  }
  const i64 half = vol / n[D - 1] * (n[D - 1] / 2 + 1);
  std::vector<i64> row_src;
  std::vector<T> row_scale;
  const T* factor[D];
  for (int j = 0; j < D; ++j) factor[j] = forward ? tpre[j].data() : tpost[j].data();
  nd_rows<T>(D, a.n, a.dst, factor, forward, row_src, row_scale);
  a.row_src = row_src.data();
  a.row_scale = row_scale.data();
  const std::vector<LD> x = randoms(batch * vol, -1, 1);
  const std::vector<T> xin = cast<T>(x);
  std::vector<T> real(batch * vol, T(NAN)), y(batch * vol, T(NAN));
  std::vector<cx<T>> spec(batch * half, cx<T>{T(NAN), T(NAN)});
  // The D-dimensional FFTs as separable 1-D DFTs: full complex along the leading axes, halved along the last.
  const auto rdft = [&](bool r2c) {
    const i64 nl = n[D - 1], hl = nl / 2 + 1, rows = batch * (vol / nl);
    std::vector<CLD> c(batch * half);
    if (r2c) {
      std::vector<cx<T>> tmp(rows * hl);
      dft_r2c<T>(real.data(), tmp.data(), nl, rows);
      for (i64 i = 0; i < rows * hl; ++i) c[i] = CLD(tmp[i].x, tmp[i].y);
    } else {
      for (i64 i = 0; i < batch * half; ++i) c[i] = CLD(spec[i].x, spec[i].y);
    }
    // leading axes: complex DFTs (forward for R2C, inverse for C2R), axis j stride = prod(n[j+1..D-2]) * hl
    for (int j = D - 2; j >= 0; --j) {
      i64 inner = hl;
      for (int q = j + 1; q < D - 1; ++q) inner *= n[q];
      const i64 outer = batch * (half / (inner * n[j]));
      std::vector<CLD> line(n[j]);
      for (i64 o = 0; o < outer; ++o)
        for (i64 i = 0; i < inner; ++i) {
          for (i64 t = 0; t < n[j]; ++t) line[t] = c[(o * n[j] + t) * inner + i];
          for (i64 k = 0; k < n[j]; ++k) {
            CLD s = 0;
            for (i64 t = 0; t < n[j]; ++t) s += line[t] * std::polar(1.0L, (r2c ? -2 : 2) * kPi * t * k / n[j]);
            c[(o * n[j] + k) * inner + i] = s;
          }
        }
    }
    if (r2c) {
      for (i64 i = 0; i < batch * half; ++i) spec[i] = cx<T>{static_cast<T>(c[i].real()), static_cast<T>(c[i].imag())};
    } else {
      std::vector<cx<T>> tmp(rows * hl);
      for (i64 i = 0; i < rows * hl; ++i) tmp[i] = cx<T>{static_cast<T>(c[i].real()), static_cast<T>(c[i].imag())};
      dft_c2r<T>(tmp.data(), real.data(), nl, rows);
    }
  };
  one_thread();
  // The 32-bit offsets (the device's choice below 2^31 elements) and the 64-bit ones give the same bits. The groups of
  // k_last = n/2 of an even last axis are a launch of their own (kMid), as kernels/r2r/r2r.cu launches them.
  const bool mid = n[D - 1] % 2 == 0;
  if (forward) {
    nd_reorder<T, D, false>(xin.data(), real.data(), a);
    rdft(true);
    nd_post<T, D, int>(spec.data(), y.data(), a);
    if (mid) nd_post<T, D, int, true>(spec.data(), y.data(), a);
    std::vector<T> y64(y.size(), T(NAN));
    nd_post<T, D, i64>(spec.data(), y64.data(), a);
    if (mid) nd_post<T, D, i64, true>(spec.data(), y64.data(), a);
    if (std::memcmp(y.data(), y64.data(), y.size() * sizeof(T)) != 0) {
      report(false, "nd_post: 32-bit and 64-bit offsets differ", 0);
      return;
    }
  } else {
    nd_pre<T, D, int>(xin.data(), spec.data(), a);
    if (mid) nd_pre<T, D, int, true>(xin.data(), spec.data(), a);
    std::vector<cx<T>> spec64(spec.size(), cx<T>{T(NAN), T(NAN)});
    nd_pre<T, D, i64>(xin.data(), spec64.data(), a);
    if (mid) nd_pre<T, D, i64, true>(xin.data(), spec64.data(), a);
    for (std::size_t i = 0; i < spec.size(); ++i)
      if (std::memcmp(&spec[i], &spec64[i], sizeof(cx<T>)) != 0 &&
          !(std::isnan(spec[i].x) && std::isnan(spec64[i].x))) {
        report(false, "nd_pre: 32-bit and 64-bit offsets differ", 0);
        return;
      }
    rdft(false);
    nd_reorder<T, D, true>(real.data(), y.data(), a);
  }
  std::vector<LD> ref = x;
  std::vector<i64> dims{batch};
  for (int j = 0; j < D; ++j) dims.push_back(n[j]);
  for (int j = 0; j < D; ++j) {
    const int kind = forward ? (a.dst[j] ? kDst2 : kDct2) : (a.dst[j] ? kDst3 : kDct3);
    apply_axis(ref, dims, j + 1, kind, pre[j], post[j]);
  }
  const double e = error(ref, std::vector<double>(y.begin(), y.end()));
  char what[160];
  int len = std::snprintf(what, sizeof what, "nd %s D=%d", forward ? "forward" : "inverse", D);
  for (int j = 0; j < D; ++j)
    len +=
        std::snprintf(what + len, sizeof what - len, " %s%lld", a.dst[j] ? "dst" : "dct", static_cast<long long>(n[j]));
  std::snprintf(what + len, sizeof what - len, " %s", sizeof(T) == 4 ? "f32" : "f64");
  report(e <= tol<T>(), what, e);
}

template <class T>
void all() {
  for (int kind = kDct1; kind <= kDst4; ++kind)
    for (i64 n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 32}) {
      if (kind == kDct1 && n < 2) continue;
      for (i64 inner : {1, 3}) line_case<T>(kind, 2, n, inner);
      // the interleaved buffers (inner >= 16, outer <= 64), and past the outer limit
      line_case<T>(kind, 1, n, 16);
      line_case<T>(kind, 3, n, 21);
      if (n == 5) line_case<T>(kind, kInterleaveMaxOuter + 1, n, 16);
      if (n == 17) line_case<T>(kind, kInterleaveMaxOuter + 1, n, 40);  // gather tiles: two along inner, partial
    }
  for (bool fwd : {true, false}) {
    for (unsigned m = 0; m < 4; ++m) {
      nd_case<T, 2>(fwd, {4, 6}, m, 2);
      nd_case<T, 2>(fwd, {5, 7}, m, 2);
      nd_case<T, 2>(fwd, {2, 9}, m, 1);
      nd_case<T, 2>(fwd, {8, 2}, m, 1);
    }
    for (unsigned m = 0; m < 8; ++m) {
      nd_case<T, 3>(fwd, {4, 5, 6}, m, 2);
      nd_case<T, 3>(fwd, {3, 2, 7}, m, 1);
    }
  }
}

}  // namespace

int main() {
  all<float>();
  all<double>();
  std::printf("emulate_r2r: %d cases, %d failures\n", cases, failures);
  return failures == 0 ? 0 : 1;
}
