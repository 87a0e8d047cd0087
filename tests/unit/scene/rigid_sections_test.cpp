// The sections `contact`, `rigid_bodies` and `robots`: good scenes load with the values they spell (a robot with
// its URDF loaded), and inline scenes show the checks that the bad-scene table does not.
#include <cmath>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ductile/multibody_desc.h"
#include "ductile/scene.h"
#include "scene_test_support.h"

namespace ductile {
namespace {

using testing::ExpectQuaternion;
using testing::ExpectVector;

const std::filesystem::path kScenes = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes";
const std::filesystem::path kSource(DUCTILE_SOURCE_DIR);
// A file name inside the repository, so that `urdf:` paths resolve against its root.
const std::filesystem::path kAtRoot = kSource / "virtual.yaml";
// A scene file name next to the test robot's URDF (joints: slide prismatic [0, 0.1] m, wheel_joint continuous,
// elbow revolute [-2, 2], shoulder revolute [-1.5, 1.5], tool_joint fixed).
const std::filesystem::path kAtTestRobot =
    std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "urdf" / "ductile_test_robot" / "urdf" / "virtual.yaml";

SceneError ErrorOf(const std::string& text, const std::filesystem::path& file = kAtRoot) {
  return testing::ErrorOf(text, file);
}

TEST(RigidSections, FullSceneHasEveryValue) {
  const SceneDesc scene = LoadScene(kScenes / "rigid_full.yaml");

  EXPECT_DOUBLE_EQ(scene.contact.friction, 0.7);
  EXPECT_DOUBLE_EQ(scene.contact.stiffness, 2e6);
  EXPECT_DOUBLE_EQ(scene.contact.dissipation, 5);
  EXPECT_DOUBLE_EQ(scene.contact.stiction_speed, 1e-3);
  EXPECT_EQ(scene.contact.where.line, 3);
  EXPECT_EQ(scene.contact.where.column, 1);

  // Rigid bodies keep their file order.
  ASSERT_EQ(scene.rigid_bodies.size(), 4u);
  const RigidBodyDesc& crate = scene.rigid_bodies[0];
  EXPECT_EQ(crate.name, "crate");
  EXPECT_EQ(crate.type, RigidBodyType::kDynamic);
  EXPECT_EQ(crate.shape.type, ShapeType::kBox);
  ExpectVector(crate.shape.size, {0.1, 0.2, 0.3});
  EXPECT_DOUBLE_EQ(crate.mass, 2.5);
  EXPECT_DOUBLE_EQ(crate.density, 0);
  ExpectVector(crate.pose.position, {0.3, 0, 0.2});
  ExpectQuaternion(crate.pose.quaternion, {std::sqrt(0.5), 0, 0, std::sqrt(0.5)});  // rpy_deg [0, 0, 90].
  ExpectVector(crate.velocity, {1, 0, 0});
  ExpectVector(crate.angular_velocity, {0, 0, 3});
  EXPECT_DOUBLE_EQ(crate.friction, 0.9);
  EXPECT_DOUBLE_EQ(crate.stiffness, 5e5);
  EXPECT_DOUBLE_EQ(crate.dissipation, 2);
  EXPECT_EQ(crate.rgba, (std::array<double, 4>{1, 0, 0, 0.5}));
  EXPECT_TRUE(crate.keyframes.empty());
  EXPECT_EQ(crate.where.file, (kScenes / "rigid_full.yaml").string());
  EXPECT_EQ(crate.where.line, 16);
  EXPECT_EQ(crate.where.column, 3);

  const RigidBodyDesc& pill = scene.rigid_bodies[1];
  EXPECT_EQ(pill.type, RigidBodyType::kDynamic);
  EXPECT_EQ(pill.shape.type, ShapeType::kCapsule);
  EXPECT_DOUBLE_EQ(pill.shape.radius, 0.02);
  EXPECT_DOUBLE_EQ(pill.shape.length, 0.1);
  EXPECT_DOUBLE_EQ(pill.mass, 0);
  EXPECT_DOUBLE_EQ(pill.density, 800);
  // Omitted contact properties stay unset (negative): the `contact:` section's apply.
  EXPECT_LT(pill.friction, 0);
  EXPECT_LT(pill.stiffness, 0);
  EXPECT_LT(pill.dissipation, 0);
  EXPECT_EQ(pill.rgba, RigidBodyDesc{}.rgba);

  const RigidBodyDesc& floor = scene.rigid_bodies[2];
  EXPECT_EQ(floor.type, RigidBodyType::kStatic);
  EXPECT_EQ(floor.shape.type, ShapeType::kPlane);
  ExpectVector(floor.shape.normal, {0, 0, 1});  // [0, 0, 2] normalised.
  ExpectVector(floor.pose.position, {0, 0, -0.01});

  const RigidBodyDesc& pusher = scene.rigid_bodies[3];
  EXPECT_EQ(pusher.type, RigidBodyType::kKinematic);
  EXPECT_EQ(pusher.shape.type, ShapeType::kSphere);
  ASSERT_EQ(pusher.keyframes.size(), 3u);
  EXPECT_DOUBLE_EQ(pusher.keyframes[0].time, 0);
  ExpectVector(pusher.keyframes[0].pose.position, {0, 0.3, 0.1});
  ExpectQuaternion(pusher.keyframes[0].pose.quaternion, {1, 0, 0, 0});
  EXPECT_EQ(pusher.keyframes[0].where.line, 38);
  EXPECT_EQ(pusher.keyframes[0].where.column, 9);  // The item's '{'.
  EXPECT_DOUBLE_EQ(pusher.keyframes[1].time, 1.5);
  ExpectVector(pusher.keyframes[1].pose.position, {0, -0.3, 0.1});
  ExpectQuaternion(pusher.keyframes[1].pose.quaternion, {std::sqrt(0.5), std::sqrt(0.5), 0, 0});  // Roll 90°.
  EXPECT_EQ(pusher.keyframes[1].where.line, 39);
  EXPECT_EQ(pusher.keyframes[1].where.column, 9);  // The block map's first key.
  EXPECT_DOUBLE_EQ(pusher.keyframes[2].time, 3);
  ExpectVector(pusher.keyframes[2].pose.position, {0, 0, 0});
  ExpectQuaternion(pusher.keyframes[2].pose.quaternion, {0, 0, 0, 1});  // [0, 0, 0, 2] normalised.

  ASSERT_EQ(scene.robots.size(), 1u);
  const RobotDesc& arm = scene.robots[0];
  EXPECT_EQ(arm.name, "arm");
  EXPECT_EQ(arm.urdf, (kSource / "assets" / "robots" / "iiwa7" / "iiwa7.urdf").lexically_normal());
  EXPECT_TRUE(arm.urdf.is_absolute());
  ASSERT_NE(arm.model, nullptr);
  EXPECT_EQ(arm.model->source, arm.urdf);
  EXPECT_EQ(arm.model->joints.size(), 8u);  // 7 revolute joints and the fixed flange frame.
  ASSERT_NE(arm.model->FindJoint("iiwa_joint_7"), nullptr);
  ExpectVector(arm.pose.position, {-0.5, 0, 0});
  ExpectQuaternion(arm.pose.quaternion, {0, 0, 0, 1});  // Yaw 180°.
  EXPECT_TRUE(arm.floating_base);
  EXPECT_EQ(arm.initial_positions, (std::map<std::string, double>{{"iiwa_joint_2", 0.5}, {"iiwa_joint_4", -1.2}}));
  // Controllers keep their file order.
  ASSERT_EQ(arm.controllers.size(), 2u);
  const JointControllerDesc& elbow = arm.controllers[0];
  EXPECT_EQ(elbow.joint, "iiwa_joint_4");
  EXPECT_DOUBLE_EQ(elbow.kp, 1e4);
  EXPECT_DOUBLE_EQ(elbow.kd, 200);
  EXPECT_DOUBLE_EQ(elbow.target, -1);
  EXPECT_DOUBLE_EQ(elbow.feedforward, 3);
  EXPECT_EQ(elbow.where.line, 52);
  EXPECT_EQ(elbow.where.column, 7);
  const JointControllerDesc& base = arm.controllers[1];
  EXPECT_EQ(base.joint, "iiwa_joint_1");
  EXPECT_DOUBLE_EQ(base.kp, 0);
  EXPECT_DOUBLE_EQ(base.kd, 20);
  EXPECT_DOUBLE_EQ(base.target, 0);
  EXPECT_DOUBLE_EQ(base.feedforward, 0);
  EXPECT_DOUBLE_EQ(arm.link_force_limit, 400);
  EXPECT_EQ(arm.where.line, 44);
  EXPECT_EQ(arm.where.column, 3);
}

TEST(RigidSections, OmittedSectionsTakeTheDefaults) {
  const SceneDesc scene = LoadScene(kScenes / "minimal.yaml");
  const ContactDesc defaults;
  EXPECT_EQ(scene.contact.friction, defaults.friction);
  EXPECT_EQ(scene.contact.stiffness, defaults.stiffness);
  EXPECT_EQ(scene.contact.dissipation, defaults.dissipation);
  EXPECT_EQ(scene.contact.stiction_speed, defaults.stiction_speed);
  EXPECT_TRUE(scene.rigid_bodies.empty());
  EXPECT_TRUE(scene.robots.empty());
  // Empty sections are the same as omitted ones.
  const SceneDesc empty = LoadSceneFromString("contact:\nrigid_bodies:\nrobots:\n", kAtRoot);
  EXPECT_EQ(empty.contact.friction, defaults.friction);
  EXPECT_TRUE(empty.rigid_bodies.empty());
}

TEST(RigidSections, RobotPathsResolveAgainstTheSceneFolder) {
  const std::string text = "robots:\n  arm: {urdf: assets/robots/iiwa7/iiwa7.urdf}\n";
  const SceneDesc scene = LoadSceneFromString(text, kAtRoot);
  ASSERT_EQ(scene.robots.size(), 1u);
  EXPECT_EQ(scene.robots[0].urdf, (kSource / "assets" / "robots" / "iiwa7" / "iiwa7.urdf").lexically_normal());
  EXPECT_FALSE(scene.robots[0].floating_base);
  EXPECT_TRUE(scene.robots[0].initial_positions.empty());
  EXPECT_TRUE(scene.robots[0].controllers.empty());
  EXPECT_DOUBLE_EQ(scene.robots[0].link_force_limit, kDefaultLinkForceLimit);
  // The same text elsewhere does not find the file, and says where it looked.
  const SceneError e = ErrorOf(text, kScenes / "virtual.yaml");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 15);
  EXPECT_EQ(e.message(), "URDF file 'assets/robots/iiwa7/iiwa7.urdf' not found (looked for " +
                             (kScenes / "assets" / "robots" / "iiwa7" / "iiwa7.urdf").lexically_normal().string() +
                             ")");
}

TEST(RigidSections, JointChecksUseTheJointsTypeAndLimits) {
  const std::string robot = "robots:\n  r:\n    urdf: robot.urdf\n";
  // A prismatic joint's limits are in metres; a continuous joint has none.
  const SceneDesc scene =
      LoadSceneFromString(robot +
                              "    initial_positions: {slide: 0.1, wheel_joint: 100}\n"
                              "    controllers: {wheel_joint: {kp: 1, target: -50}, slide: {kd: 1, target: 0}}\n",
                          kAtTestRobot);
  EXPECT_DOUBLE_EQ(scene.robots[0].initial_positions.at("wheel_joint"), 100);
  EXPECT_DOUBLE_EQ(scene.robots[0].controllers[0].target, -50);
  EXPECT_EQ(ErrorOf(robot + "    initial_positions: {slide: 0.2}\n", kAtTestRobot).message(),
            "initial position of joint 'slide' must be within the joint's limits [0, 0.1] m, got 0.2");
  EXPECT_EQ(ErrorOf(robot + "    initial_positions: {tool_joint: 0}\n", kAtTestRobot).message(),
            "joint 'tool_joint' of robot 'r' is fixed: only revolute and prismatic joints take initial positions, "
            "controllers and efforts");
  // Without a close match the message lists the movable joints.
  EXPECT_EQ(ErrorOf(robot + "    controllers: {knee: {kp: 1}}\n", kAtTestRobot).message(),
            "unknown joint 'knee' in robot 'r' (movable joints: wheel_joint, shoulder, elbow, slide)");
  EXPECT_EQ(ErrorOf(robot + "    controllers: {elbow: {kpp: 1}}\n", kAtTestRobot).message(),
            "unknown key 'kpp' in controller of joint 'elbow' of robot 'r'; did you mean 'kp'?");
  EXPECT_EQ(ErrorOf(robot + "    controllers: {elbow: {kp: -1}}\n", kAtTestRobot).message(),
            "'kp' must be >= 0, got -1");
  EXPECT_EQ(ErrorOf(robot + "    controllers: {elbow: {kp: 1, target: 2.5}}\n", kAtTestRobot).message(),
            "'target' of joint 'elbow' must be within the joint's limits [-2, 2] rad, got 2.5");
  EXPECT_EQ(ErrorOf(robot + "    initial_positions: {elbow: high}\n", kAtTestRobot).message(),
            "'elbow' must be a number, got 'high'");
  EXPECT_EQ(ErrorOf(robot + "    initial_positions: [elbow]\n", kAtTestRobot).message(),
            "'initial_positions' of robot 'r' must be a map, got a list of 1");
  EXPECT_EQ(ErrorOf(robot + "    floating_bas: true\n", kAtTestRobot).message(),
            "unknown key 'floating_bas' in robot 'r'; did you mean 'floating_base'?");
}

TEST(RigidSections, ControllerTargetIsRequiredWhenZeroIsOutsideTheLimits) {
  const std::filesystem::path folder = std::filesystem::path(::testing::TempDir()) / "ductile_rigid_sections";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "lift.urdf") << R"(<robot name="lift">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="car"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="lift" type="prismatic">
    <parent link="base"/><child link="car"/><axis xyz="0 0 1"/>
    <limit lower="0.2" upper="0.5" effort="100" velocity="1"/>
  </joint>
</robot>
)";
  const std::filesystem::path scene_file = folder / "virtual.yaml";
  const std::string robot = "robots:\n  r:\n    urdf: lift.urdf\n";
  const SceneError e = ErrorOf(robot + "    controllers:\n      lift: {kp: 100}\n", scene_file);
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.column(), 7);
  EXPECT_EQ(e.message(),
            "controller of joint 'lift' of robot 'r' needs a 'target': the default 0 is outside the joint's limits "
            "[0.2, 0.5] m");
  EXPECT_DOUBLE_EQ(LoadSceneFromString(robot + "    controllers:\n      lift: {kp: 100, target: 0.3}\n", scene_file)
                       .robots[0]
                       .controllers[0]
                       .target,
                   0.3);
}

