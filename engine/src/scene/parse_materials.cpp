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

  map.Read(Row("materials.*.density"), material.density);
  map.Read(Row("materials.*.friction"), material.friction);
  if (material.model == MaterialModelDesc::kFluid) {
    map.Read(Row("materials.*.bulk_modulus"), material.bulk_modulus);
    map.Read(Row("materials.*.gamma"), material.gamma);
    map.Read(Row("materials.*.viscosity"), material.viscosity);
    return material;
  }
  map.Read(Row("materials.*.youngs_modulus"), material.youngs_modulus);
  map.Read(Row("materials.*.poisson_ratio"), material.poisson_ratio);
  if (material.model == MaterialModelDesc::kCloth) {
    map.Read(Row("materials.*.thickness"), material.thickness);
    map.Read(Row("materials.*.normal_stiffness"), material.normal_stiffness);
    map.Read(Row("materials.*.shear_stiffness"), material.shear_stiffness);
    map.Read(Row("materials.*.layer_friction"), material.layer_friction);
    map.Read(Row("materials.*.implicit_in_plane"), material.implicit_in_plane);
    return material;
  }
  map.Read(Row("materials.*.yield_stress"), material.yield_stress);
  map.Read(Row("materials.*.friction_angle"), material.friction_angle_deg);
  map.Read(Row("materials.*.cohesion"), material.cohesion);
  return material;
}

}  // namespace ductile::scene
