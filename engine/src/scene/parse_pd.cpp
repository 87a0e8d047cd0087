// The `pd_bodies` and `pd` sections: the bodies of the projective-dynamics domain (engine/src/pd/, Qiao et al. 2021)
// and its solver and contact settings (docs/scene-format.md, "pd_bodies", "pd").
#include <algorithm>
#include <map>
#include <system_error>

#include "ductile/multibody_desc.h"
#include "scene/desc_eigen.h"

#include "scene/scene_sections.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

namespace {

// Why `name` cannot name a bone: `world` names the world as a parent, and a dot would split the bone's parameter keys.
std::string BoneNameError(const std::string& name) {
  if (name == "world") return "'world' names the world (a bone's parent), not a bone";
  if (name.find('.') != std::string::npos) return "a bone's name may not hold a '.' (its keys are dotted paths)";
  return {};
}

// A bone of `body`'s skeleton (docs/scene-format.md, "pd_bodies"); its parent must be listed before it.
PdBoneDesc ParseBone(const ParseContext& context, const Field& entry, const PdSoftBodyDesc& body,
                     const std::string& owner) {
  const Reader& reader = context.reader();
  PdBoneDesc bone;
  bone.name = entry.key;
  bone.where = context.Where(entry);
  const std::string what = "bone '" + entry.key + "' of " + owner;
  if (std::string why = BoneNameError(entry.key); !why.empty()) reader.FailAtKey(entry, what + ": " + why);
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"pd_bodies", "", "skeleton", ""}));
  bone.prismatic = reader.Choice(map.Require("joint"), "joint type of " + what,
                                 std::vector<std::pair<std::string, bool>>{{"revolute", false}, {"prismatic", true}});
  if (const auto parent = map.Find("parent")) {
    const std::string name = reader.Text(*parent);
    std::vector<std::string> earlier{"world"};
    for (const PdBoneDesc& b : body.skeleton) earlier.push_back(b.name);
    if (std::find(earlier.begin(), earlier.end(), name) == earlier.end())
      reader.Fail(*parent, "parent '" + name + "' of " + what + " is not a bone listed before it" +
                               DidYouMean(name, earlier) + " (listed before: " + JoinNames(earlier) + ")");
    bone.parent = name == "world" ? "" : name;
  }
  ReadBox(reader, map.Require("box"), what, {"pd_bodies", "", "skeleton", "", "box"}, bone.box_min, bone.box_max);
  {  // the axis, anchor and torque through their rows, held by a body of its own
    SceneDesc held;
    held.pd_bodies.resize(1);  // a body without a name
    held.pd_bodies[0].skeleton.push_back(bone);
    map.ReadRows("pd_bodies.*.skeleton.*.", {std::string(), bone.name}, held);
    bone = held.pd_bodies[0].skeleton[0];
  }
  if (const auto axis = map.Find("axis"); axis && bone.axis[0] == 0 && bone.axis[1] == 0 && bone.axis[2] == 0)
    reader.FailAtKey(*axis, "'axis' of " + what + " must not be zero");
  return bone;
}

PoseDesc ToPose(const Eigen::Isometry3d& X) {
  const Eigen::Quaterniond q(X.linear());
  return {{X.translation().x(), X.translation().y(), X.translation().z()}, {q.w(), q.x(), q.y(), q.z()}};
}

// A URDF link's solids (its collision geometry, else its visual geometry) placed by X_WL, or a failure at `field`
// naming the link when one is not a primitive.
std::vector<PlacedShapeDesc> LinkShapes(const Reader& reader, const Field& field, const LinkDesc& link,
                                        const Eigen::Isometry3d& X_WL, const std::string& what) {
  std::vector<PlacedShapeDesc> shapes;
  for (const GeometryDesc& g : link.collisions.empty() ? link.visuals : link.collisions) {
    const ShapeType t = g.shape.type;
    if (t != ShapeType::kBox && t != ShapeType::kSphere && t != ShapeType::kCylinder && t != ShapeType::kCapsule)
      reader.Fail(field, what + ": link '" + link.name + "' has a " + std::string(NameOf(t)) +
                             " geometry; only boxes, spheres, cylinders and capsules select a bone's vertices");
    shapes.push_back({g.shape, ToPose(X_WL * ToIsometry(g.pose))});
  }
  return shapes;
}

