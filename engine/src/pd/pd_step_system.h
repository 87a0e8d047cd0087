// The equations of a projective-dynamics step with contacts, G(q) = 0 over the free vertices' coordinates, and their
// Jacobian J = ∂G/∂q: what the Newton steps that finish a step with contacts solve (pd/pd_solver.h) and what the
// adjoint transposes (pd/pd_adjoint.h). With g(q) = A q − b(P(q)) the force residual of the step without contact
// (its row i is the force the contacts must supply at vertex i), per free vertex i:
//
//   no contact   G_i = g_i                                              (3 rows)
//   touching     G_i = [n·qᵢ − o;  t_kᵀ (T g_i + μ (n·g_i) φ(u))]       (k = 1, 2: on the plane, and the regularised
//                                                                      Coulomb force of pd/pd_contact.h against the
//                                                                      slip u = T (qᵢ − qᵢⁿ))
//
// (t₁, t₂ a basis of the contact plane.) So J's rows are H's rows for a vertex without contact, and for a touching
// vertex R_i (H's rows) + C_i (its own columns), with λ = n·g_i and Φ = ∂φ/∂u:
//
//   R_i = [0; t_kᵀ + μ (t_k·φ) nᵀ],   C_i = [nᵀ; μλ t_kᵀ Φ T],
//
// the derivative of G_i with respect to the vertex's start qᵢⁿ is K_i = [0; −μλ t_kᵀ Φ T], and with respect to μ
// [0; λ t_k·φ].
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "pd/pd_contact.h"
#include "pd/pd_hessian.h"
#include "pd/pd_model.h"

namespace ductile::pd {

/// A free vertex touching a half-space in a step. Plain data.
struct VertexConstraint {
  int vertex = 0;
  int free_row = 0;
  int obstacle = 0;
};

/// G, J and the pieces the adjoint needs (file comment).
struct StepSystem {
  Eigen::SparseMatrix<double> J;                     ///< 3 n_f x 3 n_f, vertex-major.
  Eigen::MatrixX3d G;                                ///< A row per free vertex.
  std::vector<Eigen::Matrix3d> row_operator;         ///< R_i per constraint.
  std::vector<Eigen::Matrix3d> start_derivative;     ///< K_i per constraint.
  std::vector<Eigen::Vector3d> friction_derivative;  ///< ∂G_i/∂μ per constraint.
};

/// The system at positions `q` of a step from `start`, with `g` = A q − b on every row and `hessian` at q.
StepSystem AssembleStepSystem(const PdHessian& hessian, const std::vector<VertexConstraint>& constraints,
                              const Eigen::MatrixX3d& start, const Eigen::MatrixX3d& q, const Eigen::MatrixX3d& g);

/// R̂ x for vertex-major columns x (3 n_f rows): each constrained vertex's three rows by its R_i, the others kept (the
/// joints' coupling of the skeleton's Newton step and adjoint, D = R̂ H_fB B).
void ApplyRowOperators(const StepSystem& system, const std::vector<VertexConstraint>& constraints,
                       Eigen::MatrixXd& columns);

/// The constraints of a converged step read from its positions: a free vertex within `gap_tolerance` [m] of a
/// half-space whose residual force g_i presses on it by more than `force_tolerance` [N] along n. The first such
/// half-space of each vertex.
std::vector<VertexConstraint> ConstraintsOfStep(const PdModel& model, const Eigen::MatrixX3d& q,
                                                const Eigen::MatrixX3d& g, double gap_tolerance,
                                                double force_tolerance);

/// An orthonormal basis of the plane normal to unit n.
std::pair<Eigen::Vector3d, Eigen::Vector3d> TangentBasis(const Eigen::Vector3d& n);

}  // namespace ductile::pd
