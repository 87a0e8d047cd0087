#include "multibody/multibody_tree.h"

#include <algorithm>
#include <stdexcept>

namespace ductile::multibody {
namespace {

// The segment of a trajectory that holds time t: keyframes k and k + 1, or k = k + 1 outside the range.
void FindSegment(const PoseTrajectory& tr, double t, int& k0, int& k1, double& s) {
  const int n = static_cast<int>(tr.times.size());
  if (n == 1 || t <= tr.times.front()) {
    k0 = k1 = 0;
    s = 0;
    return;
  }
  if (t >= tr.times.back()) {
    k0 = k1 = n - 1;
    s = 0;
    return;
  }
  k1 = static_cast<int>(std::upper_bound(tr.times.begin(), tr.times.end(), t) - tr.times.begin());
  k0 = k1 - 1;
  s = (t - tr.times[k0]) / (tr.times[k1] - tr.times[k0]);
}

// The blend e(s) of a segment and its derivatives de/ds, d²e/ds² (PoseTrajectory).
double Blend(KeyframeInterpolation mode, double s) {
  return mode == KeyframeInterpolation::kSmooth ? s * s * (3 - 2 * s) : s;
}

double BlendRate(KeyframeInterpolation mode, double s) {
  return mode == KeyframeInterpolation::kSmooth ? 6 * s * (1 - s) : 1;
}

double BlendCurvature(KeyframeInterpolation mode, double s) {
  return mode == KeyframeInterpolation::kSmooth ? 6 - 12 * s : 0;
}

// The linear-case twist of the segment from keyframe k0 to k1 (k0 < k1): ω = θ â / Δt, v = Δp / Δt.
void SegmentTwist(const PoseTrajectory& tr, int k0, int k1, Eigen::Vector3d& w_WB, Eigen::Vector3d& v_WB) {
  const double span = tr.times[k1] - tr.times[k0];
  v_WB = (tr.positions[k1] - tr.positions[k0]) / span;
  // Slerp turns at a constant rate about a fixed world axis: R(s) = exp(s·θ·â) R₀ with R₁R₀ᵀ = exp(θ·â).
  const Eigen::AngleAxisd turn(tr.rotations[k1] * tr.rotations[k0].conjugate());
  double angle = turn.angle();
  const Eigen::Vector3d& axis = turn.axis();
  if (angle > M_PI) angle -= 2 * M_PI;  // slerp takes the short way
  w_WB = axis * (angle / span);
}

}  // namespace

Eigen::Isometry3d PoseTrajectory::Pose(double t) const {
  int k0, k1;
  double s;
  FindSegment(*this, t, k0, k1, s);
  const double e = Blend(interpolation, s);
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = (1 - e) * positions[k0] + e * positions[k1];
  X.linear() = rotations[k0].slerp(e, rotations[k1]).toRotationMatrix();
  return X;
}

void PoseTrajectory::Twist(double t, Eigen::Vector3d& w_WB, Eigen::Vector3d& v_WB) const {
  int k0, k1;
  double s;
  // The right derivative: at a keyframe the next segment's twist.
  FindSegment(*this, t, k0, k1, s);
  if (k0 == k1) {
    w_WB.setZero();
    v_WB.setZero();
    return;
  }
  SegmentTwist(*this, k0, k1, w_WB, v_WB);
  // d/dt e(s) = e'(s) / Δt, and the linear-case twist already carries the 1/Δt (linear: e' = 1, exactly).
  const double rate = BlendRate(interpolation, s);
  w_WB *= rate;
  v_WB *= rate;
}

void PoseTrajectory::TwistRate(double t, Eigen::Vector3d& wdot_WB, Eigen::Vector3d& vdot_WB) const {
  int k0, k1;
  double s;
  FindSegment(*this, t, k0, k1, s);
  wdot_WB.setZero();
  vdot_WB.setZero();
  if (k0 == k1 || interpolation == KeyframeInterpolation::kLinear) return;
  // The axis stays fixed within a segment: d/dt (e'(s) ω_lin) = e''(s) ω_lin / Δt, likewise for v.
  SegmentTwist(*this, k0, k1, wdot_WB, vdot_WB);
  const double rate = BlendCurvature(interpolation, s) / (times[k1] - times[k0]);
  wdot_WB *= rate;
  vdot_WB *= rate;
}

int MultibodyTree::AddBody(Body body) {
  switch (body.joint) {
    case JointType::kFixed:
      body.nq = body.nv = 0;
      break;
    case JointType::kRevolute:
    case JointType::kPrismatic:
      body.nq = body.nv = 1;
      break;
    case JointType::kFloating:
      if (body.parent != -1)
        throw std::invalid_argument("floating joint '" + body.joint_name + "' must connect to world");
      body.nq = 7;
      body.nv = 6;
      break;
  }
  if (body.trajectory >= 0 && (body.parent != -1 || body.joint != JointType::kFixed))
    throw std::invalid_argument("prescribed body '" + body.name + "' must be a root with a fixed joint");
  if (body.parent >= static_cast<int>(bodies_.size()))
    throw std::invalid_argument("body '" + body.name + "' added before its parent");
  body.q_start = nq_;
  body.v_start = nv_;
  nq_ += body.nq;
  nv_ += body.nv;
  bodies_.push_back(std::move(body));
  return static_cast<int>(bodies_.size()) - 1;
}

int MultibodyTree::AddTrajectory(PoseTrajectory trajectory) {
  trajectories_.push_back(std::move(trajectory));
  return static_cast<int>(trajectories_.size()) - 1;
}

int MultibodyTree::FindBody(const std::string& name) const {
  for (int b = 0; b < num_bodies(); ++b)
    if (bodies_[b].name == name) return b;
  return -1;
}

Eigen::VectorXd MultibodyTree::DefaultPositions() const {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(nq_);
  for (const Body& b : bodies_) {
    if (b.joint != JointType::kFloating) continue;
    q[b.q_start] = 1;  // identity quaternion (w, x, y, z); X_PJ holds the initial pose
  }
  return q;
}

Eigen::VectorXd MultibodyTree::DampingDiagonal() const {
  Eigen::VectorXd d = Eigen::VectorXd::Zero(nv_);
  for (const Body& b : bodies_)
    if (b.nv == 1) d[b.v_start] = b.damping;
  return d;
}

void MultibodyTree::IntegratePositions(double dt, const Eigen::VectorXd& v, Eigen::VectorXd& q) const {
  for (const Body& b : bodies_) {
    if (b.nv == 1) {
      q[b.q_start] += dt * v[b.v_start];
    } else if (b.joint == JointType::kFloating) {
      // The quaternion rotates the child relative to X_PJ, and ω is in world axes: q̇ = ½ (0, ω') ⊗ q with ω'
      // expressed in J's axes, ω' = R_WJᵀ ω (X_PJ of a floating joint is fixed relative to the world).
      const Eigen::Vector3d w = b.X_PJ.linear().transpose() * v.segment<3>(b.v_start);
      Eigen::Quaterniond quat(q[b.q_start], q[b.q_start + 1], q[b.q_start + 2], q[b.q_start + 3]);
      const Eigen::Quaterniond w_quat(0, w.x(), w.y(), w.z());
      Eigen::Quaterniond dq = w_quat * quat;
      quat.coeffs() += 0.5 * dt * dq.coeffs();
      quat.normalize();
      q[b.q_start] = quat.w();
      q[b.q_start + 1] = quat.x();
      q[b.q_start + 2] = quat.y();
      q[b.q_start + 3] = quat.z();
      q.segment<3>(b.q_start + 4) += dt * b.X_PJ.linear().transpose() * v.segment<3>(b.v_start + 3);
    }
  }
}

void CalcKinematics(const MultibodyTree& tree, const Eigen::VectorXd& q, double t, Kinematics& kin) {
  const int n = tree.num_bodies();
  kin.X_WB.resize(n);
  kin.p_WCm.resize(n);
  kin.S.resize(n);
  kin.I.resize(n);
  kin.V0.resize(n);
  kin.A0.resize(n);
  for (int i = 0; i < n; ++i) {
    const Body& b = tree.body(i);
    const Eigen::Isometry3d X_WP = b.parent >= 0 ? kin.X_WB[b.parent] : Eigen::Isometry3d::Identity();
    Eigen::Isometry3d X_WJ = X_WP * b.X_PJ;
    Vector6d V0 = b.parent >= 0 ? kin.V0[b.parent] : Vector6d::Zero();
    Vector6d A0 = b.parent >= 0 ? kin.A0[b.parent] : Vector6d::Zero();
    if (b.trajectory >= 0) {
      const PoseTrajectory& tr = tree.trajectories()[b.trajectory];
      X_WJ = tr.Pose(t);
      Eigen::Vector3d w, vel;
      tr.Twist(t, w, vel);
      V0 = SpatialVelocityAtOrigin(w, vel, X_WJ.translation());
      // d/dt of (ω, v − ω × p) with ṗ = v: (ω̇, v̇ − ω̇ × p − ω × v) = (ω̇, v̇ − ω̇ × p + v × ω).
      A0.setZero();
      A0.tail<3>() = vel.cross(w);
      if (tr.interpolation != KeyframeInterpolation::kLinear) {
        Eigen::Vector3d wdot, vdot;
        tr.TwistRate(t, wdot, vdot);
        A0.head<3>() = wdot;
        A0.tail<3>() += vdot - wdot.cross(X_WJ.translation());
      }
    }
    const Eigen::Vector3d a_W = X_WJ.linear() * b.axis_J;
    Eigen::Isometry3d X_WB = X_WJ;
    kin.S[i].resize(6, b.nv);
    switch (b.joint) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
        X_WB.linear() = X_WJ.linear() * Eigen::AngleAxisd(q[b.q_start], b.axis_J).toRotationMatrix();
        kin.S[i].col(0) << a_W, X_WJ.translation().cross(a_W);
        break;
      case JointType::kPrismatic:
        X_WB.translation() = X_WJ.translation() + a_W * q[b.q_start];
        kin.S[i].col(0) << Eigen::Vector3d::Zero(), a_W;
        break;
      case JointType::kFloating: {
        const Eigen::Quaterniond quat(q[b.q_start], q[b.q_start + 1], q[b.q_start + 2], q[b.q_start + 3]);
        X_WB.linear() = X_WJ.linear() * quat.normalized().toRotationMatrix();
        X_WB.translation() = X_WJ * Eigen::Vector3d(q.segment<3>(b.q_start + 4));
        kin.S[i].setZero();
        kin.S[i].topLeftCorner<3, 3>().setIdentity();
        kin.S[i].bottomLeftCorner<3, 3>() = Skew(X_WB.translation());
        kin.S[i].bottomRightCorner<3, 3>().setIdentity();
        break;
      }
    }
    kin.X_WB[i] = X_WB;
    kin.V0[i] = V0;
    kin.A0[i] = A0;
    kin.p_WCm[i] = X_WB * b.p_BCm;
    const Eigen::Matrix3d R = X_WB.linear();
    kin.I[i] = SpatialInertiaAtOrigin(b.mass, kin.p_WCm[i], R * b.I_Cm_B * R.transpose());
  }
}

