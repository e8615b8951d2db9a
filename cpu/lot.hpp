#pragma once
// cpu-lot: Malvar's type-I fast lapped orthogonal transform, block 8 ([8]; [4] §3.3), ops lot
// and ilot, f32 and f64; cpu/lot.cpp derives the flowgraph from the matrix definition.
#include <memory>

#include "core/backend.hpp"

namespace dct::cpu {

std::unique_ptr<core::Backend> make_lot_backend();  // "cpu-lot"

}  // namespace dct::cpu
