#include "robot/teleop.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>

#include "multibody/spatial.h"

namespace ductile::robot {

int ControllerOf(const std::vector<contact::JointController>& controllers, int body) {
  for (std::size_t c = 0; c < controllers.size(); ++c) {
    if (controllers[c].body == body) return static_cast<int>(c);
  }
  return -1;
}

bool IsRobotBody(const multibody::Body& body, const std::string& robot) {
  return body.name.size() > robot.size() && body.name.compare(0, robot.size(), robot) == 0 &&
         body.name[robot.size()] == '/';
}

namespace {

bool IsOneDof(const multibody::Body& body) {
  return body.joint == JointType::kRevolute || body.joint == JointType::kPrismatic;
}

// The barrier B(x) = −(x − d̂)² ln(x/d̂) on 0 < x < d̂ (Li et al. 2020, Eq. 6) and its first two derivatives,
//   B'(x) = −2(x − d̂) ln(x/d̂) − (x − d̂)²/x,   B''(x) = −2 ln(x/d̂) − 4(x − d̂)/x + (x − d̂)²/x².
double Barrier(double x, double dhat) {
  return -(x - dhat) * (x - dhat) * std::log(x / dhat);
}
double BarrierSlope(double x, double dhat) {
  return -2 * (x - dhat) * std::log(x / dhat) - (x - dhat) * (x - dhat) / x;
}
double BarrierCurvature(double x, double dhat) {
  return -2 * std::log(x / dhat) - 4 * (x - dhat) / x + (x - dhat) * (x - dhat) / (x * x);
}

// The rotation vector (axis times angle, angle in [0, π]) of R.
Eigen::Vector3d RotationVector(const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.axis() * aa.angle();
}

}  // namespace

Eigen::Matrix3d InverseRightJacobianSO3(const Eigen::Vector3d& phi) {
  const double theta = phi.norm();
  const double c = theta < 1e-3 ? 1.0 / 12 + theta * theta / 720
                                : 1 / (theta * theta) - (1 + std::cos(theta)) / (2 * theta * std::sin(theta));
  const Eigen::Matrix3d S = multibody::Skew(phi);
  return Eigen::Matrix3d::Identity() + 0.5 * S + c * S * S;
}

std::string ArmTeleop::Configure(const contact::RigidSystem& rigid, const std::string& robot, const std::string& link) {
  return Configure(rigid.tree(), rigid.controllers(), robot, link);
}

std::string ArmTeleop::Configure(const multibody::MultibodyTree& tree,
                                 const std::vector<contact::JointController>& controllers, const std::string& robot,
                                 const std::string& link) {
  bool robot_found = false;
  for (const multibody::Body& b : tree.bodies()) robot_found = robot_found || IsRobotBody(b, robot);
  if (!robot_found) return "no robot named '" + robot + "'";
  link_ = tree.FindBody(robot + "/" + link);
  if (link_ < 0) return "robot '" + robot + "' has no link '" + link + "'";
  link_name_ = link;
  bodies_.clear();
  controllers_.clear();
  q_index_.clear();
  v_index_.clear();
  lower_.clear();
  upper_.clear();
  for (int b = link_; b >= 0; b = tree.body(b).parent) {
    const multibody::Body& body = tree.body(b);
    const int c = ControllerOf(controllers, b);
    if (!IsOneDof(body) || c < 0) continue;
    bodies_.push_back(b);
    controllers_.push_back(c);
    q_index_.push_back(body.q_start);
    v_index_.push_back(body.v_start);
    lower_.push_back(body.lower);
    upper_.push_back(body.upper);
  }
  // Collected from the link up: root first.
  std::reverse(bodies_.begin(), bodies_.end());
  std::reverse(controllers_.begin(), controllers_.end());
  std::reverse(q_index_.begin(), q_index_.end());
  std::reverse(v_index_.begin(), v_index_.end());
  std::reverse(lower_.begin(), lower_.end());
  std::reverse(upper_.begin(), upper_.end());
  if (bodies_.empty()) {
    return "robot '" + robot + "': no joint with a controller between its root and link '" + link + "'";
  }
  q_c_.resize(0);
  v_c_.resize(0);
  held_for_ = 1e9;
  fed_forward_ = true;
  return {};
}

void ArmTeleop::SetTarget(const Eigen::Vector3d& tool_point_L, const Eigen::Vector3d& p_W,
                          const Eigen::Quaterniond& R_WT, bool track_orientation) {
  tool_point_L_ = tool_point_L;
  target_p_ = p_W;
  target_R_ = R_WT.normalized();
  track_orientation_ = track_orientation;
}

void ArmTeleop::ToolPose(const contact::RigidSystem& rigid, const Eigen::VectorXd& q, Eigen::Vector3d& p_W,
                         Eigen::Matrix3d& R_WL) {
  multibody::CalcKinematics(rigid.tree(), q, rigid.state().time, kin_);
  const Eigen::Isometry3d& X_WL = kin_.X_WB[link_];
  p_W = X_WL * tool_point_L_;
  R_WL = X_WL.linear();
}

void ArmTeleop::ToolJacobian(const contact::RigidSystem& rigid, const Eigen::Vector3d& p_W, Eigen::MatrixXd& J) const {
  // Spatial velocity about the world origin (ω, v_O); the tool point moves with v_O + ω × p.
  const Eigen::MatrixXd J_link = multibody::CalcBodyJacobian(rigid.tree(), kin_, link_);
  const auto n = static_cast<Eigen::Index>(bodies_.size());
  J.resize(6, n);
  const Eigen::Matrix3d p_skew = multibody::Skew(p_W);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Eigen::Vector3d w = J_link.block<3, 1>(0, v_index_[k]);
    const Eigen::Vector3d v = J_link.block<3, 1>(3, v_index_[k]);
    J.block<3, 1>(0, k) = w;
    J.block<3, 1>(3, k) = v - p_skew * w;
  }
}

