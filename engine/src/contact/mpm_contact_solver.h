// The MPM-rigid contact solve of one substep (Yu et al. 2025, Sec. V, Algorithm 1): given the
// free-motion grid velocities v* (after P2G and the grid update), find
//   v = argmin ℓ(v) = Σᵢ ½ mᵢ‖vᵢ − v*ᵢ‖² + Σ_c ℓ_c(v_c),   v_c = R_cᵀ(Σᵢ w_ci vᵢ − v_r,c)
// where each contact c is a particle inside a rigid geometry: w_ci its B-spline weights on its 27 nodes, R_c its
// contact frame (columns t₁, t₂, n with n the geometry's outward normal), v_r,c the rigid body's velocity at the
// particle (frozen over the step), ℓ_c the lagged Hunt-Crossley cost (constraints/hunt_crossley_contact.h).
//
// Quasi-Newton iterations: the gradient ∇ℓᵢ = mᵢ(vᵢ − v*ᵢ) − Σ_c w_ci R_c γ_c (a P2G of the contact impulses), the
// Hessian kept to its 3x3 diagonal blocks Hᵢ = mᵢ·1 + Σ_c w_ci² R_c G_c R_cᵀ (one small solve per node), then an
// exact line search α* = argmin ℓ(v + αΔv) on [0, α_max] by 1-D Newton with bisection (v_c is affine in α: one
// G2P of Δv at the contacts, then each line-search iteration costs O(contacts)). Stopping rule:
// ‖D∇ℓ‖ < ε_a + ε_r·max(‖Dp‖, ‖Dj_c‖), D = M^(−1/2), p = Mv, j_c = Jᵀγ. The cost is convex and the line search
// exact, so ℓ decreases monotonically (tests check it). Nodes are processed in parallel; every node sums its
// contacts in contact order, so results do not depend on the thread count. Each block-diagonal direction is then
// refined by a few preconditioned conjugate-gradient steps on the full Newton system (M + JᵀGJ)Δv = −∇ℓ (matrix-free:
// a G2P and a P2G per product), because sticking contacts couple neighbouring nodes so strongly that the
// block-diagonal step alone converges only linearly (28 iterations per substep, often over 100, in
// scenes/dough_rolling.yaml; 8 with the refinement).
//
// Up to GridContactParams::dense_contacts contacts the direction is the exact Newton step instead, by the Woodbury
// identity in contact space (one dense LU of size 3C; the solver's comment at ExactDirection): a gripper squeezing
// cloth makes few contacts whose friction Hessians (μ n₀/ε, about 1/σ times the particle's mass) dwarf the node
// masses, and 20 CG steps fell far short: 25 Newton iterations per substep on average in
// scenes/tshirt_folding.yaml, 9.8 with exact directions and the impulse guess below (`ductile-cli bench`'s
// iterations column). A problem may carry a guess of each contact's impulse and of the nodes' velocities (the
// coupling passes the last substep's, by particle and by grid node); the solve starts from the cheapest.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

#include "contact/constraints/friction_cone_contact.h"
#include "contact/constraints/hunt_crossley_contact.h"
#include "contact/grid_contact_params.h"

namespace ductile::contact {

/// One particle-rigid contact.
struct GridContact {
  std::array<int, 27> nodes{};                         ///< Indices into the problem's nodes of the particle's stencil.
  std::array<double, 27> weights{};                    ///< B-spline weights w_ci (sum 1).
  Eigen::Matrix3d R_WC = Eigen::Matrix3d::Identity();  ///< Contact frame: columns t₁, t₂, n (outward normal).
  Eigen::Vector3d v_rigid = Eigen::Vector3d::Zero();   ///< Rigid velocity at the particle [m/s].
  HuntCrossleyParams params;                           ///< Cost parameters (φ₀, k, d, μ, Δt, ...).
  /// The cost: false, the lagged Hunt-Crossley model of `params`; true, SAP's regularised friction cone in the
  /// near-rigid regime (constraints/friction_cone_contact.h) with Δt, φ₀, μ, σ and w = params.delassus.
  bool near_rigid = false;
};

struct GridContactProblem {
  std::vector<double> mass;             ///< Per node [kg], > 0.
  std::vector<Eigen::Vector3d> v_star;  ///< Per node: free-motion velocity [m/s].
  std::vector<GridContact> contacts;
  /// Optional, per contact: a guess of its impulse on the material (world frame) [N·s], e.g. the last substep's.
  std::vector<Eigen::Vector3d> gamma_guess;
  /// Optional, per node: a guess of the solution's velocities [m/s], e.g. the last substep's last iterate
  /// (GridContactResult::v_iterate) at the same grid nodes. The solve starts from the cheapest of v*,
  /// v* + M⁻¹Jᵀγ_guess and v_guess. Near-rigid contacts make the velocity guess the better one where contacts
  /// stick: their impulses respond to the contact velocities with a stiffness of about 1/σ times the particle's mass,
  /// so the impulse guess, placed at v* + M⁻¹Jᵀγ_guess, meets impulses far from γ_guess wherever v* changed
  /// between substeps, while at the last iterate the impulses are the last substep's and the gradient is only
  /// M times the change of v*.
  std::vector<Eigen::Vector3d> v_guess;
};

struct GridContactResult {
  /// Per node [m/s]: v* + M⁻¹Jᵀγ at the last iterate, which differs from it by −M⁻¹∇ℓ (within the stopping bound)
  /// so that the material's momentum change equals the impulses exactly.
  std::vector<Eigen::Vector3d> v;
  std::vector<Eigen::Vector3d> gamma_W;  ///< Per contact: impulse on the material, world frame [N·s]; the rigid
                                         ///< body receives −gamma_W at the particle.
  /// Per node [m/s]: the last iterate, whose contact impulses are gamma_W (v differs from it by −M⁻¹∇ℓ): the
  /// next substep's v_guess.
  std::vector<Eigen::Vector3d> v_iterate;
  int iterations = 0;
  bool converged = false;
  double residual = 0;               ///< ‖D∇ℓ‖ at the last iterate.
  double residual_bound = 0;         ///< ε_a + ε_r·max(‖Dp‖, ‖Dj_c‖) there.
  std::vector<double> cost_history;  ///< ℓ of every iterate, v* first.
};

/// Solves the problem from v = v*.
GridContactResult SolveGridContact(const GridContactProblem& problem, const GridContactParams& params);

/// The exact Newton direction Δv = −(M + JᵀGJ)⁻¹∇ℓ(v) at v, as the solve computes it for at most
/// GridContactParams::dense_contacts contacts (for tests; any number of contacts here).
std::vector<Eigen::Vector3d> GridContactNewtonDirection(const GridContactProblem& problem,
                                                        const std::vector<Eigen::Vector3d>& v);

/// ℓ(v) and, when given, ∇ℓ(v) and the 3x3 diagonal blocks of ∇²ℓ(v) (exact when a contact's 27 nodes are
/// distinct, as in MPM); for tests.
double EvaluateGridContactCost(const GridContactProblem& problem, const std::vector<Eigen::Vector3d>& v,
                               std::vector<Eigen::Vector3d>* gradient = nullptr,
                               std::vector<Eigen::Matrix3d>* hessian_blocks = nullptr);

}  // namespace ductile::contact
