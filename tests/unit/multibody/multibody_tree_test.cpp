// Kinematics and dynamics of MultibodyTree against independent formulas: the CRBA mass matrix against
// Σ Jᵀ M J from body Jacobians, RNEA's gravity term against finite differences of the potential energy, its
// velocity terms through energy and momentum conservation of RK4 forward dynamics, and point Jacobians against
// finite differences of positions.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "multibody/multibody_tree.h"

namespace ductile::multibody {
namespace {

Eigen::Matrix3d BoxInertia(double m, double a, double b, double c) {
  return Eigen::Vector3d(m / 12 * (b * b + c * c), m / 12 * (a * a + c * c), m / 12 * (a * a + b * b)).asDiagonal();
}

// A chain: revolute about a tilted axis, prismatic, revolute about x, a fixed link, and a floating body.
MultibodyTree MakeMixedTree() {
  MultibodyTree tree;
  Body b0;
  b0.name = "l0";
  b0.joint = JointType::kRevolute;
  b0.X_PJ.translation() = Eigen::Vector3d(0.1, -0.2, 0.5);
  b0.axis_J = Eigen::Vector3d(0.3, 0.4, 1).normalized();
  b0.mass = 2;
  b0.p_BCm = Eigen::Vector3d(0.05, 0.1, 0.2);
  b0.I_Cm_B = BoxInertia(2, 0.1, 0.2, 0.4);
  tree.AddBody(b0);
  Body b1;
  b1.name = "l1";
  b1.parent = 0;
  b1.joint = JointType::kPrismatic;
  b1.X_PJ.translation() = Eigen::Vector3d(0, 0.3, 0.4);
  b1.X_PJ.linear() = Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitX()).toRotationMatrix();
  b1.axis_J = Eigen::Vector3d(0, 1, 0);
  b1.mass = 1.5;
  b1.p_BCm = Eigen::Vector3d(0, 0.1, 0);
  b1.I_Cm_B = BoxInertia(1.5, 0.3, 0.1, 0.1);
  tree.AddBody(b1);
  Body b2;
  b2.name = "l2";
  b2.parent = 1;
  b2.joint = JointType::kRevolute;
  b2.X_PJ.translation() = Eigen::Vector3d(0, 0.2, 0);
  b2.axis_J = Eigen::Vector3d(1, 0, 0);
  b2.mass = 0.7;
  b2.p_BCm = Eigen::Vector3d(0, 0, 0.15);
  b2.I_Cm_B = BoxInertia(0.7, 0.05, 0.05, 0.3);
  tree.AddBody(b2);
  Body b3;
  b3.name = "l3";
  b3.parent = 2;
  b3.joint = JointType::kFixed;
  b3.X_PJ.translation() = Eigen::Vector3d(0, 0, 0.3);
  b3.mass = 0.3;
  b3.p_BCm = Eigen::Vector3d(0.02, 0, 0);
  b3.I_Cm_B = BoxInertia(0.3, 0.1, 0.1, 0.1);
  tree.AddBody(b3);
  Body f;
  f.name = "free";
  f.joint = JointType::kFloating;
  f.X_PJ.translation() = Eigen::Vector3d(1, 0, 0.5);
  f.X_PJ.linear() = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  f.mass = 3;
  f.p_BCm = Eigen::Vector3d(0.01, -0.02, 0.03);
  f.I_Cm_B = BoxInertia(3, 0.2, 0.3, 0.5);
  tree.AddBody(f);
  return tree;
}

Eigen::VectorXd RandomState(const MultibodyTree& tree, std::mt19937& rng, bool positions) {
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::VectorXd x(positions ? tree.nq() : tree.nv());
  for (int i = 0; i < x.size(); ++i) x[i] = u(rng);
  if (positions)
    for (const Body& b : tree.bodies())
      if (b.joint == JointType::kFloating) x.segment<4>(b.q_start).normalize();
  return x;
}

TEST(MultibodyTree, MassMatrixEqualsSumOfBodyJacobianProducts) {
  const MultibodyTree tree = MakeMixedTree();
  ASSERT_EQ(tree.nq(), 3 + 7);
  ASSERT_EQ(tree.nv(), 3 + 6);
  std::mt19937 rng(1);
  Kinematics kin;
  CalcKinematics(tree, RandomState(tree, rng, true), 0, kin);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(tree.nv(), tree.nv());
  for (int b = 0; b < tree.num_bodies(); ++b) {
    // Kinetic energy of body b = ½ m |v_Cm|² + ½ ωᵀ Ī ω with v_Cm = J_Cm v, ω = J_ω v.
    const Eigen::MatrixXd Jc = CalcPointJacobian(tree, kin, b, kin.p_WCm[b]);
    const Eigen::MatrixXd Jw = CalcBodyJacobian(tree, kin, b).topRows<3>();
    const Eigen::Matrix3d R = kin.X_WB[b].linear();
    expected += tree.body(b).mass * Jc.transpose() * Jc + Jw.transpose() * R * tree.body(b).I_Cm_B * R.transpose() * Jw;
  }
  const Eigen::MatrixXd M = CalcMassMatrix(tree, kin);
  EXPECT_LT((M - expected).norm(), 1e-12 * expected.norm());
  EXPECT_LT((M - M.transpose()).norm(), 1e-14 * M.norm());
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M).eigenvalues().minCoeff(), 0);
}

