// Rigid bodies on joints (`rigid_bodies: NAME: joint:`): the good scene loads with the values it spells (a
// rolling pin on a kinematic carrier, a door hinged to the world, a panel on a rail along a static wall, a handle
// fixed to the door), `--set` reaches every joint key, inline scenes show the checks that the bad-scene table
// does not, and welds see how a body on a joint moves.
#include <cmath>
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

const std::filesystem::path kScene = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes" / "body_joints.yaml";
constexpr double kInfinity = std::numeric_limits<double>::infinity();
const double kHalfSqrt2 = std::sqrt(0.5);

SceneDesc LoadWith(const std::vector<std::string>& sets) {
  return testing::LoadWith(kScene, sets);
}

SceneError ErrorOf(const std::string& text, const std::vector<std::string>& sets = {}) {
  return testing::ErrorOf(text, "a.yaml", sets);
}

std::string OverrideMessage(const std::vector<std::string>& sets) {
  return testing::OverrideMessage(kScene, sets);
}

TEST(BodyJoints, FullSceneHasEveryValue) {
  const SceneDesc scene = LoadScene(kScene);
  ASSERT_EQ(scene.rigid_bodies.size(), 6u);

  // A body without a joint has none.
  const RigidBodyDesc& carrier = scene.rigid_bodies[0];
  EXPECT_EQ(carrier.name, "carrier");
  EXPECT_FALSE(carrier.has_joint);
  EXPECT_FALSE(scene.rigid_bodies[3].has_joint);  // wall

  // The rolling pin: every key of a revolute joint.
  const RigidBodyDesc& pin = scene.rigid_bodies[1];
  EXPECT_EQ(pin.name, "pin");
  EXPECT_EQ(pin.type, RigidBodyType::kDynamic);
  EXPECT_DOUBLE_EQ(pin.mass, 0.5);
  ASSERT_TRUE(pin.has_joint);
  const BodyJointDesc& roll = pin.joint;
  EXPECT_EQ(roll.type, JointType::kRevolute);
  EXPECT_EQ(roll.parent, "carrier");
  ExpectVector(roll.origin.position, {0, 0, -0.05});
  ExpectQuaternion(roll.origin.quaternion, {kHalfSqrt2, kHalfSqrt2, 0, 0});  // rpy_deg [90, 0, 0].
  ExpectVector(roll.axis, {0, 0, 1});                                        // [0, 0, 2] normalised.
  EXPECT_DOUBLE_EQ(roll.position, 0.5);
  EXPECT_DOUBLE_EQ(roll.lower, -1);
  EXPECT_DOUBLE_EQ(roll.upper, 1);
  EXPECT_DOUBLE_EQ(roll.damping, 0.1);
  EXPECT_DOUBLE_EQ(roll.effort, 50);
  EXPECT_DOUBLE_EQ(roll.effort_applied, 2);
  EXPECT_DOUBLE_EQ(roll.kp, 100);
  EXPECT_DOUBLE_EQ(roll.kd, 5);
  EXPECT_DOUBLE_EQ(roll.target, 0.2);
  EXPECT_EQ(roll.where.file, kScene.string());
  EXPECT_EQ(roll.where.line, 14);  // The `joint` key.
  EXPECT_EQ(roll.where.column, 5);
  // Its pose and velocities stay at their defaults: the joint places it.
  ExpectIdentity(pin.pose);
  ExpectVector(pin.velocity, {0, 0, 0});
  ExpectVector(pin.angular_velocity, {0, 0, 0});

  // The door: a hinge to the world with every omitted key at its default.
  const RigidBodyDesc& door = scene.rigid_bodies[2];
  EXPECT_EQ(door.name, "door");
  EXPECT_DOUBLE_EQ(door.density, 600);
  ASSERT_TRUE(door.has_joint);
  const BodyJointDesc& hinge = door.joint;
  EXPECT_EQ(hinge.type, JointType::kRevolute);
  EXPECT_EQ(hinge.parent, "world");
  ExpectVector(hinge.origin.position, {0.5, 0, 0.4});
  ExpectQuaternion(hinge.origin.quaternion, {0, 0, 0, 1});  // [0, 0, 0, 2] normalised.
  ExpectVector(hinge.axis, {0, 0, 1});
  EXPECT_EQ(hinge.position, 0);
  EXPECT_EQ(hinge.lower, -kInfinity);
  EXPECT_EQ(hinge.upper, kInfinity);
  EXPECT_EQ(hinge.damping, 0);
  EXPECT_EQ(hinge.effort, kInfinity);
  EXPECT_EQ(hinge.effort_applied, 0);
  EXPECT_EQ(hinge.kp, 0);
  EXPECT_EQ(hinge.kd, 0);
  EXPECT_EQ(hinge.target, 0);
  EXPECT_EQ(hinge.where.line, 31);
  EXPECT_EQ(hinge.where.column, 5);

  // The panel: a prismatic joint on a static body, which keeps its force.
  const RigidBodyDesc& panel = scene.rigid_bodies[4];
  EXPECT_EQ(panel.name, "panel");
  ExpectVector(panel.force, {0, 0, 2});
  ASSERT_TRUE(panel.has_joint);
  const BodyJointDesc& rail = panel.joint;
  EXPECT_EQ(rail.type, JointType::kPrismatic);
  EXPECT_EQ(rail.parent, "wall");
  ExpectIdentity(rail.origin);
  ExpectVector(rail.axis, {1, 0, 0});
  EXPECT_DOUBLE_EQ(rail.lower, 0);
  EXPECT_DOUBLE_EQ(rail.upper, 0.6);
  EXPECT_DOUBLE_EQ(rail.position, 0.1);
  EXPECT_EQ(rail.where.line, 42);

  // The handle: a fixed joint to the door takes only its origin.
  const RigidBodyDesc& handle = scene.rigid_bodies[5];
  EXPECT_EQ(handle.name, "handle");
  ASSERT_TRUE(handle.has_joint);
  EXPECT_EQ(handle.joint.type, JointType::kFixed);
  EXPECT_EQ(handle.joint.parent, "door");
  ExpectVector(handle.joint.origin.position, {0.15, -0.03, 0});
  ExpectQuaternion(handle.joint.origin.quaternion, {1, 0, 0, 0});
  EXPECT_EQ(handle.joint.where.line, 52);
  EXPECT_EQ(handle.joint.where.column, 5);
}

