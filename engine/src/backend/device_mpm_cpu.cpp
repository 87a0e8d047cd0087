// The device backend on the CPU implementation of the launch layer, and the checks that choose a backend.
#include <sstream>

#include "backend/cpu_device.h"
#include "backend/device_mpm_impl.h"
#include "model/rigid_model.h"

namespace ductile::backend {

std::unique_ptr<DeviceMpm> MakeEmulatedMpm(const Model& model, int lanes) {
  auto emulated = std::make_unique<DeviceMpmOn<CpuDevice>>(model);
  emulated->device().set_lanes(lanes);
  return emulated;
}

#if !defined(DUCTILE_HAVE_CUDA)
bool CudaAvailable(std::string* reason) {
  if (reason) *reason = "this build has no CUDA backend (nvcc was not found when it was configured)";
  return false;
}

std::unique_ptr<DeviceMpm> MakeCudaMpm(const Model&) {
  std::string reason;
  CudaAvailable(&reason);
  throw std::runtime_error("the CUDA backend cannot run: " + reason);
}
#endif

std::string DeviceBackendLimitation(const Model& model) {
  std::ostringstream out;
  if (model.coupling == CouplingKind::kStrong)
    out << "the strong coupling (simulation.coupling: strong) runs on the CPU backend only";
  return out.str();
}

std::string BackendRefusal(const Model& model) {
  if (model.backend == BackendKind::kCuda) {
    std::string reason;
    if (!CudaAvailable(&reason)) return "the CUDA backend cannot run here: " + reason;
  }
  if (model.backend == BackendKind::kCuda || model.backend == BackendKind::kEmulated)
    return DeviceBackendLimitation(model);
  return {};
}

BackendKind ResolveBackend(const Model& model) {
  // A live edit may give a device backend what it cannot run (the strong coupling): the CPU takes over.
  if (model.backend != BackendKind::kCpu && !DeviceBackendLimitation(model).empty()) return BackendKind::kCpu;
  if (model.backend != BackendKind::kAuto) return model.backend;
  return CudaAvailable() && DeviceBackendLimitation(model).empty() ? BackendKind::kCuda : BackendKind::kCpu;
}

}  // namespace ductile::backend
