// Applied loads and welds: a dynamic rigid body's `force` and `torque`, a robot's `joint_efforts` and the
// `welds` section. The good scene loads with the values it spells, `--set` reaches every new key, and inline
// scenes show the checks that the bad-scene table does not.
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ductile/scene.h"
#include "scene_test_support.h"

namespace ductile {
namespace {

using testing::ExpectIdentity;
using testing::ExpectQuaternion;
using testing::ExpectVector;

const std::filesystem::path kScenes = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes";
const std::filesystem::path kScene = kScenes / "loads_and_welds.yaml";
// A scene file name next to the test robot's URDF. Its links, root first: base, wheel, upper_arm, forearm, tool,
// slider. Its joints: shoulder (base -> upper_arm, revolute, effort limit 50), elbow (upper_arm -> forearm,
// revolute, 30), slide (forearm -> slider, prismatic, 100 N), wheel_joint (base -> wheel, continuous, 5) and
// tool_joint (forearm -> tool, fixed).
const std::filesystem::path kAtTestRobot =
    std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "urdf" / "ductile_test_robot" / "urdf" / "virtual.yaml";
// A scene file name next to world_fixed.urdf.
const std::filesystem::path kAtUrdfs = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "urdf" / "virtual.yaml";

SceneDesc LoadWith(const std::vector<std::string>& sets) {
  return testing::LoadWith(kScene, sets);
}

SceneError ErrorOf(const std::string& text, const std::filesystem::path& file = kAtTestRobot) {
  return testing::ErrorOf(text, file);
}

std::string OverrideMessage(const std::vector<std::string>& sets) {
  return testing::OverrideMessage(kScene, sets);
}

TEST(LoadsAndWelds, FullSceneHasEveryValue) {
  const SceneDesc scene = LoadScene(kScene);

  ASSERT_EQ(scene.rigid_bodies.size(), 4u);
  const RigidBodyDesc& cup = scene.rigid_bodies[1];
  EXPECT_EQ(cup.name, "cup");
  ExpectVector(cup.force, {1, -2, 3.5});
  ExpectVector(cup.torque, {0, 0.25, -0.5});
  // Omitted, a dynamic body's force and torque are zero.
  const RigidBodyDesc& lid = scene.rigid_bodies[2];
  EXPECT_EQ(lid.name, "lid");
  ExpectVector(lid.force, {0, 0, 0});
  ExpectVector(lid.torque, {0, 0, 0});

  ASSERT_EQ(scene.robots.size(), 1u);
  EXPECT_EQ(scene.robots[0].joint_efforts,
            (std::map<std::string, double>{{"elbow", -30}, {"slide", 12.5}, {"wheel_joint", 5}}));

  // Welds keep their file order; a weld may share a rigid body's name.
  ASSERT_EQ(scene.welds.size(), 3u);
  const WeldDesc& mocap = scene.welds[0];
  EXPECT_EQ(mocap.name, "mocap");
  EXPECT_EQ(mocap.body_a, "handle");
  EXPECT_EQ(mocap.body_b, "cup");
  ExpectIdentity(mocap.frame_a);
  ExpectIdentity(mocap.frame_b);
  EXPECT_DOUBLE_EQ(mocap.stiffness, 500);
  EXPECT_DOUBLE_EQ(mocap.damping, 20);
  EXPECT_EQ(mocap.where.file, kScene.string());
  EXPECT_EQ(mocap.where.line, 30);
  EXPECT_EQ(mocap.where.column, 3);

  const WeldDesc& lid_weld = scene.welds[1];
  EXPECT_EQ(lid_weld.name, "lid");
  EXPECT_EQ(lid_weld.body_a, "world");
  EXPECT_EQ(lid_weld.body_b, "lid");
  ExpectVector(lid_weld.frame_a.position, {0, 0, 0.4});
  ExpectQuaternion(lid_weld.frame_a.quaternion, {std::sqrt(0.5), 0, 0, std::sqrt(0.5)});  // rpy_deg [0, 0, 90].
  ExpectVector(lid_weld.frame_b.position, {0, 0, -0.005});
  ExpectQuaternion(lid_weld.frame_b.quaternion, {0, 0, 0, 1});  // [0, 0, 0, 2] normalised.
  EXPECT_DOUBLE_EQ(lid_weld.stiffness, 0);                      // Near-rigid by default.
  EXPECT_DOUBLE_EQ(lid_weld.damping, 0);
  EXPECT_EQ(lid_weld.where.line, 35);

  // A robot link behind a moving joint (tool is fixed to forearm, which the elbow moves) and a static body.
  const WeldDesc& pin = scene.welds[2];
  EXPECT_EQ(pin.body_a, "arm/tool");
  EXPECT_EQ(pin.body_b, "table");
  EXPECT_DOUBLE_EQ(pin.stiffness, 1e3);
  EXPECT_DOUBLE_EQ(pin.damping, 0);
  EXPECT_EQ(pin.where.line, 40);
}

TEST(LoadsAndWelds, OmittedSectionsTakeTheDefaults) {
  const RigidBodyDesc body;
  ExpectVector(body.force, {0, 0, 0});
  ExpectVector(body.torque, {0, 0, 0});
  const SceneDesc scene =
      LoadSceneFromString("welds:\nrobots:\n  r: {urdf: robot.urdf, joint_efforts: {}}\n", kAtTestRobot);
  EXPECT_TRUE(scene.welds.empty());
  EXPECT_TRUE(scene.robots[0].joint_efforts.empty());
}

TEST(LoadsAndWelds, OverridesSetEveryNewKey) {
  const SceneDesc scene =
      LoadWith({"rigid_bodies.cup.force.2=-1", "rigid_bodies.cup.torque=[1, 2, 3]", "rigid_bodies.lid.force.0=0.5",
                "robots.arm.joint_efforts.slide=-100", "welds.mocap.stiffness=800", "welds.mocap.damping=0",
                "welds.lid.stiffness=50", "welds.lid.frame_b.position.2=0.01", "welds.pin.frame_a.rpy_deg.2=90",
                "welds.pin.body_b=world", "welds.lid.body_a=handle"});
  ExpectVector(scene.rigid_bodies[1].force, {1, -2, -1});
  ExpectVector(scene.rigid_bodies[1].torque, {1, 2, 3});
  // Keys the file omits start from their defaults.
  ExpectVector(scene.rigid_bodies[2].force, {0.5, 0, 0});
  EXPECT_DOUBLE_EQ(scene.robots[0].joint_efforts.at("slide"), -100);
  EXPECT_DOUBLE_EQ(scene.welds[0].stiffness, 800);
  EXPECT_DOUBLE_EQ(scene.welds[0].damping, 0);
  EXPECT_DOUBLE_EQ(scene.welds[1].stiffness, 50);
  ExpectVector(scene.welds[1].frame_b.position, {0, 0, 0.01});
  ExpectQuaternion(scene.welds[2].frame_a.quaternion, {std::sqrt(0.5), 0, 0, std::sqrt(0.5)});
  EXPECT_EQ(scene.welds[2].body_b, "world");
  EXPECT_EQ(scene.welds[1].body_a, "handle");
}

TEST(LoadsAndWelds, OverrideErrorsNameTheOverride) {
  EXPECT_EQ(OverrideMessage({"rigid_bodies.cup.force.3=1"}),
            "--set rigid_bodies.cup.force.3=1: '3' is not an element of 'rigid_bodies.cup.force' (indices 0 to 2)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.cup.force.1=.inf"}),
            "--set rigid_bodies.cup.force.1=.inf: 'force[1]' must be finite, got .inf");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.table.torque.2=1"}),
            "--set rigid_bodies.table.torque.2=1: 'torque' does not apply to static rigid bodies: they are fixed in "
            "the world, no force moves them");
  EXPECT_EQ(OverrideMessage({"robots.arm.joint_efforts.elbow=30.5"}),
            "--set robots.arm.joint_efforts.elbow=30.5: effort of joint 'elbow' must not exceed the joint's URDF "
            "effort limit 30 N·m in magnitude, got 30.5");
  // Joint efforts, like controllers, must be in the file to be overridden.
  EXPECT_EQ(OverrideMessage({"robots.arm.joint_efforts.shoulder=1"}),
            "--set robots.arm.joint_efforts.shoulder=1: no joint effort 'shoulder' in the scene (defined: elbow, "
            "slide, wheel_joint)");
  EXPECT_EQ(OverrideMessage({"welds.mocap.stifness=1"}),
            "--set welds.mocap.stifness=1: unknown key 'stifness' in 'welds.mocap'; did you mean 'stiffness'?");
  EXPECT_EQ(OverrideMessage({"welds.mocup.stiffness=1"}),
            "--set welds.mocup.stiffness=1: no weld 'mocup' in the scene; did you mean 'mocap'? (defined: mocap, "
            "lid, pin)");
  EXPECT_EQ(OverrideMessage({"welds.mocap.stiffness=-1"}),
            "--set welds.mocap.stiffness=-1: 'stiffness' must be >= 0, got -1");
  // Setting the stiffness to 0 leaves the file's damping without a spring: the override takes the blame.
  EXPECT_EQ(OverrideMessage({"welds.mocap.stiffness=0"}),
            "--set welds.mocap.stiffness=0: 'damping' of weld 'mocap' needs a 'stiffness' > 0: with stiffness 0 the "
            "weld is near-rigid and has no damper, got damping 20");
  EXPECT_EQ(OverrideMessage({"welds.lid.damping=1"}),
            "--set welds.lid.damping=1: 'damping' of weld 'lid' needs a 'stiffness' > 0: with stiffness 0 the weld "
            "is near-rigid and has no damper, got damping 1");
  EXPECT_EQ(OverrideMessage({"welds.mocap.body_a=handel"}),
            "--set welds.mocap.body_a=handel: unknown body 'handel' in 'body_a' of weld 'mocap'; did you mean "
            "'handle'?");
  EXPECT_EQ(OverrideMessage({"welds.mocap.body_b=table"}),
            "--set welds.mocap.body_b=table: weld 'mocap' joins kinematic rigid body 'handle' and static rigid body "
            "'table', which no force moves: nothing for the weld to act on (one of them must be a dynamic rigid body "
            "or a robot link behind a moving joint)");
  EXPECT_EQ(OverrideMessage({"welds.pin.frame_a.positon.0=1"}),
            "--set welds.pin.frame_a.positon.0=1: unknown key 'positon' in 'welds.pin.frame_a'; did you mean "
            "'position'?");
}

