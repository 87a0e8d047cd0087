#include "contact/rigid_system.h"

#include <Eigen/Cholesky>
#include <memory>
#include <stdexcept>

#include "contact/constraints/holonomic_constraint.h"
#include "contact/constraints/hunt_crossley_contact.h"
#include "contact/constraints/limit_constraint.h"
#include "contact/constraints/pd_controller.h"
#include "contact/contact_frame.h"
#include "contact/friction_combination.h"

namespace ductile::contact {
namespace {

// The Delassus estimate w = ‖J diag(A)⁻¹ Jᵀ‖_F / rows of a constraint (Castro et al. 2022, Sec. V).
double DelassusEstimate(const Eigen::MatrixXd& J, const Eigen::VectorXd& A_diag_inv) {
  const Eigen::MatrixXd W = J * A_diag_inv.asDiagonal() * J.transpose();
  return W.norm() / static_cast<double>(J.rows());
}

}  // namespace

RigidState InitialRigidState(const multibody::MultibodyTree& tree) {
  RigidState state;
  state.q = tree.DefaultPositions();
  state.v = Eigen::VectorXd::Zero(tree.nv());
  state.tau_applied = Eigen::VectorXd::Zero(tree.nv());
  return state;
}

RigidSystem::RigidSystem(const multibody::MultibodyTree& tree, const geometry::CollisionWorld& world,
                         const std::vector<Weld>& welds, const std::vector<JointController>& controllers,
                         RigidSystemParams params, RigidState& state)
    : tree_(&tree),
      world_(&world),
      welds_(&welds),
      controllers_(&controllers),
      params_(std::move(params)),
      state_(&state) {
  tau_once_ = Eigen::VectorXd::Zero(tree.nv());
  j_once_ = Eigen::VectorXd::Zero(tree.nv());
  UpdateKinematics();
}

void RigidSystem::Bind(RigidState& state) {
  state_ = &state;
  UpdateKinematics();
}

void RigidSystem::UpdateKinematics() {
  multibody::CalcKinematics(*tree_, state_->q, state_->time, kin_);
}

void RigidSystem::ApplyBodyWrench(int body, const Eigen::Vector3d& p_WQ, const Eigen::Vector3d& f_W,
                                  const Eigen::Vector3d& t_W) {
  const Eigen::MatrixXd Jv = multibody::CalcPointJacobian(*tree_, kin_, body, p_WQ);
  const Eigen::MatrixXd Jw = multibody::CalcBodyJacobian(*tree_, kin_, body).topRows<3>();
  tau_once_ += Jv.transpose() * f_W + Jw.transpose() * t_W;
}

void RigidSystem::ApplyBodyImpulse(int body, const Eigen::Vector3d& p_WQ, const Eigen::Vector3d& P_W,
                                   const Eigen::Vector3d& L_W) {
  const Eigen::MatrixXd Jv = multibody::CalcPointJacobian(*tree_, kin_, body, p_WQ);
  const Eigen::MatrixXd Jw = multibody::CalcBodyJacobian(*tree_, kin_, body).topRows<3>();
  j_once_ += Jv.transpose() * P_W + Jw.transpose() * L_W;
}

// Free motion: A = M + Δt·D and v* = v + A⁻¹(Δt (τ_applied + τ_once − C(q, v)v + τ_g − D·v) + j_once).
void RigidSystem::AddFreeMotion(double dt, SapProblem& problem) const {
  const RigidState& s = *state_;
  const int nv = tree_->nv();
  const Eigen::VectorXd damping = tree_->DampingDiagonal();
  problem.A = multibody::CalcMassMatrix(*tree_, kin_);
  problem.A.diagonal() += dt * damping;
  const Eigen::VectorXd bias =
      multibody::CalcInverseDynamics(*tree_, kin_, s.v, Eigen::VectorXd::Zero(nv), params_.gravity);
  const Eigen::VectorXd force = s.tau_applied + tau_once_ - bias - damping.cwiseProduct(s.v);
  if (nv == 0) return;
  if (j_once_.isZero(0)) {
    problem.v_star = s.v + dt * problem.A.llt().solve(force);
  } else {
    problem.v_star = s.v + problem.A.llt().solve(dt * force + j_once_);
  }
}

// One Hunt-Crossley constraint per contact point; the kept contacts go to the state for the reports.
void RigidSystem::AddContacts(double dt, const Eigen::VectorXd& A_diag_inv, SapProblem& problem,
                              std::vector<int>& contact_constraint) {
  RigidState& s = *state_;
  const int nv = tree_->nv();
  const std::vector<geometry::ContactPoint> points = world_->FindContacts(kin_.X_WB);
  s.contacts.clear();
  s.contact_origins.resize(kin_.X_WB.size());
  for (std::size_t b = 0; b < kin_.X_WB.size(); ++b) s.contact_origins[b] = kin_.X_WB[b].translation();
  for (const geometry::ContactPoint& cp : points) {
    const geometry::CollisionGeometry& ga = world_->geometry(cp.a);
    const geometry::CollisionGeometry& gb = world_->geometry(cp.b);
    Eigen::Vector3d v0_a, v0_b;
    const Eigen::MatrixXd Ja = multibody::CalcPointJacobian(*tree_, kin_, ga.body, cp.p_W, &v0_a);
    const Eigen::MatrixXd Jb = multibody::CalcPointJacobian(*tree_, kin_, gb.body, cp.p_W, &v0_b);
    const Eigen::Matrix3d R_WC = ContactFrame(cp.n_W);
    Eigen::MatrixXd J = R_WC.transpose() * (Jb - Ja);
    const Eigen::Vector3d b = R_WC.transpose() * (v0_b - v0_a);
    if (nv == 0 || J.norm() == 0) continue;  // between bodies without dofs
    HuntCrossleyParams p;
    p.dt = dt;
    p.phi0 = -cp.depth;
    p.stiffness = ga.stiffness * gb.stiffness / (ga.stiffness + gb.stiffness);
    p.dissipation = (gb.stiffness * ga.dissipation + ga.stiffness * gb.dissipation) / (ga.stiffness + gb.stiffness);
    p.friction = CombineFriction(ga.friction, gb.friction);
    // GCC 12 warns of a null dereference inside Eigen's product evaluator here (the vector's storage may be empty as
    // far as it can tell, though nv > 0 on this path).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
    p.vn0 = (J * s.v + b)[2];
#pragma GCC diagnostic pop
    p.stiction_speed = params_.stiction_speed;
    p.sigma = params_.sigma;
    p.delassus = DelassusEstimate(J, A_diag_inv);
    contact_constraint.push_back(static_cast<int>(problem.constraints.size()));
    problem.Add(std::make_unique<HuntCrossleyContact>(p), std::move(J), b);
    RigidContact rc;
    rc.geometry_a = cp.a;
    rc.geometry_b = cp.b;
    rc.body_a = ga.body;
    rc.body_b = gb.body;
    rc.p_W = cp.p_W;
    rc.n_W = cp.n_W;
    rc.depth = cp.depth;
    s.contacts.push_back(rc);
  }
}

// A PD controller per driven 1-dof joint and a near-rigid limit per bounded joint side.
void RigidSystem::AddControllersAndLimits(double dt, const Eigen::VectorXd& A_diag_inv, SapProblem& problem) const {
  const RigidState& s = *state_;
  const int nv = tree_->nv();
  for (std::size_t k = 0; k < controllers_->size() && k < s.targets.size(); ++k) {
    const JointController& c = (*controllers_)[k];
    const JointTarget& target = s.targets[k];
    const multibody::Body& body = tree_->body(c.body);
    if (body.nv != 1 || c.Kp(target) + c.Kd(target) <= 0) continue;
    PdControllerParams p;
    p.dt = dt;
    p.kp = c.Kp(target);
    p.kd = c.Kd(target);
    p.q0 = s.q[body.q_start];
    p.q_target = target.q_target;
    p.v_target = target.v_target;
    p.feedforward = target.feedforward;
    p.effort_limit = body.effort;
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(1, nv);
    J(0, body.v_start) = 1;
    problem.Add(std::make_unique<PdController>(p), std::move(J));
  }
  for (const multibody::Body& body : tree_->bodies()) {
    if (body.nv != 1) continue;
    for (int side : {-1, 1}) {
      const double bound = side < 0 ? body.lower : body.upper;
      if (std::abs(bound) >= 1e299) continue;
      LimitParams p;
      p.dt = dt;
      p.g0 = side < 0 ? s.q[body.q_start] - bound : bound - s.q[body.q_start];
      p.beta = params_.beta;
      p.delassus = A_diag_inv[body.v_start];
      Eigen::MatrixXd J = Eigen::MatrixXd::Zero(1, nv);
      J(0, body.v_start) = side < 0 ? 1 : -1;
      problem.Add(std::make_unique<LimitConstraint>(p), std::move(J));
    }
  }
}

// Welds: g = (rotation vector of R_WG R_WFᵀ, p_WG − p_WF), ġ = relative (ω, v) at the point G.
void RigidSystem::AddWelds(double dt, const Eigen::VectorXd& A_diag_inv, SapProblem& problem) const {
  const int nv = tree_->nv();
  for (const Weld& w : *welds_) {
    const Eigen::Isometry3d X_WF = (w.body_a >= 0 ? kin_.X_WB[w.body_a] : Eigen::Isometry3d::Identity()) * w.X_AF;
    const Eigen::Isometry3d X_WG = (w.body_b >= 0 ? kin_.X_WB[w.body_b] : Eigen::Isometry3d::Identity()) * w.X_BG;
    const Eigen::AngleAxisd err(X_WG.linear() * X_WF.linear().transpose());
    const Eigen::Vector3d g_rot = err.axis() * err.angle();
    const Eigen::Vector3d g_pos = X_WG.translation() - X_WF.translation();
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, nv);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(6);
    Eigen::Vector3d v0_a, v0_b;
    const Eigen::Vector3d p = X_WG.translation();
    J.bottomRows<3>() = multibody::CalcPointJacobian(*tree_, kin_, w.body_b, p, &v0_b) -
                        multibody::CalcPointJacobian(*tree_, kin_, w.body_a, p, &v0_a);
    b.tail<3>() = v0_b - v0_a;
    if (w.body_b >= 0) {
      J.topRows<3>() += multibody::CalcBodyJacobian(*tree_, kin_, w.body_b).topRows<3>();
      b.head<3>() += kin_.V0[w.body_b].head<3>();
    }
    if (w.body_a >= 0) {
      J.topRows<3>() -= multibody::CalcBodyJacobian(*tree_, kin_, w.body_a).topRows<3>();
      b.head<3>() -= kin_.V0[w.body_a].head<3>();
    }
    std::vector<HolonomicRow> rows(6);
    for (int r = 0; r < 6; ++r) {
      rows[r].g0 = r < 3 ? g_rot[r] : g_pos[r - 3];
      rows[r].stiffness = w.stiffness;
      rows[r].damping = w.damping;
      rows[r].delassus = DelassusEstimate(J.row(r), A_diag_inv);
    }
    problem.Add(std::make_unique<HolonomicConstraint>(dt, params_.beta, rows), std::move(J), b);
  }
}