TEST(BodyJoints, OverridesSetEveryJointKey) {
  const SceneDesc scene = LoadWith(
      {"rigid_bodies.pin.joint.kp=200", "rigid_bodies.pin.joint.kd=0", "rigid_bodies.pin.joint.axis.0=2",
       "rigid_bodies.pin.joint.origin.rpy_deg.0=0", "rigid_bodies.pin.joint.origin.position.2=0.01",
       "rigid_bodies.pin.joint.parent=world", "rigid_bodies.pin.joint.lower=-2", "rigid_bodies.pin.joint.upper=0",
       "rigid_bodies.pin.joint.position=-1.5", "rigid_bodies.pin.joint.target=-0.5", "rigid_bodies.pin.joint.damping=0",
       "rigid_bodies.pin.joint.effort=3", "rigid_bodies.pin.joint.effort_applied=-3",
       "rigid_bodies.door.joint.type=prismatic", "rigid_bodies.door.joint.axis.1=1",
       "rigid_bodies.door.joint.origin.quaternion=[1, 0, 0, 0]", "rigid_bodies.handle.joint.parent=panel",
       "rigid_bodies.handle.joint.type=revolute"});
  const BodyJointDesc& roll = scene.rigid_bodies[1].joint;
  EXPECT_DOUBLE_EQ(roll.kp, 200);
  EXPECT_DOUBLE_EQ(roll.kd, 0);
  ExpectVector(roll.axis, {kHalfSqrt2, 0, kHalfSqrt2});  // [2, 0, 2] normalised.
  ExpectVector(roll.origin.position, {0, 0, 0.01});
  ExpectQuaternion(roll.origin.quaternion, {1, 0, 0, 0});
  EXPECT_EQ(roll.parent, "world");
  EXPECT_DOUBLE_EQ(roll.lower, -2);
  EXPECT_DOUBLE_EQ(roll.upper, 0);
  EXPECT_DOUBLE_EQ(roll.position, -1.5);
  EXPECT_DOUBLE_EQ(roll.target, -0.5);
  EXPECT_DOUBLE_EQ(roll.damping, 0);
  EXPECT_DOUBLE_EQ(roll.effort, 3);
  EXPECT_DOUBLE_EQ(roll.effort_applied, -3);
  // An element of an omitted axis starts from the default [0, 0, 1].
  const BodyJointDesc& hinge = scene.rigid_bodies[2].joint;
  EXPECT_EQ(hinge.type, JointType::kPrismatic);
  ExpectVector(hinge.axis, {0, kHalfSqrt2, kHalfSqrt2});
  ExpectQuaternion(hinge.origin.quaternion, {1, 0, 0, 0});
  // A fixed joint becomes a revolute one with the defaults; a parent may be any earlier body.
  const BodyJointDesc& grip = scene.rigid_bodies[5].joint;
  EXPECT_EQ(grip.type, JointType::kRevolute);
  EXPECT_EQ(grip.parent, "panel");
  ExpectVector(grip.axis, {0, 0, 1});
  ExpectVector(grip.origin.position, {0.15, -0.03, 0});
}

