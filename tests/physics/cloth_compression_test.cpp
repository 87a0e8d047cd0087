// A stiff cloth pushed together in its own plane (the bagging cradle's corners moving inward) must buckle and sag,
// not blow up. The paper's bag cloth (Yu et al. 2025, Table I: E = 3.2e6 Pa, ρ = 1.5e3 kg/m³, 30 x 30 vertices on
// 42 cm, h = 1/64 m) at Δt = 5 ms with 60 substeps (the CFL condition asks for 55): before the triangles'
// transverse term went through their vertices' stencils (mpm/cloth_transfer.cpp) this diverged at t = 0.15 s
// (and at 0.24 s with 90 substeps, 0.87 s with 15: wherever a triangle's centroid stencil first reached a grid node
// that its vertices, the only mass, barely touched).
#include <gtest/gtest.h>

#include <string>

#include "scene_fixture.h"

namespace ductile {
namespace {

constexpr double kG = 9.81;

// Two opposite edges (one vertex column each) pinned and moved towards each other at 0.15 m/s each: 21% of the
// width in 0.3 s.
std::string CompressedSheet() {
  return R"(
simulation: {dt: 5.0e-3, substeps: 60}
grid: {h: 0.015625, domain: {min: [-0.35, -0.35, 0.0], max: [0.35, 0.35, 0.6]}}
materials:
  bag: {model: cloth, density: 1500, youngs_modulus: 3.2e6, poisson_ratio: 0.4, thickness: 0.001}
objects:
  sheet:
    material: bag
    shape: {type: sheet, width: 0.42, length: 0.42, vertices: 30}
    pose: {position: [0, 0, 0.3]}
    pins:
      left: {box: {min: [-0.22, -0.22, 0.29], max: [-0.2, 0.22, 0.31]}, keyframes: [{time: 1.0, offset: [0.15, 0, 0]}]}
      right: {box: {min: [0.2, -0.22, 0.29], max: [0.22, 0.22, 0.31]}, keyframes: [{time: 1.0, offset: [-0.15, 0, 0]}]}
)";
}

// Energy bound: the pins move slowly (0.15 m/s), so what can become kinetic energy is at most the potential energy
// of the sheet sagging by its half-width (0.21 m), M g 0.21 m; an instability exceeds it by orders of magnitude.
// The sheet must also stay between its pinned edges and above the floor, and sag (its lowest point below 0.3 m).
TEST(ClothCompression, StiffSheetPushedTogetherBucklesWithoutBlowingUp) {
  auto sim = testing::SimulatorFromYaml(CompressedSheet());
  ASSERT_NO_THROW(testing::RunUntil(*sim, 0.3));
  const ObjectSummary s = sim->SummarizeObject(0);
  EXPECT_LT(s.kinetic_energy, s.mass * kG * 0.21);
  EXPECT_GT(s.bounds_min[0], -0.22);
  EXPECT_LT(s.bounds_max[0], 0.22);
  EXPECT_GT(s.bounds_min[2], 0.0);
  EXPECT_LT(s.bounds_min[2], 0.29);
}

}  // namespace
}  // namespace ductile
