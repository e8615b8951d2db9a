#pragma once
// Internal to cpu/: what the CPU backends and the host runtime share — the thread setting, the checks of
// a request against what the DCT backends implement, and the checks of the views a plan executes on.
#include <string_view>

#include "core/backend.hpp"

namespace dct::cpu::detail {

// The set_threads() value with 0 resolved to the hardware's thread count (always >= 1).
int thread_count();

// dct2, idct2, dct4, idct4: the ops cpu-fftw and cpu-naive implement.
bool is_dct_op(core::Op op);

// The checks cpu-fftw and cpu-naive share: op, shape, batch, and block mode (axis both, H and W multiples
// of B). `block_any_op` admits block mode for dct4/idct4 as well (cpu-naive); otherwise dct2/idct2 only.
core::Support check_dct_desc(const core::TransformDesc& d, bool block_any_op);

// Throws dct::Error(kRuntime, backend, ...) unless `in` and `out` are host views of d's precision and
// element counts that do not overlap.
void check_views(std::string_view backend, const core::TransformDesc& d, const core::ConstView& in,
                 const core::View& out);

}  // namespace dct::cpu::detail
