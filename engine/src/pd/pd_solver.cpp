// The projective-dynamics step: assembly of A, the local/global iteration and its stopping rule (pd/pd_solver.h).
#include "pd/pd_solver.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "contact/cholmod_support.h"
#include "pd/pd_hessian.h"

namespace ductile::pd {

namespace {

/// Conjugate-gradient iterations per Newton step; a direction from fewer is still a descent direction.
constexpr int kNewtonCgIterations = 100;

}  // namespace

Eigen::MatrixX3d PdSolver::FreeRows(const Eigen::MatrixX3d& x) const {
  Eigen::MatrixX3d free(static_cast<Eigen::Index>(model_.free_vertices.size()), 3);
  for (std::size_t f = 0; f < model_.free_vertices.size(); ++f)
    free.row(static_cast<Eigen::Index>(f)) = x.row(model_.free_vertices[f]);
  return free;
}

struct PdSolver::Factorisation {
  contact::CholmodWorkspace cholmod;
};

PdSolver::PdSolver(PdModel model) : model_(std::move(model)) {
  contact::UseSingleThreadedBlas();
  Assemble();
}

PdSolver::~PdSolver() = default;

void PdSolver::Assemble() {
  const int n = model_.vertex_count();
  const double h = model_.dt;
  weights_.clear();
  std::vector<Eigen::Triplet<double>> triplets;
  for (int i = 0; i < n; ++i) triplets.emplace_back(i, i, model_.masses[static_cast<std::size_t>(i)] / (h * h));
  for (const Term& term : model_.terms) {
    const double w = TermWeight(model_, term);
    weights_.push_back(w);
    // L += ω S Sᵀ over the tet's corners.
    Eigen::Matrix4d block;
    if (term.kind == TermKind::kMuscle) {
      block = w * term.fibre * term.fibre.transpose();
    } else {
      const ShapeGradients& g = model_.gradients[static_cast<std::size_t>(term.tet)];
      block = w * g * g.transpose();
    }
    const auto& tet = model_.tets[static_cast<std::size_t>(term.tet)];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        triplets.emplace_back(tet[static_cast<std::size_t>(a)], tet[static_cast<std::size_t>(b)], block(a, b));
  }
  A_.resize(n, n);
  A_.setFromTriplets(triplets.begin(), triplets.end());
  const auto free_count = static_cast<int>(model_.free_vertices.size());
  const auto pinned_count = static_cast<int>(model_.pinned.size());
  std::vector<Eigen::Triplet<double>> ff, fp;
  for (int col = 0; col < n; ++col) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(A_, col); it; ++it) {
      const int row_free = model_.free_index[static_cast<std::size_t>(it.row())];
      if (row_free < 0) continue;
      const int col_free = model_.free_index[static_cast<std::size_t>(col)];
      if (col_free >= 0) {
        if (row_free >= col_free) ff.emplace_back(row_free, col_free, it.value());
      } else {
        const auto pinned_col =
            std::lower_bound(model_.pinned.begin(), model_.pinned.end(), col) - model_.pinned.begin();
        fp.emplace_back(row_free, static_cast<int>(pinned_col), it.value());
      }
    }
  }
  A_ff_.resize(free_count, free_count);
  A_ff_.setFromTriplets(ff.begin(), ff.end());
  A_fp_.resize(free_count, pinned_count);
  A_fp_.setFromTriplets(fp.begin(), fp.end());
  A_ff_.makeCompressed();
  cholmod_sparse view =
      contact::LowerTriangleView(static_cast<std::size_t>(free_count), static_cast<std::size_t>(A_ff_.nonZeros()),
                                 A_ff_.outerIndexPtr(), A_ff_.innerIndexPtr(), A_ff_.valuePtr());
  if (!factor_) {
    // The pattern of A depends only on the mesh and the pinned set: analysed once (CHOLMOD's default ordering),
    // refactorised numerically when the materials change.
    factor_ = std::make_unique<Factorisation>();
    factor_->cholmod.common.supernodal = CHOLMOD_SUPERNODAL;
    factor_->cholmod.factor = cholmod_analyze(&view, &factor_->cholmod.common);
  }
  cholmod_common& cm = factor_->cholmod.common;
  const bool ok = factor_->cholmod.factor && cholmod_factorize(&view, factor_->cholmod.factor, &cm) &&
                  cm.status != CHOLMOD_NOT_POSDEF;
  error_ = ok ? "" : "the global matrix could not be factorised";
}

