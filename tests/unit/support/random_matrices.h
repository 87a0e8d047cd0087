// Random rotations and matrix norms shared by the unit tests of the math kernels.
#pragma once

#include <cmath>
#include <numbers>
#include <random>

#include "core/small_math.h"

namespace ductile::testing {

/// A rotation about a uniformly random axis by an angle uniform in [−max_angle, max_angle] (Rodrigues' formula).
inline Mat3d RandomRotation(std::mt19937& rng, double max_angle = std::numbers::pi) {
  std::normal_distribution<double> normal;
  Vec3d axis(normal(rng), normal(rng), normal(rng));
  axis = axis / Norm(axis);
  const double angle = std::uniform_real_distribution<double>(-max_angle, max_angle)(rng);
  Mat3d K;  // cross-product matrix of the axis
  K(0, 1) = -axis.z;
  K(0, 2) = axis.y;
  K(1, 0) = axis.z;
  K(1, 2) = -axis.x;
  K(2, 0) = -axis.y;
  K(2, 1) = axis.x;
  return Mat3d::Identity() + K * std::sin(angle) + K * K * (1.0 - std::cos(angle));
}

/// ‖A‖_F.
inline double Frobenius(const Mat3d& A) {
  return std::sqrt(A.SquaredNorm());
}

}  // namespace ductile::testing
