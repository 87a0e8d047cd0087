#include "robot/self_collision.h"

namespace ductile::robot {
namespace {

// Whether body `ancestor` is body b or one of its ancestors.
bool AncestorOrSelf(const multibody::MultibodyTree& tree, int ancestor, int b) {
  for (; b >= 0; b = tree.body(b).parent)
    if (b == ancestor) return true;
  return false;
}

// Whether a moving joint lies on the tree path between bodies a and b.
bool MovingJointBetween(const multibody::MultibodyTree& tree, int a, int b) {
  for (const int start : {a, b})
    for (int j = start; j >= 0; j = tree.body(j).parent)
      if (tree.body(j).nv > 0 && JointBetween(tree, j, a, b)) return true;
  return false;
}

// The body whose joint moves body b: b, or the first ancestor with a moving joint (−1: none, welded to the world).
int MovingRoot(const multibody::MultibodyTree& tree, int b) {
  while (b >= 0 && tree.body(b).nv == 0) b = tree.body(b).parent;
  return b;
}

// Whether bodies a and b are the fingers of a parallel gripper: each slides on a prismatic joint of its own from
// the same rigid part (the palm).
bool Fingers(const multibody::MultibodyTree& tree, int a, int b) {
  const int ja = MovingRoot(tree, a), jb = MovingRoot(tree, b);
  if (ja < 0 || jb < 0 || ja == jb) return false;
  if (tree.body(ja).joint != JointType::kPrismatic || tree.body(jb).joint != JointType::kPrismatic) return false;
  return MovingRoot(tree, tree.body(ja).parent) == MovingRoot(tree, tree.body(jb).parent);
}

}  // namespace

bool JointBetween(const multibody::MultibodyTree& tree, int joint_body, int a, int b) {
  return AncestorOrSelf(tree, joint_body, a) != AncestorOrSelf(tree, joint_body, b);
}

std::vector<SelfCollisionPair> FindSelfCollisionPairs(const multibody::MultibodyTree& tree,
                                                      const geometry::CollisionWorld& world, int first, int end) {
  std::vector<int> geometries;
  for (int g = 0; g < world.num_geometries(); ++g) {
    const int b = world.geometry(g).body;
    if (b >= first && b < end) geometries.push_back(g);
  }
  std::vector<SelfCollisionPair> pairs;
  for (std::size_t i = 0; i < geometries.size(); ++i)
    for (std::size_t j = i + 1; j < geometries.size(); ++j) {
      SelfCollisionPair p{geometries[i], geometries[j], world.geometry(geometries[i]).body,
                          world.geometry(geometries[j]).body,
                          world.BoundingRadius(geometries[i]) + world.BoundingRadius(geometries[j])};
      if (world.Collides(p.body_a, p.body_b) && MovingJointBetween(tree, p.body_a, p.body_b) &&
          !Fingers(tree, p.body_a, p.body_b))
        pairs.push_back(p);
    }
  return pairs;
}

geometry::GeometryDistance PairDistance(const geometry::CollisionWorld& world, const SelfCollisionPair& pair,
                                        const multibody::Kinematics& kin) {
  return world.Distance(pair.geometry_a, geometry::WorldPose(world.geometry(pair.geometry_a), kin.X_WB),
                        pair.geometry_b, geometry::WorldPose(world.geometry(pair.geometry_b), kin.X_WB));
}

bool PairBeyond(const geometry::CollisionWorld& world, const SelfCollisionPair& pair, const multibody::Kinematics& kin,
                double reach) {
  const Eigen::Vector3d c_A = geometry::WorldPose(world.geometry(pair.geometry_a), kin.X_WB).translation();
  const Eigen::Vector3d c_B = geometry::WorldPose(world.geometry(pair.geometry_b), kin.X_WB).translation();
  return (c_B - c_A).norm() - pair.radii > reach;
}

Eigen::RowVectorXd DistanceJacobian(const multibody::MultibodyTree& tree, const multibody::Kinematics& kin,
                                    const SelfCollisionPair& pair, const geometry::GeometryDistance& distance) {
  // ḋ = nᵀ (v_B(p_B) − v_A(p_A)).
  const Eigen::Vector3d n = (distance.p_B - distance.p_A).normalized();
  const Eigen::MatrixXd J_A = multibody::CalcPointJacobian(tree, kin, pair.body_a, distance.p_A);
  const Eigen::MatrixXd J_B = multibody::CalcPointJacobian(tree, kin, pair.body_b, distance.p_B);
  return n.transpose() * (J_B - J_A);
}

}  // namespace ductile::robot