std::vector<Vector6d> CalcSpatialVelocities(const MultibodyTree& tree, const Kinematics& kin,
                                            const Eigen::VectorXd& v) {
  std::vector<Vector6d> V(tree.num_bodies());
  for (int i = 0; i < tree.num_bodies(); ++i) {
    const Body& b = tree.body(i);
    V[i] = b.parent >= 0 ? V[b.parent] : Vector6d::Zero();
    if (b.trajectory >= 0) V[i] = kin.V0[i];
    if (b.nv > 0) V[i] += kin.S[i] * v.segment(b.v_start, b.nv);
  }
  return V;
}

Eigen::MatrixXd CalcMassMatrix(const MultibodyTree& tree, const Kinematics& kin) {
  const int n = tree.num_bodies();
  std::vector<Matrix6d> composite(kin.I);
  for (int i = n - 1; i >= 0; --i) {
    const int p = tree.body(i).parent;
    if (p >= 0) composite[p] += composite[i];
  }
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(tree.nv(), tree.nv());
  for (int i = 0; i < n; ++i) {
    const Body& b = tree.body(i);
    if (b.nv == 0) continue;
    const Matrix6Xd F = composite[i] * kin.S[i];
    M.block(b.v_start, b.v_start, b.nv, b.nv) = kin.S[i].transpose() * F;
    for (int j = b.parent; j >= 0; j = tree.body(j).parent) {
      const Body& a = tree.body(j);
      if (a.nv == 0) continue;
      M.block(a.v_start, b.v_start, a.nv, b.nv) = kin.S[j].transpose() * F;
      M.block(b.v_start, a.v_start, b.nv, a.nv) = M.block(a.v_start, b.v_start, a.nv, b.nv).transpose();
    }
  }
  return M;
}

