// Robot scripts (`robots: NAME: script:`, docs/scene-format.md): the tool follows the keyframes through the
// teleoperation IK, the gripper takes each keyframe's command at its time, a person's teleoperation takes over, and
// a saved state resumes bitwise in the middle of a script.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "arm_scene.h"
#include "scene_fixture.h"

namespace ductile {
namespace {

using Vec3 = std::array<double, 3>;

// The iiwa with its gripper; the tool point (gripper_tcp) pointing down (quaternion (0, 1, 0, 0)) moves from
// (0.55, 0, 0.35) at 0.5 s to (0.55, 0.15, 0.30) at 1.5 s (smooth), the fingers open at 0.2 s and squeeze at 1.6 s
// (fingers at 0, closed, at t = 0).
std::string ScriptedArm() {
  return testing::IiwaGripperScene(R"(    script:
      link: gripper_tcp
      keyframes:
        - {time: 0.2, position: [0.55, 0, 0.35], quaternion: [0, 1, 0, 0], gripper: {opening: 1}}
        - {time: 0.5, position: [0.55, 0, 0.35], quaternion: [0, 1, 0, 0]}
        - {time: 1.5, position: [0.55, 0.15, 0.30], quaternion: [0, 1, 0, 0]}
        - {time: 1.6, position: [0.55, 0.15, 0.30], quaternion: [0, 1, 0, 0], gripper: {force: 20}}
)");
}

Vec3 Tool(const Simulator& sim) {
  Vec3 p{};
  std::array<double, 4> q{};
  EXPECT_EQ(sim.LinkPose("arm", "gripper_tcp", p, q), "");
  return p;
}

double Distance(const Vec3& a, const Vec3& b) {
  return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

double FingerGap(const Simulator& sim) {
  Vec3 left{}, right{};
  std::array<double, 4> q{};
  EXPECT_EQ(sim.LinkPose("arm", "gripper_finger_left", left, q), "");
  EXPECT_EQ(sim.LinkPose("arm", "gripper_finger_right", right, q), "");
  return Distance(left, right);
}

// Tolerances: the teleoperation IK with feed-forward tracks a moving target to 0.08 mm (tests/physics/
// teleop_test.cpp, a 16 cm/s circle); this path moves at most 24 cm/s, so 2 mm while moving and at rest is a
// wide margin that a script applied a step late (2.4 mm behind) or not at all would still fail at mid-path.
TEST(RobotScript, ToolFollowsTheKeyframesAndTheGripperTheirCommands) {
  auto sim = testing::SimulatorFromYaml(ScriptedArm(), 1);
  const double closed = FingerGap(*sim);  // fingers at 0 at t = 0
  testing::RunUntil(*sim, 0.5);
  EXPECT_LT(Distance(Tool(*sim), {0.55, 0, 0.35}), 2e-3);
  EXPECT_NEAR(FingerGap(*sim) - closed, 2 * 0.04, 2e-3);  // opened at 0.2 s: each finger 4 cm out
  testing::RunUntil(*sim, 1.0);
  EXPECT_LT(Distance(Tool(*sim), {0.55, 0.075, 0.325}), 2e-3);  // halfway in time, halfway in space (smoothstep)
  testing::RunUntil(*sim, 1.5);
  EXPECT_LT(Distance(Tool(*sim), {0.55, 0.15, 0.30}), 2e-3);
  EXPECT_EQ(sim->GetTeleopStatus("arm").gripper_force, 0.0);
  testing::RunUntil(*sim, 2.0);
  EXPECT_EQ(sim->GetTeleopStatus("arm").gripper_force, 20.0);  // the squeeze of the keyframe at 1.6 s
  EXPECT_NEAR(FingerGap(*sim), closed, 2e-3);
}

// A teleoperation command (the studio's Teleop dock, a program) takes the robot over from its script for good.
TEST(RobotScript, TeleoperationTakesOver) {
  auto sim = testing::SimulatorFromYaml(ScriptedArm(), 1);
  testing::RunUntil(*sim, 0.7);
  TeleopTarget target;
  target.robot = "arm";
  target.link = "gripper_tcp";
  target.position = {0.5, -0.1, 0.4};
  target.quaternion = {0, 1, 0, 0};
  ASSERT_EQ(sim->SetTeleopTarget(target), "");
  testing::RunUntil(*sim, 2.0);
  EXPECT_LT(Distance(Tool(*sim), target.position), 2e-3);
  EXPECT_EQ(sim->GetTeleopStatus("arm").gripper_force, 0.0);  // the script's squeeze at 1.6 s did not come
  sim->Reset();                                               // the script drives again
  testing::RunUntil(*sim, 1.5);
  EXPECT_LT(Distance(Tool(*sim), {0.55, 0.15, 0.30}), 2e-3);
}

// The script is a function of time and the State keeps the teleoperation it drives: a run saved in the middle of a
// move and resumed ends bitwise where the straight run does.
TEST(RobotScript, SavedInTheMiddleResumesBitwise) {
  auto sim = testing::SimulatorFromYaml(ScriptedArm(), 1);
  testing::RunUntil(*sim, 0.9);
  const std::vector<std::uint8_t> saved = sim->SaveState();
  testing::RunUntil(*sim, 1.8);
  const std::uint64_t straight = sim->StateHash();
  auto resumed = testing::SimulatorFromYaml(ScriptedArm(), 1);
  resumed->RestoreState(saved);
  testing::RunUntil(*resumed, 1.8);
  EXPECT_EQ(resumed->StateHash(), straight);
}

// What the teleoperation needs is checked when the scene is compiled, at the keyframe that needs it: gripper
// commands for an arm without fingers (the iiwa alone).
TEST(RobotScript, GripperCommandWithoutFingersFailsAtItsKeyframe) {
  const std::string yaml = std::string(R"(
robots:
  arm:
    urdf: )") + DUCTILE_SOURCE_DIR +
                           R"(/assets/robots/iiwa7/iiwa7.urdf
    controllers: {iiwa_joint_1: {kp: 100, kd: 1}}
    script:
      link: iiwa_link_7
      keyframes:
        - {time: 0, position: [0.6, 0, 0.3]}
        - {time: 1, position: [0.6, 0, 0.3], gripper: {opening: 0}}
)";
  try {
    testing::SimulatorFromYaml(yaml);
    FAIL() << "a gripper command for an arm without fingers was accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.line(), 10) << e.what();
    EXPECT_NE(e.message().find("script of robot 'arm': a gripper command needs controlled prismatic finger joints"),
              std::string::npos)
        << e.what();
  }
}

// A SceneDesc built in code gets the parser's checks when it is compiled: no keyframes, a non-finite one, times
// that do not increase.
TEST(RobotScript, CodeBuiltScriptIsCheckedWhenCompiled) {
  const SceneDesc loaded = LoadSceneFromString(ScriptedArm(), "inline.yaml");
  ASSERT_TRUE(loaded.robots.at(0).script.has_value());
  const auto expect_failure = [&](const std::function<void(RobotScriptDesc&)>& edit, const std::string& message) {
    SceneDesc scene = loaded;
    edit(*scene.robots[0].script);
    try {
      CompileModel(scene);
      ADD_FAILURE() << "accepted a script that should fail with: " << message;
    } catch (const SceneError& e) {
      EXPECT_NE(e.message().find(message), std::string::npos) << e.what();
    }
  };
  expect_failure([](RobotScriptDesc& s) { s.keyframes.clear(); }, "script of robot 'arm' has no keyframes");
  expect_failure([](RobotScriptDesc& s) { s.keyframes[1].pose.position[2] = std::nan(""); },
                 "script of robot 'arm': keyframe 1 is not finite");
  expect_failure([](RobotScriptDesc& s) { s.keyframes[2].time = s.keyframes[1].time; },
                 "script of robot 'arm': keyframe times must start at 0 or later and increase");
  EXPECT_NO_THROW(CompileModel(loaded));
}

}  // namespace
}  // namespace ductile
