// Point contact with the lagged Hunt-Crossley model and regularised Coulomb friction (Castro, Han, Masterjohn
// 2023, "Irrotational contact fields", Sec. V).
//
// Contact velocity v_c = (v_t1, v_t2, v_n) in a frame whose z axis is the contact normal; v_n > 0 separates.
// With φ₀ the signed distance at the start of the step (< 0 when penetrating), stiffness k, dissipation d:
//   f_e0 = −k φ₀                                             elastic force at the start of the step
//   n(v_n) = Δt·(f_e0 − Δt·k·v_n)₊·(1 − d·v_n)₊              normal impulse [N·s]
//   N(v_n) = ∫₀^{v_n} n(s) ds, constant for v_n ≥ v̂ = min(f_e0/(Δt·k), 1/d) where n vanishes
//   ‖x‖_s = √(‖x‖² + ε_s²) − ε_s,  ε_s = max(v_s, μ·σ·w·n₀)  regularised slip speed
//   ℓ(v_c) = −N(v_n) + μ·n₀·‖v_t‖_s                          with the lagged impulse n₀ = n(v_n0)
//   γ_n = n(v_n),  γ_t = −μ·n₀·v_t/√(‖v_t‖² + ε_s²)
//   G_nn = −n′(v_n),  G_tt = μ·n₀·(1/s − v_t v_tᵀ/s³), s = √(‖v_t‖² + ε_s²)
// f_e0 = −k φ₀ equals the spring force k·max(0, −φ₀) for a penetrating contact and lets a contact registered with a
// positive gap (speculative) push only once the gap would close within the step. The cost is convex: n is
// non-increasing in v_n, and ‖·‖_s is convex.
#pragma once

#include <Eigen/Core>

#include "contact/point_contact_kernels.h"
#include "contact/sap_constraint.h"

namespace ductile::contact {

class HuntCrossleyContact final : public SapConstraint {
 public:
  explicit HuntCrossleyContact(const HuntCrossleyParams& p) : cost_(HuntCrossleyCost::Make(p)) {}
  int num_rows() const override { return 3; }
  double Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const override;
  /// The same with fixed sizes, without allocation (the MPM contact solver calls it per particle contact).
  double Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const;
  /// n(v_n) [N·s].
  double NormalImpulse(double vn) const { return cost_.NormalImpulse(vn); }
  double lagged_normal_impulse() const { return cost_.n0; }

 private:
  HuntCrossleyCost cost_;  // the formulas, shared with the device backend (contact/point_contact_kernels.h)
};

}  // namespace ductile::contact
