// The SAP solver on random problems with every constraint type: it converges, its cost decreases monotonically,
// and the result satisfies the optimality condition A(v − v*) = Jᵀγ. Plus a problem with a known answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "contact/constraints/friction_cone_contact.h"
#include "contact/constraints/holonomic_constraint.h"
#include "contact/constraints/hunt_crossley_contact.h"
#include "contact/constraints/limit_constraint.h"
#include "contact/constraints/pd_controller.h"
#include "contact/sap_solver.h"
#include "contact/sparse_newton.h"

namespace ductile::contact {
namespace {

// A friction cone (μ = 0.5, Δt = 10 ms) penetrating by −φ₀ with Delassus estimate w.
FrictionConeParams PenetratingCone(double phi0, double w) {
  FrictionConeParams cone;
  cone.dt = 1e-2;
  cone.phi0 = phi0;
  cone.friction = 0.5;
  cone.delassus = w;
  return cone;
}

SapProblem RandomProblem(std::mt19937& rng, int nv, int contacts) {
  std::normal_distribution<double> n(0, 1);
  SapProblem p;
  Eigen::MatrixXd B(nv, nv);
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; ++j) B(i, j) = n(rng);
  p.A = B * B.transpose() + nv * Eigen::MatrixXd::Identity(nv, nv);
  p.v_star.resize(nv);
  for (int i = 0; i < nv; ++i) p.v_star[i] = n(rng);
  for (int c = 0; c < contacts; ++c) {
    HuntCrossleyParams hc;
    hc.dt = 1e-2;
    hc.phi0 = -1e-3 * std::abs(n(rng));
    hc.stiffness = 1e5;
    hc.dissipation = 1;
    hc.friction = 0.8;
    hc.vn0 = -0.5 * std::abs(n(rng));
    hc.delassus = 0.1;
    Eigen::MatrixXd J(3, nv);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < nv; ++j) J(i, j) = n(rng);
    p.Add(std::make_unique<HuntCrossleyContact>(hc), J);
  }
  PdControllerParams pd;
  pd.dt = 1e-2;
  pd.kp = 1e4;
  pd.kd = 100;
  pd.q_target = 0.3;
  pd.effort_limit = 20;
  Eigen::MatrixXd Jq = Eigen::MatrixXd::Zero(1, nv);
  Jq(0, 0) = 1;
  p.Add(std::make_unique<PdController>(pd), Jq);
  LimitParams lim;
  lim.dt = 1e-2;
  lim.g0 = 1e-4;
  lim.delassus = 1 / p.A(1, 1);
  Eigen::MatrixXd Jl = Eigen::MatrixXd::Zero(1, nv);
  Jl(0, 1) = -1;
  p.Add(std::make_unique<LimitConstraint>(lim), Jl);
  Eigen::MatrixXd Jw = Eigen::MatrixXd::Zero(2, nv);
  Jw(0, 2) = 1;
  Jw(1, 3) = 1;
  Jw(1, 4) = -1;
  p.Add(std::make_unique<HolonomicConstraint>(1e-2, 1.0, std::vector<HolonomicRow>{{1e-3, 0, 0, 1}, {0, 0, 0, 1}}), Jw);
  return p;
}

TEST(SapSolver, ConvergesWithMonotoneCostOnRandomProblems) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const SapProblem p = RandomProblem(rng, 12, 8);
    const SapResult r = SolveSap(p, SapSolverParams{});
    ASSERT_TRUE(r.converged) << "trial " << trial << " residual " << r.residual << " bound " << r.residual_bound;
    EXPECT_GT(r.iterations, 0);
    for (std::size_t k = 1; k < r.cost_history.size(); ++k)
      EXPECT_LE(r.cost_history[k], r.cost_history[k - 1] + 1e-12 * std::abs(r.cost_history[k - 1]))
          << "trial " << trial << " iteration " << k;
    // Optimality: A(v − v*) = Σ Jᵀγ.
    Eigen::VectorXd grad;
    EvaluateSapCost(p, r.v, &grad);
    Eigen::VectorXd jc = Eigen::VectorXd::Zero(p.v_star.size());
    for (std::size_t i = 0; i < p.constraints.size(); ++i) jc += p.constraints[i].J.transpose() * r.gamma[i];
    EXPECT_LT(grad.norm(), 1e-5 * (p.A * r.v).norm() + 1e-10);
  }
}

