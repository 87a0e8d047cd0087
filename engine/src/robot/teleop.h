// Teleoperation of a robot arm (docs/architecture.md, "Teleoperation"): a target pose for a tool point on one link
// becomes joint targets of the arm's implicit PD controllers by damped-least-squares differential inverse kinematics,
// and a gripper command becomes targets (or a closing force) of the finger controllers.
//
// Inverse kinematics. The arm is the chain of moving 1-dof joints from the robot's root to the tool link that have PD
// controllers. The IK keeps its own commanded joint positions q_c (started from the measured positions) and moves them
// towards the target with up to kMaxIterations damped least-squares steps per simulation step,
//   e = (w·φ, p_target − p_T), φ = log(R_target R_Tᵀ),  Δq = Jᵀ(J Jᵀ + λ²I)⁻¹ ê,  q_c ← clamp(q_c + Δq, limits),
// where J is the 6 × n Jacobian of e's decrease: w·J_r⁻¹(φ) J_ω over the tool's linear-velocity Jacobian, J_ω the
// link's angular one (InverseRightJacobianSO3; J_ω alone is right only for small rotation errors), w = kRotationWeight
// metres per radian makes angle and distance comparable, and ê is e clamped to kMaxTaskStep (Buss and Kim 2005: the
// linearisation holds near q_c only). Joints at a limit that the step would push further are left out of it (their
// columns of J zeroed and the step solved again). The step is shortened as a whole, keeping its direction, so that no
// joint moves more than kMaxJointStep within one simulation step (a far target is approached over several steps instead
// of through a wild intermediate solution) and so that it ends where the first joint meets its limit. It is taken only
// where it lowers |e|², halved up to kMaxHalvings times otherwise, and when no fraction of it does, the gradient
// direction Jᵀe is tried the same way. q_c thus settles where no feasible move lowers the error, instead of alternating
// between two poses (a target out of reach did that, and the feed-forward of the alternation threw the arm about) or
// stalling at a limit. The controllers then track q_c with velocity target v_c = (q_c − q_c,previous)/Δt and the
// feed-forward effort of that motion by inverse dynamics (computed torque: M a_c + C v_c − τ_g at q_c, a_c the change
// of v_c over the step); without it a PD arm sags by τ_g/K_p, centimetres for a heavy arm, and lags a moving target
// (the iiwa 7 at 10 ms steps: 5.8 mm behind a 16 cm/s circle with gravity compensation alone, 0.08 mm with the full
// feed-forward; tests/physics/teleop_test.cpp).
//
// Margins. The IK keeps q_c kJointLimitMargin inside each joint limit (or where it is, when it started nearer), and
// the robot's self-collision pairs (self_collision.h) that an arm joint moves at least kSelfCollisionMargin apart,
// by a barrier on their signed distances d_i added to the error (Li et al. 2020, "Incremental Potential Contact",
// Eq. 6, with the distance measured from the margin m):
//   Φ(q_c) = |e|² + κ Σ_i B(d_i − m),   B(x) = −(x − d̂)² ln(x/d̂) for 0 < x < d̂, 0 for x ≥ d̂, ∞ for x ≤ 0,
// with d̂ = kSelfCollisionReach and κ = kBarrierWeight [1: B is in m², like |e|²]. Where a pair is nearer than
// m + d̂, the step is the damped Gauss-Newton step of Φ,
//   Δq = s (JᵀJ + λ²I + ½κ Σ B''(x_i) g_i g_iᵀ)⁻¹ (Jᵀe − ½κ Σ B'(x_i) g_i),   s = min(1, kMaxTaskStep/|e|),
// g_i = ∂d_i/∂q_c (self_collision.h), which is the step above (Jᵀ(JJᵀ + λ²I)⁻¹ê) when no pair is near, and the
// fallback direction −½∇Φ. Steps are taken only where they lower Φ, which is infinite at the margin, so q_c never
// brings a pair nearer than m. A pair that q_c holds nearer than m when a simulation step starts (the command
// started there, or the margins were not applied before) may come no nearer within the step, and its barrier is
// moved for that step to x = min(d/2, d̂/4) from where it is, so that it is pushed apart; an overlapping one only
// may not overlap more.
//
// The residual |p_target − p_T(q_c)| and the rotation angle are what the IK could not reach (a target beyond the
// reach, the joint limits or the margins); the tracking error compares the measured tool point with the target.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "contact/rigid_system.h"
#include "multibody/multibody_tree.h"
#include "robot/self_collision.h"

