/* cuda-compress-whole: the threshold and keep compression modes on the device, one stream, the image crossing
   the bus once each way as 16-bit samples (the coefficients never go to the host).

   Exactly cpu/compress_cpu.cpp `whole`: the orthonormal 2-D DCT-II of each channel (no level shift); threshold
   E keeps |c| >= E; keep F keeps the k = core::keep_count(F) largest |c| of each channel, ties broken by lower
   index kept; the inverse rounded (floor(x + 0.5)) and clamped to 0..255 or 0..65535; nonzero = kept count;
   the entropy over the symbols floor(c + 0.5) of the kept coefficients (0 for the dropped ones).

   Pipeline (T = the request's precision; canonical shape n1 x n2 as cuda-fft2d: N x 1 runs as 1 x N; the
   equation numbers are those of the three-stage DCT [1], derived in kernels/dct2d/prepost.cu):
     h2d     the samples as u16 (images are integral; pinned staging);
     dct2    pack_reorder (u16 -> T and eq. 13's reorder in one pass) -> cuFFT 2-D R2C -> post_2d: the
             coefficients c, natural order, all channels (the cuda-fft2d machinery, kernels/dct2d/);
     select  keep only, per channel: radix select of the k-th largest |c| over the bits of |c| (non-negative
             floats order like their bit patterns; kernels/compress/topk_select.h): 8-bit digits, 4 passes (f32) or 8
             (f64), each a histogram pass over the channel (shared-memory bins, warp-aggregated with
             match_any) and a one-block pick that scans the 256 bins (32 lanes x 8 bins + a warp scan). It
             yields the threshold t, the number of |c| == t to keep (rank) and of them present (ties). When
             rank < ties, the index bound: tie counts per 4096-element chunk, then one block per channel scans
             the chunk counts and the chosen chunk (cub::BlockScan) for the rank-th tie's index `last`. The
             keep rule is then |c| > t or (|c| == t and index <= last); threshold mode is t = E, last = the
             end (|c| >= E); k = 0 and k = H*W are t = inf and t = 0 without a selection.
     idct2   pre_2d_keep: eq. 15's preprocess reading the coefficients through the keep rule (dropped ones
             read as 0) and, in the same pass, the statistics: kept count per channel, and a histogram of the
             nonzero symbols in [-4096, 4096) (global u64 bins, warp-aggregated) with an overflow list for the
             others (capacity: every coefficient; the DC of a large image is ~255 sqrt(HW)) -> cuFFT C2R ->
             finish: eq. 16's inverse reorder with the rounding and clamping, to u16;
     d2h     the u16 image, the counters and the bins (64 KiB); the overflow entries (count known after the
             sync) in a second copy when there are any.
   The host merges the bins and the sorted overflow symbols into the symbol histogram (0 = all coefficients
   minus the nonzero symbols) and takes core::entropy_of_histogram, the same value as core::entropy_bits.

   Same arithmetic as the CPU compressor up to the FFT's rounding (f32 ~1e-7 relative): a coefficient within
   rounding of E, or of another magnitude at the k-th place, may be decided the other way (the tests bound
   the effect); the keep count itself is exact. */
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/compress.hpp"
#include "core/error.hpp"
#include "kernels/backends.hpp"
#include "kernels/common/plan.cuh"
#include "kernels/common/state_pool.cuh"
#include "kernels/compress/topk_select.h"
#include "kernels/compress/whole.hpp"