Eigen::VectorXd ArmTeleop::StepDirection(const IkDerivatives& d, const Eigen::Matrix<double, 6, 1>& e,
                                         bool gradient) const {
  const auto n = static_cast<Eigen::Index>(bodies_.size());
  // A joint this near a limit counts as at it (a step ended at the limit can land an ulp short of it).
  constexpr double kAtLimit = 1e-12;
  // The error clamped to kMaxTaskStep (Buss and Kim 2005): the linearisation holds near q_c only.
  const double scale = e.norm() > kMaxTaskStep ? kMaxTaskStep / e.norm() : 1.0;
  const Eigen::Matrix<double, 6, 1> aim = scale < 1 ? Eigen::Matrix<double, 6, 1>(e * scale) : e;
  const bool near = d.D.rows() > 0;
  Eigen::MatrixXd J_free = d.J, D_free = d.D;
  Eigen::VectorXd dq;
  for (Eigen::Index pass = 0; pass <= n; ++pass) {
    // −½∇Φ = Jᵀe − ½κ Σ B'(x_i) g_i.
    const auto descent = [&] {
      Eigen::VectorXd g = J_free.transpose() * e;
      if (near) g -= 0.5 * D_free.transpose() * d.barrier_slope;
      return g;
    };
    if (gradient) {
      dq = descent();
    } else if (!near) {
      const Eigen::Matrix<double, 6, 6> A =
          J_free * J_free.transpose() + kDamping * kDamping * Eigen::Matrix<double, 6, 6>::Identity();
      dq = J_free.transpose() * A.ldlt().solve(aim);
    } else {
      Eigen::MatrixXd H = J_free.transpose() * J_free;
      H.diagonal().array() += kDamping * kDamping;
      H += 0.5 * D_free.transpose() * d.barrier_curvature.asDiagonal() * D_free;
      dq = scale * H.ldlt().solve(descent());
    }
    bool blocked = false;
    for (Eigen::Index k = 0; k < n; ++k) {
      const bool pushed = (q_c_[k] <= lo_[k] + kAtLimit && dq[k] < 0) || (q_c_[k] >= hi_[k] - kAtLimit && dq[k] > 0);
      if (!pushed) continue;
      J_free.col(k).setZero();  // the next pass gives it dq[k] = 0
      if (near) D_free.col(k).setZero();
      blocked = true;
    }
    if (!blocked) break;
  }
  return dq;
}

