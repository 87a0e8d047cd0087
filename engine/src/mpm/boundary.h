// Grid boundary conditions: domain walls and static analytic colliders (plane, box, sphere, cylinder).
//
// A grid node whose position lies inside a collider (signed distance φ < 0) or outside the domain has its
// velocity projected (Stomakhin et al. 2013, Sec. 8; Hu et al. 2018): with n the outward normal of the boundary
// and v_n = v·n,
//   sticky:    v ← 0
//   slip:      v ← v − v_n n                                   (bilateral, frictionless)
//   separate:  v ← v − min(v_n, 0) n                           (unilateral, frictionless)
//   friction:  if v_n < 0: v_t ← max(0, 1 + μ v_n/‖v_t‖) v_t, v ← v_t   (unilateral, Coulomb μ)
// Colliders are static in this issue: their velocity is zero.
#pragma once

#include <cstdint>

#include "core/sim_hd.h"
#include "core/small_math.h"
#include "ductile/mpm_params.h"  // BoundaryKind, ColliderShape, WallParams

namespace ductile::mpm {

/// A static analytic collider in plain data. The shape lives in its frame C placed at (R_WC, p_WC).
struct Collider {
  ColliderShape shape = ColliderShape::kPlane;
  BoundaryKind kind = BoundaryKind::kSeparate;
  float friction = 0;              ///< Coulomb μ for kFriction.
  Mat3f R_WC = Mat3f::Identity();  ///< Orientation of C in W.
  Vec3f p_WC{};                    ///< Origin of C in W [m].
  Vec3f half_extents{};            ///< Box half sizes [m].
  float radius = 0;                ///< Sphere, cylinder [m].
  float half_length = 0;           ///< Cylinder half length along C's z [m].
  Vec3f normal_C{0, 0, 1};         ///< Plane normal in C; the solid side is φ < 0, i.e. below.
};

/// Applies a boundary condition with outward unit normal n to a grid velocity.
SIM_HD Vec3f ApplyBoundary(BoundaryKind kind, float friction, const Vec3f& n, const Vec3f& v) {
  const float vn = Dot(v, n);
  switch (kind) {
    case BoundaryKind::kSticky:
      return Vec3f{};
    case BoundaryKind::kSlip:
      return v - n * vn;
    case BoundaryKind::kSeparate:
      return vn < 0 ? v - n * vn : v;
    case BoundaryKind::kFriction: {
      if (vn >= 0) return v;
      const Vec3f vt = v - n * vn;
      const float vt_norm = Norm(vt);
      if (vt_norm <= friction * -vn) return Vec3f{};
      return vt * (1.0f + friction * vn / vt_norm);
    }
  }
  return v;
}

/// Signed distance φ from world point p_W to the collider's surface [m] (negative inside) and its outward
/// unit normal in W. The box and cylinder distances are exact outside and exact-to-the-nearest-face inside.
SIM_HD float ColliderSignedDistance(const Collider& c, const Vec3f& p_W, Vec3f& normal_W) {
  const Vec3f p_C = c.R_WC.Transposed() * (p_W - c.p_WC);
  Vec3f n_C{0, 0, 1};
  float phi = 0;
  switch (c.shape) {
    case ColliderShape::kPlane:
      n_C = c.normal_C;
      phi = Dot(p_C, n_C);
      break;
    case ColliderShape::kSphere: {
      const float r = Norm(p_C);
      n_C = r > 1e-12f ? p_C / r : Vec3f{0, 0, 1};
      phi = r - c.radius;
      break;
    }
    case ColliderShape::kBox: {
      const Vec3f q{std::fabs(p_C.x) - c.half_extents.x, std::fabs(p_C.y) - c.half_extents.y,
                    std::fabs(p_C.z) - c.half_extents.z};
      const Vec3f sign{p_C.x < 0 ? -1.0f : 1.0f, p_C.y < 0 ? -1.0f : 1.0f, p_C.z < 0 ? -1.0f : 1.0f};
      const Vec3f outside{q.x > 0 ? q.x : 0.0f, q.y > 0 ? q.y : 0.0f, q.z > 0 ? q.z : 0.0f};
      const float out_norm = Norm(outside);
      if (out_norm > 0) {
        phi = out_norm;
        n_C = CwiseProduct(outside, sign) / out_norm;
      } else {
        // Inside: the nearest face.
        int axis = 0;
        if (q.y > q[axis]) axis = 1;
        if (q.z > q[axis]) axis = 2;
        phi = q[axis];
        n_C = Vec3f{};
        n_C[axis] = sign[axis];
      }
      break;
    }
    case ColliderShape::kCylinder: {
      const float r = std::sqrt(p_C.x * p_C.x + p_C.y * p_C.y);
      const float dr = r - c.radius;
      const float dz = std::fabs(p_C.z) - c.half_length;
      const Vec3f radial = r > 1e-12f ? Vec3f{p_C.x / r, p_C.y / r, 0} : Vec3f{1, 0, 0};
      const Vec3f axial{0, 0, p_C.z < 0 ? -1.0f : 1.0f};
      if (dr > 0 && dz > 0) {
        phi = std::sqrt(dr * dr + dz * dz);
        n_C = (radial * dr + axial * dz) / phi;
      } else if (dr > dz) {
        phi = dr;
        n_C = radial;
      } else {
        phi = dz;
        n_C = axial;
      }
      break;
    }
  }
  normal_W = c.R_WC * n_C;
  return phi;
}

}  // namespace ductile::mpm