namespace dct::cuda {
namespace {

constexpr int kThreads = 256;
constexpr long long kHalfBins = 4096;  // symbol histogram over [-kHalfBins, kHalfBins)
constexpr int kChunk = 4096;           // tie search: elements per chunk (kThreads x 16)
constexpr int kPerThread = kChunk / kThreads;
static_assert(topk::kBins == kThreads && topk::kBins == 32 * 8, "the pick kernel maps 256 bins onto 32 lanes x 8");

template <class T>
using Key = topk::KeyT<T>;
using topk::SelectState;

// Position of natural index m in eq. 9's reordered sequence of length n (even samples ascending, odd
// descending): the map of kernels/dct2d's reorder.
__device__ __forceinline__ i64 reorder_index(i64 m, i64 n) { return (m & 1) ? n - ((m + 1) >> 1) : (m >> 1); }

struct Grid {
  dim3 grid, block;
};
// One thread per column, blocks shaped to the row length, rows and matrices strided.
Grid grid_2d(i64 n1, i64 n2, i64 batch) {
  unsigned bx = 1;
  while (bx < kThreads && static_cast<i64>(bx) < n2) bx *= 2;
  const unsigned by = kThreads / bx;
  Grid g;
  g.block = dim3(bx, by);
  g.grid =
      dim3(static_cast<unsigned>((n2 + bx - 1) / bx), static_cast<unsigned>(std::min<i64>((n1 + by - 1) / by, 65535)),
           static_cast<unsigned>(std::min<i64>(batch, 65535)));
  return g;
}

// u16 samples (natural order) -> T, reordered along both axes (eq. 13), for the R2C.
template <class T>
__global__ void pack_reorder_kernel(const unsigned short* __restrict__ in, T* __restrict__ out, i64 n1, i64 n2,
                                    i64 batch) {
  const i64 j = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n2) return;
  const i64 rj = reorder_index(j, n2);
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z)
    for (i64 m = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; m < n1;
         m += static_cast<i64>(gridDim.y) * blockDim.y)
      out[(b * n1 + reorder_index(m, n1)) * n2 + rj] = static_cast<T>(in[(b * n1 + m) * n2 + j]);
}

// The C2R output (reordered) -> natural order (eq. 16), rounded and clamped to 0..peak, as u16.
template <class T>
__global__ void finish_kernel(const T* __restrict__ in, unsigned short* __restrict__ out, i64 n1, i64 n2, i64 batch,
                              double peak) {
  const i64 j = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n2) return;
  const i64 rj = reorder_index(j, n2);
  for (i64 b = blockIdx.z; b < batch; b += gridDim.z)
    for (i64 m = static_cast<i64>(blockIdx.y) * blockDim.y + threadIdx.y; m < n1;
         m += static_cast<i64>(gridDim.y) * blockDim.y) {
      const double v = static_cast<double>(in[(b * n1 + reorder_index(m, n1)) * n2 + rj]);
      out[(b * n1 + m) * n2 + j] = static_cast<unsigned short>(fmin(fmax(floor(v + 0.5), 0.0), peak));
    }
}

// ---- radix select ------------------------------------------------------------------------------------

// Histogram of digit `pass` of the keys of channel blockIdx.y that match its prefix. Warps walk the channel
// 32 consecutive elements at a time (uniform trip count, so match_any sees all lanes).
template <class T>
__global__ void __launch_bounds__(kThreads)
    radix_hist_kernel(const T* __restrict__ c, i64 hw, int pass, const SelectState<T>* __restrict__ state,
                      unsigned long long* __restrict__ hist) {
  __shared__ unsigned int sh[topk::kBins];
  const int ch = blockIdx.y, t = threadIdx.x, lane = t & 31;
  sh[t] = 0;
  const Key<T> prefix = state[ch].prefix, mask = topk::prefix_mask<T>(pass);
  const T* cp = c + static_cast<i64>(ch) * hw;
  __syncthreads();
  const i64 stride = static_cast<i64>(gridDim.x) * kThreads;
  for (i64 base = static_cast<i64>(blockIdx.x) * kThreads + (t & ~31); base < hw; base += stride) {
    const i64 i = base + lane;
    int bin = -1;
    if (i < hw) {
      const Key<T> key = topk::magnitude_key(cp[i]);
      if ((key & mask) == prefix) bin = topk::digit_of<T>(key, pass);
    }
    const unsigned peers = __match_any_sync(0xffffffffu, bin);
    if (bin >= 0 && lane == __ffs(peers) - 1) atomicAdd(&sh[bin], static_cast<unsigned>(__popc(peers)));
  }
  __syncthreads();
  if (sh[t] != 0) atomicAdd(hist + static_cast<i64>(ch) * topk::kBins + t, static_cast<unsigned long long>(sh[t]));
}

template <class T>
__global__ void select_init_kernel(SelectState<T>* __restrict__ state, int channels, i64 k) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= channels) return;
  SelectState<T> st;
  st.rank = static_cast<unsigned long long>(k);
  state[ch] = st;
}