TEST(BodyJoints, OverridesMayAddAJoint) {
  const std::string text = "rigid_bodies:\n  b: {shape: {type: sphere, radius: 0.1}, mass: 1}\n";
  std::vector<Override> overrides{ParseOverride("rigid_bodies.b.joint.parent=world"),
                                  ParseOverride("rigid_bodies.b.joint.position=0.25")};
  const SceneDesc scene = LoadSceneFromString(text, "a.yaml", overrides);
  ASSERT_TRUE(scene.rigid_bodies[0].has_joint);
  EXPECT_EQ(scene.rigid_bodies[0].joint.parent, "world");
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[0].joint.position, 0.25);
  EXPECT_EQ(scene.rigid_bodies[0].joint.type, JointType::kRevolute);
  // Added to a body with a pose, the joint's override takes the blame.
  const SceneError e =
      ErrorOf("rigid_bodies:\n  b: {shape: {type: sphere, radius: 0.1}, mass: 1, pose: {position: [0, 0, 1]}}\n",
              {"rigid_bodies.b.joint.parent=world"});
  EXPECT_EQ(e.file(), "--set");
  EXPECT_EQ(e.message(),
            "--set rigid_bodies.b.joint.parent=world: 'pose' does not apply to rigid body 'b', which hangs on a "
            "'joint': its pose follows from the joint's 'parent', 'origin' and 'position'");
}

TEST(BodyJoints, OverrideErrorsNameTheOverride) {
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.kpp=1"}),
            "--set rigid_bodies.pin.joint.kpp=1: unknown key 'kpp' in 'rigid_bodies.pin.joint'; did you mean 'kp'?");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.axis.3=1"}),
            "--set rigid_bodies.pin.joint.axis.3=1: '3' is not an element of 'rigid_bodies.pin.joint.axis' (indices 0 "
            "to 2)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.axis=[0, 0, 0]"}),
            "--set rigid_bodies.pin.joint.axis=[0, 0, 0]: 'axis' must not be zero");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.kd=-1"}),
            "--set rigid_bodies.pin.joint.kd=-1: 'kd' must be >= 0, got -1");
  // Limits that no longer hold the file's position or target: the override of the limit takes the blame.
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.upper=0.4"}),
            "--set rigid_bodies.pin.joint.upper=0.4: 'position' of joint of rigid body 'pin' must be within the "
            "joint's limits [-1, 0.4] rad, got 0.5");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.lower=0.3"}),
            "--set rigid_bodies.pin.joint.lower=0.3: 'target' of joint of rigid body 'pin' must be within the "
            "joint's limits [0.3, 1] rad, got 0.2");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.lower=2"}),
            "--set rigid_bodies.pin.joint.lower=2: joint of rigid body 'pin' has 'lower' 2 above 'upper' 1: the "
            "limits need lower <= upper");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.effort=1"}),
            "--set rigid_bodies.pin.joint.effort=1: 'effort_applied' of rigid body 'pin' must not exceed the joint's "
            "'effort' limit 1 N·m in magnitude, got 2");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.parent=door"}),
            "--set rigid_bodies.pin.joint.parent=door: parent 'door' of rigid body 'pin' is defined later in the file "
            "(line 28): a parent must come before the bodies on its joints in 'rigid_bodies'");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.parent=carrer"}),
            "--set rigid_bodies.pin.joint.parent=carrer: unknown parent 'carrer' of rigid body 'pin'; did you mean "
            "'carrier'?");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.pin.joint.type=spherical"}),
            "--set rigid_bodies.pin.joint.type=spherical: unknown joint type 'spherical' (one of: revolute, "
            "prismatic, fixed)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.handle.joint.kp=1"}),
            "--set rigid_bodies.handle.joint.kp=1: 'kp' does not apply to fixed joints: they hold the body at "
            "'origin' with no degree of freedom (only revolute and prismatic joints move)");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.wall.joint.parent=world"}),
            "--set rigid_bodies.wall.joint.parent=world: 'joint' does not apply to static rigid bodies: they are "
            "fixed in the world; only dynamic bodies hang on a joint (a static body may be a joint's 'parent')");
  EXPECT_EQ(OverrideMessage({"rigid_bodies.door.velocity.0=1"}),
            "--set rigid_bodies.door.velocity.0=1: 'velocity' does not apply to rigid body 'door', which hangs on a "
            "'joint': it starts moving with its 'parent' (the joint at rest)");
}

