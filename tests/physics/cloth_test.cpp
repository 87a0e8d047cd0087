// Cloth in MPM (Jiang, Gast, Teran 2017; mpm/cloth_transfer.cpp) against what momentum balance and the 2-D fixed
// corotated model say. A sheet of 0.2 × 0.2 m, 1 mm thick, ρ = 1000 kg/m³ (40 g), on h = 1/64 m; E = 1e5 Pa gives a
// wave speed √(E/ρ) = 10 m/s, 0.16 mm per 16 µs substep, a hundredth of a cell.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/small_math.h"
#include "coupling_scenarios.h"
#include "ductile/snapshot.h"
#include "pin_balance.h"
#include "scene_fixture.h"

namespace ductile {
namespace {

constexpr double kG = 9.81;

std::string ClothScene(const std::string& gravity, const std::string& poisson, const std::string& pins,
                       const std::string& width = "0.2", const std::string& length = "0.2",
                       const std::string& height = "0.7") {
  return R"(
simulation: {dt: 1.0e-3, substeps: 8, gravity: )" +
         gravity + R"(}
grid: {h: 0.015625, domain: {min: [-0.5, -0.5, 0.0], max: [0.5, 0.5, 1.0]}}
materials:
  cotton: {model: cloth, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: )" +
         poisson + R"(, thickness: 0.001}
objects:
  sheet:
    material: cotton
    shape: {type: sheet, width: )" +
         width + ", length: " + length + R"(, vertices: 21}
    pose: {position: [0, 0, )" +
         height + R"(]}
)" + pins;
}

// Internal forces cancel: the in-plane forces on a triangle's vertices sum to zero and are spread with weights
// that sum to one; the transverse force's moment Σ w_ie (x_i − x_e) is zero for quadratic B-splines. So after its
// pin lets go, a cloth that hung from one corner, swinging and folding, has momentum P(t) = P(t₁) − M g (t − t₁)
// and no sideways change. Float round-off over 2,400 substeps of ~1e-7 relative each: checked at 1e-4 of M g t.
// (It falls 0.5 m from 0.9 m: clear of the floor wall at 0.)
TEST(Cloth, MomentumAfterReleaseFollowsGravityAlone) {
  auto sim = testing::SimulatorFromYaml(ClothScene(
      "[0, 0, -9.81]", "0.3", "    pins: {corner: {vertices: [0], release_time: 0.1}}\n", "0.2", "0.2", "0.9"));
  testing::RunUntil(*sim, 0.1);
  const ObjectSummary before = sim->SummarizeObject(0);
  const double t1 = sim->time();
  testing::RunUntil(*sim, 0.4);
  const ObjectSummary after = sim->SummarizeObject(0);
  const double elapsed = sim->time() - t1;
  const double M = before.mass;
  EXPECT_NEAR(M, 0.04, 1e-6);
  const double tolerance = 1e-4 * M * kG * elapsed;
  EXPECT_NEAR(M * after.velocity[0], M * before.velocity[0], tolerance);
  EXPECT_NEAR(M * after.velocity[1], M * before.velocity[1], tolerance);
  EXPECT_NEAR(M * after.velocity[2], M * before.velocity[2] - M * kG * elapsed, tolerance);
  // The cloth did swing before the release (it is not a trivial free fall of an undeformed sheet).
  EXPECT_GT(std::hypot(before.velocity[0], before.velocity[1]), 0.05);
}

// A sheet hanging from its four corners: the pins' impulses balance gravity and the change of momentum exactly,
// ∫ Σ F_pin dt = ΔP + M g T (to the float sums' round-off), and once it has settled their mean is its weight.
// Released flat, the sheet bounces on its corners, its vertical speed swinging ±0.45 m/s at first and decaying
// slowly (MPM's transfers damp little): ±0.15 m/s by t = 1 s. Over 1 s from there its momentum changes by at most
// 0.3·M, 3% of M g T, hence the 5% on the mean.
TEST(Cloth, HangingSheetPinsCarryItsWeight) {
  auto sim = testing::SimulatorFromYaml(ClothScene("[0, 0, -9.81]", "0.3", "    pins: {corners: {corners: true}}\n"));
  testing::RunUntil(*sim, 1.0);
  const ObjectSummary start = sim->SummarizeObject(0);
  const testing::PinImpulse pins = testing::IntegratePinForces(*sim, 2.0);
  testing::ExpectPinsBalanceMomentum(pins, start, sim->SummarizeObject(0));
  const double M = start.mass;
  EXPECT_NEAR(pins.impulse[2] / pins.T, M * kG, 0.05 * M * kG);
}

// A strip stretched along x by s = 1.1 between its pinned short edges, without gravity, with ν = 0 (λ = 0, so no
// lateral contraction and the clamped edges do not disturb the uniform state): the 2-D fixed corotated stress is
// P₁₁ = 2μ(s − 1) = E(s − 1), and each edge's pins pull with P₁₁ times the cross-section (width 0.1 m × 1 mm) =
// 1e5 · 0.1 · 1e-4 = 1.0 N. The stretch ramps over 0.2 s; the mean over 0.3 s of hold, while the strip's axial
// modes (period 2L/c = 0.08 s) still ring, is within 3% of it.
TEST(Cloth, StretchedStripPullsWithTheTwoDimensionalFixedCorotatedStress) {
  const std::string pins = R"(    pins:
      left: {box: {min: [-0.21, -0.1, 0.6], max: [-0.19, 0.1, 0.8]}}
      right:
        box: {min: [0.19, -0.1, 0.6], max: [0.21, 0.1, 0.8]}
        keyframes: [{time: 0.2, offset: [0.04, 0, 0]}]
)";
  auto sim = testing::SimulatorFromYaml(ClothScene("[0, 0, 0]", "0.0", pins, "0.4", "0.1"));
  testing::RunUntil(*sim, 0.3);
  std::array<double, 3> left{0, 0, 0}, right{0, 0, 0};
  int steps = 0;
  while (sim->time() < 0.6 - 1e-9) {
    sim->Step();
    for (int a = 0; a < 3; ++a) {
      left[a] += sim->last_step().pin_forces[0][a];
      right[a] += sim->last_step().pin_forces[1][a];
    }
    ++steps;
  }
  const double expected = 1e5 * 0.1 * (0.44 / 0.4 - 1.0) * 1e-3;  // E (s − 1) × width × thickness = 1.0 N
  EXPECT_NEAR(-left[0] / steps, expected, 0.03 * expected);       // the left edge is pulled towards +x: held at −x
  EXPECT_NEAR(right[0] / steps, expected, 0.03 * expected);
  EXPECT_NEAR(left[1] / steps, 0.0, 0.01 * expected);
  EXPECT_NEAR(right[2] / steps, 0.0, 0.01 * expected);
}

// Pins hold, follow their keyframes and let go on time.
TEST(Cloth, PinsHoldFollowKeyframesAndRelease) {
  const std::string pins = R"(    pins:
      still: {vertices: [0]}
      mover:
        vertices: [20]
        keyframes: [{time: 0.1, offset: [0, 0, 0.05]}, {time: 0.2, offset: [0, 0, 0.05]}]
        release_time: 0.25
)";
  auto sim = testing::SimulatorFromYaml(ClothScene("[0, 0, -9.81]", "0.3", pins));
  // Vertex 0 is the −x, −y corner (−0.1, −0.1, 0.7), vertex 20 the +x, −y corner (0.1, −0.1, 0.7).
  const auto position = [&](int vertex) {
    Snapshot s;
    sim->CaptureSnapshot(s, false);
    return s.particles.position[vertex];
  };
  testing::RunUntil(*sim, 0.05);
  EXPECT_NEAR(position(20)[2], 0.7 + 0.025, 1e-5);  // halfway up its first keyframe segment
  testing::RunUntil(*sim, 0.15);
  EXPECT_NEAR(position(20)[2], 0.75, 1e-5);
  EXPECT_NEAR(position(0)[0], -0.1, 1e-6);
  EXPECT_NEAR(position(0)[2], 0.7, 1e-6);
  testing::RunUntil(*sim, 0.24);
  const float held = position(20)[2];
  EXPECT_NEAR(held, 0.75, 1e-5);
  testing::RunUntil(*sim, 0.35);
  EXPECT_LT(position(20)[2], held - 0.005);  // released: it falls
  EXPECT_NEAR(position(0)[2], 0.7, 1e-6);    // still held
}

