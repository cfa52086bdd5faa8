// Marks per-pixel code shared by the CPU backend (.cpp) and the CUDA kernels (.cu), so the two
// backends compute the same function from one source.
#pragma once

#if defined(__CUDACC__)
#define CUSK_HD __host__ __device__ __forceinline__
#else
#define CUSK_HD inline
#endif

// `#pragma unroll` for device passes only (host compilers warn about it).
#if defined(__CUDA_ARCH__)
#define CUSK_UNROLL _Pragma("unroll")
#else
#define CUSK_UNROLL
#endif
