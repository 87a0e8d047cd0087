#include "geometry/signed_distance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ductile::geometry {
namespace {

// φ and ∇φ of an axis-aligned box of half extents `half` at the origin.
double BoxDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& half, Eigen::Vector3d& n) {
  const Eigen::Vector3d q = p.cwiseAbs() - half;
  const Eigen::Vector3d sign(p.x() < 0 ? -1 : 1, p.y() < 0 ? -1 : 1, p.z() < 0 ? -1 : 1);
  if ((q.array() > 0).any()) {  // outside: distance to the nearest surface point
    const Eigen::Vector3d outside = q.cwiseMax(0.0);
    const double d = outside.norm();
    n = outside.cwiseProduct(sign) / d;
    return d;
  }
  int axis = 0;  // inside: the nearest face
  q.maxCoeff(&axis);
  n.setZero();
  n[axis] = sign[axis];
  return q[axis];
}

// φ and ∇φ in the (ρ, z) half plane of a cylinder of radius r and half length l along z.
double CylinderDistance(const Eigen::Vector3d& p, double r, double l, Eigen::Vector3d& n) {
  const double rho = p.head<2>().norm();
  const Eigen::Vector2d radial = rho > 0 ? Eigen::Vector2d(p.head<2>() / rho) : Eigen::Vector2d::UnitX();
  const double dr = rho - r, dz = std::abs(p.z()) - l;
  const double sz = p.z() < 0 ? -1 : 1;
  if (dr > 0 || dz > 0) {
    const double a = std::max(dr, 0.0), b = std::max(dz, 0.0);
    const double d = std::hypot(a, b);
    n << a / d * radial, b / d * sz;
    return d;
  }
  if (dr > dz) {
    n << radial, 0;
    return dr;
  }
  n << 0, 0, sz;
  return dz;
}

}  // namespace

double SignedDistanceInGeometryFrame(const CollisionGeometry& g, const Eigen::Vector3d& p, Eigen::Vector3d& n) {
  n = Eigen::Vector3d::UnitZ();
  double d = std::numeric_limits<double>::infinity();
  switch (g.type) {
    case ShapeType::kPlane:
      n = g.normal.normalized();
      d = n.dot(p);
      break;
    case ShapeType::kSphere: {
      const double r = p.norm();
      n = r > 0 ? Eigen::Vector3d(p / r) : Eigen::Vector3d::UnitZ();
      d = r - g.radius;
      break;
    }
    case ShapeType::kBox:
      d = BoxDistance(p, g.half_extents, n);
      break;
    case ShapeType::kCylinder:
      d = CylinderDistance(p, g.radius, 0.5 * g.length, n);
      break;
    case ShapeType::kCapsule: {
      const Eigen::Vector3d axis_point(0, 0, std::clamp(p.z(), -0.5 * g.length, 0.5 * g.length));
      const Eigen::Vector3d off = p - axis_point;
      const double r = off.norm();
      n = r > 0 ? Eigen::Vector3d(off / r) : Eigen::Vector3d::UnitX();
      d = r - g.radius;
      break;
    }
    case ShapeType::kMesh:
    case ShapeType::kSheet:  // never rigid geometry
      break;
  }
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