double ArmTeleop::StepScale(const Eigen::VectorXd& dq, const Eigen::VectorXd& taken) const {
  double scale = 1;
  for (Eigen::Index k = 0; k < dq.size(); ++k) {
    const double step = std::abs(dq[k]);
    if (step == 0) continue;
    const double room = std::max(kMaxJointStep - std::abs(taken[k]), 0.0);
    const double to_limit = std::max(dq[k] > 0 ? hi_[k] - q_c_[k] : q_c_[k] - lo_[k], 0.0);
    scale = std::min(scale, std::min(room, to_limit) / step);
  }
  return scale;
}

ArmTeleop::IkPoint ArmTeleop::EvaluateIk(const contact::RigidSystem& rigid, const Eigen::VectorXd& qc,
                                         Eigen::VectorXd& q) {
  for (Eigen::Index k = 0; k < qc.size(); ++k) q[q_index_[k]] = qc[k];
  IkPoint pt;
  Eigen::Matrix3d R_WL;
  ToolPose(rigid, q, pt.p_W, R_WL);
  const Eigen::Vector3d phi = RotationVector(target_R_.toRotationMatrix() * R_WL.transpose());
  pt.angle = phi.norm();
  pt.e.head<3>() = track_orientation_ ? Eigen::Vector3d(kRotationWeight * phi) : Eigen::Vector3d::Zero();
  pt.e.tail<3>() = target_p_ - pt.p_W;
  pt.cost = pt.e.squaredNorm();
  // The barrier of the pairs within its reach: those whose bounding spheres are nearer than m_i + d̂.
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const bool barrier = std::isfinite(pair_margin_[i]);
    if (barrier && PairBeyond(rigid.world(), pairs_[i], kin_, pair_margin_[i] + kSelfCollisionReach)) continue;
    const geometry::GeometryDistance distance = PairDistance(rigid.world(), pairs_[i], kin_);
    if (distance.distance < pair_floor_[i]) pt.cost = std::numeric_limits<double>::infinity();
    if (!barrier) continue;
    const double x = distance.distance - pair_margin_[i];
    if (x >= kSelfCollisionReach) continue;
    if (!(x > 0)) {
      pt.cost = std::numeric_limits<double>::infinity();
      continue;
    }
    pt.cost += kBarrierWeight * Barrier(x, kSelfCollisionReach);
    pt.near.push_back({static_cast<int>(i), x, distance});
  }
  return pt;
}

void ArmTeleop::IkJacobian(const contact::RigidSystem& rigid, const IkPoint& pt, IkDerivatives& d) const {
  // The tool point's linear-velocity rows, and w·J_r⁻¹(φ)·J_ω for the rotation (φ changes as −J_r⁻¹(φ) ω; J_ω alone
  // is right only for small φ, and with it a large rotation error gave steps that did not lower |e|).
  Eigen::MatrixXd& J = d.J;
  ToolJacobian(rigid, pt.p_W, J);
  if (track_orientation_) {
    J.topRows<3>() = kRotationWeight * InverseRightJacobianSO3(pt.e.head<3>() / kRotationWeight) * J.topRows<3>();
  } else {
    J.topRows<3>().setZero();
  }
  const auto near = static_cast<Eigen::Index>(pt.near.size());
  d.D.resize(near, J.cols());
  d.barrier_slope.resize(near);
  d.barrier_curvature.resize(near);
  for (Eigen::Index i = 0; i < near; ++i) {
    const NearPair& p = pt.near[static_cast<std::size_t>(i)];
    const Eigen::RowVectorXd g =
        DistanceJacobian(rigid.tree(), kin_, pairs_[static_cast<std::size_t>(p.pair)], p.distance);
    for (Eigen::Index k = 0; k < J.cols(); ++k) d.D(i, k) = g[v_index_[static_cast<std::size_t>(k)]];
    d.barrier_slope[i] = kBarrierWeight * BarrierSlope(p.x, kSelfCollisionReach);
    d.barrier_curvature[i] = kBarrierWeight * BarrierCurvature(p.x, kSelfCollisionReach);
  }
}

