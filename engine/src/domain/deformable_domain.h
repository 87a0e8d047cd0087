// A deformable domain: a solver of deformable material that a coupling scheme advances together with the rigid
// system (docs/architecture.md, "Domains and couplings"). MPM is the first (mpm/mpm_domain.h); FEM with IPC contact
// and cloth in MPM come next, each a folder of its own behind this interface. The stages are those the coupling
// schemes need: freeze the rigid geometry the domain's contacts see, advance (free motion and, per substep,
// contact registration and the contact solve, summing the impulses on the rigid bodies), report divergence, and
// draw (the snapshot).
#pragma once

#include <string>

#include "ductile/snapshot.h"
#include "ductile/telemetry.h"

namespace ductile {

struct Model;
struct RigidImpulses;
namespace contact {
class RigidSystem;
}

class DeformableDomain {
 public:
  virtual ~DeformableDomain() = default;

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
  /// Continues with `model`'s parameters (a live edit of the same scene structure).
  virtual void SetModel(const Model& model) = 0;
  /// Puts the model's initial state into the domain's state.
  virtual void Reset() = 0;
  /// The domain's part of a snapshot (particles for MPM), in a fixed order independent of storage.
  virtual void CaptureSnapshot(Snapshot& out, bool with_stress) const = 0;
};

}  // namespace ductile
