#include "backend/mpm_backend_domain.h"

#include <exception>
#include <stdexcept>
#include <utility>

#include "backend/device_mpm.h"
#include "coupling/coupling_telemetry.h"

namespace ductile::backend {

DomainRefusal MpmBackendDomain::Refusal(const Model& model) {
  if (model.coupling == CouplingKind::kStrong) {
    const auto strong = [](std::string why) { return DomainRefusal{"simulation.coupling", "strong", std::move(why)}; };
    if (!model.colliders.empty())
      return strong("the strong coupling takes no colliders (collider '" + model.collider_names.front() +
                    "'): make it a static rigid body");
    for (std::size_t m = 0; m < model.materials.size(); ++m) {
      const mpm::MaterialModel kind = model.materials[m].model;
      if (kind == mpm::MaterialModel::kDruckerPrager || kind == mpm::MaterialModel::kCloth)
        return strong("the strong coupling does not take material '" + model.material_names[m] + "' (" +
                      (kind == mpm::MaterialModel::kCloth ? "cloth" : "drucker_prager") +
                      "): use simulation.coupling: weak");
    }
  }
  if (std::string why = BackendRefusal(model); !why.empty())
    return {"simulation.backend", model.backend == BackendKind::kCuda ? "cuda" : "emulated", std::move(why)};
  return {};
}

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

void MpmBackendDomain::Advance(double time, double dt, StepTelemetry& telemetry) {
  stepping().Advance(time, dt, telemetry);
  if (frozen_ && model_->num_particles > 0) coupling::RecordContactTelemetry(state_->contact.stats, telemetry);
  frozen_ = false;
}

void MpmBackendDomain::Reset() {
  cpu_->Reset();
  device_.reset();
  if (std::string failed = ChooseBackend(); !failed.empty()) throw std::runtime_error(failed);
}

}  // namespace ductile::backend
