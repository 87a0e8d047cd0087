#include "contact/constraints/friction_cone_contact.h"

#include <cmath>

#include "contact/sap_constraint.h"

namespace ductile::contact {

FrictionConeContact::FrictionConeContact(const FrictionConeParams& p) : mu_(p.friction) {
  constexpr double kPi = 3.14159265358979323846;
  const double Rn = NearRigidCompliance(p.beta, p.delassus);
  const double Rt = p.sigma * p.delassus;
  sqrt_rt_ = std::sqrt(Rt);
  sqrt_rn_ = std::sqrt(Rn);
  mu_tilde_ = mu_ * sqrt_rt_ / sqrt_rn_;
  const double tau_d = p.beta * p.dt / kPi;
  // A speculative contact (a gap φ₀ > 0 at the step's start) may close its gap within the step and no more; a
  // penetrating one is pushed out over Δt + τ_d, the critically damped spring's time.
  v_hat_ = p.phi0 > 0 ? -p.phi0 / p.dt : -p.phi0 / (p.dt + tau_d);
}

double FrictionConeContact::Calc(const Eigen::VectorXd& vc, Eigen::VectorXd& gamma, Eigen::MatrixXd* G) const {
  return CalcThroughFixedSize(*this, vc, gamma, G);
}

double FrictionConeContact::Calc3(const Eigen::Vector3d& vc, Eigen::Vector3d& gamma, Eigen::Matrix3d* G) const {
  // ỹ = R^(−½) (v̂ − v_c).
  const Eigen::Vector2d yt = -vc.head<2>() / sqrt_rt_;
  const double yn = (v_hat_ - vc[2]) / sqrt_rn_;
  const double r = yt.norm();
  Eigen::Vector3d P;  // P̃(ỹ)
  Eigen::Matrix3d dP = Eigen::Matrix3d::Zero();
  if (r <= mu_tilde_ * yn) {  // stiction (includes ỹ = 0 only when yn ≥ 0)
    P << yt, yn;
    dP.setIdentity();
  } else if (mu_tilde_ * r <= -yn) {  // separation
    P.setZero();
  } else {  // sliding: r > 0 here
    const double scale = 1 / (1 + mu_tilde_ * mu_tilde_);
    const double pn = (yn + mu_tilde_ * r) * scale;
    const Eigen::Vector2d t = yt / r;
    P << mu_tilde_ * pn * t, pn;
    dP.topLeftCorner<2, 2>() = mu_tilde_ * mu_tilde_ * scale * t * t.transpose() +
                               (mu_tilde_ * pn / r) * (Eigen::Matrix2d::Identity() - t * t.transpose());
    dP.topRightCorner<2, 1>() = mu_tilde_ * scale * t;
    dP.bottomLeftCorner<1, 2>() = mu_tilde_ * scale * t.transpose();
    dP(2, 2) = scale;
  }
  // γ = R^(−½) P̃, G = R^(−½) ∂P̃/∂ỹ R^(−½).
  const Eigen::Vector3d inv_sqrt_r(1 / sqrt_rt_, 1 / sqrt_rt_, 1 / sqrt_rn_);
  gamma = inv_sqrt_r.cwiseProduct(P);
  if (G) *G = inv_sqrt_r.asDiagonal() * dP * inv_sqrt_r.asDiagonal();
  return 0.5 * P.squaredNorm();
}

}  // namespace ductile::contact
