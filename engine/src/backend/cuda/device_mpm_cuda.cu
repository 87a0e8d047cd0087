// The device backend on CUDA: the orchestration of backend/device_mpm_impl.h on the CUDA launch layer.
#include <cuda_runtime.h>

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
  return true;
}

std::unique_ptr<DeviceMpm> MakeCudaMpm(const Model& model) {
  std::string reason;
  if (!CudaAvailable(&reason)) throw std::runtime_error("the CUDA backend cannot run: " + reason);
  return std::make_unique<DeviceMpmOn<CudaDevice>>(model);
}

}  // namespace ductile::backend
