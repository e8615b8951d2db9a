#pragma once
// Launchers for the pre/post-processing kernels of the FFT-based DCT-II / DCT-III ([1]) and the
// helpers around them (tiled transpose, identity "FFT" of length 1). The math is derived in
// kernels/dct2d/prepost.cu; every launcher checks its launch (DCT_LAUNCH). Explicitly instantiated for float and
// double.
#include <cuda_runtime.h>

#include <cstdint>

namespace dct::cuda {

template <class T>
struct ComplexOf;
template <>
struct ComplexOf<float> {
  using type = float2;
};
template <>
struct ComplexOf<double> {
  using type = double2;
};
template <class T>
using cx_t = typename ComplexOf<T>::type;

// One axis of length N, in the plan's precision (built by make_axis_tables, device-resident):
//   tw[k] = exp(-i*pi*k/(2N))                      k = 0..N-1
//   fs[k] = forward output scale: gain * f(k)      f = 1 (norm none) or sqrt(1/(2N)) * c_k (ortho)
//   ia[k] = inverse input scale:  g(k) / (2N)      g = 1 (none) or 1/f(k) (ortho)
template <class T>
struct AxisTables {
  const cx_t<T>* tw = nullptr;
  const T* fs = nullptr;
  const T* ia = nullptr;
};

// Lines of length n along rows (contiguous; `count` lines = batch * rows) or along columns
// (`count` = batch matrices of n rows x `width` columns; the lines are the columns).
// Spectra: rows: line l at V[l*(n/2+1) + k]; columns: V[b*(n/2+1)*width + k*width + c].
struct LineGeom {
  bool along_cols = false;
  std::int64_t n = 1;
  std::int64_t width = 1;
  std::int64_t count = 1;
};

// Eq. (9)/(13) and their inverse (16): even samples first, odd samples reversed at the end, applied to
// the columns of each row (perm_cols), the rows of each matrix (perm_rows), or both.
// inverse = false: natural -> reordered (scatter, coalesced reads); true: reordered -> natural (gather).
// in_mat / out_mat: element distance between consecutive matrices (<= 0: n1 * n2). sign: the DST's sign mask
// (math/dct2d.hpp, kFlipAxis0/1) on the natural side: applied to the values read (scatter) or written
// (gather).
template <class T>
void reorder(const T* in, T* out, std::int64_t n1, std::int64_t n2, std::int64_t batch, bool perm_rows, bool perm_cols,
             bool inverse, cudaStream_t s, std::int64_t in_mat = 0, std::int64_t out_mat = 0, unsigned sign = 0);

// N-point algorithm, eqs. (10)-(11): spectrum of the reordered lines -> DCT-II (one read, two writes).
template <class T>
void post_lines(const cx_t<T>* V, T* y, AxisTables<T> t, LineGeom g, cudaStream_t s);
// Its inverse: DCT-III input -> Hermitian half spectrum (two reads, one complex write).
template <class T>
void pre_lines(const T* y, cx_t<T>* V, AxisTables<T> t, LineGeom g, cudaStream_t s);

// Where spectrum row k1 is stored: (k1 >> lg_hi) | ((k1 & mask) << lg_lo). The default is the identity; ColumnFft
// (kernels/dct2d/col_fft.hpp) leaves its spectrum in a digit-permuted row order and gives its map.
struct RowMap {
  int lg_hi = 0, lg_lo = 0;
  int mask = 0;
};

// 2-D, eqs. (14), (17), (18): half spectrum (n1 x (n2/2+1)) -> n1 x n2 DCT-II (two reads, four writes).
// pitch: complex elements between rows of the spectrum (<= 0: n2/2+1; matrices n1 * pitch apart); rows: where
// each spectrum row is stored; rev: the DST's reversal mask (math/dct2d.hpp) on the outputs.
template <class T>
void post_2d(const cx_t<T>* V, T* y, AxisTables<T> t1, AxisTables<T> t2, std::int64_t n1, std::int64_t n2,
             std::int64_t batch, cudaStream_t s, std::int64_t pitch = 0, RowMap rows = {}, unsigned rev = 0);
// 2-D, eq. (15): DCT-III input -> half spectrum for the C2R (four reads, two complex writes); pitch and rows as
// post_2d, rev on the inputs.
template <class T>
void pre_2d(const T* y, cx_t<T>* V, AxisTables<T> t1, AxisTables<T> t2, std::int64_t n1, std::int64_t n2,
            std::int64_t batch, cudaStream_t s, std::int64_t pitch = 0, RowMap rows = {}, unsigned rev = 0);

// pre_2d with a keep rule (compress --mode threshold|keep, kernels/compress/whole.cu): coefficient i (flat
// index in its matrix, row-major) of matrix b enters the inverse only if |y| > thr[b], or |y| == thr[b] and
// i <= last[b]; the others are read as 0. In the same pass, every coefficient counted once: the kept ones per
// matrix (kept[b]) and, when hist is set, their symbols s = floor(y + 0.5) (clamped to int32) other than 0:
// s in [-half, half) into hist[s + half], the rest appended to overflow[atomicAdd(overflow_count, 1)]
// (capacity: every coefficient). The counters are added to (clear them first).
template <class T>
struct KeepRule {
  const T* thr = nullptr;
  const long long* last = nullptr;
  unsigned long long* kept = nullptr;
  unsigned long long* hist = nullptr;
  long long half = 0;
  int* overflow = nullptr;
  unsigned long long* overflow_count = nullptr;
};
template <class T>
void pre_2d_keep(const T* y, cx_t<T>* V, AxisTables<T> t1, AxisTables<T> t2, std::int64_t n1, std::int64_t n2,
                 std::int64_t batch, const KeepRule<T>& rule, cudaStream_t s);

// The other three 1-D algorithms of Table IV (eqs. 3-8), along rows.
enum class Family { kMirror2N, kPad2N, kZero4N };
int family_factor(Family f);  // FFT length / N: 2, 2, 4
// x (lines x n) -> x' (lines x L*n): eq. (3), (5) or (7).
template <class T>
void family_expand(Family f, const T* x, T* xp, std::int64_t n, std::int64_t lines, cudaStream_t s);
// Spectrum (lines x (L*n/2+1)) -> DCT-II (lines x n): eq. (4), (6) or (8).
template <class T>
void family_post(Family f, const cx_t<T>* V, T* y, AxisTables<T> t, std::int64_t n, std::int64_t lines, cudaStream_t s);
// Inverse: DCT-III input -> spectrum for the inverse FFT (mirror, 4n: Hermitian half of L*n; pad: full 2n).
template <class T>
void family_pre(Family f, const T* y, cx_t<T>* V, AxisTables<T> t, std::int64_t n, std::int64_t lines, cudaStream_t s);
// Inverse FFT output (real L*n, or complex 2n for pad) -> x (lines x n).
template <class T>
void family_contract(Family f, const void* xp, T* x, std::int64_t n, std::int64_t lines, cudaStream_t s);

// out (batch x cols x rows) = transpose of in (batch x rows x cols); 32x32 shared-memory tiles.
template <class T>
void transpose(const T* in, T* out, std::int64_t rows, std::int64_t cols, std::int64_t batch, cudaStream_t s);

// Length-1 "FFTs" (cuFFT is not asked for them): real -> (re, 0) and complex -> real part.
template <class T>
void identity_r2c(const T* in, cx_t<T>* out, std::int64_t count, cudaStream_t s);
template <class T>
void identity_c2r(const cx_t<T>* in, T* out, std::int64_t count, cudaStream_t s);

}  // namespace dct::cuda
