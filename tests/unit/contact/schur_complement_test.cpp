// contact/schur_complement.h: the reduced problem's minimiser, back-substituted, is the full problem's (the issue's
// "the Schur-reduced solve equals the full solve"), on the Hessian of an implicit MPM step (mpm/implicit_free_motion.h)
// with a smooth convex cost on the dofs of a few grid nodes standing in for contact.
#include "contact/schur_complement.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "mpm/implicit_free_motion.h"

namespace ductile::contact {
namespace {

// A 4 x 4 x 4 lattice of particles, two per cell of 1 cm, E = 1e5 Pa, Δt = 10 ms: the step's Hessian.
Eigen::SparseMatrix<double> StepHessian() {
  mpm::ImplicitParticles b;
  const double h = 0.01, spacing = 0.5 * h, volume = spacing * spacing * spacing;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) {
        b.x.emplace_back(0.1 + (i + 0.5) * spacing, 0.1 + (j + 0.5) * spacing, 0.1 + (k + 0.5) * spacing);
        b.v.push_back(Eigen::Vector3d::Zero());
        b.C.push_back(Eigen::Matrix3d::Zero());
        b.F.push_back(Eigen::Matrix3d::Identity() + 0.02 * Eigen::Matrix3d::Ones());
        b.mass.push_back(1000 * volume);
        b.volume.push_back(volume);
      }
  mpm::ImplicitFreeMotion problem;
  problem.Build(b, {{1e5 / 2.6, 1e5 * 0.3 / (1.3 * 0.4)}}, h, Eigen::Vector3d::Zero(), 1e-2, Eigen::Vector3d::Zero());
  return problem.AssembleHessian();
}

// ℓ(x_c) = Σ_k κ ε softplus((s_k − x_k)/ε): convex and smooth, pushing each kept dof above s_k.
struct Cost {
  Eigen::VectorXd s;
  double kappa = 1e-3, eps = 0.05;
  double Value(const Eigen::VectorXd& x) const {
    double v = 0;
    for (Eigen::Index k = 0; k < x.size(); ++k) v += kappa * eps * std::log1p(std::exp((s[k] - x[k]) / eps));
    return v;
  }
  Eigen::VectorXd Gradient(const Eigen::VectorXd& x) const {
    Eigen::VectorXd g(x.size());
    for (Eigen::Index k = 0; k < x.size(); ++k) g[k] = -kappa / (1 + std::exp(-(s[k] - x[k]) / eps));
    return g;
  }
  Eigen::VectorXd Curvature(const Eigen::VectorXd& x) const {
    Eigen::VectorXd c(x.size());
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      const double sigma = 1 / (1 + std::exp(-(s[k] - x[k]) / eps));
      c[k] = kappa / eps * sigma * (1 - sigma);
    }
    return c;
  }
};

// Newton with backtracking on a convex objective: `solve` gives the step for a gradient at x.
Eigen::VectorXd Newton(Eigen::VectorXd x, const std::function<double(const Eigen::VectorXd&)>& f,
                       const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& gradient,
                       const std::function<Eigen::VectorXd(const Eigen::VectorXd&, const Eigen::VectorXd&)>& solve) {
  const double start = gradient(x).norm();
  for (int it = 0; it < 100; ++it) {
    const Eigen::VectorXd g = gradient(x);
    if (g.norm() <= 1e-13 * start) break;
    const Eigen::VectorXd d = solve(x, g);
    double t = 1;
    while (f(x + t * d) > f(x) + 1e-4 * t * g.dot(d) && t > 1e-12) t *= 0.5;
    x += t * d;
  }
  return x;
}

