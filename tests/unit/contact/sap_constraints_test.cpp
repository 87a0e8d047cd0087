// Every SAP constraint's impulse γ = −∂ℓ/∂v_c and Hessian G = ∂²ℓ/∂v_c² against central finite differences of
// its cost and impulse, at points in each of its regimes (stick, slip, separated, clamped, ...). Tolerances:
// central differences with step 1e-7 of functions with O(1)-scaled curvature have errors ~1e-7 relative.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <memory>
#include <random>

#include "contact/constraints/friction_cone_contact.h"
#include "contact/constraints/holonomic_constraint.h"
#include "contact/constraints/hunt_crossley_contact.h"
#include "contact/constraints/limit_constraint.h"
#include "contact/constraints/pd_controller.h"

namespace ductile::contact {
namespace {

void CheckDerivatives(const SapConstraint& c, const Eigen::VectorXd& vc, double scale) {
  const int n = c.num_rows();
  Eigen::VectorXd gamma;
  Eigen::MatrixXd G;
  c.Calc(vc, gamma, &G);
  EXPECT_LT((G - G.transpose()).norm(), 1e-12 * (1 + G.norm()));
  EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(G).eigenvalues().minCoeff(), -1e-12 * (1 + G.norm()));
  const double h = 1e-7 * scale;
  for (int k = 0; k < n; ++k) {
    Eigen::VectorXd vp = vc, vm = vc;
    vp[k] += h;
    vm[k] -= h;
    Eigen::VectorXd gp, gm;
    const double lp = c.Calc(vp, gp, nullptr);
    const double lm = c.Calc(vm, gm, nullptr);
    const double fd_grad = (lp - lm) / (2 * h);
    EXPECT_NEAR(-gamma[k], fd_grad, 1e-6 * (1 + std::abs(fd_grad))) << "row " << k << " at " << vc.transpose();
    const Eigen::VectorXd fd_hess = -(gp - gm) / (2 * h);
    EXPECT_LT((G.col(k) - fd_hess).norm(), 1e-5 * (1 + fd_hess.norm())) << "column " << k << " at " << vc.transpose();
  }
}

TEST(HuntCrossleyContact, ImpulseAndHessianMatchFiniteDifferences) {
  HuntCrossleyParams p;
  p.dt = 1e-2;
  p.phi0 = -1e-3;
  p.stiffness = 1e4;
  p.dissipation = 5;
  p.friction = 0.6;
  p.vn0 = -0.05;
  p.delassus = 2;
  const HuntCrossleyContact c(p);
  EXPECT_GT(c.lagged_normal_impulse(), 0);
  // Sliding, near stiction, approaching, separating beyond v̂ (no normal force).
  for (const Eigen::Vector3d& v : {Eigen::Vector3d(0.3, -0.2, -0.04), Eigen::Vector3d(1e-5, 2e-5, -0.01),
                                   Eigen::Vector3d(-0.1, 0.05, 0.02), Eigen::Vector3d(0.2, 0.1, 0.5)})
    CheckDerivatives(c, v, 1.0);
}

// SAP's regularised friction cone (near-rigid MPM contact): γ = −∇ℓ and G = −∂γ/∂v_c by central differences in
// each regime, G symmetric positive semi-definite; in stiction γ = R⁻¹(v̂ − v_c), while sliding ‖γ_t‖ = μ γ_n, when
// separating γ = 0. Impulses here are O(1e2) (1/R with R ~ 1e-3 to 5e-2); CheckDerivatives' relative tolerances.
TEST(FrictionConeContact, ImpulseAndHessianMatchFiniteDifferencesInEachRegime) {
  FrictionConeParams p;
  p.dt = 1e-2;
  p.phi0 = -1e-3;
  p.friction = 0.6;
  p.delassus = 2;
  const FrictionConeContact c(p);
  const double Rt = p.sigma * p.delassus, Rn = p.delassus / (4 * M_PI * M_PI);
  const double v_hat = -p.phi0 / (p.dt + p.dt / M_PI);
  int stick = 0, slide = 0, separate = 0;
  for (const Eigen::Vector3d& v : {Eigen::Vector3d(1e-5, -2e-5, 0.0), Eigen::Vector3d(0.3, -0.2, 0.0),
                                   Eigen::Vector3d(0.05, 0.02, -0.1), Eigen::Vector3d(0.01, 0.0, 0.5)}) {
    Eigen::Vector3d gamma;
    c.Calc3(v, gamma, nullptr);
    const Eigen::Vector3d y(-v[0] / Rt, -v[1] / Rt, (v_hat - v[2]) / Rn);
    if (gamma.isZero()) {
      ++separate;
    } else if ((gamma - y).norm() <= 1e-12 * y.norm()) {
      ++stick;
      EXPECT_LE(gamma.head<2>().norm(), p.friction * gamma[2] * (1 + 1e-12));
    } else {
      ++slide;
      EXPECT_NEAR(gamma.head<2>().norm(), p.friction * gamma[2], 1e-12 * gamma.norm());
    }
    CheckDerivatives(c, v, 1.0);
  }
  EXPECT_EQ(stick, 1);
  EXPECT_EQ(slide, 2);
  EXPECT_EQ(separate, 1);
}

// A speculative contact (a gap φ₀ > 0 at the step's start, as the strong coupling registers particles near the
// geometry) lets the gap close within the step and no more: no impulse while v_n ≥ −φ₀/Δt, and beyond that the
// near-rigid normal impulse (v̂ − v_n)/R_n that stops it at the surface (stiction with no tangential velocity).
TEST(FrictionConeContact, SpeculativeContactClosesItsGapWithinTheStep) {
  FrictionConeParams p;
  p.dt = 1e-2;
  p.phi0 = 2e-3;
  p.friction = 0.5;
  p.delassus = 3;
  const FrictionConeContact c(p);
  const double v_hat = -p.phi0 / p.dt, Rn = p.delassus / (4 * M_PI * M_PI);
  Eigen::Vector3d gamma;
  c.Calc3(Eigen::Vector3d(0, 0, 0.5 * v_hat), gamma, nullptr);  // closes half the gap
  EXPECT_TRUE(gamma.isZero());
  c.Calc3(Eigen::Vector3d(0, 0, v_hat), gamma, nullptr);  // closes it exactly
  EXPECT_TRUE(gamma.isZero());
  c.Calc3(Eigen::Vector3d(0, 0, 3 * v_hat), gamma, nullptr);  // would pass through
  EXPECT_NEAR(gamma[2], (v_hat - 3 * v_hat) / Rn, 1e-12 * gamma[2]);
  EXPECT_EQ(gamma.head<2>().norm(), 0.0);
}

TEST(HuntCrossleyContact, NormalImpulseIsTheModel) {
  HuntCrossleyParams p;
  p.dt = 1e-3;
  p.phi0 = -2e-3;
  p.stiffness = 1e5;
  p.dissipation = 2;
  const HuntCrossleyContact c(p);
  // At rest: the elastic force k·|φ₀| over the step.
  EXPECT_DOUBLE_EQ(c.NormalImpulse(0), 1e-3 * 1e5 * 2e-3);
  // Approaching at 0.1 m/s: Δt(f_e0 + Δt·k·0.1)(1 + d·0.1).
  EXPECT_NEAR(c.NormalImpulse(-0.1), 1e-3 * (200 + 1e-3 * 1e5 * 0.1) * 1.2, 1e-15);
  // Separating faster than v̂ = min(φ₀/Δt, 1/d)·(−1) = 0.5 m/s: no force.
  EXPECT_EQ(c.NormalImpulse(0.6), 0);
}

TEST(PdController, ImpulseAndHessianMatchFiniteDifferencesInAllRegimes) {
  PdControllerParams p;
  p.dt = 1e-2;
  p.kp = 500;
  p.kd = 20;
  p.q0 = 0.3;
  p.q_target = 0.5;
  p.feedforward = 1;
  p.effort_limit = 200;
  const PdController c(p);
  Eigen::VectorXd gamma;
  c.Calc(Eigen::VectorXd::Constant(1, 0.0), gamma, nullptr);
  // At v = 0 the impulse is Δt(−K_p(q₀ − q_d) + u_ff) = 0.01·101, below the limit Δt·e = 2.
  EXPECT_NEAR(gamma[0], 1.01, 1e-12);
  for (double v : {0.0, -10.0, 10.0, 1.5}) CheckDerivatives(c, Eigen::VectorXd::Constant(1, v), 1.0);
  c.Calc(Eigen::VectorXd::Constant(1, -10.0), gamma, nullptr);
  EXPECT_DOUBLE_EQ(gamma[0], 2.0);  // unclamped it would be Δt(Δt·K_p + K_d)(v̂ − v) = 3.51
}

TEST(LimitConstraint, PushesOnlyWhenTheStepWouldCrossTheLimit) {
  LimitParams p;
  p.dt = 1e-3;
  p.g0 = 1e-3;
  p.delassus = 4;
  const LimitConstraint c(p);
  Eigen::VectorXd gamma;
  c.Calc(Eigen::VectorXd::Constant(1, -0.1), gamma, nullptr);  // would close 0.1 mm of the 1 mm gap: free
  EXPECT_EQ(gamma[0], 0);
  c.Calc(Eigen::VectorXd::Constant(1, -5.0), gamma, nullptr);  // would cross the limit: pushes back
  EXPECT_GT(gamma[0], 0);
  for (double v : {-5.0, -0.1, 2.0}) CheckDerivatives(c, Eigen::VectorXd::Constant(1, v), 1.0);
}

TEST(HolonomicConstraint, ImpulseAndHessianMatchFiniteDifferences) {
  const HolonomicConstraint c(1e-3, 1.0, {{0.01, 0, 0, 2.0}, {-0.02, 1e3, 10, 1}, {0, 0, 0, 0.5}});
  CheckDerivatives(c, Eigen::Vector3d(0.1, -0.3, 2), 1.0);
}

}  // namespace
}  // namespace ductile::contact
