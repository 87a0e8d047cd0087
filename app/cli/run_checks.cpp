#include "run_checks.h"

#include <iomanip>
#include <iostream>

namespace ductile::cli {

void WarnIfUnstable(const Model& model) {
  const int recommended = model.RecommendedSubsteps();
  if (model.substeps < recommended) {
    std::cerr << "warning: simulation.substeps = " << model.substeps << " is below the " << recommended
              << " that the CFL condition needs for the elastic wave speed " << std::setprecision(3)
              << model.MaxWaveSpeed() << " m/s at h = " << model.h << " m and dt = " << model.dt
              << " s; the run may diverge\n";
  }
}

}  // namespace ductile::cli
