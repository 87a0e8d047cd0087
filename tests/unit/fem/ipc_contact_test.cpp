// IPC's distances, barrier, mollifier and friction against finite differences and brute force.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <array>
#include <functional>
#include <random>

#include "fem/ipc_barrier.h"
#include "fem/ipc_distance.h"
#include "fem/ipc_friction.h"
#include "support/finite_differences.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;

std::array<Vector3d, 4> Split(const Vector12d& x) {
  return {x.segment<3>(0), x.segment<3>(3), x.segment<3>(6), x.segment<3>(9)};
}

using testing::FdGradient;
using testing::FdHessian;
using testing::RelativeError;

// The tolerance of every FD comparison below: with h = 1e-6 on O(1) coordinates the central difference's truncation
// error is ~h² ≈ 1e-12 relative and its round-off ~ε/h ≈ 1e-10 of the function's scale, so 1e-6 relative leaves
// margin for the quotients' conditioning and still catches any wrong term (those are O(1) relative).
constexpr double kFdStep = 1e-6;
constexpr double kFdTolerance = 1e-6;

// Random pairs of every case: p far above/beside the triangle (t fixed, unit size), edges in random directions.
Vector12d RandomPointTriangle(std::mt19937& rng, PointTriangleCase wanted) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (;;) {
    Vector12d x;
    for (int i = 0; i < 12; ++i) x[i] = u(rng);
    x.segment<3>(0) *= 2;
    const auto v = Split(x);
    if (ClassifyPointTriangle(v[0], v[1], v[2], v[3]) == wanted) return x;
  }
}

Vector12d RandomEdgeEdge(std::mt19937& rng, EdgeEdgeCase wanted) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (;;) {
    Vector12d x;
    for (int i = 0; i < 12; ++i) x[i] = u(rng);
    const auto v = Split(x);
    if (ClassifyEdgeEdge(v[0], v[1], v[2], v[3]) == wanted) return x;
  }
}

TEST(FemIpcDistance, EveryPointTriangleCaseMatchesFiniteDifferences) {
  std::mt19937 rng(7);
  for (int c = 0; c <= static_cast<int>(PointTriangleCase::kFace); ++c) {
    const auto type = static_cast<PointTriangleCase>(c);
    for (int trial = 0; trial < 5; ++trial) {
      const Vector12d x = RandomPointTriangle(rng, type);
      auto value = [&](const Vector12d& y) {
        const auto v = Split(y);
        return PointTriangleDistance(v[0], v[1], v[2], v[3], type);
      };
      auto gradient = [&](const Vector12d& y) {
        const auto v = Split(y);
        return PointTriangleDistanceDerivatives(v[0], v[1], v[2], v[3], type).gradient;
      };
      const auto v = Split(x);
      const DistanceDerivatives d = PointTriangleDistanceDerivatives(v[0], v[1], v[2], v[3], type);
      EXPECT_NEAR(d.d, value(x), 1e-14 * std::max(1.0, d.d));
      EXPECT_LT(RelativeError(d.gradient, FdGradient(value, x, kFdStep), 1.0), kFdTolerance) << "case " << c;
      EXPECT_LT(RelativeError(d.hessian, FdHessian(gradient, x, kFdStep), 1.0), kFdTolerance) << "case " << c;
    }
  }
}

TEST(FemIpcDistance, EveryEdgeEdgeCaseMatchesFiniteDifferences) {
  std::mt19937 rng(11);
  for (int c = 0; c <= static_cast<int>(EdgeEdgeCase::kInterior); ++c) {
    const auto type = static_cast<EdgeEdgeCase>(c);
    for (int trial = 0; trial < 5; ++trial) {
      const Vector12d x = RandomEdgeEdge(rng, type);
      auto value = [&](const Vector12d& y) {
        const auto v = Split(y);
        return EdgeEdgeDistance(v[0], v[1], v[2], v[3], type);
      };
      auto gradient = [&](const Vector12d& y) {
        const auto v = Split(y);
        return EdgeEdgeDistanceDerivatives(v[0], v[1], v[2], v[3], type).gradient;
      };
      const auto v = Split(x);
      const DistanceDerivatives d = EdgeEdgeDistanceDerivatives(v[0], v[1], v[2], v[3], type);
      EXPECT_NEAR(d.d, value(x), 1e-14 * std::max(1.0, d.d));
      EXPECT_LT(RelativeError(d.gradient, FdGradient(value, x, kFdStep), 1.0), kFdTolerance) << "case " << c;
      EXPECT_LT(RelativeError(d.hessian, FdHessian(gradient, x, kFdStep), 1.0), kFdTolerance) << "case " << c;
    }
  }
}

