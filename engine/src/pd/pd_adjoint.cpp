// The adjoint of a projective-dynamics step (the equations: pd/pd_adjoint.h).
#include "pd/pd_adjoint.h"

#include <Eigen/LU>
#include <Eigen/SparseLU>

#include "pd/pd_hessian.h"
#include "pd/pd_projection.h"
#include "pd/pd_skeleton.h"
#include "pd/pd_step_system.h"

namespace ductile::pd {

namespace {

/// A vertex within this of a half-space [m], pressed on by more than kContactForce times the body's weight-like
/// reference force (m · 1 m/s²), touched it at the end of the step (the contact solve leaves gaps of ~1e-15 m).
constexpr double kContactGap = 1e-10;
constexpr double kContactForce = 1e-9;

/// The adjoint λ on every row (pinned rows zero) from r, or false.
bool SolveAdjoint(const PdSolver& solver, const PdHessian& hessian, const Eigen::MatrixX3d& r,
                  const PdAdjointSettings& settings, Eigen::MatrixX3d& lambda, PdAdjointReport& report) {
  const PdModel& model = solver.model();
  Eigen::MatrixX3d lambda_free;
  const PdHessian::Outcome outcome = hessian.Solve(solver.FreeRows(r), lambda_free, settings.tolerance,
                                                   settings.max_iterations, &report.cg_iterations);
  if (outcome != PdHessian::Outcome::kConverged) {
    report.direct = true;
    if (!hessian.SolveDirect(solver.FreeRows(r), lambda_free)) return false;
  }
  lambda = Eigen::MatrixX3d::Zero(model.vertex_count(), 3);
  solver.SetFreeRows(lambda_free, lambda);
  return true;
}

/// The per-term sensitivities: materials (through ω) and actuators (through c or ℓ).
void TermGradients(const PdSolver& solver, const PdControls& controls, const std::vector<TermProjection>& projections,
                   const Eigen::MatrixX3d& lambda, PdMaterialGradient& materials, PdControls& dcontrols) {
  const PdModel& model = solver.model();
  for (std::size_t k = 0; k < model.terms.size(); ++k) {
    const Term& term = model.terms[k];
    const TermProjection& p = projections[k];
    const Eigen::Matrix3d y_lambda = TermY(model, term, lambda);
    if (term.kind != TermKind::kMuscle) {
      const double d_weight = -y_lambda.cwiseProduct(p.Y - p.P).sum();
      const Eigen::Vector2d dw = TermWeightDerivatives(model, term);
      materials.youngs_modulus[static_cast<std::size_t>(term.tet)] += d_weight * dw(0);
      materials.poisson_ratio[static_cast<std::size_t>(term.tet)] += d_weight * dw(1);
    }
    if (term.actuator < 0) continue;
    const double d_target = solver.weights()[k] * y_lambda.cwiseProduct(ProjectionTargetDerivative(term.kind, p)).sum();
    const double d_activation = d_target * TermTargetDerivative(model, term, controls);
    if (term.kind == TermKind::kMuscle)
      dcontrols
          .muscle_activation[static_cast<std::size_t>(model.muscles[static_cast<std::size_t>(term.actuator)].group)] +=
          d_activation;
    else
      dcontrols.cell_volume_ratio[static_cast<std::size_t>(term.actuator)] += d_activation;
  }
}

PdAdjointReport Failed(PdAdjointReport report, Eigen::Index rows, Eigen::MatrixX3d& dq_prev,
                       Eigen::MatrixX3d& dv_prev) {
  report.ok = false;
  dq_prev = Eigen::MatrixX3d::Zero(rows, 3);
  dv_prev = dq_prev;
  return report;
}

/// Writes λ from the free rows' solution of Jᵀλ = r: λ̃ᵢ = R_iᵀ λᵢ on the constrained rows (λ elsewhere), the
/// start's extra terms −K_iᵀ λᵢ, and −λᵢ·∂G_i/∂μ into the friction gradient (pd/pd_adjoint.h).
void SetContactAdjoint(const PdSolver& solver, const StepSystem& system,
                       const std::vector<VertexConstraint>& constraints, const Eigen::MatrixX3d& lambda_free,
                       Eigen::MatrixX3d& lambda, Eigen::MatrixX3d& start_terms, PdMaterialGradient& materials) {
  solver.SetFreeRows(lambda_free, lambda);
  for (std::size_t k = 0; k < constraints.size(); ++k) {
    const VertexConstraint& c = constraints[k];
    const Eigen::Vector3d raw = lambda_free.row(c.free_row).transpose();
    lambda.row(c.vertex) = (system.row_operator[k].transpose() * raw).transpose();
    start_terms.row(c.vertex) = -(system.start_derivative[k].transpose() * raw).transpose();
    materials.friction[static_cast<std::size_t>(c.obstacle)] -= raw.dot(system.friction_derivative[k]);
  }
}

/// Jᵀ λ = r over the free rows with the contact rows of pd/pd_step_system.h, by a sparse LU (SetContactAdjoint).
bool SolveContactAdjoint(const PdSolver& solver, const PdHessian& hessian,
                         const std::vector<VertexConstraint>& constraints, const PdState& in, const PdState& out,
                         const Eigen::MatrixX3d& g, const Eigen::MatrixX3d& r, Eigen::MatrixX3d& lambda,
                         Eigen::MatrixX3d& start_terms, PdMaterialGradient& materials) {
  const StepSystem system = AssembleStepSystem(hessian, constraints, in.q, out.q, g);
  Eigen::MatrixX3d lambda_free;
  const Eigen::SparseMatrix<double> transposed = system.J.transpose();
  if (!SolveSparse(transposed, solver.FreeRows(r), lambda_free)) return false;
  SetContactAdjoint(solver, system, constraints, lambda_free, lambda, start_terms, materials);
  return true;
}

/// What the skeleton's adjoint writes besides λ.
struct SkeletonAdjointOut {
  Eigen::MatrixX3d& start_terms;
  PdMaterialGradient& materials;
  std::vector<double>& torques;
};

/// With a skeleton (pd/pd_adjoint.h, "Skeletons"): Jᵀ = [[J_ffᵀ, C], [Dᵀ, BᵀH_BB B + K]] with C = H_fB B and
/// D = R̂ C (R̂ the contact rows' R_i on the constrained vertices, I elsewhere; J_ff = H_ff without contacts, else
/// pd/pd_step_system.h's J), solved by block elimination on a sparse LU of J_ffᵀ:
/// λ_z = S⁻¹(r_z − Dᵀ J_ff⁻ᵀ r_f), S = BᵀH_BB B + K − Dᵀ J_ff⁻ᵀ C, λ_f = J_ff⁻ᵀ(r_f − C λ_z). Writes λ̃ (λ_f, or
/// R_iᵀλᵢ on the constrained rows, and B λ_z on the bones'), the contact terms and ∂L/∂τ = λ_z.
bool SolveSkeletonAdjoint(const PdSolver& solver, const PdHessian& hessian,
                          const std::vector<VertexConstraint>& constraints, const PdState& in, const PdState& out,
                          const Eigen::MatrixX3d& g, const Eigen::MatrixX3d& r, Eigen::MatrixX3d& lambda,
                          const SkeletonAdjointOut& written) {
  const PdModel& model = solver.model();
  const std::vector<Eigen::MatrixX3d> B = JointJacobian(model, out.z, out.q);
  const Eigen::MatrixXd K = JointCurvature(model, out.z, out.q, g);
  const auto joints = static_cast<Eigen::Index>(B.size());
  const auto free_count = static_cast<Eigen::Index>(model.free_vertices.size());
  // J_ff⁻ᵀ on r_f and on every C_j at once (3 columns each).
  Eigen::MatrixXd rhs(3 * free_count, joints + 1);
  std::vector<Eigen::MatrixX3d> HB;
  rhs.col(0) = VertexMajor(solver.FreeRows(r));
  for (Eigen::Index j = 0; j < joints; ++j) {
    HB.push_back(hessian.ApplyAll(B[static_cast<std::size_t>(j)]));
    rhs.col(j + 1) = VertexMajor(solver.FreeRows(HB.back()));
  }
  StepSystem system;
  if (!constraints.empty()) system = AssembleStepSystem(hessian, constraints, in.q, out.q, g);
  Eigen::MatrixXd D = rhs.rightCols(joints);
  ApplyRowOperators(system, constraints, D);
  Eigen::MatrixXd solved = Eigen::MatrixXd::Zero(3 * free_count, joints + 1);
  if (free_count > 0) {
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(constraints.empty() ? hessian.AssembleFree() : Eigen::SparseMatrix<double>(system.J.transpose()));
    if (lu.info() != Eigen::Success) return false;
    solved = lu.solve(rhs);
    if (lu.info() != Eigen::Success || !solved.allFinite()) return false;
  }
  Eigen::MatrixXd S = K;
  Eigen::VectorXd r_z(joints);
  for (Eigen::Index j = 0; j < joints; ++j) {
    r_z(j) = B[static_cast<std::size_t>(j)].cwiseProduct(r).sum() - D.col(j).dot(solved.col(0));
    for (Eigen::Index k = 0; k < joints; ++k)
      S(j, k) += B[static_cast<std::size_t>(j)].cwiseProduct(HB[static_cast<std::size_t>(k)]).sum() -
                 D.col(j).dot(solved.col(k + 1));
  }
  const Eigen::VectorXd lambda_z = S.fullPivLu().solve(r_z);
  if (!lambda_z.allFinite()) return false;
  const Eigen::MatrixX3d lambda_free = FromVertexMajor(solved.col(0) - solved.rightCols(joints) * lambda_z);
  SetContactAdjoint(solver, system, constraints, lambda_free, lambda, written.start_terms, written.materials);
  for (Eigen::Index j = 0; j < joints; ++j) {
    lambda += lambda_z(j) * B[static_cast<std::size_t>(j)];  // B_j is zero off the bones' rows
    written.torques[static_cast<std::size_t>(j)] = lambda_z(j);
  }
  return true;
}

}  // namespace

PdAdjointReport StepAdjoint(const PdSolver& solver, const PdState& in, const PdControls& controls, const PdState& out,
                            const Eigen::MatrixX3d& dq_next, const Eigen::MatrixX3d& dv_next, Eigen::MatrixX3d& dq_prev,
                            Eigen::MatrixX3d& dv_prev, PdMaterialGradient& materials, PdControls& dcontrols,
                            const PdAdjointSettings& settings) {
  const PdModel& model = solver.model();
  const double h = model.dt;
  PdAdjointReport report;
  dcontrols = PdControls::Rest(model);
  std::fill(dcontrols.cell_volume_ratio.begin(), dcontrols.cell_volume_ratio.end(), 0.0);
  for (Eigen::Vector3d& target : dcontrols.pinned_targets) target.setZero();
  materials.youngs_modulus.resize(static_cast<std::size_t>(model.tet_count()), 0.0);
  materials.poisson_ratio.resize(static_cast<std::size_t>(model.tet_count()), 0.0);
  materials.friction.resize(model.obstacles.size(), 0.0);
  const Eigen::MatrixX3d r = dq_next + dv_next / h;
  const PdHessian hessian(solver, solver.Projections(out.q, controls));
  // The step's contacts, read from its end (pd/pd_step_system.h): with none, H λ = r; with some, Jᵀ λ = r.
  const Eigen::MatrixX3d g = solver.Residual(in, controls, out.q);
  const std::vector<VertexConstraint> constraints =
      ConstraintsOfStep(model, out.q, g, kContactGap, kContactForce * TotalMass(model) * 1.0);
  Eigen::MatrixX3d lambda = Eigen::MatrixX3d::Zero(r.rows(), 3);  // λ̃ = Rᵀλ on constrained rows
  Eigen::MatrixX3d start_terms = Eigen::MatrixX3d::Zero(r.rows(), 3);
  if (!model.bones.empty()) {
    report.direct = true;
    if (!SolveSkeletonAdjoint(solver, hessian, constraints, in, out, g, r, lambda,
                              {.start_terms = start_terms, .materials = materials, .torques = dcontrols.joint_torques}))
      return Failed(report, r.rows(), dq_prev, dv_prev);
  } else if (constraints.empty()) {
    if (!SolveAdjoint(solver, hessian, r, settings, lambda, report)) return Failed(report, r.rows(), dq_prev, dv_prev);
  } else if (!SolveContactAdjoint(solver, hessian, constraints, in, out, g, r, lambda, start_terms, materials)) {
    report.direct = true;
    return Failed(report, r.rows(), dq_prev, dv_prev);
  } else {
    report.direct = true;
  }
  const Eigen::MatrixX3d coupling = hessian.ApplyAll(lambda);
  for (std::size_t k = 0; k < model.pinned.size(); ++k)
    dcontrols.pinned_targets[k] = (r.row(model.pinned[k]) - coupling.row(model.pinned[k])).transpose();
  TermGradients(solver, controls, hessian.projections(), lambda, materials, dcontrols);
  dq_prev = -dv_next / h + start_terms;
  dv_prev = Eigen::MatrixX3d::Zero(r.rows(), 3);
  for (int i = 0; i < model.vertex_count(); ++i) {  // λ̃ is zero on the pinned rows
    const double m = model.masses[static_cast<std::size_t>(i)];
    dq_prev.row(i) += (m / (h * h)) * lambda.row(i);
    dv_prev.row(i) = (m / h) * lambda.row(i);
  }
  return report;
}

}  // namespace ductile::pd
