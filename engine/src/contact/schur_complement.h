// The Schur complement of a convex quadratic onto the dofs a contact cost touches (the reduction of Zong, Jiang,
// Han 2024, Sec. V, after Han, Masterjohn, Castro 2023): for
//
//   min_x ½ xᵀ A x − bᵀ x + ℓ(x_c),   A symmetric positive definite, x = (x_c, x_n), ℓ convex in the kept dofs x_c,
//
// the other dofs' optimality A_nc x_c + A_nn x_n = b_n gives x_n = A_nn⁻¹ (b_n − A_nc x_c), and the problem
// reduces to
//
//   min_{x_c} ½ x_cᵀ S x_c − b̃ᵀ x_c + ℓ(x_c),   S = A_cc − A_cn A_nn⁻¹ A_nc,   b̃ = b_c − A_cn A_nn⁻¹ b_n,
//
// S symmetric positive definite and dense (|c| x |c|, small: the contacts' nodes); its minimiser, back-substituted,
// is the full problem's.
//
// One sparse Cholesky factorisation of the whole A with the kept dofs ordered last (the others by constrained
// approximate minimum degree, CAMD) gives S without a solve per kept dof: with P A Pᵀ = L Lᵀ and L's trailing block
// L_cc,
//   S = L_cc L_ccᵀ,   b̃ = L_cc y_c where L y = P b,
// and the leading block L_nn L_nnᵀ = A_nn for the back-substitution (how multifrontal solvers form Schur
// complements), done with the whole L: L z = (r_n, 0), z_c := 0, Lᵀ w = z gives w_n = A_nn⁻¹ r_n. The factorisation is
// CHOLMOD's supernodal one (SuiteSparse, Debian's libsuitesparse-dev), whose dense supernodes run on BLAS: the Hessian
// of 3-D implicit MPM couples each node to 125 others and fills in to nearly dense fronts, where Eigen's simplicial
// LDLᵀ (tried first) made a step on the 3,972 dofs of a 5 cm ball at h = 1 cm take 9.8 s, 0.22 s with CHOLMOD (one-off
// runs of a ball scene like scenes/ball_on_slope.yaml at h = 1 cm; docs/architecture.md).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <vector>

namespace ductile::contact {

class SchurComplement {
 public:
  /// Factors A (symmetric positive definite, both triangles or the lower one) with `kept` last and forms S for the
  /// kept dofs (indices into A, any order, no repeats). Throws std::runtime_error when A is not positive definite.
  void Compute(const Eigen::SparseMatrix<double>& A, const std::vector<int>& kept);
  /// S, in the order of `kept`.
  const Eigen::MatrixXd& S() const { return S_; }
  /// b̃ for a right-hand side b of the full problem.
  Eigen::VectorXd ReducedRhs(const Eigen::VectorXd& b) const;
  /// The kept dofs of the full problem's solution A⁻¹ b, S⁻¹ b̃ = L_ccᵀ⁻¹ y_c (S's Cholesky factor is L_cc: no
  /// factorisation of S).
  Eigen::VectorXd KeptSolution(const Eigen::VectorXd& b) const;
  /// The full x from the kept dofs' values x_c: x_n = A_nn⁻¹ (b_n − A_nc x_c).
  Eigen::VectorXd BackSubstitute(const Eigen::VectorXd& b, const Eigen::VectorXd& x_c) const;

 private:
  // The Cholesky factor L of P A Pᵀ (others first, then kept), where CHOLMOD left it (no copy).
  Eigen::Map<const Eigen::SparseMatrix<double>> L() const;
  // y = L⁻¹ P b.
  Eigen::VectorXd ForwardSolve(const Eigen::VectorXd& b) const;

  std::vector<int> kept_, other_;  // dof indices of A; `other_` in elimination order
  Eigen::SparseMatrix<double> A_nc_;
  std::shared_ptr<void> factor_;  // CHOLMOD's workspace and L (freed with it)
  const int* L_outer_ = nullptr;
  const int* L_inner_ = nullptr;
  const double* L_values_ = nullptr;
  Eigen::Index L_nonzeros_ = 0;
  Eigen::MatrixXd L_cc_;  // L's trailing block, dense
  Eigen::MatrixXd S_;
  Eigen::Index size_ = 0;
};

}  // namespace ductile::contact
