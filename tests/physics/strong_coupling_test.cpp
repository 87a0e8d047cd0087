// The strong implicit coupling (coupling/strong_coupling.h; Zong, Jiang, Han 2024) at Δt = 10 ms, one step per Δt:
// an elastic block resting on a table with its analytic sag, a heavy rigid box resting on a soft bed (mass ratio
// 100, Newton's third law through the joint solve), and the live switch from a weak run that diverges at this Δt.
// The ball on the slope in both regimes is in mpm_incline_test.cpp.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "coupling/object_surface.h"
#include "coupling_scenarios.h"
#include "ductile/simulator.h"
#include "mpm/particles.h"
#include "scene_fixture.h"
#include "support/particles_of.h"

namespace ductile {
namespace {

constexpr double kG = 9.81;

// A 10 cm rubber cube (E = 1e5 Pa, ν = 0.3, ρ = 1000 kg/m³, h = 2 cm, 8 particles per cell) 1 cm above a static
// table.
constexpr const char* kBlockOnTable = R"(
simulation: {dt: 0.01, coupling: strong}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}, boundary: {type: separate}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}
objects:
  block: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.16]}}
rigid_bodies:
  table: {type: static, shape: {type: box, size: [0.4, 0.4, 0.1]}, pose: {position: [0, 0, 0.05]}}
)";

// Under its own weight a free column of height H on a support is in uniaxial stress σ_zz = −ρ g (H − z), so its
// centre of mass sinks by ρ g H²/(3E) (0.327 mm here) below where the undeformed block would rest (z = 0.15 m).
// Measured 0.302 mm. Bound 15%: the column is 5 cells tall, and friction at its foot holds its Poisson expansion
// there (stiffer than uniaxial). Particles rest on the table at their contact radius, not half a spacing in it (a
// 5 mm sink without it). At rest within 1 mm/s (measured 1.9e-6 m/s; a 1 cm fall lands at 0.44 m/s) after 0.5 s:
// each step solves its contact problem to the tolerance, and the implicit step damps the landing. The scene is
// symmetric about the z axis, so the centre stays on it to round-off of the particles' float positions (1e-6 m).
TEST(StrongCoupling, BlockRestsOnATableWithItsElasticSag) {
  auto sim = testing::SimulatorFromYaml(kBlockOnTable);
  testing::RunUntil(*sim, 0.5);
  const ObjectSummary block = sim->SummarizeObject(0);
  const double sag = 0.15 - block.center_of_mass[2];
  const double expected = 1000 * kG * 0.1 * 0.1 / (3 * 1e5);
  std::printf("block on table: sag %.4f mm, ρgH²/(3E) = %.4f mm, |v| = %.2e m/s\n", 1e3 * sag, 1e3 * expected,
              std::hypot(block.velocity[0], block.velocity[1], block.velocity[2]));
  EXPECT_NEAR(sag, expected, 0.15 * expected);
  EXPECT_LT(std::hypot(block.velocity[0], block.velocity[1], block.velocity[2]), 1e-3);
  EXPECT_LT(std::abs(block.center_of_mass[0]) + std::abs(block.center_of_mass[1]), 1e-6);
  EXPECT_TRUE(sim->last_step().mpm_contact_converged);
}

