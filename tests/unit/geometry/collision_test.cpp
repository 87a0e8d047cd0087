// CollisionWorld: contact points, normals and depths of the analytic half-space pairs and of the FCL pairs,
// collision filtering, and copies.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "geometry/collision.h"
#include "geometry/mesh_import.h"

namespace ductile::geometry {
namespace {

using Eigen::Vector3d;

CollisionGeometry Plane() {
  CollisionGeometry g;
  g.type = ShapeType::kPlane;
  return g;
}

CollisionGeometry Shape(ShapeType type, int body) {
  CollisionGeometry g;
  g.type = type;
  g.body = body;
  g.half_extents = Vector3d(0.05, 0.05, 0.05);
  g.radius = 0.05;
  g.length = 0.2;
  return g;
}

Eigen::Isometry3d At(const Vector3d& p, const Eigen::Matrix3d& R = Eigen::Matrix3d::Identity()) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = p;
  X.linear() = R;
  return X;
}

TEST(Collision, BoxOnAPlaneTouchesAtItsFourLowerCorners) {
  CollisionWorld world;
  world.Add(Plane());
  world.Add(Shape(ShapeType::kBox, 0));
  const std::vector<ContactPoint> c = world.FindContacts({At(Vector3d(0, 0, 0.049))});
  ASSERT_EQ(c.size(), 4u);
  for (const ContactPoint& p : c) {
    EXPECT_EQ(p.a, 0);
    EXPECT_EQ(p.b, 1);
    EXPECT_LT((p.n_W - Vector3d::UnitZ()).norm(), 1e-12);
    EXPECT_NEAR(p.depth, 1e-3, 1e-12);
    EXPECT_NEAR(p.p_W.z(), -0.5e-3, 1e-12);  // midway between the plane and the corner
    EXPECT_NEAR(std::abs(p.p_W.x()), 0.05, 1e-12);
  }
  EXPECT_TRUE(world.FindContacts({At(Vector3d(0, 0, 0.051))}).empty());
}

TEST(Collision, CylinderFlatOnAPlaneRestsOnItsRimAndOnItsSideOnTwoPoints) {
  CollisionWorld world;
  world.Add(Plane());
  world.Add(Shape(ShapeType::kCylinder, 0));
  EXPECT_EQ(world.FindContacts({At(Vector3d(0, 0, 0.099))}).size(), 8u);
  const Eigen::Matrix3d on_side = Eigen::AngleAxisd(M_PI / 2, Vector3d::UnitX()).toRotationMatrix();
  const std::vector<ContactPoint> c = world.FindContacts({At(Vector3d(0, 0, 0.049), on_side)});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(std::abs(c[0].p_W.y()), 0.1, 1e-9);  // one at each cap
}

TEST(Collision, CapsuleOnAPlaneTouchesWithBothEnds) {
  CollisionWorld world;
  world.Add(Plane());
  world.Add(Shape(ShapeType::kCapsule, 0));
  const Eigen::Matrix3d on_side = Eigen::AngleAxisd(M_PI / 2, Vector3d::UnitY()).toRotationMatrix();
  const std::vector<ContactPoint> c = world.FindContacts({At(Vector3d(0, 0, 0.048), on_side)});
  ASSERT_EQ(c.size(), 2u);
  for (const ContactPoint& p : c) EXPECT_NEAR(p.depth, 2e-3, 1e-12);
}

TEST(Collision, SpheresThroughFclHaveTheirDepthAndANormalFromAToB) {
  CollisionWorld world;
  world.Add(Shape(ShapeType::kSphere, 0));
  world.Add(Shape(ShapeType::kSphere, 1));
  const std::vector<ContactPoint> c = world.FindContacts({At(Vector3d(0, 0, 0)), At(Vector3d(0.09, 0, 0))});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].depth, 0.01, 1e-6);
  EXPECT_LT((c[0].n_W - Vector3d::UnitX()).norm(), 1e-6);
}

