// CompileModel: particle sampling, material constants and grid layout from a scene.
#include "ductile/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace ductile {
namespace {

Model Compile(const std::string& objects, const std::string& materials =
                                              "  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: "
                                              "1.0e5, poisson_ratio: 0.25}\n") {
  const std::string yaml =
      "grid: {h: 0.01, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.6]}}\n"
      "materials:\n" +
      materials + "objects:\n" + objects;
  return CompileModel(LoadSceneFromString(yaml, std::string(DUCTILE_TEST_DATA_DIR) + "/scenes/inline.yaml"));
}

TEST(CompileModel, BoxAlignedWithCellsGetsExactlyPpcPerCell) {
  // 0.1 m cube on cell boundaries: 10³ cells; a lattice of 2³ per cell, or 5 random points per cell.
  const Model lattice = Compile(
      "  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, "
      "pose: {position: [0, 0, 0.25]}}\n");
  EXPECT_EQ(lattice.num_particles, 8000);
  EXPECT_NEAR(lattice.objects[0].mass, 1.0, 1e-6);  // ρ·V = 1000 · 1e-3
  EXPECT_FLOAT_EQ(lattice.volume[0], 1e-6f / 8);
  const Model random = Compile(
      "  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, "
      "pose: {position: [0, 0, 0.25]}, particles_per_cell: 5}\n");
  EXPECT_EQ(random.num_particles, 5000);
  // Every particle lies inside the box.
  for (const auto& x : random.x0) {
    EXPECT_LE(std::abs(x[0]), 0.05f);
    EXPECT_LE(std::abs(x[2] - 0.25f), 0.05f);
  }
}

// simulation.seed: 0 the lattice at its sub-cell centres; another seed the same count per sub-cell (a cell-aligned
// box), each moved within its own sub-cell, differently for another seed and the same again for the same one; random
// sampling (5 per cell) gets other points. The box's mass does not change.
TEST(CompileModel, ASeedJittersTheLatticeWithinItsSubCells) {
  const std::string cube =
      "  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.25]}}\n";
  const auto with_seed = [&](int seed, const std::string& extra = "") {
    const std::string objects = extra.empty() ? cube : cube.substr(0, cube.size() - 2) + ", " + extra + "}\n";
    return CompileModel(LoadSceneFromString(
        "simulation: {seed: " + std::to_string(seed) +
            "}\ngrid: {h: 0.01, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.6]}}\nmaterials:\n  rubber: "
            "{model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.25}\nobjects:\n" +
            objects,
        std::string(DUCTILE_TEST_DATA_DIR) + "/scenes/inline.yaml"));
  };
  const Model plain = with_seed(0), one = with_seed(1), again = with_seed(1), two = with_seed(2);
  ASSERT_EQ(one.num_particles, plain.num_particles);
  ASSERT_EQ(two.num_particles, plain.num_particles);
  EXPECT_NEAR(one.objects[0].mass, plain.objects[0].mass, 1e-12);
  int moved = 0, differ = 0;
  double largest = 0;
  for (int i = 0; i < plain.num_particles; ++i) {
    bool off = false, other = false;
    for (int a = 0; a < 3; ++a) {
      // The same sub-cell (quarter-cell half-width 2.5 mm around the lattice point), somewhere else in it.
      const double d = std::abs(one.x0[i][a] - plain.x0[i][a]);
      largest = std::max(largest, d);
      EXPECT_LE(d, 0.0025 + 1e-7) << "particle " << i << " axis " << a;
      off = off || d > 1e-6;
      other = other || one.x0[i][a] != two.x0[i][a];
      EXPECT_EQ(one.x0[i][a], again.x0[i][a]);
    }
    moved += off ? 1 : 0;
    differ += other ? 1 : 0;
  }
  EXPECT_EQ(moved, plain.num_particles);
  EXPECT_EQ(differ, plain.num_particles);
  EXPECT_GT(largest, 0.002) << "uniform in the sub-cell: some particle moves near its edge";
  const Model random0 = with_seed(0, "particles_per_cell: 5"), random1 = with_seed(1, "particles_per_cell: 5");
  ASSERT_EQ(random1.num_particles, random0.num_particles);
  EXPECT_NE(random1.x0[0][0], random0.x0[0][0]);
}

TEST(CompileModel, SphereAndMeshVolumes) {
  // The sampled volume (count × h³/ppc) approaches the shape's: within 3% for a 5 cm sphere at 1 cm cells
  // (the lattice resolves the surface to a quarter cell, about 2% of the volume at this size).
  const Model sphere = Compile(
      "  ball: {material: rubber, shape: {type: sphere, radius: 0.05}, "
      "pose: {position: [0, 0, 0.3]}}\n");
  const double sphere_volume = 4.0 / 3.0 * M_PI * 0.05 * 0.05 * 0.05;
  EXPECT_NEAR(sphere.num_particles * 1e-6 / 8, sphere_volume, 0.03 * sphere_volume);
  // A unit-cube OBJ scaled to 0.1 m and rotated fills like the box, to 5% (its faces no longer follow cells).
  const Model mesh = Compile(
      "  block: {material: rubber, shape: {type: mesh, file: ../meshes/cube.obj, scale: 0.1}, "
      "pose: {position: [0, 0, 0.3], rpy_deg: [0, 0, 30]}}\n");
  EXPECT_NEAR(mesh.num_particles * 1e-6 / 8, 1e-3, 0.05e-3);
}

TEST(CompileModel, MaterialConstantsAndGrid) {
  const Model m = Compile(
      "  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, "
      "pose: {position: [0, 0, 0.25]}}\n");
  // E = 1e5, ν = 0.25: μ = E/(2(1+ν)) = 4e4, λ = Eν/((1+ν)(1−2ν)) = 4e4.
  EXPECT_FLOAT_EQ(m.materials[0].mu, 4e4f);
  EXPECT_FLOAT_EQ(m.materials[0].lambda, 4e4f);
  // Wave speed √((λ+2μ)/ρ) = √120 m/s; the default Δt = 1 ms needs N ≥ Δt·c/(0.4·h) = 2.74 → 3 substeps.
  EXPECT_NEAR(m.MaxWaveSpeed(), std::sqrt(120.0), 1e-6);
  EXPECT_EQ(m.RecommendedSubsteps(), 3);
  // 0.6 m / 1 cm = 60 cells → 61 nodes, plus 3 cells of padding on each side.
  EXPECT_EQ(m.grid_nodes[0], 67);
  EXPECT_EQ(m.grid_nodes[2], 67);
  EXPECT_FLOAT_EQ(m.grid_origin[0], -0.33f);
}

TEST(CompileModel, DruckerPragerAlphaFromFrictionAngle) {
  const Model m = Compile(
      "  pile: {material: sand, shape: {type: box, size: [0.1, 0.1, 0.1]}, "
      "pose: {position: [0, 0, 0.25]}}\n",
      "  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e5, poisson_ratio: 0.3, "
      "friction_angle: 30}\n");
  // α = √(2/3)·2 sin φ/(3 − sin φ) = √(2/3)·1/2.5 at φ = 30°.
  EXPECT_NEAR(m.materials[0].friction_alpha, std::sqrt(2.0 / 3.0) / 2.5, 1e-6);
}

TEST(CompileModel, TinyObjectIsAnError) {
  try {
    Compile(
        "  speck: {material: rubber, shape: {type: sphere, radius: 0.001}, pose: {position: [0.0005, 0.0005, "
        "0.3]}, particles_per_cell: 1}\n");
    FAIL() << "a sphere smaller than the particle spacing must be refused";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("no particles were sampled"), std::string::npos) << e.what();
    EXPECT_GT(e.line(), 0);
  }
}

}  // namespace
}  // namespace ductile
