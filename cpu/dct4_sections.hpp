#pragma once
// Factories for [3]'s sectioned N = 17 DCT-IV on the host ("cpu-dct4-sec4", "cpu-dct4-sec8"); the
// algorithm and its operation counts are derived in math/dct4_n17.hpp.
#include <memory>
#include <string>

#include "core/backend.hpp"

namespace dct::cpu {

// sections: 4 or 8.
std::unique_ptr<core::Backend> make_dct4_sections_backend(int sections);
// "per section 14 mul + 39 add; per transform 73 mul + 191 add (direct: 289 + 272); paper: 5 mul, 29 add,
// 18 shifts per section" for `dctool backends` (the table of docs/algorithms.md §6.4).
std::string dct4_sections_counts(int sections);

}  // namespace dct::cpu
