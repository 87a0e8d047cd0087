// CombineFriction against the values of Drake's rule μ = 2 μ₁ μ₂ / (μ₁ + μ₂) worked by hand.
#include "contact/friction_combination.h"

#include <gtest/gtest.h>

namespace ductile::contact {
namespace {

TEST(CombineFriction, HarmonicMeanOfTheTwoCoefficients) {
  EXPECT_DOUBLE_EQ(CombineFriction(0.5, 0.5), 0.5);   // equal surfaces keep their μ
  EXPECT_DOUBLE_EQ(CombineFriction(0.2, 0.6), 0.3);   // 2 · 0.12 / 0.8
  EXPECT_DOUBLE_EQ(CombineFriction(1.0, 0.25), 0.4);  // 2 · 0.25 / 1.25
  EXPECT_EQ(CombineFriction(0.3, 0.9), CombineFriction(0.9, 0.3));
}

TEST(CombineFriction, AFrictionlessSurfaceMakesTheContactFrictionless) {
  EXPECT_EQ(CombineFriction(0.0, 0.7), 0);
  EXPECT_EQ(CombineFriction(0.7, 0.0), 0);
  EXPECT_EQ(CombineFriction(0.0, 0.0), 0);  // not 0/0
}

}  // namespace
}  // namespace ductile::contact
