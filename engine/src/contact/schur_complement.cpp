// SchurComplement (schur_complement.h, whose comment has the equations), on CHOLMOD's supernodal Cholesky.
#include "contact/schur_complement.h"

#include "contact/cholmod_support.h"

#include <memory>
#include <stdexcept>
#include <string>

// BLAS's symmetric rank-k update (OpenBLAS by Debian's alternatives): S = L_cc L_ccᵀ in half a product's flops.
extern "C" void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha,
                       const double* a, const int* lda, const double* beta, double* c, const int* ldc);

namespace ductile::contact {
namespace {

// A's lower triangle as CHOLMOD reads it (no copy; A compressed and alive while it is used).
cholmod_sparse LowerView(Eigen::SparseMatrix<double>& A) {
  A.makeCompressed();
  return LowerTriangleView(static_cast<std::size_t>(A.rows()), static_cast<std::size_t>(A.nonZeros()),
                           A.outerIndexPtr(), A.innerIndexPtr(), A.valuePtr());
}

// The elimination order, order[position] = dof: the others by METIS nested dissection of A_nn (3-D grids fill in far
// less than under minimum degree), then the kept dofs in the caller's order, so that S comes out in it.
std::vector<int> EliminationOrder(const Eigen::SparseMatrix<double>& A, const std::vector<int>& kept,
                                  cholmod_common& common) {
  const auto n = static_cast<std::size_t>(A.rows());
  const auto nc = static_cast<Eigen::Index>(kept.size());
  const Eigen::Index nn = A.rows() - nc;
  std::vector<int> others, place(n, -1);
  std::vector<bool> is_kept(n, false);
  for (const int k : kept) is_kept[static_cast<std::size_t>(k)] = true;
  for (std::size_t i = 0; i < n; ++i)
    if (!is_kept[i]) {
      place[i] = static_cast<int>(others.size());
      others.push_back(static_cast<int>(i));
    }
  std::vector<int> order(n, 0);
  if (nn > 0) {
    std::vector<Eigen::Triplet<double>> entries;
    for (int col = 0; col < A.outerSize(); ++col)
      for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it) {
        const int r = place[static_cast<std::size_t>(it.row())], c = place[static_cast<std::size_t>(it.col())];
        if (r >= c && c >= 0) entries.emplace_back(r, c, it.value());
      }
    Eigen::SparseMatrix<double> A_nn(nn, nn);
    A_nn.setFromTriplets(entries.begin(), entries.end());
    cholmod_sparse nn_view = LowerView(A_nn);
    std::vector<int> nn_order(static_cast<std::size_t>(nn));
    if (!cholmod_metis(&nn_view, nullptr, 0, 1, nn_order.data(), &common))
      throw std::runtime_error("Schur complement: METIS ordering failed");
    for (Eigen::Index k = 0; k < nn; ++k)
      order[static_cast<std::size_t>(k)] = others[static_cast<std::size_t>(nn_order[static_cast<std::size_t>(k)])];
  }
  for (Eigen::Index k = 0; k < nc; ++k) order[static_cast<std::size_t>(nn + k)] = kept[static_cast<std::size_t>(k)];
  return order;
}

}  // namespace

