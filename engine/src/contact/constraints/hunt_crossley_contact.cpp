#include "contact/constraints/hunt_crossley_contact.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ductile::contact {

HuntCrossleyContact::HuntCrossleyContact(const HuntCrossleyParams& p) : p_(p) {
  fe0_ = -p.stiffness * p.phi0;
  v_hat_ = fe0_ / (p.dt * p.stiffness);
  if (p.dissipation > 0) v_hat_ = std::min(v_hat_, 1 / p.dissipation);
  n0_ = NormalImpulse(p.vn0);
  eps_ = std::max(p.stiction_speed, p.friction * p.sigma * p.delassus * n0_);
}

double HuntCrossleyContact::NormalImpulse(double vn) const {
  if (vn >= v_hat_) return 0;
  return p_.dt * (fe0_ - p_.dt * p_.stiffness * vn) * (1 - p_.dissipation * vn);
}

double HuntCrossleyContact::Antiderivative(double vn) const {
  // Δt ∫₀^v (f − a s)(1 − d s) ds = Δt (f v − (a + f d) v²/2 + a d v³/3), a = Δt k, f = f_e0.
  const double v = std::min(vn, v_hat_);
  const double a = p_.dt * p_.stiffness;
  const double f = fe0_;
  const double d = p_.dissipation;
  return p_.dt * (f * v - (a + f * d) * v * v / 2 + a * d * v * v * v / 3);
}

double HuntCrossleyContact::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  return CalcThroughFixedSize(*this, vc, gamma, G);
}

double HuntCrossleyContact::Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const {
  const double vn = vc[2];
  const Eigen::Vector2d vt = vc.head<2>();
  const double s = std::sqrt(vt.squaredNorm() + eps_ * eps_);
  const double mu_n0 = p_.friction * n0_;
  gamma.head<2>() = -mu_n0 * vt / s;
  gamma[2] = NormalImpulse(vn);
  if (G) {
    G->setZero();
    G->topLeftCorner<2, 2>() = mu_n0 * (Eigen::Matrix2d::Identity() / s - vt * vt.transpose() / (s * s * s));
    if (vn < v_hat_) {
      // n′(v) = Δt (−a (1 − d v) − d (f − a v)), a = Δt k.
      const double a = p_.dt * p_.stiffness;
      (*G)(2, 2) = -p_.dt * (-a * (1 - p_.dissipation * vn) - p_.dissipation * (fe0_ - a * vn));
    }
  }
  return -Antiderivative(vn) + mu_n0 * (s - eps_);
}

}  // namespace ductile::contact
