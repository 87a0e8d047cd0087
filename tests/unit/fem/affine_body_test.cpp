// Affine bodies: the orthogonality potential's derivatives, the mass matrix, and a pair's barrier and friction through
// the affine Jacobian against finite differences.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <random>

#include "fem/affine_body.h"
#include "fem/ipc_barrier.h"
#include "fem/ipc_friction.h"
#include "support/finite_differences.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;
using testing::FdGradient;
using testing::FdHessian;
using Vector12 = Eigen::Matrix<double, 12, 1>;

// J(x̄) of x = J q: [I, x̄₁I, x̄₂I, x̄₃I].
Eigen::Matrix<double, 3, 12> AffineJacobian(const Vector3d& x_bar) {
  Eigen::Matrix<double, 3, 12> J;
  J << Eigen::Matrix3d::Identity(), x_bar[0] * Eigen::Matrix3d::Identity(), x_bar[1] * Eigen::Matrix3d::Identity(),
      x_bar[2] * Eigen::Matrix3d::Identity();
  return J;
}

TEST(FemAffineBody, OrthogonalityGradientMatchesFiniteDifferencesAndHessianIsPsd) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  for (int trial = 0; trial < 10; ++trial) {
    Eigen::Matrix3d A = Eigen::AngleAxisd(u(rng) * 10, Vector3d(u(rng), u(rng), 1).normalized()).toRotationMatrix();
    for (int i = 0; i < 9; ++i) A.data()[i] += u(rng);
    const OrthogonalityTerms o = Orthogonality(A, true);
    const double h = 1e-6;
    for (int i = 0; i < 9; ++i) {
      Eigen::Matrix3d Ap = A, Am = A;
      Ap.data()[i] += h, Am.data()[i] -= h;
      // Central differences: O(h²) ≈ 1e-12 truncation, round-off ~1e-10 on O(1) values.
      EXPECT_NEAR(o.gradient[i], (Orthogonality(Ap, false).value - Orthogonality(Am, false).value) / (2 * h), 1e-6);
    }
    using Solver = Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 9, 9>>;
    EXPECT_GE(Solver(o.hessian).eigenvalues().minCoeff(), -1e-9);
  }
  // At a rotation the potential and its gradient vanish.
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.7, Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  EXPECT_NEAR(Orthogonality(R, false).value, 0, 1e-28);
  EXPECT_LT(Orthogonality(R, false).gradient.norm(), 1e-14);
}

// The unprojected Hessian (at a rotation it is already PSD) matches differences of the gradient.
TEST(FemAffineBody, OrthogonalityHessianAtARotationMatchesFiniteDifferences) {
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.4, Vector3d(0, 1, 1).normalized()).toRotationMatrix() * 1.01;
  const OrthogonalityTerms o = Orthogonality(R, true);
  const double h = 1e-6;
  Eigen::Matrix<double, 9, 9> fd;
  for (int i = 0; i < 9; ++i) {
    Eigen::Matrix3d Ap = R, Am = R;
    Ap.data()[i] += h, Am.data()[i] -= h;
    fd.col(i) = (Orthogonality(Ap, false).gradient - Orthogonality(Am, false).gradient) / (2 * h);
  }
  EXPECT_LT((o.hessian - fd).norm(), 1e-6 * fd.norm());
}

// M = ∫ρJᵀJ: a box's mass matrix from the kinetic energy of known motions — translation ½mv², rotation ½ωᵀIω.
TEST(FemAffineBody, MassMatrixGivesTheRigidKineticEnergy) {
  const double m = 2;
  const Vector3d half(0.1, 0.2, 0.3);
  const Eigen::Matrix3d S = m / 3 * half.cwiseProduct(half).asDiagonal();
  const Eigen::Matrix<double, 12, 12> M = AffineMassMatrix(m, S);
  const Vector3d omega(0.3, -1, 2);
  Eigen::Matrix3d W;
  W << 0, -omega.z(), omega.y(), omega.z(), 0, -omega.x(), -omega.y(), omega.x(), 0;
  Vector12 q_dot;
  q_dot << Vector3d(1, 2, 3), W.col(0), W.col(1), W.col(2);  // Ȧ = [ω]× A at A = I
  const Eigen::Matrix3d inertia = S.trace() * Eigen::Matrix3d::Identity() - S;
  EXPECT_NEAR(0.5 * q_dot.dot(M * q_dot), 0.5 * m * 14 + 0.5 * omega.dot(inertia * omega), 1e-12);
  EXPECT_TRUE(SecondMomentFromInertia(inertia).isApprox(S, 1e-14));
}

