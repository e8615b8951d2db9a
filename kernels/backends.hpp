#pragma once
// Factories for the CUDA backends. This header is plain C++ (no CUDA types) so app/ can include it;
// it is only compiled in when DCTOOL_HAVE_CUDA is defined.
#include <memory>
#include <vector>

#include "core/backend.hpp"

namespace dct::cuda {

const core::Runtime& cuda_runtime();  // device `set_device()` chose; usable() says why not
void set_device(int ordinal);
// Every CUDA backend, in auto-preference order.
std::vector<std::unique_ptr<core::Backend>> make_backends();

}  // namespace dct::cuda
