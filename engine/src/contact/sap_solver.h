// The SAP solver (Castro, Permenter, Han 2022, Sec. VI): minimise the convex, unconstrained cost
//   ℓ(v) = ½(v − v*)ᵀA(v − v*) + Σᵢ ℓᵢ(Jᵢv + bᵢ)
// over generalized velocities v by Newton's method: gradient ∇ℓ = A(v − v*) − Jᵀγ, Hessian H = A + JᵀGJ
// (dense Cholesky: rigid systems here have tens of dofs; a sparse one, contact/sparse_newton.h, for a problem given a
// sparse A, the strong coupling's over every grid dof), then an exact line search α* = argmin ℓ(v + αΔv) on
// [0, α_max] by 1-D Newton on dℓ/dα with a bisection fallback, shared with the MPM contact solve
// (contact/exact_line_search.h).
// Stopping (Sec. VI-D): ‖D∇ℓ‖ < ε_a + ε_r·max(‖Dp‖, ‖Dj_c‖), D = diag(A)^(−1/2), p = Av, j_c = Jᵀγ; or, after a
// step with α > ½, a cost change |Δℓ| < ε_cost·ℓ. Newton on a convex C¹ cost with exact line search decreases ℓ
// monotonically; the solver records the cost of every iterate so tests can check it.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <vector>

#include "contact/sap_constraint.h"

namespace ductile::contact {

/// The problem data of one step; const during the solve.
struct SapProblem {
  Eigen::MatrixXd A;  ///< nv × nv, symmetric positive definite (M + Δt·D); unused when A_sparse has rows.
  /// A as a compressed sparse matrix, both triangles stored, for a large sparse A whose constraints each touch a few
  /// of its dofs (give them `cols`): the Newton steps then factor H sparsely. Empty: A is the dense one.
  Eigen::SparseMatrix<double> A_sparse;
  Eigen::VectorXd v_star;  ///< Free-motion velocities.
  struct Entry {
    std::unique_ptr<SapConstraint> constraint;
    Eigen::MatrixXd J;  ///< num_rows × nv, or num_rows × cols.size() when `cols` is not empty.
    Eigen::VectorXd b;  ///< num_rows: velocity bias from prescribed motion.
    /// The dofs J's columns act on, in order; empty: all nv. A constraint on a few of many dofs (a particle
    /// contact of the strong coupling touches its body's and 27 grid nodes' dofs) keeps only those columns.
    std::vector<int> cols;
  };
  std::vector<Entry> constraints;
  /// Adds a constraint with its Jacobian and bias (b empty means zero) on the dofs `cols` (empty: all).
  void Add(std::unique_ptr<SapConstraint> c, Eigen::MatrixXd J, Eigen::VectorXd b = {}, std::vector<int> cols = {});
};

struct SapSolverParams {
  double abs_tolerance = 1e-14;   ///< ε_a.
  double rel_tolerance = 1e-6;    ///< ε_r.
  double cost_tolerance = 1e-15;  ///< ε_cost.
  int max_iterations = 100;
  double alpha_max = 1.5;  ///< Largest line-search step.
  int max_line_search_iterations = 100;
  /// The line search's minimiser to this relative slope |ℓ'(α)|/|ℓ'(0)| (contact/exact_line_search.h).
  double line_search_tolerance = 1e-10;
};

struct SapResult {
  Eigen::VectorXd v;                   ///< The minimiser.
  std::vector<Eigen::VectorXd> gamma;  ///< Impulse of every constraint at v.
  int iterations = 0;                  ///< Newton iterations taken.
  bool converged = false;
  double residual = 0;               ///< ‖D∇ℓ‖ at the last iterate.
  double residual_bound = 0;         ///< ε_a + ε_r·max(‖Dp‖, ‖Dj_c‖) there.
  std::vector<double> cost_history;  ///< ℓ of every iterate, the initial guess first.
  int line_search_iterations = 0;    ///< Summed over the solve.
};

class SparseNewtonSystem;

/// Solves the problem from the initial guess v0 (v* when empty). For a sparse A, `newton` is the problem's Newton
/// system when the caller made it already (to solve for v* with its factorisation); null: the solver makes one.
SapResult SolveSap(const SapProblem& problem, const SapSolverParams& params, const Eigen::VectorXd& v0 = {},
                   SparseNewtonSystem* newton = nullptr);

/// The total cost ℓ(v) and its gradient, for tests.
double EvaluateSapCost(const SapProblem& problem, const Eigen::VectorXd& v, Eigen::VectorXd* gradient = nullptr);

}  // namespace ductile::contact
