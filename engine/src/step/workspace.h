// What stepping a State needs besides the Model and the State: the solvers (each working on its part of the
// State and owning only scratch memory), the coupling scheme, the thread arena, and the last step's telemetry.
// A Workspace is bound to one State object; after that State is overwritten (a restore), Bind re-reads it.
#pragma once

#include <tbb/task_arena.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/device_mpm_domain.h"
#include "contact/rigid_system.h"
#include "coupling/coupling_scheme.h"
#include "ductile/model.h"
#include "ductile/snapshot.h"
#include "ductile/telemetry.h"
#include "fem/fem_domain.h"
#include "mpm/mpm_domain.h"
#include "state/state_data.h"
#include "step/robot_checks.h"

namespace ductile {

struct Workspace {
  /// Solvers for `model` working on `state`, which is reset to the model's initial state.
  Workspace(const Model& model, State::Data& state, int threads);

  /// Puts the model's initial state into the bound state (t = 0, no inputs).
  void Reset(const Model& model, State::Data& state);
  /// Works on `state` as it is (restored or copied in), recomputing what follows from it (rigid kinematics).
  void Bind(const Model& model, State::Data& state);
  /// Continues with `model`'s parameters; `state` carries over. Returns why the model's backend could not start
  /// (the device failed to take the state), in which case the CPU backend goes on; empty when it did.
  std::string SetModel(const Model& model, State::Data& state);

  /// The MPM domain that steps: the device backend's when the model runs on one, else the CPU backend's.
  DeformableDomain& domain() { return device ? static_cast<DeformableDomain&>(*device) : *mpm; }
  const DeformableDomain& domain() const { return device ? static_cast<const DeformableDomain&>(*device) : *mpm; }
  /// Brings the State's particles up to date with the device backend (nothing to do on the CPU backend): call
  /// before reading them.
  void SyncToHost() const {
    if (device) device->SyncToHost();
  }

  int threads;
  tbb::task_arena arena;
  /// The CPU backend's domain, always there: the strong scheme, the mouse spring and a switch back to the CPU use
  /// its solver.
  std::unique_ptr<mpm::MpmDomain> mpm;
  /// The device backend's domain when the model runs on one (backend/device_mpm_domain.h), else null.
  std::unique_ptr<backend::DeviceMpmDomain> device;
  /// The FEM–IPC domain of the soft and affine bodies (fem/fem_domain.h); null when the scene has none.
  std::unique_ptr<fem::FemDomain> fem;
  BackendKind backend = BackendKind::kCpu;      ///< Which backend steps the MPM domain (simulation.backend resolved).
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
  // The model's backend (simulation.backend resolved); a switch carries the state over through the host copy.
  // Returns why the device backend could not start (the CPU backend then goes on), or empty.
  std::string ChooseBackend(const Model& model, State::Data& state);
  // A rigid system for `model` on `state.rigid`, or none.
  void MakeRigid(const Model& model, State::Data& state);
};

/// The model's initial rigid state: q0, v0, its controllers and applied forces.
contact::RigidState InitialRigidState(const Model& model);

}  // namespace ductile