TEST(LoadsAndWelds, ForceAndTorqueErrors) {
  const std::string body = "rigid_bodies:\n  b:\n    shape: {type: sphere, radius: 0.1}\n    mass: 1\n";
  EXPECT_EQ(ErrorOf(body + "    force: [0, 1]\n").message(), "'force' must be a list of 3 numbers, got a list of 2");
  EXPECT_EQ(ErrorOf(body + "    torque: [0, up, 0]\n").message(), "'torque[1]' must be a number, got 'up'");
  EXPECT_EQ(ErrorOf(body + "    forse: [0, 0, 1]\n").message(),
            "unknown key 'forse' in rigid body 'b'; did you mean 'force'?");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {type: static, shape: {type: plane}, torque: [0, 0, 1]}\n").message(),
            "'torque' does not apply to static rigid bodies: they are fixed in the world, no force moves them");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {type: kinematic, shape: {type: sphere, radius: 0.1}, keyframes: [{time: 0}], "
                    "force: [1, 0, 0]}\n")
                .message(),
            "'force' does not apply to kinematic rigid bodies: they follow their keyframes whatever the forces "
            "(infinite mass)");
}

TEST(LoadsAndWelds, JointEffortErrors) {
  const std::string robot = "robots:\n  r:\n    urdf: robot.urdf\n";
  // A prismatic joint's limit is in newtons; a continuous joint has an effort limit too.
  EXPECT_EQ(ErrorOf(robot + "    joint_efforts: {slide: -100.5}\n").message(),
            "effort of joint 'slide' must not exceed the joint's URDF effort limit 100 N in magnitude, got -100.5");
  EXPECT_EQ(ErrorOf(robot + "    joint_efforts: {wheel_joint: 6}\n").message(),
            "effort of joint 'wheel_joint' must not exceed the joint's URDF effort limit 5 N·m in magnitude, got 6");
  EXPECT_DOUBLE_EQ(LoadSceneFromString(robot + "    joint_efforts: {slide: -100}\n", kAtTestRobot)
                       .robots[0]
                       .joint_efforts.at("slide"),
                   -100);
  EXPECT_EQ(ErrorOf(robot + "    joint_efforts: {tool_joint: 1}\n").message(),
            "joint 'tool_joint' of robot 'r' is fixed: only revolute and prismatic joints take initial positions, "
            "controllers and efforts");
  // Without a close match the message lists the movable joints.
  EXPECT_EQ(ErrorOf(robot + "    joint_efforts: {knee: 1}\n").message(),
            "unknown joint 'knee' in robot 'r' (movable joints: wheel_joint, shoulder, elbow, slide)");
  EXPECT_EQ(ErrorOf(robot + "    joint_efforts: {elbow: strong}\n").message(),
            "'elbow' must be a number, got 'strong'");
  EXPECT_EQ(ErrorOf(robot + "    joint_efforts: [elbow]\n").message(),
            "'joint_efforts' of robot 'r' must be a map, got a list of 1");
  EXPECT_EQ(ErrorOf(robot + "    joint_effort: {elbow: 1}\n").message(),
            "unknown key 'joint_effort' in robot 'r'; did you mean 'joint_efforts'?");
  // A controller's gains are still checked next to joint efforts.
  EXPECT_EQ(ErrorOf(robot + "    controllers: {elbow: {kp: 0}}\n    joint_efforts: {elbow: 1}\n").message(),
            "controller of joint 'elbow' of robot 'r' needs a positive 'kp' or 'kd' (both are 0)");
}

