// Determinism: the same scene gives the bitwise-same state after 100 steps for 1 and 2 threads, and across two
// runs. P2G scatters into per-block windows that are summed onto each node in a fixed order, every other phase
// writes per particle or per node, so no result depends on scheduling.
#include <gtest/gtest.h>

#include <string>

#include "../physics/scene_fixture.h"

namespace ductile {
namespace {

// Several materials in contact and against a collider, so every kernel path runs.
constexpr char kMixedScene[] = R"(
simulation: {dt: 1.0e-3, substeps: 4, gravity: [0, 0, -9.81]}
grid: {h: 0.01, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}, boundary: {type: friction, friction: 0.3}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 5.0e4, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 1.0e3}
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e5, poisson_ratio: 0.3, friction_angle: 30}
  water: {model: fluid, density: 1000, bulk_modulus: 1.0e4, gamma: 7, viscosity: 0.01}
  clay: {model: stvk_hencky, density: 1200, youngs_modulus: 5.0e4, poisson_ratio: 0.35, yield_stress: 2.0e3}
objects:
  ball: {material: rubber, shape: {type: sphere, radius: 0.04}, pose: {position: [0, 0, 0.25]}, velocity: [0.5, 0, 0]}
  dough: {material: dough, shape: {type: box, size: [0.08, 0.08, 0.04]}, pose: {position: [0, 0, 0.05]}}
  sand: {material: sand, shape: {type: cylinder, radius: 0.03, length: 0.08}, pose: {position: [0.1, 0.1, 0.1]}, particles_per_cell: 5}
  water: {material: water, shape: {type: box, size: [0.06, 0.06, 0.06]}, pose: {position: [-0.1, -0.1, 0.1]}}
  clay: {material: clay, shape: {type: sphere, radius: 0.03}, pose: {position: [-0.1, 0.1, 0.1]}}
colliders:
  post: {shape: {type: box, size: [0.04, 0.04, 0.1]}, pose: {position: [0.1, -0.1, 0.05], rpy_deg: [0, 0, 30]}, boundary: {type: sticky}}
)";

std::uint64_t HashAfter100Steps(int threads) {
  auto sim = testing::SimulatorFromYaml(kMixedScene, threads);
  EXPECT_EQ(sim->threads(), threads);
  for (int i = 0; i < 100; ++i) sim->Step();
  return sim->StateHash();
}

TEST(Determinism, SameStateForOneAndTwoThreads) {
  const std::uint64_t one = HashAfter100Steps(1);
  const std::uint64_t two = HashAfter100Steps(2);
  EXPECT_EQ(one, two);
}

TEST(Determinism, SameStateAcrossRuns) {
  EXPECT_EQ(HashAfter100Steps(2), HashAfter100Steps(2));
}

TEST(Determinism, HashSeesTheState) {
  // The hash must change when the state does, or the tests above could not fail.
  auto sim = testing::SimulatorFromYaml(kMixedScene, 1);
  const std::uint64_t initial = sim->StateHash();
  sim->Step();
  EXPECT_NE(initial, sim->StateHash());
  sim->Reset();
  EXPECT_EQ(initial, sim->StateHash());
}

TEST(Determinism, RigidSceneIsReproducibleAndResets) {
  // The shipped arm-and-boxes scene (robot, stacked boxes, kinematic paddle): same hash across runs and thread
  // counts, a hash that moves with the rigid state, and a reset that restores it.
  const auto run = [](int threads, int steps) {
    auto sim = std::make_unique<Simulator>(std::make_shared<const Model>(CompileModel(LoadScene(
                                               std::string(DUCTILE_SOURCE_DIR) + "/scenes/arm_and_boxes.yaml"))),
                                           SimulatorOptions{threads});
    for (int i = 0; i < steps; ++i) sim->Step();
    return sim;
  };
  auto a = run(1, 300);
  auto b = run(2, 300);
  EXPECT_EQ(a->StateHash(), b->StateHash());
  const std::uint64_t before = a->StateHash();
  a->Step();
  EXPECT_NE(before, a->StateHash());
  a->Reset();
  EXPECT_EQ(a->StateHash(), run(1, 0)->StateHash());
}

}  // namespace
}  // namespace ductile
