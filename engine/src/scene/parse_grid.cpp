// The `grid` section: spacing, domain and the domain walls.
#include <cmath>

#include "scene/scene_sections.h"

namespace ductile::scene {

void ParseGrid(const ParseContext& context, const Field& field, SceneDesc& scene) {
  const Reader& reader = context.reader();
  const MapFields map(reader, field, "section 'grid'");
  map.CheckKeys(KeysOf({"grid"}));
  map.ReadRows("grid.", scene);
  if (const auto domain_field = map.Find("domain")) {
    const MapFields domain(reader, *domain_field, "grid domain");
    domain.CheckKeys(KeysOf({"grid", "domain"}));
    domain.Read("min", scene.grid.domain_min);
    domain.Read("max", scene.grid.domain_max);
    for (int axis = 0; axis < 3; ++axis) {
      if (scene.grid.domain_min[axis] >= scene.grid.domain_max[axis]) {
        const std::string name(1, static_cast<char>('x' + axis));
        // NOLINTBEGIN(performance-inefficient-string-concatenation): once, for the error
        reader.Fail(domain_field->node, domain_field->path,
                    "grid domain 'min' must be below 'max' on every axis, got min " + name + " = " +
                        FormatNumber(scene.grid.domain_min[axis]) + " >= max " + name + " = " +
                        FormatNumber(scene.grid.domain_max[axis]));
        // NOLINTEND(performance-inefficient-string-concatenation)
      }
    }
  }
  if (const auto boundary = map.Find("boundary"))
    scene.walls = ParseBoundary(context, *boundary, "grid boundary", BoundaryOwner::kGrid);
  // The grid's block table spans the whole domain: refuse sizes that cannot be allocated instead of failing later.
  constexpr double kMaxGridNodes = 1e9;
  double nodes = 1;
  std::string dims;
  for (int axis = 0; axis < 3; ++axis) {
    const double n = std::ceil((scene.grid.domain_max[axis] - scene.grid.domain_min[axis]) / scene.grid.h) + 1;
    nodes *= n;
    dims += (axis ? " x " : "") + FormatNumber(n);
  }
  if (nodes > kMaxGridNodes) {
    const auto h = map.Find("h");
    reader.Fail(h ? h->node : field.node, h ? h->path : field.path,
                "the grid would have " + dims +
                    " nodes (domain / h), more than the 1e9 supported: raise 'h' or "
                    "shrink the domain");
  }
}

}  // namespace ductile::scene
