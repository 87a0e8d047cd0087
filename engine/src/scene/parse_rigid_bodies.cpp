// The `rigid_bodies` section: a body's type, shape, mass, initial motion, loads, keyframes (kinematic bodies) and
// joint to a parent (dynamic bodies on a joint), with the keys each type takes.
#include <algorithm>
#include <cmath>

#include "scene/desc_eigen.h"
#include "scene/scene_sections.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

namespace {

// Why `key` does not apply to a rigid body of `type` (it is a key of another type), after "'KEY' ".
std::string NotApplicableToRigidBody(RigidBodyType type, const std::string& key) {
  const std::string prefix = "does not apply to " + NameOf(type) + " rigid bodies: ";
  if (key == "keyframes") return prefix + "only kinematic bodies follow keyframes (set 'type: kinematic')";
  if (key == "interpolation")
    return prefix +
           "only kinematic bodies follow keyframes, and 'interpolation' says how they move between them "
           "(set 'type: kinematic')";
  if (key == "joint") {
    const std::string reason =
        type == RigidBodyType::kStatic ? "they are fixed in the world" : "they follow their 'keyframes'";
    return prefix + reason + "; only dynamic bodies hang on a joint (a " + NameOf(type) +
           " body may be a joint's 'parent')";
  }
  switch (type) {
    case RigidBodyType::kStatic:
      if (key == "mass" || key == "density") return prefix + "they are fixed in the world (infinite mass)";
      if (key == "force" || key == "torque") return prefix + "they are fixed in the world, no force moves them";
      return prefix + "they do not move";
    case RigidBodyType::kKinematic:
      if (key == "pose") return prefix + "they follow their 'keyframes' (the first keyframe gives the initial pose)";
      if (key == "mass" || key == "density" || key == "force" || key == "torque")
        return prefix + "they follow their keyframes whatever the forces (infinite mass)";
      return prefix + "their motion comes from their 'keyframes'";
    case RigidBodyType::kDynamic:
      break;
  }
  return prefix + "it is not one of their keys";
}

// A body on a joint starts where its parent and the joint put it, moving with its parent: it has no `pose`,
// `velocity` or `angular_velocity` of its own. An override that added the joint takes the blame.
void CheckNoInitialMotion(const ParseContext& context, const MapFields& map, const Field& joint,
                          const std::string& what) {
  const Reader& reader = context.reader();
  const std::vector<std::string> blame =
      joint.key_node.Mark().is_null() ? std::vector<std::string>{joint.path} : std::vector<std::string>{};
  if (const auto pose = map.Find("pose")) {
    reader.Fail(pose->key_node, pose->path,
                "'pose' does not apply to " + what +
                    ", which hangs on a 'joint': its pose follows from the joint's 'parent', 'origin' and "
                    "'position'",
                blame);
  }
  for (const char* key : {"velocity", "angular_velocity"}) {
    if (const auto velocity = map.Find(key)) {
      reader.Fail(velocity->key_node, velocity->path,
                  "'" + velocity->key + "' does not apply to " + what +
                      ", which hangs on a 'joint': it starts moving with its 'parent' (the joint at rest)",
                  blame);
    }
  }
}

// A joint's parent: "world", or a rigid body before `body` in the file (of any type; a static body's pose is
// then the parent frame). Parents come first, so the bodies form a tree whose parents are known first.
std::string ParseParent(const ParseContext& context, const Field& field, const std::string& body,
                        const std::vector<Field>& entries, const std::vector<RigidBodyDesc>& earlier) {
  const Reader& reader = context.reader();
  std::string parent = reader.Text(field);
  std::vector<std::string> names{"world"};
  for (const RigidBodyDesc& b : earlier) names.push_back(b.name);
  if (std::find(names.begin(), names.end(), parent) != names.end()) return parent;
  if (parent == body) reader.Fail(field, "rigid body '" + body + "' cannot be its own 'parent'");
  for (const Field& entry : entries) {
    if (entry.key == parent) {
      // NOLINTNEXTLINE(performance-inefficient-string-concatenation): once, for the error
      reader.Fail(field, "parent '" + parent + "' of rigid body '" + body + "' is defined later in the file (line " +
                             std::to_string(entry.key_node.Mark().line + 1) +
                             "): a parent must come before the bodies on its joints in 'rigid_bodies'");
    }
  }
  const std::string suggestion = DidYouMean(parent, names);
  reader.Fail(field, "unknown parent '" + parent + "' of rigid body '" + body + "'" +
                         (suggestion.empty()
                              ? " (a parent is 'world' or a rigid body defined before it: " + JoinNames(names) + ")"
                              : suggestion));
}

// The joint's `key` (position or target), `q` as its row read it (0 when omitted): within the joint's limits when
// given, and 0 must be within them when it is omitted and `required_in_limits`.
void CheckJointValue(const ParseContext& context, const MapFields& map, const Field& field, const std::string& key,
                     double q, const std::string& what, const BodyJointDesc& joint,
                     const std::vector<std::string>& limits, bool required_in_limits) {
  const Reader& reader = context.reader();
  const auto value = map.Find(key);
  const bool inside = joint.lower <= q && q <= joint.upper;
  if (value && !inside) {
    reader.Fail(value->node, value->path,
                "'" + key + "' of " + what + " must be within the joint's limits " + Limits(joint) + ", got " +
                    value->node.Scalar(),
                limits);
  }
  if (!value && !inside && required_in_limits) {
    reader.Fail(field.key_node, field.path,
                what + " needs a '" + key + "': the default 0 is outside the joint's limits " + Limits(joint), limits);
  }
}

// A dynamic body's `joint` (`field`): its type, a parent defined earlier in the file (`earlier`) or the world,
// the joint frame in the parent's frame, and for a revolute or prismatic joint its axis, initial position,
// limits, damping, effort limit, constant effort and PD controller. `body` is the name of the body it carries,
// `entries` all the entries of the section (to tell a parent defined later from an unknown one).
BodyJointDesc ParseBodyJoint(const ParseContext& context, const Field& field, const std::string& body,
                             const std::vector<Field>& entries, const std::vector<RigidBodyDesc>& earlier) {
  const Reader& reader = context.reader();
  BodyJointDesc joint;
  joint.where = context.Where(field);
  const std::string owner = "rigid body '" + body + "'";
  const std::string what = "joint of " + owner;
  const MapFields map(reader, field, what);
  if (const auto type = map.Find("type")) joint.type = reader.Choice(*type, "joint type", BodyJointTypeNames());
  map.CheckKeys(BodyJointKeys(joint.type), KeysOf({"rigid_bodies", "", "joint"}),
                "does not apply to fixed joints: they hold the body at 'origin' with no degree of freedom "
                "(only revolute and prismatic joints move)");
  joint.parent = ParseParent(context, map.Require("parent"), body, entries, earlier);
  if (const auto origin = map.Find("origin")) {
    const MapFields origin_map(reader, *origin, "'origin' of " + what);
    origin_map.CheckKeys(KeysOf({"rigid_bodies", "", "joint", "origin"}));
    joint.origin = ReadPose(context, origin_map, "'origin' of " + what);
  }
  if (joint.type == JointType::kFixed) return joint;

  if (const auto axis = map.Find("axis")) {
    const Eigen::Vector3d a = ToEigen(reader.Numbers<3>(*axis));
    if (a.norm() == 0) reader.Fail(*axis, "'axis' must not be zero");
    joint.axis = {a.x() / a.norm(), a.y() / a.norm(), a.z() / a.norm()};
  }
  // Every row of a joint through its binding (the joint held by a body of a scene of its own); the limits, the
  // applied effort, the initial position and the target are then checked against each other.
  {
    SceneDesc held;
    held.rigid_bodies.resize(1);  // a dynamic body without a name
    held.rigid_bodies[0].has_joint = true;
    held.rigid_bodies[0].joint = joint;
    map.ReadRows("rigid_bodies.*.joint.", {std::string()}, held);
    joint = held.rigid_bodies[0].joint;
  }
  const auto lower = map.Find("lower");
  const std::vector<std::string> limits{field.path + ".lower", field.path + ".upper"};
  if (lower && map.Find("upper") && joint.lower > joint.upper) {
    reader.Fail(lower->node, lower->path,
                what + " has 'lower' " + FormatNumber(joint.lower) + " above 'upper' " + FormatNumber(joint.upper) +
                    ": the limits need lower <= upper",
                limits);
  }
  if (const auto applied = map.Find("effort_applied")) {
    if (std::abs(joint.effort_applied) > joint.effort) {
      reader.Fail(applied->node, applied->path,
                  "'effort_applied' of " + owner + " must not exceed the joint's 'effort' limit " +
                      FormatNumber(joint.effort) + " " + EffortUnit(joint) + " in magnitude, got " +
                      applied->node.Scalar(),
                  {field.path + ".effort"});
    }
  }
  // The initial position always counts; the target only with a controller (kp or kd > 0), yet a target that
  // is given must be reachable.
  CheckJointValue(context, map, field, "position", joint.position, what, joint, limits, true);
  const bool controlled = joint.kp + joint.kd > 0;
  CheckJointValue(context, map, field, "target", joint.target, what, joint, limits, controlled);
  return joint;
}

// At least one keyframe; times from 0 on, strictly increasing.
std::vector<KeyframeDesc> ParseKeyframes(const ParseContext& context, const Field& field, const std::string& owner) {
  const Reader& reader = context.reader();
  const std::vector<Field> items = reader.Items(field, "'keyframes' of " + owner);
  if (items.empty()) reader.Fail(field, "'keyframes' of " + owner + " must list at least one keyframe");
  std::vector<KeyframeDesc> keyframes;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string what = "keyframe " + std::to_string(i) + " of " + owner;
    const MapFields map(reader, items[i], what);
    map.CheckKeys(KeysOf({"rigid_bodies", "", "keyframes", ""}));
    KeyframeDesc keyframe;
    keyframe.where = context.Where(items[i]);
    const Field time = map.Require("time");
    {  // its time through its row (the keyframe held by a body of a scene of its own)
      SceneDesc held;
      held.rigid_bodies.resize(1);  // a body without a name
      held.rigid_bodies[0].keyframes.push_back(keyframe);
      map.ReadRows("rigid_bodies.*.keyframes.*.", {std::string(), "0"}, held);
      keyframe.time = held.rigid_bodies[0].keyframes[0].time;
    }
    if (i > 0 && keyframe.time <= keyframes.back().time) {
      reader.Fail(time.node, time.path,
                  "keyframe times must increase strictly: " + what + " has 'time' " + time.node.Scalar() +
                      ", not after keyframe " + std::to_string(i - 1) + "'s " + FormatNumber(keyframes.back().time),
                  {items[i - 1].path + ".time"});
    }
    keyframe.pose = ReadPose(context, map, what);
    keyframes.push_back(keyframe);
  }
  return keyframes;
}

}  // namespace