// One block per channel: take the pass's histogram (and clear it for the next pass), pick the digit.
template <class T>
__global__ void __launch_bounds__(kThreads)
    radix_pick_kernel(unsigned long long* __restrict__ hist, int pass, SelectState<T>* __restrict__ state) {
  __shared__ unsigned long long h[topk::kBins];
  const int ch = blockIdx.x, t = threadIdx.x;
  unsigned long long* hc = hist + static_cast<i64>(ch) * topk::kBins;
  h[t] = hc[t];
  hc[t] = 0;
  __syncthreads();
  if (t >= 32) return;
  SelectState<T> st = state[ch];
  const int hi = topk::kBins - 1 - 8 * t, lo = hi - 7;  // lane t: digits hi..lo, descending across lanes
  unsigned long long sum = 0;
#pragma unroll
  for (int d = 0; d < 8; ++d) sum += h[lo + d];
  unsigned long long incl = sum;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned long long v = __shfl_up_sync(0xffffffffu, incl, o);
    if (t >= o) incl += v;
  }
  const unsigned hit = __ballot_sync(0xffffffffu, incl >= st.rank);
  if (hit == 0 || t != __ffs(hit) - 1) return;  // hit == 0 cannot happen: the bins hold >= rank keys
  unsigned long long r = st.rank - (incl - sum), cnt = 0;
  const int d = topk::pick_digit(h, hi, lo, r, cnt);
  if (d < 0) return;
  st.prefix |= static_cast<Key<T>>(static_cast<Key<T>>(d) << topk::digit_shift<T>(pass));
  st.rank = r;
  st.count = cnt;
  state[ch] = st;
}

// ---- the index bound among the ties -------------------------------------------------------------------

// Ties (|c| == t) per chunk of kChunk elements; nothing to do for a channel whose ties are all kept.
template <class T>
__global__ void __launch_bounds__(kThreads)
    tie_count_kernel(const T* __restrict__ c, i64 hw, const SelectState<T>* __restrict__ state,
                     unsigned* __restrict__ counts, i64 chunks) {
  using Reduce = cub::BlockReduce<unsigned, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const int ch = blockIdx.y;
  const SelectState<T> st = state[ch];
  if (st.rank == st.count) return;
  const T* cp = c + static_cast<i64>(ch) * hw;
  const i64 c0 = static_cast<i64>(blockIdx.x) * kChunk;
  unsigned n = 0;
  for (int j = threadIdx.x; j < kChunk; j += kThreads) {
    const i64 i = c0 + j;
    if (i < hw && topk::magnitude_key(cp[i]) == st.prefix) ++n;
  }
  n = Reduce(tmp).Sum(n);
  if (threadIdx.x == 0) counts[static_cast<i64>(ch) * chunks + blockIdx.x] = n;
}

// One block per channel: thr = t; last = the index of the rank-th tie (the end when all ties are kept).
template <class T>
__global__ void __launch_bounds__(kThreads)
    tie_final_kernel(const T* __restrict__ c, i64 hw, const SelectState<T>* __restrict__ state,
                     const unsigned* __restrict__ counts, i64 chunks, T* __restrict__ thr,
                     long long* __restrict__ last) {
  using Scan = cub::BlockScan<unsigned long long, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ long long s_chunk;
  __shared__ unsigned long long s_need;
  const int ch = blockIdx.x, t = threadIdx.x;
  const SelectState<T> st = state[ch];
  if (t == 0) thr[ch] = topk::value_of_key<T>(st.prefix);
  if (st.rank == st.count) {
    if (t == 0) last[ch] = hw - 1;
    return;
  }
  if (t == 0) s_chunk = -1;
  __syncthreads();
  unsigned long long need = st.rank;
  const unsigned* cc = counts + static_cast<i64>(ch) * chunks;
  for (i64 b0 = 0; b0 < chunks; b0 += kThreads) {
    const unsigned long long v = b0 + t < chunks ? cc[b0 + t] : 0ull;
    unsigned long long incl, total;
    Scan(tmp).InclusiveSum(v, incl, total);
    if (need <= total) {  // block-uniform: total is the block aggregate
      if (incl >= need && incl - v < need) {
        s_chunk = b0 + t;
        s_need = need - (incl - v);
      }
      break;
    }
    need -= total;
    __syncthreads();  // tmp is reused
  }
  __syncthreads();
  const i64 chunk = s_chunk;
  if (chunk < 0) {  // cannot happen (the chunks hold `count` >= rank ties); keep every tie rather than none
    if (t == 0) last[ch] = hw - 1;
    return;
  }
  need = s_need;
  const T* cp = c + static_cast<i64>(ch) * hw;
  const i64 e0 = chunk * kChunk + static_cast<i64>(t) * kPerThread;
  unsigned long long v = 0;
  for (int j = 0; j < kPerThread; ++j)
    if (e0 + j < hw && topk::magnitude_key(cp[e0 + j]) == st.prefix) ++v;
  unsigned long long incl, total;
  Scan(tmp).InclusiveSum(v, incl, total);
  if (incl >= need && incl - v < need) {
    unsigned long long r = need - (incl - v);
    for (int j = 0; j < kPerThread; ++j)
      if (e0 + j < hw && topk::magnitude_key(cp[e0 + j]) == st.prefix && --r == 0) {
        last[ch] = e0 + j;
        break;
      }
  }
}

