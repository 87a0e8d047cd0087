// Signed distances for MPM-rigid contact registration as SIM_HD functions, shared by the host
// (geometry/signed_distance.h, geometry/mesh_sdf.h) and the device backend's contact solve (backend/device_contact.h):
// φ(p) and the outward unit normal ∇φ of the analytic primitives in their own frame, and the query of a mesh's
// sampled field (trilinear samples, extended outside its box; the construction is in mesh_sdf.h). Plain doubles and
// pointers, no Eigen, so that nvcc compiles them for the GPU; the operations are those the host functions did before
// they called these (same order, so results are bitwise the same).
#pragma once

#include <cmath>

#include "core/sim_hd.h"
#include "core/small_math.h"
#include "ductile/kinds.h"  // ShapeType

namespace ductile::geometry {

/// An analytic collision shape in its own frame (geometry::CollisionGeometry's fields for it).
struct PrimitiveShape {
  ShapeType type = ShapeType::kBox;
  Vec3<double> half_extents;        ///< Box [m].
  double radius = 0;                ///< Sphere, cylinder, capsule [m].
  double length = 0;                ///< Cylinder, capsule: along z, without caps [m].
  Vec3<double> normal = {0, 0, 1};  ///< Plane: unit outward normal; the solid is below the origin.
};

/// φ [m] of a box of half extents `half` at the origin and its normal n.
SIM_HD double BoxDistance(const Vec3<double>& p, const Vec3<double>& half, Vec3<double>& n) {
  const Vec3<double> q(std::fabs(p.x) - half.x, std::fabs(p.y) - half.y, std::fabs(p.z) - half.z);
  const Vec3<double> sign(p.x < 0 ? -1 : 1, p.y < 0 ? -1 : 1, p.z < 0 ? -1 : 1);
  if (q.x > 0 || q.y > 0 || q.z > 0) {  // outside: distance to the nearest surface point
    const Vec3<double> outside(std::fmax(q.x, 0.0), std::fmax(q.y, 0.0), std::fmax(q.z, 0.0));
    const double d = Norm(outside);
    n = {outside.x * sign.x / d, outside.y * sign.y / d, outside.z * sign.z / d};
    return d;
  }
  int axis = 0;  // inside: the nearest face (the first of equals)
  for (int a = 1; a < 3; ++a)
    if (q[a] > q[axis]) axis = a;
  n = {0, 0, 0};
  n[axis] = sign[axis];
  return q[axis];
}

/// φ [m] in the (ρ, z) half plane of a cylinder of radius r and half length l along z, and its normal n.
SIM_HD double CylinderDistance(const Vec3<double>& p, double r, double l, Vec3<double>& n) {
  const double rho = std::sqrt(p.x * p.x + p.y * p.y);
  const double radial[2] = {rho > 0 ? p.x / rho : 1.0, rho > 0 ? p.y / rho : 0.0};
  const double dr = rho - r, dz = std::fabs(p.z) - l;
  const double sz = p.z < 0 ? -1 : 1;
  if (dr > 0 || dz > 0) {
    const double a = std::fmax(dr, 0.0), b = std::fmax(dz, 0.0);
    const double d = std::hypot(a, b);
    n = {a / d * radial[0], a / d * radial[1], b / d * sz};
    return d;
  }
  if (dr > dz) {
    n = {radial[0], radial[1], 0};
    return dr;
  }
  n = {0, 0, sz};
  return dz;
}

/// φ(p) [m] of `s` at p (its frame), negative inside, and the outward unit normal n there (at a point where φ is not
/// differentiable, one of the one-sided gradients). +∞ for a mesh or sheet (not a primitive).
SIM_HD double PrimitiveDistance(const PrimitiveShape& s, const Vec3<double>& p, Vec3<double>& n) {
  n = {0, 0, 1};
  double d = HUGE_VAL;
  switch (s.type) {
    case ShapeType::kPlane:
      n = s.normal;
      d = Dot(n, p);
      break;
    case ShapeType::kSphere: {
      const double r = Norm(p);
      n = r > 0 ? p / r : Vec3<double>(0, 0, 1);
      d = r - s.radius;
      break;
    }
    case ShapeType::kBox:
      d = BoxDistance(p, s.half_extents, n);
      break;
    case ShapeType::kCylinder:
      d = CylinderDistance(p, s.radius, 0.5 * s.length, n);
      break;
    case ShapeType::kCapsule: {
      const Vec3<double> axis_point(0, 0, std::fmin(std::fmax(p.z, -0.5 * s.length), 0.5 * s.length));
      const Vec3<double> off = p - axis_point;
      const double r = Norm(off);
      n = r > 0 ? off / r : Vec3<double>(1, 0, 0);
      d = r - s.radius;
      break;
    }
    case ShapeType::kMesh:
    case ShapeType::kSheet:  // never rigid geometry
      break;
  }
  return d;
}

/// A mesh's signed distance samples on a regular grid (geometry::MeshSdf's, which builds them): φ at node (i, j, k)
/// is phi[(i·(cells[1] + 1) + j)·(cells[2] + 1) + k], the first node at `min`, the last at `max`.
struct SampledDistanceField {
  /// |∇φ| of a distance is 1; the trilinear gradient falls below this only in cells that straddle the medial axis,
  /// where the normal comes from the nearest surface point instead (MeshSdf::Distance, on the host).
  static constexpr double kMinGradientNorm = 1e-3;

