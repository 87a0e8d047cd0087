// The outer step as a table of contents (docs/architecture.md, "One step"): apply the inputs, advance the domains
// and the rigid system with the coupling scheme (freeze the rigid geometry, advance each domain with its contact
// solve, advance the rigid system with the gathered impulses), advance the clock, check the robots' contacts, record
// the telemetry, check for divergence.
#include "step/step.h"

#include <chrono>
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

// A rigid step that failed, or an MPM state that is no longer physical, ends the run with a message that says
// what to change.
void CheckDivergence(const Model& model, const State::Data& state, const Workspace& workspace) {
  const std::string at = "simulation diverged at t = " + std::to_string(state.clock.time) + " s: ";
  if (!workspace.rigid_failure.empty()) {
    throw SimulationDiverged(at + workspace.rigid_failure + "; lower simulation.dt or the contact stiffness");
  }
  if (workspace.device && !workspace.device->failure().empty()) {
    throw SimulationDiverged(at + workspace.device->failure() +
                             "; its particles are lost: switch simulation.backend to cpu and reset or load a state");
  }
  if (workspace.fem && workspace.fem->diverged()) {
    throw SimulationDiverged(at + workspace.fem->DescribeDivergence() +
                             "; lower simulation.dt or the soft bodies' stiffness, or raise ipc.dhat");
  }
  if (workspace.domain().diverged() && model.coupling == CouplingKind::kStrong) {
    throw SimulationDiverged(at +
                             "a particle's state is not finite after the strong coupling's implicit step; lower "
                             "simulation.dt or simulation.strong_tolerance");
  }
  if (workspace.domain().diverged()) {
    const std::string hint = ImplicitClothHint(model);
    throw SimulationDiverged(at + workspace.domain().DescribeDivergence() +
                             "; the substep Δt/N is likely too large for the material stiffness or speed (raise "
                             "simulation.substeps, recommended ≥ " +
                             std::to_string(model.RecommendedSubsteps()) + (hint.empty() ? "" : ", " + hint) + ")");
  }
}

}  // namespace

void Step(const Model& model, State::Data& state, Workspace& workspace) {
  const auto start = std::chrono::steady_clock::now();
  workspace.rigid_failure.clear();
  ApplyInputs(model, state, workspace);
  workspace.coupling->Advance(model, state, workspace);
  AdvanceClock(model, state.clock);
  if (workspace.rigid) CheckRobotContacts(model, state, *workspace.rigid, workspace.robot_forces, workspace.telemetry);
  workspace.telemetry.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  CheckDivergence(model, state, workspace);
}

}  // namespace ductile
