#include "backend/device_mpm_domain.h"

#include <utility>

#include "coupling/mpm_rigid_contact.h"
#include "mpm/mpm_domain.h"
#include "mpm/mpm_solver.h"

namespace ductile::backend {

DeviceMpmDomain::DeviceMpmDomain(const Model& model, mpm::MpmState& state, std::unique_ptr<DeviceMpm> device)
    : model_(&model), state_(&state), device_(std::move(device)) {
  Bind(state);
}

void DeviceMpmDomain::Bind(mpm::MpmState& state) {
  state_ = &state;
  device_->Upload(state.particles);
  host_current_ = true;
}

void DeviceMpmDomain::SyncToHost() const {
  if (host_current_) return;
  device_->Download(state_->particles);
  state_->cache.Invalidate(mpm::Invalidation::kParticlesEdited);  // the device's order, no CPU transfer cache
  state_->diverged = device_->diverged();
  host_current_ = true;
}

void DeviceMpmDomain::UploadVelocities() {
  device_->UploadVelocities(state_->particles);
}

void DeviceMpmDomain::FreezeRigidGeometry(const contact::RigidSystem&, coupling::RigidImpulses& impulses) {
  // DeviceBackendLimitation keeps scenes whose material touches rigid bodies off this backend: nothing to freeze,
  // and the bodies receive no impulse.
  impulses = {};
}

void DeviceMpmDomain::Advance(double, double dt, StepTelemetry& telemetry) {
  const int substeps = model_->substeps;
  const mpm::SubstepCounters sums = device_->Advance(static_cast<float>(dt / substeps), substeps);
  host_current_ = false;
  telemetry.substeps = substeps;
  telemetry.pin_forces.clear();
  telemetry.active_nodes_avg = static_cast<double>(sums.active_nodes) / substeps;
  telemetry.active_blocks = sums.active_blocks;
  telemetry.sort_ms = 1e3 * sums.sort_seconds;
  telemetry.p2g_ms = 1e3 * sums.p2g_seconds;
  telemetry.grid_ms = 1e3 * sums.grid_seconds;
  telemetry.g2p_ms = 1e3 * sums.g2p_seconds;
  telemetry.g2p2g_ms = 1e3 * sums.g2p2g_seconds;
}

std::string DeviceMpmDomain::DescribeDivergence() const {
  if (!device_->diverged()) return {};
  SyncToHost();
  return mpm::DescribeDivergedParticle(*model_, state_->particles);
}

void DeviceMpmDomain::SetModel(const Model& model) {
  SyncToHost();
  model_ = &model;
  device_->SetModel(model);
  for (std::size_t i = 0; i < state_->particles.size(); ++i)
    state_->particles.mass[i] = model.mass[state_->particles.id[i]];
}

void DeviceMpmDomain::Reset() {
  *state_ = mpm::MpmState{};
  mpm::InitialParticles(*model_, state_->particles);
  Bind(*state_);
}

void DeviceMpmDomain::CaptureSnapshot(Snapshot& out, bool with_stress) const {
  SyncToHost();  // once per published frame
  mpm::CaptureParticles(*model_, state_->particles, out, with_stress);
}

}  // namespace ductile::backend
