// The MPM domain (docs/architecture.md, "One MPM substep"): N explicit MLS-MPM substeps per outer step, each with
// the MPM-rigid contact solve between its grid update and G2P when the scene has rigid geometry (Yu et al. 2025,
// Sec. IV and V). It works on the State's MpmState and owns the solver's scratch memory and the contact solver.
#pragma once

#include <tbb/task_arena.h>

#include <memory>

#include "core/hash.h"
#include "coupling/mpm_rigid_contact.h"
#include "domain/deformable_domain.h"
#include "mpm/implicit_free_motion.h"
#include "mpm/mpm_solver.h"

namespace ductile::mpm {

/// A step's MPM counters summed over its substeps into the step's telemetry (substeps, nodes, phase times).
void RecordSubstepTelemetry(const SubstepCounters& sums, int substeps, StepTelemetry& telemetry);

/// The particles' part of a snapshot (positions, velocities, von Mises stress when `with_stress`, ...), by id.
void CaptureParticles(const Model& model, const Particles& particles, Snapshot& out, bool with_stress);
/// Each cloth object's triangles, for a snapshot (its vertices are the object's particles, numbered from its first).
std::vector<SnapshotCloth> ClothSnapshots(const Model& model);

/// The weak coupling's MPM-rigid contact for `model` (its settings and the surfaces round elastic objects carry),
/// or null when the scene has no rigid geometry or no particles.
std::unique_ptr<coupling::MpmRigidContact> MakeWeakContact(const Model& model);

/// MPM object `object`'s particles summed (in id order, so the result does not depend on the block sort).
BodySummary SummarizeObject(const Model& model, const Particles& particles, int object);

/// The message a diverged MPM step ends the run with, after `what` happened (MpmSolver::DescribeDivergence): what of
/// `model` to change (more substeps, or the strong coupling's Δt and tolerance).
std::string MpmDivergenceMessage(const Model& model, const std::string& what);

/// A particle's contact in the strong scheme's step before its stencil is known: where it touches what, and whether
/// at a point of its object's surface (MpmDomain::BuildStrongBlock).
struct ParticleTouch {
  int particle = -1;
  StrongContact contact;
  bool on_surface = false;
};

class MpmDomain final : public DeformableDomain {
 public:
  /// A domain of `model` working on `state` (reset to the model's initial particles) with the threads of `arena`.
  /// All three must outlive it (or the next SetModel or Bind).
  MpmDomain(const Model& model, MpmState& state, tbb::task_arena& arena);

  /// Works on `state` from now on, as it is (a restored state of the same model).
  void Bind(MpmState& state) { solver_.Bind(state); }
  /// Whether the last substep of a step also does the next step's first P2G (MpmSolver::set_prepare_next_step).
  void set_prepare_next_step(bool on) { solver_.set_prepare_next_step(on); }
  MpmSolver& solver() { return solver_; }
  const MpmSolver& solver() const { return solver_; }

  /// Why a state of `before` cannot go on with `after` (the particles, grid or materials' models changed), or empty.
  static std::string StructureChanged(const Model& before, const Model& after);
  /// What of `model` a saved MPM state belongs to (ModelFingerprint, state/state_format.h): the particles' initial
  /// positions, materials and objects, the grid, the material models and the cloth triangles.
  static void Fingerprint(const Model& model, Fnv1a64& hash);
  /// The bytes a State's MPM part holds (State::MemoryBytes).
  static std::size_t MemoryBytes(const MpmState& state);
  /// "N particles in M objects" (DescribeModel).
  static std::string Describe(const Model& model);

  const char* name() const override { return "mpm"; }
  void FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) override;
  void Advance(double time, double dt, StepTelemetry& telemetry) override;
  bool diverged() const override { return solver_.diverged(); }
  std::string DescribeDivergence() const override { return solver_.DescribeDivergence(); }
  std::string DivergenceMessage(const Model& model) const override {
    return MpmDivergenceMessage(model, DescribeDivergence());
  }
  std::string SetModel(const Model& model) override;
  void Reset() override;
  int num_bodies() const override;
  BodySummary SummarizeBody(int body) const override { return SummarizeObject(*model_, solver_.particles(), body); }
  void CaptureSnapshot(Snapshot& out, bool with_stress) const override;
  /// Joins the strong scheme with its particles when it has any (coupling/strong_coupling.h, 1, 2 and 4; Zong et al.
  /// 2024, Sec. IV): P2G of the implicit step's free motion (mpm/implicit_free_motion.h), its dofs the active grid
  /// nodes' velocities; its contacts the particles near the frozen rigid geometry and the unilateral walls, each
  /// interpolated from its particle's 27 stencil nodes (on its object's surface where it carries one).
  bool BuildStrongBlock(double dt, coupling::MpmRigidContact* frozen, StrongBlock& block) override;
  /// The implicit step's Hessian and right-hand side, walls' nodes held.
  void AssembleStrongSystem(StrongBlock& block) override;
  /// Without contacts: one Newton step of the free motion by preconditioned conjugate gradients.
  Eigen::VectorXd SolveStrongFreeMotion(const StrongBlock& block) override;
  /// G2P with the solved grid velocities, and the return map.
  void ApplyStrongVelocities(double dt, const Eigen::VectorXd& v, StepTelemetry& telemetry) override;

 private:
  // The contact solver, when the scene has rigid geometry and particles.
  void ConfigureContact();

  const Model* model_;
  tbb::task_arena* arena_;
  MpmSolver solver_;
  std::unique_ptr<coupling::MpmRigidContact> contact_;
  bool contact_this_step_ = false;     // FreezeRigidGeometry was called for the coming Advance
  std::vector<SnapshotCloth> cloths_;  // ClothSnapshots of the model
  // The strong scheme's step: its particles in double precision, its free motion, and what it takes from the model
  // at the first strong step after SetModel (the surfaces round elastic objects carry for contact, the materials as
  // the implicit step reads them).
  ImplicitParticles strong_particles_;
  ImplicitFreeMotion strong_;
  std::unique_ptr<const coupling::ObjectSurfaces> surfaces_;
  std::vector<ImplicitMaterial> strong_materials_;
  // Its contact search's scratch, kept from step to step: per particle its contact radius and reach, and the
  // contacts found.
  std::vector<double> strong_radius_, strong_reach_;
  std::vector<ParticleTouch> strong_touches_;
};

}  // namespace ductile::mpm
