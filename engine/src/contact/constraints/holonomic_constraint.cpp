#include "contact/constraints/holonomic_constraint.h"

namespace ductile::contact {

HolonomicConstraint::HolonomicConstraint(double dt, double beta, const std::vector<HolonomicRow>& rows) {
  constexpr double kPi = 3.14159265358979323846;
  const int n = static_cast<int>(rows.size());
  r_inv_.resize(n);
  v_hat_.resize(n);
  for (int i = 0; i < n; ++i) {
    const HolonomicRow& r = rows[i];
    if (r.stiffness > 0) {
      r_inv_[i] = dt * (dt * r.stiffness + r.damping);
      v_hat_[i] = -dt * r.stiffness * r.g0 / r_inv_[i];
    } else {
      r_inv_[i] = 1 / NearRigidCompliance(beta, r.delassus);
      v_hat_[i] = -r.g0 / (dt + beta * dt / kPi);
    }
  }
}

double HolonomicConstraint::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  const Eigen::VectorXd x = v_hat_ - vc;
  gamma = r_inv_.cwiseProduct(x);
  if (G) *G = r_inv_.asDiagonal();
  return 0.5 * x.dot(gamma);
}

}  // namespace ductile::contact
