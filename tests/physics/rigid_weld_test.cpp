// Welds (holonomic constraints): a near-rigid weld holds a box against gravity in place; a spring-damper weld
// to a kinematic handle ("mocap") makes a box follow the handle, sagging by the static deflection m·g/k.
#include <gtest/gtest.h>

#include <cmath>

#include "contact/rigid_state.h"
#include "support/rigid_fixture.h"

namespace ductile::contact {
namespace {

using Eigen::Vector3d;

multibody::Body FreeBox(const Vector3d& position, double mass) {
  multibody::Body b;
  b.name = "box";
  b.joint = JointType::kFloating;
  b.X_PJ.translation() = position;
  b.mass = mass;
  b.I_Cm_B = Eigen::Matrix3d::Identity() * mass * 0.01 / 6;  // 10 cm cube
  return b;
}

TEST(RigidWeld, NearRigidWeldHoldsABoxInPlace) {
  multibody::MultibodyTree tree;
  tree.AddBody(FreeBox(Vector3d(0.3, 0, 1), 2.0));
  RigidFixture sys(std::move(tree), geometry::CollisionWorld{});
  // The weld frame sits 0.2 m off the box origin, so gravity also pulls on the rotational rows.
  Weld w;
  w.body_b = 0;
  w.X_AF.translation() = Vector3d(0.1, 0, 1);
  w.X_BG.translation() = Vector3d(-0.2, 0, 0);
  sys.welds.push_back(w);
  double worst = 0;
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(sys.Step(1e-3).converged);
    worst = std::max(worst, (sys.kinematics().X_WB[0].translation() - Vector3d(0.3, 0, 1)).norm());
  }
  RecordProperty("max_displacement_m", std::to_string(worst));
  // Near-rigid compliance R = β²/(4π²)·w makes the weld a spring whose period is about one step (1 ms): its
  // static sag under gravity is g·(Δt/2π)² ≈ 0.25 µm, and the first steps' transient, as the offset weight starts
  // to pull, reaches 20 µm (measured); the bound is five times that.
  EXPECT_LT(worst, 1e-4);
  EXPECT_LT(Eigen::AngleAxisd(sys.kinematics().X_WB[0].linear()).angle(), 1e-3);
}

TEST(RigidWeld, SpringDamperWeldToAKinematicHandleFollowsIt) {
  multibody::MultibodyTree tree;
  multibody::PoseTrajectory handle;
  handle.times = {0, 2};
  handle.positions = {Vector3d(0, 0, 1), Vector3d(0.4, 0, 1)};
  handle.rotations = {Eigen::Quaterniond::Identity(), Eigen::Quaterniond::Identity()};
  multibody::Body h;
  h.name = "handle";
  h.trajectory = tree.AddTrajectory(handle);
  tree.AddBody(h);
  const double mass = 1.0, k = 1e4;
  tree.AddBody(FreeBox(Vector3d(0, 0, 1), mass));
  RigidFixture sys(std::move(tree), geometry::CollisionWorld{});
  Weld w;
  w.body_a = 0;
  w.body_b = 1;
  w.stiffness = k;
  w.damping = 2 * std::sqrt(k * mass);  // critically damped
  sys.welds.push_back(w);
  for (int i = 0; i < 1500; ++i) ASSERT_TRUE(sys.Step(1e-3).converged);
  // Moving at constant velocity 0.2 m/s along x: no lag in steady state, a sag of m·g/k below the handle.
  const Vector3d handle_now = sys.kinematics().X_WB[0].translation();
  const Vector3d box = sys.kinematics().X_WB[1].translation();
  RecordProperty("sag_m", std::to_string(handle_now.z() - box.z()));
  EXPECT_NEAR(handle_now.z() - box.z(), mass * 9.81 / k, 0.02 * mass * 9.81 / k);
  EXPECT_NEAR(box.x(), handle_now.x(), 1e-4);
  EXPECT_NEAR(sys.state.v[3], 0.2, 1e-3);  // the box's ω occupies v[0..2], its velocity v[3..5]
}

}  // namespace
}  // namespace ductile::contact
