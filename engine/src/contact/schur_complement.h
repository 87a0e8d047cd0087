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
// is the full problem's. A_nn is factored once by Eigen's sparse LDLᵀ (SimplicialLDLT, header-only, in Debian's
// Eigen); for the large grids of a 3-D strong step a supernodal factorisation (CHOLMOD) is the candidate once the
// step is measured.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <vector>

namespace ductile::contact {

class SchurComplement {
 public:
  /// Factors A_nn and forms S for the kept dofs `kept` (indices into A, any order, no repeats). Throws
  /// std::runtime_error when A_nn is not positive definite.
  void Compute(const Eigen::SparseMatrix<double>& A, const std::vector<int>& kept);
  /// S, in the order of `kept`.
  const Eigen::MatrixXd& S() const { return S_; }
  /// b̃ for a right-hand side b of the full problem.
  Eigen::VectorXd ReducedRhs(const Eigen::VectorXd& b) const;
  /// The full x from the kept dofs' values x_c: x_n = A_nn⁻¹ (b_n − A_nc x_c).
  Eigen::VectorXd BackSubstitute(const Eigen::VectorXd& b, const Eigen::VectorXd& x_c) const;

 private:
  std::vector<int> kept_, other_;  // dof indices of A
  Eigen::SparseMatrix<double> A_nc_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> A_nn_;
  Eigen::MatrixXd S_;
  Eigen::Index size_ = 0;
};

}  // namespace ductile::contact
