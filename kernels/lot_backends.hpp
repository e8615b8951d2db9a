#pragma once
// Factory for the CUDA LOT backend. Plain C++ (no CUDA types) so app/registry.cpp can include it;
// compiled in only when DCTOOL_HAVE_CUDA is defined.
#include <memory>

#include "core/backend.hpp"

namespace dct::cuda {

// "cuda-lot": the 8x8 LOT and its inverse (DESIGN §4), rows and columns in one kernel per direction.
std::unique_ptr<core::Backend> make_lot_backend();

}  // namespace dct::cuda
