// Articulated rigid bodies (Featherstone 2008; docs/architecture.md, "Rigid bodies and SAP"): a forest of bodies, each
// connected to its parent (or the world) by one joint, with generalized positions q (size nq) and velocities v (size
// nv).
//
// Algorithms (Featherstone 2008), all in world coordinates about the world origin (see spatial.h):
//   kinematics   X_WB = X_WP · X_PJ · X_J(q)                 poses, motion subspaces S_B (6 × nv_B)
//   velocities   V_B = V_P + S_B v_B                         (Eq. 3.29)
//   CRBA         Iᶜ_B = I_B + Σ_children Iᶜ_C,  M_BA = S_Bᵀ Iᶜ_B S_A for A an ancestor of B or B itself (Table 6.2)
//   RNEA         A_B = A_P + S_B v̇_B + Ṡ_B v_B,  A_world = −g;  f_B = I_B A_B + V_B ×* I_B V_B;
//                τ_B = S_Bᵀ f_B,  f_P += f_B                 (Table 5.1)
// Joint motion subspaces in world coordinates: revolute about unit axis a through p: S = (a, p × a);
// prismatic along a: S = (0, a); both are fixed in the child body, so Ṡ v = V_B ×ₘ S v. A floating joint (root
// bodies only) has v = (ω_W, v_W) of the body origin p and S = [[1, 0], [[p]×, 1]], so Ṡ v = (0, v_W × ω_W).
// A prescribed ("kinematic") root follows a pose trajectory X_WB(t) with twist (ω, v) given by the trajectory and
// has no dofs; its velocity enters its subtree as a known bias V⁰, and its spatial acceleration
// d/dt (ω, v − ω × p) = (ω̇, v̇ − ω̇ × p + v × ω) as a known bias A⁰.
//
// Positions advance with q⁺ = q + Δt·N(q)·v⁺: N = 1 except for the floating joint's quaternion,
// q̇_quat = ½ (0, ω_W) ⊗ q_quat (renormalised after the step).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "ductile/kinds.h"
#include "multibody/spatial.h"

namespace ductile::multibody {

/// A pose trajectory through keyframes at increasing times; constant before the first and after the last
/// keyframe. Within the segment between keyframes k and k + 1, with s = (t − t_k)/(t_{k+1} − t_k) ∈ [0, 1] and a
/// blend e(s) (e(0) = 0, e(1) = 1):
///   p_WB(t) = (1 − e) p_k + e p_{k+1},   R_WB(t) = slerp(R_k, R_{k+1}, e) = exp(e θ â) R_k,
/// where R_{k+1} R_kᵀ = exp(θ â) (the short way, θ ∈ [0, π]). Its twist is the exact time derivative,
///   ω_WB = e'(s) θ â / Δt,   v_WB = e'(s) (p_{k+1} − p_k) / Δt   (Δt = t_{k+1} − t_k),
/// that is e'(s) times the segment's linear-case twist; the axis â stays fixed in the world within a segment.
///   linear: e(s) = s: constant twist within a segment, a jump at each keyframe;
///   smooth: e(s) = 3s² − 2s³ (smoothstep), e'(s) = 6s(1 − s): twist continuous in time, zero at every keyframe.
struct PoseTrajectory {
  std::vector<double> times;                  ///< [s], strictly increasing, at least one.
  std::vector<Eigen::Vector3d> positions;     ///< p_WB [m].
  std::vector<Eigen::Quaterniond> rotations;  ///< R_WB (unit).
  /// The blend e(s) of every segment.
  KeyframeInterpolation interpolation = KeyframeInterpolation::kLinear;
  /// The pose at time t [s].
  Eigen::Isometry3d Pose(double t) const;
  /// The angular velocity ω_WB [rad/s] and the velocity of the body origin v_WB [m/s] at time t (the right
  /// derivative at a keyframe).
  void Twist(double t, Eigen::Vector3d& w_WB, Eigen::Vector3d& v_WB) const;
  /// The time derivatives of Twist: ω̇_WB [rad/s²] and the acceleration of the body origin [m/s²] at time t
  /// (the right derivative at a keyframe), e''(s)/Δt times the linear-case twist; zero with linear
  /// interpolation (its velocity jumps at keyframes are left out).
  void TwistRate(double t, Eigen::Vector3d& wdot_WB, Eigen::Vector3d& vdot_WB) const;
};

/// One body and the joint to its parent.
struct Body {
  std::string name;  ///< Unique: "<tree>/<link>" for robot links, the body's own name for single bodies.
  std::string link;  ///< Link name within its tree.
  int tree = 0;      ///< Index of the multibody (robot or single body) it belongs to.
  int parent = -1;   ///< Parent body index, −1 = world. Parents come before children.
  JointType joint = JointType::kFixed;
  std::string joint_name;
  Eigen::Isometry3d X_PJ = Eigen::Isometry3d::Identity();  ///< Joint frame in the parent frame (or world).
  Eigen::Vector3d axis_J = Eigen::Vector3d::UnitX();       ///< Unit joint axis in J.
  int q_start = 0, nq = 0;                                 ///< This joint's slice of q.
  int v_start = 0, nv = 0;                                 ///< This joint's slice of v.
  double mass = 0;                                         ///< [kg].
  Eigen::Vector3d p_BCm = Eigen::Vector3d::Zero();         ///< Centre of mass in B [m].
  Eigen::Matrix3d I_Cm_B = Eigen::Matrix3d::Zero();        ///< Rotational inertia about it, B axes [kg·m²].
  double damping = 0;                                      ///< Joint damping [N·m·s/rad or N·s/m].
  double lower = -1e300, upper = 1e300;                    ///< Joint position limits.
  double effort = 1e300;                                   ///< Effort limit.
  double velocity_limit = 1e300;                           ///< Velocity limit.
  int trajectory = -1;  ///< Index into MultibodyTree::trajectories for a prescribed root, else −1.
};

/// The immutable tree(s). Build with AddBody in parent-first order, then Finalize.
class MultibodyTree {
 public:
  /// Appends a body; assigns its q and v slices. Returns its index.
  int AddBody(Body body);
  int AddTrajectory(PoseTrajectory trajectory);
  int num_bodies() const { return static_cast<int>(bodies_.size()); }
  int nq() const { return nq_; }
  int nv() const { return nv_; }
  const Body& body(int b) const { return bodies_[b]; }
  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<PoseTrajectory>& trajectories() const { return trajectories_; }
  /// Index of the body with that name, −1 if none.
  int FindBody(const std::string& name) const;
  /// The zero configuration: joint positions 0, identity quaternions, floating positions at their X_PJ.
  Eigen::VectorXd DefaultPositions() const;
  /// Per-dof joint damping (diagonal of D).
  Eigen::VectorXd DampingDiagonal() const;
  /// q ← q + Δt·N(q)·v, quaternions renormalised.
  void IntegratePositions(double dt, const Eigen::VectorXd& v, Eigen::VectorXd& q) const;