namespace ductile::robot {

/// The controller driving body `body`'s joint (its index in `controllers`), −1 if none.
int ControllerOf(const std::vector<contact::JointController>& controllers, int body);
/// Whether `body` is a link of robot `robot` (named "<robot>/<link>").
bool IsRobotBody(const multibody::Body& body, const std::string& robot);

/// The inverse of SO(3)'s right Jacobian at the rotation vector φ (θ = |φ| ≤ π):
///   J_r⁻¹(φ) = I + ½[φ]× + (1/θ² − (1 + cos θ)/(2θ sin θ)) [φ]×²,
/// the last coefficient taken as 1/12 + θ²/720 below θ = 1e-3 (its series) and tending to 1/π² at π. The rotation
/// error φ = log(R_target R_Lᵀ) changes as φ̇ = −J_r⁻¹(φ) ω for the link's angular velocity ω in world.
Eigen::Matrix3d InverseRightJacobianSO3(const Eigen::Vector3d& phi);

/// The arm of a robot and its IK state; see the file comment.
class ArmTeleop {
 public:
  static constexpr int kMaxIterations = 10;
  static constexpr double kRotationWeight = 0.2;  ///< w [m/rad].
  static constexpr double kDamping = 0.02;        ///< λ [m].
  static constexpr double kMaxJointStep = 0.1;    ///< Largest change of one joint's target per step [rad or m].
  static constexpr double kMaxTaskStep = 0.1;     ///< Largest error e one IK iteration aims to remove [m].
  static constexpr int kMaxHalvings = 6;          ///< Halvings of an IK step that does not lower |e|.
  /// A command held this long is at rest: its next move is a start, fed forward (SetControllers) [s].
  static constexpr double kRestTime = 0.05;
  /// How far inside a joint's limits q_c stays [rad or m]; at most 5% of the joint's range.
  static constexpr double kJointLimitMargin = 0.05;
  /// The least distance q_c keeps between the geometries of a self-collision pair [m].
  static constexpr double kSelfCollisionMargin = 0.01;
  /// d̂: the barrier acts where a pair is nearer than the margin plus this [m].
  static constexpr double kSelfCollisionReach = 0.01;
  static constexpr double kBarrierWeight = 1;  ///< κ, the barrier's weight against |e|² [1].

  /// Finds the arm of `robot` ending at `link` in `rigid`. Returns an error message naming what is missing (no such
  /// robot or link, no controlled joint on the way to the link), empty on success.
  std::string Configure(const contact::RigidSystem& rigid, const std::string& robot, const std::string& link);
  /// The same from a tree and its controllers (RigidModel's, before a RigidSystem exists: CompileModel checks a
  /// robot script with it).
  std::string Configure(const multibody::MultibodyTree& tree, const std::vector<contact::JointController>& controllers,
                        const std::string& robot, const std::string& link);
  const std::string& link() const { return link_name_; }
  int link_body() const { return link_; }
  /// The arm's controllers (indices into RigidSystem::controllers() and RigidState::targets), root to tool.
  const std::vector<int>& controllers() const { return controllers_; }

  /// The target: the tool point (in the link frame) at p_W with orientation R_WT (the link's frame orientation).
  void SetTarget(const Eigen::Vector3d& tool_point_L, const Eigen::Vector3d& p_W, const Eigen::Quaterniond& R_WT,
                 bool track_orientation);
  /// Moves the commanded joint positions towards the target and writes the arm's controller targets and
  /// feed-forward efforts in `rigid` for a step of `dt`. The first call starts from the measured joint positions.
  /// `self_collision`: the robot's self-collision pairs (RobotModel::self_collision_pairs), those an arm joint moves
  /// kept kSelfCollisionMargin apart; null or empty: none.
  void Apply(contact::RigidSystem& rigid, const Eigen::Vector3d& gravity, double dt,
             const std::vector<SelfCollisionPair>* self_collision = nullptr);

