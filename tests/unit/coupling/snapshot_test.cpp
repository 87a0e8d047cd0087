// Simulator::CaptureSnapshot: particles in id order with their fields, every drawn shape at its world pose.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"

namespace ductile {
namespace {

constexpr const char* kScene = R"(
simulation: {dt: 1.0e-3, substeps: 10, gravity: [0, 0, -9.81]}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}}
materials:
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 1.0e3}
objects:
  slab: {material: dough, shape: {type: box, size: [0.1, 0.1, 0.04]}, pose: {position: [0, 0, 0.03]}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  post: {type: static, shape: {type: box, size: [0.02, 0.02, 0.1]}, pose: {position: [0.2, 0, 0.05]}, color: [0.1, 0.2, 0.3, 1]}
  ball: {shape: {type: sphere, radius: 0.03}, mass: 0.2, pose: {position: [0, 0, 0.2]}}
)";

// A material's `color` is the colour snapshots give it.
TEST(Snapshot, MaterialColourFromTheScene) {
  std::string scene = kScene;
  const std::string key = "yield_stress: 1.0e3}";
  scene.replace(scene.find(key), key.size(), "yield_stress: 1.0e3, color: [0.25, 0.5, 0.75, 0.5]}");
  Simulator sim(std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "snapshot.yaml"))));
  Snapshot s;
  sim.CaptureSnapshot(s);
  ASSERT_EQ(s.material_rgba.size(), 1u);
  EXPECT_EQ(s.material_rgba[0], (std::array<float, 4>{0.25f, 0.5f, 0.75f, 0.5f}));
}

TEST(Snapshot, HoldsParticlesInIdOrderAndShapesAtTheirPoses) {
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kScene, "snapshot.yaml")));
  Simulator sim(model);
  Snapshot s;
  sim.CaptureSnapshot(s);
  ASSERT_EQ(s.particles.position.size(), static_cast<std::size_t>(model->num_particles));
  for (int id = 0; id < model->num_particles; ++id)
    for (int a = 0; a < 3; ++a) ASSERT_EQ(s.particles.position[id][a], model->x0[id][a]);
  // Eight particles per cell of 2 cm: 1 cm apart, drawn with a radius of half that.
  EXPECT_NEAR(s.particles.radius, 0.005f, 1e-4f);
  ASSERT_EQ(s.material_names.size(), 1u);
  ASSERT_EQ(s.material_rgba.size(), 1u);
  EXPECT_FLOAT_EQ(s.material_rgba[0][1], 0.72f);  // the linear corotated model's colour: the scene gives none
  ASSERT_EQ(s.object_names.size(), 1u);
  EXPECT_EQ(s.object_names[0], "slab");

  // The ground plane, the post and the ball; the ball is the one moving body.
  ASSERT_EQ(s.shapes.size(), 3u);
  ASSERT_EQ(s.bodies.size(), 1u);
  EXPECT_EQ(s.bodies[0].name, "ball");
  const SnapshotShape* post = nullptr;
  const SnapshotShape* ball = nullptr;
  for (const SnapshotShape& shape : s.shapes) {
    if (shape.name == "post") post = &shape;
    if (shape.name == "ball") ball = &shape;
  }
  ASSERT_TRUE(post && ball);
  EXPECT_EQ(post->body, -1);
  EXPECT_FLOAT_EQ(post->position[0], 0.2f);
  EXPECT_FLOAT_EQ(post->half_extents[2], 0.05f);
  EXPECT_FLOAT_EQ(post->rgba[2], 0.3f);
  EXPECT_EQ(ball->body, 0);
  EXPECT_FLOAT_EQ(ball->radius, 0.03f);
  EXPECT_NEAR(ball->position[2], 0.2f, 1e-6f);

  // After 0.1 s of free fall the ball's shape follows its body; the settling slab is stressed somewhere.
  for (int i = 0; i < 100; ++i) sim.Step();
  sim.CaptureSnapshot(s);
  EXPECT_NEAR(ball->position[2], s.bodies[0].position[2], 1e-6f);
  // Free fall: the implicit 1 ms steps trail ½gt² by about ½·g·Δt·t = 0.5 mm after 0.1 s; 2 mm leaves room for that.
  EXPECT_NEAR(s.bodies[0].position[2], 0.2 - 0.5 * 9.81 * 0.1 * 0.1, 2e-3);
  EXPECT_NEAR(s.time, 0.1, 1e-9);
  EXPECT_EQ(s.step, 100);
  float max_stress = 0, max_speed = 0;
  for (std::size_t i = 0; i < s.particles.position.size(); ++i) {
    ASSERT_TRUE(std::isfinite(s.particles.von_mises[i]));
    ASSERT_GE(s.particles.von_mises[i], 0.0f);
    max_stress = std::max(max_stress, s.particles.von_mises[i]);
    max_speed = std::max(max_speed, s.particles.speed[i]);
  }
  // Under its own weight the slab's bottom carries about ρ·g·height = 1000·9.81·0.04 ≈ 400 Pa. The bounds bracket
  // that order of magnitude (an eighth of it to 2.6 times it); the return map alone would allow up to √(3/2)·η/J
  // ≈ 1.22 kPa, since it bounds ‖dev τ‖_F by η = 1 kPa.
  EXPECT_GT(max_stress, 50.0f);
  EXPECT_LT(max_stress, 1.05e3f);
  EXPECT_GT(max_speed, 0.0f);
}

}  // namespace
}  // namespace ductile
