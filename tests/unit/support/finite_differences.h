// Checking a stress against central finite differences of its energy, shared by the constitutive models' tests.
#pragma once

#include <cmath>

#include <gtest/gtest.h>

#include "core/small_math.h"

namespace ductile::testing {

/// Expects P(F) to equal, entry by entry, (Ψ(F + step E_ij) − Ψ(F − step E_ij)) / 2 step within
/// tolerance · (1 + |that difference|). The callers state why their step and tolerance fit their models.
template <typename EnergyFn, typename PiolaFn>
void ExpectPiolaMatchesEnergy(const Mat3d& F, EnergyFn energy, PiolaFn piola, double step, double tolerance) {
  const Mat3d P = piola(F);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Mat3d F_plus = F;
      Mat3d F_minus = F;
      F_plus(i, j) += step;
      F_minus(i, j) -= step;
      const double fd = (energy(F_plus) - energy(F_minus)) / (2.0 * step);
      EXPECT_NEAR(P(i, j), fd, tolerance * (1.0 + std::abs(fd))) << "entry " << i << "," << j;
    }
}

}  // namespace ductile::testing
