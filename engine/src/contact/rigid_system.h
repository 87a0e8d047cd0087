// The rigid step (Castro et al. 2022, "An unconstrained convex formulation of compliant contact"): articulated and free
// rigid bodies with frictional contact, joint limits and implicit PD controllers, advanced by one SAP solve per time
// step.
//
//   1. Kinematics at (q, t); mass matrix M (CRBA), bias terms C(q, v)v − τ_g (RNEA), joint damping D.
//   2. Free motion: A = M + Δt·D,  v* = v + Δt·A⁻¹(τ_applied − C(q, v)v + τ_g − D·v).
//   3. Constraints: one Hunt-Crossley contact per contact point (combined stiffness, dissipation, μ of the two
//      geometries), a PD controller per actuated dof, a near-rigid limit per bounded joint side, welds.
//   4. SAP: v⁺ = argmin ½‖v − v*‖²_A + Σ ℓᵢ(Jᵢ v + bᵢ);  q⁺ = q + Δt·N(q)·v⁺.
// Combination rules (as Drake's): k = k_a k_b/(k_a + k_b) (springs in series), d = (k_b d_a + k_a d_b)/(k_a + k_b),
// μ = 2 μ_a μ_b/(μ_a + μ_b).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "contact/rigid_state.h"
#include "contact/sap_solver.h"
#include "geometry/collision.h"
#include "multibody/multibody_tree.h"

namespace ductile::contact {

struct RigidStepStats {
  int iterations = 0;
  bool converged = false;
  double residual = 0;
  int contacts = 0;
  std::vector<double> cost_history;
};

struct RigidSystemParams {
  Eigen::Vector3d gravity{0, 0, -9.81};
  double stiction_speed = 1e-4;  ///< v_s [m/s].
  double sigma = 1e-3;           ///< Friction regularisation σ.
  double beta = 1;               ///< Near-rigid β of limits and welds.
  SapSolverParams solver;
};

/// A rigid step's SAP problem before its solve (RigidSystem::BeginStep): the free motion and every rigid constraint,
/// and per contact of RigidState::contacts the index of its constraint.
struct RigidStepProblem {
  SapProblem problem;
  std::vector<int> contact_constraint;
};

/// The state of a tree at rest in its default positions, with no controller targets and no applied forces.
RigidState InitialRigidState(const multibody::MultibodyTree& tree);

/// Steps a RigidState over a tree, a collision world and welds that it does not own (they belong to the Model).
/// Holds the kinematics of the state's q and the wrenches applied for the coming step only.
class RigidSystem {
 public:
  /// `tree`, `world`, `welds`, `controllers` and `state` must outlive the system (or the next Bind). The state's
  /// controller targets are indexed like `controllers`.
  RigidSystem(const multibody::MultibodyTree& tree, const geometry::CollisionWorld& world,
              const std::vector<Weld>& welds, const std::vector<JointController>& controllers, RigidSystemParams params,
              RigidState& state);

  const multibody::MultibodyTree& tree() const { return *tree_; }
  const geometry::CollisionWorld& world() const { return *world_; }
  /// The PD controllers' joints and gains (the model's); their targets are state().targets.
  const std::vector<JointController>& controllers() const { return *controllers_; }
  RigidSystemParams& params() { return params_; }
  RigidState& state() { return *state_; }
  const RigidState& state() const { return *state_; }
  /// Works on `state` from now on (a state of the same tree); recomputes the kinematics.
  void Bind(RigidState& state);

  /// Applies a force f_W [N] at the body point p_WQ [m] and a torque t_W [N·m] for the next step only.
  void ApplyBodyWrench(int body, const Eigen::Vector3d& p_WQ, const Eigen::Vector3d& f_W, const Eigen::Vector3d& t_W);
  /// Applies an impulse P_W [N·s] at the body point p_WQ [m] and an angular impulse L_W [N·m·s] in the next step:
  /// the generalized impulse Jᵀ(P, L) adds to the free-motion momentum (Yu et al. 2025, Eq. 3).
  void ApplyBodyImpulse(int body, const Eigen::Vector3d& p_WQ, const Eigen::Vector3d& P_W, const Eigen::Vector3d& L_W);

  /// Advances the state by dt [s]. Throws std::runtime_error when the state is not finite after the step.
  /// BeginStep, SolveSap from the current velocities, FinishStep.
  RigidStepStats Step(double dt);
  /// The first half of Step: the step's SAP problem at the current state (the contacts found go to the state for
  /// the reports); consumes the wrenches and impulses applied for this step. A coupling scheme may add dofs after
  /// the rigid ones and constraints over them (the strong coupling, coupling/strong_coupling.h), then solve.
  RigidStepProblem BeginStep(double dt);
  /// The second half: takes the solved velocities (the first nv of r.v) and the impulses of the begun problem's
  /// constraints (r.gamma, in its order), integrates q and records the contact forces.
  RigidStepStats FinishStep(double dt, const RigidStepProblem& begun, const SapResult& r);

  const std::vector<RigidContact>& contacts() const { return state_->contacts; }
  /// Mean contact force [N] and torque about the body origin [N·m] on body b over the last step (world frame).
  void ContactWrench(int body, Eigen::Vector3d& f_W, Eigen::Vector3d& t_W) const;
  /// Kinematics at the current state.
  const multibody::Kinematics& kinematics() const { return kin_; }
  /// Recomputes kinematics() after q or time were edited.
  void UpdateKinematics();

 private:
  // The stages of Step: the free motion v* (1-2) and the constraints (3a-3c) of the SAP problem.
  void AddFreeMotion(double dt, SapProblem& problem) const;
  void AddContacts(double dt, const Eigen::VectorXd& A_diag_inv, SapProblem& problem,
                   std::vector<int>& contact_constraint);
  void AddControllersAndLimits(double dt, const Eigen::VectorXd& A_diag_inv, SapProblem& problem) const;
  void AddWelds(double dt, const Eigen::VectorXd& A_diag_inv, SapProblem& problem) const;

  const multibody::MultibodyTree* tree_;
  const geometry::CollisionWorld* world_;
  const std::vector<Weld>* welds_;
  const std::vector<JointController>* controllers_;
  RigidSystemParams params_;
  RigidState* state_;
  multibody::Kinematics kin_;
  Eigen::VectorXd tau_once_;  // wrenches applied for one step [N·m or N]
  Eigen::VectorXd j_once_;    // impulses applied in one step [N·m·s or N·s]
};

}  // namespace ductile::contact