TEST(RigidSections, KeyframeErrors) {
  const std::string body = "rigid_bodies:\n  p:\n    type: kinematic\n    shape: {type: sphere, radius: 0.1}\n";
  const SceneError unknown = ErrorOf(body + "    keyframes:\n      - {time: 0, positon: [0, 0, 1]}\n");
  EXPECT_EQ(unknown.message(), "unknown key 'positon' in keyframe 0 of rigid body 'p'; did you mean 'position'?");
  EXPECT_EQ(unknown.line(), 6);
  EXPECT_EQ(unknown.column(), 19);
  const SceneError missing_time = ErrorOf(body + "    keyframes:\n      - {time: 0}\n      - {position: [0, 0, 1]}\n");
  EXPECT_EQ(missing_time.message(), "missing required key 'time' in keyframe 1 of rigid body 'p'");
  EXPECT_EQ(missing_time.line(), 7);
  EXPECT_EQ(ErrorOf(body + "    keyframes:\n      - {time: -1}\n").message(), "'time' must be >= 0, got -1");
  EXPECT_EQ(ErrorOf(body + "    keyframes: {time: 0}\n").message(),
            "'keyframes' of rigid body 'p' must be a list, got a map");
  EXPECT_EQ(ErrorOf(body + "    keyframes: [5]\n").message(), "keyframe 0 of rigid body 'p' must be a map, got '5'");
  EXPECT_EQ(
      ErrorOf(body + "    keyframes:\n      - {time: 0, rpy_deg: [0, 0, 1], quaternion: [1, 0, 0, 0]}\n").message(),
      "keyframe 0 of rigid body 'p' takes either 'rpy_deg' or 'quaternion', not both");
  EXPECT_EQ(ErrorOf(body + "    keyframes: [{time: 0}]\n    mass: 1\n").message(),
            "'mass' does not apply to kinematic rigid bodies: they follow their keyframes whatever the forces "
            "(infinite mass)");
  EXPECT_EQ(ErrorOf(body + "    keyframes: [{time: 0}]\n    angular_velocity: [0, 0, 1]\n").message(),
            "'angular_velocity' does not apply to kinematic rigid bodies: their motion comes from their 'keyframes'");
}

