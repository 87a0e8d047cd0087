// The launch-and-memory layer of the device MPM backend (docs/architecture.md, "The device backend"): what the
// GPU-style orchestration (backend/device_mpm.h) needs from a device, in one small vocabulary with two
// implementations: CpuDevice (backend/cpu_device.h; TBB, plain memory) and CudaDevice (backend/cuda/cuda_device.cuh;
// CUDA launches, CUB sorts and scans). The orchestration is a template over the device, so every line of the CUDA
// backend's own code paths (block activation, sorting, the fused per-block pass, reductions) also runs in every CI
// run, on the CPU. A device provides:
//
//   Buffer<T>                 device memory of trivially copyable T: Resize (contents not kept), data(), size(),
//                             Upload(host, n), Download(host, n); moving it moves the memory
//   ForEach(n, kernel)        kernel(i) for i in [0, n), in parallel, in no particular order
//   ForEachBlock(b, lanes, shared, kernel)
//                             kernel(BlockLanes) for each of b blocks: `lanes` threads of one block run it together
//                             and share `shared` Float4s of scratch (CUDA: one thread block and its shared memory;
//                             CPU: one lane, a scratch array per task; or, for tests, `lanes` threads per block
//                             meeting at a barrier, CpuDevice::set_lanes), synchronising at BlockLanes::Sync
//   SortPairs(keys, values, n, key_bits)
//                             stable ascending radix sort of n (key, value) pairs by the low key_bits of the key
//   ExclusiveScan(in, out, n) out[i] = Σ_{j<i} in[j]; returns the total to the host (waits for the device)
//   Sum(values, n)            Σ values[i] (int32 or double) to the host (waits); in a fixed order for a given n
//   Read(buffer, i)           one element to the host (waits)
//   Synchronize()             waits until every launch has finished (the CPU's launches finish before returning)
//
// Kernels are functors with a `SIM_HD void operator()(...) const` over plain pointers (core/sim_hd.h): no STL, no
// exceptions. Shared scratch is added to with LaneAdd (atomic between the lanes of a CUDA block or of the CPU's
// emulated lanes, a plain add on the CPU's one lane); device-wide counters with AtomicAdd.
#pragma once

#include <cstdint>

#include "core/float4.h"
#include "core/sim_hd.h"

namespace ductile::backend {

/// One block of a ForEachBlock launch as one of its lanes sees it.
struct BlockLanes {
  int block = 0;             ///< Which block, [0, blocks).
  int lane = 0;              ///< This lane, [0, lanes).
  int lanes = 1;             ///< Lanes running the block together (1 on the CPU, unless it emulates more).
  Float4* shared = nullptr;  ///< The block's scratch, `shared` Float4s, uninitialised at the start.
  /// On the CPU with emulated lanes (CpuDevice::set_lanes): how a lane waits at the block's barrier, and the barrier.
  void (*wait)(void* barrier) = nullptr;
  void* barrier = nullptr;

  /// Waits until every lane of the block has reached this point (a barrier; nothing to wait for with one lane).
  SIM_HD void Sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#else
    if (wait != nullptr) wait(barrier);
#endif
  }
};

/// *to += value between the lanes of block `b` (shared scratch): atomic per lane on CUDA and between the CPU's
/// emulated lanes (a compare-and-swap loop), a plain add on the CPU's single lane per block.
SIM_HD void LaneAdd(const BlockLanes& b, Float4* to, const Float4& value) {
#if defined(__CUDA_ARCH__)
  (void)b;
  for (int l = 0; l < 4; ++l) atomicAdd(&to->v[l], value.v[l]);
#else
  if (b.lanes == 1) {
    *to += value;
    return;
  }
  for (int l = 0; l < 4; ++l) {
    float* target = reinterpret_cast<float*>(to) + l;  // a vector's element (GCC's vector types alias float)
    float seen = 0;
    __atomic_load(target, &seen, __ATOMIC_RELAXED);
    float sum = seen + value[l];
    while (!__atomic_compare_exchange(target, &seen, &sum, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      sum = seen + value[l];  // another lane added first: `seen` is its sum
  }
#endif
}

/// Whether x is finite (neither infinite nor NaN), on both sides without the C library.
SIM_HD bool IsFinite(float x) {
  return x - x == 0.0f;
}

/// *to += value from any thread of any block, atomically (device-wide counters).
SIM_HD void AtomicAdd(std::int32_t* to, std::int32_t value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<int*>(to), static_cast<int>(value));
#else
  __atomic_fetch_add(to, value, __ATOMIC_RELAXED);
#endif
}

/// *to = max(*to, value) from any thread, atomically (device-wide flags).
SIM_HD void AtomicMax(std::int32_t* to, std::int32_t value) {
#if defined(__CUDA_ARCH__)
  atomicMax(reinterpret_cast<int*>(to), static_cast<int>(value));
#else
  std::int32_t seen = __atomic_load_n(to, __ATOMIC_RELAXED);
  while (seen < value && !__atomic_compare_exchange_n(to, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

}  // namespace ductile::backend
