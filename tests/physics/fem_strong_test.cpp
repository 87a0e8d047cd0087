// FEM soft bodies in the strong scheme (coupling/strong_coupling.h, fem/soft_free_motion.h): one linearised implicit
// step per Δt = 10 ms solved with the rigid bodies in one SAP problem, SAP's near-rigid friction cone at each surface
// vertex touching rigid geometry. The references are statics and Coulomb's law, as for MPM in the strong scheme.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "model/fem_model.h"
#include "physics/coupling_scenarios.h"
#include "physics/scene_fixture.h"

namespace ductile {
namespace {

constexpr double kGravity = 9.81;

double SoftMass(const Simulator& sim) {
  return sim.model().fem->soft_bodies[0].mass;
}

// The panel squeeze of Yu et al. 2025 (Fig. 2; scenes/panel_squeeze.yaml) with the cube a FEM soft body: each panel
// on a prismatic joint pushed with 10 N (from 1 mm away: the IPC system built at load refuses touching surfaces),
// μ = 0.8, so friction can carry 16 N of the cube's 3.9 N weight.
constexpr const char* kSqueeze = R"(
simulation: {dt: 0.01, duration: 1.5, coupling: strong}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}}
soft_bodies:
  cube:
    shape: {type: box, size: [0.1, 0.1, 0.1]}
    resolution: 0.025
    youngs_modulus: 1.0e5
    poisson_ratio: 0.4
    density: 400
    pose: {position: [0, 0, 0.2]}
ipc: {friction: 0.8}
rigid_bodies:
  left_panel:
    shape: {type: box, size: [0.02, 0.2, 0.2]}
    mass: 1.0
    joint: {type: prismatic, parent: world, origin: {position: [-0.061, 0, 0.2]}, axis: [1, 0, 0], effort_applied: 10}
  right_panel:
    shape: {type: box, size: [0.02, 0.2, 0.2]}
    mass: 1.0
    joint: {type: prismatic, parent: world, origin: {position: [0.061, 0, 0.2]}, axis: [1, 0, 0], effort_applied: -10}
)";

// Over [0.5, 1.5] s each panel's mean normal force is the 10 N it pushes with (within 2%) and the panels' vertical
// friction forces together carry the cube's weight within 2% (statics of the hanging cube; 2% as the MPM panel
// squeeze's bar, which leaves the regularised friction's creep), their sideways forces cancel to 1% of the weight,
// and the cube sinks under a millimetre. How the weight splits between the panels is statically indeterminate: it is
// set while friction catches the cube, and the tetrahedralised cube is not mirror-symmetric (measured 57/43%; its
// panels also twist it about z by a small couple, ±0.29 N); each panel is checked to carry a share of it.
TEST(FemStrongCoupling, PanelSqueezeHoldsTheSoftCubeByFriction) {
  auto sim = testing::SimulatorFromYaml(kSqueeze);
  const int panels[2] = {testing::RigidBodyIndex(*sim, "left_panel"), testing::RigidBodyIndex(*sim, "right_panel")};
  testing::RunUntil(*sim, 0.5);
  const double z_begin = sim->SummarizeIpcBody(0).position[2];
  std::array<std::array<double, 3>, 2> mean{};
  int samples = 0;
  while (sim->time() + 0.005 < 1.5) {
    sim->Step();
    EXPECT_TRUE(sim->last_step().mpm_contact_converged) << "t = " << sim->time();
    for (int p = 0; p < 2; ++p)
      for (int a = 0; a < 3; ++a) mean[p][a] += sim->SummarizeRigidBody(panels[p]).contact_force[a];
    ++samples;
  }
  const double weight = SoftMass(*sim) * kGravity;
  const char* names[2] = {"left", "right"};
  for (int p = 0; p < 2; ++p) {
    for (double& f : mean[p]) f /= samples;
    for (int a = 0; a < 3; ++a)
      ::testing::Test::RecordProperty(std::string(names[p]) + "_f" + "xyz"[a] + "_N", std::to_string(mean[p][a]));
    EXPECT_NEAR(mean[p][0], p == 0 ? -10.0 : 10.0, 0.2) << names[p];
    EXPECT_LT(mean[p][2], -0.25 * weight) << names[p] << " carries a share of the weight";
  }
  EXPECT_NEAR(mean[0][2] + mean[1][2], -weight, 0.02 * weight);
  EXPECT_LT(std::abs(mean[0][1] + mean[1][1]), 0.01 * weight);
  EXPECT_LT(std::abs(z_begin - sim->SummarizeIpcBody(0).position[2]), 1e-3);
}

