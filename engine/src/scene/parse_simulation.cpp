// The `simulation` and `contact` sections: time stepping, solver settings and the default contact properties of
// rigid geometry.
#include "scene/scene_sections.h"

#include "scene/schema.h"

namespace ductile::scene {

void ParseSimulation(const ParseContext& context, const Field& field, SceneDesc& scene) {
  const Reader& reader = context.reader();
  SimulationDesc& simulation = scene.simulation;
  const MapFields map(reader, field, "section 'simulation'");
  map.CheckKeys(KeysOf({"simulation"}));
  map.ReadRows("simulation.", scene);
  if (const auto coupling = map.Find("coupling")) {
    simulation.coupling = reader.Choice(*coupling, "coupling scheme", CouplingKindNames());
    simulation.coupling_where = context.Where(*coupling);
  }
  if (const auto backend = map.Find("backend")) {
    simulation.backend = reader.Choice(*backend, "backend", BackendKindNames());
    simulation.backend_where = context.Where(*backend);
  }
}

void ParseContact(const ParseContext& context, const Field& field, SceneDesc& scene) {
  scene.contact.where = context.Where(field);
  const MapFields map(context.reader(), field, "section 'contact'");
  map.CheckKeys(KeysOf({"contact"}));
  map.ReadRows("contact.", scene);
}

}  // namespace ductile::scene
