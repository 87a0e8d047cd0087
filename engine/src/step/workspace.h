// What stepping a State needs besides the Model and the State: the deformable domains (a list built from the
// registry, state/domain_registry.h) and the rigid system, each working on its part of the State and owning only
// scratch memory; the coupling scheme, the thread arena, and the last step's telemetry.
// A Workspace is bound to one State object; after that State is overwritten (a restore), Bind re-reads it.
#pragma once

#include <tbb/task_arena.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/mpm_backend_domain.h"
#include "contact/rigid_system.h"
#include "coupling/coupling_scheme.h"
#include "domain/deformable_domain.h"
#include "ductile/model.h"
#include "ductile/snapshot.h"
#include "ductile/telemetry.h"
#include "state/state_data.h"
#include "step/robot_checks.h"

namespace ductile {

struct Workspace {
  /// Solvers for `model` working on `state`, which is reset to the model's initial state. Throws
  /// std::runtime_error when the model names a device backend that cannot start.
  Workspace(const Model& model, State::Data& state, int threads);

  /// Puts the model's initial state into the bound state (t = 0, no inputs).
  void Reset(const Model& model, State::Data& state);
  /// Works on `state` as it is (restored or copied in), recomputing what follows from it (rigid kinematics).
  void Bind(const Model& model, State::Data& state);
  /// Continues with `model`'s parameters; `state` carries over. Returns why the model's backend could not start
  /// (the device failed to take the state), in which case the CPU backend goes on; empty when it did. `before`, the
  /// model the state ran with (or null): a controller whose target the new model changes takes it now; the others
  /// keep the targets they run with (teleoperation's, a script's).
  std::string SetModel(const Model& model, State::Data& state, const Model* before = nullptr);

  /// The MPM domain (always in the list; it runs on the model's backend).
  backend::MpmBackendDomain& mpm() { return *mpm_; }
  const backend::MpmBackendDomain& mpm() const { return *mpm_; }
  /// The listed domain of class D, or null when the model has none.
  template <typename D>
  const D* Find() const {
    for (const std::unique_ptr<DeformableDomain>& d : domains)
      if (const D* found = dynamic_cast<const D*>(d.get())) return found;
    return nullptr;
  }
  /// What the coupling scheme advances and reports to: the domains, the rigid system, the telemetry, the failure.
  CouplingStep Coupled() { return {domains, rigid.get(), telemetry, rigid_failure}; }
  /// Brings every domain's part of the State up to date (a device backend's particles): call before reading it.
  void SyncToHost() const {
    for (const std::unique_ptr<DeformableDomain>& d : domains) d->SyncToHost();
  }

  int threads;
  tbb::task_arena arena;
  /// The deformable domains the model has, in the registry's order (state/domain_registry.h).
  std::vector<std::unique_ptr<DeformableDomain>> domains;
  std::unique_ptr<contact::RigidSystem> rigid;  ///< Null when the scene has no rigid bodies or robots.
  std::unique_ptr<CouplingScheme> coupling;
  CouplingKind coupling_kind = CouplingKind::kWeak;  ///< Which scheme `coupling` is.
  StepTelemetry telemetry;                           ///< Of the last step.
  RobotForceWindow robot_forces;                     ///< The robot links' last contact forces (robot_checks.h).
  std::string rigid_failure;                         ///< Why the last rigid step failed; empty when it did not.
  /// Snapshot meshes of the visual geometries (null for primitives), converted once.
  std::vector<std::shared_ptr<const SnapshotMesh>> visual_meshes;

 private:
  // The model's coupling scheme, kept when it is already the one (its scratch memory carries over).
  void ChooseCoupling(const Model& model);
  // A rigid system for `model` on `state.rigid`, or none.
  void MakeRigid(const Model& model, State::Data& state);
  // What Reset and the constructor put into the state besides the domains' parts: clock, inputs, impulses, the
  // rigid state; and the workspace's per-run records.
  void ResetShared(const Model& model, State::Data& state);

  backend::MpmBackendDomain* mpm_ = nullptr;  // in `domains`
};

/// The model's initial rigid state: q0, v0, its controllers and applied forces.
contact::RigidState InitialRigidState(const Model& model);

}  // namespace ductile
