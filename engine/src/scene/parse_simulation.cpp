// The `simulation` and `contact` sections: time stepping, solver settings and the default contact properties of
// rigid geometry.
#include "scene/scene_sections.h"

namespace ductile::scene {

SimulationDesc ParseSimulation(const ParseContext& context, const Field& field) {
  const Reader& reader = context.reader();
  SimulationDesc simulation;
  const MapFields map(reader, field, "section 'simulation'");
  map.CheckKeys(KeysOf({"simulation"}));
  map.Read("dt", simulation.dt, Positive());
  map.Read("substeps", simulation.substeps, 1);
  map.Read("duration", simulation.duration, Positive());
  map.Read("gravity", simulation.gravity);
  map.Read("output_rate", simulation.output_rate, Positive());
  map.Read("contact_tolerance_relative", simulation.contact_tolerance_relative, Positive());
  map.Read("contact_tolerance_absolute", simulation.contact_tolerance_absolute, NonNegative());
  map.Read("max_solver_iterations", simulation.max_solver_iterations, 1);
  map.Read("cfl", simulation.cfl, Between(0, 1, true, false));
  map.Read("threads", simulation.threads, 0);
  return simulation;
}

ContactDesc ParseContact(const ParseContext& context, const Field& field) {
  const Reader& reader = context.reader();
  ContactDesc contact;
  contact.where = context.Where(field);
  const MapFields map(reader, field, "section 'contact'");
  map.CheckKeys(KeysOf({"contact"}));
  map.Read("friction", contact.friction, NonNegative());
  map.Read("stiffness", contact.stiffness, Positive());
  map.Read("dissipation", contact.dissipation, NonNegative());
  map.Read("stiction_speed", contact.stiction_speed, Positive());
  map.Read("mpm_stiffness", contact.mpm_stiffness, Positive());
  map.Read("mpm_dissipation", contact.mpm_dissipation, NonNegative());
  return contact;
}

}  // namespace ductile::scene