// ---- device state ------------------------------------------------------------------------------------

// Grow-only device buffer.
void ensure(DeviceBuffer& b, std::size_t bytes) {
  if (b.bytes() < bytes) b = DeviceBuffer(bytes);
}
void ensure(PinnedBuffer& b, std::size_t bytes) {
  if (b.bytes() < bytes) b = PinnedBuffer(bytes);
}

// Buffers of the selection (reused across runs).
struct SelectBuffers {
  DeviceBuffer hist, state, counts;
};

// Queues the selection of the k largest |c| (1 <= k <= hw) of each of `ch` channels of `c`: thr[ch], last[ch].
template <class T>
void queue_select(const T* c, i64 hw, int ch, i64 k, int sms, SelectBuffers& b, T* thr, long long* last,
                  cudaStream_t s) {
  ensure(b.state, sizeof(SelectState<T>) * ch);
  auto* state = b.state.as<SelectState<T>>();
  ensure(b.hist, sizeof(unsigned long long) * topk::kBins * ch);
  DCT_CUDA_CHECK(cudaMemsetAsync(b.hist.get(), 0, sizeof(unsigned long long) * topk::kBins * ch, s));
  DCT_LAUNCH((select_init_kernel<T>), dim3(1), dim3(32), s, state, ch, k);
  // Enough blocks to fill the device ~4 deep, each at least 8 warps' worth of 32-element strides.
  const i64 per_channel =
      std::max<i64>(1, std::min<i64>((hw + kThreads * 8 - 1) / (kThreads * 8), (4 * sms + ch - 1) / ch));
  const dim3 hgrid(static_cast<unsigned>(per_channel), static_cast<unsigned>(ch));
  for (int pass = 0; pass < topk::kPasses<T>; ++pass) {
    DCT_LAUNCH((radix_hist_kernel<T>), hgrid, dim3(kThreads), s, c, hw, pass, b.state.as<const SelectState<T>>(),
               b.hist.as<unsigned long long>());
    DCT_LAUNCH((radix_pick_kernel<T>), dim3(ch), dim3(kThreads), s, b.hist.as<unsigned long long>(), pass, state);
  }
  const i64 chunks = (hw + kChunk - 1) / kChunk;
  ensure(b.counts, sizeof(unsigned) * chunks * ch);
  DCT_LAUNCH((tie_count_kernel<T>), dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(ch)), dim3(kThreads), s,
             c, hw, b.state.as<const SelectState<T>>(), b.counts.as<unsigned>(), chunks);
  DCT_LAUNCH((tie_final_kernel<T>), dim3(static_cast<unsigned>(ch)), dim3(kThreads), s, c, hw,
             b.state.as<const SelectState<T>>(), b.counts.as<const unsigned>(), chunks, thr, last);
}

// The transform of one geometry and precision: the cuda-fft2d tables (axis 1 carries the 2 of eq. 14; the
// inverse scales do not depend on it) and the two cuFFT plans.
template <class T>
struct Transform {
  Transform(i64 n1, i64 n2, i64 batch)
      : t1(n1, core::Norm::kOrtho, 2.0),
        t2(n2, core::Norm::kOrtho, 1.0),
        fwd(std::make_unique<FftStage<T>>(FftStage<T>::matrix(FftType::kR2C, n1, n2, batch))),
        inv(std::make_unique<FftStage<T>>(FftStage<T>::matrix(FftType::kC2R, n1, n2, batch))) {}
  AxisTableBuffers<T> t1, t2;
  std::unique_ptr<FftStage<T>> fwd, inv;
};

