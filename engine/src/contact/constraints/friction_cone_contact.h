// Point contact with SAP's regularised friction cone (Castro, Permenter, Han 2022, "An unconstrained convex
// formulation of compliant contact", Secs. IV-V), for contacts in the near-rigid regime.
//
// Contact velocity v_c = (v_t1, v_t2, v_n) in a frame whose z axis is the contact normal; v_n > 0 separates. With
// the compliance R = diag(R_t, R_t, R_n) and the bias v̂ = (0, 0, −φ₀/(Δt + τ_d)):
//   y = R⁻¹ (v̂ − v_c),   γ = P(y) the projection of y onto the friction cone F = {‖γ_t‖ ≤ μ γ_n} in the R norm,
//   ℓ(v_c) = ½ γᵀ R γ,   −∂ℓ/∂v_c = γ,   G = ∂²ℓ/∂v_c² = R^(−½) (∂P̃/∂ỹ) R^(−½).
// In the scaled coordinates ỹ = R^½ y the cone is circular with μ̃ = μ √(R_t/R_n) and P̃ is the Euclidean
// projection onto it: ỹ itself inside (stiction, ‖ỹ_t‖ ≤ μ̃ ỹ_n), 0 in the polar cone (separation,
// μ̃ ‖ỹ_t‖ ≤ −ỹ_n), otherwise (sliding) P̃_n = (ỹ_n + μ̃ ‖ỹ_t‖)/(1 + μ̃²), P̃_t = μ̃ P̃_n t̂, t̂ = ỹ_t/‖ỹ_t‖, with
//   ∂P̃_n/∂ỹ = (μ̃ t̂ᵀ, 1)/(1 + μ̃²),   ∂P̃_t/∂ỹ_t = μ̃² t̂ t̂ᵀ/(1 + μ̃²) + μ̃ P̃_n (I − t̂ t̂ᵀ)/‖ỹ_t‖,
//   ∂P̃_t/∂ỹ_n = μ̃ t̂/(1 + μ̃²)
// (symmetric positive semi-definite, as the Jacobian of a projection onto a convex cone is). The gradient is −γ
// because ½‖P̃(ỹ)‖² has gradient P̃(ỹ) (Moreau). In real terms (Castro et al. 2022, Sec. V): stiction γ = y;
// sliding γ_n = (y_n + μ̂ ‖y_t‖)/(1 + μ̃²), μ̂ = μ R_t/R_n, γ_t = μ γ_n t̂; separation γ = 0.
//
// Near-rigid parameters from a Delassus estimate w (their Sec. V-B): R_n = β²/(4π²) w (a spring of period βΔt on
// the effective mass 1/w, the stiffest the step resolves), R_t = σ w (σ ≈ 1e-3: the regularised friction's
// stiction, a slip of about σ w γ_t per step), and τ_d = β Δt/π, that spring's critical damping time d/k = 2/ω.
// Unlike the lagged Hunt-Crossley model (hunt_crossley_contact.h), the friction bound is the current normal
// impulse, not one from the start of the step. With a near-rigid k in the lagged model, the bound taken from the
// particles' starting penetrations (particles move with interpolated grid velocities, so they do not end a substep
// exactly where their contacts left them) reached 17 times the solved normal impulse, summed over a sliding ball's
// contacts (a one-off instrumented run of that model, since removed), and the ball slid 30% too slowly
// (docs/architecture.md, "MPM-rigid contact"; tests/physics/mpm_incline_test.cpp).
#pragma once

#include <Eigen/Core>

#include "contact/point_contact_kernels.h"
#include "contact/sap_constraint.h"

namespace ductile::contact {

class FrictionConeContact final : public SapConstraint {
 public:
  explicit FrictionConeContact(const FrictionConeParams& p) : cost_(FrictionConeCost::Make(p)) {}
  int num_rows() const override { return 3; }
  double Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const override;
  /// Returns ℓ(v_c) [J]; writes γ [N·s] and, when G is not null, G = ∂²ℓ/∂v_c² [kg].
  double Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const;
  /// True when v_c slides within `band` times the cone's edge (FrictionConeCost::SlidesNearStiction); G then holds
  /// the stiction branch's Hessian R⁻¹ [kg].
  bool SlidesNearStiction(const Eigen::Vector3d& vc, double band, Eigen::Matrix3d& G) const;

 private:
  FrictionConeCost cost_;  // the formulas, shared with the device backend (contact/point_contact_kernels.h)
};

}  // namespace ductile::contact
