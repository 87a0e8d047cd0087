// coupling::ObjectSurfaces: the contact point on the surface an elastic object carries from its scene shape, for
// rigid motions (exact: the moved shape's lowest point), a stretch, the flat directions of cylinders and capsules,
// and the objects that carry none.
#include "coupling/object_surface.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <string>

#include "ductile/model.h"
#include "ductile/scene.h"

namespace ductile {
namespace {

Model ModelOf(const std::string& objects) {
  const std::string yaml = R"(
simulation: {dt: 0.01, coupling: strong}
grid: {h: 0.02, domain: {min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e6, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3, yield_stress: 6000}
objects:
)" + objects;
  return CompileModel(LoadSceneFromString(yaml, "surface.yaml"));
}

// Round-off of a few operations on numbers of order 0.1 m.
constexpr double kExact = 1e-12;

TEST(ObjectSurface, ARigidlyMovedBallTouchesAtItsLowestPoint) {
  const Model model = ModelOf(
      "  ball: {material: rubber, shape: {type: sphere, radius: 0.05}, pose: {position: [0.1, 0, 0.2], rpy_deg: [10, "
      "20, 30]}}\n");
  const coupling::ObjectSurfaces surfaces(model);
  ASSERT_TRUE(surfaces.carries(0));
  const Eigen::Vector3d P = coupling::RestCentre(model, 0);  // the ball's centre at t = 0 (0.1, 0, 0.2 to a few µm)
  EXPECT_LT((P - Eigen::Vector3d(0.1, 0, 0.2)).norm(), 1e-3);
  const Eigen::Vector3d X = P + Eigen::Vector3d(0.004, -0.003, -0.043);  // a particle near its bottom
  // Turned by 0.7 rad about an oblique axis and moved: the point is the moved ball's lowest, whatever the turn.
  const Eigen::Matrix3d Q = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 0.5).normalized()).toRotationMatrix();
  const Eigen::Vector3d c(0.3, -0.1, 0.08);
  const Eigen::Vector3d x = c + Q * (X - P);
  const Eigen::Vector3d n = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d point;
  double depth = 0;
  ASSERT_TRUE(surfaces.ContactPoint(0, X, Q, x, n, 1.0, point, depth));
  EXPECT_LT((point - (c - 0.05 * n)).norm(), kExact);
  EXPECT_NEAR(depth, x.z() - (c.z() - 0.05), kExact);
  // Against a wall facing −x: the ball's point furthest along +x.
  ASSERT_TRUE(surfaces.ContactPoint(0, X, Q, x, -Eigen::Vector3d::UnitX(), 1.0, point, depth));
  EXPECT_LT((point - (c + 0.05 * Eigen::Vector3d::UnitX())).norm(), kExact);
  // Beyond `spread` of the particle's own nearest surface point, that point instead (on the moved sphere).
  ASSERT_TRUE(surfaces.ContactPoint(0, X, Q, x, -Eigen::Vector3d::UnitX(), 0.02, point, depth));
  EXPECT_NEAR((point - c).norm(), 0.05, kExact);
  EXPECT_LT((point - (c + Q * (X - P).normalized() * 0.05)).norm(), kExact);
}

TEST(ObjectSurface, AStretchMapsTheShapeLinearly) {
  const Model model =
      ModelOf("  ball: {material: rubber, shape: {type: sphere, radius: 0.05}, pose: {position: [0, 0, 0]}}\n");
  const coupling::ObjectSurfaces surfaces(model);
  // Squashed to half its height along z and widened along x: its lowest point is 2.5 cm below the particle's
  // image of the centre.
  const Eigen::Vector3d P = coupling::RestCentre(model, 0);
  const Eigen::Matrix3d F = Eigen::Vector3d(1.2, 1.0, 0.5).asDiagonal();
  const Eigen::Vector3d X = P + Eigen::Vector3d(0.01, 0, -0.04), x = F * (X - P) + Eigen::Vector3d(0, 0, 0.3);
  Eigen::Vector3d point;
  double depth = 0;
  ASSERT_TRUE(surfaces.ContactPoint(0, X, F, x, Eigen::Vector3d::UnitZ(), 0.05, point, depth));
  EXPECT_LT((point - Eigen::Vector3d(0, 0, 0.3 - 0.025)).norm(), kExact);
}

TEST(ObjectSurface, FlatSidesKeepTheParticlesOwnPoints) {
  // A cylinder standing on its cap: the cap point below the particle; tilted by 0.1 rad: the rim's lowest point.
  const Model model = ModelOf(
      "  post: {material: rubber, shape: {type: cylinder, radius: 0.03, length: 0.1}, pose: {position: [0, 0, "
      "0]}}\n  pill: {material: rubber, shape: {type: capsule, radius: 0.02, length: 0.1}, pose: {position: [0, 0, "
      "0], rpy_deg: [0, 90, 0]}}\n");
  const coupling::ObjectSurfaces surfaces(model);
  const Eigen::Vector3d up = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d point;
  double depth = 0;
  const Eigen::Vector3d P = coupling::RestCentre(model, 0), C = coupling::RestCentre(model, 1);
  const Eigen::Vector3d X = P + Eigen::Vector3d(0.01, 0.005, -0.045);
  ASSERT_TRUE(surfaces.ContactPoint(0, X, Eigen::Matrix3d::Identity(), X, up, 0.1, point, depth));
  EXPECT_LT((point - (P + Eigen::Vector3d(0.01, 0.005, -0.05))).norm(), kExact);
  const Eigen::Matrix3d tilt = Eigen::AngleAxisd(0.1, Eigen::Vector3d::UnitY()).toRotationMatrix();
  ASSERT_TRUE(surfaces.ContactPoint(0, X, tilt, tilt * (X - P), up, 0.1, point, depth));
  // The rim point at +x of the cap, which the tilt lowers.
  EXPECT_LT((point - tilt * Eigen::Vector3d(0.03, 0, -0.05)).norm(), kExact);
  // A capsule lying along x: the bottom line at the particle's own x (to 1e-9: its frame turned by 90° about y
  // comes from a quaternion whose cosine of 90° is 6e-17, not 0, times lengths of 0.05 m, and the centre from a sum
  // over its particles).
  const Eigen::Vector3d Y = C + Eigen::Vector3d(0.03, 0.002, -0.015);
  ASSERT_TRUE(surfaces.ContactPoint(1, Y, Eigen::Matrix3d::Identity(), Y, up, 0.1, point, depth));
  EXPECT_LT((point - (C + Eigen::Vector3d(0.03, 0, -0.02))).norm(), 1e-9);
}

TEST(ObjectSurface, BoxesMeshesAndPlasticObjectsCarryNone) {
  const Model model = ModelOf(
      "  block: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0.2, 0, 0]}}\n"
      "  lump: {material: dough, shape: {type: sphere, radius: 0.05}, pose: {position: [-0.2, 0, 0]}}\n");
  const coupling::ObjectSurfaces surfaces(model);
  EXPECT_FALSE(surfaces.carries(0));
  EXPECT_FALSE(surfaces.carries(1));
  EXPECT_FALSE(surfaces.carries(2));
  Model bare;  // built by hand: no scene
  bare.objects.resize(1);
  EXPECT_FALSE(coupling::ObjectSurfaces(bare).carries(0));
}

}  // namespace
}  // namespace ductile
