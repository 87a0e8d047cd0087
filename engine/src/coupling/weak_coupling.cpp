#include "coupling/weak_coupling.h"

#include <chrono>
#include <stdexcept>

#include "coupling/coupling_telemetry.h"
#include "model/rigid_model.h"
#include "step/workspace.h"

namespace ductile {

void WeakCoupling::Advance(const Model& model, State::Data& state, Workspace& workspace) {
  FreezeRigidGeometry(state, workspace);
  AdvanceDomains(model, state, workspace);
  if (workspace.rigid && model.num_particles > 0)
    coupling::RecordContactTelemetry(state.impulses.stats, workspace.telemetry);
  if (workspace.rigid && !workspace.AnyDiverged()) AdvanceRigid(model, state, workspace);
}

// The impulses are cleared for the step here, once for every domain; each domain's freeze then sums its own into them.
void WeakCoupling::FreezeRigidGeometry(State::Data& state, Workspace& workspace) {
  if (!workspace.rigid) return;
  const std::size_t bodies = static_cast<std::size_t>(workspace.rigid->tree().num_bodies());
  state.impulses.linear.assign(bodies, Eigen::Vector3d::Zero());
  state.impulses.angular.assign(bodies, Eigen::Vector3d::Zero());
  state.impulses.stats = {};
  state.impulses.stats.body_contacts.assign(bodies, 0);
  for (const std::unique_ptr<DeformableDomain>& domain : workspace.domains)
    domain->FreezeRigidGeometry(*workspace.rigid, state.impulses);
}

// In the registry's order; a domain that diverged ends the step's advance (the step reports it).
void WeakCoupling::AdvanceDomains(const Model& model, const State::Data& state, Workspace& workspace) {
  for (const std::unique_ptr<DeformableDomain>& domain : workspace.domains) {
    domain->Advance(state.clock.time, model.dt, workspace.telemetry);
    if (domain->diverged()) break;
  }
}

// The rigid step with the scene's constant body wrenches and the domains' contact impulses of this step.
void WeakCoupling::AdvanceRigid(const Model& model, State::Data& state, Workspace& workspace) {
  contact::RigidSystem& rigid = *workspace.rigid;
  StepTelemetry& telemetry = workspace.telemetry;
  const auto start = std::chrono::steady_clock::now();
  try {
    coupling::ApplyBodyWrenches(model, rigid);
    const RigidImpulses& impulses = state.impulses;
    for (int b = 0; b < rigid.tree().num_bodies() && impulses.has(b); ++b) {
      const Eigen::Vector3d& P = impulses.linear[b];
      const Eigen::Vector3d& L = impulses.angular[b];
      if (P.isZero(0) && L.isZero(0)) continue;  // no particle touched it
      rigid.ApplyBodyImpulse(b, rigid.kinematics().X_WB[b].translation(), P, L);
    }
    coupling::RecordRigidTelemetry(rigid, rigid.Step(model.dt), telemetry);
  } catch (const std::runtime_error& e) {
    workspace.rigid_failure = e.what();
  }
  telemetry.rigid_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ductile