bool ArmTeleop::IkStep(const contact::RigidSystem& rigid, Eigen::VectorXd& q, IkPoint& at, IkDerivatives& d,
                       Eigen::VectorXd& total_step, bool& kin_at_q_c) {
  // The damped least-squares step, then, should no fraction of it lower Φ, the gradient direction, which always
  // does unless q_c is already where no feasible move lowers it. Each is shortened as a whole, which keeps its
  // direction, to the per-step cap and the first limit, and taken only where it lowers Φ, halved up to
  // kMaxHalvings times. Without this test a target out of reach made q_c alternate between two poses from one
  // simulation step to the next (the damped step overshooting the best pose), and the velocity and feed-forward
  // of that motion (thousands of N·m) threw the arm about.
  const Eigen::Index n = q_c_.size();
  Eigen::VectorXd q_try(n);
  for (const bool gradient : {false, true}) {
    Eigen::VectorXd dq = StepDirection(d, at.e, gradient);
    const double scale = StepScale(dq, total_step);
    if (!(scale > 0)) continue;  // no joint may move this way within this step
    dq *= scale;
    for (int h = 0; h <= kMaxHalvings; ++h, dq *= 0.5) {
      for (Eigen::Index k = 0; k < n; ++k) q_try[k] = std::clamp(q_c_[k] + dq[k], lo_[k], hi_[k]);
      const IkPoint trial = EvaluateIk(rigid, q_try, q);
      kin_at_q_c = trial.cost < at.cost;
      if (kin_at_q_c) {
        total_step += q_try - q_c_;
        q_c_ = q_try;
        at = trial;
        IkJacobian(rigid, at, d);
        return true;
      }
    }
  }
  return false;
}

bool ArmTeleop::SolveIk(const contact::RigidSystem& rigid, Eigen::VectorXd& q) {
  IkPoint at = EvaluateIk(rigid, q_c_, q);
  bool kin_at_q_c = true;
  IkDerivatives d;
  IkJacobian(rigid, at, d);
  Eigen::VectorXd total_step = Eigen::VectorXd::Zero(q_c_.size());
  iterations_ = 0;
  while (iterations_ < kMaxIterations && (at.e.tail<3>().norm() >= 1e-7 || (track_orientation_ && at.angle >= 1e-6))) {
    // No move lowers the error: q_c is as near as the IK gets from here.
    if (!IkStep(rigid, q, at, d, total_step, kin_at_q_c)) break;
    ++iterations_;
  }
  position_residual_ = at.e.tail<3>().norm();
  rotation_residual_ = at.angle;
  return kin_at_q_c;
}

