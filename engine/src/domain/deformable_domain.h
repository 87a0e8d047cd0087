// A deformable domain: a solver of deformable material that a coupling scheme advances together with the rigid
// system (docs/architecture.md, "Domains and couplings"). The Workspace holds a list of them, built from the
// registry (state/domain_registry.h): MPM on its backend (backend/mpm_backend_domain.h) and FEM-IPC
// (fem/fem_domain.h). The stages are those the coupling schemes need: freeze the rigid geometry the domain's
// contacts see, advance (free motion and, per substep, contact registration and the contact solve, summing the
// impulses on the rigid bodies), report divergence with what to change, and draw (the snapshot); and those the
// engine loops over the list for: live edits, reset, bringing a device's state to the host.
#pragma once

#include <string>

#include "domain/strong_block.h"
#include "ductile/body_summary.h"
#include "ductile/snapshot.h"
#include "ductile/telemetry.h"

namespace ductile {

struct Model;
struct RigidImpulses;
namespace contact {
class RigidSystem;
}
namespace coupling {
class MpmRigidContact;  // the frozen rigid geometry's contact queries
}

/// Why a domain cannot run a model as it is set (a capability it lacks: a coupling scheme, a backend), or cannot take
/// a setting live; each domain kind declares its own (state/domain_registry.h: `refusal`, `switch_refusal`). Empty
/// `why`: no refusal.
struct DomainRefusal {
  std::string key;     ///< The parameter whose value the domain refuses: "simulation.coupling".
  std::string value;   ///< That value's name: "strong", "cuda".
  std::string why;     ///< "the strong coupling takes no colliders (collider 'bowl'): make it a static rigid body".
  bool reset = false;  ///< The value is fine after a reset (a switch a running state cannot make).
  explicit operator bool() const { return !why.empty(); }
};

class DeformableDomain {
 public:
  virtual ~DeformableDomain() = default;

  /// The domain kind's name in the registry ("mpm", "fem").
  virtual const char* name() const = 0;

  /// Freezes the poses and velocities of the rigid geometry at the step's start for this step's contacts (the
  /// asynchronous splitting of Yu et al. 2025, Sec. IV-A); Advance sums the contact impulses on each body into
  /// `impulses`, which the coupling scheme cleared for the step. Not called when the scene has no rigid bodies.
  virtual void FreezeRigidGeometry(const contact::RigidSystem& rigid, RigidImpulses& impulses) = 0;
  /// Advances the domain's state by one outer step of `dt` [s] from simulated time `time` [s] (what moves on a
  /// schedule, such as pinned cloth vertices, follows it), with the contact solve against the frozen geometry when
  /// FreezeRigidGeometry was called for this step. Adds the step's counters to `telemetry`.
  virtual void Advance(double time, double dt, StepTelemetry& telemetry) = 0;
  /// Whether the last Advance stopped on a non-physical state, and a description of where.
  virtual bool diverged() const = 0;
  virtual std::string DescribeDivergence() const = 0;
  /// The message a diverged step ends the run with (after "simulation diverged at t = ... s: "): what happened,
  /// where, and which of `model`'s parameters to change.
  virtual std::string DivergenceMessage(const Model& model) const = 0;
  /// Continues with `model`'s parameters (a live edit of the same scene structure). Returns what of it the domain
  /// could not take while it goes on (the MPM domain's device backend failed to start: the CPU backend steps), or
  /// empty.
  virtual std::string SetModel(const Model& model) = 0;
  /// Puts the model's initial state into the domain's state.
  virtual void Reset() = 0;
  /// Its bodies (MPM objects, soft and affine bodies), in scene order, and where each is now.
  virtual int num_bodies() const = 0;
  virtual BodySummary SummarizeBody(int body) const = 0;
  /// The domain's part of a snapshot (particles for MPM), in a fixed order independent of storage.
  virtual void CaptureSnapshot(Snapshot& out, bool with_stress) const = 0;
  /// Joins the strong scheme's step of `dt` [s] (coupling/strong_coupling.h): fills `block` with the domain's held
  /// dofs, velocities at the step's start and contacts, found against `frozen` (the step's frozen rigid geometry;
  /// null when the scene has no rigid bodies) and its own walls, or as points for the scheme to search. Returns false
  /// when the domain does not join it (its state then stays as it is for the step).
  virtual bool BuildStrongBlock(double /*dt*/, coupling::MpmRigidContact* /*frozen*/, StrongBlock& /*block*/) {
    return false;
  }
  /// Fills the block's A and b where BuildStrongBlock did not; the scheme calls it for a block with contacts. Until
  /// then they hold what the block last held (the scheme keeps blocks from step to step for their storage), so a
  /// domain that fills them here also overrides SolveStrongFreeMotion, which a block without contacts gets instead.
  virtual void AssembleStrongSystem(StrongBlock& /*block*/) {}
  /// The block's free motion when no contact touches it: by default A v = b by a sparse LDLᵀ.
  virtual Eigen::VectorXd SolveStrongFreeMotion(const StrongBlock& block) { return SolveFreeMotion(block); }
  /// Ends the strong step: the dofs' solved velocities `v` over `dt` [s] (the block's order) move the domain; adds
  /// its counters to `telemetry`.
  virtual void ApplyStrongVelocities(double /*dt*/, const Eigen::VectorXd& /*v*/, StepTelemetry& /*telemetry*/) {}
  /// Brings the domain's part of the State up to date where another memory holds it (a device); call before
  /// reading or saving the State.
  virtual void SyncToHost() const {}
};

}  // namespace ductile
