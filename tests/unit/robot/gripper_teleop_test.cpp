// GripperTeleop (issue 6): the finger controllers take their gains from the model on every step, so a squeeze
// changes no gain for good and a live gain edit (a new model) applies while the gripper holds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "contact/rigid_system.h"
#include "ductile/model.h"
#include "ductile/scene.h"
#include "model/rigid_model.h"
#include "robot/teleop.h"

namespace ductile::robot {
namespace {

// The iiwa 7 with its parallel gripper; the fingers' controllers have no damping (kd 0).
std::string ArmScene() {
  return std::string(R"(
simulation: {dt: 0.01, substeps: 1, duration: 1, gravity: [0, 0, -9.81]}
rigid_bodies:
  ground: {type: static, shape: {type: plane, normal: [0, 0, 1]}}
robots:
  arm:
    urdf: )") +
         DUCTILE_SOURCE_DIR + R"(/assets/robots/iiwa7_gripper/iiwa7_gripper.urdf
    controllers:
      iiwa_joint_1: {kp: 2.0e3, kd: 50, target: 0.0}
      gripper_finger_left_joint: {kp: 500, kd: 0, target: 0.03}
      gripper_finger_right_joint: {kp: 500, kd: 0, target: 0.03}
)";
}

// The controllers of the finger joints, by index into RigidSystem::controllers.
std::vector<int> FingerControllers(const contact::RigidSystem& rigid) {
  std::vector<int> fingers;
  for (std::size_t c = 0; c < rigid.controllers.size(); ++c) {
    if (rigid.tree().body(rigid.controllers[c].body).name.find("finger") != std::string::npos)
      fingers.push_back(static_cast<int>(c));
  }
  return fingers;
}

TEST(GripperTeleop, SqueezeChangesNoGainForGoodAndLiveGainEditsApply) {
  const Model model = CompileModel(LoadSceneFromString(ArmScene(), "inline.yaml"));
  const RigidModel& rm = *model.rigid;
  contact::RigidSystem rigid(rm.tree, rm.world, contact::RigidSystemParams{});
  rigid.controllers = rm.controllers;
  const std::vector<int> fingers = FingerControllers(rigid);
  ASSERT_EQ(fingers.size(), 2u);

  GripperTeleop gripper;
  ASSERT_EQ(gripper.Configure(rigid, "arm", {}), "");
  std::vector<contact::JointController> gains = rm.controllers;

  // Squeezing: no spring, a closing effort, and some damping although the model has none.
  gripper.Set(0.0, 20.0);
  gripper.Apply(rigid, gains);
  for (int c : fingers) {
    EXPECT_EQ(rigid.controllers[c].kp, 0.0);
    EXPECT_EQ(rigid.controllers[c].kd, 1.0);
    EXPECT_EQ(rigid.controllers[c].feedforward, -20.0);
  }
  // Holding again: the model's gains, kd 0 included (the squeeze's damping used to stay).
  gripper.Set(1.0, 0.0);
  gripper.Apply(rigid, gains);
  for (int c : fingers) {
    EXPECT_EQ(rigid.controllers[c].kp, 500.0);
    EXPECT_EQ(rigid.controllers[c].kd, 0.0);
    EXPECT_EQ(rigid.controllers[c].feedforward, 0.0);
  }
  // A live edit of the fingers' gains (a new model): holding follows it (the gains cached at Configure used to win).
  for (int c : fingers) {
    gains[static_cast<std::size_t>(c)].kp = 800;
    gains[static_cast<std::size_t>(c)].kd = 12;
  }
  gripper.Apply(rigid, gains);
  for (int c : fingers) {
    EXPECT_EQ(rigid.controllers[c].kp, 800.0);
    EXPECT_EQ(rigid.controllers[c].kd, 12.0);
  }
  // Squeezing keeps the model's damping where it has some.
  gripper.Set(0.0, 5.0);
  gripper.Apply(rigid, gains);
  for (int c : fingers) EXPECT_EQ(rigid.controllers[c].kd, 12.0);
}

}  // namespace
}  // namespace ductile::robot