// From 256 dofs the Newton step is LAPACK's Cholesky (the strong coupling's reduced problems): the same convergence,
// monotone cost and optimality on a problem of 300 dofs.
TEST(SapSolver, LargeProblemsConvergeThroughLapack) {
  std::mt19937 rng(5);
  const SapProblem p = RandomProblem(rng, 300, 40);
  const SapResult r = SolveSap(p, SapSolverParams{});
  ASSERT_TRUE(r.converged) << "residual " << r.residual << " bound " << r.residual_bound;
  EXPECT_GT(r.iterations, 0);
  for (std::size_t k = 1; k < r.cost_history.size(); ++k)
    EXPECT_LE(r.cost_history[k], r.cost_history[k - 1] + 1e-12 * std::abs(r.cost_history[k - 1]));
  Eigen::VectorXd grad;
  EvaluateSapCost(p, r.v, &grad);
  EXPECT_LT(grad.norm(), 1e-5 * (p.A * r.v).norm() + 1e-10);
}

TEST(SapSolver, ImplicitPdOnAPointMassMatchesTheClosedForm) {
  // m v⁺ = m v* + γ, γ = −Δt(Δt K_p + K_d) v⁺ + Δt(−K_p(q₀ − q_d)): v⁺ solves a linear equation.
  const double m = 2, dt = 0.01, kp = 1e6, kd = 1e3, q0 = 0, qd = 0.1, v_star = 0.5;
  SapProblem p;
  p.A = Eigen::MatrixXd::Constant(1, 1, m);
  p.v_star = Eigen::VectorXd::Constant(1, v_star);
  PdControllerParams pd;
  pd.dt = dt;
  pd.kp = kp;
  pd.kd = kd;
  pd.q0 = q0;
  pd.q_target = qd;
  p.Add(std::make_unique<PdController>(pd), Eigen::MatrixXd::Identity(1, 1));
  const SapResult r = SolveSap(p, SapSolverParams{});
  const double expected = (m * v_star - dt * kp * (q0 - qd)) / (m + dt * (dt * kp + kd));
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.v[0], expected, 1e-9 * std::abs(expected));
}

// Constraints that act on a few dofs (SapProblem::Entry::cols, as the strong coupling's particle contacts keep their
// body's and 27 grid nodes' columns) solve exactly like the same constraints given full Jacobians with zeros
// elsewhere: the same iterates, so the same velocities and impulses to round-off.
TEST(SapSolver, ConstraintsOnAColumnSubsetSolveLikeTheirFullJacobians) {
  constexpr int nv = 14;
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0, 1);
  SapProblem full, subset;
  Eigen::MatrixXd B(nv, nv);
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; ++j) B(i, j) = n(rng);
  full.A = subset.A = B * B.transpose() + nv * Eigen::MatrixXd::Identity(nv, nv);
  full.v_star = subset.v_star = Eigen::VectorXd::NullaryExpr(nv, [&] { return n(rng); });
  for (int c = 0; c < 6; ++c) {
    const FrictionConeParams cone = PenetratingCone(-1e-3 * std::abs(n(rng)), 0.2);
    std::vector<int> cols;  // five distinct columns, in a shuffled order
    for (int k = 0; k < nv; ++k) cols.push_back(k);
    std::shuffle(cols.begin(), cols.end(), rng);
    cols.resize(5);
    Eigen::MatrixXd J_local(3, 5), J_full = Eigen::MatrixXd::Zero(3, nv);
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 5; ++k) J_full(r, cols[static_cast<std::size_t>(k)]) = J_local(r, k) = n(rng);
    const Eigen::Vector3d b(n(rng), n(rng), n(rng));
    full.Add(std::make_unique<FrictionConeContact>(cone), J_full, b);
    subset.Add(std::make_unique<FrictionConeContact>(cone), J_local, b, cols);
  }
  const SapResult a = SolveSap(full, SapSolverParams{}), c = SolveSap(subset, SapSolverParams{});
  ASSERT_TRUE(a.converged && c.converged);
  EXPECT_EQ(a.iterations, c.iterations);
  EXPECT_LT((a.v - c.v).norm(), 1e-12 * a.v.norm());
  for (std::size_t i = 0; i < a.gamma.size(); ++i) EXPECT_LT((a.gamma[i] - c.gamma[i]).norm(), 1e-9);
}

