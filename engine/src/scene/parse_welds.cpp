// The `welds` and `collision_filters` sections: pairs of bodies (the world, rigid bodies, robot links) held together
// or kept from colliding, and how each named body moves.
#include "ductile/multibody_desc.h"
#include "scene/scene_sections.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

namespace {

// Whether forces can move `link` of `robot`: a moving joint lies between it and the world, or the robot's
// root floats. URDF trees have no cycles (LoadUrdf checks), so the walk towards the root ends.
bool LinkMoves(const RobotDesc& robot, const std::string& link) {
  std::string at = link;
  while (true) {
    const JointDesc* parent_joint = nullptr;
    for (const JointDesc& j : robot.model->joints)
      if (j.child == at) parent_joint = &j;
    if (parent_joint == nullptr) return robot.floating_base;
    if (parent_joint->type != JointType::kFixed) return true;
    if (parent_joint->parent == "world") return false;
    at = parent_joint->parent;
  }
}

// How a rigid body moves, by its type; a dynamic body on a joint as the joint says. A revolute or prismatic
// joint leaves the body a degree of freedom that forces move (kFree), whatever its parent; a fixed joint makes
// it move as its parent does: fixed to the world or a static body, prescribed by a kinematic body's keyframes,
// free with a free body. Parents come before their bodies in the file, so `earlier` (the world and the rigid
// bodies before `body`) holds the parent.
WeldBody RigidWeldBody(const RigidBodyDesc& body, const std::vector<WeldBody>& earlier) {
  WeldBody weld_body{body.name, NameOf(body.type) + " rigid body '" + body.name + "'", Mobility::kFree};
  if (body.type == RigidBodyType::kStatic) weld_body.mobility = Mobility::kFixed;
  if (body.type == RigidBodyType::kKinematic) weld_body.mobility = Mobility::kPrescribed;
  if (!body.has_joint || body.joint.type != JointType::kFixed) return weld_body;
  for (const WeldBody& parent : earlier)
    if (parent.name == body.joint.parent) weld_body.mobility = parent.mobility;
  const std::string parent = body.joint.parent == "world" ? "the world" : "'" + body.joint.parent + "'";
  weld_body.description += " (on a fixed joint to " + parent + ")";
  return weld_body;
}

// The body that `field` names; an unknown name fails with a suggestion, or with the names it could be.
const WeldBody& FindWeldBody(const ParseContext& context, const Field& field, const std::vector<WeldBody>& bodies,
                             const std::string& owner) {
  const Reader& reader = context.reader();
  const std::string name = reader.Text(field);
  std::vector<std::string> names;
  for (const WeldBody& body : bodies) {
    if (body.name == name) return body;
    names.push_back(body.name);
  }
  const std::string unknown = "unknown body '" + name + "' in '" + field.key + "' of " + owner;
  const std::string suggestion = DidYouMean(name, names);
  if (!suggestion.empty()) reader.Fail(field, unknown + suggestion);
  // "ROBOT/LINK" of a known robot: list that robot's links; otherwise every name.
  const std::string robot = name.substr(0, name.find('/'));
  std::vector<std::string> links;
  if (robot.size() < name.size()) {
    for (const std::string& n : names)
      if (n.rfind(robot + "/", 0) == 0) links.push_back(n);
  }
  if (!links.empty()) reader.Fail(field, unknown + " (robot '" + robot + "' has: " + JoinNames(links) + ")");
  reader.Fail(field, unknown + " (bodies are 'world', a rigid body or ROBOT/LINK: " + JoinNames(names) + ")");
}

// A weld's `frame_a` or `frame_b`: the keys of a pose.
PoseDesc ParseFrame(const ParseContext& context, const Field& field, const std::string& what) {
  const Reader& reader = context.reader();
  const MapFields map(reader, field, what);
  map.CheckKeys(KeysOf({"welds", "", "frame_a"}));
  return ReadPose(context, map, what);
}

}  // namespace

