// SchurComplement (schur_complement.h, whose comment has the equations).
#include "contact/schur_complement.h"

#include <stdexcept>

namespace ductile::contact {

void SchurComplement::Compute(const Eigen::SparseMatrix<double>& A, const std::vector<int>& kept) {
  size_ = A.rows();
  kept_ = kept;
  // Each dof's place among the kept (≥ 0) or the others (−1 − place).
  std::vector<int> place(static_cast<std::size_t>(size_), 0);
  for (std::size_t k = 0; k < kept.size(); ++k) place[kept[k]] = static_cast<int>(k);
  std::vector<bool> is_kept(static_cast<std::size_t>(size_), false);
  for (const int k : kept) is_kept[k] = true;
  other_.clear();
  for (int i = 0; i < size_; ++i)
    if (!is_kept[i]) {
      place[i] = -1 - static_cast<int>(other_.size());
      other_.push_back(i);
    }
  const auto nc = static_cast<Eigen::Index>(kept.size()), nn = static_cast<Eigen::Index>(other_.size());
  std::vector<Eigen::Triplet<double>> nn_entries, nc_entries;
  S_ = Eigen::MatrixXd::Zero(nc, nc);
  for (int col = 0; col < A.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it) {
      const int r = place[it.row()], c = place[it.col()];
      if (r >= 0 && c >= 0)
        S_(r, c) += it.value();  // A_cc
      else if (r < 0 && c < 0)
        nn_entries.emplace_back(-1 - r, -1 - c, it.value());
      else if (r < 0)
        nc_entries.emplace_back(-1 - r, c, it.value());
    }
  Eigen::SparseMatrix<double> A_nn(nn, nn);
  A_nn.setFromTriplets(nn_entries.begin(), nn_entries.end());
  A_nc_.resize(nn, nc);
  A_nc_.setFromTriplets(nc_entries.begin(), nc_entries.end());
  if (nn > 0) {
    A_nn_.compute(A_nn);
    if (A_nn_.info() != Eigen::Success || (A_nn_.vectorD().array() <= 0).any())
      throw std::runtime_error("Schur complement: the eliminated block is not positive definite");
    const Eigen::MatrixXd Y = A_nn_.solve(Eigen::MatrixXd(A_nc_));  // A_nn⁻¹ A_nc
    S_ -= A_nc_.transpose() * Y;
  }
}

Eigen::VectorXd SchurComplement::ReducedRhs(const Eigen::VectorXd& b) const {
  Eigen::VectorXd bc(static_cast<Eigen::Index>(kept_.size()));
  for (std::size_t k = 0; k < kept_.size(); ++k) bc[static_cast<Eigen::Index>(k)] = b[kept_[k]];
  if (other_.empty()) return bc;
  Eigen::VectorXd bn(static_cast<Eigen::Index>(other_.size()));
  for (std::size_t k = 0; k < other_.size(); ++k) bn[static_cast<Eigen::Index>(k)] = b[other_[k]];
  return bc - A_nc_.transpose() * A_nn_.solve(bn);
}

Eigen::VectorXd SchurComplement::BackSubstitute(const Eigen::VectorXd& b, const Eigen::VectorXd& x_c) const {
  Eigen::VectorXd x(size_);
  for (std::size_t k = 0; k < kept_.size(); ++k) x[kept_[k]] = x_c[static_cast<Eigen::Index>(k)];
  if (other_.empty()) return x;
  Eigen::VectorXd bn(static_cast<Eigen::Index>(other_.size()));
  for (std::size_t k = 0; k < other_.size(); ++k) bn[static_cast<Eigen::Index>(k)] = b[other_[k]];
  const Eigen::VectorXd xn = A_nn_.solve(bn - A_nc_ * x_c);
  for (std::size_t k = 0; k < other_.size(); ++k) x[other_[k]] = xn[static_cast<Eigen::Index>(k)];
  return x;
}

}  // namespace ductile::contact
