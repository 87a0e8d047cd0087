// The contact point on the surface an elastic MPM object carries (coupling/object_surface.h, whose comment has the
// equations) as SIM_HD functions, shared by the host (ObjectSurfaces) and the device backend's contact registration
// (backend/device_contact.h). Plain doubles, no Eigen, so that nvcc compiles them for the GPU; the operations are
// those ObjectSurfaces did before it called these (same order, so results are bitwise the same).
#pragma once

#include <cmath>

#include "core/sim_hd.h"
#include "core/small_math.h"

namespace ductile::coupling {

/// The shape of an object's surface at t = 0, in its frame S (placed at R_WS, p_WS).
struct SurfaceShape {
  enum Kind : int { kNone = 0, kSphere, kCapsule, kCylinder };
  int kind = kNone;
  Mat3<double> R_WS = Mat3<double>::Identity();
  Vec3<double> p_WS;
  double radius = 0;
  double half_length = 0;  ///< Capsule: of its segment; cylinder: of its side.

  /// Below this share of |u| a component of the support direction counts as none: the support is flat along it (a
  /// cylinder standing on its cap, a capsule lying on its side) and the particle's own coordinate is kept, so that
  /// contacts spread over the flat part as the particles do instead of all jumping to one rim point. A tilt of 1e-3
  /// rad moves a 10 cm flat part's ends by 0.1 mm, below the contacts' reach (h/20, 0.8 mm at h = 1/64 m).
  static constexpr double kFlat = 1e-3;

  SIM_HD static double Clamp(double v, double lo, double hi) { return v < lo ? lo : (hi < v ? hi : v); }
  SIM_HD static bool Finite(const Vec3<double>& v) { return v.x - v.x == 0 && v.y - v.y == 0 && v.z - v.z == 0; }

  /// The surface point nearest Y (frame S).
  SIM_HD Vec3<double> Nearest(const Vec3<double>& Y) const {
    const auto radial = [&](const Vec3<double>& centre) {
      const Vec3<double> r = Y - centre;
      const double norm = Norm(r);
      return centre + (norm > 0 ? r / norm : Vec3<double>(1, 0, 0)) * radius;
    };
    switch (kind) {
      case kSphere:
        return radial(Vec3<double>(0, 0, 0));
      case kCapsule:
        return radial(Vec3<double>(0, 0, Clamp(Y.z, -half_length, half_length)));
      case kCylinder: {
        const double rho = std::hypot(Y.x, Y.y);
        const double dir[2] = {rho > 0 ? Y.x / rho : 1.0, rho > 0 ? Y.y / rho : 0.0};
        const double z = Clamp(Y.z, -half_length, half_length);
        const Vec3<double> side(radius * dir[0], radius * dir[1], z);
        const double scale = (rho < radius ? rho : radius) / (rho > 0 ? rho : 1.0);
        const Vec3<double> cap(Y.x * scale, Y.y * scale, Y.z < 0 ? -half_length : half_length);
        return SquaredNorm(side - Y) <= SquaredNorm(cap - Y) ? side : cap;
      }
      default:
        break;
    }
    return Y;
  }

  /// The support point in the direction −u, with Y's own coordinate along an axis in which the support is flat.
  SIM_HD Vec3<double> Support(const Vec3<double>& u, const Vec3<double>& Y) const {
    const double norm = Norm(u);
    const Vec3<double> d = u / norm;
    // Along the axis: the end the direction −u points to, or Y's own height where the support is flat along it.
    const auto axial = [&](double half) {
      if (std::fabs(d.z) < kFlat) return Clamp(Y.z, -half, half);
      return d.z > 0 ? -half : half;
    };
    switch (kind) {
      case kSphere:
        return d * -radius;
      case kCapsule:
        return Vec3<double>(0, 0, axial(half_length)) - d * radius;
      case kCylinder: {
        const double across = std::hypot(d.x, d.y);
        double xy[2];
        if (across < kFlat) {  // standing on a cap: Y's own point of it
          const double rho = std::hypot(Y.x, Y.y);
          const double s = rho > radius ? radius / rho : 1.0;
          xy[0] = Y.x * s;
          xy[1] = Y.y * s;
        } else {
          xy[0] = -radius * d.x / across;
          xy[1] = -radius * d.y / across;
        }
        return {xy[0], xy[1], axial(half_length)};
      }
      default:
        break;
    }
    return Y;
  }

  /// The contact point about a particle at x with rest position X and deformation gradient F against geometry of
  /// outward normal n, and its depth n·(x − point) (ObjectSurfaces::ContactPoint). False when F is degenerate.
  SIM_HD bool ContactPoint(const Vec3<double>& X, const Mat3<double>& F, const Vec3<double>& x, const Vec3<double>& n,
                           double spread, Vec3<double>& point, double& depth) const {
    // In the shape's frame S at t = 0: the particle, and the direction whose support is the point nearest the
    // geometry, u = R_WSᵀ F_pᵀ n (minimising n·F_p X = (F_pᵀ n)·X).
    const Mat3<double> R_SW = R_WS.Transposed();
    const Vec3<double> Y = R_SW * (X - p_WS);
    const Vec3<double> u = R_SW * (F.Transposed() * n);
    if (!(Norm(u) > 1e-12) || !Finite(u)) return false;
    const Vec3<double> nearest = Nearest(Y);
    Vec3<double> Y_star = Support(u, Y);
    if (Norm(Y_star - nearest) > spread) Y_star = nearest;
    point = x + F * ((R_WS * Y_star + p_WS) - X);
    depth = Dot(n, x - point);
    return Finite(point);
  }
};

/// A contact on an object's surface before the one-per-point rule (coupling::DropTwinContacts): its particle
/// (storage index), object and geometry, where it acts, that point's distance from the particle [m], and the
/// particle's radius r_p [m].
struct SurfaceCandidate {
  int particle = -1;
  int object = -1;
  int geometry = -1;
  Vec3<double> point;
  double distance = 0;
  double near = 0;
};

}  // namespace ductile::coupling
