// The device backend on CUDA: the orchestration of backend/device_mpm_impl.h on the CUDA launch layer.
#include <cuda_runtime.h>

#include <string>

#include "backend/cuda/cuda_device.cuh"
#include "backend/device_mpm_impl.h"

namespace ductile::backend {

bool CudaAvailable(std::string* reason) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (reason)
      *reason = e != cudaSuccess
                    ? "no usable CUDA device (the CUDA runtime says: " + std::string(cudaGetErrorString(e)) + ")"
                    : std::string("no CUDA device");
    return false;
  }
  // The build's kernels are for sm_80 and sm_90 (and their PTX, which newer devices compile at load).
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    if (reason) *reason = "the CUDA device's properties cannot be read";
    return false;
  }
  if (prop.major < 8) {
    if (reason)
      *reason = std::string("the CUDA device ") + prop.name + " has compute capability " + std::to_string(prop.major) +
                "." + std::to_string(prop.minor) + "; the backend needs 8.0 or newer";
    return false;
  }
  return true;
}

std::unique_ptr<DeviceMpm> MakeCudaMpm(const Model& model) {
  std::string reason;
  if (!CudaAvailable(&reason)) throw std::runtime_error("the CUDA backend cannot run: " + reason);
  return std::make_unique<DeviceMpmOn<CudaDevice>>(model);
}

}  // namespace ductile::backend
