// The pins' side of a hanging cloth's momentum balance (tests/physics/cloth_test.cpp, cloth_implicit_test.cpp):
// ∫ Σ F_pin dt over steps, and the check ∫ Σ F_pin dt = ΔP + M g T per axis.
#pragma once

#include <gtest/gtest.h>

#include <array>

#include "scene_fixture.h"

namespace ductile::testing {

struct PinImpulse {
  std::array<double, 3> impulse{0, 0, 0};  ///< ∫ Σ F_pin dt [N·s]
  double T = 0;                            ///< the time it covers [s]
};

/// Steps `sim` until `until`, integrating the sum of its pin groups' forces over the steps.
inline PinImpulse IntegratePinForces(Simulator& sim, double until) {
  PinImpulse out;
  while (sim.time() < until - 1e-9) {
    sim.Step();
    std::array<double, 3> sum{0, 0, 0};
    for (const std::array<double, 3>& f : sim.last_step().pin_forces)
      for (int a = 0; a < 3; ++a) sum[a] += f[a];
    for (int a = 0; a < 3; ++a) out.impulse[a] += sum[a] * sim.model().dt;
    out.T += sim.model().dt;
  }
  return out;
}

/// The pins' impulse balances gravity (g = 9.81 m/s² along −z) and the change of momentum of object 0 between the
/// summaries, to 1e-4 of M g T (float sums' round-off over the steps).
inline void ExpectPinsBalanceMomentum(const PinImpulse& pins, const ObjectSummary& start, const ObjectSummary& end) {
  const double M = start.mass, g = 9.81;
  for (int a = 0; a < 3; ++a) {
    const double dP = M * (end.velocity[a] - start.velocity[a]);
    EXPECT_NEAR(pins.impulse[a], dP + (a == 2 ? M * g * pins.T : 0.0), 1e-4 * M * g * pins.T) << "axis " << a;
  }
}

}  // namespace ductile::testing
