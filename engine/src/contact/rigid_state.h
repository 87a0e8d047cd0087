// What the rigid step carries from one step to the next and what its inputs name (contact/rigid_system.h steps it):
// the generalized state, the PD controllers' targets (their gains are the Model's, contact/joint_controller.h), the
// welds, and the last step's contact points.
// Plain data, in a header of its own so that the State, the Model and the robot inputs hold it without including
// the solver (issue 46).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <vector>

#include "contact/joint_controller.h"

namespace ductile::contact {

/// A weld of a point frame on body a to one on body b (or the world, −1), near-rigid or a spring-damper.
struct Weld {
  int body_a = -1, body_b = -1;
  Eigen::Isometry3d X_AF = Eigen::Isometry3d::Identity();  ///< Weld frame in A (world if a = −1).
  Eigen::Isometry3d X_BG = Eigen::Isometry3d::Identity();  ///< Its partner frame in B; the weld holds X_WF = X_WG.
  double stiffness = 0;  ///< ≤ 0: near-rigid; else translational [N/m] (rotational: stiffness·1 m² [N·m/rad]).
  double damping = 0;    ///< [N·s/m] (rotational: damping·1 m²).
};

/// One contact point of the last step.
struct RigidContact {
  int geometry_a = -1, geometry_b = -1;
  int body_a = -1, body_b = -1;                    ///< −1 = world.
  Eigen::Vector3d p_W = Eigen::Vector3d::Zero();   ///< [m].
  Eigen::Vector3d n_W = Eigen::Vector3d::UnitZ();  ///< From a into b.
  double depth = 0;                                ///< [m].
  Eigen::Vector3d f_W = Eigen::Vector3d::Zero();   ///< Mean force on b over the step [N] (a receives −f_W).

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(geometry_a, geometry_b, body_a, body_b, p_W, n_W, depth, f_W);
  }
};

/// What the rigid system carries from one step to the next.
struct RigidState {
  Eigen::VectorXd q, v;  ///< Generalized positions and velocities.
  double time = 0;       ///< [s].
  /// Per PD controller of the model (RigidModel::controllers, same order): what it tracks now (teleoperation, robot
  /// scripts and Simulator::SetJointTarget change it).
  std::vector<JointTarget> targets;
  /// Applied generalized forces for the next steps (size nv; zero by default), e.g. feed-forward efforts.
  Eigen::VectorXd tau_applied;
  /// The last step's contact points with their mean forces, and the body origins when they were found (for the
  /// contact wrenches reported per body).
  std::vector<RigidContact> contacts;
  std::vector<Eigen::Vector3d> contact_origins;

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(q, v, time, targets, tau_applied, contacts, contact_origins);
  }
};

}  // namespace ductile::contact
