/* cuda-lot: Malvar's type-I fast LOT, block 8 ([8]; [4] §3.3.3 and §4.2.2; docs/algorithms.md §7), forward
   and inverse, rows and columns in ONE kernel per direction ([4] needed several render passes; we recompute a
   one-block halo instead).

   The flowgraph (derived in cpu/lot.cpp): per 8-sample block the Feig-Linzer DCT (kernels/block8/block8.cuh) with
   the output scaling D/2, the first butterflies p = e − o, q = e + o (e, o: even / odd coefficients); per
   window j the second butterflies top = p_{j−1} + q_j, bot = p_{j−1} − q_j, then Z̃ᵀ = R3ᵀR2ᵀR1ᵀ on bot.
   Inverse, backwards: Z̃ on bot, A = top + bot, B = top − bot; block m: e = B_m + A_{m+1},
   o = B_m − A_{m+1}, scaled by D/2, Feig-Linzer IDCT. Zero extension: blocks outside the data are zero.

   Mapping: one thread per 8x8 block, the 64 values in registers. A CTA is 32 x 8 threads (linear id
   t = 32·ty + tx, so a warp is one row of blocks); CTA (bx, by) places thread (tx, ty) on block row
   7·by − 1 + ty, block column 31·bx − 1 + tx (forward: data blocks, zero outside the image, not loaded;
   inverse: 7·by + ty, 31·bx + tx, coefficient windows, zero outside). The thread loads its block with
   16-byte loads (float4 / double2; W and W+8 are multiples of 8, so every block row is 32-byte aligned),
   all of them issued before the first use.
   Forward: per row DCT → (p, q); the p of every row go to shared memory; a thread takes p of its left
     neighbour (tx − 1) and forms window(p_left, q_own) per row: the row-windowed block of window column
     31·bx − 1 + tx. Then per column DCT → (p, q), p through shared memory from the thread above (ty − 1),
     window(p_above, q_own) per column: the final coefficients of window (7·by − 1 + ty, 31·bx − 1 + tx),
     stored by threads tx, ty ≥ 1 (31 x 7 windows per CTA; row 0 and column 0 of threads are the halo).
   Inverse: per column to_ab → (A, B), A of the thread below (ty + 1), block_of(B_own, A_below) per column;
     then per row to_ab, A of the right neighbour (tx + 1), block_of(B_own, A_right) per row: data block
     (7·by + ty, 31·bx + tx), stored by threads tx ≤ 30, ty ≤ 6.
   (The 2-D LOT is separable, so either axis order is exact.) Shared memory holds only the published
   halves, element-major (slot s of thread t at sh[s][t], 16-byte slots): the writes and the neighbour
   reads are bank-conflict free; 32 KiB per CTA (f64 publishes 4 rows / columns per round, two rounds).
   Halo cost: 256 threads for 217 outputs (the halo re-reads hit L2). tests/emulate/emulate_lot.cpp runs these
   kernel bodies (kernels/lot/lot.cuh) on the host (256 threads per CTA, a barrier for __syncthreads) against cpu-lot,
   for machines without a GPU. */
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernels/algorithms.cuh"
#include "kernels/common/plan.cuh"
#include "kernels/lot/lot.cuh"

namespace dct::cuda {
namespace {

template <class T>
class LotGpuPlan final : public GpuPlan {
 public:
  explicit LotGpuPlan(const core::TransformDesc& d)
      : GpuPlan(d, d.bytes(), static_cast<std::size_t>(d.out_shape().count() * d.batch) * sizeof(T)),
        k_(lot_consts<T>()) {}

 protected:
  void run(const void* in, void* out, cudaStream_t s) const override {
    const auto& d = desc();
    const bool fwd = d.op == core::Op::kLot;
    const core::Shape2 data = fwd ? d.shape : d.out_shape();
    const int h = static_cast<int>(data.rows), w = static_cast<int>(data.cols);
    if (((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) & 15) != 0)
      throw Error(ErrorCode::kRuntime, "internal: cuda-lot needs 16-byte aligned device buffers");
    // Forward: (h/8+1) x (w/8+1) windows; inverse: (h/8) x (w/8) data blocks; 31 x 7 per CTA.
    const int ny = h / 8 + (fwd ? 1 : 0), nx = w / 8 + (fwd ? 1 : 0);
    const dim3 grid(static_cast<unsigned>((nx + kStepX - 1) / kStepX),
                    static_cast<unsigned>((ny + kStepY - 1) / kStepY), static_cast<unsigned>(d.batch));
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    if (fwd)
      DCT_LAUNCH((lot_forward_kernel<T>), grid, dim3(kThreads), s, src, dst, h, w, k_);
    else
      DCT_LAUNCH((lot_inverse_kernel<T>), grid, dim3(kThreads), s, src, dst, h, w, k_);
  }

 private:
  LotConsts<T> k_;
};

core::Support supports(const core::TransformDesc& d) {
  using core::Support;
  if (d.op != core::Op::kLot && d.op != core::Op::kIlot) return Support::no("implements lot and ilot only");
  const std::int64_t min = d.op == core::Op::kLot ? 8 : 16;
  if (d.shape.rows < min || d.shape.cols < min || d.shape.rows % 8 || d.shape.cols % 8)
    return Support::no("shape " + core::to_string(d.shape) + ": " + std::string(core::to_string(d.op)) +
                       " needs H and W multiples of 8" + (min == 16 ? " and >= 16" : ""));
  if (d.batch < 1 || d.batch > 65535) return Support::no("batch must be 1..65535");
  if ((d.shape.rows + 8) * (d.shape.cols + 8) >= (std::int64_t{1} << 31)) return Support::no("matrix too large");
  if ((d.shape.rows / 8 + 1 + kStepY - 1) / kStepY > 65535)
    return Support::no("more than " + std::to_string(8 * (kStepY * 65535 - 1)) + " rows");
  return Support::yes();
}

std::unique_ptr<core::Plan> make(const core::TransformDesc& d) {
  if (d.prec == core::Precision::kF32) return std::make_unique<LotGpuPlan<float>>(d);
  return std::make_unique<LotGpuPlan<double>>(d);
}

}  // namespace

Algorithm lot_algorithm() { return {&supports, &make}; }

}  // namespace dct::cuda