 private:
  std::vector<Body> bodies_;
  std::vector<PoseTrajectory> trajectories_;
  int nq_ = 0;
  int nv_ = 0;
};

/// Position- and time-dependent quantities of every body.
struct Kinematics {
  std::vector<Eigen::Isometry3d> X_WB;  ///< Body poses.
  std::vector<Eigen::Vector3d> p_WCm;   ///< Centres of mass [m].
  std::vector<Matrix6Xd> S;             ///< Motion subspace of each body's joint (6 × nv_B), world, about O.
  std::vector<Matrix6d> I;              ///< Spatial inertia of each body, world, about O.
  std::vector<Vector6d> V0;             ///< Velocity bias from prescribed roots: V_B = V0_B + Σ_{ancestors A} S_A v_A.
  std::vector<Vector6d> A0;             ///< Acceleration bias from prescribed roots: d/dt V0 of the root.
};

/// Poses, motion subspaces and inertias at positions q and time t (prescribed trajectories).
void CalcKinematics(const MultibodyTree& tree, const Eigen::VectorXd& q, double t, Kinematics& kin);

/// Spatial velocity of every body (world, about O).
std::vector<Vector6d> CalcSpatialVelocities(const MultibodyTree& tree, const Kinematics& kin, const Eigen::VectorXd& v);

/// The mass matrix M(q) (nv × nv, symmetric positive definite when every dof moves mass) by CRBA.
Eigen::MatrixXd CalcMassMatrix(const MultibodyTree& tree, const Kinematics& kin);

/// Inverse dynamics by RNEA: τ = M(q)v̇ + C(q, v)v − τ_g(q) for gravity g [m/s²] (joint damping excluded).
/// With v̇ = 0 this is the bias term C(q, v)v − τ_g(q).
Eigen::VectorXd CalcInverseDynamics(const MultibodyTree& tree, const Kinematics& kin, const Eigen::VectorXd& v,
                                    const Eigen::VectorXd& vdot, const Eigen::Vector3d& gravity);

/// J_B (6 × nv): V_B = J_B v + V0_B.
Eigen::MatrixXd CalcBodyJacobian(const MultibodyTree& tree, const Kinematics& kin, int body);

/// The translational Jacobian (3 × nv) of the point of body b at p_WQ [m]: v_WQ = J v + v0. b = −1 (world) gives
/// zeros. `v0` receives the bias from prescribed motion (may be null).
Eigen::MatrixXd CalcPointJacobian(const MultibodyTree& tree, const Kinematics& kin, int body,
                                  const Eigen::Vector3d& p_WQ, Eigen::Vector3d* v0 = nullptr);

/// Kinetic energy ½ vᵀMv plus the kinetic energy of prescribed motion's contribution [J].
double CalcKineticEnergy(const MultibodyTree& tree, const Kinematics& kin, const Eigen::VectorXd& v);
/// Gravitational potential energy −Σ m g·p_Cm [J].
double CalcPotentialEnergy(const MultibodyTree& tree, const Kinematics& kin, const Eigen::Vector3d& gravity);

}  // namespace ductile::multibody
