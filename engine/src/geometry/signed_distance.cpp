#include "geometry/signed_distance.h"

namespace ductile::geometry {

PrimitiveShape PrimitiveOf(const CollisionGeometry& g) {
  PrimitiveShape s;
  s.type = g.type;
  s.half_extents = {g.half_extents.x(), g.half_extents.y(), g.half_extents.z()};
  s.radius = g.radius;
  s.length = g.length;
  if (g.type == ShapeType::kPlane) {
    const Eigen::Vector3d n = g.normal.normalized();
    s.normal = {n.x(), n.y(), n.z()};
  }
  return s;
}

double SignedDistanceInGeometryFrame(const CollisionGeometry& g, const Eigen::Vector3d& p, Eigen::Vector3d& n) {
  Vec3<double> normal;
  const double d = PrimitiveDistance(PrimitiveOf(g), {p.x(), p.y(), p.z()}, normal);
  n = {normal.x, normal.y, normal.z};
  return d;
}

double SignedDistance(const CollisionGeometry& g, const Eigen::Isometry3d& X_WG, const Eigen::Vector3d& p_W,
                      Eigen::Vector3d* normal_W) {
  Eigen::Vector3d n;
  const double d = SignedDistanceInGeometryFrame(g, X_WG.inverse() * p_W, n);
  if (normal_W) *normal_W = X_WG.linear() * n;
  return d;
}

}  // namespace ductile::geometry
