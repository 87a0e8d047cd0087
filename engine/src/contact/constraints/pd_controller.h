// Implicit PD controller on one dof as a SAP constraint (Castro et al. 2022, Sec. V). With the joint's
// position after the step q⁺ = q₀ + Δt·v, the actuation impulse is
//   γ(v) = Δt·clamp(−K_p(q₀ + Δt·v − q_d) − K_d(v − v_d) + u_ff, −e, e)
// i.e. γ = clamp(−R⁻¹(v − v̂), −Δt·e, Δt·e) with R = 1/(Δt(Δt·K_p + K_d)) and v̂ = R·Δt(−K_p(q₀ − q_d) + K_d v_d + u_ff).
// Cost: ½R⁻¹(v − v̂)² while unclamped, continued linearly (slope ∓Δt·e) where the effort limit e is active, so ℓ
// is convex and C¹; G = R⁻¹ unclamped, 0 clamped. Being implicit, arbitrarily stiff gains stay stable.
#pragma once

#include "contact/sap_constraint.h"

namespace ductile::contact {

struct PdControllerParams {
  double dt = 1e-3;             ///< Δt [s], > 0.
  double kp = 0;                ///< Proportional gain [N·m/rad or N/m], ≥ 0.
  double kd = 0;                ///< Derivative gain [N·m·s/rad or N·s/m], ≥ 0; kp + kd > 0.
  double q0 = 0;                ///< Joint position at the start of the step.
  double q_target = 0;          ///< q_d.
  double v_target = 0;          ///< v_d.
  double feedforward = 0;       ///< u_ff [N·m or N].
  double effort_limit = 1e300;  ///< e > 0.
};

class PdController final : public SapConstraint {
 public:
  explicit PdController(const PdControllerParams& p);
  int num_rows() const override { return 1; }
  double Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const override;

 private:
  double r_inv_;  // R⁻¹
  double v_hat_;  // v̂
  double bound_;  // Δt·e
};

}  // namespace ductile::contact
