// The `simulation` and `contact` sections: time stepping, solver settings and the default contact properties of
// rigid geometry.
#include "scene/scene_sections.h"

#include "scene/schema.h"

namespace ductile::scene {

SimulationDesc ParseSimulation(const ParseContext& context, const Field& field) {
  const Reader& reader = context.reader();
  SimulationDesc simulation;
  const MapFields map(reader, field, "section 'simulation'");
  map.CheckKeys(KeysOf({"simulation"}));
  map.Read(Row("simulation.dt"), simulation.dt);
  map.Read(Row("simulation.substeps"), simulation.substeps);
  map.Read(Row("simulation.duration"), simulation.duration);
  map.Read(Row("simulation.gravity"), simulation.gravity);
  map.Read(Row("simulation.output_rate"), simulation.output_rate);
  map.Read(Row("simulation.contact_tolerance_relative"), simulation.contact_tolerance_relative);
  map.Read(Row("simulation.contact_tolerance_absolute"), simulation.contact_tolerance_absolute);
  map.Read(Row("simulation.max_solver_iterations"), simulation.max_solver_iterations);
  map.Read(Row("simulation.cfl"), simulation.cfl);
  map.Read(Row("simulation.threads"), simulation.threads);
  if (const auto coupling = map.Find("coupling")) {
    simulation.coupling = reader.Choice(*coupling, "coupling scheme", CouplingKindNames());
    simulation.coupling_where = context.Where(*coupling);
  }
  if (const auto backend = map.Find("backend")) {
    simulation.backend = reader.Choice(*backend, "backend", BackendKindNames());
    simulation.backend_where = context.Where(*backend);
  }
  map.Read(Row("simulation.strong_tolerance"), simulation.strong_tolerance);
  map.Read(Row("simulation.strong_dense_limit"), simulation.strong_dense_limit);
  map.Read(Row("simulation.implicit_tolerance"), simulation.implicit_tolerance);
  map.Read(Row("simulation.seed"), simulation.seed);
  return simulation;
}

ContactDesc ParseContact(const ParseContext& context, const Field& field) {
  const Reader& reader = context.reader();
  ContactDesc contact;
  contact.where = context.Where(field);
  const MapFields map(reader, field, "section 'contact'");
  map.CheckKeys(KeysOf({"contact"}));
  map.Read(Row("contact.friction"), contact.friction);
  map.Read(Row("contact.stiffness"), contact.stiffness);
  map.Read(Row("contact.dissipation"), contact.dissipation);
  map.Read(Row("contact.stiction_speed"), contact.stiction_speed);
  map.Read(Row("contact.mpm_stiffness"), contact.mpm_stiffness);
  map.Read(Row("contact.mpm_dissipation"), contact.mpm_dissipation);
  return contact;
}

}  // namespace ductile::scene
