#pragma once
// Error and quality metrics over host tensors (any precision; computed in double / long double).
#include <cstdint>
#include <span>

#include "core/tensor.hpp"

namespace dct::core {

double mse(const HostTensor& a, const HostTensor& b);  // shapes must match (kInput otherwise)
double max_abs_error(const HostTensor& a, const HostTensor& b);
double psnr_db(double mse, double peak);  // +inf for mse == 0
// ||a - ref||_2 / ||ref||_2 (||a - ref|| when ref is all zeros).
double relative_l2(const HostTensor& a, const HostTensor& ref);
double max_abs(const HostTensor& a);
// Zeroth-order (memoryless) entropy of integer symbols, in bits per symbol.
double entropy_bits(std::span<const std::int32_t> symbols);

}  // namespace dct::core
