// Free fall of an elastic cube: with no contact, every particle sees the same gravity-only grid velocity, so the
// centre of mass accelerates at exactly g, and its height follows the symplectic Euler sequence
// z_n = z_0 − g Δt² n(n+1)/2 (velocity first, then position), which differs from z_0 − ½ g t² by ½ g Δt t.
#include <gtest/gtest.h>

#include <cmath>

#include "scene_fixture.h"

namespace ductile {
namespace {

constexpr char kFreeFallScene[] = R"(
simulation: {dt: 1.0e-3, substeps: 2, duration: 0.3, gravity: [0, 0, -9.81]}
grid: {h: 0.01, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 1.0]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}
objects:
  cube:
    material: rubber
    shape: {type: box, size: [0.1, 0.1, 0.1]}
    pose: {position: [0, 0, 0.8], rpy_deg: [10, 20, 30]}
)";

TEST(FreeFall, CenterOfMassAcceleratesAtG) {
  auto sim = testing::SimulatorFromYaml(kFreeFallScene);
  const double g = 9.81;
  const double z0 = sim->SummarizeObject(0).center_of_mass[2];
  const double sub_dt = sim->model().dt / sim->model().substeps;

  testing::RunUntil(*sim, 0.1);
  const ObjectSummary s1 = sim->SummarizeObject(0);
  const double t1 = sim->time();
  testing::RunUntil(*sim, 0.3);
  const ObjectSummary s2 = sim->SummarizeObject(0);
  const double t2 = sim->time();

  // Velocity is −g·t up to float round-off: each substep adds g·Δt/N in float (relative error ~6e-8) to a
  // velocity of at most 3 m/s over 600 substeps, so 1e-5 relative is a safe bound that still catches any
  // missing or doubled gravity term, any stray internal force (stress of a rigidly moving cube is zero).
  EXPECT_NEAR(s1.velocity[2], -g * t1, 1e-5 * g * t1);
  EXPECT_NEAR(s2.velocity[2], -g * t2, 1e-5 * g * t2);
  EXPECT_NEAR(s2.velocity[0], 0.0, 1e-6);
  EXPECT_NEAR(s2.velocity[1], 0.0, 1e-6);
  const double acceleration = (s2.velocity[2] - s1.velocity[2]) / (t2 - t1);
  EXPECT_NEAR(acceleration, -g, 1e-4 * g);

  // Position: the discrete sequence, to float resolution at z ≈ 0.8 m (6e-8 m per update, 600 updates).
  const double n = std::round(t2 / sub_dt);
  EXPECT_NEAR(s2.center_of_mass[2], z0 - g * sub_dt * sub_dt * n * (n + 1) / 2, 1e-4);
  // And the continuous parabola up to the integrator's known first-order offset ½ g Δt t.
  EXPECT_NEAR(s2.center_of_mass[2], z0 - 0.5 * g * t2 * t2, 0.5 * g * sub_dt * t2 + 1e-4);

  // A rigidly translating cube keeps its shape: the bounds stay 0.1 m apart in z up to the rotation's extent.
  EXPECT_NEAR(s2.bounds_max[2] - s2.bounds_min[2], s1.bounds_max[2] - s1.bounds_min[2], 1e-4);
}

}  // namespace
}  // namespace ductile
