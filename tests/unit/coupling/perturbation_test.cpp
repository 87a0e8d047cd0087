// Simulator::SetPerturbation: the mouse spring lifts a rigid body and a patch of an MPM object to its target,
// and lets go when cleared.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile {
namespace {

constexpr const char* kScene = R"(
simulation: {dt: 2.0e-3, substeps: 4, gravity: [0, 0, -9.81]}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 3.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.08, 0.08, 0.08]}, pose: {position: [-0.1, 0, 0.04]}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  ball: {shape: {type: sphere, radius: 0.03}, mass: 0.2, pose: {position: [0.1, 0, 0.03]}}
)";

std::shared_ptr<const Model> SceneModel() {
  return std::make_shared<const Model>(CompileModel(LoadSceneFromString(kScene, "perturb.yaml")));
}

TEST(Perturbation, PullsARigidBodyToTheTargetAndLetsGo) {
  Simulator sim(SceneModel());
  for (int i = 0; i < 50; ++i) sim.Step();  // settle
  Perturbation p;
  p.kind = Perturbation::Kind::kBody;
  p.index = 0;
  p.anchor = {0.1, 0, 0.03};  // the ball's centre
  p.target = {0.1, 0, 0.15};
  sim.SetPerturbation(p);
  // A critically damped 2 Hz spring that carries the ball's weight settles at the target: after 1.5 s the
  // transient e^(−ωt)(1 + ωt), ω = 4π/s, is below 1e-6 of the 12 cm pull. What is left comes from applying the spring
  // force explicitly over 2 ms steps (ωΔt = 0.025): 2 mm in the pulled direction, 5 mm across it where nothing
  // damps a sideways drift but the spring itself.
  for (int i = 0; i < 750; ++i) sim.Step();
  std::array<double, 3> anchor{};
  ASSERT_TRUE(sim.PerturbationAnchor(anchor));
  EXPECT_NEAR(sim.SummarizeRigidBody(0).position[2], 0.15, 2e-3);
  EXPECT_NEAR(anchor[2], 0.15, 2e-3);
  EXPECT_NEAR(sim.SummarizeRigidBody(0).position[0], 0.1, 5e-3);
  // Moving the target moves the body.
  p.target = {0.0, 0.1, 0.2};
  sim.SetPerturbation(p);
  for (int i = 0; i < 750; ++i) sim.Step();
  EXPECT_NEAR(sim.SummarizeRigidBody(0).position[1], 0.1, 5e-3);
  // Let go: it falls back to the ground and rests on its 3 cm radius (the point contact sinks micrometres; 3 mm
  // allows for the bounce still dying out after 1 s).
  sim.SetPerturbation({});
  EXPECT_FALSE(sim.PerturbationAnchor(anchor));
  for (int i = 0; i < 500; ++i) sim.Step();
  EXPECT_NEAR(sim.SummarizeRigidBody(0).position[2], 0.03, 3e-3);
}

TEST(Perturbation, LiftsAPatchOfAnMpmObject) {
  Simulator sim(SceneModel());
  for (int i = 0; i < 50; ++i) sim.Step();
  const double z0 = sim.SummarizeObject(0).center_of_mass[2];
  Perturbation p;
  p.kind = Perturbation::Kind::kObject;
  p.index = 0;
  p.anchor = {-0.1, 0, 0.07};  // near the top face's centre
  p.target = {-0.1, 0, 0.25};
  sim.SetPerturbation(p);
  std::array<double, 3> anchor{};
  ASSERT_TRUE(sim.PerturbationAnchor(anchor));
  EXPECT_NEAR(anchor[2], 0.07, 0.02);
  for (int i = 0; i < 500; ++i) sim.Step();
  ASSERT_TRUE(sim.PerturbationAnchor(anchor));
  // The patch is pulled up, with the rest of the soft cube hanging from it (the spring carries the whole cube's
  // weight, so the patch comes close to the target) and the whole cube has left the ground.
  EXPECT_GT(anchor[2], 0.2);
  EXPECT_GT(sim.SummarizeObject(0).center_of_mass[2], z0 + 0.03);
  // A reset forgets the spring.
  sim.Reset();
  EXPECT_FALSE(sim.PerturbationAnchor(anchor));
}

}  // namespace
}  // namespace ductile
