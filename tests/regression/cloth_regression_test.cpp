// Cloth (mpm/cloth_transfer.cpp) is deterministic and its state saves whole: a sheet draped over a sticky post with
// a corner pinned and moved, a second sheet falling onto it (cloth on cloth through the grid, the layer-contact
// return map), gives the bitwise-same state for 1 and 2 threads, and a run saved and restored half-way continues
// bitwise as the uninterrupted one (the triangles' d₃ is in the State).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../physics/scene_fixture.h"

namespace ductile {
namespace {

constexpr char kClothScene[] = R"(
simulation: {dt: 1.0e-3, substeps: 8, gravity: [0, 0, -9.81]}
grid: {h: 0.015625, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.5]}}
materials:
  cotton: {model: cloth, density: 500, youngs_modulus: 2.0e4, poisson_ratio: 0.3, thickness: 0.001}
objects:
  lower:
    material: cotton
    shape: {type: sheet, width: 0.2, length: 0.2, vertices: 13}
    pose: {position: [0, 0, 0.2]}
    pins: {corner: {vertices: [0], keyframes: [{time: 0.05, offset: [0.02, 0, 0.02]}]}}
  upper:
    material: cotton
    shape: {type: sheet, width: 0.15, length: 0.15, vertices: 10}
    pose: {position: [0.01, 0, 0.215], rpy_deg: [0, 0, 20]}
colliders:
  post: {shape: {type: box, size: [0.04, 0.04, 0.19]}, pose: {position: [0, 0, 0.095]}, boundary: {type: sticky}}
)";

std::uint64_t HashAfter(int steps, int threads) {
  auto sim = testing::SimulatorFromYaml(kClothScene, threads);
  for (int i = 0; i < steps; ++i) sim->Step();
  return sim->StateHash();
}

TEST(ClothDeterminism, SameStateForOneAndTwoThreads) {
  EXPECT_EQ(HashAfter(80, 1), HashAfter(80, 2));
}

TEST(ClothDeterminism, SaveRestoreContinueEqualsTheUninterruptedRun) {
  auto original = testing::SimulatorFromYaml(kClothScene, 2);
  for (int i = 0; i < 40; ++i) original->Step();
  const std::vector<std::uint8_t> bytes = original->SaveState();
  for (int i = 0; i < 40; ++i) original->Step();
  auto resumed = testing::SimulatorFromYaml(kClothScene, 1);
  resumed->RestoreState(bytes);
  for (int i = 0; i < 40; ++i) resumed->Step();
  EXPECT_EQ(resumed->StateHash(), original->StateHash());
}

}  // namespace
}  // namespace ductile
