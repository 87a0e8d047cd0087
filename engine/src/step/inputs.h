// The inputs that act on every step until changed (teleoperation, the mouse spring): applying them before a step,
// and grabbing with the mouse spring.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/simulator.h"
#include "state/state_data.h"
#include "step/workspace.h"

namespace ductile {

/// Applies the mouse spring (a wrench on the grabbed body for this step, or velocity changes of the grabbed
/// particles), the robots' scene scripts (their teleoperation targets at the step's end, unless a person took
/// over) and the teleoperation targets (IK to the arms' controllers, the gripper commands).
void ApplyInputs(const Model& model, State::Data& state, Workspace& workspace);

/// The teleoperation entry of `robot`, made when it has none.
RobotTeleop& TeleopOf(InputState& inputs, const std::string& robot);

/// Starts or moves the teleoperation target of an arm (Simulator::SetTeleopTarget). Returns an error message, empty
/// on success; on error nothing changes. Returns the robot's entry in `entry` on success.
std::string SetArmTarget(const TeleopTarget& target, State::Data& state, const Workspace& workspace,
                         RobotTeleop** entry = nullptr);

/// Opens, closes or squeezes a robot's gripper (Simulator::SetGripper); same contract as SetArmTarget.
std::string SetGripperCommand(const GripperCommand& command, State::Data& state, const Workspace& workspace,
                              RobotTeleop** entry = nullptr);

/// Starts, moves or ends the mouse spring (Simulator::SetPerturbation).
void SetPerturbation(const Model& model, const Perturbation& perturbation, State::Data& state,
                     const Workspace& workspace);

/// The grabbed point now [m], world, and whether the spring is active (Simulator::PerturbationAnchor).
bool PerturbationAnchor(const Model& model, const State::Data& state, const Workspace& workspace,
                        Eigen::Vector3d& anchor);

}  // namespace ductile
