#include "coupling/weak_coupling.h"

#include <chrono>
#include <stdexcept>

#include "contact/rigid_system.h"
#include "coupling/coupling_telemetry.h"
#include "model/rigid_model.h"

namespace ductile {

void WeakCoupling::Advance(const Model& model, State::Data& state, CouplingStep& step) {
  FreezeRigidGeometry(state, step);
  AdvanceDomains(model, state, step);
  if (step.rigid && !step.AnyDiverged()) AdvanceRigid(model, state, step);
}

// The impulses are cleared for the step here, once for every domain; each domain's freeze then sums its own into them.
void WeakCoupling::FreezeRigidGeometry(State::Data& state, CouplingStep& step) {
  if (!step.rigid) return;
  const std::size_t bodies = static_cast<std::size_t>(step.rigid->tree().num_bodies());
  state.impulses.linear.assign(bodies, Eigen::Vector3d::Zero());
  state.impulses.angular.assign(bodies, Eigen::Vector3d::Zero());
  for (const std::unique_ptr<DeformableDomain>& domain : step.domains)
    domain->FreezeRigidGeometry(*step.rigid, state.impulses);
}

// In the registry's order; a domain that diverged ends the step's advance (the step reports it).
void WeakCoupling::AdvanceDomains(const Model& model, const State::Data& state, CouplingStep& step) {
  for (const std::unique_ptr<DeformableDomain>& domain : step.domains) {
    domain->Advance(state.clock.time, model.dt, step.telemetry);
    if (domain->diverged()) break;
  }
}

// The rigid step with the scene's constant body wrenches and the domains' contact impulses of this step.
void WeakCoupling::AdvanceRigid(const Model& model, State::Data& state, CouplingStep& step) {
  contact::RigidSystem& rigid = *step.rigid;
  StepTelemetry& telemetry = step.telemetry;
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
    step.rigid_failure = e.what();
  }
  telemetry.rigid_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ductile
