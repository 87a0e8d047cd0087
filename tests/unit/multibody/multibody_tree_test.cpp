// Kinematics and dynamics of MultibodyTree against independent formulas: the CRBA mass matrix against
// Σ Jᵀ M J from body Jacobians, RNEA's gravity term against finite differences of the potential energy, its
// velocity terms through energy and momentum conservation of RK4 forward dynamics, point Jacobians against
// finite differences of positions, and the twists of linear and smooth pose trajectories (and their rates, also
// as a prescribed root's acceleration bias) against finite differences of poses.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
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

// Three poses that translate and turn about different axes, with segments of unequal length.
PoseTrajectory MakeTurningTrajectory(KeyframeInterpolation interpolation) {
  PoseTrajectory tr;
  tr.interpolation = interpolation;
  tr.times = {0.5, 1.5, 2.25};
  tr.positions = {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(0.4, -0.2, 0.1), Eigen::Vector3d(0.1, 0.3, 0.5)};
  tr.rotations = {Eigen::Quaterniond(Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 2, 0).normalized())),
                  Eigen::Quaterniond(Eigen::AngleAxisd(1.2, Eigen::Vector3d(0, 0.5, 1).normalized())),
                  Eigen::Quaterniond(Eigen::AngleAxisd(-0.7, Eigen::Vector3d::UnitX()))};
  return tr;
}

// ω by a central difference of orientations: R(t + h) R(t − h)ᵀ = exp(2h ω) + O(h³).
Eigen::Vector3d AngularVelocityByCentralDifference(const PoseTrajectory& tr, double t, double h) {
  const Eigen::AngleAxisd turn(Eigen::Matrix3d(tr.Pose(t + h).linear() * tr.Pose(t - h).linear().transpose()));
  return turn.axis() * (turn.angle() / (2 * h));
}

// Times inside the segments of MakeTurningTrajectory, near both ends and in the middle of each.
const std::vector<double> kInsideSegments{0.51, 0.8, 1.0, 1.49, 1.51, 1.9, 2.24};

const char* ModeName(KeyframeInterpolation mode) {
  return mode == KeyframeInterpolation::kSmooth ? "smooth" : "linear";
}

TEST(PoseTrajectory, TwistIsTheTimeDerivativeOfThePose) {
  // Central differences with h = 1e-5: truncation ~ h² times the third derivative (~1e-9 here), rounding ~1e-11.
  const double h = 1e-5;
  for (const KeyframeInterpolation mode : {KeyframeInterpolation::kLinear, KeyframeInterpolation::kSmooth}) {
    const PoseTrajectory tr = MakeTurningTrajectory(mode);
    for (const double t : kInsideSegments) {
      Eigen::Vector3d w, v;
      tr.Twist(t, w, v);
      const Eigen::Vector3d v_fd = (tr.Pose(t + h).translation() - tr.Pose(t - h).translation()) / (2 * h);
      const Eigen::Vector3d w_fd = AngularVelocityByCentralDifference(tr, t, h);
      EXPECT_LT((v - v_fd).norm(), 1e-7) << ModeName(mode) << ", t = " << t;
      EXPECT_LT((w - w_fd).norm(), 1e-7) << ModeName(mode) << ", t = " << t;
      EXPECT_GT(w.norm(), 0.01) << ModeName(mode) << ", t = " << t;  // every sample turns
    }
  }
}

TEST(PoseTrajectory, TwistRateIsTheTimeDerivativeOfTheTwist) {
  const double h = 1e-5;
  for (const KeyframeInterpolation mode : {KeyframeInterpolation::kLinear, KeyframeInterpolation::kSmooth}) {
    const PoseTrajectory tr = MakeTurningTrajectory(mode);
    for (const double t : kInsideSegments) {
      Eigen::Vector3d wdot, vdot, w_plus, v_plus, w_minus, v_minus;
      tr.TwistRate(t, wdot, vdot);
      tr.Twist(t + h, w_plus, v_plus);
      tr.Twist(t - h, w_minus, v_minus);
      EXPECT_LT((vdot - (v_plus - v_minus) / (2 * h)).norm(), 1e-6) << ModeName(mode) << ", t = " << t;
      EXPECT_LT((wdot - (w_plus - w_minus) / (2 * h)).norm(), 1e-6) << ModeName(mode) << ", t = " << t;
    }
  }
  // A smooth segment accelerates: e''(s) = 6 − 12s, so at s = 1/4 of the first segment (Δt = 1 s) the origin
  // accelerates at 3 Δp / Δt².
  Eigen::Vector3d wdot, vdot;
  MakeTurningTrajectory(KeyframeInterpolation::kSmooth).TwistRate(0.75, wdot, vdot);
  EXPECT_LT((vdot - 3 * Eigen::Vector3d(0.4, -0.2, 0.1)).norm(), 1e-12);
}

