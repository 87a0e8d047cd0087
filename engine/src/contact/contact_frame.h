// The frame of a point contact: columns t₁, t₂, n with n the unit contact normal, right-handed. Contact
// velocities and impulses are expressed in it (z normal, x and y tangential).
#pragma once

#include <Eigen/Core>

#include "contact/point_contact_kernels.h"

namespace ductile::contact {

/// R_WC whose third column is the unit normal n (world) and whose first two span the tangent plane (the device
/// backend's ContactFrameOf, contact/point_contact_kernels.h).
inline Eigen::Matrix3d ContactFrame(const Eigen::Vector3d& n) {
  const Mat3<double> F = ContactFrameOf({n.x(), n.y(), n.z()});
  Eigen::Matrix3d R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R(i, j) = F.m[i][j];
  return R;
}

}  // namespace ductile::contact