// Where the pins stand and what they absorbed belong to the state: after Reset a run past a release repeats the
// fresh run bitwise (the first scatter holds the pins as they are at t = 0, not as the last run left them), and a
// run restored mid-way reports the same pin forces and reaches the same state as the uninterrupted one.
TEST(Cloth, PinsRepeatAfterResetAndRestore) {
  const std::string scene = ClothScene(
      "[0, 0, -9.81]", "0.3", "    pins: {corners: {corners: true}, edge: {vertices: [10], release_time: 0.05}}\n");
  auto fresh = testing::SimulatorFromYaml(scene);
  fresh->Step();
  const std::uint64_t one_step = fresh->StateHash();
  const std::vector<std::array<double, 3>> one_step_forces = fresh->last_step().pin_forces;
  auto sim = testing::SimulatorFromYaml(scene);
  testing::RunUntil(*sim, 0.1);  // past the release
  sim->Reset();
  sim->Step();
  EXPECT_EQ(sim->StateHash(), one_step);
  EXPECT_EQ(sim->last_step().pin_forces, one_step_forces);

  testing::RunUntil(*fresh, 0.02);
  const std::vector<std::uint8_t> saved = fresh->SaveState();
  testing::RunUntil(*fresh, 0.1);
  const std::uint64_t uninterrupted = fresh->StateHash();
  auto restored = testing::SimulatorFromYaml(scene);
  restored->RestoreState(saved);
  fresh->RestoreState(saved);
  restored->Step();
  fresh->Step();
  EXPECT_EQ(restored->last_step().pin_forces, fresh->last_step().pin_forces);
  testing::RunUntil(*restored, 0.1);
  EXPECT_EQ(restored->StateHash(), uninterrupted);
}