TEST(BodyJoints, JointErrors) {
  const std::string head =
      "rigid_bodies:\n"
      "  carrier: {type: kinematic, shape: {type: sphere, radius: 0.01}, keyframes: [{time: 0}]}\n"
      "  b:\n"
      "    shape: {type: sphere, radius: 0.1}\n"
      "    mass: 1\n";
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {type: static, shape: {type: plane}, joint: {parent: world}}\n").message(),
            "'joint' does not apply to static rigid bodies: they are fixed in the world; only dynamic bodies hang on "
            "a joint (a static body may be a joint's 'parent')");
  EXPECT_EQ(ErrorOf(head + "    joint: world\n").message(), "joint of rigid body 'b' must be a map, got 'world'");
  const SceneError unknown_key = ErrorOf(head + "    joint: {parent: world, axes: [1, 0, 0]}\n");
  EXPECT_EQ(unknown_key.message(), "unknown key 'axes' in joint of rigid body 'b'; did you mean 'axis'?");
  EXPECT_EQ(unknown_key.line(), 6);
  EXPECT_EQ(unknown_key.column(), 28);
  EXPECT_EQ(ErrorOf(head + "    joint: {type: revolut, parent: world}\n").message(),
            "unknown joint type 'revolut'; did you mean 'revolute'? (one of: revolute, prismatic, fixed)");
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: [world]}\n").message(), "'parent' must be a name, got a list of 1");
  // Without a close match the message lists the bodies a parent may be.
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: shelf}\n").message(),
            "unknown parent 'shelf' of rigid body 'b' (a parent is 'world' or a rigid body defined before it: world, "
            "carrier)");
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, origin: {positon: [0, 0, 1]}}\n").message(),
            "unknown key 'positon' in 'origin' of joint of rigid body 'b'; did you mean 'position'?");
  EXPECT_EQ(
      ErrorOf(head + "    joint: {parent: world, origin: {rpy_deg: [0, 0, 1], quaternion: [1, 0, 0, 0]}}\n").message(),
      "'origin' of joint of rigid body 'b' takes either 'rpy_deg' or 'quaternion', not both");
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, axis: [0, 1]}\n").message(),
            "'axis' must be a list of 3 numbers, got a list of 2");
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, upper: .inf}\n").message(), "'upper' must be finite, got .inf");
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, damping: -0.1}\n").message(),
            "'damping' must be >= 0, got -0.1");
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, effort: 0}\n").message(), "'effort' must be > 0, got 0");
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, kp: -1}\n").message(), "'kp' must be >= 0, got -1");
  EXPECT_EQ(
      ErrorOf(head + "    joint: {type: prismatic, parent: world, effort: 10, effort_applied: 10.5}\n").message(),
      "'effort_applied' of rigid body 'b' must not exceed the joint's 'effort' limit 10 N in magnitude, got 10.5");
  // An omitted position is 0, which must be within the limits; a one-sided limit leaves the other side open.
  const SceneError position = ErrorOf(head + "    joint: {type: prismatic, parent: world, lower: 0.1, upper: 0.5}\n");
  EXPECT_EQ(position.message(),
            "joint of rigid body 'b' needs a 'position': the default 0 is outside the joint's limits [0.1, 0.5] m");
  EXPECT_EQ(position.line(), 6);
  EXPECT_EQ(position.column(), 5);
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, lower: 0, position: -0.5}\n").message(),
            "'position' of joint of rigid body 'b' must be within the joint's limits [0, inf] rad, got -0.5");
  // A target given without a controller must still be within the limits.
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, lower: -1, upper: 1, target: 2}\n").message(),
            "'target' of joint of rigid body 'b' must be within the joint's limits [-1, 1] rad, got 2");
  EXPECT_EQ(ErrorOf(head + "    joint: {type: fixed, parent: carrier, position: 0}\n").message(),
            "'position' does not apply to fixed joints: they hold the body at 'origin' with no degree of freedom "
            "(only revolute and prismatic joints move)");
  EXPECT_EQ(ErrorOf(head + "    velocity: [0, 0, 1]\n    joint: {parent: world}\n").message(),
            "'velocity' does not apply to rigid body 'b', which hangs on a 'joint': it starts moving with its "
            "'parent' (the joint at rest)");
  // A body on a joint still needs a mass.
  EXPECT_EQ(ErrorOf("rigid_bodies:\n  b: {shape: {type: sphere, radius: 0.1}, joint: {parent: world}}\n").message(),
            "missing required key 'mass' or 'density' in dynamic rigid body 'b'");
}