TEST(Collision, StackedBoxesGetSeveralPointsAndFilteredPairsNone) {
  CollisionWorld world;
  world.Add(Shape(ShapeType::kBox, 0));
  world.Add(Shape(ShapeType::kBox, 1));
  const std::vector<Eigen::Isometry3d> poses{At(Vector3d(0, 0, 0.05)), At(Vector3d(0.01, 0.005, 0.1495))};
  const std::vector<ContactPoint> c = world.FindContacts(poses);
  ASSERT_GE(c.size(), 4u);  // a face contact: the overlap's corners
  for (const ContactPoint& p : c) {
    EXPECT_GT(p.n_W.z(), 0.99);
    EXPECT_NEAR(p.depth, 5e-4, 1e-6);
  }
  world.ExcludeBodyPair(1, 0);
  EXPECT_TRUE(world.FindContacts(poses).empty());
}

TEST(Collision, MeshAgainstABoxThroughFcl) {
  CollisionWorld world;
  CollisionGeometry mesh = Shape(ShapeType::kMesh, 0);
  auto cube =
      std::make_shared<TriangleMesh>(LoadMesh(std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "meshes/cube.obj"));
  mesh.mesh = cube;
  world.Add(mesh);
  world.Add(Shape(ShapeType::kBox, 1));
  const Bounds b = AxisAlignedBounds(*cube);
  const double half = 0.5 * (b.max.z() - b.min.z());
  EXPECT_FALSE(world.FindContacts({At(Vector3d::Zero()), At(Vector3d(0, 0, half + 0.049))}).empty());
  EXPECT_TRUE(world.FindContacts({At(Vector3d::Zero()), At(Vector3d(0, 0, half + 0.06))}).empty());
}

TEST(Collision, ACopyFindsTheSameContacts) {
  CollisionWorld world;
  world.Add(Plane());
  world.Add(Shape(ShapeType::kSphere, 0));
  const CollisionWorld copy = world;
  const std::vector<Eigen::Isometry3d> poses{At(Vector3d(0, 0, 0.04))};
  ASSERT_EQ(copy.FindContacts(poses).size(), 1u);
  EXPECT_EQ(copy.FindContacts(poses)[0].depth, world.FindContacts(poses)[0].depth);
}

// Distance (the teleoperation IK's self-collision margin, robot/self_collision.h): two cylinders side by side, their
// axes parallel and 0.3 m apart, are 0.3 − 2·0.05 = 0.2 m apart, with nearest points on the facing sides, in the
// world (GJK's tolerance: 1e-6 m); rotated about the line between them nothing changes; overlapping by 2 cm the
// distance is −0.02 m (EPA). A box's bounding radius is its half diagonal, a cylinder's √(r² + (L/2)²).
TEST(Collision, DistanceBetweenCylindersAndTheirNearestPointsInTheWorld) {
  CollisionWorld world;
  const int a = world.Add(Shape(ShapeType::kCylinder, 0));
  const int b = world.Add(Shape(ShapeType::kCylinder, 1));
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.7, Vector3d::UnitX()).toRotationMatrix();
  const Vector3d o(0.4, -0.2, 1.0);
  const GeometryDistance d = world.Distance(a, At(o, R), b, At(o + Vector3d(0.3, 0, 0), R));
  EXPECT_NEAR(d.distance, 0.2, 1e-6);
  EXPECT_NEAR(d.p_A.x(), o.x() + 0.05, 1e-6);
  EXPECT_NEAR(d.p_B.x(), o.x() + 0.25, 1e-6);
  EXPECT_NEAR((d.p_B - d.p_A).norm(), 0.2, 1e-6);
  // The nearest points lie on the segment's axis-parallel side lines, within the cylinders' length.
  EXPECT_LT(std::abs((R.transpose() * (d.p_A - o)).z()), 0.1 + 1e-9);
  const GeometryDistance overlap = world.Distance(a, At(o), b, At(o + Vector3d(0.08, 0, 0)));
  EXPECT_NEAR(overlap.distance, -0.02, 1e-4);
  EXPECT_NEAR(world.BoundingRadius(a), std::hypot(0.05, 0.1), 1e-12);
  const int box = world.Add(Shape(ShapeType::kBox, 2));
  EXPECT_NEAR(world.BoundingRadius(box), 0.05 * std::sqrt(3.0), 1e-12);
  EXPECT_FALSE(world.Collides(0, 0));
  EXPECT_TRUE(world.Collides(0, 1));
  world.ExcludeBodyPair(1, 0);
  EXPECT_FALSE(world.Collides(0, 1));
}

}  // namespace
}  // namespace ductile::geometry
