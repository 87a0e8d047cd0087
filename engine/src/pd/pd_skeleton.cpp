// Forward kinematics and the joint Jacobian of PD skeletons (pd/pd_skeleton.h).
#include "pd/pd_skeleton.h"

#include <Eigen/Geometry>

namespace ductile::pd {

std::vector<BonePlacement> PlaceBones(const PdModel& model, const Eigen::VectorXd& z) {
  std::vector<BonePlacement> placements(model.bones.size());
  for (std::size_t b = 0; b < model.bones.size(); ++b) {
    const PdBone& bone = model.bones[b];
    const double coordinate = z(static_cast<Eigen::Index>(b));
    BonePlacement joint;
    if (bone.joint == JointKind::kRevolute) {
      joint.R = Eigen::AngleAxisd(coordinate, bone.axis).toRotationMatrix();
      joint.t = bone.anchor - joint.R * bone.anchor;
    } else {
      joint.t = bone.axis * coordinate;
    }
    if (bone.parent < 0) {
      placements[b] = joint;
    } else {
      const BonePlacement& parent = placements[static_cast<std::size_t>(bone.parent)];
      placements[b] = {.R = parent.R * joint.R, .t = parent.R * joint.t + parent.t};
    }
  }
  return placements;
}

void PlaceBoneVertices(const PdModel& model, const Eigen::VectorXd& z, Eigen::MatrixX3d& q) {
  const std::vector<BonePlacement> placements = PlaceBones(model, z);
  for (const int i : model.bone_vertices) {
    const BonePlacement& p = placements[static_cast<std::size_t>(model.bone_of[static_cast<std::size_t>(i)])];
    q.row(i) = (p.R * model.rest[static_cast<std::size_t>(i)] + p.t).transpose();
  }
}

std::vector<Eigen::MatrixX3d> JointJacobian(const PdModel& model, const Eigen::VectorXd& z, const Eigen::MatrixX3d& q) {
  const std::vector<BonePlacement> placements = PlaceBones(model, z);
  std::vector<Eigen::MatrixX3d> columns(model.bones.size(), Eigen::MatrixX3d::Zero(q.rows(), 3));
  for (const int i : model.bone_vertices) {
    const Eigen::Vector3d x = q.row(i).transpose();
    // Every joint on the vertex's bone's chain, from the bone up to the root.
    for (int j = model.bone_of[static_cast<std::size_t>(i)]; j >= 0;
         j = model.bones[static_cast<std::size_t>(j)].parent) {
      const PdBone& bone = model.bones[static_cast<std::size_t>(j)];
      BonePlacement parent;
      if (bone.parent >= 0) parent = placements[static_cast<std::size_t>(bone.parent)];
      const Eigen::Vector3d axis = parent.R * bone.axis;
      const Eigen::Vector3d column = bone.joint == JointKind::kRevolute
                                         ? Eigen::Vector3d(axis.cross(x - (parent.R * bone.anchor + parent.t)))
                                         : axis;
      columns[static_cast<std::size_t>(j)].row(i) = column.transpose();
    }
  }
  return columns;
}

}  // namespace ductile::pd