// A rubber ball (r = 5 cm, E = 10 MPa, h = 1/64 m: 1,097 particles on the cells' lattice) dropped from 1 mm onto a
// table rests on its sphere, not on its particles: its contacts act on the surface its particles carry from the
// scene's sphere (coupling/object_surface.h). The sphere's centre as the particles map it, x_p + F_p (c₀ − X_p)
// averaged, lies r above the table within 0.2 mm after 0.4 s (measured 0.088 mm under: Hertz's flattening of such a
// ball under its weight, (9F²/(16E*²r))^(1/3), is 0.14 mm; on its particles' spheres it rested 3 mm under, as the
// lattice's lowest layer lies 43 mm from the centre), and it is at rest within 1 mm/s (measured 0.07 mm/s).
TEST(StrongCoupling, ABallRestsOnItsSphereNotOnItsParticles) {
  auto sim = testing::SimulatorFromYaml(R"(
simulation: {dt: 0.01, coupling: strong}
grid: {h: 0.015625, domain: {min: [-0.3, -0.3, -0.1], max: [0.3, 0.3, 0.4]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.3}
objects:
  ball: {material: rubber, shape: {type: sphere, radius: 0.05}, pose: {position: [0.003, 0.002, 0.101]}}
rigid_bodies:
  table: {type: static, shape: {type: box, size: [0.5, 0.5, 0.1]}, friction: 0.5}
)");
  testing::RunUntil(*sim, 0.4);
  const mpm::Particles& p = testing::ParticlesOf(*sim);
  const Eigen::Vector3d c0 = coupling::RestCentre(sim->model(), 0);  // where the surface is centred
  double centre = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Eigen::Vector3d offset = c0 - coupling::RestPosition(sim->model(), p.id[i]);
    centre += p.x[i].z + p.F[i].m[2][0] * offset[0] + p.F[i].m[2][1] * offset[1] + p.F[i].m[2][2] * offset[2];
  }
  centre /= static_cast<double>(p.size());
  const ObjectSummary ball = sim->SummarizeObject(0);
  std::printf("ball on table: sphere centre %.3f mm above r over the table, |v| = %.2e m/s, %d contacts\n",
              1e3 * (centre - 0.05 - 0.05), std::hypot(ball.velocity[0], ball.velocity[1], ball.velocity[2]),
              sim->last_step().mpm_contacts);
  EXPECT_NEAR(centre, 0.05 + 0.05, 2e-4);
  EXPECT_LT(std::hypot(ball.velocity[0], ball.velocity[1], ball.velocity[2]), 1e-3);
  EXPECT_TRUE(sim->last_step().mpm_contact_converged);
}

// A 10 kg rigid box on a 0.058 kg bed of soft rubber (E = 3e4 Pa) lying on a static floor: one step of 10 ms
// carries a mass ratio of 170 through the joint problem. At rest the bed pushes the box up with its weight: the mean
// contact force over the last 0.2 s within 2% of m g (what is left of the bounce), and the box sits on the bed,
// not in it. The joint SAP cost decreases monotonically in every step (Newton with exact line search on a convex
// cost; round-off allowance 1e-12 relative).
constexpr const char* kBoxOnBed = R"(
simulation: {dt: 0.01, coupling: strong}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}, boundary: {type: separate}}
materials:
  foam: {model: fixed_corotated, density: 100, youngs_modulus: 3.0e4, poisson_ratio: 0.3}
objects:
  bed: {material: foam, shape: {type: box, size: [0.12, 0.12, 0.04]}, pose: {position: [0, 0, 0.12]}}
rigid_bodies:
  floor: {type: static, shape: {type: box, size: [0.5, 0.5, 0.1]}, pose: {position: [0, 0, 0.05]}}
  box: {shape: {type: box, size: [0.1, 0.1, 0.1]}, mass: 10, pose: {position: [0, 0, 0.191]}}
)";

