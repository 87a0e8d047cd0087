// Signed distances of the primitives: known values inside and outside, and the normal equal to the gradient of φ
// by central differences at random points (away from the creases where φ is not differentiable).
#include <gtest/gtest.h>

#include <random>

#include "geometry/signed_distance.h"

namespace ductile::geometry {
namespace {

using Eigen::Vector3d;

CollisionGeometry Shape(ShapeType type) {
  CollisionGeometry g;
  g.type = type;
  g.half_extents = Vector3d(0.1, 0.2, 0.3);
  g.radius = 0.1;
  g.length = 0.4;
  g.normal = Vector3d(0, 0, 1);
  return g;
}

Eigen::Isometry3d Placement() {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Vector3d(0.5, -0.2, 0.3);
  X.linear() = Eigen::AngleAxisd(0.7, Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  return X;
}

TEST(SignedDistance, KnownValues) {
  const Eigen::Isometry3d I = Eigen::Isometry3d::Identity();
  EXPECT_DOUBLE_EQ(SignedDistance(Shape(ShapeType::kPlane), I, Vector3d(3, 4, -0.02)), -0.02);
  EXPECT_DOUBLE_EQ(SignedDistance(Shape(ShapeType::kSphere), I, Vector3d(0, 0.3, 0)), 0.2);
  EXPECT_DOUBLE_EQ(SignedDistance(Shape(ShapeType::kBox), I, Vector3d(0.05, 0, 0)), -0.05);
  EXPECT_NEAR(SignedDistance(Shape(ShapeType::kBox), I, Vector3d(0.4, 0.6, 0)), 0.5, 1e-15);  // corner: 3-4-5
  EXPECT_DOUBLE_EQ(SignedDistance(Shape(ShapeType::kCylinder), I, Vector3d(0, 0, 0.25)), 0.05);
  EXPECT_NEAR(SignedDistance(Shape(ShapeType::kCylinder), I, Vector3d(0.09, 0, 0)), -0.01, 1e-15);
  EXPECT_NEAR(SignedDistance(Shape(ShapeType::kCapsule), I, Vector3d(0, 0, 0.35)), 0.05, 1e-15);
  Vector3d n;
  SignedDistance(Shape(ShapeType::kBox), I, Vector3d(0.09, 0.05, -0.1), &n);
  EXPECT_EQ(n, Vector3d(1, 0, 0));  // nearest face of the inside point
}

TEST(SignedDistance, NormalIsTheGradient) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  const Eigen::Isometry3d X = Placement();
  for (ShapeType type :
       {ShapeType::kPlane, ShapeType::kSphere, ShapeType::kBox, ShapeType::kCylinder, ShapeType::kCapsule}) {
    const CollisionGeometry g = Shape(type);
    int checked = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const Vector3d p = X * Vector3d(u(rng), u(rng), u(rng));
      Vector3d n;
      SignedDistance(g, X, p, &n);
      Vector3d fd;
      const double h = 1e-6;
      for (int a = 0; a < 3; ++a) {
        Vector3d e = Vector3d::Zero();
        e[a] = h;
        fd[a] = (SignedDistance(g, X, p + e) - SignedDistance(g, X, p - e)) / (2 * h);
      }
      if (std::abs(fd.norm() - 1) > 1e-3) continue;  // a crease between two faces: not differentiable there
      EXPECT_LT((n - fd).norm(), 1e-6) << "shape " << static_cast<int>(type) << " at " << p.transpose();
      EXPECT_NEAR(n.norm(), 1, 1e-12);
      ++checked;
    }
    EXPECT_GT(checked, 150) << "shape " << static_cast<int>(type);
  }
}

}  // namespace
}  // namespace ductile::geometry