  double position_residual() const { return position_residual_; }  ///< [m], of q_c.
  double rotation_residual() const { return rotation_residual_; }  ///< [rad], of q_c.
  int iterations() const { return iterations_; }                   ///< IK iterations of the last Apply.
  /// A commanded joint sits at a limit (kJointLimitMargin inside it, or where it started nearer).
  bool at_limit() const { return at_limit_; }
  /// The measured tool point's distance from the target [m] at the current kinematics of `rigid`.
  double TrackingError(const contact::RigidSystem& rigid) const;

  /// The arm's configuration and what changes as it runs (the target, the commanded q_c and v_c, the last
  /// residuals), for saving a State.
  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(link_name_, link_, bodies_, controllers_, q_index_, v_index_, lower_, upper_);
    ar(tool_point_L_, target_p_, target_R_.coeffs(), track_orientation_, q_c_, v_c_, held_for_, fed_forward_,
       position_residual_, rotation_residual_, iterations_, at_limit_);
  }

 private:
  // The tool point and the frame of the link at positions q; leaves kin_ at q.
  void ToolPose(const contact::RigidSystem& rigid, const Eigen::VectorXd& q, Eigen::Vector3d& p_W,
                Eigen::Matrix3d& R_WL);
  // The 6 x n Jacobian of the tool point p_W's angular and linear velocity (angular rows first) at kin_.
  void ToolJacobian(const contact::RigidSystem& rigid, const Eigen::Vector3d& p_W, Eigen::MatrixXd& J) const;
  // A self-collision pair within reach of the barrier at an IK point: its index in pairs_, x = d − m_i and its
  // distance.
  struct NearPair {
    int pair = 0;
    double x = 0;
    geometry::GeometryDistance distance;
  };
  // The IK's state at a point: the weighted error e (rotation rows first, w·φ), the rotation angle |φ|, the tool
  // point, the pairs within the barrier's reach and Φ = |e|² + κ Σ B (infinite past a margin).
  struct IkPoint {
    Eigen::Matrix<double, 6, 1> e;
    double angle = 0;
    Eigen::Vector3d p_W;
    std::vector<NearPair> near;
    double cost = 0;
  };
  // The derivatives at an IK point: J, the rate of e's decrease per joint velocity, and per near pair its row
  // g_i = ∂d_i/∂q_c (in D) with κB'(x_i) and κB''(x_i).
  struct IkDerivatives {
    Eigen::MatrixXd J;
    Eigen::MatrixXd D;
    Eigen::VectorXd barrier_slope, barrier_curvature;
  };
  // A step from q_c along which Φ decreases: the damped Gauss-Newton step (the damped least-squares step towards
  // the clamped error where no pair is near), or with `gradient` the direction −½∇Φ. Joints at a limit that it
  // would push further are left out (their columns of J and D zeroed and the step solved again).
  Eigen::VectorXd StepDirection(const IkDerivatives& d, const Eigen::Matrix<double, 6, 1>& e, bool gradient) const;
  // The largest fraction (at most 1) of `dq` that moves no joint more than kMaxJointStep in this simulation step,
  // counting the `taken` part, and no joint past its limit; 0 when some joint may not move that way at all.
  double StepScale(const Eigen::VectorXd& dq, const Eigen::VectorXd& taken) const;
  // The IK's state at arm positions qc (the rest of the robot's positions from q, which takes qc too); leaves kin_
  // there.
  IkPoint EvaluateIk(const contact::RigidSystem& rigid, const Eigen::VectorXd& qc, Eigen::VectorXd& q);
  // The derivatives at `pt`, which kin_ must hold.
  void IkJacobian(const contact::RigidSystem& rigid, const IkPoint& pt, IkDerivatives& d) const;
  // This step's IK limits (lo_, hi_) and self-collision pairs (pairs_ with their margins) from q_c and the robot's
  // pairs; leaves kin_ at q_c when there are pairs.
  void PrepareMargins(const contact::RigidSystem& rigid, const std::vector<SelfCollisionPair>* self_collision,
                      Eigen::VectorXd& q);
  // Moves q_c towards the target by the IK's iterations; returns whether kin_ is at q_c.
  bool SolveIk(const contact::RigidSystem& rigid, Eigen::VectorXd& q);
  // One IK iteration from q_c (at `at`, with derivatives d): a step that lowers Φ, taken (q_c, at, d and
  // `total_step` follow it), or false when none does. `kin_at_q_c`: whether the last evaluation was the one taken.
  bool IkStep(const contact::RigidSystem& rigid, Eigen::VectorXd& q, IkPoint& at, IkDerivatives& d,
              Eigen::VectorXd& total_step, bool& kin_at_q_c);
  // The arm controllers' targets and feed-forward efforts for the commanded motion from q_previous to q_c in dt.
  void SetControllers(contact::RigidSystem& rigid, const Eigen::Vector3d& gravity, double dt,
                      const Eigen::VectorXd& q_previous);

