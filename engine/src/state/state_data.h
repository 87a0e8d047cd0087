// The contents of a State (engine/include/ductile/state.h), grouped by who changes them: the clock, each domain
// (MPM, FEM–IPC, projective dynamics), the rigid system, the coupling's impulses of the last step, and the inputs that
// act on every step (teleoperation, the mouse spring). Every field lists itself in a Serialize member, which
// state_file.cpp writes and reads.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "contact/rigid_state.h"
#include "domain/rigid_impulses.h"
#include "ductile/inputs.h"
#include "ductile/state.h"
#include "fem/ipc_system.h"
#include "mpm/mpm_state.h"
#include "pd/pd_model.h"
#include "robot/teleop.h"

namespace ductile {

/// Simulated time. It is time_base + (steps − steps_base)·Δt: exact multiples of the current Δt since Δt last
/// changed (a live edit), so that a long run does not accumulate the round-off of repeated additions.
struct Clock {
  double time = 0;         ///< [s].
  std::int64_t steps = 0;  ///< Steps since the last reset.
  double time_base = 0;    ///< [s].
  std::int64_t steps_base = 0;

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(time, steps, time_base, steps_base);
  }
};

/// Teleoperation of one robot (Simulator::SetTeleopTarget, SetGripper), applied to its controllers before each
/// step.
struct RobotTeleop {
  std::string robot;
  robot::ArmTeleop arm;
  bool arm_active = false;
  robot::GripperTeleop gripper;
  bool gripper_active = false;
  /// A person or program teleoperated this robot (Simulator::SetTeleopTarget, SetGripper, ClearTeleopTarget): its
  /// scene script (RobotScript) no longer drives it, until Reset.
  bool manual = false;

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(robot, arm, arm_active, gripper, gripper_active, manual);
  }
};

/// The mouse spring (Simulator::SetPerturbation) and what it grabbed: a point fixed in a body, or particles by id
/// with their weights (1 at the grabbed point, falling to 0 at the patch's edge).
struct PerturbationState {
  Perturbation spec;
  Eigen::Vector3d p_B = Eigen::Vector3d::Zero();  ///< The grabbed point in the body frame [m].
  std::vector<std::int32_t> ids;
  std::vector<double> weights;

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(spec.kind, spec.index, spec.anchor, spec.target, spec.frequency, p_B, ids, weights);
  }
  /// The spring pulls an MPM object (it edits that object's particle velocities before every step).
  bool PullsObject() const { return spec.kind == Perturbation::Kind::kObject && !ids.empty(); }
};

/// What acts on every step until changed: teleoperation per robot and the mouse spring.
struct InputState {
  std::vector<RobotTeleop> teleops;
  PerturbationState perturbation;

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(teleops, perturbation);
  }
};

struct State::Data {
  /// ModelFingerprint of the model this state belongs to (0 for a default-constructed State).
  std::uint64_t model_fingerprint = 0;
  Clock clock;
  mpm::MpmState mpm;
  bool has_rigid = false;  ///< The scene has rigid bodies or robots.
  contact::RigidState rigid;
  RigidImpulses impulses;  ///< The MPM and IPC contact impulses of the last step on each rigid body.
  fem::IpcState fem;       ///< The soft and affine bodies (empty when the scene has none).
  pd::PdDomainState pd;    ///< The projective-dynamics bodies (empty when the scene has none).
  InputState inputs;

  /// Every field but the fingerprint, which the file's header carries.
  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(clock, mpm, has_rigid, rigid, impulses, fem, pd, inputs);
  }
};

}  // namespace ductile
