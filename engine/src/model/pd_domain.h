// The projective-dynamics domain (docs/architecture.md, "Projective dynamics"): the soft bodies of Model::pd, each
// stepped by its pd::PdSolver, one implicit step per outer Δt. Coupled to the rigid system as the weak scheme couples
// MPM and FEM–IPC (Yu et al. 2025, Sec. IV-A): at the step's start every rigid geometry's pose and velocity are
// frozen, and for each vertex within reach of a geometry the geometry's surface there becomes a half-space of that
// vertex alone (its tangent plane at the nearest surface point, moving with the body's velocity at that point over
// the step: pd::PdHalfSpace::vertex, motion); the contact forces on those half-spaces, times Δt, are the rigid
// bodies' impulses (Eq. 3). The rigid world's static planes are half-spaces of every vertex. Works on the State's
// pd::PdDomainState.
//
// The class reads the Model, so it sits at the model level (the solver, engine/src/pd/, stays below it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/hash.h"
#include "coupling/mpm_rigid_contact.h"
#include "domain/deformable_domain.h"
#include "pd/pd_solver.h"

namespace ductile {

struct PdBodiesModel;

class PdDomain final : public DeformableDomain {
 public:
  /// A domain of `model`'s pd bodies (Model::pd, not empty) working on `state`, reset to t = 0. Both must outlive it
  /// (or the next SetModel or Bind). Throws std::invalid_argument when a body's global matrix cannot be factorised.
  PdDomain(const Model& model, pd::PdDomainState& state);

  /// Works on `state` from now on, as it is (a restored state of the same model). Throws std::invalid_argument when
  /// its sizes do not match the model.
  void Bind(pd::PdDomainState& state);
  /// The last step's report of body `b`.
  const pd::PdStepReport& report(int b) const { return reports_[static_cast<std::size_t>(b)]; }
  const pd::PdSolver& solver(int b) const { return *solvers_[static_cast<std::size_t>(b)]; }

  /// The scene has pd bodies: the registry builds the domain then.
  static bool Present(const Model& model);
  /// Why a state of `before` cannot go on with `after` (the bodies, meshes, pins or planes changed), or empty.
  static std::string StructureChanged(const Model& before, const Model& after);
  /// What of `model` a saved state belongs to (ModelFingerprint): the bodies' counts and mesh sizes.
  static void Fingerprint(const Model& model, Fnv1a64& hash);
  static std::size_t MemoryBytes(const pd::PdDomainState& state);
  /// "P pd bodies", or empty without them (DescribeModel).
  static std::string Describe(const Model& model);
  /// What the domain cannot run: the strong coupling (it has no block for the strong scheme's one convex problem).
  static DomainRefusal Refusal(const Model& model);
  static DomainRefusal SwitchRefusal(const Model& before, const Model& after);

  const char* name() const override { return "pd"; }
  void FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) override;
  void Advance(double time, double dt, StepTelemetry& telemetry) override;
  bool diverged() const override { return !divergence_.empty(); }
  std::string DescribeDivergence() const override { return divergence_; }
  std::string DivergenceMessage(const Model& model) const override;
  std::string SetModel(const Model& model) override;
  void Reset() override;
  /// The bodies in scene order: centre of mass, velocity and kinetic energy of their vertices (lumped masses).
  int num_bodies() const override;
  BodySummary SummarizeBody(int body) const override;
  void CaptureSnapshot(Snapshot& out, bool with_stress) const override;

 private:
  // The model's live parameters (materials, Δt, gravity) into the solvers.
  void ApplyParameters();
  // Body b's obstacles for the coming step of dt [s]: the static planes, then its vertices' planes on the frozen
  // geometry (with their rigid bodies in rigid_planes_[b]). Sets divergence_ when the solver refuses them.
  void SetObstacles(std::size_t b, double dt);

  const Model* model_;
  const PdBodiesModel* pd_;
  pd::PdDomainState* state_;
  std::vector<std::unique_ptr<pd::PdSolver>> solvers_;
  std::vector<pd::PdStepReport> reports_;
  std::unique_ptr<coupling::MpmRigidContact> frozen_;  // the step's frozen rigid geometry (FreezeRigidGeometry)
  bool frozen_this_step_ = false;
  std::vector<std::vector<int>> rigid_planes_;  // per body, per obstacle after the static planes: its rigid body
  RigidImpulses* impulses_ = nullptr;           // set by FreezeRigidGeometry for the coming Advance
  std::string divergence_;
  std::vector<std::shared_ptr<const std::vector<std::array<std::uint32_t, 3>>>> triangles_;  // per body
};

}  // namespace ductile