// `skeleton_urdf` (docs/scene-format.md, "pd_bodies"): a bone per movable joint of the URDF, its root link frame the
// body's shape frame; the links fixed to the world (the root, and what fixed joints hang on it) pin their vertices.
void ReadUrdfSkeleton(const ParseContext& context, const Field& field, PdSoftBodyDesc& body, const std::string& what) {
  const Reader& reader = context.reader();
  const std::string name = reader.Text(field);
  body.skeleton_urdf = context.Resolve(name);
  std::error_code ec;
  if (!std::filesystem::exists(body.skeleton_urdf, ec))
    reader.Fail(field, "URDF file '" + name + "' not found (looked for " + body.skeleton_urdf.string() + ")");
  const MultibodyDesc urdf = LoadUrdf(body.skeleton_urdf);  // its SceneError names the place in the URDF
  const std::string of = "skeleton_urdf '" + name + "' of " + what;
  // Each link's placement at q = 0 and its owner: −1 fixed to the world, else a bone. The world and the links no
  // joint moves are fixed; joints are taken parents first.
  std::map<std::string, std::pair<Eigen::Isometry3d, int>> placed{{"world", {ToIsometry(body.pose), -1}}};
  for (const LinkDesc& link : urdf.links)
    if (std::none_of(urdf.joints.begin(), urdf.joints.end(), [&](const JointDesc& j) { return j.child == link.name; }))
      placed[link.name] = {ToIsometry(body.pose), -1};
  for (std::size_t done = 0, round = 0; done < urdf.joints.size() && round <= urdf.joints.size(); ++round)
    for (const JointDesc& joint : urdf.joints) {
      const auto parent = placed.find(joint.parent);
      if (parent == placed.end() || placed.count(joint.child) > 0) continue;
      ++done;
      const Eigen::Isometry3d X_WJ = parent->second.first * ToIsometry(joint.origin);
      int owner = parent->second.second;
      if (joint.type == JointType::kFloating)
        reader.Fail(field, of + ": joint '" + joint.name + "' is floating (bones take revolute and prismatic joints)");
      if (joint.type != JointType::kFixed) {
        if (std::string why = BoneNameError(joint.name); !why.empty()) {
          why.insert(0, of + ": joint '" + joint.name + "': ");
          reader.Fail(field, why);
        }
        PdBoneDesc bone;
        bone.name = joint.name;
        bone.where = context.Where(field);
        bone.prismatic = joint.type == JointType::kPrismatic;
        bone.parent = owner >= 0 ? body.skeleton[static_cast<std::size_t>(owner)].name : "";
        const Eigen::Vector3d axis = X_WJ.linear() * ToEigen(joint.axis);
        bone.axis = {axis.x(), axis.y(), axis.z()};
        bone.anchor = {X_WJ.translation().x(), X_WJ.translation().y(), X_WJ.translation().z()};
        owner = static_cast<int>(body.skeleton.size());
        body.skeleton.push_back(std::move(bone));
      }
      placed[joint.child] = {X_WJ, owner};
    }
  for (const LinkDesc& link : urdf.links) {
    const auto& [X_WL, owner] = placed.at(link.name);
    std::vector<PlacedShapeDesc> shapes = LinkShapes(reader, field, link, X_WL, of);
    auto& into = owner < 0 ? body.pin_shapes : body.skeleton[static_cast<std::size_t>(owner)].shapes;
    into.insert(into.end(), shapes.begin(), shapes.end());
  }
  for (const PdBoneDesc& bone : body.skeleton)
    if (bone.shapes.empty())
      reader.Fail(field, of + ": joint '" + bone.name +
                             "' moves no geometry (its child link, and the links fixed to it, have no collision or "
                             "visual geometry to select the bone's vertices)");
}

}  // namespace

PdSoftBodyDesc ParsePdBody(ParseContext& context, const Field& entry) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "pd body");
  context.ClaimName(entry, "pd body");
  PdSoftBodyDesc body;
  body.name = entry.key;
  body.where = context.Where(entry);
  const std::string what = "pd body '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"pd_bodies", ""}));
  const Field shape = map.Require("shape");
  body.shape = ParseShape(context, shape, what, ShapeUse::kSoftBody);
  if (body.shape.type == ShapeType::kSheet)
    reader.Fail(MapFields(reader, shape, "shape of " + what).Require("type"),
                "shape type 'sheet' cannot be a pd body (use a thin box)");
  if (const auto pose = map.Find("pose")) body.pose = ParsePose(context, *pose, what);
  map.ReadEntryRows("pd_bodies.*.", &SceneDesc::pd_bodies, body);  // resolution, material, actuators, velocity
  if (const auto direction = map.Find("muscle_direction");
      direction && body.muscle_direction[0] == 0 && body.muscle_direction[1] == 0 && body.muscle_direction[2] == 0)
    reader.FailAtKey(*direction, "'muscle_direction' of " + what + " must not be zero");
  if (const auto box = map.Find("pin_box"))
    body.has_pin_box = ReadBox(reader, *box, what, {"pd_bodies", "", "pin_box"}, body.pin_min, body.pin_max);
  if (const auto skeleton = map.Find("skeleton"))
    for (const Field& bone : reader.Entries(*skeleton, "'skeleton' of " + what))
      body.skeleton.push_back(ParseBone(context, bone, body, what));
  if (const auto urdf = map.Find("skeleton_urdf")) {
    if (!body.skeleton.empty())
      reader.FailAtKey(*urdf, what + " has a 'skeleton' already: give its bones in the scene or by a URDF, not both");
    ReadUrdfSkeleton(context, *urdf, body, what);
  }
  if (const auto color = map.Find("color")) body.rgba = reader.Numbers<4>(*color, Between(0, 1, false, false));
  return body;
}

void ParsePd(const ParseContext& context, const Field& field, SceneDesc& scene) {
  scene.pd.where = context.Where(field);
  const MapFields map(context.reader(), field, "section 'pd'");
  map.CheckKeys(KeysOf({"pd"}));
  map.ReadRows("pd.", scene);
}

}  // namespace ductile::scene
