// A PD controller of one joint dof, split by who changes what (issue 46): the Model holds its joint and gains
// (JointController, RigidModel::controllers: a live edit changes them), the State what it tracks now (JointTarget,
// RigidState::targets, same order: teleoperation, robot scripts and Simulator::SetJointTarget move it). The rigid
// step combines the two into the implicit PD constraint (constraints/pd_controller.h). Plain data.
#pragma once

#include <vector>

namespace ductile::contact {

/// What a controller tracks and pushes with now.
struct JointTarget {
  double q_target = 0;     ///< [rad or m].
  double v_target = 0;     ///< [rad/s or m/s].
  double feedforward = 0;  ///< [N·m or N].
  /// A squeeze (a gripper's closing force, robot::GripperTeleop): the position gain is off and K_d is `squeeze_kd`,
  /// so the controller pushes with `feedforward`, damped, wherever the joint stops.
  bool squeeze = false;
  double squeeze_kd = 0;  ///< [N·m·s/rad or N·s/m] while `squeeze`.

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(q_target, v_target, feedforward, squeeze, squeeze_kd);
  }
};

/// A PD controller as the model defines it: the 1-dof joint it drives, its gains, and its targets at t = 0.
struct JointController {
  int body = -1;        ///< Body whose (1-dof) joint is driven.
  double kp = 0;        ///< [N·m/rad or N/m], ≥ 0.
  double kd = 0;        ///< [N·m·s/rad or N·s/m], ≥ 0.
  JointTarget initial;  ///< The scene's target and feed-forward effort.

  /// The gains the rigid step applies under `target` (a squeeze replaces them).
  double Kp(const JointTarget& target) const { return target.squeeze ? 0.0 : kp; }
  double Kd(const JointTarget& target) const { return target.squeeze ? target.squeeze_kd : kd; }
};

/// The controllers' targets at t = 0 (RigidState::targets of an initial state), in their order.
inline std::vector<JointTarget> InitialTargets(const std::vector<JointController>& controllers) {
  std::vector<JointTarget> targets;
  targets.reserve(controllers.size());
  for (const JointController& c : controllers) targets.push_back(c.initial);
  return targets;
}

}  // namespace ductile::contact