// A cloth made from an OBJ file behaves as the sheet whose triangles it holds. tests/data/meshes/cloth_square.obj is
// a 0.1 × 0.1 m sheet of 11 × 11 vertices written as a triangle soup; beside it (16 cells away along x, so at the
// same place relative to the grid) lies the sheet itself. Both fall flat from 0.2 m onto the floor (impact at about
// 0.2 s) and stay lying there (with a normal stiffness of 1e3 Pa: at the default, E, the floor's push through the
// cloth bounces both up by centimetres, as it does scenes/tshirt_drop.yaml's shirt). The two differ only in the order
// of their vertices (the mesh's come in the order of the soup's first occurrences), which changes float sums' order:
// their centres of mass agree within 0.01 mm while they fall and 1 mm once they lie on the floor. (Hung by an edge
// instead, the swinging sheets buckle, and round-off picks the folds: they part by centimetres.)
TEST(Cloth, MeshClothFallsAndLandsLikeTheSheetItIsMadeOf) {
  const std::string mesh = std::string(DUCTILE_TEST_DATA_DIR) + "/meshes/cloth_square.obj";
  const std::string square = R"(
simulation: {dt: 1.0e-3, substeps: 8}
grid: {h: 0.015625, domain: {min: [-0.3125, -0.15625, 0.0], max: [0.3125, 0.15625, 0.375]}}
materials:
  cotton: {model: cloth, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3, thickness: 0.001,
           normal_stiffness: 1.0e3}
objects:
  sheet:
    material: cotton
    shape: {type: sheet, width: 0.1, length: 0.1, vertices: 11}
    pose: {position: [-0.125, 0, 0.2]}
  mesh:
    material: cotton
    shape: {type: mesh, file: )" +
                             mesh + R"(}
    pose: {position: [0.125, 0, 0.2]}
)";
  auto sim = testing::SimulatorFromYaml(square);
  // The snapshot draws the mesh cloth as it does the sheet: its triangles in local vertex numbers.
  Snapshot snapshot;
  sim->CaptureSnapshot(snapshot, false);
  ASSERT_EQ(snapshot.cloths.size(), 2u);
  for (const SnapshotCloth& cloth : snapshot.cloths) {
    EXPECT_EQ(cloth.num_vertices, 121);
    ASSERT_EQ(cloth.triangles.size(), 200u);
    double area = 0;
    for (const std::array<std::uint32_t, 3>& t : cloth.triangles) {
      std::array<Vec3d, 3> x;
      for (int k = 0; k < 3; ++k) {
        ASSERT_LT(t[k], 121u);
        const std::array<float, 3>& p = snapshot.particles.position[cloth.first_particle + t[k]];
        x[k] = {p[0], p[1], p[2]};
      }
      area += 0.5 * Norm(Cross(x[1] - x[0], x[2] - x[0]));
    }
    EXPECT_NEAR(area, 0.01, 1e-6) << "cloth of object " << cloth.object;
  }
  const auto compare = [&](double tolerance) {
    const ObjectSummary a = sim->SummarizeObject(0), b = sim->SummarizeObject(1);
    EXPECT_NEAR(b.center_of_mass[0] - a.center_of_mass[0], 0.25, tolerance) << "t = " << sim->time();
    for (int axis = 1; axis < 3; ++axis)
      EXPECT_NEAR(b.center_of_mass[axis], a.center_of_mass[axis], tolerance) << "t = " << sim->time();
    for (int axis = 0; axis < 3; ++axis)
      EXPECT_NEAR(b.bounds_max[axis] - b.bounds_min[axis], a.bounds_max[axis] - a.bounds_min[axis], tolerance);
    return a;
  };
  EXPECT_NEAR(sim->SummarizeObject(1).mass, sim->SummarizeObject(0).mass, 1e-9);
  EXPECT_NEAR(sim->SummarizeObject(1).mass, 0.01, 1e-8);  // ρ·t·A = 1000 · 0.001 · 0.01
  testing::RunUntil(*sim, 0.15);
  const ObjectSummary falling = compare(1e-5);
  EXPECT_NEAR(falling.center_of_mass[2], 0.2 - 0.5 * kG * 0.15 * 0.15, 1e-3);
  testing::RunUntil(*sim, 0.6);
  const ObjectSummary landed = compare(1e-3);
  EXPECT_LT(landed.bounds_max[2], 0.03);  // on the floor, flat
  EXPECT_GT(landed.bounds_max[0] - landed.bounds_min[0], 0.095);
}

