// TEMPORARY: link placeholders so the tree builds while cpu/ is written. Deleted when the real backends land.
#include <stdexcept>

#include "cpu/backends.hpp"

namespace dct::cpu {
const core::Runtime& host_runtime() { throw std::logic_error("placeholder"); }
std::unique_ptr<core::Backend> make_fftw_backend() { throw std::logic_error("placeholder"); }
std::unique_ptr<core::Backend> make_naive_backend() { throw std::logic_error("placeholder"); }
void set_threads(int) {}
}  // namespace dct::cpu