RigidStepProblem RigidSystem::BeginStep(double dt) {
  RigidStepProblem out;
  UpdateKinematics();
  AddFreeMotion(dt, out.problem);
  tau_once_.setZero();
  j_once_.setZero();
  const Eigen::VectorXd A_diag_inv = out.problem.A.diagonal().cwiseInverse();
  AddContacts(dt, A_diag_inv, out.problem, out.contact_constraint);
  AddControllersAndLimits(dt, A_diag_inv, out.problem);
  AddWelds(dt, A_diag_inv, out.problem);
  return out;
}

RigidStepStats RigidSystem::FinishStep(double dt, const RigidStepProblem& begun, const SapResult& r) {
  RigidState& s = *state_;
  RigidStepStats stats;
  const int nv = tree_->nv();
  if (nv > 0) {
    stats.iterations = r.iterations;
    stats.converged = r.converged;
    stats.residual = r.residual;
    stats.cost_history = r.cost_history;
    s.v = r.v.head(nv);
    for (std::size_t i = 0; i < s.contacts.size(); ++i) {
      const Eigen::Matrix3d R_WC = ContactFrame(s.contacts[i].n_W);
      s.contacts[i].f_W = R_WC * r.gamma[static_cast<std::size_t>(begun.contact_constraint[i])] / dt;
    }
    tree_->IntegratePositions(dt, s.v, s.q);
  } else {
    stats.converged = true;
  }
  stats.contacts = static_cast<int>(s.contacts.size());
  s.time += dt;
  if (!s.q.allFinite() || !s.v.allFinite()) throw std::runtime_error("rigid state is not finite after the step");
  UpdateKinematics();
  return stats;
}

RigidStepStats RigidSystem::Step(double dt) {
  const RigidStepProblem begun = BeginStep(dt);
  SapResult r;
  if (tree_->nv() > 0) r = SolveSap(begun.problem, params_.solver, state_->v);
  return FinishStep(dt, begun, r);
}

void RigidSystem::ContactWrench(int body, Eigen::Vector3d& f_W, Eigen::Vector3d& t_W) const {
  f_W.setZero();
  t_W.setZero();
  // Torques about the body origin where it was when the contacts were found (the start of the step).
  for (const RigidContact& c : state_->contacts) {
    double sign = 0;
    if (c.body_b == body) sign += 1;
    if (c.body_a == body) sign -= 1;
    if (sign == 0) continue;
    const Eigen::Vector3d f = sign * c.f_W;
    f_W += f;
    t_W += (c.p_W - state_->contact_origins[body]).cross(f);
  }
}

}  // namespace ductile::contact