TEST(RigidSections, KinematicInterpolation) {
  const std::string body =
      "rigid_bodies:\n  p:\n    type: kinematic\n    shape: {type: sphere, radius: 0.1}\n"
      "    keyframes: [{time: 0}, {time: 1, position: [0, 0, 1]}]\n";
  EXPECT_EQ(LoadSceneFromString(body, kAtRoot).rigid_bodies[0].interpolation, KeyframeInterpolation::kLinear);
  EXPECT_EQ(LoadSceneFromString(body + "    interpolation: smooth\n", kAtRoot).rigid_bodies[0].interpolation,
            KeyframeInterpolation::kSmooth);
  EXPECT_EQ(LoadSceneFromString(body + "    interpolation: linear\n", kAtRoot).rigid_bodies[0].interpolation,
            KeyframeInterpolation::kLinear);
  // A value that is not one of the names lists them.
  const SceneError unknown = ErrorOf(body + "    interpolation: cubic\n");
  EXPECT_EQ(unknown.message(), "unknown keyframe interpolation 'cubic' (one of: linear, smooth)");
  EXPECT_EQ(unknown.line(), 6);
  EXPECT_EQ(unknown.column(), 20);
  EXPECT_EQ(ErrorOf(body + "    interpolation: smoth\n").message(),
            "unknown keyframe interpolation 'smoth'; did you mean 'smooth'? (one of: linear, smooth)");
  EXPECT_EQ(ErrorOf(body + "    interpolaton: smooth\n").message(),
            "unknown key 'interpolaton' in rigid body 'p'; did you mean 'interpolation'?");
}