bool PdSolver::SetMaterials(const std::vector<double>& youngs_modulus, const std::vector<double>& poisson_ratio) {
  const auto tets = static_cast<std::size_t>(model_.tet_count());
  if (youngs_modulus.size() != tets || poisson_ratio.size() != tets) {
    error_ = "materials: one Young's modulus and one Poisson's ratio per tet";
    return false;
  }
  for (std::size_t t = 0; t < tets; ++t) {
    if (!(youngs_modulus[t] > 0 && std::isfinite(youngs_modulus[t]) && poisson_ratio[t] >= 0 &&
          poisson_ratio[t] < 0.5)) {
      error_ = "materials: tet " + std::to_string(t) + " needs E > 0 and 0 ≤ ν < 0.5";
      return false;
    }
  }
  model_.youngs_modulus = youngs_modulus;
  model_.poisson_ratio = poisson_ratio;
  Assemble();
  return error_.empty();
}

Eigen::MatrixX3d PdSolver::InertialTarget(const PdState& in) const {
  const double h = model_.dt;
  Eigen::MatrixX3d s = in.q + h * in.v;
  s.rowwise() += (h * h) * model_.gravity.transpose();
  return s;
}

std::vector<TermProjection> PdSolver::Projections(const Eigen::MatrixX3d& q, const PdControls& controls) const {
  std::vector<TermProjection> projections(model_.terms.size());
  tbb::parallel_for(std::size_t{0}, projections.size(), [&](std::size_t i) {
    const Term& term = model_.terms[i];
    projections[i] = Project(term.kind, TermY(model_, term, q), TermTarget(model_, term, controls));
  });
  return projections;
}

Eigen::MatrixX3d PdSolver::RightHandSide(const Eigen::MatrixX3d& s,
                                         const std::vector<TermProjection>& projections) const {
  const double h = model_.dt;
  Eigen::MatrixX3d b(s.rows(), 3);
  for (Eigen::Index i = 0; i < s.rows(); ++i)
    b.row(i) = (model_.masses[static_cast<std::size_t>(i)] / (h * h)) * s.row(i);
  for (std::size_t i = 0; i < projections.size(); ++i) {
    const Term& term = model_.terms[i];
    const Eigen::Matrix<double, 4, 3> forces = weights_[i] * StencilTranspose(model_, term, projections[i].P);
    const auto& tet = model_.tets[static_cast<std::size_t>(term.tet)];
    for (int c = 0; c < 4; ++c) b.row(tet[static_cast<std::size_t>(c)]) += forces.row(c);
  }
  return b;
}

double PdSolver::ReferenceForce() const {
  double mass = 0;
  for (const double m : model_.masses) mass += m;
  return mass * 1.0;  // m g₀, g₀ = 1 m/s² (header)
}

double PdSolver::Phi(const Eigen::MatrixX3d& s, const Eigen::MatrixX3d& q,
                     const std::vector<TermProjection>& projections) const {
  const double h = model_.dt;
  double energy = 0;
  for (const int i : model_.free_vertices)
    energy += model_.masses[static_cast<std::size_t>(i)] / (2 * h * h) * (q.row(i) - s.row(i)).squaredNorm();
  for (std::size_t i = 0; i < projections.size(); ++i)
    energy += 0.5 * weights_[i] * (projections[i].Y - projections[i].P).squaredNorm();
  return energy;
}

double PdSolver::Energy(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& q) const {
  return Phi(InertialTarget(in), q, Projections(q, controls));
}

Eigen::MatrixX3d PdSolver::Residual(const PdState& in, const PdControls& controls, const Eigen::MatrixX3d& q) const {
  return A_ * q - RightHandSide(InertialTarget(in), Projections(q, controls));
}

Eigen::MatrixX3d PdSolver::SolveFree(const Eigen::MatrixX3d& rhs_free) const {
  const auto rows = static_cast<std::size_t>(rhs_free.rows());
  cholmod_dense rhs{.nrow = rows,
                    .ncol = 3,
                    .nzmax = 3 * rows,
                    .d = rows,
                    .x = const_cast<double*>(rhs_free.data()),  // CHOLMOD only reads a right-hand side
                    .z = nullptr,
                    .xtype = CHOLMOD_REAL,
                    .dtype = CHOLMOD_DOUBLE};
  cholmod_common& cm = factor_->cholmod.common;
  cholmod_dense* solution = cholmod_solve(CHOLMOD_A, factor_->cholmod.factor, &rhs, &cm);
  Eigen::MatrixX3d x = Eigen::Map<const Eigen::MatrixX3d>(static_cast<const double*>(solution->x), rhs_free.rows(), 3);
  cholmod_free_dense(&solution, &cm);
  return x;
}

