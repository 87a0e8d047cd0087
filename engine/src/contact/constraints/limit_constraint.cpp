#include "contact/constraints/limit_constraint.h"

#include <cmath>

namespace ductile::contact {

LimitConstraint::LimitConstraint(const LimitParams& p) {
  constexpr double kPi = 3.14159265358979323846;
  r_inv_ = 1 / NearRigidCompliance(p.beta, p.delassus);
  v_hat_ = -p.g0 / (p.dt + p.beta * p.dt / kPi);
}

double LimitConstraint::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  gamma.resize(1);
  const double y = r_inv_ * (v_hat_ - vc[0]);
  if (G) G->setZero(1, 1);
  if (y <= 0) {
    gamma[0] = 0;
    return 0;
  }
  gamma[0] = y;
  if (G) (*G)(0, 0) = r_inv_;
  return 0.5 * y * y / r_inv_;
}

}  // namespace ductile::contact
