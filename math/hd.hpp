#pragma once
// DCT_HD marks the math/ functions that CUDA kernels call too: __host__ __device__ (and always inlined) when a CUDA
// compiler includes the header, a plain inline function otherwise. No CUDA header is included.
#if defined(__CUDACC__)
#define DCT_HD __host__ __device__ __forceinline__
#else
#define DCT_HD inline
#endif
