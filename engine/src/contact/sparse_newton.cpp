// SparseNewtonSystem (sparse_newton.h, whose comment says what and why), on CHOLMOD's supernodal Cholesky.
#include "contact/sparse_newton.h"

#include "contact/cholmod_support.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ductile::contact {

namespace {

// The dofs a constraint's Jacobian columns act on (all nv when it names none).
std::vector<int> DofsOf(const SapProblem::Entry& c, int nv) {
  if (!c.cols.empty()) return c.cols;
  std::vector<int> all(static_cast<std::size_t>(nv));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// Whether the sorted rows [first, last) hold `row`, and where.
int Find(const int* first, const int* last, int row) {
  const int* at = std::lower_bound(first, last, row);
  return at != last && *at == row ? static_cast<int>(at - first) : -1;
}

}  // namespace

SparseNewtonSystem::SparseNewtonSystem(const SapProblem& problem)
    : problem_(problem), cholmod_(std::make_unique<CholmodWorkspace>()) {
  const Eigen::SparseMatrix<double>& A = problem.A_sparse;
  if (!A.isCompressed()) throw std::invalid_argument("SparseNewtonSystem: A must be compressed");
  const auto nv = static_cast<int>(A.rows());
  const int* a_outer = A.outerIndexPtr();
  const int* a_inner = A.innerIndexPtr();
  // The constraints' dof pairs that A's pattern lacks (rigid dofs against grid dofs, say), per column.
  std::vector<std::vector<int>> extra(static_cast<std::size_t>(nv));
  std::vector<std::vector<int>> dofs(problem.constraints.size());
  for (std::size_t i = 0; i < problem.constraints.size(); ++i) {
    dofs[i] = DofsOf(problem.constraints[i], nv);
    const std::vector<int>& d = dofs[i];
    for (std::size_t a = 0; a < d.size(); ++a)
      for (std::size_t b = 0; b <= a; ++b) {
        const int row = std::max(d[a], d[b]), col = std::min(d[a], d[b]);
        if (Find(a_inner + a_outer[col], a_inner + a_outer[col + 1], row) < 0)
          extra[static_cast<std::size_t>(col)].push_back(row);
      }
  }
  // H's lower pattern: per column, A's rows at or below the diagonal merged with the extra ones.
  outer_.assign(static_cast<std::size_t>(nv) + 1, 0);
  a_position_.assign(static_cast<std::size_t>(A.nonZeros()), -1);
  for (int col = 0; col < nv; ++col) {
    std::vector<int>& more = extra[static_cast<std::size_t>(col)];
    std::sort(more.begin(), more.end());
    more.erase(std::unique(more.begin(), more.end()), more.end());
    std::size_t m = 0;
    for (int q = a_outer[col]; q < a_outer[col + 1]; ++q) {
      const int row = a_inner[q];
      if (row < col) continue;
      while (m < more.size() && more[m] < row) inner_.push_back(more[m++]);
      a_position_[static_cast<std::size_t>(q)] = static_cast<int>(inner_.size());
      inner_.push_back(row);
    }
    while (m < more.size()) inner_.push_back(more[m++]);
    outer_[static_cast<std::size_t>(col) + 1] = static_cast<int>(inner_.size());
  }
  values_.assign(inner_.size(), 0.0);
  // Each constraint's pairs, where they go.
  c_position_.resize(problem.constraints.size());
  for (std::size_t i = 0; i < problem.constraints.size(); ++i) {
    const std::vector<int>& d = dofs[i];
    std::vector<int>& where = c_position_[i];
    where.resize(d.size() * (d.size() + 1) / 2);
    for (std::size_t a = 0; a < d.size(); ++a)
      for (std::size_t b = 0; b <= a; ++b) {
        const int row = std::max(d[a], d[b]), col = std::min(d[a], d[b]);
        const int* first = inner_.data() + outer_[static_cast<std::size_t>(col)];
        const int* last = inner_.data() + outer_[static_cast<std::size_t>(col) + 1];
        where[a * (a + 1) / 2 + b] = outer_[static_cast<std::size_t>(col)] + Find(first, last, row);
      }
  }
  // The symbolic factorisation, once: CHOLMOD's default orderings (AMD, and METIS when AMD fills in much), kept
  // supernodal so that the dense fronts run on BLAS.
  cholmod_common& cm = cholmod_->common;
  cm.supernodal = CHOLMOD_SUPERNODAL;
  cholmod_sparse view =
      LowerTriangleView(outer_.size() - 1, inner_.size(), outer_.data(), inner_.data(), values_.data());
  cholmod_->factor = cholmod_analyze(&view, &cm);
  if (!cholmod_->factor) throw std::runtime_error("SAP: the sparse Newton system's analysis failed (CHOLMOD)");
}

SparseNewtonSystem::~SparseNewtonSystem() = default;

double SparseNewtonSystem::factor_nonzeros() const {
  return cholmod_->common.lnz;
}

Eigen::VectorXd SparseNewtonSystem::Solve(const std::vector<Eigen::MatrixXd>& G, const Eigen::VectorXd& r) {
  // H's values: A's, then each constraint's Jᵀ G J.
  std::fill(values_.begin(), values_.end(), 0.0);
  const Eigen::SparseMatrix<double>& A = problem_.A_sparse;
  const double* a_values = A.valuePtr();
  for (std::size_t q = 0; q < a_position_.size(); ++q)
    if (a_position_[q] >= 0) values_[static_cast<std::size_t>(a_position_[q])] += a_values[q];
  Eigen::MatrixXd local;
  for (std::size_t i = 0; i < G.size(); ++i) {
    const Eigen::MatrixXd& J = problem_.constraints[i].J;
    local.noalias() = J.transpose() * G[i] * J;
    const std::vector<int>& where = c_position_[i];
    const auto k = static_cast<std::size_t>(local.rows());
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = 0; b <= a; ++b)
        values_[static_cast<std::size_t>(where[a * (a + 1) / 2 + b])] +=
            local(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
  }
  cholmod_common& cm = cholmod_->common;
  cholmod_sparse view =
      LowerTriangleView(outer_.size() - 1, inner_.size(), outer_.data(), inner_.data(), values_.data());
  if (!cholmod_factorize(&view, cholmod_->factor, &cm) || cm.status == CHOLMOD_NOT_POSDEF)
    throw std::runtime_error("SAP: the Newton Hessian is not positive definite (CHOLMOD)");
  Eigen::VectorXd rhs = r;
  cholmod_dense b = DenseColumnView(static_cast<std::size_t>(rhs.size()), rhs.data());
  cholmod_dense* x = cholmod_solve(CHOLMOD_A, cholmod_->factor, &b, &cm);
  if (!x) throw std::runtime_error("SAP: the sparse Newton solve failed (CHOLMOD)");
  Eigen::VectorXd out = Eigen::Map<const Eigen::VectorXd>(static_cast<const double*>(x->x), rhs.size());
  cholmod_free_dense(&x, &cm);
  return out;
}

}  // namespace ductile::contact
