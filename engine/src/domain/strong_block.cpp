// SolveFreeMotion (strong_block.h).
#include "domain/strong_block.h"

#include <Eigen/SparseCholesky>
#include <stdexcept>

namespace ductile {

Eigen::VectorXd SolveFreeMotion(const StrongBlock& block) {
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(block.A);
  if (ldlt.info() != Eigen::Success) throw std::runtime_error("a domain's free-motion matrix is not positive definite");
  return ldlt.solve(block.b);
}

}  // namespace ductile