// The classified distance is the true minimum: no sample of the triangle (or of the two segments) is closer, and the
// closest-point weights reproduce it.
TEST(FemIpcDistance, ClassifiedDistancesAreTheMinimumOverThePrimitives) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  constexpr int kSamples = 60;
  for (int trial = 0; trial < 200; ++trial) {
    Vector12d x;
    for (int i = 0; i < 12; ++i) x[i] = u(rng);
    const auto v = Split(x);
    const double pt = PointTriangleSquaredDistance(v[0], v[1], v[2], v[3]);
    const double ee = EdgeEdgeSquaredDistance(v[0], v[1], v[2], v[3]);
    double pt_sampled = 1e30, ee_sampled = 1e30;
    for (int i = 0; i <= kSamples; ++i)
      for (int j = 0; j <= kSamples; ++j) {
        const double a = double(i) / kSamples, b = double(j) / kSamples;
        if (a + b <= 1)
          pt_sampled = std::min(pt_sampled, (v[0] - (v[1] + a * (v[2] - v[1]) + b * (v[3] - v[1]))).squaredNorm());
        ee_sampled = std::min(ee_sampled, ((v[0] + a * (v[1] - v[0])) - (v[2] + b * (v[3] - v[2]))).squaredNorm());
      }
    // The sampled minimum is never below the exact one (up to round-off) and is near it: the closest point lies
    // within half a grid step (1/120 of the parameter) along each of two edges no longer than 2√3 (corners in
    // [−1, 1]³), so the nearest sample is at most 2 · 2√3/120 ≈ 0.058 from it, and the distance differs by no more.
    EXPECT_LE(pt, pt_sampled + 1e-12);
    EXPECT_LE(ee, ee_sampled + 1e-12);
    EXPECT_NEAR(std::sqrt(pt), std::sqrt(pt_sampled), 0.06);
    EXPECT_NEAR(std::sqrt(ee), std::sqrt(ee_sampled), 0.06);
    const Eigen::Vector4d wp =
        PointTriangleClosestWeights(v[0], v[1], v[2], v[3], ClassifyPointTriangle(v[0], v[1], v[2], v[3]));
    const Eigen::Vector4d we = EdgeEdgeClosestWeights(v[0], v[1], v[2], v[3], ClassifyEdgeEdge(v[0], v[1], v[2], v[3]));
    EXPECT_NEAR((wp[0] * v[0] + wp[1] * v[1] + wp[2] * v[2] + wp[3] * v[3]).squaredNorm(), pt, 1e-12);
    EXPECT_NEAR((we[0] * v[0] + we[1] * v[1] + we[2] * v[2] + we[3] * v[3]).squaredNorm(), ee, 1e-12);
  }
}

TEST(FemIpcDistance, ParallelEdgesGetAPointEdgeCase) {
  const Vector3d a0(0, 0, 0), a1(1, 0, 0), b0(0.25, 0.1, 0), b1(2, 0.1, 0);
  const EdgeEdgeCase c = ClassifyEdgeEdge(a0, a1, b0, b1);
  EXPECT_NE(c, EdgeEdgeCase::kInterior);
  EXPECT_NEAR(EdgeEdgeDistance(a0, a1, b0, b1, c), 0.01, 1e-15);
}

TEST(FemIpcBarrier, BarrierDerivativesMatchFiniteDifferencesAndVanishAtTheThreshold) {
  const double s_hat = 1e-2;
  for (double s : {1e-6, 1e-4, 3e-3, 9.9e-3}) {
    const ScalarDerivatives b = Barrier(s, s_hat);
    const double h = 1e-6 * s;
    EXPECT_NEAR(b.first, (Barrier(s + h, s_hat).value - Barrier(s - h, s_hat).value) / (2 * h),
                1e-6 * std::abs(b.first));
    EXPECT_NEAR(b.second, (Barrier(s + h, s_hat).first - Barrier(s - h, s_hat).first) / (2 * h),
                1e-6 * std::abs(b.second));
    EXPECT_GT(b.value, 0);
    EXPECT_LT(b.first, 0);
  }
  const ScalarDerivatives at = Barrier(s_hat * (1 - 1e-9), s_hat);
  EXPECT_NEAR(at.value, 0, 1e-20);
  EXPECT_NEAR(at.first, 0, 1e-10);
  EXPECT_EQ(Barrier(2 * s_hat, s_hat).value, 0);
  EXPECT_GT(Barrier(1e-12, s_hat).value, Barrier(1e-6, s_hat).value);  // grows without bound as s → 0
}

