// SIM_HD marks a function that compiles for both the CPU and, under nvcc, the GPU.
// Kernels written with it take plain views (pointers and counts): no STL, no virtuals, no allocation,
// no exceptions. The CPU backend launches them with TBB, the CUDA backend with its own launcher.
#pragma once

#if defined(__CUDACC__)
#define SIM_HD __host__ __device__ inline
#else
#define SIM_HD inline
#endif

// SIM_UNROLL: fully unroll the following fixed-count loop (the 3x3x3 stencil loops of the transfer kernels).
#if defined(__CUDACC__)
#define SIM_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define SIM_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define SIM_UNROLL _Pragma("GCC unroll 4")
#else
#define SIM_UNROLL
#endif