// `entries` are all the entries of the section, `scene.rigid_bodies` those before `entry` (a joint's parent
// must be one of them).
RigidBodyDesc ParseRigidBody(ParseContext& context, const Field& entry, const std::vector<Field>& entries,
                             const SceneDesc& scene) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "rigid body");
  context.CheckWeldableName(entry, "rigid body");
  context.ClaimName(entry, "rigid body");
  RigidBodyDesc body;
  body.name = entry.key;
  body.where = context.Where(entry);
  const std::string what = "rigid body '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  if (const auto type = map.Find("type")) body.type = reader.Choice(*type, "rigid body type", RigidBodyTypeNames());
  map.CheckKeys(RigidBodyKeys(body.type), KeysOf({"rigid_bodies", ""}),
                [&](const std::string& key) { return NotApplicableToRigidBody(body.type, key); });
  const auto joint = map.Find("joint");
  if (joint) CheckNoInitialMotion(context, map, *joint, what);

  const bool is_static = body.type == RigidBodyType::kStatic;
  body.shape = ParseShape(context, map.Require("shape"), what,
                          is_static ? ShapeUse::kStaticBody : ShapeUse::kMovingBody, {entry.path + ".type"});
  if (body.type == RigidBodyType::kDynamic) {
    const auto mass = map.Find("mass");
    const auto density = map.Find("density");
    if (mass && density) {
      const Field& second = mass->key_node.Mark().pos > density->key_node.Mark().pos ? *mass : *density;
      reader.Fail(second.key_node, second.path, what + " takes either 'mass' or 'density', not both",
                  {mass->path, density->path});
    }
    if (!mass && !density)
      reader.Fail(entry.node, entry.path, "missing required key 'mass' or 'density' in dynamic " + what);
    map.Read("velocity", body.velocity);
    map.Read("angular_velocity", body.angular_velocity);
    map.Read("force", body.force);
    map.Read("torque", body.torque);
  }
  if (const auto pose = map.Find("pose")) body.pose = ParsePose(context, *pose, what);
  if (joint) {
    body.has_joint = true;
    body.joint = ParseBodyJoint(context, *joint, entry.key, entries, scene.rigid_bodies);
  }
  if (body.type == RigidBodyType::kKinematic) {
    const auto keyframes = map.Find("keyframes");
    if (!keyframes)
      reader.Fail(entry.node, entry.path,
                  "missing required key 'keyframes' in kinematic " + what + " (the poses it follows)");
    body.keyframes = ParseKeyframes(context, *keyframes, what);
    if (const auto interpolation = map.Find("interpolation"))
      body.interpolation = reader.Choice(*interpolation, "keyframe interpolation", KeyframeInterpolationNames());
  }
  // A dynamic body's mass or density; any body's contact parameters.
  map.ReadEntryRows("rigid_bodies.*.", &SceneDesc::rigid_bodies, body);
  if (const auto color = map.Find("color")) body.rgba = reader.Numbers<4>(*color, Between(0, 1, false, false));
  return body;
}

}  // namespace ductile::scene
