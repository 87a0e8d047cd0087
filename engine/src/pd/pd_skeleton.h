// Skeletons of projective-dynamics bodies (Qiao, Liang, Koltun, Lin 2021, Sec. 3.2): rigid bones, each a set of the
// mesh's vertices carried by one joint coordinate relative to its parent bone (or the world). With every bone at
// the world frame at rest, bone b's placement is
//
//   T_b(z) = T_parent(b)(z) ∘ J_b(z_b),   J_b(x) = R(a_b, z_b)(x − p_b) + p_b (revolute)   or   x + a_b z_b (prismatic)
//
// (a_b the rest axis, p_b the rest anchor, R(a, θ) the rotation about a by θ), and its vertices sit at T_b(z) X. The
// positions are exact in z (no drift of a bone's shape: its pairwise distances stay those at rest), and the Jacobian
// B = ∂q/∂z has for a vertex x of bone b and each joint j on b's chain (b, its parent, ... the root) the column
//
//   ∂x/∂z_j = â_j × (x − p̂_j) (revolute)   or   â_j (prismatic),
//
// with â_j = R_parent(j) a_j and p̂_j = T_parent(j)(p_j) the joint's current axis and anchor: assembled top-down over
// the chain, O(N²) in bones (Qiao et al.'s prefix products, written with the chain's placements).
//
// The global step with a skeleton (pd/pd_solver.h) solves for the free vertices and the joint increments Δz at once,
// with the bone vertices linearised as q_B + B Δz: A's free block is the prefactorised one, so the joint increments
// come from the N x N Schur complement BᵀA_BB B − Cᵀ A_ff⁻¹ C, C = A_fB B (N solves with A's factor), and the joint
// torques τ enter as Bᵀ(A q − b) = τ. Then z += Δz and the bones are placed exactly at the new z.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "pd/pd_model.h"

namespace ductile::pd {

/// A bone's placement x ↦ R x + t. Plain data.
struct BonePlacement {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
};

/// Every bone's placement at joint coordinates z (file comment).
std::vector<BonePlacement> PlaceBones(const PdModel& model, const Eigen::VectorXd& z);

/// Writes the bone vertices' positions at z into q's rows.
void PlaceBoneVertices(const PdModel& model, const Eigen::VectorXd& z, Eigen::MatrixX3d& q);

/// The columns of B = ∂q/∂z, one n x 3 matrix per joint, non-zero on the rows of the bones it carries.
std::vector<Eigen::MatrixX3d> JointJacobian(const PdModel& model, const Eigen::VectorXd& z, const Eigen::MatrixX3d& q);

/// K(j, k) = Σ_i g_i · ∂²x_i/∂z_j∂z_k over the bone vertices, for forces g (n x 3): the curvature of the joints'
/// generalised forces Bᵀg, which the adjoint's joint block needs besides BᵀHB. For x on bone b and joints j, k on
/// its chain: ∂(∂x/∂z_j)/∂z_k = ∂â_j × (x − p̂_j) + â_j × (∂x/∂z_k − ∂p̂_j) for a revolute j (∂â_j for a prismatic
/// one), where a revolute k strictly above j turns j's axis and anchor about itself (∂â_j = â_k × â_j,
/// ∂p̂_j = â_k × (p̂_j − p̂_k)), a prismatic one shifts the anchor (∂p̂_j = â_k), and a k at or below j moves neither.
/// Symmetric.
Eigen::MatrixXd JointCurvature(const PdModel& model, const Eigen::VectorXd& z, const Eigen::MatrixX3d& q,
                               const Eigen::MatrixX3d& g);

}  // namespace ductile::pd