TEST(PoseTrajectory, SmoothPassesThroughTheKeyframesAtRest) {
  const PoseTrajectory tr = MakeTurningTrajectory(KeyframeInterpolation::kSmooth);
  for (std::size_t k = 0; k < tr.times.size(); ++k) {
    const Eigen::Isometry3d X = tr.Pose(tr.times[k]);
    EXPECT_LT((X.translation() - tr.positions[k]).norm(), 1e-12) << "keyframe " << k;
    EXPECT_LT(Eigen::Quaterniond(X.linear()).angularDistance(tr.rotations[k]), 1e-7) << "keyframe " << k;
    Eigen::Vector3d w, v;
    tr.Twist(tr.times[k], w, v);
    EXPECT_EQ(w.norm(), 0) << "keyframe " << k;
    EXPECT_EQ(v.norm(), 0) << "keyframe " << k;
    // Just before it the velocity is O(ε) too: it comes to rest continuously.
    tr.Twist(tr.times[k] - 1e-6, w, v);
    EXPECT_LT(w.norm() + v.norm(), 1e-4) << "keyframe " << k;
  }
  // In the middle of a segment the blend runs at e'(1/2) = 3/2 times the linear rate.
  Eigen::Vector3d w_smooth, v_smooth, w_linear, v_linear;
  tr.Twist(1.875, w_smooth, v_smooth);
  MakeTurningTrajectory(KeyframeInterpolation::kLinear).Twist(1.875, w_linear, v_linear);
  EXPECT_LT((v_smooth - 1.5 * v_linear).norm(), 1e-12);
  EXPECT_LT((w_smooth - 1.5 * w_linear).norm(), 1e-12);
}

TEST(PoseTrajectory, SmoothShakeHasNoVelocityJumps) {
  // Keyframes alternating between two poses: linear motion reverses its velocity at each inner keyframe,
  // smooth motion comes to rest there and turns back.
  for (const KeyframeInterpolation mode : {KeyframeInterpolation::kLinear, KeyframeInterpolation::kSmooth}) {
    PoseTrajectory tr;
    tr.interpolation = mode;
    const Eigen::Quaterniond tilt(Eigen::AngleAxisd(0.2, Eigen::Vector3d::UnitY()));
    tr.times = {0, 0.1, 0.2, 0.3};
    tr.positions = {Eigen::Vector3d(-0.01, 0, 0), Eigen::Vector3d(0.01, 0, 0), Eigen::Vector3d(-0.01, 0, 0),
                    Eigen::Vector3d(0.01, 0, 0)};
    tr.rotations = {Eigen::Quaterniond::Identity(), tilt, Eigen::Quaterniond::Identity(), tilt};
    const double eps = 1e-9;
    double largest_jump = 0;
    for (const double t : {0.1, 0.2}) {
      Eigen::Vector3d w_before, v_before, w_after, v_after;
      tr.Twist(t - eps, w_before, v_before);
      tr.Twist(t + eps, w_after, v_after);
      largest_jump = std::max({largest_jump, (v_after - v_before).norm(), (w_after - w_before).norm()});
    }
    if (mode == KeyframeInterpolation::kLinear) {
      EXPECT_NEAR(largest_jump, 4.0, 1e-6);  // ω flips between ±0.2 rad / 0.1 s = ±2 rad/s
    } else {
      EXPECT_LT(largest_jump, 1e-6);
    }
  }
}

TEST(MultibodyTree, PrescribedRootAccelerationIsTheRateOfItsVelocity) {
  // A0 = d/dt V0 = (ω̇, v̇ − ω̇ × p + v × ω), against central differences of V0 in both modes.
  const double h = 1e-5;
  for (const KeyframeInterpolation mode : {KeyframeInterpolation::kLinear, KeyframeInterpolation::kSmooth}) {
    MultibodyTree tree;
    Body root;
    root.name = "carrier";
    root.trajectory = tree.AddTrajectory(MakeTurningTrajectory(mode));
    tree.AddBody(root);
    const Eigen::VectorXd q = Eigen::VectorXd::Zero(0);
    for (const double t : kInsideSegments) {
      Kinematics now, before, after;
      CalcKinematics(tree, q, t, now);
      CalcKinematics(tree, q, t - h, before);
      CalcKinematics(tree, q, t + h, after);
      const Vector6d A_fd = (after.V0[0] - before.V0[0]) / (2 * h);
      EXPECT_LT((now.A0[0] - A_fd).norm(), 1e-6) << ModeName(mode) << ", t = " << t;
    }
  }
}

TEST(MultibodyTree, BodyOnASmoothCarrierFeelsItsAcceleration) {
  // A 2 kg slider on a carrier that moves 1 m along x in 1 s with the smooth blend: holding the slider at rest
  // relative to the carrier takes τ = m ẍ = m e''(s) Δx / Δt² = 2 · (6 − 12 s) N.
  MultibodyTree tree;
  PoseTrajectory tr;
  tr.interpolation = KeyframeInterpolation::kSmooth;
  tr.times = {0, 1};
  tr.positions = {Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitX()};
  tr.rotations = {Eigen::Quaterniond::Identity(), Eigen::Quaterniond::Identity()};
  Body carrier;
  carrier.name = "carrier";
  carrier.trajectory = tree.AddTrajectory(tr);
  tree.AddBody(carrier);
  Body slider;
  slider.name = "slider";
  slider.parent = 0;
  slider.joint = JointType::kPrismatic;
  slider.mass = 2;
  slider.I_Cm_B = BoxInertia(2, 0.1, 0.1, 0.1);
  tree.AddBody(slider);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(1);
  for (const double s : {0.1, 0.25, 0.5, 0.8}) {
    Kinematics kin;
    CalcKinematics(tree, zero, s, kin);
    const Eigen::VectorXd tau = CalcInverseDynamics(tree, kin, zero, zero, Eigen::Vector3d::Zero());
    EXPECT_NEAR(tau[0], 2 * (6 - 12 * s), 1e-9) << "s = " << s;
  }
}

}  // namespace
}  // namespace ductile::multibody
