// Cloth with its in-plane force implicit (`implicit_in_plane` θ; mpm/cloth_implicit.cpp): the one Newton step of
// the θ-method keeps what the explicit cloth satisfies exactly (momentum; the static stress the pins carry) and
// holds a stiff cloth at substeps where the explicit one diverges.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "pin_balance.h"
#include "scene_fixture.h"

namespace ductile {
namespace {

constexpr double kG = 9.81;

// A sheet `width` × `length` of `vertices` a side, its centre at (0, 0, height), of a cloth material with the given
// keys, on h = 1/64 m.
std::string SheetScene(const std::string& simulation, const std::string& material, const std::string& pins,
                       const std::string& shape = "width: 0.2, length: 0.2, vertices: 21",
                       const std::string& height = "0.7") {
  return "simulation: {" + simulation + R"(}
grid: {h: 0.015625, domain: {min: [-0.5, -0.5, 0.0], max: [0.5, 0.5, 1.0]}}
materials:
  cloth: {model: cloth, )" +
         material + R"(}
objects:
  sheet:
    material: cloth
    shape: {type: sheet, )" +
         shape + R"(}
    pose: {position: [0, 0, )" +
         height + R"(]}
)" + pins;
}

const char* kCotton =
    "density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3, thickness: 0.001, implicit_in_plane: 1";

// The impulse J = Δt f − θ Δt² H (v + Δv) sums to zero over each triangle however closely the conjugate gradients
// solved for Δv, so after its pin lets go a swinging, folding cloth's momentum follows gravity alone:
// P(t) = P(t₁) − M g (t − t₁), to float round-off over 2,400 substeps (1e-4 of M g t, as for the explicit cloth in
// cloth_test.cpp).
TEST(ClothImplicit, MomentumAfterReleaseFollowsGravityAlone) {
  auto sim = testing::SimulatorFromYaml(SheetScene("dt: 1.0e-3, substeps: 8, gravity: [0, 0, -9.81]", kCotton,
                                                   "    pins: {corner: {vertices: [0], release_time: 0.1}}\n",
                                                   "width: 0.2, length: 0.2, vertices: 21", "0.9"));
  testing::RunUntil(*sim, 0.1);
  const ObjectSummary before = sim->SummarizeObject(0);
  const double t1 = sim->time();
  testing::RunUntil(*sim, 0.4);
  const ObjectSummary after = sim->SummarizeObject(0);
  const double elapsed = sim->time() - t1;
  const double M = before.mass;
  const double tolerance = 1e-4 * M * kG * elapsed;
  EXPECT_NEAR(M * after.velocity[0], M * before.velocity[0], tolerance);
  EXPECT_NEAR(M * after.velocity[1], M * before.velocity[1], tolerance);
  EXPECT_NEAR(M * after.velocity[2], M * before.velocity[2] - M * kG * elapsed, tolerance);
  EXPECT_GT(std::hypot(before.velocity[0], before.velocity[1]), 0.05);  // it did swing before the release
}

// At rest the step adds nothing (f = 0, v = 0), so the static stress is the fixed corotated one: a strip stretched by
// s = 1.1 between pinned edges, ν = 0, pulls with E (s − 1) × width × thickness = 1.0 N on each (the explicit
// test's set-up in cloth_test.cpp). Backward Euler damps the strip's axial ringing, which the explicit strip keeps
// up over the 0.3 s mean; the same 3% holds.
TEST(ClothImplicit, StretchedStripPullsWithTheFixedCorotatedStress) {
  const std::string pins = R"(    pins:
      left: {box: {min: [-0.21, -0.1, 0.6], max: [-0.19, 0.1, 0.8]}}
      right:
        box: {min: [0.19, -0.1, 0.6], max: [0.21, 0.1, 0.8]}
        keyframes: [{time: 0.2, offset: [0.04, 0, 0]}]
)";
  auto sim = testing::SimulatorFromYaml(
      SheetScene("dt: 1.0e-3, substeps: 8, gravity: [0, 0, 0]",
                 "density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.0, thickness: 0.001, implicit_in_plane: 1",
                 pins, "width: 0.4, length: 0.1, vertices: 21"));
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
  const double expected = 1e5 * 0.1 * (0.44 / 0.4 - 1.0) * 1e-3;
  EXPECT_NEAR(-left[0] / steps, expected, 0.03 * expected);
  EXPECT_NEAR(right[0] / steps, expected, 0.03 * expected);
}

// The bag cloth of scenes/box_bagging.yaml (42 × 42 cm, 30 × 30 vertices, E = 3.2e6 Pa, ν = 0.4, ρ = 1500 kg/m³)
// released flat from its four corners with 5 substeps of a 5 ms step: its in-plane wave, 67.6 m/s, crosses 2.2
// cells per substep. Explicit, it diverges (measured: within 0.1 s); with θ = 1 it runs, sagging 2 to 4 cm and
// bouncing on its corners (measured vertical speed of its centre ±0.3 m/s at 1 s, ±0.15 m/s at 3 s). Its pins'
// impulses balance gravity and its change of momentum (the impulse the pins absorb from the held vertices counts
// with the gather that takes that scatter, mpm/cloth_transfer.cpp) to 1e-4 of M g T, as in cloth_test.cpp's
// hanging sheet, and over T = 2 s from t = 1 s their mean is its weight within 5%: the bouncing changes its
// momentum by at most 0.6 M, 3% of M g T.
TEST(ClothImplicit, StiffCradleHoldsAtFiveSubstepsWhereExplicitDiverges) {
  const auto scene = [](const std::string& theta) {
    return SheetScene("dt: 5.0e-3, substeps: 5, cfl: 0.9, gravity: [0, 0, -9.81]",
                      "density: 1500, youngs_modulus: 3.2e6, poisson_ratio: 0.4, thickness: 0.001, "
                      "implicit_in_plane: " +
                          theta,
                      "    pins: {corners: {corners: true}}\n", "width: 0.42, length: 0.42, vertices: 30", "0.6");
  };
  {
    auto explicit_sim = testing::SimulatorFromYaml(scene("0"));
    EXPECT_THROW(testing::RunUntil(*explicit_sim, 1.0), SimulationDiverged);
  }
  auto sim = testing::SimulatorFromYaml(scene("1"));
  ASSERT_NO_THROW(testing::RunUntil(*sim, 1.0));
  const ObjectSummary start = sim->SummarizeObject(0);
  EXPECT_GT(start.bounds_min[2], 0.5);  // sags a few centimetres below its corners (0.6 m)
  const testing::PinImpulse pins = testing::IntegratePinForces(*sim, 3.0);
  testing::ExpectPinsBalanceMomentum(pins, start, sim->SummarizeObject(0));
  const double M = start.mass;
  EXPECT_NEAR(pins.impulse[2] / pins.T, M * kG, 0.05 * M * kG);
}

// The step's warnings and messages: the explicit stiff cloth needs 25 substeps and is told about the option; with
// θ ≥ 1/2 its in-plane wave no longer sets the recommended substeps.
TEST(ClothImplicit, RecommendedSubstepsLeaveTheImplicitCloth) {
  const auto model = [](const std::string& theta) {
    return testing::ModelFromYaml(SheetScene(
        "dt: 5.0e-3, substeps: 5, cfl: 0.9",
        "density: 1500, youngs_modulus: 3.2e6, poisson_ratio: 0.4, thickness: 0.001, implicit_in_plane: " + theta, "",
        "width: 0.42, length: 0.42, vertices: 30"));
  };
  EXPECT_EQ(model("0")->RecommendedSubsteps(), 25);
  EXPECT_NE(ImplicitClothHint(*model("0")).find("materials.cloth.implicit_in_plane: 1"), std::string::npos);
  EXPECT_EQ(model("0.4")->RecommendedSubsteps(), 25);
  EXPECT_EQ(model("1")->RecommendedSubsteps(), 1);
  EXPECT_EQ(ImplicitClothHint(*model("1")), "");
}

}  // namespace
}  // namespace ductile
