// Signed distance φ from a point to a rigid collision geometry, and its gradient (the outward unit normal): what
// MPM-rigid contact registration needs per particle (Yu et al. 2025, Sec. V-A: a particle with φ < 0 is a contact,
// its frame's z axis is ∇φ). Analytic for the primitives; meshes have a sampled field (geometry/mesh_sdf.h).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "geometry/collision.h"
#include "geometry/distance_kernels.h"

namespace ductile::geometry {

/// Geometry g as a primitive for PrimitiveDistance (geometry/distance_kernels.h; a mesh or sheet as such).
PrimitiveShape PrimitiveOf(const CollisionGeometry& g);

/// φ(p_W) [m] for geometry g placed at X_WG: negative inside, positive outside. Writes the outward unit normal
/// ∇φ to `normal_W` when not null (at a point where φ is not differentiable, one of the one-sided gradients).
/// Mesh geometries return +∞ here: their distance comes from a MeshSdf (geometry/mesh_sdf.h), built once per mesh.
double SignedDistance(const CollisionGeometry& g, const Eigen::Isometry3d& X_WG, const Eigen::Vector3d& p_W,
                      Eigen::Vector3d* normal_W = nullptr);

/// The same with the point p_G and the normal n_G in the geometry's frame (callers that test many points against one
/// geometry invert its pose once).
double SignedDistanceInGeometryFrame(const CollisionGeometry& g, const Eigen::Vector3d& p_G, Eigen::Vector3d& n_G);

}  // namespace ductile::geometry
