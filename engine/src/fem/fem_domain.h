// The FEM–IPC domain (docs/architecture.md, "FEM with IPC contact"): the soft and affine bodies of Model::fem stepped
// by fem::IpcSystem, one implicit step per outer Δt. Coupled to the rigid system as the weak scheme couples MPM
// (Yu et al. 2025, Sec. IV-A): at the step's start every rigid geometry's pose X_WG and spatial velocity V are
// frozen, and it enters the IPC solve as a kinematic body that moves over the step to the pose its velocity reaches,
// X_WG(t + Δt) ≈ (exp(ω Δt) R_WG, p_WG + v_G Δt); the barrier and friction forces on it over the step, times Δt, are
// added to its rigid body's impulse (about the body origin at the step's start) for the rigid step (Eq. 3). Static
// planes are half-spaces. Works on the State's fem::IpcState.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/hash.h"
#include "domain/deformable_domain.h"
#include "fem/ipc_system.h"
#include "fem/soft_free_motion.h"

namespace ductile {
struct FemModel;
}

namespace ductile::fem {

class FemDomain final : public DeformableDomain {
 public:
  /// A domain of `model`'s soft and affine bodies (Model::fem, not empty) working on `state`, reset to t = 0.
  /// Both must outlive it (or the next SetModel or Bind).
  FemDomain(const Model& model, IpcState& state);

  /// Works on `state` from now on, as it is (a restored state of the same model). Throws std::invalid_argument
  /// when its sizes do not match the model.
  void Bind(IpcState& state);
  /// The last step's report.
  const IpcStepReport& report() const { return report_; }
  const IpcSystem& system() const { return system_; }

  void FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) override;
  void Advance(double time, double dt, StepTelemetry& telemetry) override;
  /// Soft and affine bodies are there (Model::fem not empty): the registry builds the domain then.
  static bool Present(const Model& model);
  /// Why a state of `before` cannot go on with `after` (the bodies, their meshes or pins changed), or empty.
  static std::string StructureChanged(const Model& before, const Model& after);
  /// What of `model` a saved IPC state belongs to (ModelFingerprint): the bodies' counts and mesh sizes.
  static void Fingerprint(const Model& model, Fnv1a64& hash);
  /// The bytes a State's FEM–IPC part holds (State::MemoryBytes).
  static std::size_t MemoryBytes(const IpcState& state);
  /// "S soft and A affine bodies", or empty without them (DescribeModel).
  static std::string Describe(const Model& model);
  /// What the FEM–IPC domain cannot run: under the strong coupling, affine bodies and more than one soft body (it
  /// couples one soft body's implicit step to the rigid bodies, without IPC between bodies).
  static DomainRefusal Refusal(const Model& model);
  /// A running simulation with soft bodies under the strong scheme goes back to the weak one only at a reset: the
  /// strong scheme's compliant contact leaves their surfaces touching the rigid geometry, which IPC's barrier cannot
  /// start from (a switch mid-grasp made the IPC step fail).
  static DomainRefusal SwitchRefusal(const Model& before, const Model& after);

  const char* name() const override { return "fem"; }
  bool diverged() const override { return !divergence_.empty(); }
  std::string DescribeDivergence() const override { return divergence_; }
  std::string DivergenceMessage(const Model& model) const override;
  std::string SetModel(const Model& model) override;
  void Reset() override;
  void CaptureSnapshot(Snapshot& out, bool with_stress) const override;
  /// Soft bodies, then affine bodies, in scene order. A soft body's centre of mass and velocity are its vertices'
  /// (lumped masses); an affine body's are its centre's, its orientation the rotation nearest its A, its kinetic
  /// energy ½ m‖ṗ‖² + ½ tr(Ȧ S Ȧᵀ), S its second moment.
  int num_bodies() const override;
  BodySummary SummarizeBody(int body) const override;
  /// The soft bodies join the strong scheme (fem/soft_free_motion.h) when the scene has no affine bodies: A and b
  /// filled here, their surface vertices the points the scheme searches for contacts (μ = ipc.friction).
  bool BuildStrongBlock(double dt, coupling::MpmRigidContact* frozen, StrongBlock& block) override;
  void ApplyStrongVelocities(double dt, const Eigen::VectorXd& v, StepTelemetry& telemetry) override;

 private:
  // The model's live parameters (settings, gravity, materials, stiffness) into the system.
  void ApplyParameters();

  const Model* model_;
  const FemModel* fem_;
  IpcState* state_;
  IpcSystem system_;
  SoftFreeMotion strong_;  // the soft bodies' free motion under the strong scheme
  IpcState initial_;       // the state at t = 0, which Reset restores (the system itself is built once)
  IpcStepReport report_;
  RigidImpulses* impulses_ = nullptr;     // set by FreezeRigidGeometry for the coming Advance
  std::vector<Eigen::Vector3d> origins_;  // rigid body origins at the step's start
  std::string divergence_;
  std::vector<std::shared_ptr<const std::vector<std::array<std::uint32_t, 3>>>> triangles_;  // per drawn body
};

}  // namespace ductile::fem
