// The telemetry both coupling schemes record, and the constant body wrenches both apply (coupling_telemetry.h).
#include "coupling/coupling_telemetry.h"

#include "model/rigid_model.h"

namespace ductile::coupling {

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
void RecordContactTelemetry(const mpm::MpmContactStats& c, StepTelemetry& t) {
  t.mpm_contacts = c.contacts;
  t.mpm_contacts_max = c.max_contacts;
  t.mpm_contact_iterations = 0;
  for (int it : c.substep_iterations) t.mpm_contact_iterations += it;
  t.mpm_contact_residual = c.substep_residuals.empty() ? 0.0 : c.substep_residuals.back();
  t.mpm_contact_converged = c.converged;
  t.mpm_substep_iterations = c.substep_iterations;
  t.mpm_substep_residuals = c.substep_residuals;
}

void ApplyBodyWrenches(const Model& model, contact::RigidSystem& rigid) {
  for (const RigidModel::BodyWrench& w : model.rigid->body_wrenches)
    rigid.ApplyBodyWrench(w.body, rigid.kinematics().X_WB[w.body].translation(), w.force, w.torque);
}

}  // namespace ductile::coupling
