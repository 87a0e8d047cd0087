// The Newton system of the FEM–IPC step (the method: fem/ipc_system.h): H Δz = b with H the projected Hessian
// (lower triangle: the fixed pattern of inertia, elements and affine bodies plus the contact pairs' blocks) and
// b = −∇E − H_zk Δk.
//
// The first Newton iteration of every step factorises H with CHOLMOD's supernodal Cholesky (the symbolic analysis,
// a nested-dissection ordering and the supernodes, is kept while the pattern stays the same). Later iterations of the
// same step first try conjugate gradients preconditioned by that factorisation (Saad 2003, "Iterative methods for
// sparse linear systems", 2nd ed., Algorithm 9.1): H changes little from one iterate to the next (the elements'
// strains and the contacts' distances move by one Newton step), so the preconditioned spectrum is clustered near 1
// and a few iterations, each a product with H and two triangular solves, replace a factorisation. CG stops when the
// preconditioned residual rᵀP⁻¹r has fallen to η² times its initial value (η = kCgTolerance), an inexact Newton
// direction (Nocedal, Wright 2006, "Numerical optimization", 2nd ed., Sec. 7.1): any CG iterate is a descent
// direction for SPD H and P, the line search and CCD treat it as any other, and the stopping rule reads the step it
// gives. When CG has not converged within kCgMaxIterations (a new stiff contact, say), H is factorised and solved
// directly, and that factorisation preconditions the rest of the step. The factorisation never outlives its step,
// so a step depends only on the State it starts from (a restored state resumes bitwise).
#include <Eigen/SparseCore>
#include <algorithm>

#include "contact/cholmod_support.h"
#include "fem/ipc_system.h"

namespace ductile::fem {

namespace {

// Chosen on soft_cube_grasp (ductile-cli run --stats, 2026-11-28, Newton tolerance 1e-4 then): η = 1e-3, 1e-4 and
// 1e-5 gave the same fingers' force to four digits and 20.1, 20.4 and 20.7 ms a step; a cap of 10, 20 and 40
// iterations 21.8, 20.4 and 20.1 ms (a low cap falls back to factorising too often; a high one spends the iterations
// a factorisation would have saved).
constexpr double kCgTolerance = 1e-3;
constexpr int kCgMaxIterations = 20;

}  // namespace

void IpcSystem::AssembleNewtonMatrix(const Derivative& d) {
  newton_matrix_ = base_pattern_;
  std::copy(d.base_values.begin(), d.base_values.end(), newton_matrix_.valuePtr());
  if (!d.hessian.empty()) {
    Eigen::SparseMatrix<double> contact(dof_count_, dof_count_);
    contact.setFromTriplets(d.hessian.begin(), d.hessian.end());
    newton_matrix_ += contact;
  }
  newton_matrix_.makeCompressed();
}

bool IpcSystem::Factorize() {
  Eigen::SparseMatrix<double>& lower = newton_matrix_;
  const auto n = static_cast<std::size_t>(dof_count_);
  const auto nonzeros = static_cast<std::size_t>(lower.nonZeros());
  const bool same_pattern = linear_solver_ && linear_solver_->factor && pattern_outer_.size() == n + 1 &&
                            std::equal(pattern_outer_.begin(), pattern_outer_.end(), lower.outerIndexPtr()) &&
                            pattern_inner_.size() == nonzeros &&
                            std::equal(pattern_inner_.begin(), pattern_inner_.end(), lower.innerIndexPtr());
  cholmod_sparse view =
      contact::LowerTriangleView(n, nonzeros, lower.outerIndexPtr(), lower.innerIndexPtr(), lower.valuePtr());
  if (!same_pattern) {
    linear_solver_ = std::make_unique<contact::CholmodWorkspace>();
    linear_solver_->common.supernodal = CHOLMOD_SUPERNODAL;
    // CHOLMOD's nested dissection: a tenth fewer flops than its default choice (METIS) on the 1,296-tet cube's
    // matrix (1.12e7 against 1.33e7, lnz 91,518 against 97,332), about 10% off the linear solve of the close–lift.
    linear_solver_->common.nmethods = 1;
    linear_solver_->common.method[0].ordering = CHOLMOD_NESDIS;
    linear_solver_->factor = cholmod_analyze(&view, &linear_solver_->common);
    if (!linear_solver_->factor) return false;
    pattern_outer_.assign(lower.outerIndexPtr(), lower.outerIndexPtr() + n + 1);
    pattern_inner_.assign(lower.innerIndexPtr(), lower.innerIndexPtr() + nonzeros);
  }
  cholmod_common& cm = linear_solver_->common;
  return cholmod_factorize(&view, linear_solver_->factor, &cm) && cm.status != CHOLMOD_NOT_POSDEF;
}

// x = (L Lᵀ)⁻¹ b with the last factorisation.
bool IpcSystem::ApplyFactor(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  cholmod_dense rhs =
      contact::DenseColumnView(static_cast<std::size_t>(dof_count_), const_cast<double*>(b.data()));  // read only
  cholmod_dense* solution = cholmod_solve(CHOLMOD_A, linear_solver_->factor, &rhs, &linear_solver_->common);
  if (!solution) return false;
  x = Eigen::Map<const Eigen::VectorXd>(static_cast<const double*>(solution->x), dof_count_);
  cholmod_free_dense(&solution, &linear_solver_->common);
  return true;
}

// Conjugate gradients on the assembled H, preconditioned by the last factorisation (the top of this file); false
// when it has not converged within kCgMaxIterations or met a direction of non-positive curvature.
bool IpcSystem::PreconditionedCg(const Eigen::VectorXd& b, Eigen::VectorXd& x, IpcStepReport& report) const {
  x = Eigen::VectorXd::Zero(dof_count_);
  Eigen::VectorXd r = b, z, Ap;
  if (!ApplyFactor(r, z)) return false;
  double rz = r.dot(z);
  if (!(rz > 0)) return rz == 0;  // b = 0: Δz = 0
  const double stop = kCgTolerance * kCgTolerance * rz;
  Eigen::VectorXd p = z;
  const auto H = newton_matrix_.selfadjointView<Eigen::Lower>();
  for (int k = 0; k < kCgMaxIterations; ++k) {
    Ap.noalias() = H * p;
    const double curvature = p.dot(Ap);
    if (!(curvature > 0)) return false;
    const double alpha = rz / curvature;
    x += alpha * p;
    r -= alpha * Ap;
    ++report.cg_iterations;
    if (!ApplyFactor(r, z)) return false;
    const double rz_next = r.dot(z);
    if (rz_next <= stop) return x.allFinite();
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
  return false;
}

bool IpcSystem::SolveNewtonSystem(const Derivative& d, Eigen::VectorXd& step, IpcStepReport& report) {
  AssembleNewtonMatrix(d);
  const Eigen::VectorXd rhs = d.prescribed - d.gradient;
  // A factorisation made in this step (report.factorizations counts them) preconditions CG; the first solve of a
  // step makes one.
  if (report.factorizations > 0 && PreconditionedCg(rhs, step, report)) return true;
  if (!Factorize()) return false;
  ++report.factorizations;
  return ApplyFactor(rhs, step) && step.allFinite();
}

}  // namespace ductile::fem
