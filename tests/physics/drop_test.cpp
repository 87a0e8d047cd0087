// A cube dropped on the ground: elastic (fixed corotated) bounces back and recovers its shape; dough (linear
// corotated with von Mises plasticity, Zong et al. 2024) yields on impact and stays flattened. Impact speed
// √(2·9.81·0.18) ≈ 1.9 m/s gives an impact stress of order ρ·c·v ≈ 1000·6.5·1.9 ≈ 12 kPa in the dough, twelve
// times its 1 kPa yield stress, so a large permanent set is the expected physics, while the rubber's stress
// stays elastic by construction.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "scene_fixture.h"

namespace ductile {
namespace {

std::string DropScene(const std::string& material) {
  return R"(
simulation: {dt: 1.0e-3, substeps: 4, gravity: [0, 0, -9.81]}
grid: {h: 0.01, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.6]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 1.0e3}
objects:
  cube: {material: )" +
         material + R"(, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.25]}}
colliders:
  ground: {shape: {type: plane, normal: [0, 0, 1]}, pose: {position: [0, 0, 0.02]}, boundary: {type: friction, friction: 0.8}}
)";
}

struct DropRecord {
  double max_rebound_com = 0;    // highest centre of mass after the first touch-down [m]
  double height_end = 0;         // z extent of the particles at the end [m]
  double height_before_end = 0;  // z extent 0.3 s before the end [m]
  double min_height = 1;         // smallest z extent during the run [m]
};

DropRecord RunDrop(const std::string& material, double duration) {
  auto sim = testing::SimulatorFromYaml(DropScene(material));
  DropRecord r;
  bool touched = false;
  double lowest_com = 1;
  while (sim->time() < duration) {
    sim->Step();
    const ObjectSummary s = sim->SummarizeObject(0);
    const double height = s.bounds_max[2] - s.bounds_min[2];
    r.min_height = std::min(r.min_height, height);
    if (s.bounds_min[2] < 0.03) touched = true;
    if (touched) {
      lowest_com = std::min(lowest_com, s.center_of_mass[2]);
      // Rebound: the rise of the centre of mass above its lowest point after touching down.
      r.max_rebound_com = std::max(r.max_rebound_com, s.center_of_mass[2] - lowest_com);
    }
    if (sim->time() <= duration - 0.3) r.height_before_end = height;
    r.height_end = height;
  }
  return r;
}

TEST(Drop, ElasticCubeBouncesBack) {
  const DropRecord r = RunDrop("rubber", 1.2);
  // It bounces: the centre of mass rises again by a good part of the 0.18 m drop (MPM's transfer dissipation
  // and the frictional ground take some energy; 2 cm is a tenth of the drop height, far above the millimetres a
  // plastic body creeps).
  EXPECT_GT(r.max_rebound_com, 0.02);
  // And recovers its shape: 0.1 m cube, particles span 0.095 m (half a particle spacing in from each face);
  // 10% covers the remaining elastic oscillation.
  EXPECT_NEAR(r.height_end, 0.095, 0.0095);
}

TEST(Drop, DoughCubeStaysFlattened) {
  const DropRecord r = RunDrop("dough", 1.2);
  // Flattened by at least a third of its 0.095 m particle height...
  EXPECT_LT(r.height_end, 0.065);
  // ...and stays so: in the last 0.3 s its height changes by less than 3 mm (no elastic recovery).
  EXPECT_NEAR(r.height_end, r.height_before_end, 0.003);
  EXPECT_LT(r.max_rebound_com, 0.01);
}

}  // namespace
}  // namespace ductile
