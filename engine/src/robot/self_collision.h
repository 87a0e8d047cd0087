// Self-collision of a robot (docs/architecture.md, "Teleoperation" and "Robot contact checks"): which pairs of its
// links' collision geometries can meet, and their signed distances with the distances' Jacobians, which the
// teleoperation IK keeps above a margin.
//
// A pair can meet when the collision filter lets the two links touch (AddMultibody leaves out links that a joint
// connects, links welded together and their neighbours; a scene's `collision_filters` may leave out more) and a
// moving joint lies between them: links that no joint moves against each other keep the distance they were built
// with. The fingers of a parallel gripper (two links that each slide on a prismatic joint of their own from the same
// part) are no pair: they meet by design when the gripper closes on nothing or on a thin sheet, pressed by the
// gripper's own squeeze, which its command bounds. The pair's distance d(q) changes at the rate
//   ḋ = nᵀ (v_B(p_B) − v_A(p_A)),   n = (p_B − p_A)/|p_B − p_A|,
// with p_A, p_B the nearest points of the two geometries and v_X(p) the velocity of link X's point p: the gradient
// of the distance (exact where the nearest points are unique, as between the convex shapes of a URDF).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "geometry/collision.h"
#include "multibody/multibody_tree.h"

namespace ductile::robot {

/// Two collision geometries of links of one robot that can meet (see the file comment).
struct SelfCollisionPair {
  int geometry_a = -1, geometry_b = -1;  ///< Indices into the CollisionWorld, a < b.
  int body_a = -1, body_b = -1;          ///< Their links' bodies.
  double radii = 0;  ///< The sum of their bounding radii (geometry::BoundingRadius) [m], for PairBeyond.
};

/// The self-collision pairs of the robot whose links are the bodies [first, end) of `tree`, in increasing
/// geometry order.
std::vector<SelfCollisionPair> FindSelfCollisionPairs(const multibody::MultibodyTree& tree,
                                                      const geometry::CollisionWorld& world, int first, int end);

/// Whether the joint of body `joint_body` lies on the tree path between bodies a and b (it moves one of them
/// against the other).
bool JointBetween(const multibody::MultibodyTree& tree, int joint_body, int a, int b);

/// A pair's signed distance at the kinematics `kin` [m] and its nearest points (world).
geometry::GeometryDistance PairDistance(const geometry::CollisionWorld& world, const SelfCollisionPair& pair,
                                        const multibody::Kinematics& kin);

/// Whether the pair's bounding spheres are farther apart than `reach` [m] at `kin` (then so are the geometries).
bool PairBeyond(const geometry::CollisionWorld& world, const SelfCollisionPair& pair, const multibody::Kinematics& kin,
                double reach);

/// The row ∂d/∂v of the distance's rate over the generalized velocities (1 x nv) at `kin`, from its nearest points;
/// for a distance d > 0 (apart, so that the points differ).
Eigen::RowVectorXd DistanceJacobian(const multibody::MultibodyTree& tree, const multibody::Kinematics& kin,
                                    const SelfCollisionPair& pair, const geometry::GeometryDistance& distance);

}  // namespace ductile::robot