struct Geometry {
  i64 n1 = 0, n2 = 0, batch = 0;
  bool f64 = false;
  int device = -1;
  bool operator==(const Geometry&) const = default;
};

// Small per-run blocks, pinned: the rule's parameters (up), the statistics (down).
constexpr int kMaxChannels = 4;
struct Stats {
  unsigned long long overflow_count;
  unsigned long long kept[kMaxChannels];
  unsigned long long hist[2 * kHalfBins];
};

class WholeCompressor final : public core::Compressor {
 public:
  std::string_view name() const override { return "cuda-compress-whole"; }
  std::string_view takes() const override { return "compress --mode threshold|keep (8/16-bit images)"; }
  std::string_view description() const override {
    return "whole-image DCT through cuda-fft2d, top-k select on the GPU, the rule fused into the inverse";
  }
  bool on_gpu() const override { return true; }
  bool warm_up() const override {
    cuda_runtime().warm_up();
    return cuda_runtime().usable().ok;
  }

  core::Support supports(const core::CompressRequest& r, const core::Dataset& in) const override {
    if (r.mode != core::CompressMode::kThreshold && r.mode != core::CompressMode::kKeep)
      return core::Support::no("threshold and keep modes only");
    if (in.kind != core::SourceKind::kImage8 && in.kind != core::SourceKind::kImage16)
      return core::Support::no("8- and 16-bit images only");
    if (in.tensor.channels() < 1 || in.tensor.channels() > kMaxChannels) return core::Support::no("1 to 4 channels");
    if (in.tensor.rows() < 1 || in.tensor.cols() < 1) return core::Support::no("empty image");
    return cuda_runtime().usable();
  }

  core::CompressResult run(const core::CompressRequest& r, const core::Dataset& in) const override {
    core::validate_compress(r, in);
    if (core::Support s = supports(r, in); !s) throw Error(ErrorCode::kUnsupported, "cuda-compress-whole", s.reason);
    return r.prec == core::Precision::kF32 ? run_t<float>(r, in) : run_t<double>(r, in);
  }

  template <class T>
  std::vector<KeepSelection> select_only(const std::vector<T>& c, i64 n, int ch, i64 k) const {
    if (ch < 1 || n < 1 || k < 1 || k > n || static_cast<i64>(c.size()) != n * ch)
      throw Error(ErrorCode::kRuntime, "internal: gpu_keep_select arguments");
    const auto lease = pool_.acquire(make_state);
    State& st = *lease;
    const cudaStream_t s = st.stream.get();
    DeviceBuffer dc(sizeof(T) * n * ch), thr(sizeof(T) * ch), last(sizeof(long long) * ch);
    DCT_CUDA_CHECK(cudaMemcpyAsync(dc.get(), c.data(), dc.bytes(), cudaMemcpyHostToDevice, s));
    queue_select<T>(dc.as<const T>(), n, ch, k, st.sms, st.sel, thr.as<T>(), last.as<long long>(), s);
    std::vector<T> ht(ch);
    std::vector<long long> hl(ch);
    std::vector<SelectState<T>> hs(ch);
    DCT_CUDA_CHECK(cudaMemcpyAsync(ht.data(), thr.get(), thr.bytes(), cudaMemcpyDeviceToHost, s));
    DCT_CUDA_CHECK(cudaMemcpyAsync(hl.data(), last.get(), last.bytes(), cudaMemcpyDeviceToHost, s));
    DCT_CUDA_CHECK(
        cudaMemcpyAsync(hs.data(), st.sel.state.get(), sizeof(SelectState<T>) * ch, cudaMemcpyDeviceToHost, s));
    DCT_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<KeepSelection> out(ch);
    for (int p = 0; p < ch; ++p) out[p] = {static_cast<double>(ht[p]), hl[p], hs[p].count, hs[p].rank};
    return out;
  }

 private:
  struct State {
    CudaStream stream;
    CudaEvent ev[6];
    int sms = 1;
    Geometry geo;
    std::unique_ptr<Transform<float>> tf;
    std::unique_ptr<Transform<double>> td;
    DeviceBuffer d_in, d_out, wr, wc, coef, params, stats, overflow;
    PinnedBuffer pin_in, pin_out, pin_params, pin_stats;
    SelectBuffers sel;
  };

