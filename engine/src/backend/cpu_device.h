// The CPU implementation of the launch-and-memory layer (backend/launch.h): buffers in host memory, ForEach and
// ForEachBlock on TBB (one lane per block, a scratch array per worker thread; or more lanes per block, for tests), a
// stable LSD radix sort and serial scans. It exists so that the device backend's orchestration runs, and is tested,
// where there is no GPU; it is not tuned to compete with the CPU backend (mpm/mpm_solver.h), which is the one to use on
// a CPU.
#pragma once

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "backend/launch.h"

namespace ductile::backend {

class CpuDevice {
 public:
  template <typename T>
  class Buffer {
   public:
    /// n elements; the contents are not kept.
    void Resize(std::size_t n) { data_.resize(n); }
    std::size_t size() const { return data_.size(); }
    T* data() { return data_.data(); }
    const T* data() const { return data_.data(); }
    /// Resizes to n and copies n elements from host memory.
    void Upload(const T* host, std::size_t n) {
      data_.resize(n);
      if (n > 0) std::memcpy(data_.data(), host, n * sizeof(T));
    }
    /// Copies the first n elements to host memory.
    void Download(T* host, std::size_t n) const {
      if (n > 0) std::memcpy(host, data_.data(), n * sizeof(T));
    }
    void swap(Buffer& other) noexcept { data_.swap(other.data_); }

   private:
    std::vector<T> data_;
  };

  static constexpr const char* kName = "cpu";

  template <typename Kernel>
  void ForEach(std::int64_t n, const Kernel& kernel) {
    if (n <= 0) return;
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, 1024), [&](const tbb::blocked_range<std::int64_t>& r) {
      for (std::int64_t i = r.begin(); i != r.end(); ++i) kernel(i);
    });
  }

  /// How many of a ForEachBlock launch's lanes run each block (1, the default: one, the blocks in parallel). More:
  /// that many threads run each block together, one block after another, meeting at its barriers (BlockLanes::Sync)
  /// and adding into its scratch atomically, as a CUDA block's threads do: the kernels' lane code, barriers and
  /// atomics run on the CPU too (tests; the sums' order then varies, so results are not bitwise repeatable).
  void set_lanes(int lanes) { lanes_ = std::max(1, lanes); }

  template <typename Kernel>
  void ForEachBlock(int blocks, int lanes, int shared, const Kernel& kernel) {
    if (blocks <= 0) return;
    if (const int in_lanes = std::min(lanes, lanes_); in_lanes > 1)
      return ForEachBlockInLanes(blocks, in_lanes, shared, kernel);
    tbb::parallel_for(tbb::blocked_range<int>(0, blocks, 1), [&](const tbb::blocked_range<int>& r) {
      std::vector<Float4>& scratch = scratch_.local();
      if (scratch.size() < static_cast<std::size_t>(shared)) scratch.resize(shared);
      for (int b = r.begin(); b != r.end(); ++b) {
        BlockLanes block;
        block.block = b;
        block.shared = scratch.data();
        kernel(block);
      }
    });
  }

  /// Stable ascending sort of n pairs by the low `key_bits` bits of the key, 8 bits a pass.
  void SortPairs(Buffer<std::uint32_t>& keys, Buffer<std::int32_t>& values, std::int64_t n, int key_bits) {
    key_scratch_.resize(static_cast<std::size_t>(n));
    value_scratch_.resize(static_cast<std::size_t>(n));
    std::uint32_t* k = keys.data();
    std::int32_t* v = values.data();
    std::uint32_t* k2 = key_scratch_.data();
    std::int32_t* v2 = value_scratch_.data();
    for (int shift = 0; shift < key_bits; shift += 8) {
      // The digit's bits, only those below key_bits (the bits above do not count, as with CUB's end_bit).
      const std::uint32_t digit = key_bits - shift >= 8 ? 0xFFu : (1u << (key_bits - shift)) - 1;
      std::array<std::int64_t, 257> offset{};
      for (std::int64_t i = 0; i < n; ++i) ++offset[((k[i] >> shift) & digit) + 1];
      for (int d = 0; d < 256; ++d) offset[d + 1] += offset[d];
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t at = offset[(k[i] >> shift) & digit]++;
        k2[at] = k[i];
        v2[at] = v[i];
      }
      std::swap(k, k2);
      std::swap(v, v2);
    }
    if (k != keys.data()) {
      std::copy(k, k + n, keys.data());
      std::copy(v, v + n, values.data());
    }
  }

  /// out[i] = Σ_{j<i} in[j]; returns the total.
  std::int64_t ExclusiveScan(const Buffer<std::int32_t>& in, Buffer<std::int32_t>& out, std::int64_t n) {
    std::int64_t sum = 0;
    const std::int32_t* a = in.data();
    std::int32_t* b = out.data();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int32_t x = a[i];
      b[i] = static_cast<std::int32_t>(sum);
      sum += x;
    }
    return sum;
  }

  std::int64_t Sum(const Buffer<std::int32_t>& values, std::int64_t n) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i) sum += values.data()[i];
    return sum;
  }

  /// Σ values[i] in index order.
  double Sum(const Buffer<double>& values, std::int64_t n) {
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) sum += values.data()[i];
    return sum;
  }

  template <typename T>
  T Read(const Buffer<T>& buffer, std::int64_t i) {
    return buffer.data()[i];
  }

  void Synchronize() {}

 private:
  // ForEachBlock with `lanes` threads per block (set_lanes): each thread is one lane of every block in turn; a
  // barrier after each block keeps its scratch until every lane is done with it.
  template <typename Kernel>
  void ForEachBlockInLanes(int blocks, int lanes, int shared, const Kernel& kernel) {
    std::vector<Float4> scratch(static_cast<std::size_t>(shared));
    std::barrier<> barrier(lanes);
    const auto wait = [](void* b) { static_cast<std::barrier<>*>(b)->arrive_and_wait(); };
    const auto run = [&](int lane) {
      BlockLanes block;
      block.lane = lane;
      block.lanes = lanes;
      block.shared = scratch.data();
      block.wait = wait;
      block.barrier = &barrier;
      for (int b = 0; b < blocks; ++b) {
        block.block = b;
        kernel(block);
        barrier.arrive_and_wait();
      }
    };
    std::vector<std::thread> others;
    for (int lane = 1; lane < lanes; ++lane) others.emplace_back(run, lane);
    run(0);
    for (std::thread& t : others) t.join();
  }

  int lanes_ = 1;
  tbb::enumerable_thread_specific<std::vector<Float4>> scratch_;
  std::vector<std::uint32_t> key_scratch_;
  std::vector<std::int32_t> value_scratch_;
};

}  // namespace ductile::backend