// A soft block on a plane under gravity tilted by θ (the incline's frame): with μ = 0.3 it sticks at θ = 10°
// (tan θ = 0.18 < μ) and slides at θ = 30° with the Coulomb acceleration g (sin θ − μ cos θ) = 2.36 m/s².
std::unique_ptr<Simulator> Incline(double degrees) {
  const double theta = degrees * 3.14159265358979323846 / 180;
  const std::string gravity =
      "[" + std::to_string(kGravity * std::sin(theta)) + ", 0, " + std::to_string(-kGravity * std::cos(theta)) + "]";
  return testing::SimulatorFromYaml(R"(
simulation: {dt: 0.01, duration: 1.0, coupling: strong, gravity: )" +
                                    gravity + R"(}
grid: {h: 0.05, domain: {min: [-0.5, -0.5, 0.0], max: [1.5, 0.5, 0.5]}}
soft_bodies:
  block:
    shape: {type: box, size: [0.1, 0.1, 0.05]}
    resolution: 0.025
    youngs_modulus: 1.0e5
    poisson_ratio: 0.3
    density: 500
    pose: {position: [0, 0, 0.0251]}
ipc: {friction: 0.3}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
)");
}

// The centre of mass's acceleration along x from three positions `gap` apart.
double AccelerationX(Simulator& sim, double t0, double gap) {
  testing::RunUntil(sim, t0);
  const double x0 = sim.SummarizeIpcBody(0).position[0];
  testing::RunUntil(sim, t0 + gap);
  const double x1 = sim.SummarizeIpcBody(0).position[0];
  testing::RunUntil(sim, t0 + 2 * gap);
  const double x2 = sim.SummarizeIpcBody(0).position[0];
  return (x2 - 2 * x1 + x0) / (gap * gap);
}

// Sliding: the block's acceleration within 2% of g (sin θ − μ cos θ), measured over [0.2, 0.8] s once the block has
// settled on the plane (the regularised cone slips at the Coulomb bound with a relative error of order its
// stiction speed over the sliding speed; 2% as the MPM incline's bar). Sticking: it moves under 1 mm in 1 s.
TEST(FemStrongCoupling, BlockOnAnInclineSticksAndSlidesByCoulombsLaw) {
  auto slides = Incline(30);
  const double theta = 30 * 3.14159265358979323846 / 180;
  const double expected = kGravity * (std::sin(theta) - 0.3 * std::cos(theta));
  const double a = AccelerationX(*slides, 0.2, 0.3);
  ::testing::Test::RecordProperty("slide_acceleration", std::to_string(a));
  EXPECT_NEAR(a, expected, 0.02 * expected);

  auto sticks = Incline(10);
  testing::RunUntil(*sticks, 0.1);
  const double x_begin = sticks->SummarizeIpcBody(0).position[0];
  testing::RunUntil(*sticks, 1.0);
  EXPECT_LT(std::abs(sticks->SummarizeIpcBody(0).position[0] - x_begin), 1e-3);
}

// The shipped soft-cube grasp (close, lift, shake, hold) under the strong scheme at Δt = 10 ms: over the hold (from
// 1.36 s) the fingers' vertical contact forces carry the cube's weight within 2% (statics of the held cube), and the
// cube is lifted with the fingers (5 cm, as under IPC).
TEST(FemStrongCoupling, SoftCubeGraspHoldsTheCubeAtTenMillisecondSteps) {
  auto sim = testing::SimulatorForScene("soft_cube_grasp.yaml", {"simulation.coupling=strong", "simulation.dt=0.01"});
  const double z_start = sim->SummarizeIpcBody(0).position[2];
  testing::RunUntil(*sim, 1.36);
  double fz = 0;
  int samples = 0;
  while (sim->time() < 1.6 - 1e-9) {
    sim->Step();
    for (int b = 0; b < sim->num_rigid_bodies(); ++b) fz += sim->SummarizeRigidBody(b).contact_force[2];
    ++samples;
  }
  const double weight = SoftMass(*sim) * kGravity;
  ::testing::Test::RecordProperty("finger_fz_N", std::to_string(-fz / samples));
  EXPECT_NEAR(-fz / samples, weight, 0.02 * weight);
  EXPECT_NEAR(sim->SummarizeIpcBody(0).position[2] - z_start, 0.05, 0.005);
}