  static std::unique_ptr<State> make_state() {
    auto st = std::make_unique<State>();
    st->sms = current_sm_count();
    st->geo.device = current_device();
    return st;
  }

  template <class T>
  const Transform<T>& transform(State& st, i64 n1, i64 n2, i64 batch, core::CompressResult& res) const {
    const Geometry g{n1, n2, batch, sizeof(T) == 8, st.geo.device};
    std::unique_ptr<Transform<T>>& t = [&]() -> std::unique_ptr<Transform<T>>& {
      if constexpr (sizeof(T) == 8)
        return st.td;
      else
        return st.tf;
    }();
    if (!t || !(st.geo == g)) {
      core::Stopwatch sw;
      st.tf.reset();
      st.td.reset();
      t = std::make_unique<Transform<T>>(n1, n2, batch);
      st.geo = g;
      res.times.add("plan", sw.elapsed_ms());
    }
    return *t;
  }

  // One request on one image: its geometry and the rule's parameters.
  struct Job {
    i64 h = 0, w = 0, hw = 0, n = 0;  // n = hw * channels
    int ch = 0;
    i64 n1 = 0, n2 = 0;  // the canonical shape
    double peak = 255;
    bool keep = false;
    i64 k = 0;            // keep: coefficients kept per channel
    bool select = false;  // keep with 0 < k < hw: the selection runs on the device
  };

  static Job job_of(const core::CompressRequest& r, const core::Dataset& in) {
    Job j;
    j.h = in.tensor.rows();
    j.w = in.tensor.cols();
    j.hw = j.h * j.w;
    j.ch = static_cast<int>(in.tensor.channels());
    j.n = j.hw * j.ch;
    // cuda-fft2d's canonical shape: N x 1 is computed as 1 x N (the same memory, the same flat indices).
    const bool column = j.w == 1 && j.h > 1;
    j.n1 = column ? 1 : j.h;
    j.n2 = column ? j.h : j.w;
    j.peak = in.kind == core::SourceKind::kImage16 ? 65535.0 : 255.0;
    j.keep = r.mode == core::CompressMode::kKeep;
    j.k = j.keep ? core::keep_count(r.keep, in.tensor.shape()) : 0;
    j.select = j.keep && j.k > 0 && j.k < j.hw;
    return j;
  }

  // What comes back from the device for the host's statistics.
  struct Counts {
    std::vector<unsigned long long> bins;  // symbol histogram over [-kHalfBins, kHalfBins)
    std::vector<int> overflow;             // the nonzero symbols outside it
    unsigned long long kept[kMaxChannels] = {};
  };

  template <class T>
  static void reserve(State& st, const Job& j) {
    const i64 n = j.n, nc = j.n1 * (j.n2 / 2 + 1) * j.ch;
    ensure(st.d_in, sizeof(unsigned short) * n);
    ensure(st.d_out, sizeof(unsigned short) * n);
    ensure(st.wr, sizeof(T) * n);
    ensure(st.wc, sizeof(cx_t<T>) * nc);
    ensure(st.coef, sizeof(T) * n);
    ensure(st.params, (sizeof(T) + sizeof(long long)) * kMaxChannels);
    ensure(st.stats, sizeof(Stats));
    ensure(st.overflow, sizeof(int) * n);
    ensure(st.pin_in, sizeof(unsigned short) * n);
    ensure(st.pin_out, sizeof(unsigned short) * n);
    ensure(st.pin_params, (sizeof(T) + sizeof(long long)) * kMaxChannels);
    ensure(st.pin_stats, sizeof(Stats));
  }

  // The samples into pinned u16 and the rule's parameters into the pinned block.
  template <class T>
  static void pack(State& st, const core::CompressRequest& r, const core::HostTensor& img, const Job& j) {
    // Samples: images are integral, 0..65535 (rounded and clamped for safety).
    auto* pin = static_cast<unsigned short*>(st.pin_in.get());
    if (img.precision() == core::Precision::kF32) {
      const float* src = img.data<float>();
      for (i64 i = 0; i < j.n; ++i) pin[i] = static_cast<unsigned short>(std::clamp(src[i], 0.f, 65535.f) + 0.5f);
    } else {
      const double* src = img.data<double>();
      for (i64 i = 0; i < j.n; ++i) pin[i] = static_cast<unsigned short>(std::clamp(src[i], 0.0, 65535.0) + 0.5);
    }
    // The rule when no selection computes it: threshold E: |c| >= E; keep none: t = inf; keep all: |c| >= 0.
    T* thr_h = static_cast<T*>(st.pin_params.get());
    auto* last_h = reinterpret_cast<long long*>(static_cast<char*>(st.pin_params.get()) + sizeof(T) * kMaxChannels);
    for (int p = 0; p < kMaxChannels; ++p) {
      thr_h[p] = !j.keep ? static_cast<T>(r.threshold) : j.k == 0 ? std::numeric_limits<T>::infinity() : T(0);
      last_h[p] = j.hw - 1;
    }
  }

