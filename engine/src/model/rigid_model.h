// The compiled rigid bodies and robots of a Model: what contact::RigidSystem steps (docs/architecture.md, "Rigid bodies
// and SAP").
#pragma once

#include <Eigen/Core>
#include <array>
#include <string>
#include <vector>

#include "contact/rigid_state.h"
#include "ductile/model.h"
#include "geometry/collision.h"
#include "multibody/multibody_tree.h"
#include "robot/self_collision.h"

namespace ductile {

/// A drawn shape: a link's visual geometry (URDF <visual>) or a scene body's shape, with its colour. Drawing only;
/// contact uses CollisionWorld.
struct VisualGeometry {
  geometry::CollisionGeometry shape;  ///< Shape and X_BG (in the world for body −1); contact fields unused.
  std::array<double, 4> rgba{0.7, 0.7, 0.7, 1.0};
};

/// Where a world geometry's contact properties come from, so that live edits of `contact:` and of a rigid body's
/// `friction`, `stiffness` or `dissipation` can derive them again (CompileGeometryContact): the scene rigid body it
/// belongs to, or the values a robot's URDF declares for it.
struct ContactSource {
  int scene_body = -1;      ///< Index into SceneDesc::rigid_bodies; −1 for a robot's geometry.
  double friction = -1;     ///< A robot geometry's own μ; negative: not declared.
  double stiffness = -1;    ///< Its own stiffness [N/m]; ≤ 0: not declared.
  double dissipation = -1;  ///< Its own dissipation [s/m]; negative: not declared.
};

/// A robot's scripted task (`robots: NAME: script:`; docs/scene-format.md, "Scripts"): before every step the
/// robot's teleoperation target is set to the tool path's pose at the step's end, and its gripper to the command of
/// the last gripper keyframe at or before it, until a person or program teleoperates that robot.
struct RobotScript {
  std::string robot;
  std::string link;                                      ///< The tool link.
  Eigen::Vector3d tool_point = Eigen::Vector3d::Zero();  ///< On the link, link frame [m].
  bool track_orientation = true;
  multibody::PoseTrajectory path;  ///< The tool point's position and the link's orientation, world.
  struct GripperKey {
    double time = 0;     ///< [s].
    double opening = 1;  ///< [0, 1].
    double force = 0;    ///< [N].
  };
  std::vector<GripperKey> gripper;  ///< By time, increasing; empty: the script leaves the gripper alone.
  /// The gripper command in force at time t (the last key at or before t); false before the first.
  bool GripperAt(double t, GripperKey& key) const {
    bool found = false;
    for (const GripperKey& k : gripper) {
      if (k.time > t) break;
      key = k;
      found = true;
    }
    return found;
  }
};

/// A robot of the scene as its checks and its teleoperation see it (docs/architecture.md, "Robot contact checks").
struct RobotModel {
  std::string name;
  int first_body = 0, end_body = 0;  ///< Its links: the bodies [first_body, end_body) of the tree.
  /// The contact force a link may carry before the step reports it [N] (robots.NAME.link_force_limit).
  double link_force_limit = 0;
  /// The pairs of its links' collision geometries that can meet (robot/self_collision.h).
  std::vector<robot::SelfCollisionPair> self_collision_pairs;
};

struct RigidModel {
  multibody::MultibodyTree tree;               ///< Dynamic and kinematic bodies, robot links.
  geometry::CollisionWorld world;              ///< Their collision geometry, static geometry, collision filtering.
  std::vector<ContactSource> contact_sources;  ///< One per geometry of `world`, in the same order.
  /// The PD controllers: joints, gains and initial targets (RigidState::targets, same order, holds them as they run).
  std::vector<contact::JointController> controllers;
  std::vector<contact::Weld> welds;
  /// Constant applied generalized forces (size tree.nv()): joint efforts of robots and jointed bodies.
  Eigen::VectorXd tau_applied;
  /// Constant applied forces at body origins and torques, world frame, mapped through the body Jacobian each step.
  struct BodyWrench {
    int body = 0;
    Eigen::Vector3d force = Eigen::Vector3d::Zero();   ///< [N].
    Eigen::Vector3d torque = Eigen::Vector3d::Zero();  ///< [N·m].
  };
  std::vector<BodyWrench> body_wrenches;
  std::vector<VisualGeometry> visuals;  ///< What to draw of the bodies, robots and static geometry.
  std::vector<RobotScript> scripts;     ///< Robots' scripted tasks, in scene order.
  std::vector<RobotModel> robots;       ///< The robots, in scene order.
  Eigen::VectorXd q0;                   ///< Initial generalized positions (size tree.nq()).
  Eigen::VectorXd v0;                   ///< Initial generalized velocities (size tree.nv()).
  /// Bodies reported in the trajectory and contact-force outputs (every non-static body), by tree index.
  std::vector<int> output_bodies;
  double stiction_speed = 1e-4;     ///< v_s [m/s].
  int max_solver_iterations = 100;  ///< SAP Newton iterations per step (simulation.max_solver_iterations).
  double mpm_stiffness = 0;     ///< Per-particle MPM contact stiffness [N/m], 0: near-rigid (contact.mpm_stiffness).
  double mpm_dissipation = 10;  ///< [s/m] (contact.mpm_dissipation).
  double contact_rel_tolerance = 5e-2;  ///< ε_r of the MPM contact solve (simulation.contact_tolerance_relative).
  double contact_abs_tolerance = 1e-6;  ///< ε_a (simulation.contact_tolerance_absolute).
  /// No rigid bodies and no static geometry (a static-only scene still has MPM-rigid contact).
  bool empty() const { return tree.num_bodies() == 0 && world.num_geometries() == 0; }
};

}  // namespace ductile
