// The robots' contacts after a step (docs/architecture.md, "Robot contact checks"): every contact between two links
// of one robot (a self-contact) and every link whose contact force exceeds its robot's link_force_limit, into the
// step's telemetry, with each robot's most loaded link.
#pragma once

#include <Eigen/Core>

#include "contact/rigid_system.h"
#include "ductile/model.h"
#include "ductile/telemetry.h"
#include "state/state_data.h"

namespace ductile {

/// The mean contact force [N] and its moment about the body origin [N·m] on tree body b over the last step, world:
/// the rigid step's contacts plus the MPM and IPC contact impulses divided by Δt (none before the first step).
void BodyContactWrench(const Model& model, const State::Data& state, const contact::RigidSystem& rigid, int b,
                       Eigen::Vector3d& f_W, Eigen::Vector3d& t_W);

/// Fills `telemetry.robot_alerts` and `telemetry.robot_loads` from the step just taken.
void CheckRobotContacts(const Model& model, const State::Data& state, const contact::RigidSystem& rigid,
                        StepTelemetry& telemetry);

}  // namespace ductile
