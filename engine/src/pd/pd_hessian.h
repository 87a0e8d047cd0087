// The Hessian of the projective-dynamics step energy Φ (pd/pd_solver.h) and linear solves with it, for the Newton
// iterations that finish a step and for the adjoint (pd/pd_adjoint.h):
//
//   H = M/h² + Σ_terms ω Sᵀ (I − ∂P/∂Y) S,
//
// each term's ½ dist²(Y) having the Hessian I − ∂P/∂Y (P the closest point, pd/pd_projection.h), so H is symmetric.
// It differs from the prefactorised A = M/h² + Σ ω Sᵀ S only by Σ ω Sᵀ (∂P/∂Y) S: A⁻¹ is the preconditioner of the
// conjugate gradients on H, as DiffPD reuses its factorisation in the backward pass (Du, Wu, Spielberg, Matusik,
// Rus, Matusik 2021, "DiffPD: differentiable projective dynamics", Sec. 5) and as quasi-Newton PD starts from it
// (Liu, Bouaziz, Kavan 2017, "Quasi-Newton methods for real-time simulation of hyperelastic materials", Sec. 4).
// H need not be positive definite (compressed corotated elements have negative twist curvatures), so the conjugate
// gradients report negative curvature, and the adjoint then solves with a sparse LU of the assembled H.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <array>
#include <vector>

#include "pd/pd_model.h"
#include "pd/pd_projection.h"

namespace ductile::pd {

class PdSolver;

/// The pattern of H_ff (PdHessian::AssembleFree) for a model: the matrix with an explicit zero at every entry two
/// corners of a tet couple, and where each entry's value lives, so that assembling H is adding into its values
/// (building it from triplets every Newton step took half a contact step's time, in sorting and in the page faults of
/// the triplet array). Depends on the mesh and the held vertices only: PdSolver keeps one.
struct HessianPattern {
  Eigen::SparseMatrix<double> zero;  ///< 3 n_f x 3 n_f, compressed.
  /// Per tet, for corner a's coordinate da and corner c's coordinate dc, at [12 (3a + da) + 3c + dc]: the value index
  /// of entry (3 f(c) + dc, 3 f(a) + da), or −1 where a corner is held.
  std::vector<std::array<int, 144>> tet_entries;
  std::vector<int> diagonal;  ///< Value index of entry (i, i), i < 3 n_f.

  static HessianPattern Of(const PdModel& model);
};

/// H at one configuration: the projections of every term there. Reads the solver's model and weights.
class PdHessian {
 public:
  PdHessian(const PdSolver& solver, std::vector<TermProjection> projections);

  /// H x for x on every row (n x 3); the rows of x that are not free (pinned, bones) are read as zero, and the
  /// result's rows there are the coupling H_pf x_f.
  Eigen::MatrixX3d Apply(const Eigen::MatrixX3d& x) const;
  /// H x with every row of x read, free or not (the bones' and pinned vertices' displacements too).
  Eigen::MatrixX3d ApplyAll(const Eigen::MatrixX3d& x) const;

  /// What Solve did.
  enum class Outcome { kConverged, kNegativeCurvature, kNotConverged };

  /// x_f ≈ H_ff⁻¹ b_f by conjugate gradients preconditioned with A_ff⁻¹, from x = 0, until the preconditioned
  /// residual rᵀA⁻¹r has fallen to tolerance² times its initial value or `max_iterations`. On negative curvature it
  /// stops with the last iterate (zero when it met it at once). b and x: free rows in PdModel::free_vertices order.
  Outcome Solve(const Eigen::MatrixX3d& b_free, Eigen::MatrixX3d& x_free, double tolerance, int max_iterations,
                int* iterations = nullptr) const;

  /// x_f = H_ff⁻¹ b_f by a sparse LU of the assembled H_ff (3 n_f unknowns); false when it is singular.
  bool SolveDirect(const Eigen::MatrixX3d& b_free, Eigen::MatrixX3d& x_free) const;

  /// H_ff assembled: 3 n_f x 3 n_f, the three coordinates of free vertex f at rows 3f..3f+2.
  Eigen::SparseMatrix<double> AssembleFree() const;

  const std::vector<TermProjection>& projections() const { return projections_; }
  const PdModel& model() const;

 private:
  /// Term k's corner forces ω Sᵀ(I − ∂P/∂Y)[dY] for a change dY of its Y.
  Eigen::Matrix<double, 4, 3> TermForces(std::size_t k, const Eigen::Matrix3d& dY) const;
  using Matrix9 = Eigen::Matrix<double, 9, 9>;
  const PdSolver& solver_;
  std::vector<TermProjection> projections_;
  std::vector<Matrix9> curvatures_;  ///< ω (I − ∂P/∂Y) per term on vec(dY) (pd_hessian.cpp).
};

/// A row per free vertex (n_f x 3) as one vertex-major vector (x₀, y₀, z₀, x₁, ...), AssembleFree's order, and back.
Eigen::VectorXd VertexMajor(const Eigen::MatrixX3d& rows);
Eigen::MatrixX3d FromVertexMajor(const Eigen::VectorXd& vector);

/// x = M⁻¹ b for a 3 n_f x 3 n_f sparse matrix (vertex-major, as AssembleFree) and b, x with a row per free vertex,
/// by a sparse LU; false when M is singular.
bool SolveSparse(const Eigen::SparseMatrix<double>& matrix, const Eigen::MatrixX3d& b, Eigen::MatrixX3d& x);

}  // namespace ductile::pd
