#pragma once
// Constants of Malvar's type-I fast LOT, block 8 [4, 8], shared by cpu-lot (cpu/lot.cpp derives the flowgraph),
// cuda-lot (kernels/lot/lot.cu) and compress --mode lot.
#include <array>

namespace dct::math::lot {

// θ of the Z̃ rotations ([4] eq. 3.28): Z̃ = R1·R2·R3, R_i rotating coordinates (i−1, i).
inline constexpr std::array<double, 3> kTheta = {0.13, 0.16, 0.13};  // times π

// Where coefficient m of an 8-value LOT block lies in frequency: P0's columns are the 4 even-symmetric
// basis functions (frequencies 0, 2, 4, 6) then the 4 odd-symmetric ones (1, 3, 5, 7). compress --mode lot
// quantizes coefficient (r, c) of a block with the JPEG table entry (frequency(r), frequency(c)).
inline constexpr std::array<int, 8> kFrequency = {0, 2, 4, 6, 1, 3, 5, 7};

}  // namespace dct::math::lot
