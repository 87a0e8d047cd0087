// One SAP constraint (Castro, Permenter, Han 2022, "An unconstrained convex formulation of compliant contact",
// Sec. IV-V): a convex cost ℓ(v_c) of the constraint velocity v_c = J v + b (size num_rows()), its impulse
// γ = −∂ℓ/∂v_c and its Hessian G = ∂²ℓ/∂v_c² ⪰ 0. The SAP solver minimises ½‖v − v*‖²_A + Σ ℓ_i(J_i v + b_i).
// One file per constraint type in constraints/; each is immutable after construction.
#pragma once

#include <Eigen/Core>

#include "contact/point_contact_kernels.h"  // NearRigidCompliance

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

/// Calc3 of a 3-row point contact through its SIM_HD cost (contact/point_contact_kernels.h): Eigen in and out.
template <typename Cost>
double Calc3ThroughKernel(const Cost& cost, const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) {
  Vec3<double> g;
  Mat3<double> H;
  const double value = cost.Calc3({vc.x(), vc.y(), vc.z()}, g, G ? &H : nullptr);
  gamma = {g.x, g.y, g.z};
  if (G)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) (*G)(i, j) = H.m[i][j];
  return value;
}

}  // namespace ductile::contact