TEST(MultibodyTree, InverseDynamicsIsAffineInAccelerationWithSlopeM) {
  const MultibodyTree tree = MakeMixedTree();
  std::mt19937 rng(2);
  Kinematics kin;
  CalcKinematics(tree, RandomState(tree, rng, true), 0, kin);
  const Eigen::VectorXd v = RandomState(tree, rng, false);
  const Eigen::VectorXd a = RandomState(tree, rng, false);
  const Eigen::Vector3d g(0, 0, -9.81);
  const Eigen::VectorXd bias = CalcInverseDynamics(tree, kin, v, Eigen::VectorXd::Zero(tree.nv()), g);
  const Eigen::VectorXd tau = CalcInverseDynamics(tree, kin, v, a, g);
  const Eigen::VectorXd Ma = CalcMassMatrix(tree, kin) * a;
  EXPECT_LT((tau - bias - Ma).norm(), 1e-12 * Ma.norm());
}

TEST(MultibodyTree, GravityTermIsTheGradientOfPotentialEnergy) {
  // With v = 0, RNEA gives −τ_g = ∂U/∂q along every velocity direction: dU = (∂U/∂q)·N(q)·δv.
  const MultibodyTree tree = MakeMixedTree();
  std::mt19937 rng(3);
  const Eigen::VectorXd q = RandomState(tree, rng, true);
  const Eigen::Vector3d g(0.5, -1, -9.81);
  Kinematics kin;
  CalcKinematics(tree, q, 0, kin);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(tree.nv());
  const Eigen::VectorXd tau_g = CalcInverseDynamics(tree, kin, zero, zero, g);
  for (int k = 0; k < tree.nv(); ++k) {
    const double eps = 1e-6;
    Eigen::VectorXd dv = zero;
    dv[k] = 1;
    Eigen::VectorXd qp = q, qm = q;
    tree.IntegratePositions(eps, dv, qp);
    tree.IntegratePositions(-eps, dv, qm);
    Kinematics kp, km;
    CalcKinematics(tree, qp, 0, kp);
    CalcKinematics(tree, qm, 0, km);
    const double dU = (CalcPotentialEnergy(tree, kp, g) - CalcPotentialEnergy(tree, km, g)) / (2 * eps);
    EXPECT_NEAR(tau_g[k], dU, 1e-6 * (1 + std::abs(dU))) << "dof " << k;
  }
}

TEST(MultibodyTree, PointJacobianMatchesFiniteDifferences) {
  const MultibodyTree tree = MakeMixedTree();
  std::mt19937 rng(4);
  const Eigen::VectorXd q = RandomState(tree, rng, true);
  Kinematics kin;
  CalcKinematics(tree, q, 0, kin);
  for (int b : {2, 3, 4}) {
    const Eigen::Vector3d p_BQ(0.1, -0.05, 0.2);
    const Eigen::MatrixXd J = CalcPointJacobian(tree, kin, b, kin.X_WB[b] * p_BQ);
    for (int k = 0; k < tree.nv(); ++k) {
      const double eps = 1e-6;
      Eigen::VectorXd dv = Eigen::VectorXd::Zero(tree.nv());
      dv[k] = 1;
      Eigen::VectorXd qp = q, qm = q;
      tree.IntegratePositions(eps, dv, qp);
      tree.IntegratePositions(-eps, dv, qm);
      Kinematics kp, km;
      CalcKinematics(tree, qp, 0, kp);
      CalcKinematics(tree, qm, 0, km);
      const Eigen::Vector3d fd = (kp.X_WB[b] * p_BQ - km.X_WB[b] * p_BQ) / (2 * eps);
      EXPECT_LT((J.col(k) - fd).norm(), 1e-7) << "body " << b << " dof " << k;
    }
  }
}

// RK4 on (q, v) with v̇ = M⁻¹(−bias); positions through IntegratePositions so quaternions stay unit.
void Rk4Step(const MultibodyTree& tree, const Eigen::Vector3d& g, double dt, Eigen::VectorXd& q, Eigen::VectorXd& v) {
  const auto accel = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) {
    Kinematics k;
    CalcKinematics(tree, qq, 0, k);
    const Eigen::VectorXd bias = CalcInverseDynamics(tree, k, vv, Eigen::VectorXd::Zero(tree.nv()), g);
    return Eigen::VectorXd(CalcMassMatrix(tree, k).ldlt().solve(-bias));
  };
  const auto advance = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vel, double h) {
    Eigen::VectorXd r = qq;
    tree.IntegratePositions(h, vel, r);
    return r;
  };
  const Eigen::VectorXd a1 = accel(q, v);
  const Eigen::VectorXd v2 = v + 0.5 * dt * a1;
  const Eigen::VectorXd a2 = accel(advance(q, v, 0.5 * dt), v2);
  const Eigen::VectorXd v3 = v + 0.5 * dt * a2;
  const Eigen::VectorXd a3 = accel(advance(q, v2, 0.5 * dt), v3);
  const Eigen::VectorXd v4 = v + dt * a3;
  const Eigen::VectorXd a4 = accel(advance(q, v3, dt), v4);
  q = advance(q, (v + 2 * v2 + 2 * v3 + v4) / 6, dt);
  v += dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
}

