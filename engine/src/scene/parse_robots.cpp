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
  {  // its gains, target and feed-forward through their rows, held by a robot of its own
    SceneDesc held;
    held.robots.resize(1);  // a robot without a name
    held.robots[0].controllers.push_back(controller);
    map.ReadRows("robots.*.controllers.*.", {std::string(), controller.joint}, held);
    controller = held.robots[0].controllers[0];
  }
  if (controller.kp + controller.kd <= 0) {
    reader.Fail(entry.key_node, entry.path, what + " needs a positive 'kp' or 'kd' (both are 0)",
                {entry.path + ".kp", entry.path + ".kd"});
  }
  if (const auto target = map.Find("target")) {
    CheckWithinLimits(context, *target, controller.target, joint, "'target' of joint '" + joint.name + "'");
  } else if (joint.lower > 0 || joint.upper < 0) {
    reader.Fail(entry.key_node, entry.path,
                what + " needs a 'target': the default 0 is outside the joint's limits " + Limits(joint));
  }
  return controller;
}

// A keyframe's `gripper: {opening, force}`: opening in [0, 1] (default 1 with a force, else required), force ≥ 0.
void ReadGripper(const ParseContext& context, const Field& field, const std::string& what,
                 ScriptKeyframeDesc& keyframe) {
  const Reader& reader = context.reader();
  const MapFields map(reader, field, "'gripper' of " + what);
  map.CheckKeys(KeysOf({"robots", "", "script", "keyframes", "", "gripper"}));
  keyframe.has_gripper = true;
  keyframe.gripper_opening = 1;
  map.Read("force", keyframe.gripper_force, NonNegative());
  if (keyframe.gripper_force == 0 && !map.Find("opening"))
    reader.Fail(field, "'gripper' of " + what + " needs an 'opening' (0 closed to 1 open) or a squeeze 'force' [N]");
  map.Read("opening", keyframe.gripper_opening, Between(0, 1, false, false));
}

// `script`: the tool link (a link of the URDF), the tool point, and keyframes from t ≥ 0, strictly increasing.
RobotScriptDesc ParseScript(const ParseContext& context, const Field& field, const MultibodyDesc& model,
                            const std::string& owner) {
  const Reader& reader = context.reader();
  const std::string what = "'script' of " + owner;
  const MapFields map(reader, field, what);
  map.CheckKeys(KeysOf({"robots", "", "script"}));
  RobotScriptDesc script;
  script.where = context.Where(field);
  const Field link = map.Require("link");
  script.link = reader.Text(link);
  if (model.FindLink(script.link) == nullptr) {
    std::vector<std::string> links;
    for (const LinkDesc& l : model.links) links.push_back(l.name);
    const std::string suggestion = DidYouMean(script.link, links);
    reader.Fail(link, "unknown link '" + script.link + "' in " + what +
                          (suggestion.empty() ? " (links: " + JoinNames(links) + ")" : suggestion));
  }
  map.Read("tool_point", script.tool_point);
  map.Read("track_orientation", script.track_orientation);
  if (const auto interpolation = map.Find("interpolation"))
    script.interpolation = reader.Choice(*interpolation, "keyframe interpolation", KeyframeInterpolationNames());
  const Field keyframes = map.Require("keyframes");
  const std::vector<Field> items = reader.Items(keyframes, "'keyframes' of " + what);
  if (items.empty()) reader.Fail(keyframes, "'keyframes' of " + what + " must list at least one keyframe");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string keyframe_what = "keyframe " + std::to_string(i) + " of " + what;
    const MapFields keyframe_map(reader, items[i], keyframe_what);
    keyframe_map.CheckKeys(KeysOf({"robots", "", "script", "keyframes", ""}));
    ScriptKeyframeDesc keyframe;
    keyframe.where = context.Where(items[i]);
    const Field time = keyframe_map.Require("time");
    keyframe.time = reader.Number(time, NonNegative());
    if (i > 0 && keyframe.time <= script.keyframes.back().time) {
      reader.Fail(time, "keyframe times must increase strictly: " + keyframe_what + " has 'time' " +
                            time.node.Scalar() + ", not after keyframe " + std::to_string(i - 1) + "'s " +
                            FormatNumber(script.keyframes.back().time));
    }
    keyframe_map.Require("position");  // a waypoint without a place is a mistake, not the origin
    keyframe.pose = ReadPose(context, keyframe_map, keyframe_what);
    if (const auto gripper = keyframe_map.Find("gripper")) ReadGripper(context, *gripper, keyframe_what, keyframe);
    script.keyframes.push_back(keyframe);
  }
  return script;
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
  if (const auto script = map.Find("script")) robot.script = ParseScript(context, *script, *robot.model, what);
  map.ReadEntryRows("robots.*.", &SceneDesc::robots, robot);  // the link force limit
  return robot;
}

}  // namespace ductile::scene
