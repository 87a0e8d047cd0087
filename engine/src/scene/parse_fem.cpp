// The `soft_bodies`, `affine_bodies` and `ipc` sections: the bodies of the FEM–IPC domain (fem/ipc_system.h) and
// its contact and solver settings (docs/scene-format.md, "soft_bodies", "affine_bodies", "ipc").
#include "scene/scene_sections.h"
#include "scene/schema.h"

namespace ductile::scene {

bool ReadBox(const Reader& reader, const Field& box, const std::string& what, const std::vector<std::string>& path,
             Vector3& min, Vector3& max) {
  const std::string name = "'" + path.back() + "' of " + what;
  const MapFields box_map(reader, box, name);
  box_map.CheckKeys(KeysOf(path));
  min = reader.Numbers<3>(box_map.Require("min"));
  max = reader.Numbers<3>(box_map.Require("max"));
  for (int a = 0; a < 3; ++a)
    if (min[a] > max[a]) reader.Fail(box, name + ": 'min' must not exceed 'max' (axis " + std::to_string(a) + ")");
  return true;
}

SoftBodyDesc ParseSoftBody(ParseContext& context, const Field& entry) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "soft body");
  context.ClaimName(entry, "soft body");
  SoftBodyDesc body;
  body.name = entry.key;
  body.where = context.Where(entry);
  const std::string what = "soft body '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"soft_bodies", ""}));
  const Field shape = map.Require("shape");
  body.shape = ParseShape(context, shape, what, ShapeUse::kSoftBody);
  if (const auto thickness = map.Find("thickness"); thickness && body.shape.type != ShapeType::kSheet)
    reader.FailAtKey(*thickness, "'thickness' of " + what + " applies to sheets only");
  if (const auto model = map.Find("model")) body.model = reader.Choice(*model, "soft body model", SoftModelNames());
  if (const auto pose = map.Find("pose")) body.pose = ParsePose(context, *pose, what);
  map.ReadEntryRows("soft_bodies.*.", &SceneDesc::soft_bodies, body);  // resolution, material, initial velocity
  if (const auto box = map.Find("pin_box"))
    body.has_pin_box = ReadBox(reader, *box, what, {"soft_bodies", "", "pin_box"}, body.pin_min, body.pin_max);
  if (const auto color = map.Find("color")) body.rgba = reader.Numbers<4>(*color, Between(0, 1, false, false));
  return body;
}

AffineBodyDesc ParseAffineBody(ParseContext& context, const Field& entry) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "affine body");
  context.ClaimName(entry, "affine body");
  AffineBodyDesc body;
  body.name = entry.key;
  body.where = context.Where(entry);
  const std::string what = "affine body '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"affine_bodies", ""}));
  body.shape = ParseShape(context, map.Require("shape"), what, ShapeUse::kAffineBody);
  if (const auto pose = map.Find("pose")) body.pose = ParsePose(context, *pose, what);
  map.ReadEntryRows("affine_bodies.*.", &SceneDesc::affine_bodies, body);  // resolution, density, stiffness, velocities
  if (const auto color = map.Find("color")) body.rgba = reader.Numbers<4>(*color, Between(0, 1, false, false));
  return body;
}

void ParseIpc(const ParseContext& context, const Field& field, SceneDesc& scene) {
  scene.ipc.where = context.Where(field);
  const MapFields map(context.reader(), field, "section 'ipc'");
  map.CheckKeys(KeysOf({"ipc"}));
  map.ReadRows("ipc.", scene);
}

}  // namespace ductile::scene