void ArmTeleop::SetControllers(contact::RigidSystem& rigid, const Eigen::Vector3d& gravity, double dt,
                               const Eigen::VectorXd& q_previous) {
  // Feed-forward effort of the commanded motion by inverse dynamics at q_c (kin_ is there):
  // τ = M(q_c) a_c + C(q_c, v_c) v_c − τ_g(q_c), with the commanded velocity v_c = (q_c − q_c,previous)/Δt and
  // acceleration a_c = (v_c − v_c,previous)/Δt; the rest of the robot at rest. Without it a PD arm sags by τ_g/K_p
  // (centimetres for a heavy arm) and lags a moving target. But q_c moves only when the target does, and targets
  // may come every few steps (the studio's UI ticks, a Python environment's actions): the command then hops between
  // held poses and its second difference alternates ±Δq/Δt² at the step rate, which, fed forward, sent an iiwa whose
  // target hopped 2 mm every second 5 ms step 1.5 cm the wrong way in 0.3 s. So a_c is fed forward for a move that
  // continues one of the last step, or starts after the command rested longer than kRestTime, and for the stop of a
  // motion that was fed forward; a move after a shorter hold (a hop) and its stop go without
  // (Teleop.FollowsTargetsMovedEveryFewSteps; Teleop.IkTracksACircleWithinFiveMillimetres starts at full speed).
  const Eigen::Index n = q_c_.size();
  const Eigen::Index nv = rigid.tree().nv();
  Eigen::VectorXd v_full = Eigen::VectorXd::Zero(nv), a_full = Eigen::VectorXd::Zero(nv);
  Eigen::VectorXd v_c(n);
  for (Eigen::Index k = 0; k < n; ++k) v_c[k] = dt > 0 ? (q_c_[k] - q_previous[k]) / dt : 0.0;
  const bool moving = v_c.squaredNorm() > 0;
  const bool was_moving = v_c_.size() == n && v_c_.squaredNorm() > 0;
  bool feed = false;
  if (moving && was_moving)
    feed = true;  // a continuing motion
  else if (moving)
    feed = held_for_ >= kRestTime;  // a start from rest, or a hop
  else if (was_moving)
    feed = fed_forward_;  // the stop of a motion
  if (moving) fed_forward_ = feed;
  held_for_ = moving ? 0.0 : held_for_ + dt;
  for (Eigen::Index k = 0; k < n; ++k) {
    v_full[v_index_[k]] = v_c[k];
    a_full[v_index_[k]] = feed && dt > 0 && v_c_.size() == n ? (v_c[k] - v_c_[k]) / dt : 0.0;
  }
  v_c_ = v_c;
  const Eigen::VectorXd effort = multibody::CalcInverseDynamics(rigid.tree(), kin_, v_full, a_full, gravity);
  for (Eigen::Index k = 0; k < n; ++k) {
    contact::JointTarget& c = rigid.state().targets[controllers_[k]];
    c.q_target = q_c_[k];
    c.v_target = v_c[k];
    c.feedforward = effort[v_index_[k]];
  }
}

void ArmTeleop::PrepareMargins(const contact::RigidSystem& rigid, const std::vector<SelfCollisionPair>* self_collision,
                               Eigen::VectorXd& q) {
  const auto n = static_cast<Eigen::Index>(bodies_.size());
  lo_.resize(n);
  hi_.resize(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const auto j = static_cast<std::size_t>(k);
    const double margin = std::min(kJointLimitMargin, 0.05 * (upper_[j] - lower_[j]));
    lo_[k] = std::min(lower_[j] + margin, q_c_[k]);
    hi_[k] = std::max(upper_[j] - margin, q_c_[k]);
  }
  pairs_.clear();
  pair_margin_.clear();
  pair_floor_.clear();
  if (self_collision == nullptr) return;
  for (const SelfCollisionPair& p : *self_collision) {
    bool moved = false;
    for (const int b : bodies_) moved = moved || JointBetween(rigid.tree(), b, p.body_a, p.body_b);
    if (moved) pairs_.push_back(p);
  }
  if (pairs_.empty()) return;
  for (Eigen::Index k = 0; k < n; ++k) q[q_index_[static_cast<std::size_t>(k)]] = q_c_[k];
  multibody::CalcKinematics(rigid.tree(), q, rigid.state().time, kin_);
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  for (const SelfCollisionPair& p : pairs_) {
    double margin = kSelfCollisionMargin, floor = kNone;
    if (!PairBeyond(rigid.world(), p, kin_, kSelfCollisionMargin)) {
      const double d0 = PairDistance(rigid.world(), p, kin_).distance;
      if (d0 < kSelfCollisionMargin) floor = d0;  // within the margin already: no nearer, and pushed apart
      if (d0 <= 0)
        margin = kNone;  // overlapping: no barrier (no distance gradient)
      else if (d0 < kSelfCollisionMargin)
        margin = std::max(0.5 * d0, d0 - 0.25 * kSelfCollisionReach);
    }
    pair_margin_.push_back(margin);
    pair_floor_.push_back(floor);
  }
}