// A large sparse A (a banded SPD matrix, like a grid's Hessian) with friction-cone constraints on a few dofs each
// and one on every dof: solved with A dense (LAPACK's Cholesky of H) and with A sparse (CHOLMOD's, the pattern
// analysed once and refactored per Newton iteration), the same iterates to round-off. The Newton system's solve
// without constraints is A⁻¹ r.
TEST(SapSolver, SparseNewtonStepsSolveLikeTheDenseOnes) {
  constexpr int nv = 400, band = 6;
  std::mt19937 rng(13);
  std::normal_distribution<double> n(0, 1);
  std::vector<Eigen::Triplet<double>> entries;
  for (int i = 0; i < nv; ++i) {
    entries.emplace_back(i, i, 4.0 * band);
    for (int j = i + 1; j < std::min(nv, i + band); ++j) {
      const double a = n(rng);
      entries.emplace_back(i, j, a);
      entries.emplace_back(j, i, a);
    }
  }
  SapProblem dense, sparse;
  sparse.A_sparse.resize(nv, nv);
  sparse.A_sparse.setFromTriplets(entries.begin(), entries.end());
  sparse.A_sparse.makeCompressed();
  dense.A = Eigen::MatrixXd(sparse.A_sparse);
  dense.v_star = sparse.v_star = Eigen::VectorXd::NullaryExpr(nv, [&] { return n(rng); });
  std::uniform_int_distribution<int> dof(0, nv - 1);
  for (int c = 0; c < 60; ++c) {
    const FrictionConeParams cone = PenetratingCone(-1e-3 * std::abs(n(rng)), 0.05);
    std::vector<int> cols;  // eight distinct dofs anywhere (pairs outside A's band extend H's pattern)
    while (cols.size() < 8) {
      const int k = dof(rng);
      if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
    }
    Eigen::MatrixXd J(3, 8);
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 8; ++k) J(r, k) = n(rng);
    const Eigen::Vector3d b(n(rng), n(rng), n(rng));
    dense.Add(std::make_unique<FrictionConeContact>(cone), J, b, cols);
    sparse.Add(std::make_unique<FrictionConeContact>(cone), J, b, cols);
  }
  PdControllerParams pd;  // on every dof (no cols): a dense row and column of H
  pd.dt = 1e-2;
  pd.kp = 1e3;
  pd.kd = 10;
  pd.q_target = 0.3;
  const Eigen::MatrixXd Jq = Eigen::MatrixXd::NullaryExpr(1, nv, [&] { return 0.1 * n(rng); });
  dense.Add(std::make_unique<PdController>(pd), Jq);
  sparse.Add(std::make_unique<PdController>(pd), Jq);
  const SapResult a = SolveSap(dense, SapSolverParams{}), c = SolveSap(sparse, SapSolverParams{});
  ASSERT_TRUE(a.converged && c.converged);
  EXPECT_GT(a.iterations, 1);
  EXPECT_EQ(a.iterations, c.iterations);
  EXPECT_LT((a.v - c.v).norm(), 1e-10 * a.v.norm());
  for (std::size_t k = 1; k < c.cost_history.size(); ++k)
    EXPECT_LE(c.cost_history[k], c.cost_history[k - 1] + 1e-12 * std::abs(c.cost_history[k - 1]));
  SparseNewtonSystem system(sparse);
  EXPECT_GT(system.pattern_nonzeros(), nv * band);  // A's lower band and the constraints' pairs
  const Eigen::VectorXd r = Eigen::VectorXd::NullaryExpr(nv, [&] { return n(rng); });
  EXPECT_LT((dense.A * system.Solve({}, r) - r).norm(), 1e-12 * r.norm());
}

}  // namespace
}  // namespace ductile::contact
