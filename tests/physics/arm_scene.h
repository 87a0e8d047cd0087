// The iiwa arm scene shared by the teleoperation and robot-script tests.
#pragma once

#include <string>

namespace ductile::testing {

/// The iiwa 7 with its gripper on a ground plane, Δt = 10 ms, its joints under PD control (the arm bent forward,
/// the fingers held at 3 cm); `robot_extra` is appended to the robot's map (indented four spaces), e.g. a script.
inline std::string IiwaGripperScene(const std::string& robot_extra = "") {
  return std::string(R"(
simulation: {dt: 0.01, substeps: 1, duration: 10, gravity: [0, 0, -9.81]}
rigid_bodies:
  ground: {type: static, shape: {type: plane, normal: [0, 0, 1]}}
robots:
  arm:
    urdf: )") +
         DUCTILE_SOURCE_DIR + R"(/assets/robots/iiwa7_gripper/iiwa7_gripper.urdf
    initial_positions: {iiwa_joint_2: 0.6, iiwa_joint_4: -1.2, iiwa_joint_6: 0.8}
    controllers:
      iiwa_joint_1: {kp: 2.0e3, kd: 50, target: 0.0}
      iiwa_joint_2: {kp: 2.0e3, kd: 50, target: 0.6}
      iiwa_joint_3: {kp: 1.0e3, kd: 20, target: 0.0}
      iiwa_joint_4: {kp: 1.0e3, kd: 20, target: -1.2}
      iiwa_joint_5: {kp: 300, kd: 5, target: 0.0}
      iiwa_joint_6: {kp: 300, kd: 5, target: 0.8}
      iiwa_joint_7: {kp: 100, kd: 2, target: 0.0}
      gripper_finger_left_joint: {kp: 500, kd: 10, target: 0.03}
      gripper_finger_right_joint: {kp: 500, kd: 10, target: 0.03}
)" + robot_extra;
}

}  // namespace ductile::testing
