#pragma once
// The CUDA backend table: one row per CUDA backend, in `auto` preference order. Plain C++ (no CUDA types) so that
// app/registry.cpp can read it in every build: with CUDA it makes each row a backend (kernels/backends.cu); without
// CUDA it lists the same rows as unavailable, so `dctool backends` shows them and `-b cuda-...` exits 4.
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/backend.hpp"
#include "core/compress.hpp"

namespace dct::cuda {

// The algorithm behind a row (kernels/backends.cu maps each to its support rule and plan factory).
enum class Algo {
  kFft2d,
  kFft2dCufft,
  kFft2dSmooth,
  kFft2dTiles,
  kRowcol,
  kLinesN,
  kLines2nMirror,
  kLines2nPad,
  kLines4n,
  k8x8,
  k8x8Def,
  kDct4Small,
  kDct4Fft,
  kDct4Sec4,
  kDct4Sec8,
  kDct4Direct,
  kLot,
  kR2r
};

inline constexpr core::Op kDct23Ops[] = {core::Op::kDct2, core::Op::kIdct2};
inline constexpr core::Op kDct4Ops[] = {core::Op::kDct4, core::Op::kIdct4};
inline constexpr core::Op kLotOps[] = {core::Op::kLot, core::Op::kIlot};
inline constexpr core::Op kR2rOps[] = {core::Op::kR2r};

struct BackendRow {
  std::string_view name;
  Algo algo;
  std::span<const core::Op> ops;
  bool auto_eligible;  // false: named only (baselines of the papers and reference kernels; auto never needs them)
  std::string_view sizes;
  std::string_view description;  // the algorithm, with its reference in README's list
};

inline constexpr BackendRow kBackendTable[] = {
    {"cuda-fft2d", Algo::kFft2d, kDct23Ops, true, "any",
     "2-D DCT-II/III as reorder + 2-D real FFT + symmetric postprocess [1]: the reorder inside our row FFT where N2 "
     "is a power of two, our column FFT with the postprocess fused in where N1 is 2048..8192, cuFFT otherwise; "
     "rows/cols: N-point 1-D"},
    {"cuda-fft2d-cufft", Algo::kFft2dCufft, kDct23Ops, false, "any (--axis both)",
     "2-D DCT-II/III, the three stages of [1] literally: reorder pass, cuFFT 2-D R2C/C2R, postprocess (baseline)"},
    {"cuda-fft2d-smooth", Algo::kFft2dSmooth, kDct23Ops, false,
     "transformed sides of prime factors 2, 3, 5, 7, 11, 13 (rows f32 <= 13673, f64 <= 6456; columns: the same "
     "along one axis, any length in 2-D; rows, cols, both); sides whose largest prime is 47..127, or above 127 in "
     "lines over 16 KiB (f32 <= 6823, f64 <= 3217)",
     "DCT-II/III separably, one kernel per axis for any smooth size: the reorder, a mixed-radix Stockham FFT of two "
     "real lines at once in shared memory and the twiddle postprocess [1, 5]; other primes by Bluestein's FFT in the "
     "same kernel; long columns in two kernels, the FFT split four-step (cuda-fft2d takes it where it measures faster "
     "at plan time)"},
    {"cuda-fft2d-tiles", Algo::kFft2dTiles, kDct23Ops, false, "smooth sides, f32 h*w <= ~28000, f64 ~14000 (both)",
     "2-D DCT-II/III of each matrix of a batch in one CTA: the smooth route's row and column passes in shared memory, "
     "one read and one write (cuda-fft2d takes it for matrices of <= 4096 values and batches of 8^2..128^2)"},
    {"cuda-rowcol", Algo::kRowcol, kDct23Ops, false, "any",
     "2-D DCT-II/III row-column baseline [1]: batched 1-D N-point DCT, transpose, again, transpose back"},
    {"cuda-1d-n", Algo::kLinesN, kDct23Ops, false, "any (--axis rows)",
     "1-D DCT-II/III along rows: N-point reorder + real FFT + twiddle [1, 5]"},
    {"cuda-1d-2n-mirror", Algo::kLines2nMirror, kDct23Ops, false, "any (--axis rows)",
     "1-D DCT-II/III along rows: 2N-point real FFT of the mirrored signal [1]"},
    {"cuda-1d-2n-pad", Algo::kLines2nPad, kDct23Ops, false, "any (--axis rows)",
     "1-D DCT-II/III along rows: 2N-point real FFT of the zero-padded signal [1]"},
    {"cuda-1d-4n", Algo::kLines4n, kDct23Ops, false, "any (--axis rows)",
     "1-D DCT-II/III along rows: 4N-point real FFT of the zero-interleaved mirror [1]"},
    {"cuda-8x8", Algo::k8x8, kDct23Ops, true, "8x8 blocks (--block 8; H, W multiples of 8; grid <= 2^31 CTAs)",
     "8x8 block DCT: Feig-Linzer butterflies [7] in registers, 32 blocks per CTA, 16-byte coalesced I/O"},
    {"cuda-8x8-def", Algo::k8x8Def, kDct23Ops, false, "8x8 blocks (--block 8; H, W multiples of 8; grid <= 2^31 CTAs)",
     "8x8 block DCT by definition [2]: a thread per coefficient, basis in constant memory"},
    {"cuda-dct4-small", Algo::kDct4Small, kDct4Ops, true, "N <= 63 per axis (rows, cols, both)",
     "DCT-IV of short lines, one read and one write: product with the N x N cosine matrix, tiles of lines in shared "
     "memory (rows of odd N <= 39 in f32, 21 in f64: one line per thread, the matrix in the kernel's parameters; rows "
     "of N = 8, 16, 32: the N/2-point FFT in registers, one line per thread)"},
    {"cuda-dct4-fft", Algo::kDct4Fft, kDct4Ops, true, "any (rows, cols, both)",
     "DCT-IV via FFT: N/2-point complex FFT with fused pre/post twiddles (even N; one pass along rows where N/2 has "
     "prime factors 2..13 only), signed permutation + N-point real FFT (odd N)"},
    {"cuda-dct4-sec4", Algo::kDct4Sec4, kDct4Ops, false, "N = 17 (rows)",
     "sectioned N = 17 DCT-IV [3], 4 threads per transform, one independent section each"},
    {"cuda-dct4-sec8", Algo::kDct4Sec8, kDct4Ops, false, "N = 17 (rows)",
     "sectioned N = 17 DCT-IV [3], 8 threads per transform, one independent section each"},
    {"cuda-dct4-direct", Algo::kDct4Direct, kDct4Ops, false, "N <= 8192 per axis",
     "classical DCT-IV [3], O(N^2), one thread per output, f64 accumulation (baseline)"},
    {"cuda-lot", Algo::kLot, kLotOps, true, "H, W multiples of 8 (ilot: and >= 16), < 2^31 per matrix",
     "8x8 LOT (Malvar type-I fast [4, 8]): one kernel per direction, one thread per 8x8 block in registers, "
     "neighbours' halves through shared memory"},
    {"cuda-r2r", Algo::kR2r, kR2rOps, true, "any (DCT-I: >= 2 points per axis)",
     "DCT/DST types I-IV along any axes of 1-3-D arrays [1, 5]: trailing axes of the type II or type III family by "
     "reorder + one N-D real FFT + symmetric postprocess, other axes by a gather with the kind's reorder, extension "
     "or twiddles, batched cuFFT lines and a scatter with its postprocess"},
};

// The following exist only in CUDA builds (nvcc found at configure time).
// The runtime acts on the calling thread's device: the one bind_thread_device() gave this thread, else the process's
// (set_device, --device). Plans and compressor states stay on the device they were made on.
const core::Runtime& cuda_runtime();  // usable() says why not
void set_device(int ordinal);
void bind_thread_device(int ordinal);  // -1: back to the process's device
int current_device();
int visible_devices();  // CUDA devices present (0 without a driver or device)
// Batch fallbacks (README "GPU faults"): the calling thread's next work avoids the GPU (on: the runtime says it is not
// usable, so auto picks CPU backends); retire_devices does so for every thread from now on.
void set_thread_cpu_only(bool on);
void retire_devices();
std::unique_ptr<core::Backend> make_backend(const BackendRow& row);
// "cuda-jpeg-fused": jpeg mode in one kernel on the tensor cores (8-bit in, 8-bit out).
std::unique_ptr<core::Compressor> make_fused_jpeg_compressor();
// "cuda-compress-whole": threshold and keep modes (whole-image DCT, GPU selection, the keep rule fused into the
// inverse).
std::unique_ptr<core::Compressor> make_whole_compressor();
// The CUDA versions for `dctool --version`: "runtime 12.4, cuFFT 11203, driver 12.8" (driver "none" when no
// driver is installed); needs no device.
std::string version_info();

}  // namespace dct::cuda
