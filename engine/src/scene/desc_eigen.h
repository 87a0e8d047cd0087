// Scene-description values (ductile/scene.h) as Eigen types, for the code that compiles descriptions into models.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "ductile/scene.h"

namespace ductile {

inline Eigen::Vector3d ToEigen(const Vector3& v) {
  return {v[0], v[1], v[2]};
}

/// The pose's orientation, normalised.
inline Eigen::Quaterniond ToQuaternion(const PoseDesc& pose) {
  return Eigen::Quaterniond(pose.quaternion[0], pose.quaternion[1], pose.quaternion[2], pose.quaternion[3])
      .normalized();
}

/// The pose as a rigid transform X_WB.
inline Eigen::Isometry3d ToIsometry(const PoseDesc& pose) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = ToEigen(pose.position);
  X.linear() = ToQuaternion(pose).toRotationMatrix();
  return X;
}

}  // namespace ductile
