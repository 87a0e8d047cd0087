// Joint position limits (near-rigid unilateral constraints) and effort limits (the clamp of the implicit PD):
// a pendulum swinging into its limit stops there; a PD too weak for the load it holds saturates at its effort
// limit and the joint sags, while a strong enough one holds.
#include <gtest/gtest.h>

#include <cmath>

#include "contact/rigid_system.h"
#include "support/rigid_fixture.h"

namespace ductile::contact {
namespace {

using Eigen::Vector3d;

// A 1 kg point-like bob on a 0.5 m massless arm, revolute about y at the origin; q = 0 hangs straight down.
std::unique_ptr<RigidFixture> Pendulum(double lower, double upper, double effort) {
  multibody::MultibodyTree tree;
  multibody::Body b;
  b.name = "bob";
  b.joint = JointType::kRevolute;
  b.axis_J = Vector3d::UnitY();
  b.mass = 1;
  b.p_BCm = Vector3d(0, 0, -0.5);
  b.I_Cm_B = Eigen::Matrix3d::Identity() * 1e-4;
  b.lower = lower;
  b.upper = upper;
  b.effort = effort;
  tree.AddBody(b);
  return std::make_unique<RigidFixture>(std::move(tree), geometry::CollisionWorld{});
}

TEST(JointLimits, APendulumSwingingIntoItsLimitStopsThere) {
  // Released horizontally (q = −π/2), it would swing up to +π/2; the upper limit at 0.3 rad stops it.
  auto sys_owner = Pendulum(-2.0, 0.3, 1e300);
  RigidFixture& sys = *sys_owner;
  sys.state.q[0] = -M_PI / 2;
  double highest = -10;
  for (int i = 0; i < 3000; ++i) {
    const RigidStepStats s = sys.Step(1e-3);
    ASSERT_TRUE(s.converged);
    highest = std::max(highest, sys.state.q[0]);
  }
  RecordProperty("max_q_rad", std::to_string(highest));
  // Near-rigid: the overshoot is a fraction of what one step at the impact speed (≈ 4.4 rad/s·1 ms) travels.
  EXPECT_LT(highest, 0.3 + 5e-3);
  EXPECT_GT(highest, 0.3 - 1e-3);  // it did reach the limit
}

TEST(JointLimits, PdSaturatesAtTheEffortLimit) {
  // Holding the bob horizontal (q = π/2) takes m·g·l = 4.905 N·m. Returns the lowest q reached in 2 s.
  const auto lowest = [](double effort) {
    auto sys_owner = Pendulum(-10, 10, effort);
    RigidFixture& sys = *sys_owner;
    sys.state.q[0] = M_PI / 2;
    sys.AddController({0, 1e4, 100, {M_PI / 2, 0, 0}});
    double q_min = sys.state.q[0];
    for (int i = 0; i < 2000; ++i) {
      sys.Step(1e-3);
      q_min = std::min(q_min, sys.state.q[0]);
    }
    return q_min;
  };
  EXPECT_NEAR(lowest(10.0), M_PI / 2, 1e-3);  // m·g·l/K_p ≈ 0.5 mrad of droop
  // With 4 N·m the joint swings down about the angle where m·g·l·sin q = 4 (0.95 rad), reaching ~0.49 rad.
  EXPECT_LT(lowest(4.0), 0.95);
}

}  // namespace
}  // namespace ductile::contact
