// Checks of a compiled Model for scenes that are valid but unwise: the CLI (`run`, `validate`) and the studio show
// what they find as warnings when a scene is loaded.
#pragma once

#include <string>
#include <vector>

#include "ductile/model.h"

namespace ductile {

/// One message for each cloth object whose median triangle edge at rest is longer than the grid spacing h: such a
/// cloth's vertices lie more than a cell apart, held together by grid nodes that few of them reach, and it diverges
/// on impact. Empty when there is none. O(triangles); thread-safe on a const Model.
std::vector<std::string> ClothSpacingWarnings(const Model& model);

}  // namespace ductile