double PdSolver::NewtonStep(const Eigen::MatrixX3d& s, const PdControls& controls,
                            const std::vector<TermProjection>& projections, const Eigen::MatrixX3d& r_free,
                            double relative_residual, Eigen::MatrixX3d& q) const {
  // An inexact Newton direction (Eisenstat, Walker 1996, "Choosing the forcing terms in an inexact Newton method":
  // η = min(0.1, √‖r‖_rel) gives superlinear convergence); on negative curvature at once, the local/global step's
  // direction −A⁻¹r, a descent direction since A is positive definite.
  const PdHessian hessian(*this, projections);
  Eigen::MatrixX3d direction;
  const double eta = std::min(0.1, std::sqrt(relative_residual));
  hessian.Solve(-r_free, direction, eta, kNewtonCgIterations);
  if (!(direction.squaredNorm() > 0)) direction = -SolveFree(r_free);
  // Backtracking on Φ (Armijo's condition, Nocedal, Wright 2006, Algorithm 3.1), so Φ never rises.
  const double phi = Phi(s, q, projections);
  const double slope = r_free.cwiseProduct(direction).sum();
  Eigen::MatrixX3d trial = q;
  for (double alpha = 1.0; alpha > 1e-10; alpha *= 0.5) {
    for (std::size_t f = 0; f < model_.free_vertices.size(); ++f)
      trial.row(model_.free_vertices[f]) =
          q.row(model_.free_vertices[f]) + alpha * direction.row(static_cast<Eigen::Index>(f));
    const std::vector<TermProjection> trial_projections = Projections(trial, controls);
    const double phi_trial = Phi(s, trial, trial_projections);
    // Near the solution Φ's decrease (~ ‖r‖²/‖H‖) falls below Φ's round-off (each ‖Y − P‖² loses the digits that
    // Y and P share) before the residual reaches the tolerance. A full step that raises Φ by no more than 10⁻¹² of
    // itself and lowers the residual is then taken.
    const bool accept = phi_trial <= phi + 1e-4 * alpha * slope ||
                        (alpha == 1.0 && phi_trial <= phi + 1e-12 * std::abs(phi) &&
                         FreeRows(A_ * trial - RightHandSide(s, trial_projections)).norm() < r_free.norm());
    if (accept) {
      q = trial;
      return alpha;
    }
  }
  return 0.0;  // no decrease found: the residual is at round-off level
}

PdStepReport PdSolver::Step(const PdState& in, const PdControls& controls, PdState& out,
                            const PdSolverSettings& settings, std::vector<double>* energies) const {
  const Eigen::MatrixX3d s = InertialTarget(in);
  const auto free_count = static_cast<Eigen::Index>(model_.free_vertices.size());
  Eigen::MatrixX3d pinned(static_cast<Eigen::Index>(model_.pinned.size()), 3);
  for (std::size_t k = 0; k < model_.pinned.size(); ++k)
    pinned.row(static_cast<Eigen::Index>(k)) = controls.pinned_targets[k].transpose();
  out.q = s;
  for (std::size_t k = 0; k < model_.pinned.size(); ++k)
    out.q.row(model_.pinned[k]) = pinned.row(static_cast<Eigen::Index>(k));
  const Eigen::MatrixX3d pinned_coupling = A_fp_ * pinned;
  PdStepReport report;
  Eigen::MatrixX3d rhs_free(free_count, 3), r_free(free_count, 3);
  bool newton = false;
  double previous = 0;
  for (int iteration = 0;; ++iteration) {
    const std::vector<TermProjection> projections = Projections(out.q, controls);
    const Eigen::MatrixX3d b = RightHandSide(s, projections);
    const Eigen::MatrixX3d r = A_ * out.q - b;
    for (Eigen::Index f = 0; f < free_count; ++f) {
      const int i = model_.free_vertices[static_cast<std::size_t>(f)];
      r_free.row(f) = r.row(i);
      rhs_free.row(f) = b.row(i);
    }
    report.residual = r_free.norm();
    if (iteration == 0) report.reference = std::max(report.residual, ReferenceForce());
    if (energies) energies->push_back(Phi(s, out.q, projections));
    report.converged = report.residual <= settings.tolerance * report.reference;
    if (report.converged || iteration >= settings.max_iterations) break;
    // Newton once the local/global sweeps slow down (pd/pd_solver.h, "Iteration").
    newton = newton || (settings.newton && iteration > 0 && report.residual > 0.5 * previous);
    previous = report.residual;
    report.iterations = iteration + 1;
    if (newton) {
      ++report.newton_iterations;
      if (NewtonStep(s, controls, projections, r_free, report.residual / report.reference, out.q) == 0.0) break;
      continue;
    }
    const Eigen::MatrixX3d q_free = SolveFree(rhs_free - pinned_coupling);
    for (Eigen::Index f = 0; f < free_count; ++f)
      out.q.row(model_.free_vertices[static_cast<std::size_t>(f)]) = q_free.row(f);
  }
  out.v = (out.q - in.q) / model_.dt;
  return report;
}

}  // namespace ductile::pd
