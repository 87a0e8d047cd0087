// Affine body dynamics (the formulas: fem/affine_body.h).
#include "fem/affine_body.h"

#include "fem/elasticity.h"

#include <Eigen/Geometry>

namespace ductile::fem {

Eigen::Matrix<double, 12, 12> AffineMassMatrix(double mass, const Eigen::Matrix3d& second_moment) {
  Eigen::Matrix<double, 12, 12> M = Eigen::Matrix<double, 12, 12>::Zero();
  M.block<3, 3>(0, 0) = mass * Eigen::Matrix3d::Identity();
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) M.block<3, 3>(3 + 3 * j, 3 + 3 * k) = second_moment(j, k) * Eigen::Matrix3d::Identity();
  return M;
}

Eigen::Matrix3d SecondMomentFromInertia(const Eigen::Matrix3d& inertia) {
  return 0.5 * inertia.trace() * Eigen::Matrix3d::Identity() - inertia;
}

Eigen::Vector3d AffinePoint(const Eigen::Matrix<double, 12, 1>& q, const Eigen::Vector3d& x_bar) {
  return q.segment<3>(0) + x_bar[0] * q.segment<3>(3) + x_bar[1] * q.segment<3>(6) + x_bar[2] * q.segment<3>(9);
}

Eigen::Matrix3d AffineMatrix(const Eigen::Matrix<double, 12, 1>& q) {
  Eigen::Matrix3d A;
  A << q.segment<3>(3), q.segment<3>(6), q.segment<3>(9);
  return A;
}

namespace {

Eigen::Matrix3d OrthogonalityGradient(const Eigen::Matrix3d& A) {
  return 4 * (A * A.transpose() - Eigen::Matrix3d::Identity()) * A;
}

}  // namespace

OrthogonalityTerms Orthogonality(const Eigen::Matrix3d& A, bool with_hessian) {
  OrthogonalityTerms out;
  const Eigen::Matrix3d E = A * A.transpose() - Eigen::Matrix3d::Identity();
  out.value = E.squaredNorm();
  const Eigen::Matrix3d G = OrthogonalityGradient(A);
  out.gradient = Eigen::Map<const Vector9d>(G.data());
  if (!with_hessian) return out;
  for (int c = 0; c < 9; ++c) {
    Eigen::Matrix3d dA = Eigen::Matrix3d::Zero();
    dA(c % 3, c / 3) = 1;  // column-major vec index c
    const Eigen::Matrix3d dG = 4 * ((dA * A.transpose() + A * dA.transpose()) * A + E * dA);
    out.hessian.col(c) = Eigen::Map<const Vector9d>(dG.data());
  }
  ProjectToPsd<9>(out.hessian);
  return out;
}

Eigen::Vector3d AffineAngularMomentum(const Eigen::Matrix<double, 12, 1>& q, const Eigen::Matrix<double, 12, 1>& q_dot,
                                      double mass, const Eigen::Matrix3d& second_moment) {
  Eigen::Vector3d L = mass * q.segment<3>(0).cross(q_dot.segment<3>(0));
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) L += second_moment(j, k) * q.segment<3>(3 + 3 * j).cross(q_dot.segment<3>(3 + 3 * k));
  return L;
}

}  // namespace ductile::fem
