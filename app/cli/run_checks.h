// Valid but unwise runs, caught before they start: a substep too long for the CFL condition draws a warning on
// stderr that names the numbers. `run` and `validate` make the same checks.
#pragma once

#include "ductile/model.h"

namespace ductile::cli {

/// Warns on stderr when simulation.substeps is below what the CFL condition needs for the stiffest material.
void WarnIfUnstable(const Model& model);

}  // namespace ductile::cli