void SchurComplement::Compute(const Eigen::SparseMatrix<double>& A_in, const std::vector<int>& kept) {
  size_ = A_in.rows();
  kept_ = kept;
  const auto n = static_cast<std::size_t>(size_);
  const auto nc = static_cast<Eigen::Index>(kept.size());
  const Eigen::Index nn = size_ - nc;
  Eigen::SparseMatrix<double> A = A_in;
  cholmod_sparse view = LowerView(A);
  auto holder = std::make_shared<CholmodWorkspace>();
  CholmodWorkspace& cm = *holder;
  std::vector<int> order = EliminationOrder(A, kept, cm.common);  // CHOLMOD takes it as int*
  cm.common.nmethods = 1;
  cm.common.method[0].ordering = CHOLMOD_GIVEN;
  cm.common.postorder = 0;  // a postorder could move kept dofs among the others
  cm.common.supernodal = CHOLMOD_SUPERNODAL;
  cholmod_factor* factor = cholmod_analyze_p(&view, order.data(), nullptr, 0, &cm.common);
  if (!factor) throw std::runtime_error("Schur complement: symbolic analysis failed");
  const int ok = cholmod_factorize(&view, factor, &cm.common);
  if (!ok || cm.common.status == CHOLMOD_NOT_POSDEF) {
    cholmod_free_factor(&factor, &cm.common);
    throw std::runtime_error("Schur complement: the matrix is not positive definite");
  }
  const int* perm = static_cast<const int*>(factor->Perm);
  for (std::size_t k = 0; k < n; ++k)
    if (perm[k] != order[k]) {
      cholmod_free_factor(&factor, &cm.common);
      throw std::runtime_error("Schur complement: CHOLMOD did not keep the given order");
    }
  cm.sparse = cholmod_factor_to_sparse(factor, &cm.common);
  cholmod_free_factor(&factor, &cm.common);
  if (!cm.sparse) throw std::runtime_error("Schur complement: the factor could not be read");
  L_outer_ = static_cast<const int*>(cm.sparse->p);
  L_inner_ = static_cast<const int*>(cm.sparse->i);
  L_values_ = static_cast<const double*>(cm.sparse->x);
  L_nonzeros_ = static_cast<Eigen::Index>(cholmod_nnz(cm.sparse, &cm.common));
  factor_ = holder;
  other_.assign(order.begin(), order.begin() + nn);
  // L_cc from L's last nc columns (their rows are all ≥ nn: L is lower triangular).
  L_cc_ = Eigen::MatrixXd::Zero(nc, nc);
  for (Eigen::Index j = nn; j < size_; ++j)
    for (int q = L_outer_[j]; q < L_outer_[j + 1]; ++q) L_cc_(L_inner_[q] - nn, j - nn) = L_values_[q];
  S_.resize(nc, nc);
  if (nc > 0) {
    const int k = static_cast<int>(nc);
    const double one = 1, zero = 0;
    dsyrk_("L", "N", &k, &k, &one, L_cc_.data(), &k, &zero, S_.data(), &k);
    S_.triangularView<Eigen::StrictlyUpper>() = S_.transpose();
  }
  // A_nc in the others' elimination order, for the back-substitution.
  Eigen::VectorXi new_of(size_);
  for (std::size_t k = 0; k < n; ++k) new_of[order[k]] = static_cast<int>(k);
  std::vector<Eigen::Triplet<double>> nc_entries;
  for (int col = 0; col < A_in.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(A_in, col); it; ++it) {
      const int r = new_of[it.row()], c = new_of[it.col()];
      if (r < nn && c >= nn) nc_entries.emplace_back(r, c - static_cast<int>(nn), it.value());
    }
  A_nc_.resize(nn, nc);
  A_nc_.setFromTriplets(nc_entries.begin(), nc_entries.end());
}

Eigen::Map<const Eigen::SparseMatrix<double>> SchurComplement::L() const {
  return {size_, size_, L_nonzeros_, L_outer_, L_inner_, L_values_};
}

Eigen::VectorXd SchurComplement::ForwardSolve(const Eigen::VectorXd& b) const {
  const auto nn = static_cast<Eigen::Index>(other_.size()), nc = static_cast<Eigen::Index>(kept_.size());
  Eigen::VectorXd y(size_);
  for (Eigen::Index k = 0; k < nn; ++k) y[k] = b[other_[static_cast<std::size_t>(k)]];
  for (Eigen::Index k = 0; k < nc; ++k) y[nn + k] = b[kept_[static_cast<std::size_t>(k)]];
  L().triangularView<Eigen::Lower>().solveInPlace(y);
  return y;
}

Eigen::VectorXd SchurComplement::ReducedRhs(const Eigen::VectorXd& b) const {
  // With P A Pᵀ = L Lᵀ and L y = P b: S x_c = L_cc y_c.
  const auto nc = static_cast<Eigen::Index>(kept_.size());
  return L_cc_ * ForwardSolve(b).tail(nc);
}

Eigen::VectorXd SchurComplement::KeptSolution(const Eigen::VectorXd& b) const {
  // Lᵀ (P x) = y, whose last block row is L_ccᵀ x_c = y_c.
  const auto nc = static_cast<Eigen::Index>(kept_.size());
  Eigen::VectorXd x_c = ForwardSolve(b).tail(nc);
  L_cc_.transpose().triangularView<Eigen::Upper>().solveInPlace(x_c);
  return x_c;
}

Eigen::VectorXd SchurComplement::BackSubstitute(const Eigen::VectorXd& b, const Eigen::VectorXd& x_c) const {
  const auto nn = static_cast<Eigen::Index>(other_.size());
  Eigen::VectorXd x(size_);
  for (std::size_t k = 0; k < kept_.size(); ++k) x[kept_[k]] = x_c[static_cast<Eigen::Index>(k)];
  if (nn == 0) return x;
  // A_nn x_n = r_n = b_n − A_nc x_c with A_nn = L_nn L_nnᵀ, through the whole L: L z = (r_n, 0) gives
  // z_n = L_nn⁻¹ r_n (forward substitution reads only earlier rows); with z_c set to 0, Lᵀ w = (z_n, 0) gives w_c = 0
  // and L_nnᵀ w_n = z_n.
  Eigen::VectorXd z = Eigen::VectorXd::Zero(size_);
  for (Eigen::Index k = 0; k < nn; ++k) z[k] = b[other_[static_cast<std::size_t>(k)]];
  z.head(nn) -= A_nc_ * x_c;
  L().triangularView<Eigen::Lower>().solveInPlace(z);
  z.tail(size_ - nn).setZero();
  L().transpose().triangularView<Eigen::Upper>().solveInPlace(z);
  for (Eigen::Index k = 0; k < nn; ++k) x[other_[static_cast<std::size_t>(k)]] = z[k];
  return x;
}

}  // namespace ductile::contact