TEST(LoadsAndWelds, JointWithoutAnEffortLimitTakesAnyEffort) {
  const std::filesystem::path folder = std::filesystem::path(::testing::TempDir()) / "ductile_loads_and_welds";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "spinner.urdf") << R"(<robot name="spinner">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="rotor"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="spin" type="continuous"><parent link="base"/><child link="rotor"/><axis xyz="0 0 1"/></joint>
</robot>
)";
  const SceneDesc scene =
      LoadSceneFromString("robots:\n  r: {urdf: spinner.urdf, joint_efforts: {spin: -1.0e9}}\n", folder / "a.yaml");
  EXPECT_DOUBLE_EQ(scene.robots[0].joint_efforts.at("spin"), -1e9);
}

TEST(LoadsAndWelds, WeldErrors) {
  const std::string bodies =
      "rigid_bodies:\n"
      "  cup: {shape: {type: sphere, radius: 0.1}, mass: 1}\n"
      "  ghost: {type: kinematic, shape: {type: sphere, radius: 0.1}, keyframes: [{time: 0}]}\n"
      "  shadow: {type: kinematic, shape: {type: sphere, radius: 0.1}, keyframes: [{time: 0}]}\n"
      "robots:\n  arm: {urdf: robot.urdf}\n";
  const SceneError unknown_key = ErrorOf(bodies + "welds:\n  w: {body_a: world, body_b: cup, stifness: 1}\n");
  EXPECT_EQ(unknown_key.message(), "unknown key 'stifness' in weld 'w'; did you mean 'stiffness'?");
  EXPECT_EQ(unknown_key.line(), 8);
  EXPECT_EQ(unknown_key.column(), 35);
  const SceneError missing = ErrorOf(bodies + "welds:\n  w: {body_a: cup}\n");
  EXPECT_EQ(missing.message(), "missing required key 'body_b' in weld 'w'");
  EXPECT_EQ(missing.line(), 8);
  EXPECT_EQ(missing.column(), 6);
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: world, body_b: cup, frame_a: {rpy_deg: [0, 0, 1], quaternion: "
                             "[1, 0, 0, 0]}}\n")
                .message(),
            "'frame_a' of weld 'w' takes either 'rpy_deg' or 'quaternion', not both");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: world, body_b: cup, frame_b: {rpy: [0, 0, 1]}}\n").message(),
            "unknown key 'rpy' in 'frame_b' of weld 'w' (known keys: position, rpy_deg, quaternion)");
  EXPECT_EQ(
      ErrorOf(bodies + "welds:\n  w: {body_a: world, body_b: cup, frame_b: {quaternion: [0, 0, 0, 0]}}\n").message(),
      "'quaternion' must not be zero");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  a.b: {body_a: world, body_b: cup}\n").message(),
            "weld name 'a.b' must not contain '.' (it separates --set keys)");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: world, body_b: [cup]}\n").message(),
            "'body_b' must be a name, got a list of 1");
  EXPECT_EQ(ErrorOf(bodies + "welds: [cup]\n").message(), "section 'welds' must be a map, got a list of 1");
  // Without a close match: every name a weld can use, or the links of the robot the name starts with.
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: world, body_b: saucer}\n").message(),
            "unknown body 'saucer' in 'body_b' of weld 'w' (bodies are 'world', a rigid body or ROBOT/LINK: world, "
            "cup, ghost, shadow, arm/base, arm/wheel, arm/upper_arm, arm/forearm, arm/tool, arm/slider)");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: arm/gripper, body_b: cup}\n").message(),
            "unknown body 'arm/gripper' in 'body_a' of weld 'w' (robot 'arm' has: arm/base, arm/wheel, arm/upper_arm, "
            "arm/forearm, arm/tool, arm/slider)");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: arm/forarm, body_b: cup}\n").message(),
            "unknown body 'arm/forarm' in 'body_a' of weld 'w'; did you mean 'arm/forearm'?");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: world, body_b: world}\n").message(),
            "weld 'w' joins the world to itself: 'body_a' and 'body_b' must differ");
  // Neither body moves under forces: kinematic bodies, or a robot's root link without a floating base.
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: ghost, body_b: shadow, stiffness: 10}\n").message(),
            "weld 'w' joins kinematic rigid body 'ghost' and kinematic rigid body 'shadow', which no force moves: "
            "nothing for the weld to act on (one of them must be a dynamic rigid body or a robot link behind a "
            "moving joint)");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: arm/base, body_b: world}\n").message(),
            "weld 'w' joins link 'base' of robot 'arm' and the world, which are both fixed in the world: nothing to "
            "move (one of them must be a dynamic rigid body or a robot link behind a moving joint)");
}