TEST(StrongCoupling, HeavyBoxRestsOnASoftBedWithItsWeight) {
  auto sim = testing::SimulatorFromYaml(kBoxOnBed);
  int box = -1;
  for (int i = 0; i < sim->num_rigid_bodies(); ++i)
    if (sim->SummarizeRigidBody(i).name == "box") box = i;
  ASSERT_GE(box, 0);
  // The mean over [0.3, 0.5] s, about one period of the box bouncing on the bed (2π √(m/k) = 0.19 s for the bed's
  // k = E A/L = 1.1e4 N/m), which the implicit steps damp out.
  testing::RunUntil(*sim, 0.3);
  RigidBodySummary s = sim->SummarizeRigidBody(box);
  s.contact_force = {0, 0, 0};
  int steps = 0;
  bool monotone = true;  // the joint problem's SAP cost never rises from one Newton iterate to the next
  for (; sim->time() < 0.5 - 1e-9; ++steps) {
    sim->Step();
    for (int a = 0; a < 3; ++a) s.contact_force[a] += sim->SummarizeRigidBody(box).contact_force[a];
    const std::vector<double>& cost = sim->last_step().sap_cost_history;
    for (std::size_t k = 1; k < cost.size(); ++k)
      monotone = monotone && cost[k] <= cost[k - 1] + 1e-12 * std::abs(cost[k - 1]);
  }
  EXPECT_TRUE(monotone);
  EXPECT_GT(sim->last_step().sap_cost_history.size(), 1u);  // the joint solve took Newton steps
  for (double& f : s.contact_force) f /= steps;
  s.position = sim->SummarizeRigidBody(box).position;
  std::printf("box on bed: last step %.1f ms, %d contacts, %d Newton iterations\n", sim->last_step().wall_ms,
              sim->last_step().mpm_contacts, sim->last_step().mpm_contact_iterations);
  const double bed_top = sim->SummarizeObject(0).bounds_max[2];
  std::printf("box on bed: contact force %.3f N (m g = %.3f N), box bottom %.4f m, bed top %.4f m\n",
              s.contact_force[2], 10 * kG, s.position[2] - 0.05, bed_top);
  EXPECT_NEAR(s.contact_force[2], 10 * kG, 0.02 * 10 * kG);
  EXPECT_NEAR(s.contact_force[0], 0, 0.01 * 10 * kG);
  EXPECT_GT(s.position[2] - 0.05, 0.1);  // above the floor: the bed holds it
}

// The joint solve kept sparse over every grid dof (simulation.strong_dense_limit 0) and reduced onto the contacts'
// dofs by the Schur complement (the default here, a few hundred kept dofs) minimise the same convex problem: the box
// on the bed (rigid dofs coupled to the grid's through the contacts) lands the same way. Both solved to ε_r = 1e-10,
// so the velocities and impulses differ by round-off of the two factorisations and the tolerance (1e-10 relative;
// bound 1e-6 of the box's weight on its contact force), and the particles' float positions after 10 steps by their
// own round-off at most (a few 1e-8 m at 0.15 m): bound 1e-6 m.
TEST(StrongCoupling, SparseAndReducedJointSolvesAgree) {
  const std::string yaml = std::string(kBoxOnBed) + "\n";
  auto reduced = testing::SimulatorFromYaml(yaml);
  auto sparse = testing::SimulatorFromYaml(yaml);
  for (Simulator* sim : {reduced.get(), sparse.get()})
    ASSERT_EQ(sim->SetParameter("simulation.strong_tolerance", "1e-10"), "");
  ASSERT_EQ(sparse->SetParameter("simulation.strong_dense_limit", "0"), "");
  for (int step = 0; step < 10; ++step) {
    reduced->Step();
    sparse->Step();
  }
  ASSERT_GT(sparse->last_step().mpm_contacts, 0);
  EXPECT_EQ(reduced->last_step().mpm_contacts, sparse->last_step().mpm_contacts);
  const mpm::Particles &a = testing::ParticlesOf(*reduced), &b = testing::ParticlesOf(*sparse);
  ASSERT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t p = 0; p < a.size(); ++p)
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(static_cast<double>(a.x[p][k] - b.x[p][k])));
  std::printf("sparse against reduced joint solve: largest particle offset %.3g m after 10 steps\n", worst);
  EXPECT_LT(worst, 1e-6);
  // The box's contact force (double, from the solved impulses) in both, relative to its weight.
  double force = 0;
  for (int i = 0; i < reduced->num_rigid_bodies(); ++i)
    for (int k = 0; k < 3; ++k)
      force = std::max(force, std::abs(reduced->SummarizeRigidBody(i).contact_force[k] -
                                       sparse->SummarizeRigidBody(i).contact_force[k]));
  std::printf("sparse against reduced joint solve: contact forces differ by %.3g N (m g = 98.1 N)\n", force);
  EXPECT_LT(force, 1e-6 * 10 * kG);
}