  // Queues h2d, dct2, select, idct2 (with the statistics) and d2h on the stream, events between the stages.
  template <class T>
  static void queue_pipeline(State& st, const Transform<T>& tr, const Job& j) {
    const cudaStream_t s = st.stream.get();
    const i64 n = j.n;
    const int ch = j.ch;
    T* thr_d = st.params.as<T>();
    auto* last_d = reinterpret_cast<long long*>(static_cast<char*>(st.params.get()) + sizeof(T) * kMaxChannels);
    Stats* stats_d = st.stats.as<Stats>();
    st.ev[0].record(s);
    DCT_CUDA_CHECK(
        cudaMemcpyAsync(st.d_in.get(), st.pin_in.get(), sizeof(unsigned short) * n, cudaMemcpyHostToDevice, s));
    DCT_CUDA_CHECK(cudaMemcpyAsync(st.params.get(), st.pin_params.get(), (sizeof(T) + sizeof(long long)) * kMaxChannels,
                                   cudaMemcpyHostToDevice, s));
    st.ev[1].record(s);
    DCT_CUDA_CHECK(cudaMemsetAsync(stats_d, 0, sizeof(Stats), s));
    const Grid g = grid_2d(j.n1, j.n2, ch);
    DCT_LAUNCH((pack_reorder_kernel<T>), g.grid, g.block, s, st.d_in.as<const unsigned short>(), st.wr.as<T>(), j.n1,
               j.n2, static_cast<i64>(ch));
    tr.fwd->run(st.wr.get(), st.wc.get(), s);
    post_2d<T>(st.wc.as<const cx_t<T>>(), st.coef.as<T>(), tr.t1.view(), tr.t2.view(), j.n1, j.n2, ch, s);
    st.ev[2].record(s);
    if (j.select) queue_select<T>(st.coef.as<const T>(), j.hw, ch, j.k, st.sms, st.sel, thr_d, last_d, s);
    st.ev[3].record(s);
    KeepRule<T> rule;
    rule.thr = thr_d;
    rule.last = last_d;
    rule.kept = stats_d->kept;
    rule.hist = stats_d->hist;
    rule.half = kHalfBins;
    rule.overflow = st.overflow.as<int>();
    rule.overflow_count = &stats_d->overflow_count;
    pre_2d_keep<T>(st.coef.as<const T>(), st.wc.as<cx_t<T>>(), tr.t1.view(), tr.t2.view(), j.n1, j.n2, ch, rule, s);
    tr.inv->run(st.wc.get(), st.wr.get(), s);
    DCT_LAUNCH((finish_kernel<T>), g.grid, g.block, s, st.wr.as<const T>(), st.d_out.as<unsigned short>(), j.n1, j.n2,
               static_cast<i64>(ch), j.peak);
    st.ev[4].record(s);
    DCT_CUDA_CHECK(
        cudaMemcpyAsync(st.pin_out.get(), st.d_out.get(), sizeof(unsigned short) * n, cudaMemcpyDeviceToHost, s));
    DCT_CUDA_CHECK(cudaMemcpyAsync(st.pin_stats.get(), stats_d, sizeof(Stats), cudaMemcpyDeviceToHost, s));
    st.ev[5].record(s);
  }

