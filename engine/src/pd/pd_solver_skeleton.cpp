// The global step and the Newton step of a projective-dynamics body with a skeleton (pd/pd_skeleton.h,
// pd/pd_solver.h): the free vertices and the joint coordinates at once, with or without contacts.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/SparseLU>

#include "pd/pd_hessian.h"
#include "pd/pd_skeleton.h"
#include "pd/pd_solver.h"
#include "pd/pd_step_system.h"

namespace ductile::pd {

namespace {

/// The shortest step of the skeleton's Newton line search (a fraction of the Newton step).
constexpr double kMinSkeletonStep = 1.0 / 1024;

}  // namespace

Eigen::VectorXd PdSolver::JointResidual(const Eigen::MatrixX3d& g, const PdControls& controls,
                                        const std::vector<Eigen::MatrixX3d>& B) const {
  // Bᵀ g − τ per joint [N·m or N], read per metre of lever (pd/pd_solver.h, "Stopping rule").
  Eigen::VectorXd residual(static_cast<Eigen::Index>(B.size()));
  for (std::size_t j = 0; j < B.size(); ++j)
    residual(static_cast<Eigen::Index>(j)) = B[j].cwiseProduct(g).sum() - controls.joint_torques[j];
  return residual;
}

void PdSolver::SkeletonGlobalStep(const Eigen::MatrixX3d& b, const PdControls& controls,
                                  const std::vector<Eigen::MatrixX3d>& B, const Eigen::MatrixX3d& start,
                                  PdStepReport& report, PdState& out) const {
  // The free vertices and the joint increments at once (pd/pd_skeleton.h): with q_h the held vertices' positions
  // (pinned and bones), K = A_ff, C_j = A_fB B_j, X₀ = K⁻¹(b − A q_h)_f and X_j = K⁻¹ C_j,
  //   (BᵀA_BB B − Cᵀ K⁻¹ C) Δz = τ + Bᵀ(b − A q_h) − Cᵀ X₀,   q_f = X₀ − Σ_j X_j Δz_j.
  const auto joints = static_cast<Eigen::Index>(model_.bones.size());
  Eigen::MatrixX3d held = out.q;
  for (const int i : model_.free_vertices) held.row(i).setZero();
  const Eigen::MatrixX3d rest_of_rhs = b - A_ * held;
  const auto free_count = static_cast<Eigen::Index>(model_.free_vertices.size());
  Eigen::MatrixXd rhs(free_count, 3 * (joints + 1));
  rhs.leftCols<3>() = FreeRows(rest_of_rhs);
  std::vector<Eigen::MatrixX3d> AB;
  for (Eigen::Index j = 0; j < joints; ++j) {
    AB.emplace_back(A_ * B[static_cast<std::size_t>(j)]);
    rhs.middleCols<3>(3 * (j + 1)) = FreeRows(AB.back());
  }
  const Eigen::MatrixXd solved = SolveFreeColumns(rhs);  // X₀, X₁, ..., X_N
  Eigen::MatrixXd S(joints, joints);
  Eigen::VectorXd z_rhs(joints);
  for (Eigen::Index j = 0; j < joints; ++j) {
    const Eigen::MatrixX3d C_j = rhs.middleCols<3>(3 * (j + 1));
    for (Eigen::Index k = 0; k < joints; ++k)
      S(j, k) = B[static_cast<std::size_t>(j)].cwiseProduct(AB[static_cast<std::size_t>(k)]).sum() -
                C_j.cwiseProduct(solved.middleCols<3>(3 * (k + 1))).sum();
    z_rhs(j) = controls.joint_torques[static_cast<std::size_t>(j)] +
               B[static_cast<std::size_t>(j)].cwiseProduct(rest_of_rhs).sum() -
               C_j.cwiseProduct(solved.leftCols<3>()).sum();
  }
  const Eigen::LDLT<Eigen::MatrixXd> S_factor(S);
  Eigen::VectorXd dz = S_factor.solve(z_rhs);
  Eigen::MatrixX3d q_free = solved.leftCols<3>();
  for (Eigen::Index j = 0; j < joints; ++j) q_free -= dz(j) * solved.middleCols<3>(3 * (j + 1));
  PdContactSet& set = contacts_;
  if (!set.contacts.empty()) {
    // Contact forces F on the contact vertices (pd/pd_contact.h): with U = X's rows there (3|C| x N, vertex-major),
    //   Δz = Δz₀ − S⁻¹ Uᵀ F,   q_f = X₀ + A_ff⁻¹ F − Σ_j X_j Δz_j,   so q_C = q_C⁰ + (W ⊗ I₃ + U S⁻¹ Uᵀ) F.
    const auto count = static_cast<Eigen::Index>(set.vertices.size());
    Eigen::MatrixXd U(3 * count, joints);
    Eigen::MatrixX3d q_contacts(count, 3);
    for (Eigen::Index m = 0; m < count; ++m) {
      const Eigen::Index row = set.vertices[static_cast<std::size_t>(m)];
      q_contacts.row(m) = q_free.row(row);
      for (Eigen::Index j = 0; j < joints; ++j)
        U.block<3, 1>(3 * m, j) = solved.block<1, 3>(row, 3 * (j + 1)).transpose();
    }
    const Eigen::MatrixXd S_inv_Ut = S_factor.solve(U.transpose());
    set.joint_compliance = U * S_inv_Ut;
    SolveContacts(model_, q_contacts, start, set);
    report.contact_sweeps += set.sweeps;
    Eigen::MatrixX3d forces = Eigen::MatrixX3d::Zero(count, 3);
    for (std::size_t a = 0; a < set.contacts.size(); ++a) forces.row(set.slot[a]) += set.contacts[a].force.transpose();
    const Eigen::VectorXd dz_change = -S_inv_Ut * VertexMajor(forces);
    dz += dz_change;
    q_free += set.columns * forces;
    for (Eigen::Index j = 0; j < joints; ++j) q_free -= dz_change(j) * solved.middleCols<3>(3 * (j + 1));
  }
  SetFreeRows(q_free, out.q);
  out.z += dz;
  PlaceBoneVertices(model_, out.z, out.q);
}

double PdSolver::SkeletonResidual(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                                  const std::vector<VertexConstraint>& constraints, const PdState& state) const {
  const Eigen::MatrixX3d g = A_ * state.q - RightHandSide(s, Projections(state.q, controls));
  ConstraintForces(constraints, g, in.q, state.q);
  const Eigen::VectorXd joints = JointResidual(g, controls, JointJacobian(model_, state.z, state.q));
  return std::sqrt(FreeRows(g - ContactForces()).squaredNorm() + joints.squaredNorm());
}

bool PdSolver::SkeletonNewtonStep(const PdState& in, const Eigen::MatrixX3d& s, const PdControls& controls,
                                  const std::vector<TermProjection>& projections, const Eigen::MatrixX3d& g,
                                  const std::vector<VertexConstraint>& constraints,
                                  const std::vector<Eigen::MatrixX3d>& B, PdState& out) const {
  // Newton on [G_f; Bᵀg − τ] = 0 over (q_f, z) (pd/pd_adjoint.h, "Skeletons", has the same Jacobian, transposed):
  //   [[J_ff, D], [Cᵀ, BᵀH_BB B + K]] [δq_f; δz] = −[G_f; Bᵀg − τ],   C = H_fB B, D = R̂ C,
  // by block elimination on a sparse LU of J_ff: (BᵀH_BB B + K − Cᵀ J_ff⁻¹ D) δz = −(Bᵀg − τ) + Cᵀ J_ff⁻¹ G_f,
  // δq_f = −J_ff⁻¹(G_f + D δz). The bones are then placed exactly at z + α δz.
  const PdHessian hessian(*this, projections);
  const auto joints = static_cast<Eigen::Index>(B.size());
  const auto free_count = static_cast<Eigen::Index>(model_.free_vertices.size());
  StepSystem system;
  if (!constraints.empty()) system = AssembleStepSystem(hessian, constraints, in.q, out.q, g);
  Eigen::MatrixXd rhs(3 * free_count, joints + 1);  // [G_f, D]
  rhs.col(0) = constraints.empty() ? VertexMajor(FreeRows(g)) : VertexMajor(system.G);
  std::vector<Eigen::MatrixX3d> HB;
  Eigen::MatrixXd C(3 * free_count, joints);
  for (Eigen::Index j = 0; j < joints; ++j) {
    HB.push_back(hessian.ApplyAll(B[static_cast<std::size_t>(j)]));
    C.col(j) = VertexMajor(FreeRows(HB.back()));
  }
  Eigen::MatrixXd D = C;
  ApplyRowOperators(system, constraints, D);
  rhs.rightCols(joints) = D;
  Eigen::MatrixXd solved = Eigen::MatrixXd::Zero(3 * free_count, joints + 1);
  if (free_count > 0) {
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(constraints.empty() ? hessian.AssembleFree() : system.J);
    if (lu.info() != Eigen::Success) return false;
    solved = lu.solve(rhs);
    if (lu.info() != Eigen::Success || !solved.allFinite()) return false;
  }
  Eigen::MatrixXd S = JointCurvature(model_, out.z, out.q, g);
  const Eigen::VectorXd G_z = JointResidual(g, controls, B);
  Eigen::VectorXd z_rhs = -G_z;
  for (Eigen::Index j = 0; j < joints; ++j) {
    z_rhs(j) += C.col(j).dot(solved.col(0));
    for (Eigen::Index k = 0; k < joints; ++k)
      S(j, k) += B[static_cast<std::size_t>(j)].cwiseProduct(HB[static_cast<std::size_t>(k)]).sum() -
                 C.col(j).dot(solved.col(k + 1));
  }
  const Eigen::VectorXd dz = S.fullPivLu().solve(z_rhs);
  if (!dz.allFinite()) return false;
  const Eigen::MatrixX3d dq = FromVertexMajor(-solved.col(0) - solved.rightCols(joints) * dz);
  // Backtracking on the residual's norm, for which the Newton direction descends (as ContactNewtonStep).
  const double start = SkeletonResidual(in, s, controls, constraints, out);
  for (double alpha = 1; alpha >= kMinSkeletonStep; alpha *= 0.5) {
    PdState trial = out;
    AddFreeRows(alpha * dq, trial.q);
    trial.z += alpha * dz;
    PlaceBoneVertices(model_, trial.z, trial.q);
    if (SkeletonResidual(in, s, controls, constraints, trial) <= (1 - 1e-4 * alpha) * start) {
      out.q = std::move(trial.q);
      out.z = std::move(trial.z);
      return true;
    }
  }
  return false;
}

}  // namespace ductile::pd