TEST(SchurComplement, ReducedSolveEqualsTheFullSolve) {
  const Eigen::SparseMatrix<double> A = StepHessian();
  const Eigen::Index n = A.rows();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) b[i] = 1e-4 * u(rng);
  // The kept dofs: every third dof of the first 12 nodes, in a scrambled order.
  std::vector<int> kept;
  for (int i = 0; i < 36; i += 3) kept.push_back(i);
  std::shuffle(kept.begin(), kept.end(), rng);
  Cost cost;
  cost.s.resize(static_cast<Eigen::Index>(kept.size()));
  for (Eigen::Index k = 0; k < cost.s.size(); ++k) cost.s[k] = 0.1 * u(rng);
  const auto kept_of = [&](const Eigen::VectorXd& x) {
    Eigen::VectorXd xc(static_cast<Eigen::Index>(kept.size()));
    for (std::size_t k = 0; k < kept.size(); ++k) xc[static_cast<Eigen::Index>(k)] = x[kept[k]];
    return xc;
  };
  // Full: ½ xᵀAx − bᵀx + ℓ(x_c), Newton with a sparse LDLᵀ per iteration.
  const auto full_f = [&](const Eigen::VectorXd& x) { return 0.5 * x.dot(A * x) - b.dot(x) + cost.Value(kept_of(x)); };
  const auto full_g = [&](const Eigen::VectorXd& x) {
    Eigen::VectorXd g = A * x - b;
    const Eigen::VectorXd gc = cost.Gradient(kept_of(x));
    for (std::size_t k = 0; k < kept.size(); ++k) g[kept[k]] += gc[static_cast<Eigen::Index>(k)];
    return g;
  };
  const auto full_step = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& g) {
    Eigen::SparseMatrix<double> H = A;
    const Eigen::VectorXd c = cost.Curvature(kept_of(x));
    for (std::size_t k = 0; k < kept.size(); ++k) H.coeffRef(kept[k], kept[k]) += c[static_cast<Eigen::Index>(k)];
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(H);
    return Eigen::VectorXd(-ldlt.solve(g));
  };
  const Eigen::VectorXd full = Newton(Eigen::VectorXd::Zero(n), full_f, full_g, full_step);
  // Reduced: ½ x_cᵀ S x_c − b̃ᵀ x_c + ℓ(x_c) with a dense LLᵀ, then back-substituted.
  SchurComplement schur;
  schur.Compute(A, kept);
  const Eigen::MatrixXd& S = schur.S();
  const Eigen::VectorXd bt = schur.ReducedRhs(b);
  EXPECT_LT((S - S.transpose()).norm(), 1e-12 * S.norm());
  const auto red_f = [&](const Eigen::VectorXd& x) { return 0.5 * x.dot(S * x) - bt.dot(x) + cost.Value(x); };
  const auto red_g = [&](const Eigen::VectorXd& x) { return Eigen::VectorXd(S * x - bt + cost.Gradient(x)); };
  const auto red_step = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& g) {
    Eigen::MatrixXd H = S;
    H.diagonal() += cost.Curvature(x);
    return Eigen::VectorXd(-H.llt().solve(g));
  };
  const Eigen::VectorXd reduced = Newton(Eigen::VectorXd::Zero(bt.size()), red_f, red_g, red_step);
  const Eigen::VectorXd back = schur.BackSubstitute(b, reduced);
  // Both reached their minimiser to 1e-13 of the starting gradient; the same point to round-off of A's condition.
  EXPECT_LT((back - full).norm(), 1e-9 * full.norm());
  EXPECT_LT(full_g(back).norm(), 1e-9 * full_g(Eigen::VectorXd::Zero(n)).norm());
  // The cost is active: it moved the solution (the unconstrained A⁻¹b differs).
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> plain(A);
  EXPECT_GT((plain.solve(b) - full).norm(), 1e-3 * full.norm());
  // Without the cost the kept dofs are those of A⁻¹b: S⁻¹b̃ by one triangular solve with S's factor L_cc.
  const Eigen::VectorXd free_kept = kept_of(plain.solve(b));
  EXPECT_LT((schur.KeptSolution(b) - free_kept).norm(), 1e-9 * free_kept.norm());
  EXPECT_LT((schur.KeptSolution(b) - S.llt().solve(bt)).norm(), 1e-9 * free_kept.norm());
}

}  // namespace
}  // namespace ductile::contact
