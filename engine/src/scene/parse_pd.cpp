// The `pd_bodies` and `pd` sections: the bodies of the projective-dynamics domain (engine/src/pd/, Qiao et al. 2021)
// and its solver and contact settings (docs/scene-format.md, "pd_bodies", "pd").
#include "scene/scene_sections.h"
#include "scene/schema.h"

namespace ductile::scene {

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
    body.has_pin_box = ReadPinBox(reader, *box, what, "pd_bodies", body.pin_min, body.pin_max);
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
