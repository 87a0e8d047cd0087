// Rigid bodies through the whole path a user takes: a YAML scene (rpy poses, density, contact defaults) compiled
// and stepped by the Simulator. A crate slides down a ramp (a static box tilted 20°, box-box contact through FCL)
// with a = g(sin θ − μ cos θ); the tolerance is the issue's 2%.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>

#include "ductile/model.h"
#include "ductile/simulator.h"

namespace ductile {
namespace {

TEST(RigidScene, CrateSlidesDownARampWithTheCoulombAcceleration) {
  const double theta = 20 * M_PI / 180, mu = 0.2, g = 9.81;
  // The ramp's top face passes through the origin; the crate starts resting on it, rotated with it.
  const std::string scene = R"(
simulation: {dt: 1.0e-3, duration: 1.5}
contact: {friction: 0.2, stiffness: 1.0e6, dissipation: 10}
rigid_bodies:
  ramp:
    type: static
    shape: {type: box, size: [6.0, 1.0, 0.2]}
    pose: {position: [0.0342020, 0, -0.0939693], rpy_deg: [0, -20, 0]}
  crate:
    shape: {type: box, size: [0.2, 0.2, 0.2]}
    density: 250
    pose: {position: [-0.0342020, 0, 0.0939693], rpy_deg: [0, -20, 0]}
)";
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "ramp.yaml")));
  Simulator sim(model);
  ASSERT_EQ(sim.num_rigid_bodies(), 1);
  const Eigen::Vector3d down(-std::cos(theta), 0, -std::sin(theta));
  const auto position = [&] {
    const RigidBodySummary s = sim.SummarizeRigidBody(0);
    return Eigen::Vector3d(s.position[0], s.position[1], s.position[2]);
  };
  const Eigen::Vector3d start = position();
  std::vector<double> s;
  for (int step = 1; step <= 1500; ++step) {
    sim.Step();
    ASSERT_TRUE(sim.last_step().sap_converged) << "step " << step;
    if (step % 500 == 0) s.push_back((position() - start).dot(down));
  }
  const double a = (s[2] - 2 * s[1] + s[0]) / (0.5 * 0.5);
  const double expected = g * (std::sin(theta) - mu * std::cos(theta));
  RecordProperty("acceleration", std::to_string(a));
  EXPECT_NEAR(a, expected, 0.02 * expected);
  EXPECT_GT(sim.last_step().rigid_contacts, 0);
}

}  // namespace
}  // namespace ductile