TEST(LoadsAndWelds, WeldsMayNameAnyBodyThatMoves) {
  const std::string bodies =
      "rigid_bodies:\n"
      "  cup: {shape: {type: sphere, radius: 0.1}, mass: 1}\n"
      "  ghost: {type: kinematic, shape: {type: sphere, radius: 0.1}, keyframes: [{time: 0}]}\n";
  // Welds may come before the bodies they name in the file.
  const SceneDesc scene =
      LoadSceneFromString("welds:\n  w: {body_a: ghost, body_b: arm/base}\n  v: {body_a: arm/wheel, body_b: cup}\n" +
                              bodies + "robots:\n  arm: {urdf: robot.urdf, floating_base: true}\n",
                          kAtTestRobot);
  ASSERT_EQ(scene.welds.size(), 2u);
  EXPECT_EQ(scene.welds[0].body_b, "arm/base");
  EXPECT_EQ(scene.welds[1].body_a, "arm/wheel");
  // A link welded to the world in the URDF (a link named "world") has nothing to move either.
  const SceneError fixed = ErrorOf(
      "rigid_bodies:\n  table: {type: static, shape: {type: box, size: [1, 1, 1]}}\n"
      "robots:\n  post: {urdf: world_fixed.urdf, floating_base: true}\n"
      "welds:\n  w: {body_a: post/base, body_b: table}\n",
      kAtUrdfs);
  EXPECT_EQ(fixed.message(),
            "weld 'w' joins link 'base' of robot 'post' and static rigid body 'table', which are both fixed in the "
            "world: nothing to move (one of them must be a dynamic rigid body or a robot link behind a moving joint)");
  EXPECT_EQ(fixed.line(), 6);
  EXPECT_EQ(fixed.column(), 34);
}

TEST(LoadsAndWelds, NamesThatWeldsWouldConfuse) {
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  arm/tool: {shape: {type: sphere, radius: 0.1}, mass: 1}\n").message(),
            "rigid body name 'arm/tool' must not contain '/' (welds name robot links ROBOT/LINK)");
  EXPECT_EQ(ErrorOf("robots:\n  left/arm: {urdf: robot.urdf}\n").message(),
            "robot name 'left/arm' must not contain '/' (welds name robot links ROBOT/LINK)");
  // A robot may be called "world": its links are "world/LINK".
  const SceneDesc scene = LoadSceneFromString(
      "robots:\n  world: {urdf: robot.urdf}\nwelds:\n  w: {body_a: world, body_b: world/forearm}\n", kAtTestRobot);
  EXPECT_EQ(scene.welds[0].body_b, "world/forearm");
}

}  // namespace
}  // namespace ductile
