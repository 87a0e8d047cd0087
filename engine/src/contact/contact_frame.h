// The frame of a point contact: columns t₁, t₂, n with n the unit contact normal, right-handed. Contact
// velocities and impulses are expressed in it (z normal, x and y tangential).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>

namespace ductile::contact {

/// R_WC whose third column is the unit normal n (world) and whose first two span the tangent plane.
inline Eigen::Matrix3d ContactFrame(const Eigen::Vector3d& n) {
  const Eigen::Vector3d helper = std::abs(n.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  const Eigen::Vector3d t1 = helper.cross(n).normalized();
  Eigen::Matrix3d R;
  R.col(0) = t1;
  R.col(1) = n.cross(t1);
  R.col(2) = n;
  return R;
}

}  // namespace ductile::contact