  // Waits for the pipeline, fetches the overflow symbols, records the stage times; then (timed from `sw`'s
  // reset as "unpack") the counters and the image out of the pinned buffers.
  static Counts download(State& st, const Job& j, const core::HostTensor& img, core::CompressResult& res,
                         core::Stopwatch& sw) {
    Counts c;
    DCT_CUDA_CHECK(cudaStreamSynchronize(st.stream.get()));
    const Stats* hs = static_cast<const Stats*>(st.pin_stats.get());
    sw.reset();
    if (hs->overflow_count > 0) {
      c.overflow.resize(static_cast<std::size_t>(hs->overflow_count));
      DCT_CUDA_CHECK(
          cudaMemcpy(c.overflow.data(), st.overflow.get(), sizeof(int) * c.overflow.size(), cudaMemcpyDeviceToHost));
    }
    const double ovf_ms = sw.elapsed_ms();
    res.times.add("h2d", st.ev[1].since(st.ev[0]));
    res.times.add("dct2", st.ev[2].since(st.ev[1]));
    res.times.add("select", st.ev[3].since(st.ev[2]));
    res.times.add("idct2", st.ev[4].since(st.ev[3]));
    res.times.add("device", st.ev[4].since(st.ev[1]));
    res.times.add("d2h", st.ev[5].since(st.ev[4]) + ovf_ms);
    sw.reset();
    c.bins.assign(hs->hist, hs->hist + 2 * kHalfBins);
    std::copy(hs->kept, hs->kept + kMaxChannels, c.kept);
    res.image = core::HostTensor(img.shape(), j.ch, img.precision());
    const auto* pout = static_cast<const unsigned short*>(st.pin_out.get());
    if (res.image.precision() == core::Precision::kF32)
      std::copy(pout, pout + j.n, res.image.data<float>());
    else
      std::copy(pout, pout + j.n, res.image.data<double>());
    return c;
  }

  // Nonzero count and entropy: the symbol histogram is the in-range bins, the overflow symbols' runs, and 0
  // for the rest.
  static void count_symbols(Counts& c, const Job& j, core::CompressResult& res) {
    std::vector<std::int64_t> counts;
    counts.reserve(c.bins.size() + 1);
    std::int64_t nonzero_symbols = 0;
    for (unsigned long long b : c.bins)
      if (b != 0) {
        counts.push_back(static_cast<std::int64_t>(b));
        nonzero_symbols += static_cast<std::int64_t>(b);
      }
    std::sort(c.overflow.begin(), c.overflow.end());
    for (std::size_t i = 0; i < c.overflow.size();) {
      std::size_t e = i;
      while (e < c.overflow.size() && c.overflow[e] == c.overflow[i]) ++e;
      counts.push_back(static_cast<std::int64_t>(e - i));
      nonzero_symbols += static_cast<std::int64_t>(e - i);
      i = e;
    }
    counts.push_back(j.n - nonzero_symbols);
    res.coefficients = j.n;
    res.nonzero = 0;
    for (int p = 0; p < j.ch; ++p) res.nonzero += static_cast<std::int64_t>(c.kept[p]);
    res.entropy_bits = core::entropy_of_histogram(counts);
  }

  template <class T>
  core::CompressResult run_t(const core::CompressRequest& r, const core::Dataset& in) const {
    core::CompressResult res;
    res.backend = "cuda-compress-whole";
    const Job j = job_of(r, in);
    core::Stopwatch sw;
    Counts c;
    {
      const auto lease = pool_.acquire(make_state);
      State& st = *lease;
      const Transform<T>& tr = transform<T>(st, j.n1, j.n2, j.ch, res);
      sw.reset();
      reserve<T>(st, j);
      pack<T>(st, r, in.tensor, j);
      res.times.add("pack", sw.elapsed_ms());
      queue_pipeline<T>(st, tr, j);
      c = download(st, j, in.tensor, res, sw);
    }
    count_symbols(c, j, res);
    res.times.add("unpack", sw.elapsed_ms());
    return res;
  }

  mutable StatePool<State> pool_;  // one state per concurrent caller and device
};

const WholeCompressor& test_instance() {
  static const WholeCompressor c;
  return c;
}

}  // namespace

std::unique_ptr<core::Compressor> make_whole_compressor() { return std::make_unique<WholeCompressor>(); }

std::vector<KeepSelection> gpu_keep_select(const std::vector<float>& c, std::int64_t n, int channels, std::int64_t k) {
  return test_instance().select_only<float>(c, n, channels, k);
}
std::vector<KeepSelection> gpu_keep_select(const std::vector<double>& c, std::int64_t n, int channels, std::int64_t k) {
  return test_instance().select_only<double>(c, n, channels, k);
}

}  // namespace dct::cuda
