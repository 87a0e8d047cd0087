#include "coupling/weak_coupling.h"

#include <chrono>
#include <stdexcept>

#include "model/rigid_model.h"
#include "step/workspace.h"

namespace ductile {
namespace {

// The rigid step's results for the telemetry: solver statistics and every rigid-rigid contact with its force.
void RecordRigidTelemetry(const contact::RigidSystem& rigid, const contact::RigidStepStats& r, StepTelemetry& t) {
  t.sap_iterations = r.iterations;
  t.sap_residual = r.residual;
  t.sap_converged = r.converged;
  t.rigid_contacts = r.contacts;
  t.sap_cost_history = r.cost_history;
  t.contacts.clear();
  const auto name = [&](int body) { return body >= 0 ? rigid.tree().body(body).name : std::string("world"); };
  for (const contact::RigidContact& c : rigid.contacts()) {
    ContactReport report;
    report.body_a = name(c.body_a);
    report.body_b = name(c.body_b);
    report.depth = c.depth;
    for (int a = 0; a < 3; ++a) {
      report.point[a] = c.p_W[a];
      report.normal[a] = c.n_W[a];
      report.force[a] = c.f_W[a];
    }
    t.contacts.push_back(std::move(report));
  }
}

// The MPM contact solves' statistics for the telemetry.
void RecordContactTelemetry(const coupling::MpmContactStats& c, StepTelemetry& t) {
  t.mpm_contacts = c.contacts;
  t.mpm_contacts_max = c.max_contacts;
  t.mpm_contact_iterations = 0;
  for (int it : c.substep_iterations) t.mpm_contact_iterations += it;
  t.mpm_contact_residual = c.substep_residuals.empty() ? 0.0 : c.substep_residuals.back();
  t.mpm_contact_converged = c.converged;
  t.mpm_substep_iterations = c.substep_iterations;
  t.mpm_substep_residuals = c.substep_residuals;
}

}  // namespace

void WeakCoupling::Advance(const Model& model, State::Data& state, Workspace& workspace) {
  FreezeRigidGeometry(state, workspace);
  AdvanceDomains(model, state, workspace);
  if (workspace.rigid && model.num_particles > 0) RecordContactTelemetry(state.impulses.stats, workspace.telemetry);
  if (workspace.rigid && !workspace.mpm->diverged()) AdvanceRigid(model, state, workspace);
}

void WeakCoupling::FreezeRigidGeometry(State::Data& state, Workspace& workspace) {
  if (workspace.rigid) workspace.mpm->FreezeRigidGeometry(*workspace.rigid, state.impulses);
}

void WeakCoupling::AdvanceDomains(const Model& model, const State::Data& state, Workspace& workspace) {
  workspace.mpm->Advance(state.clock.time, model.dt, workspace.telemetry);
}

// The rigid step with the scene's constant body wrenches and the domains' contact impulses of this step.
void WeakCoupling::AdvanceRigid(const Model& model, State::Data& state, Workspace& workspace) {
  contact::RigidSystem& rigid = *workspace.rigid;
  StepTelemetry& telemetry = workspace.telemetry;
  const auto start = std::chrono::steady_clock::now();
  try {
    for (const RigidModel::BodyWrench& w : model.rigid->body_wrenches)
      rigid.ApplyBodyWrench(w.body, rigid.kinematics().X_WB[w.body].translation(), w.force, w.torque);
    const coupling::RigidImpulses& impulses = state.impulses;
    for (int b = 0; b < rigid.tree().num_bodies() && impulses.has(b); ++b) {
      const Eigen::Vector3d& P = impulses.linear[b];
      const Eigen::Vector3d& L = impulses.angular[b];
      if (P.isZero(0) && L.isZero(0)) continue;  // no particle touched it
      rigid.ApplyBodyImpulse(b, rigid.kinematics().X_WB[b].translation(), P, L);
    }
    RecordRigidTelemetry(rigid, rigid.Step(model.dt), telemetry);
  } catch (const std::runtime_error& e) {
    workspace.rigid_failure = e.what();
  }
  telemetry.rigid_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ductile