void ArmTeleop::Apply(contact::RigidSystem& rigid, const Eigen::Vector3d& gravity, double dt,
                      const std::vector<SelfCollisionPair>* self_collision) {
  const auto n = static_cast<Eigen::Index>(bodies_.size());
  if (q_c_.size() == 0) {
    q_c_.resize(n);
    for (Eigen::Index k = 0; k < n; ++k) q_c_[k] = rigid.state().q[q_index_[k]];
  }
  const Eigen::VectorXd q_previous = q_c_;
  Eigen::VectorXd q = rigid.state().q;
  PrepareMargins(rigid, self_collision, q);
  // The inverse dynamics needs the kinematics at q_c (the IK's last evaluation may have been a rejected step).
  if (!SolveIk(rigid, q)) {
    for (Eigen::Index k = 0; k < n; ++k) q[q_index_[k]] = q_c_[k];
    multibody::CalcKinematics(rigid.tree(), q, rigid.state().time, kin_);
  }
  // From the commanded positions, so that a step whose target is met at once does not keep the last step's flag.
  at_limit_ = false;
  for (Eigen::Index k = 0; k < n; ++k) at_limit_ = at_limit_ || q_c_[k] <= lo_[k] || q_c_[k] >= hi_[k];
  SetControllers(rigid, gravity, dt, q_previous);
}

double ArmTeleop::TrackingError(const contact::RigidSystem& rigid) const {
  if (link_ < 0) return 0;
  const Eigen::Vector3d p_W = rigid.kinematics().X_WB[link_] * tool_point_L_;
  return (target_p_ - p_W).norm();
}

std::string GripperTeleop::Configure(const contact::RigidSystem& rigid, const std::string& robot,
                                     const std::vector<int>& arm_bodies) {
  return Configure(rigid.tree(), rigid.controllers(), robot, arm_bodies);
}

std::string GripperTeleop::Configure(const multibody::MultibodyTree& tree,
                                     const std::vector<contact::JointController>& controllers, const std::string& robot,
                                     const std::vector<int>& arm_bodies) {
  controllers_.clear();
  lower_.clear();
  upper_.clear();
  for (int b = 0; b < tree.num_bodies(); ++b) {
    const multibody::Body& body = tree.body(b);
    if (!IsRobotBody(body, robot) || body.joint != JointType::kPrismatic) continue;
    if (std::find(arm_bodies.begin(), arm_bodies.end(), b) != arm_bodies.end()) continue;
    const int c = ControllerOf(controllers, b);
    if (c < 0) continue;
    controllers_.push_back(c);
    lower_.push_back(body.lower);
    upper_.push_back(body.upper);
  }
  if (controllers_.empty()) return "robot '" + robot + "' has no gripper (no controlled prismatic finger joint)";
  return {};
}

void GripperTeleop::Apply(contact::RigidSystem& rigid) const {
  for (std::size_t f = 0; f < controllers_.size(); ++f) {
    contact::JointTarget& c = rigid.state().targets.at(static_cast<std::size_t>(controllers_[f]));
    const contact::JointController& model = rigid.controllers().at(static_cast<std::size_t>(controllers_[f]));
    const bool finite_range =
        std::isfinite(lower_[f]) && std::isfinite(upper_[f]) && upper_[f] > lower_[f] && upper_[f] - lower_[f] < 1e3;
    if (force_ > 0) {
      // Squeeze: a constant effort towards the lower limit (closed), damped by the controller's K_d.
      c.squeeze = true;
      c.squeeze_kd = model.kd > 0 ? model.kd : 1;
      c.q_target = finite_range ? lower_[f] : 0.0;
      c.v_target = 0;
      c.feedforward = -force_;
    } else {
      c.squeeze = false;
      c.q_target = finite_range ? lower_[f] + opening_ * (upper_[f] - lower_[f]) : c.q_target;
      c.v_target = 0;
      c.feedforward = 0;
    }
  }
}

}  // namespace ductile::robot
