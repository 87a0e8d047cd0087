// What a person or program gives a running simulation besides the scene (Simulator::SetPerturbation,
// SetTeleopTarget, SetGripper): plain data, in a header of its own so that the State, which keeps the inputs that act
// until changed (state/state_data.h), does not include the Simulator.
#pragma once

#include <array>
#include <string>

namespace ductile {

/// A mouse spring like MuJoCo's: pulls a grabbed point of a rigid body, or a small patch of an MPM object's
/// particles, towards a target with a critically damped spring of the given natural frequency (scaled by the
/// grabbed mass, so heavy and light things follow alike) that also carries the grabbed mass's weight.
struct Perturbation {
  enum class Kind { kNone, kBody, kObject };
  Kind kind = Kind::kNone;
  int index = -1;                  ///< Moving body (0 .. num_rigid_bodies()−1) or MPM object.
  std::array<double, 3> anchor{};  ///< The grabbed point in the world when grabbed [m].
  std::array<double, 3> target{};  ///< Where the spring pulls it [m], world.
  double frequency = 2.0;          ///< Natural frequency of the spring [Hz].
};

/// Teleoperation of a robot arm: where a tool point on one of its links should be. Before each step the simulator
/// turns it into joint targets of the arm's PD controllers by damped-least-squares inverse kinematics, with joint
/// limits respected and gravity compensated (engine/src/robot/teleop.h). The arm is every controlled revolute or
/// prismatic joint between the robot's root and the link.
struct TeleopTarget {
  std::string robot;                             ///< Robot name in the scene.
  std::string link;                              ///< The tool link, e.g. "gripper_tcp".
  std::array<double, 3> tool_point{};            ///< The point on the link that follows the target, link frame [m].
  std::array<double, 3> position{};              ///< Target of the tool point [m], world.
  std::array<double, 4> quaternion{1, 0, 0, 0};  ///< Target orientation of the link frame, (w, x, y, z), world.
  bool track_orientation = true;                 ///< False: position only.
};

/// A gripper command: the fingers are the robot's controlled prismatic joints that are not part of a teleoperated
/// arm, closing towards their lower limits.
struct GripperCommand {
  std::string robot;
  double opening = 1;  ///< Finger position as a fraction of its range, 0 closed to 1 open, with force 0.
  double force = 0;    ///< > 0: squeeze with this effort per finger [N] (no position spring); 0: hold `opening`.
};

}  // namespace ductile
