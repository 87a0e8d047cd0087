// The signed polar decomposition and its rotation's differential; the equations are in core/signed_polar.h.
#include "core/signed_polar.h"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>
#include <Eigen/SVD>

namespace ductile {

SignedPolar ComputeSignedPolar(const Eigen::Matrix3d& F) {
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d U = svd.matrixU();
  SignedPolar polar{.R = Eigen::Matrix3d::Identity(), .V = svd.matrixV(), .sigma = svd.singularValues()};
  if (U.determinant() * polar.V.determinant() < 0) {
    U.col(2) *= -1.0;  // the singular values are sorted in decreasing order: index 2 is the smallest
    polar.sigma(2) *= -1.0;
  }
  polar.R = U * polar.V.transpose();
  return polar;
}

Eigen::Matrix3d RotationDifferential(const SignedPolar& polar, const Eigen::Matrix3d& dF) {
  const Eigen::Matrix3d M = polar.R.transpose() * dF - dF.transpose() * polar.R;
  const Eigen::Vector3d axial(M(2, 1), M(0, 2), M(1, 0));
  Eigen::Vector3d inverse_sums;
  for (int i = 0; i < 3; ++i) {
    const double sum = polar.sigma((i + 1) % 3) + polar.sigma((i + 2) % 3);
    inverse_sums(i) = 1.0 / std::copysign(std::max(std::abs(sum), kMinSingularSum), sum);
  }
  const Eigen::Vector3d omega = polar.V * inverse_sums.asDiagonal() * polar.V.transpose() * axial;
  Eigen::Matrix3d omega_cross;
  omega_cross << 0, -omega(2), omega(1), omega(2), 0, -omega(0), -omega(1), omega(0), 0;
  return polar.R * omega_cross;
}

}  // namespace ductile
