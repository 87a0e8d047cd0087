// What both coupling schemes record of a step (the rigid solve and the MPM contacts, into StepTelemetry) and the
// scene's constant body wrenches both apply before the rigid step.
#pragma once

#include "contact/rigid_system.h"
#include "coupling/mpm_rigid_contact.h"
#include "ductile/model.h"
#include "ductile/telemetry.h"

namespace ductile::coupling {

/// The rigid step's results: solver statistics and every rigid-rigid contact with its force.
void RecordRigidTelemetry(const contact::RigidSystem& rigid, const contact::RigidStepStats& r, StepTelemetry& t);
/// The MPM contact solves' statistics.
void RecordContactTelemetry(const mpm::MpmContactStats& c, StepTelemetry& t);
/// The scene's constant force and torque on bodies (RigidModel::body_wrenches), for the coming step.
void ApplyBodyWrenches(const Model& model, contact::RigidSystem& rigid);

}  // namespace ductile::coupling