  std::string link_name_;
  int link_ = -1;
  std::vector<int> bodies_;       // arm joints' bodies, root first
  std::vector<int> controllers_;  // index into RigidSystem::controllers() and RigidState::targets
  std::vector<int> q_index_, v_index_;
  std::vector<double> lower_, upper_;
  Eigen::Vector3d tool_point_L_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d target_p_ = Eigen::Vector3d::Zero();
  Eigen::Quaterniond target_R_ = Eigen::Quaterniond::Identity();
  bool track_orientation_ = true;
  Eigen::VectorXd q_c_;      // commanded arm joint positions; empty until the first Apply
  Eigen::VectorXd v_c_;      // and velocities of the last step
  double held_for_ = 1e9;    // how long the command has not moved [s]
  bool fed_forward_ = true;  // whether the command's last move fed its acceleration forward
  multibody::Kinematics kin_;
  double position_residual_ = 0, rotation_residual_ = 0;
  int iterations_ = 0;
  bool at_limit_ = false;
  // Scratch of one Apply, derived from q_c and the model (not state): the IK's limits, the self-collision pairs
  // that an arm joint moves, each with its margin m_i (−∞: no barrier) and the distance below which it may not go
  // (−∞ but for a pair that started overlapping).
  Eigen::VectorXd lo_, hi_;
  std::vector<SelfCollisionPair> pairs_;
  std::vector<double> pair_margin_, pair_floor_;
};

/// A gripper command on the fingers of a robot: the prismatic joints with controllers that are not on the arm.
class GripperTeleop {
 public:
  /// Finds the finger joints of `robot` (prismatic, controlled, not among `arm_bodies`). Returns an error message
  /// when there are none.
  std::string Configure(const contact::RigidSystem& rigid, const std::string& robot,
                        const std::vector<int>& arm_bodies);
  /// The same from a tree and its controllers.
  std::string Configure(const multibody::MultibodyTree& tree, const std::vector<contact::JointController>& controllers,
                        const std::string& robot, const std::vector<int>& arm_bodies);
  /// opening ∈ [0, 1] of each finger's range (1 = its upper limit); force > 0 [N]: squeeze with that force once
  /// the fingers close (a constant closing effort with the controller's damping, no position spring), 0: hold the
  /// opening with the position controller.
  void Set(double opening, double force) {
    opening_ = opening;
    force_ = force;
  }
  /// Sets the finger controllers' targets of `rigid` for this step: holding tracks the opening with the model's K_p
  /// and K_d (rigid.controllers()), squeezing (JointTarget::squeeze) pushes with the force, damped by the model's K_d
  /// (1 where the model has no damping); no gain changes for good, so live gain edits apply.
  void Apply(contact::RigidSystem& rigid) const;
  double opening() const { return opening_; }
  double force() const { return force_; }
  /// The fingers' controllers (indices into RigidSystem::controllers() and RigidState::targets).
  const std::vector<int>& controllers() const { return controllers_; }
  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(controllers_, lower_, upper_, opening_, force_);
  }

 private:
  std::vector<int> controllers_;
  std::vector<double> lower_, upper_;
  double opening_ = 1, force_ = 0;
};

}  // namespace ductile::robot
