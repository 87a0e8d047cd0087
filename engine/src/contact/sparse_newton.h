// SAP's Newton system H = A + Σᵢ Jᵢᵀ Gᵢ Jᵢ (Castro, Permenter, Han 2022, Sec. VI) for a problem whose A is sparse and
// whose constraints each touch a few of its dofs: the strong coupling's joint problem over the rigid dofs and every
// grid dof (Zong, Jiang, Han 2024, Sec. V, without the Schur reduction; coupling/strong_coupling.h). H's sparsity
// pattern is A's and the constraints' dof pairs, fixed for the solve: it is analysed once (CHOLMOD's fill-reducing
// ordering and symbolic factorisation) and each Newton iteration refactors only its values, scattered through a table
// of positions built with the pattern.
//
// Why not the Schur complement here: the reduced matrix S is dense over the dofs that contacts touch, and a body
// resting on a table or a wall keeps thousands of them (dough rolling: about 2,500, a 5 GFlop dense factorisation per
// Newton iteration), while the sparse H of all the grid's dofs fills in far less under nested dissection.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <vector>

#include "contact/sap_solver.h"

namespace ductile::contact {

struct CholmodWorkspace;

class SparseNewtonSystem {
 public:
  /// Builds H's pattern from problem.A_sparse and the constraints' dofs and analyses it. The problem must outlive
  /// this object. Throws std::runtime_error when CHOLMOD's analysis fails.
  explicit SparseNewtonSystem(const SapProblem& problem);
  ~SparseNewtonSystem();
  SparseNewtonSystem(const SparseNewtonSystem&) = delete;
  SparseNewtonSystem& operator=(const SparseNewtonSystem&) = delete;

  /// Solves (A + Σᵢ Jᵢᵀ Gᵢ Jᵢ) x = r, Gᵢ the constraints' Hessians in order (G empty: A x = r, the free motion).
  /// Throws std::runtime_error when H is not positive definite.
  Eigen::VectorXd Solve(const std::vector<Eigen::MatrixXd>& G, const Eigen::VectorXd& r);

  /// Nonzeros of H's lower triangle, and of its Cholesky factor after the first Solve (for reports and tests).
  Eigen::Index pattern_nonzeros() const { return static_cast<Eigen::Index>(inner_.size()); }
  double factor_nonzeros() const;

 private:
  const SapProblem& problem_;
  std::vector<int> outer_, inner_;  // H's lower triangle, compressed by column, rows sorted
  std::vector<double> values_;
  std::vector<int> a_position_;               // where each lower entry of A (in A's storage order) goes in H
  std::vector<std::vector<int>> c_position_;  // per constraint: the pair (a, b ≤ a) of its columns, at a(a+1)/2 + b
  std::unique_ptr<CholmodWorkspace> cholmod_;
};

}  // namespace ductile::contact
