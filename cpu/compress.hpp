#pragma once
// The CPU implementation of core::Compressor: every mode, the transforms through the registry's backends
// (auto: cpu-8x8-flmad for jpeg's 8x8 blocks, cpu-fftw for threshold/keep's whole-image DCT).
#include <memory>

#include "core/compress.hpp"
#include "core/registry.hpp"

namespace dct::cpu {

std::unique_ptr<core::Compressor> make_cpu_compressor(const core::Registry& registry);

}  // namespace dct::cpu
