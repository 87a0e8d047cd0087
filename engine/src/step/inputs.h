// The inputs that act on every step until changed (teleoperation, the mouse spring): applying them before a step,
// and grabbing with the mouse spring.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ductile/model.h"
#include "state/state_data.h"
#include "step/workspace.h"

namespace ductile {

/// Applies the mouse spring (a wrench on the grabbed body for this step, or velocity changes of the grabbed
/// particles) and the teleoperation targets (IK to the arms' controllers, the gripper commands).
void ApplyInputs(const Model& model, State::Data& state, Workspace& workspace);

/// Starts, moves or ends the mouse spring (Simulator::SetPerturbation).
void SetPerturbation(const Model& model, const Perturbation& perturbation, State::Data& state,
                     const Workspace& workspace);

/// The grabbed point now [m], world, and whether the spring is active (Simulator::PerturbationAnchor).
bool PerturbationAnchor(const Model& model, const State::Data& state, const Workspace& workspace,
                        Eigen::Vector3d& anchor);

}  // namespace ductile
