// Conversions between the device-compatible small vectors and matrices (core/small_math.h) and Eigen's, for host
// code that hands data between the two: the MPM contact's warm starts in the State, the device contact's host solve,
// the particles the strong scheme's implicit step gathers.
#pragma once

#include <Eigen/Core>

#include "core/small_math.h"

namespace ductile {

inline Vec3d ToVec3d(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}
inline Eigen::Vector3d ToEigen(const Vec3d& v) {
  return {v.x, v.y, v.z};
}
inline Eigen::Vector3d ToEigen(const Vec3f& v) {
  return {v.x, v.y, v.z};
}
inline Mat3d ToMat3d(const Eigen::Matrix3d& m) {
  Mat3d r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = m(i, j);
  return r;
}
inline Eigen::Matrix3d ToEigen(const Mat3d& m) {
  Eigen::Matrix3d r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = m.m[i][j];
  return r;
}

}  // namespace ductile