// A point–triangle barrier between an affine body's point and a fixed triangle, through x = J(x̄) q: gradient Jᵀg and
// Gauss–Newton-exact Hessian JᵀHJ (J is constant) against differences in q.
TEST(FemAffineBody, BarrierThroughTheAffineJacobianMatchesFiniteDifferences) {
  const Vector3d x_bar(0.03, -0.02, 0.05);
  const Vector3d t0(-1, -1, 0), t1(1, -1, 0), t2(0, 1, 0);
  const double s_hat = 0.01;
  Vector12 q;
  q << 0.1, 0.05, 0.02, 1, 0.01, 0, -0.02, 1, 0.03, 0, 0, 0.98;
  auto energy = [&](const Vector12& qq) {
    const Vector3d p = AffinePoint(qq, x_bar);
    return PointTriangleBarrier(p, t0, t1, t2, ClassifyPointTriangle(p, t0, t1, t2), s_hat).energy;
  };
  const Eigen::Matrix<double, 3, 12> J = AffineJacobian(x_bar);
  auto gradient = [&](const Vector12& qq) {
    const Vector3d p = AffinePoint(qq, x_bar);
    const PairEnergy e = PointTriangleBarrier(p, t0, t1, t2, ClassifyPointTriangle(p, t0, t1, t2), s_hat);
    return Vector12(J.transpose() * e.gradient.segment<3>(0));
  };
  ASSERT_GT(energy(q), 0);
  // h = 1e-7 on O(1) coordinates: truncation ~h² ≈ 1e-14 relative, round-off ~ε/h ≈ 2e-9 of the barrier's scale, so
  // 1e-6 (gradient) and 1e-5 (Hessian, one more difference) hold with margin and still catch a wrong term (O(1)).
  const double h = 1e-7;
  const Vector12 fd_g = FdGradient(energy, q, h);
  const Eigen::Matrix<double, 12, 12> fd_H = FdHessian(gradient, q, h);
  const Vector3d p = AffinePoint(q, x_bar);
  const PairEnergy e = PointTriangleBarrier(p, t0, t1, t2, ClassifyPointTriangle(p, t0, t1, t2), s_hat);
  const Eigen::Matrix<double, 12, 12> H = J.transpose() * e.hessian.block<3, 3>(0, 0) * J;
  EXPECT_LT((gradient(q) - fd_g).norm(), 1e-6 * fd_g.norm());
  EXPECT_LT((H - fd_H).norm(), 1e-5 * fd_H.norm());
}

// The lagged friction of a point of an affine body sliding or sticking on a fixed triangle, as a function of the
// body's q through x = J(x̄) q: its gradient Jᵀ g and Hessian Jᵀ H J (how ipc_energy.cpp scatters a pair onto an
// affine body) against central differences in both regimes of the smoothing (‖u‖ ≫ ε and ‖u‖ < ε). The FD step is
// 1e-6 of the displacement, as in FemIpcFriction.PotentialMatchesFiniteDifferencesInBothRegimesAndIsConvex, which
// gives the same error budget (below 1e-8 relative) against the same tolerances.
TEST(FemAffineBody, FrictionThroughTheAffineJacobianMatchesFiniteDifferences) {
  const Vector3d x_bar(0.03, -0.02, 0.05);
  const Vector3d t0(-1, -1, 0), t1(1, -1, 0), t2(0, 1, 0);
  Vector12 q_start;
  q_start << 0.1, 0.05, 0.002, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  const Vector3d p_start = AffinePoint(q_start, x_bar);
  // The point over the triangle's interior: weights (1, −b) with b its barycentric coordinates there.
  const Eigen::Vector4d w(1, -0.3, -0.3, -0.4);
  const FrictionFrame frame = MakeFrictionFrame(w, p_start, t0, t1, t2, 2.5);
  const double mu = 0.4, eps = 1e-3;
  const Eigen::Matrix<double, 3, 12> J = AffineJacobian(x_bar);
  const auto displacement = [&](const Vector12& q) {
    Vector12 d = Vector12::Zero();
    d.segment<3>(0) = AffinePoint(q, x_bar) - p_start;  // the triangle is fixed
    return d;
  };
  Vector12 dq;
  dq << 0.3, -0.2, 0.05, 0.1, -0.4, 0.2, 0.3, 0.1, -0.2, 0.05, 0.2, 0.1;
  for (double scale : {1.0, 3e-4}) {
    SCOPED_TRACE(scale);
    const Vector12 q = q_start + scale * dq;
    auto energy = [&](const Vector12& qq) { return FrictionPotential(frame, displacement(qq), mu, eps).energy; };
    auto gradient = [&](const Vector12& qq) {
      return Vector12(J.transpose() * FrictionPotential(frame, displacement(qq), mu, eps).gradient.segment<3>(0));
    };
    const PairEnergy f = FrictionPotential(frame, displacement(q), mu, eps);
    const Eigen::Matrix<double, 12, 12> H = J.transpose() * f.hessian.block<3, 3>(0, 0) * J;
    const double h = 1e-6 * scale;
    const Vector12 fd_g = FdGradient(energy, q, h);
    const Eigen::Matrix<double, 12, 12> fd_H = FdHessian(gradient, q, h);
    ASSERT_GT(fd_g.norm(), 0);
    EXPECT_LT((gradient(q) - fd_g).norm(), 1e-5 * fd_g.norm());
    EXPECT_LT((H - fd_H).norm(), 1e-4 * fd_H.norm());
  }
}

}  // namespace
}  // namespace ductile::fem
