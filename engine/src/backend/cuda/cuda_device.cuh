// The CUDA implementation of the launch-and-memory layer (backend/launch.h): buffers in device memory, ForEach as
// one thread per index, ForEachBlock as one thread block per block with its scratch in dynamic shared memory, and
// CUB's radix sort, scan and reduction (they ship with the CUDA toolkit). Every call goes to the default stream, so
// launches run in order; the calls that return a value to the host wait for it. Errors throw std::runtime_error
// naming the call (the backend catches them at its boundary).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <string>

#include "backend/launch.h"

namespace ductile::backend {

inline void CheckCuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

template <typename Kernel>
__global__ void ForEachKernel(std::int64_t n, Kernel kernel) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) kernel(i);
}

template <typename Kernel>
__global__ void ForEachBlockKernel(Kernel kernel) {
  extern __shared__ Float4 shared[];
  BlockLanes block;
  block.block = static_cast<int>(blockIdx.x);
  block.lane = static_cast<int>(threadIdx.x);
  block.lanes = static_cast<int>(blockDim.x);
  block.shared = shared;
  kernel(block);
}

class CudaDevice {
 public:
  template <typename T>
  class Buffer {
   public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { cudaFree(data_); }
    /// n elements; the contents are not kept (the memory only grows).
    void Resize(std::size_t n) {
      if (n > capacity_) {
        cudaFree(data_);
        data_ = nullptr;
        capacity_ = size_ = 0;  // a failed allocation leaves an empty buffer, not a null one that looks allocated
        CheckCuda(cudaMalloc(&data_, n * sizeof(T)), "cudaMalloc");
        capacity_ = n;
      }
      size_ = n;
    }
    std::size_t size() const { return size_; }
    T* data() { return data_; }
    const T* data() const { return data_; }
    void Upload(const T* host, std::size_t n) {
      Resize(n);
      if (n > 0) CheckCuda(cudaMemcpy(data_, host, n * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
    void Download(T* host, std::size_t n) const {
      if (n > 0) CheckCuda(cudaMemcpy(host, data_, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    }
    void swap(Buffer& other) noexcept {
      std::swap(data_, other.data_);
      std::swap(size_, other.size_);
      std::swap(capacity_, other.capacity_);
    }

   private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
  };

  static constexpr const char* kName = "cuda";

  template <typename Kernel>
  void ForEach(std::int64_t n, const Kernel& kernel) {
    if (n <= 0) return;
    constexpr int kThreads = 256;
    ForEachKernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads>>>(n, kernel);
    CheckCuda(cudaGetLastError(), "ForEach launch");
  }

  template <typename Kernel>
  void ForEachBlock(int blocks, int lanes, int shared, const Kernel& kernel) {
    if (blocks <= 0) return;
    const std::size_t bytes = static_cast<std::size_t>(shared) * sizeof(Float4);
    if (bytes > 48 * 1024)
      CheckCuda(cudaFuncSetAttribute(ForEachBlockKernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes)),
                "shared memory size");
    ForEachBlockKernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(lanes), bytes>>>(kernel);
    CheckCuda(cudaGetLastError(), "ForEachBlock launch");
  }

  void SortPairs(Buffer<std::uint32_t>& keys, Buffer<std::int32_t>& values, std::int64_t n, int key_bits) {
    key_scratch_.Resize(static_cast<std::size_t>(n));
    value_scratch_.Resize(static_cast<std::size_t>(n));
    cub::DoubleBuffer<std::uint32_t> k(keys.data(), key_scratch_.data());
    cub::DoubleBuffer<std::int32_t> v(values.data(), value_scratch_.data());
    std::size_t bytes = 0;
    CheckCuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, static_cast<int>(n), 0, key_bits), "sort size");
    temp_.Resize(bytes);
    CheckCuda(cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, k, v, static_cast<int>(n), 0, key_bits), "sort");
    if (k.Current() != keys.data()) {
      keys.swap(key_scratch_);
      values.swap(value_scratch_);
    }
  }

  std::int64_t ExclusiveScan(const Buffer<std::int32_t>& in, Buffer<std::int32_t>& out, std::int64_t n) {
    if (n <= 0) return 0;
    std::size_t bytes = 0;
    CheckCuda(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in.data(), out.data(), static_cast<int>(n)), "scan size");
    temp_.Resize(bytes);
    CheckCuda(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, in.data(), out.data(), static_cast<int>(n)), "scan");
    return static_cast<std::int64_t>(Read(out, n - 1)) + Read(in, n - 1);
  }

  std::int64_t Sum(const Buffer<std::int32_t>& values, std::int64_t n) {
    if (n <= 0) return 0;
    sum_.Resize(1);
    std::size_t bytes = 0;
    CheckCuda(cub::DeviceReduce::Sum(nullptr, bytes, values.data(), sum_.data(), static_cast<int>(n)), "sum size");
    temp_.Resize(bytes);
    CheckCuda(cub::DeviceReduce::Sum(temp_.data(), bytes, values.data(), sum_.data(), static_cast<int>(n)), "sum");
    return Read(sum_, 0);
  }

  double Sum(const Buffer<double>& values, std::int64_t n) {
    if (n <= 0) return 0;
    sum_double_.Resize(1);
    std::size_t bytes = 0;
    CheckCuda(cub::DeviceReduce::Sum(nullptr, bytes, values.data(), sum_double_.data(), static_cast<int>(n)),
              "sum size");
    temp_.Resize(bytes);
    CheckCuda(cub::DeviceReduce::Sum(temp_.data(), bytes, values.data(), sum_double_.data(), static_cast<int>(n)),
              "sum");
    return Read(sum_double_, 0);
  }

  template <typename T>
  T Read(const Buffer<T>& buffer, std::int64_t i) {
    T value;
    CheckCuda(cudaMemcpy(&value, buffer.data() + i, sizeof(T), cudaMemcpyDeviceToHost), "read");
    return value;
  }

  void Synchronize() { CheckCuda(cudaDeviceSynchronize(), "synchronize"); }

 private:
  Buffer<std::uint32_t> key_scratch_;
  Buffer<std::int32_t> value_scratch_;
  Buffer<unsigned char> temp_;
  Buffer<long long> sum_;
  Buffer<double> sum_double_;
};

}  // namespace ductile::backend