// Tolerance 1e-5 relative (floor 1e-3 of the norm): the barrier's derivatives grow like 1/s near contact, so the FD
// round-off (~ε/h of the energy, ε the machine epsilon) is larger than for the distances alone; 1e-5 still leaves an
// order of magnitude over what the samples show and catches any wrong term, which is O(1) relative.
TEST(FemIpcBarrier, PairBarriersMatchFiniteDifferencesIncludingTheMollifier) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const double s_hat = 0.3;
  int mollified = 0, tested = 0;
  for (int trial = 0; trial < 400 && tested < 40; ++trial) {
    Vector12d x;
    for (int i = 0; i < 12; ++i) x[i] = u(rng);
    // Nearly parallel edges sometimes, so that the mollifier is active.
    if (trial % 2) x.segment<3>(9) = x.segment<3>(6) + (x.segment<3>(3) - x.segment<3>(0)) + 0.02 * x.segment<3>(9);
    const auto v = Split(x);
    const EdgeEdgeCase c = ClassifyEdgeEdge(v[0], v[1], v[2], v[3]);
    if (EdgeEdgeDistance(v[0], v[1], v[2], v[3], c) >= s_hat * 0.9) continue;
    const double eps_x = EdgeEdgeMollifierThreshold(v[0], v[1], v[2], v[3]) * 50;  // a larger ε× tests more of m
    auto value = [&](const Vector12d& y) {
      const auto w = Split(y);
      return EdgeEdgeBarrier(w[0], w[1], w[2], w[3], c, s_hat, eps_x).energy;
    };
    auto gradient = [&](const Vector12d& y) {
      const auto w = Split(y);
      return EdgeEdgeBarrier(w[0], w[1], w[2], w[3], c, s_hat, eps_x).gradient;
    };
    const PairEnergy e = EdgeEdgeBarrier(v[0], v[1], v[2], v[3], c, s_hat, eps_x);
    ++tested;
    mollified += EdgeCrossSquaredNormDerivatives(v[0], v[1], v[2], v[3]).d < eps_x;
    EXPECT_LT(RelativeError(e.gradient, FdGradient(value, x, kFdStep), 1e-3), 1e-5);
    EXPECT_LT(RelativeError(e.hessian, FdHessian(gradient, x, kFdStep), 1e-3), 1e-5);
    const PointTriangleCase pc = ClassifyPointTriangle(v[0], v[1], v[2], v[3]);
    auto pvalue = [&](const Vector12d& y) {
      const auto w = Split(y);
      return PointTriangleBarrier(w[0], w[1], w[2], w[3], pc, s_hat).energy;
    };
    auto pgradient = [&](const Vector12d& y) {
      const auto w = Split(y);
      return PointTriangleBarrier(w[0], w[1], w[2], w[3], pc, s_hat).gradient;
    };
    const PairEnergy p = PointTriangleBarrier(v[0], v[1], v[2], v[3], pc, s_hat);
    EXPECT_LT(RelativeError(p.gradient, FdGradient(pvalue, x, kFdStep), 1e-3), 1e-5);
    EXPECT_LT(RelativeError(p.hessian, FdHessian(pgradient, x, kFdStep), 1e-3), 1e-5);
  }
  EXPECT_GE(tested, 20);
  EXPECT_GE(mollified, 5);  // the mollified branch was exercised
}

