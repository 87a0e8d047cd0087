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

namespace {

/// A joint's current axis â and anchor p̂ (pd/pd_skeleton.h).
struct JointFrame {
  Eigen::Vector3d axis;
  Eigen::Vector3d anchor;
  bool revolute = true;
};

std::vector<JointFrame> JointFrames(const PdModel& model, const std::vector<BonePlacement>& placements) {
  std::vector<JointFrame> frames;
  for (const PdBone& bone : model.bones) {
    BonePlacement parent;
    if (bone.parent >= 0) parent = placements[static_cast<std::size_t>(bone.parent)];
    frames.push_back({.axis = parent.R * bone.axis,
                      .anchor = parent.R * bone.anchor + parent.t,
                      .revolute = bone.joint == JointKind::kRevolute});
  }
  return frames;
}

}  // namespace

Eigen::MatrixXd JointCurvature(const PdModel& model, const Eigen::VectorXd& z, const Eigen::MatrixX3d& q,
                               const Eigen::MatrixX3d& g) {
  const std::vector<JointFrame> frames = JointFrames(model, PlaceBones(model, z));
  const auto joints = static_cast<Eigen::Index>(model.bones.size());
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(joints, joints);
  std::vector<int> chain;
  std::vector<Eigen::Vector3d> columns;
  for (const int i : model.bone_vertices) {
    const Eigen::Vector3d x = q.row(i).transpose();
    const Eigen::Vector3d gi = g.row(i).transpose();
    chain.clear();  // from the vertex's bone up to the root
    for (int j = model.bone_of[static_cast<std::size_t>(i)]; j >= 0;
         j = model.bones[static_cast<std::size_t>(j)].parent)
      chain.push_back(j);
    columns.clear();
    for (const int j : chain) {
      const JointFrame& f = frames[static_cast<std::size_t>(j)];
      columns.push_back(f.revolute ? Eigen::Vector3d(f.axis.cross(x - f.anchor)) : f.axis);
    }
    for (std::size_t a = 0; a < chain.size(); ++a) {  // j = chain[a]
      const JointFrame& fj = frames[static_cast<std::size_t>(chain[a])];
      for (std::size_t b = 0; b < chain.size(); ++b) {  // k = chain[b]; b > a: k strictly above j
        const JointFrame& fk = frames[static_cast<std::size_t>(chain[b])];
        Eigen::Vector3d daxis = Eigen::Vector3d::Zero(), danchor = Eigen::Vector3d::Zero();
        if (b > a) {
          if (fk.revolute) {
            daxis = fk.axis.cross(fj.axis);
            danchor = fk.axis.cross(fj.anchor - fk.anchor);
          } else {
            danchor = fk.axis;
          }
        }
        const Eigen::Vector3d d =
            fj.revolute ? Eigen::Vector3d(daxis.cross(x - fj.anchor) + fj.axis.cross(columns[b] - danchor)) : daxis;
        K(chain[a], chain[b]) += gi.dot(d);
      }
    }
  }
  return K;
}

}  // namespace ductile::pd
