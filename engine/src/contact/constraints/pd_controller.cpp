#include "contact/constraints/pd_controller.h"

namespace ductile::contact {

PdController::PdController(const PdControllerParams& p) {
  r_inv_ = p.dt * (p.dt * p.kp + p.kd);
  v_hat_ = p.dt * (-p.kp * (p.q0 - p.q_target) + p.kd * p.v_target + p.feedforward) / r_inv_;
  bound_ = p.dt * p.effort_limit;
}

double PdController::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  gamma.resize(1);
  const double x = vc[0] - v_hat_;
  const double y = -r_inv_ * x;
  if (G) G->setZero(1, 1);
  // |γ| reaches Δt·e at |x| = x_c = R·Δt·e.
  const double x_c = bound_ / r_inv_;
  if (y > bound_) {
    gamma[0] = bound_;
    return 0.5 * bound_ * x_c - bound_ * (x + x_c);
  }
  if (y < -bound_) {
    gamma[0] = -bound_;
    return 0.5 * bound_ * x_c + bound_ * (x - x_c);
  }
  gamma[0] = y;
  if (G) (*G)(0, 0) = r_inv_;
  return 0.5 * r_inv_ * x * x;
}

}  // namespace ductile::contact