// The projected pair barriers (projection over the distance's difference vectors, fem/ipc_barrier.h): the same
// energy and gradient as the exact ones, a PSD Hessian, and one that only adds curvature to the exact Hessian where
// that is negative (projected − exact = Mᵀ Q max(−Λ, 0) Qᵀ M is PSD), so a positive part is never lost. Eigenvalues
// to −1e-10 ‖H‖ (round-off of the 12x12 eigen-decomposition that checks them). Every point–triangle and edge–edge
// case within d̂, and mollified edge pairs, appear; the pairs' Hessians are indefinite (b′ < 0), so each is projected.
TEST(FemIpcBarrier, ProjectedPairBarriersArePsdAndOnlyAddCurvature) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(-1, 1);
  const double s_hat = 0.3;
  int indefinite = 0;
  auto min_eigenvalue = [](const Matrix12d& H) {
    return Eigen::SelfAdjointEigenSolver<Matrix12d>(H).eigenvalues().minCoeff();
  };
  auto check = [&](const PairEnergy& exact, const PairEnergy& projected) {
    EXPECT_EQ(projected.energy, exact.energy);
    EXPECT_LT((projected.gradient - exact.gradient).norm(), 1e-12 * (1 + exact.gradient.norm()));
    const double scale = exact.hessian.norm();
    EXPECT_GE(min_eigenvalue(projected.hessian), -1e-10 * scale);
    EXPECT_GE(min_eigenvalue(projected.hessian - exact.hessian), -1e-10 * scale);
    indefinite += min_eigenvalue(exact.hessian) < -1e-6 * scale;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    Vector12d x;
    for (int i = 0; i < 12; ++i) x[i] = u(rng);
    if (trial % 2) x.segment<3>(9) = x.segment<3>(6) + (x.segment<3>(3) - x.segment<3>(0)) + 0.02 * x.segment<3>(9);
    const auto v = Split(x);
    const EdgeEdgeCase ec = ClassifyEdgeEdge(v[0], v[1], v[2], v[3]);
    if (EdgeEdgeDistance(v[0], v[1], v[2], v[3], ec) < s_hat) {
      const double eps_x = EdgeEdgeMollifierThreshold(v[0], v[1], v[2], v[3]) * 50;
      check(EdgeEdgeBarrier(v[0], v[1], v[2], v[3], ec, s_hat, eps_x),
            ProjectedEdgeEdgeBarrier(v[0], v[1], v[2], v[3], ec, s_hat, eps_x));
    }
    const PointTriangleCase pc = ClassifyPointTriangle(v[0], v[1], v[2], v[3]);
    if (PointTriangleDistance(v[0], v[1], v[2], v[3], pc) < s_hat)
      check(PointTriangleBarrier(v[0], v[1], v[2], v[3], pc, s_hat),
            ProjectedPointTriangleBarrier(v[0], v[1], v[2], v[3], pc, s_hat));
  }
  EXPECT_GE(indefinite, 20);  // the projection was exercised
}

TEST(FemIpcFriction, PotentialMatchesFiniteDifferencesInBothRegimesAndIsConvex) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  const double eps = 1e-3, mu = 0.4;
  for (int trial = 0; trial < 20; ++trial) {
    Vector12d x, dx;
    for (int i = 0; i < 12; ++i) x[i] = u(rng), dx[i] = u(rng);
    const auto v = Split(x);
    const FrictionFrame frame = MakeFrictionFrame(Eigen::Vector4d(1, -0.2, -0.5, -0.3), v[0], v[1], v[2], v[3], 2.5);
    // Sliding (‖u‖ ~ 1 ≫ ε) and sticking (‖u‖ < ε) displacements, the FD step scaled with them (1e-6 of them). The
    // central differences' error is then below 1e-8 relative in both regimes (round-off ~ 1e-16/1e-6 times the ratio
    // of gradient to Hessian scale over the displacement, truncation ~ (1e-6)²); the tolerances (1e-5 gradient, 1e-4
    // Hessian) are loose against that but catch any wrong term, which is O(1) relative.
    for (double scale : {1.0, 3e-4}) {
      const Vector12d d = scale * dx;
      auto value = [&](const Vector12d& y) { return FrictionPotential(frame, y, mu, eps).energy; };
      auto gradient = [&](const Vector12d& y) { return FrictionPotential(frame, y, mu, eps).gradient; };
      const PairEnergy f = FrictionPotential(frame, d, mu, eps);
      const double h = 1e-6 * scale;
      EXPECT_LT(RelativeError(f.gradient, FdGradient(value, d, h), 1e-9), 1e-5) << scale;
      EXPECT_LT(RelativeError(f.hessian, FdHessian(gradient, d, h), 1e-9), 1e-4) << scale;
      EXPECT_GE(Eigen::SelfAdjointEigenSolver<Matrix12d>(f.hessian).eigenvalues().minCoeff(), -1e-9 * f.hessian.norm());
    }
    // The sliding force is μλ along −u: its magnitude on the first point is μλ|w₀|.
    const PairEnergy sliding = FrictionPotential(frame, dx, mu, eps);
    const Eigen::Vector2d t = TangentialDisplacement(frame, dx);
    if (t.norm() > 10 * eps) {
      EXPECT_NEAR(sliding.gradient.segment<3>(0).norm(), mu * 2.5 * 1.0, 1e-12);
    }
  }
}

TEST(FemIpcFriction, SmoothingFunctionsAreContinuousAtEpsilon) {
  const double eps = 2e-3;
  EXPECT_NEAR(FrictionF0(eps * (1 - 1e-12), eps), eps, 1e-14);
  EXPECT_NEAR(FrictionF1(eps * (1 - 1e-12), eps), 1, 1e-10);
  EXPECT_EQ(FrictionF1(0, eps), 0);
  EXPECT_NEAR(FrictionF0(0, eps), eps / 3, 1e-18);
}

}  // namespace
}  // namespace ductile::fem
