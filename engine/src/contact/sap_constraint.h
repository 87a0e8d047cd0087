// One SAP constraint (Castro, Permenter, Han 2022, "An unconstrained convex formulation of compliant contact",
// Sec. IV-V): a convex cost ℓ(v_c) of the constraint velocity v_c = J v + b (size num_rows()), its impulse
// γ = −∂ℓ/∂v_c and its Hessian G = ∂²ℓ/∂v_c² ⪰ 0. The SAP solver minimises ½‖v − v*‖²_A + Σ ℓ_i(J_i v + b_i).
// One file per constraint type in constraints/; each is immutable after construction.
#pragma once

#include <Eigen/Core>

namespace ductile::contact {

class SapConstraint {
 public:
  virtual ~SapConstraint() = default;
  /// Size of the constraint velocity.
  virtual int num_rows() const = 0;
  /// Returns ℓ(v_c) [J]; writes γ [N·s or N·m·s] (size num_rows()) and, when G is not null, the Hessian
  /// G (num_rows() × num_rows()).
  virtual double Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const = 0;
};

/// SapConstraint::Calc of a 3-row point contact through its fixed-size Calc3 (which the MPM contact solvers call per
/// particle contact without allocating).
template <typename PointContact>
double CalcThroughFixedSize(const PointContact& c, const Eigen::VectorXd& vc, Eigen::VectorXd& gamma,
                            Eigen::MatrixXd* G) {
  Eigen::Vector3d g3;
  Eigen::Matrix3d G3;
  const double cost = c.Calc3(Eigen::Vector3d(vc[0], vc[1], vc[2]), g3, G ? &G3 : nullptr);
  gamma = g3;
  if (G) *G = G3;
  return cost;
}

/// The near-rigid regularisation of Castro et al. 2022 (Sec. V-B): R = β²/(4π²)·w for a Delassus estimate w
/// [1/kg or 1/(kg·m²)]; with β = 1 a constraint behaves like a critically damped spring whose period is one time
/// step, the stiffest the step can resolve.
inline double NearRigidCompliance(double beta, double w) {
  constexpr double kPi = 3.14159265358979323846;
  return beta * beta / (4 * kPi * kPi) * w;
}

}  // namespace ductile::contact
