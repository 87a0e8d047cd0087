// The MPM domain on the device backend (backend/device_mpm.h): the same stages as mpm::MpmDomain for a coupling
// scheme, with the particles resident on the device. The State's MpmState is its host copy: refreshed from the
// device on demand (SyncToHost: a snapshot, a saved state, a query), not per step; uploaded again when the State
// is replaced (Bind) or edited between steps (the mouse spring's velocities). Its transfer cache is voided when it
// is refreshed, so the CPU backend can continue from it (a live switch of backend).
#pragma once

#include <tbb/task_arena.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/device_mpm.h"
#include "coupling/mpm_rigid_contact.h"
#include "domain/deformable_domain.h"
#include "mpm/mpm_state.h"

namespace ductile::backend {

class DeviceMpmDomain final : public DeformableDomain {
 public:
  /// A domain of `model` on `device`, continuing from `state` as it is (a State at any time), its host work (the
  /// emulated backend's launches, the contact solve's host parts) on the threads of `arena`. `model`, `state` and
  /// `arena` must outlive it (or the next SetModel or Bind).
  DeviceMpmDomain(const Model& model, mpm::MpmState& state, std::unique_ptr<DeviceMpm> device, tbb::task_arena& arena);

  /// Works on `state` from now on, as it is: uploads it.
  void Bind(mpm::MpmState& state);
  /// Brings the host copy up to date with the device (nothing to do when it is).
  void SyncToHost() const override;
  /// After the host copy's velocities were edited between steps (SyncToHost first): uploads them.
  void UploadVelocities();
  const char* backend_name() const { return device_->name(); }

  const char* name() const override { return "mpm"; }
  void FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) override;
  void Advance(double time, double dt, StepTelemetry& telemetry) override;
  bool diverged() const override { return device_->diverged() || !failure_.empty(); }
  /// Why the device failed in the last Advance (a CUDA error: out of memory, a failed launch), or empty. The state
  /// on the device is then lost; the step reports it as a divergence.
  const std::string& failure() const { return failure_; }
  std::string DescribeDivergence() const override;
  std::string DivergenceMessage(const Model& model) const override;
  std::string SetModel(const Model& model) override;
  void Reset() override;
  int num_bodies() const override;
  BodySummary SummarizeBody(int body) const override;
  void CaptureSnapshot(Snapshot& out, bool with_stress) const override;

 private:
  // The weak coupling's contact for the model, and the cloth objects' triangles for snapshots.
  void ConfigureModel();
  // The step's frozen geometry to the device (and the meshes' fields when they changed).
  void UploadContactStep();
  // The contact solve of one substep on the device (DeviceMpm::SolveContact), its results into the step's sums.
  void SolveContact(float dt);

  const Model* model_;
  mpm::MpmState* state_;
  std::unique_ptr<DeviceMpm> device_;
  tbb::task_arena* arena_;
  std::unique_ptr<coupling::MpmRigidContact> contact_;   // when the scene has rigid geometry and particles
  bool contact_this_step_ = false;                       // FreezeRigidGeometry was called for the coming Advance
  std::vector<SnapshotCloth> cloths_;                    // mpm::ClothSnapshots of the model
  std::vector<const geometry::MeshSdf*> uploaded_sdfs_;  // the meshes whose fields the device holds
  mutable bool host_current_ = true;                     // the host copy holds the device's state
  std::string failure_;                                  // why the device failed, or empty
};

}  // namespace ductile::backend