TEST(BodyJoints, OptionalValuesMayBeOmitted) {
  const std::string head = "rigid_bodies:\n  b:\n    shape: {type: sphere, radius: 0.1}\n    mass: 1\n";
  // Without a controller the default target 0 may lie outside the limits: it is not used.
  const SceneDesc scene = LoadSceneFromString(
      head + "    joint: {type: prismatic, parent: world, lower: 0.1, upper: 0.5, position: 0.2}\n", "a.yaml");
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[0].joint.target, 0);
  EXPECT_DOUBLE_EQ(scene.rigid_bodies[0].joint.position, 0.2);
  // Without an effort limit any finite constant effort is allowed.
  const SceneDesc unbounded =
      LoadSceneFromString(head + "    joint: {parent: world, effort_applied: -1.0e6, upper: 3}\n", "a.yaml");
  EXPECT_DOUBLE_EQ(unbounded.rigid_bodies[0].joint.effort_applied, -1e6);
  EXPECT_EQ(unbounded.rigid_bodies[0].joint.lower, -kInfinity);
  EXPECT_DOUBLE_EQ(unbounded.rigid_bodies[0].joint.upper, 3);
  // The controller's default target must be within the limits.
  EXPECT_EQ(ErrorOf(head + "    joint: {parent: world, lower: 0.1, upper: 0.5, position: 0.2, kd: 1}\n").message(),
            "joint of rigid body 'b' needs a 'target': the default 0 is outside the joint's limits [0.1, 0.5] rad");
}

TEST(BodyJoints, WeldsSeeHowAJointedBodyMoves) {
  const std::string bodies =
      "rigid_bodies:\n"
      "  carrier: {type: kinematic, shape: {type: sphere, radius: 0.01}, keyframes: [{time: 0}]}\n"
      "  table: {type: static, shape: {type: box, size: [1, 1, 0.1]}}\n"
      "  crate: {shape: {type: box, size: [0.1, 0.1, 0.1]}, mass: 1}\n"
      "  pin: {shape: {type: sphere, radius: 0.01}, mass: 1, joint: {parent: carrier}}\n"
      "  rider: {shape: {type: sphere, radius: 0.01}, mass: 1, joint: {type: fixed, parent: carrier}}\n"
      "  plate: {shape: {type: sphere, radius: 0.01}, mass: 1, joint: {type: fixed, parent: world}}\n"
      "  bolt: {shape: {type: sphere, radius: 0.01}, mass: 1, joint: {type: fixed, parent: plate}}\n"
      "  leg: {shape: {type: sphere, radius: 0.01}, mass: 1, joint: {type: fixed, parent: table}}\n"
      "  lid: {shape: {type: sphere, radius: 0.01}, mass: 1, joint: {type: fixed, parent: crate}}\n"
      "  slider: {shape: {type: sphere, radius: 0.01}, mass: 1, joint: {type: prismatic, parent: table}}\n";
  // A moving joint frees the body whatever its parent; a fixed joint to a free body leaves it free.
  const SceneDesc scene = LoadSceneFromString(bodies +
                                                  "welds:\n"
                                                  "  a: {body_a: world, body_b: pin}\n"
                                                  "  b: {body_a: carrier, body_b: lid}\n"
                                                  "  c: {body_a: table, body_b: slider}\n",
                                              "a.yaml");
  ASSERT_EQ(scene.welds.size(), 3u);
  EXPECT_EQ(scene.welds[0].body_b, "pin");
  // A fixed joint to a kinematic body: prescribed, as that body is.
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: rider, body_b: world}\n").message(),
            "weld 'w' joins dynamic rigid body 'rider' (on a fixed joint to 'carrier') and the world, which no force "
            "moves: nothing for the weld to act on (one of them must be a dynamic rigid body or a robot link behind a "
            "moving joint)");
  // Fixed joints to the world or a static body, also through another body fixed to the world: fixed.
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: bolt, body_b: leg}\n").message(),
            "weld 'w' joins dynamic rigid body 'bolt' (on a fixed joint to 'plate') and dynamic rigid body 'leg' (on a "
            "fixed joint to 'table'), which are both fixed in the world: nothing to move (one of them must be a "
            "dynamic rigid body or a robot link behind a moving joint)");
  EXPECT_EQ(ErrorOf(bodies + "welds:\n  w: {body_a: carrier, body_b: plate}\n").message(),
            "weld 'w' joins kinematic rigid body 'carrier' and dynamic rigid body 'plate' (on a fixed joint to the "
            "world), which no force moves: nothing for the weld to act on (one of them must be a dynamic rigid body "
            "or a robot link behind a moving joint)");
}

}  // namespace
}  // namespace ductile
