// One outer step of a scene: Step(model, state, workspace) advances the State by the Model's Δt. Simulator
// (ductile/simulator.h) is the public front over it.
#pragma once

#include "ductile/model.h"
#include "state/state_data.h"
#include "step/workspace.h"

namespace ductile {

/// Advances `state` by model.dt with the solvers of `workspace` (bound to `state`). Throws SimulationDiverged
/// when the state stops being physical; the state is then left as it was after the failing stage.
void Step(const Model& model, State::Data& state, Workspace& workspace);

}  // namespace ductile
