#include "backend/mpm_backend_domain.h"

#include <exception>
#include <stdexcept>

#include "backend/device_mpm.h"

namespace ductile::backend {

MpmBackendDomain::MpmBackendDomain(const Model& model, mpm::MpmState& state, tbb::task_arena& arena)
    : model_(&model), state_(&state), arena_(&arena), cpu_(std::make_unique<mpm::MpmDomain>(model, state, arena)) {
  if (std::string failed = ChooseBackend(); !failed.empty()) throw std::runtime_error(failed);
}

void MpmBackendDomain::Bind(mpm::MpmState& state) {
  state_ = &state;
  cpu_->Bind(state);
  if (device_) device_->Bind(state);
}

void MpmBackendDomain::EditVelocities(const std::function<void(const mpm::Particles&, std::vector<Vec3f>&)>& edit) {
  if (device_) {  // the device's particles, edited on the host and uploaded again
    device_->SyncToHost();
    edit(state_->particles, state_->particles.v);
    device_->UploadVelocities();
  } else {
    mpm::MpmSolver& solver = cpu_->solver();
    edit(solver.particles(), solver.mutable_velocities());
  }
}

std::string MpmBackendDomain::ChooseBackend() {
  const Model& model = *model_;
  const BackendKind resolved = ResolveBackend(model);
  if (device_ && resolved == backend_) return {};
  if (device_) {
    device_->SyncToHost();
    device_.reset();
    cpu_->Bind(*state_);
  }
  backend_ = resolved;
  try {
    if (resolved == BackendKind::kCuda) {
      device_ = std::make_unique<DeviceMpmDomain>(model, *state_, MakeCudaMpm(model), *arena_);
    } else if (resolved == BackendKind::kEmulated) {
      device_ = std::make_unique<DeviceMpmDomain>(model, *state_, MakeEmulatedMpm(model), *arena_);
    }
  } catch (const std::exception& e) {  // no memory for the particles on the device, a CUDA error
    device_.reset();
    backend_ = BackendKind::kCpu;
    if (model.backend == BackendKind::kAuto) return {};  // `auto` runs where it can
    return std::string("simulation.backend: the device backend could not start (") + e.what() +
           "): the CPU backend goes on";
  }
  return {};
}

std::string MpmBackendDomain::SetModel(const Model& model) {
  SyncToHost();
  model_ = &model;
  cpu_->SetModel(model);
  if (device_ && ResolveBackend(model) == backend_) {  // staying on the device: it takes the new model
    try {
      device_->SetModel(model);
    } catch (const std::exception&) {  // a CUDA error: start a fresh device below (or the CPU backend goes on)
      device_.reset();
      cpu_->Bind(*state_);
      backend_ = BackendKind::kCpu;
    }
  }
  return ChooseBackend();
}

void MpmBackendDomain::Reset() {
  cpu_->Reset();
  device_.reset();
  if (std::string failed = ChooseBackend(); !failed.empty()) throw std::runtime_error(failed);
}

}  // namespace ductile::backend
