// Lagged smoothed friction (the formulas: fem/ipc_friction.h).
#include "fem/ipc_friction.h"

#include "contact/contact_frame.h"

#include <Eigen/Geometry>
#include <cmath>

namespace ductile::fem {
namespace {

Eigen::Matrix<double, 2, 12> Gamma(const FrictionFrame& frame) {
  Eigen::Matrix<double, 2, 12> gamma;
  for (Eigen::Index i = 0; i < 4; ++i) gamma.block<2, 3>(0, 3 * i) = frame.weights[i] * frame.basis.transpose();
  return gamma;
}

}  // namespace

Eigen::Matrix<double, 3, 2> TangentBasis(const Eigen::Vector3d& normal) {
  return contact::ContactFrame(normal.normalized()).leftCols<2>();
}

FrictionFrame MakeFrictionFrame(const Eigen::Vector4d& w, const Eigen::Vector3d& x0, const Eigen::Vector3d& x1,
                                const Eigen::Vector3d& x2, const Eigen::Vector3d& x3, double normal_force) {
  FrictionFrame frame;
  frame.weights = w;
  frame.normal_force = normal_force;
  const Eigen::Vector3d relative = w[0] * x0 + w[1] * x1 + w[2] * x2 + w[3] * x3;
  frame.basis = TangentBasis(relative.squaredNorm() > 0 ? relative : Eigen::Vector3d::UnitZ());
  return frame;
}

double FrictionF0(double y, double eps) {
  if (y >= eps) return y;
  return y * y / eps - y * y * y / (3 * eps * eps) + eps / 3;
}

double FrictionF1(double y, double eps) {
  if (y >= eps) return 1;
  return 2 * y / eps - y * y / (eps * eps);
}

Eigen::Vector2d TangentialDisplacement(const FrictionFrame& frame, const Vector12d& displacement) {
  return Gamma(frame) * displacement;
}

PairEnergy FrictionPotential(const FrictionFrame& frame, const Vector12d& displacement, double mu, double eps) {
  PairEnergy out;
  const double scale = mu * frame.normal_force;
  if (scale == 0) return out;
  const Eigen::Matrix<double, 2, 12> gamma = Gamma(frame);
  const Eigen::Vector2d u = gamma * displacement;
  const double y = u.norm();
  out.energy = scale * FrictionF0(y, eps);
  Eigen::Matrix2d inner;
  if (y >= eps) {
    inner = (Eigen::Matrix2d::Identity() - u * u.transpose() / (y * y)) / y;
    out.gradient = scale / y * gamma.transpose() * u;
  } else {
    // f₁(y)/y = 2/ε − y/ε², finite at y = 0.
    const double f1_over_y = 2 / eps - y / (eps * eps);
    inner = f1_over_y * Eigen::Matrix2d::Identity();
    if (y > 0) inner -= u * u.transpose() / (eps * eps * y);
    out.gradient = scale * f1_over_y * gamma.transpose() * u;
  }
  out.hessian = scale * gamma.transpose() * inner * gamma;
  return out;
}

}  // namespace ductile::fem
