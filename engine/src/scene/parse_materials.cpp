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
  map.CheckKeys(MaterialKeys(material.model), KeysOf({"materials", ""}), "does not apply to model " + model);

  material.density = reader.Number(map.Require("density"), Positive());
  map.Read("friction", material.friction, NonNegative());
  if (material.model == MaterialModelDesc::kFluid) {
    material.bulk_modulus = reader.Number(map.Require("bulk_modulus"), Positive());
    map.Read("gamma", material.gamma, AtLeast(1));
    map.Read("viscosity", material.viscosity, NonNegative());
    return material;
  }
  material.youngs_modulus = reader.Number(map.Require("youngs_modulus"), Positive());
  material.poisson_ratio = reader.Number(map.Require("poisson_ratio"), Between(-1, 0.5, true, true));
  map.Read("yield_stress", material.yield_stress, NonNegative());
  map.Read("friction_angle", material.friction_angle_deg, Between(0, 90, false, true));
  map.Read("cohesion", material.cohesion, NonNegative());
  return material;
}

}  // namespace ductile::scene
