// The discrete adjoint of one projective-dynamics step (pd/pd_solver.h). A converged step's positions q = qⁿ⁺¹ solve
//
//   g(q) = M (q − s)/h² + Σ_terms ω S (Y − P(Y))ᵀ = 0   on the free rows,   s = qⁿ + h vⁿ + h² g_grav,
//
// with the pinned rows at their targets and vⁿ⁺¹ = (q − qⁿ)/h. By the implicit function theorem (the adjoint method of
// Du et al. 2021, "DiffPD", Sec. 5; Qiao et al. 2021, Sec. 4), for a loss L with total sensitivities q̄ = ∂L/∂qⁿ⁺¹ and
// v̄ = ∂L/∂vⁿ⁺¹:
//
//   r = q̄ + v̄/h,   H_ff λ_f = r_f   (H the step energy's Hessian, pd/pd_hessian.h; λ_p = 0),
//
//   ∂L/∂qⁿ = M λ/h² − v̄/h          ∂L/∂vⁿ = M λ/h
//   ∂L/∂ω  = −⟨Y(λ), Y − P⟩         per term, Y(λ) = X_λᵀ S the term's Y for the corner values of λ;
//                                    then ∂ω/∂E and ∂ω/∂ν (pd/pd_model.h) give the per-tet E and ν
//   ∂L/∂a  = ω ⟨Y(λ), ∂P/∂c⟩ dc/da  per term of a pneumatic cell or a muscle group (c or ℓ, pd/pd_projection.h)
//   ∂L/∂x̂_p = r_p − (H λ)_p          per pinned vertex's target x̂_p (its row of q, and its coupling to the free rows)
//
// With contacts (read from the step's end: a vertex on a half-space that the residual force presses on), the step's
// equations are G(q) = 0 of pd/pd_step_system.h instead of g = 0, and Jᵀ λ = r_f is solved by a sparse LU; then
// λ̃ᵢ = R_iᵀ λᵢ replaces λᵢ in the formulas above, ∂L/∂qᵢⁿ gains −K_iᵀ λᵢ and ∂L/∂μ = −Σ λᵢ·∂G_i/∂μ. (The contact
// vertices' rows of G have no g in the normal row, so no inertia either: a touching vertex's normal motion is set by
// its plane.)
//
// Skeletons: the unknowns are the free vertices and the joint coordinates z, with the equations g_f = 0 and
// Bᵀ g − τ = 0 (pd/pd_skeleton.h), so J = [[H_ff, H_fB B], [Bᵀ H_Bf, Bᵀ H_BB B + K]], K the joints' curvature
// (JointCurvature), symmetric; λ = J⁻¹ [r_f; Bᵀ r_B], and λ̃ = [λ_f; B λ_z] on the vertices takes λ's place in the
// formulas above (the bones' vertices have inertia too), with ∂L/∂τ = λ_z. The initial state's bone rows of ∂L/∂q⁰
// are what a change of their positions does; with them tied to z⁰, ∂L/∂z⁰ = Bᵀ (those rows). With contacts as well,
// the free rows are G's: J = [[J_ff, D], [Cᵀ, Bᵀ H_BB B + K]] with J_ff pd/pd_step_system.h's, C = H_fB B and
// D = R̂ C (a touching vertex's rows of C by its R_i), and λ̃ = [R̂ᵀλ_f; B λ_z] (the bones' vertices touch nothing).
//
// H_ff λ_f = r_f is solved by conjugate gradients preconditioned with the prefactorised A (as DiffPD reuses its
// factorisation); on negative curvature or no convergence within the iteration cap, by a sparse LU of H_ff. The
// derivative is that of the exact step; it equals the derivative of the computed step as far as the forward
// iteration converged (pd/pd_solver.h, "Stopping rule").
#pragma once

#include <Eigen/Core>
#include <vector>

#include "pd/pd_model.h"
#include "pd/pd_solver.h"

namespace ductile::pd {

/// Gradients with respect to a body's materials, accumulated over steps. Plain data.
struct PdMaterialGradient {
  std::vector<double> youngs_modulus;  ///< ∂L/∂E per tet [1/Pa in units of L].
  std::vector<double> poisson_ratio;   ///< ∂L/∂ν per tet.
  std::vector<double> friction;        ///< ∂L/∂μ per half-space (PdModel::obstacles).
};

/// How the adjoint's linear solve goes. Plain data.
struct PdAdjointSettings {
  double tolerance = 1e-12;  ///< Relative preconditioned residual of the conjugate gradients.
  int max_iterations = 500;  ///< Before the direct solve takes over.
};

/// What the adjoint's linear solve did.
struct PdAdjointReport {
  int cg_iterations = 0;
  bool direct = false;  ///< The sparse LU solved it.
  bool ok = true;       ///< False when even the LU failed (a singular H); the gradients are then zero.
};

/// Backward through the converged step `in` → `out` under `controls`: from q̄ = `dq_next`, v̄ = `dv_next` (n x 3)
/// writes ∂L/∂qⁿ and ∂L/∂vⁿ through this step into `dq_prev`, `dv_prev`, adds the materials' gradients into
/// `materials` (sized to the tets) and writes the controls' gradients into `dcontrols` (shaped as PdControls::Rest).
PdAdjointReport StepAdjoint(const PdSolver& solver, const PdState& in, const PdControls& controls, const PdState& out,
                            const Eigen::MatrixX3d& dq_next, const Eigen::MatrixX3d& dv_next, Eigen::MatrixX3d& dq_prev,
                            Eigen::MatrixX3d& dv_prev, PdMaterialGradient& materials, PdControls& dcontrols,
                            const PdAdjointSettings& settings = {});

}  // namespace ductile::pd