// The coupling scheme is a live parameter with a soft body too, one way: the grasp switches to the strong scheme
// while the fingers lift the cube and keeps it (lifted 5 cm at the end, as in either scheme alone). Back to IPC's
// weak scheme only at a reset: the strong scheme's compliant contact leaves the surfaces touching, which IPC's barrier
// cannot start from (a switch while the fingers shook the cube made the IPC step fail); the state stays as it was.
TEST(FemStrongCoupling, TheGraspSwitchesToTheStrongSchemeLiveAndBackAtAReset) {
  auto sim = testing::SimulatorForScene("soft_cube_grasp.yaml", {"simulation.dt=0.01"});
  const double z_start = sim->SummarizeIpcBody(0).position[2];
  testing::RunUntil(*sim, 0.3);
  ASSERT_EQ(sim->SetParameter("simulation.coupling", "strong"), "");
  testing::RunUntil(*sim, 0.9);
  const std::uint64_t before = sim->StateHash();
  const std::string refused = sim->SetParameter("simulation.coupling", "weak");
  EXPECT_NE(refused.find("goes back to the weak coupling at a reset"), std::string::npos) << refused;
  EXPECT_EQ(sim->model().coupling, CouplingKind::kStrong);
  EXPECT_EQ(sim->StateHash(), before);
  testing::RunUntil(*sim, 1.6);
  EXPECT_NEAR(sim->SummarizeIpcBody(0).position[2] - z_start, 0.05, 0.005);
}

// Two domains in one joint problem: a 2 kg board lies across a bed of foam particles (MPM) and a bed of the same
// foam as a FEM soft body, both on a static floor. Each domain joins through its block (domain/strong_block.h), the
// board's contacts with both in one SAP problem. At rest the beds carry the board's weight together: the mean vertical
// contact force on it over [0.3, 0.5] s within 2% of m g (as the box on the MPM bed, StrongCoupling.
// HeavyBoxRestsOnASoftBedWithItsWeight). Each bed carries its half: the moment of the contact forces about the board's
// centre gives the split (the beds' centres at x = ∓0.09 m: F_fem − F_mpm = −τ_y/0.09), each within 10% of m g/2 (the
// two discretisations of one foam are not equally stiff, and the board's small tilt towards the softer shifts each
// bed's centre of pressure); a bed left out of the solve would drop its side 40 mm to the floor and carry nothing.
constexpr const char* kBoardOnTwoBeds = R"(
simulation: {dt: 0.01, coupling: strong}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}, boundary: {type: separate}}
materials:
  foam: {model: fixed_corotated, density: 100, youngs_modulus: 3.0e4, poisson_ratio: 0.3}
objects:
  mpm_bed: {material: foam, shape: {type: box, size: [0.12, 0.12, 0.04]}, pose: {position: [-0.09, 0, 0.121]}}
soft_bodies:
  fem_bed:
    shape: {type: box, size: [0.12, 0.12, 0.04]}
    resolution: 0.02
    youngs_modulus: 3.0e4
    poisson_ratio: 0.3
    density: 100
    pose: {position: [0.09, 0, 0.121]}
ipc: {friction: 0.5}
rigid_bodies:
  floor: {type: static, shape: {type: box, size: [0.5, 0.5, 0.1]}, pose: {position: [0, 0, 0.05]}}
  board: {shape: {type: box, size: [0.36, 0.2, 0.02]}, mass: 2, pose: {position: [0, 0, 0.152]}}
)";

