// The `materials` section: a material's model and the constants that model takes.
#include "scene/scene_sections.h"
#include "scene/schema.h"

namespace ductile::scene {

MaterialDesc ParseMaterial(const ParseContext& context, const Field& entry) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "material");
  MaterialDesc material;
  material.name = entry.key;
  material.where = context.Where(entry);
  const MapFields map(reader, entry, "material '" + entry.key + "'");
  material.model = reader.Choice(map.Require("model"), "material model", MaterialModelNames());
  const std::string model = NameOf(material.model);
  std::vector<std::string> allowed = MaterialKeys(material.model);
  allowed.emplace_back("color");
  map.CheckKeys(allowed, KeysOf({"materials", ""}), "does not apply to model " + model);
  if (const auto color = map.Find("color")) material.rgba = reader.Numbers<4>(*color, Between(0, 1, false, false));

  // The constants of the model (the rows that list it; the others' keys CheckKeys refused).
  map.ReadEntryRows("materials.*.", &SceneDesc::materials, material);
  return material;
}

}  // namespace ductile::scene
