// The `pd_bodies` and `pd` sections: the bodies of the projective-dynamics domain (engine/src/pd/, Qiao et al. 2021)
// and its solver and contact settings (docs/scene-format.md, "pd_bodies", "pd").
#include <algorithm>

#include "scene/scene_sections.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

namespace {

// A bone of `body`'s skeleton (docs/scene-format.md, "pd_bodies"); its parent must be listed before it.
PdBoneDesc ParseBone(const ParseContext& context, const Field& entry, const PdSoftBodyDesc& body,
                     const std::string& owner) {
  const Reader& reader = context.reader();
  PdBoneDesc bone;
  bone.name = entry.key;
  bone.where = context.Where(entry);
  const std::string what = "bone '" + entry.key + "' of " + owner;
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