  const float* phi = nullptr;
  int cells[3] = {0, 0, 0};
  Vec3<double> min, max;
  double cell = 1;

  SIM_HD double Sample(int i, int j, int k) const {
    return phi[(static_cast<long long>(i) * (cells[1] + 1) + j) * (cells[2] + 1) + k];
  }

  /// Trilinear φ [m] and, when not null, its gradient at a point p inside the grid box.
  SIM_HD double Interpolate(const Vec3<double>& p, Vec3<double>* gradient) const {
    const Vec3<double> s = (p - min) / cell;  // position in cells
    int i[3];
    double t[3];
    for (int a = 0; a < 3; ++a) {
      const int cell_index = static_cast<int>(std::floor(s[a]));
      i[a] = cell_index < 0 ? 0 : (cell_index > cells[a] - 1 ? cells[a] - 1 : cell_index);
      t[a] = std::fmin(std::fmax(s[a] - i[a], 0.0), 1.0);
    }
    // φ = Σ_corners wx·wy·wz·φ_corner with w = 1 − t or t; ∂φ/∂x = Σ (±1)·wy·wz·φ_corner / cell, and so on.
    double value = 0;
    Vec3<double> slope(0, 0, 0);
    for (int corner = 0; corner < 8; ++corner) {
      const int o[3] = {corner >> 2 & 1, corner >> 1 & 1, corner & 1};
      const double phi_corner = Sample(i[0] + o[0], i[1] + o[1], i[2] + o[2]);
      double w[3];
      for (int a = 0; a < 3; ++a) w[a] = o[a] ? t[a] : 1 - t[a];
      value += w[0] * w[1] * w[2] * phi_corner;
      slope.x += (o[0] ? 1 : -1) * w[1] * w[2] * phi_corner;
      slope.y += (o[1] ? 1 : -1) * w[0] * w[2] * phi_corner;
      slope.z += (o[2] ? 1 : -1) * w[0] * w[1] * phi_corner;
    }
    if (gradient) *gradient = slope / cell;
    return value;
  }

  /// φ(p) [m] at any finite p: inside the box the interpolant, outside it |p − c| + φ(c) with c the box's point
  /// nearest p (MeshSdf's file comment). With `normal`, the outward unit normal, unless p's nearest box point lies
  /// where the gradient (nearly) vanishes: then `medial` is set and the normal is left for the host to find.
  SIM_HD double Distance(const Vec3<double>& p, Vec3<double>* normal, bool& medial) const {
    const Vec3<double> c(std::fmin(std::fmax(p.x, min.x), max.x), std::fmin(std::fmax(p.y, min.y), max.y),
                         std::fmin(std::fmax(p.z, min.z), max.z));
    Vec3<double> gradient;
    const double phi_c = Interpolate(c, normal ? &gradient : nullptr);
    const Vec3<double> outside = p - c;
    medial = false;
    if (normal) {
      const double norm = Norm(gradient);
      if (norm >= kMinGradientNorm) {
        *normal = OutsideNormal(outside, phi_c, gradient / norm);
      } else {
        medial = true;
      }
    }
    return Norm(outside) + phi_c;
  }

  /// The normal at p from the normal n at its nearest box point c (`outside` = p − c): outside the box, from the
  /// estimated nearest surface point c − φ(c)·n towards p; n itself inside.
  SIM_HD static Vec3<double> OutsideNormal(const Vec3<double>& outside, double phi_c, const Vec3<double>& n) {
    if (!(SquaredNorm(outside) > 0)) return n;
    const Vec3<double> toward = outside + n * phi_c;
    return toward / Norm(toward);
  }
};

}  // namespace ductile::geometry