Eigen::VectorXd CalcInverseDynamics(const MultibodyTree& tree, const Kinematics& kin, const Eigen::VectorXd& v,
                                    const Eigen::VectorXd& vdot, const Eigen::Vector3d& gravity) {
  const int n = tree.num_bodies();
  std::vector<Vector6d> V(n), A(n), f(n);
  Vector6d A_world = Vector6d::Zero();
  A_world.tail<3>() = -gravity;  // gravity as an upward acceleration of the world (Featherstone §5.3)
  for (int i = 0; i < n; ++i) {
    const Body& b = tree.body(i);
    V[i] = b.parent >= 0 ? V[b.parent] : Vector6d::Zero();
    A[i] = b.parent >= 0 ? A[b.parent] : A_world;
    if (b.trajectory >= 0) {
      V[i] = kin.V0[i];
      A[i] = A_world + kin.A0[i];
    }
    if (b.nv > 0) {
      const Vector6d Sv = kin.S[i] * v.segment(b.v_start, b.nv);
      V[i] += Sv;
      A[i] += kin.S[i] * vdot.segment(b.v_start, b.nv);
      if (b.joint == JointType::kFloating) {
        Vector6d c = Vector6d::Zero();
        c.tail<3>() = v.segment<3>(b.v_start + 3).cross(v.segment<3>(b.v_start));
        A[i] += c;
      } else {
        A[i] += CrossMotion(V[i], Sv);
      }
    }
    f[i] = kin.I[i] * A[i] + CrossForce(V[i], kin.I[i] * V[i]);
  }
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(tree.nv());
  for (int i = n - 1; i >= 0; --i) {
    const Body& b = tree.body(i);
    if (b.nv > 0) tau.segment(b.v_start, b.nv) = kin.S[i].transpose() * f[i];
    if (b.parent >= 0) f[b.parent] += f[i];
  }
  return tau;
}

