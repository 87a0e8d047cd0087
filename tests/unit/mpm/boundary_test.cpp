// Grid boundary conditions and the analytic collider distances (engine/src/mpm/boundary.h).
#include "mpm/boundary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace ductile::mpm {
namespace {

constexpr float kTol = 1e-6f;  // float round-off on O(1) values

void ExpectVec(const Vec3f& a, const Vec3f& b, float tol = kTol) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

TEST(Boundary, StickyStops) {
  ExpectVec(ApplyBoundary(BoundaryKind::kSticky, 0, {0, 0, 1}, {1, 2, 3}), {0, 0, 0});
}

TEST(Boundary, SlipRemovesTheNormalPartBothWays) {
  const Vec3f n{0, 0, 1};
  ExpectVec(ApplyBoundary(BoundaryKind::kSlip, 0, n, {1, 2, -3}), {1, 2, 0});
  ExpectVec(ApplyBoundary(BoundaryKind::kSlip, 0, n, {1, 2, 3}), {1, 2, 0});
}

TEST(Boundary, SeparateOnlyStopsApproach) {
  const Vec3f n{0, 0, 1};
  ExpectVec(ApplyBoundary(BoundaryKind::kSeparate, 0, n, {1, 2, -3}), {1, 2, 0});
  ExpectVec(ApplyBoundary(BoundaryKind::kSeparate, 0, n, {1, 2, 3}), {1, 2, 3});
}

TEST(Boundary, FrictionFollowsCoulomb) {
  const Vec3f n{0, 0, 1};
  // Approaching at 1 m/s with μ = 0.5: tangential speed reduced by μ·1 = 0.5.
  ExpectVec(ApplyBoundary(BoundaryKind::kFriction, 0.5f, n, {2, 0, -1}), {1.5f, 0, 0});
  // Tangential speed below μ|v_n|: sticks.
  ExpectVec(ApplyBoundary(BoundaryKind::kFriction, 0.5f, n, {0.3f, 0.4f, -1}), {0, 0, 0});
  // Separating: untouched.
  ExpectVec(ApplyBoundary(BoundaryKind::kFriction, 0.5f, n, {2, 0, 1}), {2, 0, 1});
  // Direction of the tangential part is kept.
  const Vec3f v = ApplyBoundary(BoundaryKind::kFriction, 0.1f, n, {3, 4, -5});
  EXPECT_NEAR(v.x / v.y, 0.75f, kTol);
  EXPECT_NEAR(std::hypot(v.x, v.y), 5.0f - 0.5f, 1e-5f);
}

Collider Placed(ColliderShape shape) {
  Collider c;
  c.shape = shape;
  // Rotated 30° about z and moved, so the frame transform is exercised.
  const float s = 0.5f, co = std::sqrt(3.0f) / 2;
  c.R_WC = Mat3f::Identity();
  c.R_WC.m[0][0] = co;
  c.R_WC.m[0][1] = -s;
  c.R_WC.m[1][0] = s;
  c.R_WC.m[1][1] = co;
  c.p_WC = {0.1f, -0.2f, 0.3f};
  c.half_extents = {0.2f, 0.1f, 0.05f};
  c.radius = 0.1f;
  c.half_length = 0.2f;
  return c;
}

// A point given in the collider frame, mapped to the world.
Vec3f World(const Collider& c, const Vec3f& p_C) {
  return c.R_WC * p_C + c.p_WC;
}

TEST(ColliderDistance, KnownValues) {
  Vec3f n;
  const Collider plane = Placed(ColliderShape::kPlane);
  EXPECT_NEAR(ColliderSignedDistance(plane, World(plane, {5, 5, 0.25f}), n), 0.25f, kTol);
  ExpectVec(n, plane.R_WC * Vec3f{0, 0, 1});

  const Collider sphere = Placed(ColliderShape::kSphere);
  EXPECT_NEAR(ColliderSignedDistance(sphere, World(sphere, {0, 0.3f, 0}), n), 0.2f, kTol);
  EXPECT_NEAR(ColliderSignedDistance(sphere, World(sphere, {0.05f, 0, 0}), n), -0.05f, kTol);

  const Collider box = Placed(ColliderShape::kBox);
  EXPECT_NEAR(ColliderSignedDistance(box, World(box, {0.5f, 0, 0}), n), 0.3f, kTol);  // face
  ExpectVec(n, box.R_WC * Vec3f{1, 0, 0});
  EXPECT_NEAR(ColliderSignedDistance(box, World(box, {0.5f, 0.5f, 0}), n), 0.5f, kTol);  // edge: √(0.3² + 0.4²)
  EXPECT_NEAR(ColliderSignedDistance(box, World(box, {0, 0, 0.04f}), n), -0.01f, kTol);  // inside, nearest face z
  ExpectVec(n, box.R_WC * Vec3f{0, 0, 1});

  const Collider cylinder = Placed(ColliderShape::kCylinder);
  EXPECT_NEAR(ColliderSignedDistance(cylinder, World(cylinder, {0.3f, 0, 0}), n), 0.2f, kTol);   // side
  EXPECT_NEAR(ColliderSignedDistance(cylinder, World(cylinder, {0, 0, -0.5f}), n), 0.3f, kTol);  // cap
  ExpectVec(n, cylinder.R_WC * Vec3f{0, 0, -1});
  EXPECT_NEAR(ColliderSignedDistance(cylinder, World(cylinder, {0.4f, 0, 0.6f}), n), 0.5f, kTol);  // rim
  EXPECT_NEAR(ColliderSignedDistance(cylinder, World(cylinder, {0.05f, 0, 0.1f}), n), -0.05f, kTol);
}

TEST(ColliderDistance, NormalIsTheDistanceGradient) {
  // Where φ is differentiable, the returned normal equals ∇φ (central differences, step 1e-3 m; float φ of O(0.1)
  // has round-off ~1e-8, so the difference quotient is good to ~1e-4 away from edges).
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.6f, 0.6f);
  for (ColliderShape shape :
       {ColliderShape::kPlane, ColliderShape::kSphere, ColliderShape::kBox, ColliderShape::kCylinder}) {
    const Collider c = Placed(shape);
    int checked = 0;
    for (int k = 0; k < 200; ++k) {
      const Vec3f p{u(rng), u(rng), u(rng)};
      Vec3f n;
      ColliderSignedDistance(c, p, n);
      const float step = 1e-3f;
      Vec3f grad;
      bool smooth = true;
      for (int a = 0; a < 3; ++a) {
        Vec3f hi = p, lo = p, n_hi, n_lo;
        hi[a] += step;
        lo[a] -= step;
        grad[a] = (ColliderSignedDistance(c, hi, n_hi) - ColliderSignedDistance(c, lo, n_lo)) / (2 * step);
        // Skip points whose stencil straddles a crease of φ (the normal jumps there).
        if (SquaredNorm(n_hi - n_lo) > 1e-4f) smooth = false;
      }
      if (!smooth) continue;
      ++checked;
      ExpectVec(grad, n, 2e-3f);
    }
    EXPECT_GT(checked, 100) << "shape " << static_cast<int>(shape);
  }
}

}  // namespace
}  // namespace ductile::mpm