// scenes/towel_drape.yaml, coarsened (h = 2.5 cm, 21 vertices a side, 10 substeps) to run in seconds: the towel
// falls onto the static ball (top at z = 0.20 m) and rests on it through the MPM-rigid contact, hanging down to
// the floor. Its top stays on the ball within a fifth of a cell (5 mm; the contact is a stiff penalty, so a little
// sinking in is expected, falling through is not), its hem reaches down near the floor, and after 1 s it has
// come to rest (centre-of-mass speed below 5 cm/s, from 1.4 m/s at impact).
TEST(Cloth, TowelDrapesOverTheBallAndRests) {
  auto sim = testing::SimulatorForScene("towel_drape.yaml",
                                        {"grid.h=0.025", "objects.towel.shape.vertices=21", "simulation.substeps=10"});
  testing::RunUntil(*sim, 1.0);
  const ObjectSummary towel = sim->SummarizeObject(0);
  EXPECT_NEAR(towel.bounds_max[2], 0.20, 0.005);
  EXPECT_LT(towel.bounds_min[2], 0.05);
  EXPECT_LT(std::hypot(towel.velocity[0], towel.velocity[1], towel.velocity[2]), 0.05);
  // Draped, not slid off: the towel still covers the ball, centred on it.
  EXPECT_NEAR(0.5 * (towel.bounds_min[0] + towel.bounds_max[0]), 0.0, 0.03);
  EXPECT_NEAR(0.5 * (towel.bounds_min[1] + towel.bounds_max[1]), 0.0, 0.03);
}

}  // namespace
}  // namespace ductile
