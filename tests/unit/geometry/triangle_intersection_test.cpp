// The exact triangle-triangle intersection test that the cloth fold test relies on (tests/support/
// triangle_intersection.h, a test helper, not engine code): hand-made cases for each way two closed triangles can
// meet or miss, and separations far below double round-off at unit scale, which only the exact fallback decides.
#include "support/triangle_intersection.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

namespace ductile::testing {
namespace {

using Triangle = std::array<Point3, 3>;

const Triangle kUnit{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}};  // in z = 0, normal +z

Triangle Shifted(const Triangle& t, double dx, double dy, double dz) {
  Triangle s = t;
  for (Point3& p : s) p = {p[0] + dx, p[1] + dy, p[2] + dz};
  return s;
}

// Both orders of the pair and every cyclic order of the first triangle's corners give the same answer.
void ExpectIntersect(const Triangle& p, const Triangle& q, bool expected) {
  for (int shift = 0; shift < 3; ++shift) {
    const Triangle r{p[shift], p[(shift + 1) % 3], p[(shift + 2) % 3]};
    EXPECT_EQ(TrianglesIntersect(r, q), expected) << "rotation " << shift;
    EXPECT_EQ(TrianglesIntersect(q, r), expected) << "rotation " << shift << ", swapped";
  }
}

TEST(TriangleIntersection, Orient3dIsExactBelowRoundOff) {
  // The plane x + y + z = 1 through a, b, c (normal (b − a) × (c − a) = (1, 1, 1)) and points 2⁻⁶⁰ off it: a − d
  // rounds in double and the rounding (~2⁻⁵³) exceeds the determinant, so the sign comes from the expansions.
  const Point3 a{1, 0, 0}, b{0, 1, 0}, c{0, 0, 1};
  const double tiny = std::ldexp(1.0, -60);
  EXPECT_EQ(Orient3d(a, b, c, {0.25, 0.25, 0.5}), 0);
  EXPECT_EQ(Orient3d(a, b, c, {tiny, 0.5, 0.5}), -1);  // on the normal's side
  EXPECT_EQ(Orient3d(a, b, c, {-tiny, 0.5, 0.5}), 1);
  EXPECT_EQ(Orient3d(a, b, c, {tiny, -tiny, 1}), 0);
  EXPECT_EQ(Orient3d(b, a, c, {tiny, 0.5, 0.5}), 1);  // swapping two corners flips it
  // Far from the origin, one ulp off the plane.
  const Point3 A{1e6 + 1, 1e6, 1e6}, B{1e6, 1e6 + 1, 1e6}, C{1e6, 1e6, 1e6 + 1};
  EXPECT_EQ(Orient3d(A, B, C, {1e6 + 0.25, 1e6 + 0.25, 1e6 + 0.5}), 0);
  EXPECT_EQ(Orient3d(A, B, C, {1e6 + 0.25, 1e6 + 0.25, std::nextafter(1e6 + 0.5, 2e6)}), -1);
}

TEST(TriangleIntersection, Orient2dIsExactBelowRoundOff) {
  // The line y = x from a to b (inexact decimals, but on the line exactly) and points 2⁻⁶⁰ beside it.
  const double tiny = std::ldexp(1.0, -60);
  const Point3 a{0.1, 0.1, 7}, b{0.7, 0.7, -3};
  EXPECT_EQ(Orient2d(a, b, {0.3, 0.3, 0}, 0, 1), 0);
  EXPECT_EQ(Orient2d(a, b, {tiny, tiny, 0}, 0, 1), 0);
  EXPECT_EQ(Orient2d(a, b, {0, tiny, 0}, 0, 1), 1);  // left of a → b
  EXPECT_EQ(Orient2d(a, b, {tiny, 0, 0}, 0, 1), -1);
  EXPECT_TRUE(IsDegenerate({0, 0, 0}, {1, 2, 3}, {2, 4, 6}));
  EXPECT_FALSE(IsDegenerate({0, 0, 0}, {1, 2, 3}, {2, 4, std::nextafter(6.0, 7.0)}));
}

TEST(TriangleIntersection, CrossingTrianglesIntersect) {
  // A vertical triangle in y = 0.25 through the unit triangle's interior.
  ExpectIntersect(kUnit, {{{0.25, 0.25, -1}, {0.25, 0.25, 1}, {3, 0.25, 0}}}, true);
  // A triangle in x = 0.2 whose edges pass beside the unit triangle while two of the unit triangle's edges pierce it.
  ExpectIntersect(kUnit, {{{0.2, -0.5, 0.5}, {0.2, 0.4, -0.5}, {0.2, 1.5, 0.5}}}, true);
  // Its mirror image above the plane misses.
  ExpectIntersect(kUnit, {{{0.2, -0.5, 0.5}, {0.2, 0.5, 0.1}, {0.2, 1.5, 0.5}}}, false);
}

TEST(TriangleIntersection, TouchingCounts) {
  // An edge of one lying on the other's face.
  ExpectIntersect(kUnit, {{{0.1, 0.1, 0}, {0.5, 0.1, 0}, {0.3, 0.1, 1}}}, true);
  // Edge along edge, in different planes, overlapping over part of their length.
  ExpectIntersect(kUnit, {{{0.2, 0, 0}, {1.5, 0, 0}, {0.5, -0.5, 0.7}}}, true);
  // A corner on the other's edge, the triangles in perpendicular planes.
  ExpectIntersect(kUnit, {{{0.5, 0.5, 0}, {1, 1, 0}, {0.75, 0.75, 1}}}, true);
  // A vertex on the face.
  ExpectIntersect(kUnit, {{{0.25, 0.25, 0}, {0, 0, 1}, {1, 1, 1}}}, true);
}

TEST(TriangleIntersection, CoplanarTrianglesOverlapOrNot) {
  ExpectIntersect(kUnit, kUnit, true);
  ExpectIntersect(kUnit, {{{0.2, 0.2, 0}, {1.2, 0.2, 0}, {0.2, 1.2, 0}}}, true);    // corners inside each other
  ExpectIntersect(kUnit, {{{0.1, 0.1, 0}, {0.3, 0.1, 0}, {0.1, 0.3, 0}}}, true);    // one inside the other
  ExpectIntersect(kUnit, {{{-0.2, 0.5, 0}, {0.5, -0.2, 0}, {0.6, 0.6, 0}}}, true);  // edges crossing, no corner inside
  ExpectIntersect(kUnit, {{{0.5, 0.5, 0}, {1.5, 0.5, 0}, {0.5, 1.5, 0}}}, true);    // a corner on its edge
  ExpectIntersect(kUnit, {{{0.6, 0.6, 0}, {1.6, 0.6, 0}, {0.6, 1.6, 0}}}, false);   // beyond its hypotenuse
  ExpectIntersect(kUnit, {{{-0.5, 0.5, 0}, {-0.1, 0.2, 0}, {-0.2, 1.5, 0}}}, false);  // beside it
  // The same in the tilted plane x + y + z = 1, with coordinates exact in binary.
  const Triangle tilted{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  ExpectIntersect(tilted, {{{0.25, 0.25, 0.5}, {0.5, 0.375, 0.125}, {0.75, -0.5, 0.75}}}, true);
  ExpectIntersect(tilted, {{{0.75, 0.5, -0.25}, {1, 0.5, -0.5}, {0.75, 0.75, -0.5}}}, false);
}

TEST(TriangleIntersection, SeparatedByATrillionthOfAMetreDoNotIntersect) {
  const double gap = 1e-12;
  ExpectIntersect(kUnit, Shifted(kUnit, 0, 0, gap), false);  // parallel layers
  ExpectIntersect(kUnit, {{{0.1, 0.1, gap}, {0.5, 0.1, gap}, {0.3, 0.1, 1}}}, false);
  ExpectIntersect(kUnit, {{{0.25, 0.25, gap}, {0, 0, 1}, {1, 1, 1}}}, false);
  // In the plane x = 0.5, reaching down through z = 0 only beyond the unit triangle's corner (0.5, 0.5, 0).
  ExpectIntersect(kUnit, {{{0.5, 0.5 + gap, -1}, {0.5, 0.5 + gap, 1}, {0.5, 2, 0}}}, false);
  ExpectIntersect(kUnit, {{{0.5, 0.5, -1}, {0.5, 0.5, 1}, {0.5, 2, 0}}}, true);
  // Coplanar, a gap across the hypotenuse.
  ExpectIntersect(kUnit, {{{0.5 + gap, 0.5, 0}, {1.5, 0.5, 0}, {0.5 + gap, 1.5, 0}}}, false);
  // A vertex one ulp above the tilted plane x + y + z = 1, below the round-off of the double determinant.
  const Triangle tilted{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  ExpectIntersect(tilted, {{{0.25, 0.25, std::nextafter(0.5, 1.0)}, {0, 0, 2}, {1, 1, 2}}}, false);
  ExpectIntersect(tilted, {{{0.25, 0.25, 0.5}, {0, 0, 2}, {1, 1, 2}}}, true);
  ExpectIntersect(tilted, {{{0.25, 0.25, std::nextafter(0.5, 0.0)}, {0, 0, 2}, {1, 1, 2}}}, true);
}

}  // namespace
}  // namespace ductile::testing