TEST(FemStrongCoupling, ABoardRestsOnAnMpmBedAndAFemBedInOneSolve) {
  auto sim = testing::SimulatorFromYaml(kBoardOnTwoBeds);
  const int board = testing::RigidBodyIndex(*sim, "board");
  testing::RunUntil(*sim, 0.3);
  std::array<double, 3> force{}, torque{};
  int steps = 0;
  for (; sim->time() < 0.5 - 1e-9; ++steps) {
    sim->Step();
    EXPECT_TRUE(sim->last_step().mpm_contact_converged) << "t = " << sim->time();
    const RigidBodySummary s = sim->SummarizeRigidBody(board);
    for (int a = 0; a < 3; ++a) {
      force[a] += s.contact_force[a];
      torque[a] += s.contact_torque[a];
    }
  }
  for (int a = 0; a < 3; ++a) {
    force[a] /= steps;
    torque[a] /= steps;
  }
  const double weight = 2 * kGravity;
  const double fem = 0.5 * (force[2] - torque[1] / 0.09), mpm = force[2] - fem;
  std::printf("board on two beds: contact force %.3f N (m g = %.3f N): MPM bed %.3f N, FEM bed %.3f N; %d contacts\n",
              force[2], weight, mpm, fem, sim->last_step().mpm_contacts);
  EXPECT_NEAR(force[2], weight, 0.02 * weight);
  EXPECT_NEAR(mpm, weight / 2, 0.1 * weight / 2);
  EXPECT_NEAR(fem, weight / 2, 0.1 * weight / 2);
}

// The soft body's block reduced onto its contacts' dofs by its Schur complement (the default here: a few hundred
// kept dofs) and joining whole, the joint problem sparse (simulation.strong_dense_limit 0), minimise the same convex
// problem: the squeezed cube moves the same way. Both solved to ε_r = 1e-10, so they differ by the two factorisations'
// round-off and the tolerance: over 20 steps (0.2 s, the panels closing on the cube and catching it) its centre and
// bounds agree to 1e-9 m and the panels' contact forces to 1e-6 of the cube's weight.
TEST(FemStrongCoupling, SparseAndReducedJointSolvesAgree) {
  auto reduced = testing::SimulatorFromYaml(kSqueeze);
  auto sparse = testing::SimulatorFromYaml(kSqueeze);
  for (Simulator* sim : {reduced.get(), sparse.get()})
    ASSERT_EQ(sim->SetParameter("simulation.strong_tolerance", "1e-10"), "");
  ASSERT_EQ(sparse->SetParameter("simulation.strong_dense_limit", "0"), "");
  for (int step = 0; step < 20; ++step) {
    reduced->Step();
    sparse->Step();
  }
  ASSERT_GT(sparse->last_step().mpm_contacts, 0);
  EXPECT_EQ(reduced->last_step().mpm_contacts, sparse->last_step().mpm_contacts);
  const BodySummary a = reduced->SummarizeBody(0), b = sparse->SummarizeBody(0);
  double worst = 0;
  for (int k = 0; k < 3; ++k)
    worst = std::max({worst, std::abs(a.center_of_mass[k] - b.center_of_mass[k]),
                      std::abs(a.bounds_min[k] - b.bounds_min[k]), std::abs(a.bounds_max[k] - b.bounds_max[k])});
  double force = 0;
  for (int i = 0; i < reduced->num_rigid_bodies(); ++i)
    for (int k = 0; k < 3; ++k)
      force = std::max(force, std::abs(reduced->SummarizeRigidBody(i).contact_force[k] -
                                       sparse->SummarizeRigidBody(i).contact_force[k]));
  std::printf("soft body, sparse against reduced joint solve: %.3g m apart, forces %.3g N apart, %d contacts\n", worst,
              force, sparse->last_step().mpm_contacts);
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(force, 1e-6 * SoftMass(*reduced) * kGravity);
}

// Under the strong scheme a scene with affine bodies is refused, naming the body.
TEST(FemStrongCoupling, RefusesAffineBodies) {
  try {
    testing::SimulatorFromYaml(R"(
simulation: {dt: 0.01, coupling: strong}
grid: {h: 0.05, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}}
affine_bodies:
  plate: {shape: {type: box, size: [0.1, 0.1, 0.02]}, pose: {position: [0, 0, 0.05]}}
)");
    ADD_FAILURE() << "a strong scene with an affine body started";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("affine body 'plate'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ductile