Eigen::MatrixXd CalcBodyJacobian(const MultibodyTree& tree, const Kinematics& kin, int body) {
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, tree.nv());
  for (int j = body; j >= 0; j = tree.body(j).parent) {
    const Body& b = tree.body(j);
    if (b.nv > 0) J.middleCols(b.v_start, b.nv) = kin.S[j];
  }
  return J;
}

Eigen::MatrixXd CalcPointJacobian(const MultibodyTree& tree, const Kinematics& kin, int body,
                                  const Eigen::Vector3d& p_WQ, Eigen::Vector3d* v0) {
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3, tree.nv());
  if (v0) v0->setZero();
  if (body < 0) return J;
  // v_Q = v_O + ω × p = v_O − [p]× ω.
  const Eigen::Matrix3d p = Skew(p_WQ);
  for (int j = body; j >= 0; j = tree.body(j).parent) {
    const Body& b = tree.body(j);
    if (b.nv > 0) J.middleCols(b.v_start, b.nv) = kin.S[j].bottomRows<3>() - p * kin.S[j].topRows<3>();
  }
  if (v0) *v0 = PointVelocity(kin.V0[body], p_WQ);
  return J;
}

double CalcKineticEnergy(const MultibodyTree& tree, const Kinematics& kin, const Eigen::VectorXd& v) {
  const std::vector<Vector6d> V = CalcSpatialVelocities(tree, kin, v);
  double e = 0;
  for (int i = 0; i < tree.num_bodies(); ++i) e += 0.5 * V[i].dot(kin.I[i] * V[i]);
  return e;
}

double CalcPotentialEnergy(const MultibodyTree& tree, const Kinematics& kin, const Eigen::Vector3d& gravity) {
  double e = 0;
  for (int i = 0; i < tree.num_bodies(); ++i) e -= tree.body(i).mass * gravity.dot(kin.p_WCm[i]);
  return e;
}

}  // namespace ductile::multibody
