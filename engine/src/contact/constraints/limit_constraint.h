// A unilateral constraint g(q) ≥ 0 with near-rigid compliance (Castro et al. 2022, Sec. V-B): joint position
// limits (g = q − q_lower or q_upper − q, constraint velocity ġ = ±v). With the constraint velocity v_c:
//   v̂ = −g₀/(Δt + τ_d),  τ_d = β·Δt/π,  R = β²/(4π²)·w
//   γ = max(0, R⁻¹(v̂ − v_c)),  ℓ = ½R⁻¹(v̂ − v_c)₊²,  G = R⁻¹ where γ > 0, else 0.
// A constraint far from its bound (g₀ large) has v̂ ≪ 0 and costs nothing unless the step would cross it.
#pragma once

#include "contact/sap_constraint.h"

namespace ductile::contact {

struct LimitParams {
  double dt = 1e-3;     ///< Δt [s].
  double g0 = 0;        ///< Constraint value at the start of the step (≥ 0 when satisfied).
  double beta = 1;      ///< Near-rigid parameter β, > 0.
  double delassus = 1;  ///< w, the inverse effective mass along the constraint, > 0.
};

class LimitConstraint final : public SapConstraint {
 public:
  explicit LimitConstraint(const LimitParams& p);
  int num_rows() const override { return 1; }
  double Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const override;

 private:
  double r_inv_;
  double v_hat_;
};

}  // namespace ductile::contact
