// The kinds of shape, material, joint and keyframe interpolation a scene names (ductile/scene.h) and the solvers and a
// snapshot take (geometry/collision.h, multibody/multibody_tree.h, ductile/snapshot.h), in a header of their own so
// that none of them includes the scene description.
#pragma once

namespace ductile {

enum class ShapeType { kBox, kSphere, kCylinder, kMesh, kPlane, kCapsule, kSheet };

enum class MaterialModelDesc { kFixedCorotated, kLinearCorotated, kStvkHencky, kDruckerPrager, kFluid, kCloth };

enum class JointType {
  kFixed,      ///< 0 dofs.
  kRevolute,   ///< 1 dof: rotation about `axis` [rad] (URDF "revolute" and "continuous").
  kPrismatic,  ///< 1 dof: translation along `axis` [m].
  kFloating,   ///< 6 dofs: q = (qw, qx, qy, qz, x, y, z), v = (ω_W, v_W) of the child frame's origin.
};

/// How a kinematic body moves between two keyframes k and k + 1: with s = (t − t_k)/(t_{k+1} − t_k) it is at
/// the blend e(s) of the two poses (positions (1 − e) p_k + e p_{k+1}, orientations slerp(e)).
enum class KeyframeInterpolation {
  kLinear,  ///< e(s) = s: constant velocity within a segment, jumping at keyframes.
  kSmooth,  ///< e(s) = 3s² − 2s³: velocity continuous in time and zero at every keyframe.
};

}  // namespace ductile
