// The outer step as a table of contents (docs/architecture.md, "One step"): apply the inputs, advance the domains
// and the rigid system with the coupling scheme (freeze the rigid geometry, advance each domain with its contact
// solve, advance the rigid system with the gathered impulses), advance the clock, check the robots' contacts, record
// the telemetry, check for divergence.
#include "step/step.h"

#include <chrono>
#include <memory>
#include <string>

#include "ductile/simulator.h"
#include "step/inputs.h"
#include "step/robot_checks.h"

namespace ductile {
namespace {

// Time is time_base + (steps − steps_base)·Δt: exact multiples of the current Δt since it last changed.
void AdvanceClock(const Model& model, Clock& clock) {
  ++clock.steps;
  clock.time = clock.time_base + static_cast<double>(clock.steps - clock.steps_base) * model.dt;
}

// A rigid step that failed, or a domain's state that is no longer physical, ends the run with a message that says
// what to change (each domain words its own, DeformableDomain::DivergenceMessage).
void CheckDivergence(const Model& model, const State::Data& state, const Workspace& workspace) {
  const std::string at = "simulation diverged at t = " + std::to_string(state.clock.time) + " s: ";
  if (!workspace.rigid_failure.empty()) {
    throw SimulationDiverged(at + workspace.rigid_failure + "; lower simulation.dt or the contact stiffness");
  }
  for (const std::unique_ptr<DeformableDomain>& domain : workspace.domains)
    if (domain->diverged()) throw SimulationDiverged(at + domain->DivergenceMessage(model));
}

}  // namespace

void Step(const Model& model, State::Data& state, Workspace& workspace) {
  const auto start = std::chrono::steady_clock::now();
  workspace.rigid_failure.clear();
  ApplyInputs(model, state, workspace);
  CouplingStep coupled = workspace.Coupled();
  workspace.coupling->Advance(model, state, coupled);
  AdvanceClock(model, state.clock);
  if (workspace.rigid) CheckRobotContacts(model, state, *workspace.rigid, workspace.robot_forces, workspace.telemetry);
  workspace.telemetry.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  CheckDivergence(model, state, workspace);
}

}  // namespace ductile
