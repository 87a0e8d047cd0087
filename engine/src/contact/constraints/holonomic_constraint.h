// A bilateral (holonomic) constraint g(q) = 0 of any size with a diagonal compliance (Castro et al. 2022): welds
// that attach a grasped object or a gripper (g = the 6-vector of rotation and position error between two frames)
// and pose-tracking ("mocap") bodies driven by a spring-damper to a target. With the constraint velocity v_c:
//   γ = R⁻¹(v̂ − v_c),  ℓ = ½(v̂ − v_c)ᵀR⁻¹(v̂ − v_c),  G = R⁻¹
// Near-rigid rows (stiffness ∞): R = β²/(4π²)·w, v̂ = −g₀/(Δt + τ_d), τ_d = β·Δt/π.
// Spring-damper rows (stiffness K, damping D): R = 1/(Δt(Δt·K + D)), v̂ = −Δt·K·g₀·R (the implicit PD of
// pd_controller.h with a zero target).
#pragma once

#include <vector>

#include "contact/sap_constraint.h"

namespace ductile::contact {

struct HolonomicRow {
  double g0 = 0;         ///< Constraint value at the start of the step.
  double stiffness = 0;  ///< K; ≤ 0 means near-rigid.
  double damping = 0;    ///< D (spring-damper rows).
  double delassus = 1;   ///< w (near-rigid rows).
};

class HolonomicConstraint final : public SapConstraint {
 public:
  HolonomicConstraint(double dt, double beta, const std::vector<HolonomicRow>& rows);
  int num_rows() const override { return static_cast<int>(r_inv_.size()); }
  double Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const override;

 private:
  Eigen::VectorXd r_inv_;
  Eigen::VectorXd v_hat_;
};

}  // namespace ductile::contact
