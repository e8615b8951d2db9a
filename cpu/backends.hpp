#pragma once
// Factories for the CPU backends and the host runtime; app/registry.cpp puts them in the table.
#include <memory>
#include <string>

#include "core/backend.hpp"

namespace dct::cpu {

const core::Runtime& host_runtime();                  // the host: aligned buffers, steady clock, FFTW r2c baseline
std::unique_ptr<core::Backend> make_fftw_backend();   // "cpu-fftw"
std::unique_ptr<core::Backend> make_naive_backend();  // "cpu-naive" (oracle: long double, direct definitions)
void set_threads(int n);                              // FFTW/OpenMP threads (0 = all cores)
// Whether cpu-fftw plans `d` on one thread whatever --threads says: three transformed axes with a DCT-I or DST-I
// among them (kTypeOneRank3MaxThreads in cpu/fftw_util.hpp; docs/decisions.md, "FFTW threads").
bool fftw_single_threaded(const core::TransformDesc& d);
std::string fftw_version();  // the linked FFTW's version string, e.g. "fftw-3.3.10-sse2-avx"

}  // namespace dct::cpu