TEST(MultibodyTree, VelocityTermsConserveEnergy) {
  // Without damping or external forces the total energy is constant; an error in the Coriolis/centrifugal
  // terms of RNEA shows up as an energy drift far above RK4's truncation error (O(dt⁴), ~1e-8 here).
  const MultibodyTree tree = MakeMixedTree();
  std::mt19937 rng(5);
  Eigen::VectorXd q = RandomState(tree, rng, true);
  Eigen::VectorXd v = 2 * RandomState(tree, rng, false);
  const Eigen::Vector3d g(0, 0, -9.81);
  const auto energy = [&] {
    Kinematics k;
    CalcKinematics(tree, q, 0, k);
    return CalcKineticEnergy(tree, k, v) + CalcPotentialEnergy(tree, k, g);
  };
  const double e0 = energy();
  for (int i = 0; i < 1000; ++i) Rk4Step(tree, g, 1e-3, q, v);
  EXPECT_NEAR(energy(), e0, 1e-6 * std::abs(e0) + 1e-6);
}

TEST(MultibodyTree, FreeBodyConservesAngularMomentum) {
  // A tumbling asymmetric body in zero gravity: the world angular momentum about its centre of mass is constant
  // while ω itself changes (Euler's equations).
  MultibodyTree tree;
  Body f;
  f.name = "free";
  f.joint = JointType::kFloating;
  f.mass = 2;
  f.p_BCm = Eigen::Vector3d(0.1, 0, 0);  // off the body origin, so the floating joint's coupling terms matter
  f.I_Cm_B = BoxInertia(2, 0.1, 0.3, 0.6);
  tree.AddBody(f);
  Eigen::VectorXd q = tree.DefaultPositions();
  Eigen::VectorXd v(6);
  v << 3, 0.2, -1, 0.5, 0, 0.1;
  const auto momentum = [&] {
    Kinematics k;
    CalcKinematics(tree, q, 0, k);
    const Vector6d h = k.I[0] * CalcSpatialVelocities(tree, k, v)[0];
    // Angular momentum about the centre of mass: h_O − p_Cm × p.
    return Eigen::Vector3d(h.head<3>() - k.p_WCm[0].cross(h.tail<3>()));
  };
  const Eigen::Vector3d L0 = momentum();
  const Eigen::Vector3d w0 = v.head<3>();
  for (int i = 0; i < 2000; ++i) Rk4Step(tree, Eigen::Vector3d::Zero(), 1e-3, q, v);
  // Tolerance: RK4 advances the quaternion with a first-order update inside each stage (~1e-7 relative drift
  // at this step); leaving out the floating joint's Ṡv term drifts by order one.
  EXPECT_LT((momentum() - L0).norm(), 1e-6 * L0.norm());
  EXPECT_GT((v.head<3>() - w0).norm(), 0.1);  // the body did tumble
}

TEST(MultibodyTree, PrescribedRootFollowsItsTrajectoryWithItsTwist) {
  MultibodyTree tree;
  PoseTrajectory tr;
  tr.times = {0, 1, 2};
  tr.positions = {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(1, 2, 0)};
  tr.rotations = {Eigen::Quaterniond::Identity(), Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitZ())),
                  Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitZ()))};
  Body root;
  root.name = "carrier";
  root.trajectory = tree.AddTrajectory(tr);
  tree.AddBody(root);
  Body pin;
  pin.name = "pin";
  pin.parent = 0;
  pin.joint = JointType::kRevolute;
  pin.axis_J = Eigen::Vector3d::UnitY();
  pin.mass = 1;
  pin.I_Cm_B = BoxInertia(1, 0.1, 0.1, 0.1);
  tree.AddBody(pin);
  Kinematics kin;
  CalcKinematics(tree, Eigen::VectorXd::Zero(1), 0.5, kin);
  EXPECT_LT((kin.X_WB[0].translation() - Eigen::Vector3d(0.5, 0, 0)).norm(), 1e-12);
  Eigen::Vector3d v0;
  CalcPointJacobian(tree, kin, 1, Eigen::Vector3d(0.5, 1, 0), &v0);
  // The carrier moves at 1 m/s along x and turns at 0.5 rad/s about z: a point 1 m off the origin along y moves
  // with (1, 0, 0) + 0.5 ẑ × (0, 1, 0) = (0.5, 0, 0).
  EXPECT_LT((v0 - Eigen::Vector3d(0.5, 0, 0)).norm(), 1e-12);
}

}  // namespace
}  // namespace ductile::multibody
