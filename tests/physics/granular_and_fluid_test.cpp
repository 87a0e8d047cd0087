// Sand and water flows against simple references.
//
// Sand (Drucker-Prager, Klár et al. 2016): a low cylinder of dry sand on a rough floor slumps until its flanks
// can carry their own weight, i.e. until they stand at about the material's friction angle (the angle of
// repose of a cohesionless material). We fit the flank of the resting pile and compare the angle.
//
// Water (weakly compressible fluid): a dam break. The front of a released column of height H cannot outrun the
// frictionless shallow-water (Ritter 1892) front speed 2√(gH), and a column that spreads moves at a good part of
// it (Martin & Moyce 1952 measured roughly two thirds of it for a column twice as high as wide; our column is that).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "mpm/particles.h"
#include "scene_fixture.h"
#include "support/particles_of.h"

namespace ductile {
namespace {

constexpr char kSandPileScene[] = R"(
simulation: {dt: 1.0e-3, substeps: 6, gravity: [0, 0, -9.81]}
grid: {h: 0.01, domain: {min: [-0.25, -0.25, 0.0], max: [0.25, 0.25, 0.15]}}
materials:
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e5, poisson_ratio: 0.3, friction_angle: 35}
objects:
  column: {material: sand, shape: {type: cylinder, radius: 0.1, length: 0.05}, pose: {position: [0, 0, 0.046]}}
colliders:
  floor: {shape: {type: plane, normal: [0, 0, 1]}, pose: {position: [0, 0, 0.02]}, boundary: {type: sticky}}
)";

// The flank angle [deg] of an axisymmetric pile on the plane z = floor: the top surface height in radial bins
// of width `bin`, fitted by least squares over the middle half of the pile's height (25% to 75%). The quadratic
// stencil spans three cells, so MPM rounds a pile's crest and toe over about a cell each; at h = 1 cm and a
// 5 cm pile, the outer quarters of the height are that rounding, not the flank.
double FlankAngleDegrees(const mpm::Particles& p, double floor, double bin) {
  std::vector<double> top(400, 0.0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const int b = static_cast<int>(std::hypot(p.x[i].x, p.x[i].y) / bin);
    if (b < static_cast<int>(top.size())) top[b] = std::max(top[b], static_cast<double>(p.x[i].z) - floor);
  }
  const double peak = *std::max_element(top.begin(), top.end());
  double n = 0, sr = 0, sz = 0, srr = 0, srz = 0;
  for (std::size_t b = 0; b < top.size(); ++b) {
    if (top[b] < 0.25 * peak || top[b] > 0.75 * peak) continue;
    const double r = (static_cast<double>(b) + 0.5) * bin;
    n += 1;
    sr += r;
    sz += top[b];
    srr += r * r;
    srz += r * top[b];
  }
  const double slope = (n * srz - sr * sz) / (n * srr - sr * sr);
  return std::atan(-slope) * 180.0 / M_PI;
}

TEST(Sand, PileFlankStandsNearTheFrictionAngle) {
  auto sim = testing::SimulatorFromYaml(kSandPileScene);
  testing::RunUntil(*sim, 0.8);
  // At rest: the kinetic energy of the 8 kg pile is below a millijoule.
  EXPECT_LT(sim->SummarizeObject(0).kinetic_energy, 1e-3);
  // It did slump: the edge moved out well past the initial 0.1 m radius.
  EXPECT_GT(sim->SummarizeObject(0).bounds_max[0], 0.115);
  const double angle = FlankAngleDegrees(testing::ParticlesOf(*sim), 0.02, 0.005);
  RecordProperty("flank_angle_deg", std::to_string(angle));
  std::printf("sand pile flank angle: %.2f deg (friction angle 35 deg)\n", angle);
  // 35° friction angle; measured 32.0° with this build. Tolerance 5°: the flank is curved (about 20° near the crest,
  // 38° near the toe, as collapsed columns are) and only four or five cells tall, and the fitted angle moves by a
  // few degrees with the rounding of the float arithmetic (changes to P2G's summation order moved it between
  // 29° and 32°; fused multiply-adds, which the engine no longer uses, gave 24°). A pile at 25° or 45° fails.
  EXPECT_NEAR(angle, 35.0, 5.0);
}

constexpr char kDamBreakScene[] = R"(
simulation: {dt: 1.0e-3, substeps: 6, gravity: [0, 0, -9.81]}
grid: {h: 0.01, domain: {min: [0.0, 0.0, 0.0], max: [0.6, 0.05, 0.3]}, boundary: {type: separate}}
materials:
  water: {model: fluid, density: 1000, bulk_modulus: 2.0e4, gamma: 7}
objects:
  water: {material: water, shape: {type: box, size: [0.1, 0.05, 0.2]}, pose: {position: [0.05, 0.025, 0.1]}}
)";

TEST(Fluid, DamBreakColumnSpreads) {
  auto sim = testing::SimulatorFromYaml(kDamBreakScene);
  const double g = 9.81, H = 0.2;
  const double x0 = sim->SummarizeObject(0).bounds_max[0];
  testing::RunUntil(*sim, 0.05);
  const double t1 = sim->time(), x1 = sim->SummarizeObject(0).bounds_max[0];
  testing::RunUntil(*sim, 0.15);
  const double t2 = sim->time(), x2 = sim->SummarizeObject(0).bounds_max[0];
  const ObjectSummary s2 = sim->SummarizeObject(0);

  const double ritter = 2 * std::sqrt(g * H);  // 2.8 m/s
  EXPECT_LT(x2 - x0, ritter * t2) << "the front outran the ideal-fluid bound";
  const double speed = (x2 - x1) / (t2 - t1);
  std::printf("dam break front speed: %.3f m/s (Ritter bound %.3f m/s)\n", speed, ritter);
  EXPECT_GT(speed, 0.5 * ritter);
  EXPECT_LT(speed, ritter);
  // The column collapses: by 0.15 s its top is below three quarters of the initial 0.2 m.
  EXPECT_LT(s2.bounds_max[2], 0.75 * H);
}

}  // namespace
}  // namespace ductile
