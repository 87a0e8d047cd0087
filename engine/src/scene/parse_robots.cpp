// The `robots` section: a URDF file placed in the world, its joints' initial positions, PD controllers and
// constant efforts.
#include <cmath>

#include "ductile/multibody_desc.h"
#include "scene/scene_sections.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

namespace {

// The revolute or prismatic joint of `model` that `entry`'s key names.
const JointDesc& MovableJoint(const ParseContext& context, const Field& entry, const MultibodyDesc& model,
                              const std::string& owner) {
  const Reader& reader = context.reader();
  std::vector<std::string> movable;
  for (const JointDesc& j : model.joints)
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) movable.push_back(j.name);
  const JointDesc* joint = model.FindJoint(entry.key);
  if (joint == nullptr) {
    const std::string suggestion = DidYouMean(entry.key, movable);
    reader.FailAtKey(
        entry, "unknown joint '" + entry.key + "' in " + owner +
                   (suggestion.empty() ? " (movable joints: " + (movable.empty() ? "none" : JoinNames(movable)) + ")"
                                       : suggestion));
  }
  if (joint->type != JointType::kRevolute && joint->type != JointType::kPrismatic) {
    reader.FailAtKey(entry, "joint '" + entry.key + "' of " + owner + " is " + NameOf(joint->type) +
                                ": only revolute and prismatic joints take initial positions, controllers and efforts");
  }
  return *joint;
}

void CheckWithinLimits(const ParseContext& context, const Field& field, double q, const JointDesc& joint,
                       const std::string& what) {
  const Reader& reader = context.reader();
  if (q < joint.lower || q > joint.upper)
    reader.Fail(field, what + " must be within the joint's limits " + Limits(joint) + ", got " + field.node.Scalar());
}

JointControllerDesc ParseController(const ParseContext& context, const Field& entry, const MultibodyDesc& model,
                                    const std::string& owner) {
  const Reader& reader = context.reader();
  const JointDesc& joint = MovableJoint(context, entry, model, owner);
  JointControllerDesc controller;
  controller.joint = joint.name;
  controller.where = context.Where(entry);
  const std::string what = "controller of joint '" + joint.name + "' of " + owner;
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"robots", "", "controllers", ""}));
  map.Read(Row("robots.*.controllers.*.kp"), controller.kp);
  map.Read(Row("robots.*.controllers.*.kd"), controller.kd);
  if (controller.kp + controller.kd <= 0) {
    reader.Fail(entry.key_node, entry.path, what + " needs a positive 'kp' or 'kd' (both are 0)",
                {entry.path + ".kp", entry.path + ".kd"});
  }
  if (const auto target = map.Find("target")) {
    controller.target = reader.Number(*target);
    CheckWithinLimits(context, *target, controller.target, joint, "'target' of joint '" + joint.name + "'");
  } else if (joint.lower > 0 || joint.upper < 0) {
    reader.Fail(entry.key_node, entry.path,
                what + " needs a 'target': the default 0 is outside the joint's limits " + Limits(joint));
  }
  if (const auto feedforward = map.Find("feedforward")) controller.feedforward = reader.Number(*feedforward);
  return controller;
}

}  // namespace

RobotDesc ParseRobot(ParseContext& context, const Field& entry) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "robot");
  context.CheckWeldableName(entry, "robot");
  context.ClaimName(entry, "robot");
  RobotDesc robot;
  robot.name = entry.key;
  robot.where = context.Where(entry);
  const std::string what = "robot '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"robots", ""}));

  const Field urdf = map.Require("urdf");
  const std::string name = reader.Text(urdf);
  robot.urdf = context.Resolve(name);
  std::error_code ec;
  if (!std::filesystem::exists(robot.urdf, ec))
    reader.Fail(urdf, "URDF file '" + name + "' not found (looked for " + robot.urdf.string() + ")");
  // LoadUrdf's SceneError names the place in the URDF file, which is where the problem is.
  robot.model = std::make_shared<const MultibodyDesc>(LoadUrdf(robot.urdf));
  if (const auto pose = map.Find("pose")) robot.pose = ParsePose(context, *pose, what);
  map.Read("floating_base", robot.floating_base);

  if (const auto positions = map.Find("initial_positions")) {
    for (const Field& joint_entry : reader.Entries(*positions, "'initial_positions' of " + what)) {
      const JointDesc& joint = MovableJoint(context, joint_entry, *robot.model, what);
      const double q = reader.Number(joint_entry);
      CheckWithinLimits(context, joint_entry, q, joint, "initial position of joint '" + joint.name + "'");
      robot.initial_positions[joint.name] = q;
    }
  }
  if (const auto controllers = map.Find("controllers")) {
    for (const Field& joint_entry : reader.Entries(*controllers, "'controllers' of " + what))
      robot.controllers.push_back(ParseController(context, joint_entry, *robot.model, what));
  }
  if (const auto efforts = map.Find("joint_efforts")) {
    for (const Field& joint_entry : reader.Entries(*efforts, "'joint_efforts' of " + what)) {
      const JointDesc& joint = MovableJoint(context, joint_entry, *robot.model, what);
      const double effort = reader.Number(joint_entry);
      // The limit is infinite when the URDF gives none.
      if (std::abs(effort) > joint.effort) {
        reader.Fail(joint_entry, "effort of joint '" + joint.name + "' must not exceed the joint's URDF effort limit " +
                                     FormatNumber(joint.effort) + " " + EffortUnit(joint) + " in magnitude, got " +
                                     joint_entry.node.Scalar());
      }
      robot.joint_efforts[joint.name] = effort;
    }
  }
  return robot;
}

}  // namespace ductile::scene
