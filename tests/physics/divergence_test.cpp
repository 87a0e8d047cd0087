// A scene whose substep is far beyond the CFL limit must stop with SimulationDiverged naming the object, not run on
// with NaNs or crash; the state stays inspectable and Reset recovers.
#include <gtest/gtest.h>

#include <string>

#include "scene_fixture.h"

namespace ductile {
namespace {

// Wave speed √((λ+2μ)/ρ) ≈ 370 m/s at E = 1e8: a 1 ms substep lets a wave cross 37 cells of 1 cm.
std::string StiffScene(int substeps) {
  return R"(
simulation: {dt: 1.0e-3, gravity: [0, 0, -9.81], substeps: )" +
         std::to_string(substeps) + R"(}
grid: {h: 0.01, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}}
materials:
  stiff: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e8, poisson_ratio: 0.3}
objects:
  block: {material: stiff, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.1]}, velocity: [0, 0, -2]}
colliders:
  ground: {shape: {type: plane, normal: [0, 0, 1]}, pose: {position: [0, 0, 0.02]}, boundary: {type: sticky}}
)";
}

TEST(Divergence, UnstableSubstepStopsWithAMessage) {
  auto sim = testing::SimulatorFromYaml(StiffScene(1));
  EXPECT_GT(sim->model().RecommendedSubsteps(), 50);
  std::string message;
  try {
    for (int i = 0; i < 200; ++i) sim->Step();
  } catch (const SimulationDiverged& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty()) << "200 steps far beyond the CFL limit did not diverge";
  EXPECT_NE(message.find("object 'block'"), std::string::npos) << message;
  EXPECT_NE(message.find("substeps"), std::string::npos) << message;
  sim->Reset();
  EXPECT_EQ(sim->time(), 0.0);
  EXPECT_NEAR(sim->SummarizeObject(0).center_of_mass[2], 0.1, 1e-3);
}

TEST(Divergence, StableSettingsDoNotTrip) {
  // The same block at the recommended number of substeps runs without a false alarm.
  const int n = testing::ModelFromYaml(StiffScene(1))->RecommendedSubsteps();
  auto sim = testing::SimulatorFromYaml(StiffScene(n));
  EXPECT_NO_THROW(for (int i = 0; i < 3; ++i) sim->Step());
}

}  // namespace
}  // namespace ductile