// A stiff block (E = 1e7 Pa) dropped at Δt = 10 ms with one substep (tests/data/scenes/stiff_drop.yaml): the explicit
// weak scheme's substep is over 30 times its CFL limit and it diverges; switched live to the strong scheme the same
// scene runs and the block lands.
std::unique_ptr<Simulator> StiffDrop() {
  const std::filesystem::path scene = std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes" / "stiff_drop.yaml";
  return std::make_unique<Simulator>(std::make_shared<const Model>(CompileModel(LoadScene(scene))));
}

TEST(StrongCoupling, SwitchesLiveAndRunsWhereTheWeakSchemeDiverges) {
  auto weak = StiffDrop();
  EXPECT_THROW(testing::RunUntil(*weak, 0.5), SimulationDiverged);

  auto sim = StiffDrop();
  sim->Step();  // one weak step while the block is in the air
  ASSERT_EQ(sim->SetParameter("simulation.coupling", "strong"), "");
  EXPECT_EQ(sim->model().coupling, CouplingKind::kStrong);
  testing::RunUntil(*sim, 0.5);
  const ObjectSummary block = sim->SummarizeObject(0);
  // On the table: the lowest particle centres rest a contact radius (h/4 = 5 mm) above its top at 0.1 m; bound a
  // centimetre, half the block's particle layers. At rest: under 1 mJ of the 0.64 J it was thrown with.
  EXPECT_NEAR(block.bounds_min[2], 0.1, 0.01);
  EXPECT_LT(block.kinetic_energy, 1e-3);
  // And back: the weak scheme takes over the strong one's state at a step boundary.
  ASSERT_EQ(sim->SetParameter("simulation.coupling", "weak"), "");
  ASSERT_EQ(sim->SetParameter("simulation.substeps", "60"), "");
  testing::RunUntil(*sim, 0.6);
  EXPECT_NEAR(sim->SummarizeObject(0).bounds_min[2], 0.1, 0.01);
}

// Panel squeeze (Yu et al. 2025, Fig. 2; Zong et al. 2024, Table I) at Δt = 10 ms, one implicit step each: the weak
// scheme's bars (each panel's mean contact force the 10 N it pushes with along x and half the cube's weight along
// z within 2%, the y friction and its swing under 1% of m g, the cube held) over [0.5, 1.5] s.
TEST(StrongCoupling, PanelSqueezeHoldsTheCubeAtTenMillisecondSteps) {
  testing::ExpectPanelSqueezeBars(testing::RunPanelSqueeze(0.01, 1, 0.5, 1.5, {"simulation.coupling=strong"}));
}

// The strong scheme refuses what it does not simulate, naming it, at load and when switched live.
TEST(StrongCoupling, RefusesClothSandAndColliders) {
  const std::string sand = R"(
simulation: {dt: 0.01, coupling: strong}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}}
materials:
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e4, poisson_ratio: 0.3}
objects:
  heap: {material: sand, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.1]}}
)";
  try {
    testing::SimulatorFromYaml(sand);
    ADD_FAILURE() << "a strong scene with sand started";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("inline.yaml:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("material 'sand' (drucker_prager)"), std::string::npos) << e.what();
  }
  std::string weak = sand;
  weak.replace(weak.find(", coupling: strong"), 18, "");
  auto sim = testing::SimulatorFromYaml(weak);
  EXPECT_NE(sim->SetParameter("simulation.coupling", "strong").find("drucker_prager"), std::string::npos);
  EXPECT_EQ(sim->model().coupling, CouplingKind::kWeak);
  EXPECT_NE(sim->SetParameter("simulation.coupling", "firm").find("must be one of weak, strong"), std::string::npos);
}

}  // namespace
}  // namespace ductile
