// Element-wise comparisons of parsed vectors and quaternions for the scene loader tests.
#pragma once

#include <gtest/gtest.h>

#include <array>

#include "ductile/scene.h"

namespace ductile::testing {

inline void ExpectVector(const Vector3& actual, const Vector3& expected) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(actual[i], expected[i], 1e-12) << "component " << i;
}

inline void ExpectQuaternion(const std::array<double, 4>& actual, const std::array<double, 4>& expected) {
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(actual[i], expected[i], 1e-12) << "component " << i;
}

}  // namespace ductile::testing
