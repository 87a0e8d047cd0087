#include "backend/device_mpm_domain.h"

#include <functional>
#include <utility>

#include "coupling/mpm_rigid_contact.h"
#include "mpm/model_views.h"
#include "mpm/mpm_domain.h"
#include "mpm/mpm_solver.h"
#include "mpm/transfer_block.h"

namespace ductile::backend {
namespace {

// The device's particles and grid after a substep's grid update, copied to the host for the contact solve
// (coupling::MpmRigidContact), whose corrected node velocities go back to the device. Two copies per substep: the
// contact solve itself is not on the device yet (docs/architecture.md, "The device backend").
class HostContactGrid final : public coupling::ContactGrid {
 public:
  explicit HostContactGrid(const Model& model) : model_(&model) {
    origin_ = mpm::ToVec3f(model.grid_origin);
    inv_h_ = 1.0f / model.h;
    for (int a = 0; a < 3; ++a) {
      max_base_[a] = model.grid_nodes[a] - 3;
      dims_[a] = model.grid_nodes[a] / mpm::kBlockEdge + 2;  // as mpm::SparseGrid::Resize
    }
  }
  void Fetch(DeviceMpm& device) {
    device.Download(particles_);
    device.DownloadGrid(table_, nodes_);
  }
  void Send(DeviceMpm& device) const { device.UploadGridVelocities(nodes_); }

  const mpm::Particles& particles() const override { return particles_; }
  const Model& model() const override { return *model_; }
  std::size_t num_nodes() const override { return nodes_.size(); }
  int NodeIndex(int i, int j, int k) const override {
    const int bx = i / mpm::kBlockEdge, by = j / mpm::kBlockEdge, bz = k / mpm::kBlockEdge;
    if (i < 0 || j < 0 || k < 0 || bx >= dims_[0] || by >= dims_[1] || bz >= dims_[2]) return -1;
    const std::int32_t slot = table_[(static_cast<std::size_t>(bx) * dims_[1] + by) * dims_[2] + bz];
    if (slot < 0) return -1;
    return slot * mpm::kBlockNodes + mpm::NodeInBlock(i % mpm::kBlockEdge, j % mpm::kBlockEdge, k % mpm::kBlockEdge);
  }
  Float4& node(int index) override { return nodes_[static_cast<std::size_t>(index)]; }
  mpm::Stencil ParticleStencil(int p) const override {
    mpm::Stencil s;
    mpm::ComputeStencil(particles_.x[p], origin_, inv_h_, max_base_, s);
    return s;
  }

 private:
  const Model* model_;
  Vec3f origin_{};
  float inv_h_ = 0;
  int max_base_[3] = {0, 0, 0};
  int dims_[3] = {0, 0, 0};
  mpm::Particles particles_;
  std::vector<std::int32_t> table_;
  std::vector<Float4> nodes_;
};

}  // namespace

DeviceMpmDomain::DeviceMpmDomain(const Model& model, mpm::MpmState& state, std::unique_ptr<DeviceMpm> device)
    : model_(&model), state_(&state), device_(std::move(device)), contact_(mpm::MakeWeakContact(model)) {
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

void DeviceMpmDomain::FreezeRigidGeometry(const contact::RigidSystem& rigid, coupling::RigidImpulses& impulses) {
  if (!contact_) return;
  contact_->BeginStep(rigid, impulses);
  contact_this_step_ = true;
}

void DeviceMpmDomain::SolveContact(float dt) {
  if (!host_grid_) host_grid_ = std::make_unique<HostContactGrid>(*model_);
  auto& grid = static_cast<HostContactGrid&>(*host_grid_);
  grid.Fetch(*device_);
  contact_->SolveSubstep(grid, dt);
  grid.Send(*device_);
}

void DeviceMpmDomain::Advance(double, double dt, StepTelemetry& telemetry) {
  const int substeps = model_->substeps;
  std::function<void(float)> contact_solve;
  if (contact_this_step_) contact_solve = [this](float h) { SolveContact(h); };
  contact_this_step_ = false;
  const mpm::SubstepCounters sums = device_->Advance(static_cast<float>(dt / substeps), substeps, contact_solve);
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
  contact_ = mpm::MakeWeakContact(model);
  host_grid_.reset();
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