TEST(RigidSections, InterpolationIsOnlyForKinematicBodies) {
  const SceneError dynamic =
      ErrorOf("rigid_bodies:\n  b:\n    shape: {type: sphere, radius: 0.1}\n    mass: 1\n    interpolation: smooth\n");
  EXPECT_EQ(dynamic.message(),
            "'interpolation' does not apply to dynamic rigid bodies: only kinematic bodies follow keyframes, and "
            "'interpolation' says how they move between them (set 'type: kinematic')");
  EXPECT_EQ(dynamic.line(), 5);
  EXPECT_EQ(dynamic.column(), 5);
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {type: static, shape: {type: plane}, interpolation: linear}\n").message(),
            "'interpolation' does not apply to static rigid bodies: only kinematic bodies follow keyframes, and "
            "'interpolation' says how they move between them (set 'type: kinematic')");
}

TEST(RigidSections, BodyErrors) {
  EXPECT_EQ(
      ErrorOf("rigid_bodies:\n  b: {shape: {type: sphere, radius: 0.1}, mass: 1, keyframes: [{time: 0}]}\n").message(),
      "'keyframes' does not apply to dynamic rigid bodies: only kinematic bodies follow keyframes (set 'type: "
      "kinematic')");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {type: static, shape: {type: sphere, radius: 0.1}, density: 1}\n").message(),
            "'density' does not apply to static rigid bodies: they are fixed in the world (infinite mass)");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {type: kinematic, shape: {type: plane}, keyframes: [{time: 0}]}\n").message(),
            "shape type 'plane' is only for static rigid bodies (a half-space cannot move)");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {shape: {type: capsule, radius: 0.1}, mass: 1}\n").message(),
            "missing required key 'length' in shape of rigid body 'b'");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {shape: {type: box, size: [1, 1, 1]}, mass: 1, color: [1, 1, 1]}\n").message(),
            "'color' must be a list of 4 numbers, got a list of 3");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {shape: {type: box, size: [1, 1, 1]}, mass: 1, friction: -0.5}\n").message(),
            "'friction' must be >= 0, got -0.5");
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b.1: {shape: {type: box, size: [1, 1, 1]}, mass: 1}\n").message(),
            "rigid body name 'b.1' must not contain '.' (it separates --set keys)");
  EXPECT_EQ(ErrorOf("contact: {frictoin: 1}\n").message(),
            "unknown key 'frictoin' in section 'contact'; did you mean "
            "'friction'?");
  EXPECT_EQ(ErrorOf("contact: {stiction_speed: 0}\n").message(), "'stiction_speed' must be > 0, got 0");
  // A rigid body and a robot share one set of names with the objects.
  const SceneError twice = ErrorOf(
      "rigid_bodies:\n  arm: {shape: {type: box, size: [1, 1, 1]}, mass: 1}\n"
      "robots:\n  arm: {urdf: assets/robots/iiwa7/iiwa7.urdf}\n");
  EXPECT_EQ(twice.line(), 4);
  EXPECT_EQ(twice.column(), 3);
  EXPECT_EQ(twice.message(),
            "robot name 'arm' is already used by rigid body 'arm' (line 2): objects, rigid bodies and robots need "
            "distinct names (outputs are keyed by name)");
}

