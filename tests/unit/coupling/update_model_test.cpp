// Simulator::UpdateModel: live parameter edits continue from the current state; structural changes are refused.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile {
namespace {

constexpr const char* kScene = R"(
simulation: {dt: 1.0e-3, substeps: 4, gravity: [0, 0, -9.81]}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 2.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.08, 0.08, 0.08]}, pose: {position: [0, 0, 0.06]}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  ball: {shape: {type: sphere, radius: 0.02}, mass: 0.1, pose: {position: [0.1, 0, 0.1]}}
)";

std::shared_ptr<const Model> Compile(const std::vector<std::string>& overrides = {}) {
  std::vector<Override> parsed;
  for (const std::string& o : overrides) parsed.push_back(ParseOverride(o));
  return std::make_shared<const Model>(CompileModel(LoadSceneFromString(kScene, "update.yaml", parsed)));
}

TEST(UpdateModel, SameParametersChangeNothing) {
  Simulator a(Compile()), b(Compile());
  for (int i = 0; i < 20; ++i) {
    a.Step();
    b.Step();
  }
  EXPECT_EQ(b.UpdateModel(Compile()), "");
  for (int i = 0; i < 20; ++i) {
    a.Step();
    b.Step();
  }
  EXPECT_EQ(a.StateHash(), b.StateHash());
  EXPECT_EQ(a.time(), b.time());
}

TEST(UpdateModel, NewStiffnessTakesEffectAtTheNextStepFromTheCurrentState) {
  Simulator a(Compile()), b(Compile());
  for (int i = 0; i < 20; ++i) {
    a.Step();
    b.Step();
  }
  const std::uint64_t before = b.StateHash();
  EXPECT_EQ(b.UpdateModel(Compile({"materials.rubber.youngs_modulus=8.0e4"})), "");
  EXPECT_EQ(b.StateHash(), before) << "the state is carried over unchanged";
  a.Step();
  b.Step();
  EXPECT_NE(a.StateHash(), b.StateHash()) << "the stiffer material moves differently";
  EXPECT_EQ(b.model().materials[0].mu, Compile({"materials.rubber.youngs_modulus=8.0e4"})->materials[0].mu);
}

TEST(UpdateModel, DensityChangesTheParticleMasses) {
  Simulator sim(Compile());
  sim.Step();
  const double mass = sim.SummarizeObject(0).mass;
  EXPECT_EQ(sim.UpdateModel(Compile({"materials.rubber.density=1000"})), "");
  EXPECT_NEAR(sim.SummarizeObject(0).mass, 2 * mass, 1e-9 * mass);
}

TEST(UpdateModel, TimeContinuesWithTheNewStep) {
  Simulator sim(Compile());
  for (int i = 0; i < 10; ++i) sim.Step();
  EXPECT_NEAR(sim.time(), 0.010, 1e-12);
  EXPECT_EQ(sim.UpdateModel(Compile({"simulation.dt=2.0e-3", "simulation.substeps=8"})), "");
  for (int i = 0; i < 5; ++i) sim.Step();
  EXPECT_NEAR(sim.time(), 0.020, 1e-12);
  EXPECT_EQ(sim.step_count(), 15);
  EXPECT_EQ(sim.last_step().substeps, 8);
}

TEST(UpdateModel, StructuralChangesAreRefusedAndLeaveTheStateAlone) {
  Simulator sim(Compile());
  for (int i = 0; i < 5; ++i) sim.Step();
  const std::uint64_t hash = sim.StateHash();
  const std::string particles = sim.UpdateModel(Compile({"objects.cube.particles_per_cell=1"}));
  EXPECT_NE(particles.find("reset to apply"), std::string::npos) << particles;
  // The rows name what changed (DiffParameters); an initial condition changed beside it is not among them.
  EXPECT_NE(particles.find("(changed: objects.cube.particles_per_cell)"), std::string::npos) << particles;
  const std::string grid = sim.UpdateModel(Compile({"grid.h=0.025", "objects.cube.velocity=[0, 0, 1]"}));
  EXPECT_NE(grid.find("reset to apply (changed: grid.h)"), std::string::npos) << grid;
  EXPECT_EQ(sim.StateHash(), hash);
  sim.Step();  // still runs with the old model
  EXPECT_EQ(sim.model().h, 0.02f);
}

TEST(UpdateModel, AnInitialConditionOrAReloadKeyActsLaterAndSaysSo) {
  Simulator a(Compile()), b(Compile());
  for (int i = 0; i < 5; ++i) {
    a.Step();
    b.Step();
  }
  std::vector<std::string> later;
  EXPECT_EQ(b.UpdateModel(Compile({"objects.cube.velocity=[0, 0, 1]", "simulation.threads=1"}), &later), "");
  EXPECT_EQ(later, (std::vector<std::string>{
                       "simulation.threads sets the worker threads when the simulator starts: it applies when the "
                       "scene is loaded again",
                       "objects.cube.velocity is an initial condition: it applies at the next reset"}));
  // Not now: the running state steps as without the edit, bitwise.
  for (int i = 0; i < 5; ++i) {
    a.Step();
    b.Step();
  }
  EXPECT_EQ(a.StateHash(), b.StateHash());
  // At the next reset: the cube starts upwards at 1 m/s. In free flight for one step it keeps 1 − gΔt = 0.990 m/s;
  // the bound 0.9 only has to tell that from the unedited cube's −gΔt = −0.0098 m/s.
  b.Reset();
  b.Step();
  EXPECT_GT(b.SummarizeObject(0).velocity[2], 0.9);
  // A live key (and one row that a recompiled model carries, as a mass) acts now and says nothing more.
  later.clear();
  EXPECT_EQ(a.UpdateModel(Compile({"materials.rubber.youngs_modulus=3e4", "rigid_bodies.ball.mass=0.2"}), &later), "");
  EXPECT_TRUE(later.empty());
}

// A controller whose target the new model changes takes it now (it used to keep its running target until a reset).
TEST(UpdateModel, AControllersEditedTargetActsNow) {
  const auto compile = [](const std::vector<std::string>& overrides) {
    std::vector<Override> parsed;
    for (const std::string& o : overrides) parsed.push_back(ParseOverride(o));
    return std::make_shared<const Model>(CompileModel(LoadSceneFromString(R"(
simulation: {dt: 1.0e-3, gravity: [0, 0, 0]}
rigid_bodies:
  slider:
    shape: {type: box, size: [0.05, 0.05, 0.05]}
    mass: 1
    joint: {type: prismatic, parent: world, axis: [1, 0, 0], kp: 100, kd: 20, target: 0}
)",
                                                                          "slider.yaml", parsed)));
  };
  Simulator sim(compile({}));
  for (int i = 0; i < 10; ++i) sim.Step();
  std::vector<std::string> later;
  ASSERT_EQ(sim.UpdateModel(compile({"rigid_bodies.slider.joint.target=0.1"}), &later), "");
  EXPECT_TRUE(later.empty());
  // K_p = 100 N/m, K_d = 20 N·s/m on 1 kg: critically damped at ω = 10 rad/s; after 2 s the error is
  // 0.1 m · (1 + ωt) e^(−ωt) = 4e-9 m, far below the 1 mm bound (which leaves room for implicit Euler's lag).
  for (int i = 0; i < 2000; ++i) sim.Step();
  EXPECT_NEAR(sim.SummarizeRigidBody(0).position[0], 0.1, 1e-3);
}

}  // namespace
}  // namespace ductile