// The bodies a weld may name: "world", every rigid body, then "ROBOT/LINK" for every link of every robot, in
// file order (the order in which suggestions are tried).
std::vector<WeldBody> WeldBodies(const SceneDesc& scene) {
  std::vector<WeldBody> bodies{{"world", "the world", Mobility::kFixed}};
  for (const RigidBodyDesc& body : scene.rigid_bodies) bodies.push_back(RigidWeldBody(body, bodies));
  for (const RobotDesc& robot : scene.robots) {
    for (const LinkDesc& link : robot.model->links) {
      const bool moves = LinkMoves(robot, link.name);
      bodies.push_back({robot.name + "/" + link.name, "link '" + link.name + "' of robot '" + robot.name + "'",
                        moves ? Mobility::kFree : Mobility::kFixed});
    }
  }
  return bodies;
}

// Two different bodies of `bodies`, at least one of which forces move; a damper only with a spring.
WeldDesc ParseWeld(const ParseContext& context, const Field& entry, const std::vector<WeldBody>& bodies) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "weld");
  WeldDesc weld;
  weld.name = entry.key;
  weld.where = context.Where(entry);
  const std::string what = "weld '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"welds", ""}));

  const Field field_a = map.Require("body_a");
  const Field field_b = map.Require("body_b");
  const WeldBody& a = FindWeldBody(context, field_a, bodies, what);
  const WeldBody& b = FindWeldBody(context, field_b, bodies, what);
  weld.body_a = a.name;
  weld.body_b = b.name;
  if (a.name == b.name) {
    reader.Fail(field_b.node, field_b.path,
                what + " joins " + a.description + " to itself: 'body_a' and 'body_b' must differ", {field_a.path});
  }
  if (a.mobility != Mobility::kFree && b.mobility != Mobility::kFree) {
    const bool both_fixed = a.mobility == Mobility::kFixed && b.mobility == Mobility::kFixed;
    reader.Fail(field_b.node, field_b.path,
                what + " joins " + a.description + " and " + b.description +
                    (both_fixed ? ", which are both fixed in the world: nothing to move"
                                : ", which no force moves: nothing for the weld to act on") +
                    " (one of them must be a dynamic rigid body or a robot link behind a moving joint)",
                {field_a.path});
  }
  if (const auto frame = map.Find("frame_a")) weld.frame_a = ParseFrame(context, *frame, "'frame_a' of " + what);
  if (const auto frame = map.Find("frame_b")) weld.frame_b = ParseFrame(context, *frame, "'frame_b' of " + what);
  map.ReadEntryRows("welds.*.", &SceneDesc::welds, weld);  // stiffness, damping
  if (weld.damping > 0 && weld.stiffness == 0) {
    const Field damping = *map.Find("damping");
    reader.Fail(damping.node, damping.path,
                "'damping' of " + what +
                    " needs a 'stiffness' > 0: with stiffness 0 the weld is near-rigid and has no damper, got "
                    "damping " +
                    damping.node.Scalar(),
                {entry.path + ".stiffness"});
  }
  return weld;
}

// Two different bodies that must not collide.
CollisionFilterDesc ParseCollisionFilter(const ParseContext& context, const Field& entry,
                                         const std::vector<WeldBody>& bodies) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "collision filter");
  CollisionFilterDesc filter;
  filter.name = entry.key;
  filter.where = context.Where(entry);
  const std::string what = "collision filter '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"collision_filters", ""}));
  const Field field_a = map.Require("body_a");
  const Field field_b = map.Require("body_b");
  filter.body_a = FindWeldBody(context, field_a, bodies, what).name;
  filter.body_b = FindWeldBody(context, field_b, bodies, what).name;
  if (filter.body_a == filter.body_b)
    reader.Fail(field_b.node, field_b.path,
                what + " names '" + filter.body_a + "' twice: 'body_a' and 'body_b' must differ", {field_a.path});
  return filter;
}

}  // namespace ductile::scene