TEST(RigidSections, MpmObjectsMayBeCapsulesInsideTheDomain) {
  const std::string head =
      "materials:\n  r: {model: fixed_corotated, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}\n"
      "objects:\n  o:\n    material: r\n    shape: {type: capsule, radius: 0.05, length: 0.3}\n";
  const SceneDesc scene = LoadSceneFromString(head + "    pose: {position: [0, 0, 0.5]}\n", "a.yaml");
  EXPECT_EQ(scene.objects[0].shape.type, ShapeType::kCapsule);
  // Lying along x, the segment's half-length 0.15 plus the radius 0.05 reaches x = 0.5 from x = 0.3.
  const SceneError e = ErrorOf(head + "    pose: {position: [0.31, 0, 0.5], rpy_deg: [0, 90, 0]}\n", "a.yaml");
  EXPECT_NE(e.message().find("its bounds are (0.11, -0.05, 0.45) to (0.51, 0.05, 0.55)"), std::string::npos)
      << e.what();
  // Colliders still refuse capsules.
  EXPECT_EQ(ErrorOf("colliders:\n  c: {shape: {type: capsule, radius: 0.1, length: 0.2}}\n").message(),
            "shape type 'capsule' is not supported for colliders (use plane, box, sphere or cylinder)");
}

}  // namespace
}  // namespace ductile
