#include "step/inputs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "model/rigid_model.h"
#include "multibody/spatial.h"

namespace ductile {
namespace {

constexpr double kPi = 3.14159265358979323846;

Eigen::Vector3d Gravity(const Model& model) {
  return {model.gravity[0], model.gravity[1], model.gravity[2]};
}

// The grabbed patch's centre and velocity with the spring's weights; returns Σ w m [kg]. `index` from IndexById.
double PatchCentre(const PerturbationState& spring, const mpm::Particles& particles,
                   const std::vector<std::int32_t>& index, Eigen::Vector3d& c, Eigen::Vector3d& v) {
  c.setZero();
  v.setZero();
  double m = 0;
  for (std::size_t k = 0; k < spring.ids.size(); ++k) {
    const int i = index[spring.ids[k]];
    const double mi = spring.weights[k] * particles.mass[i];
    m += mi;
    for (int a = 0; a < 3; ++a) {
      c[a] += mi * particles.x[i][a];
      v[a] += mi * particles.v[i][a];
    }
  }
  c /= m;
  v /= m;
  return m;
}

// F = m (ω² (target − p) − 2ω v_p − g) at the grabbed point: critically damped for a free body of the grabbed
// link's mass, and carrying its weight, so the grabbed point settles at the target rather than below it.
void PullBody(const Model& model, const PerturbationState& spring, contact::RigidSystem& rigid) {
  const Perturbation& p = spring.spec;
  const double omega = 2 * kPi * p.frequency;
  const Eigen::Vector3d target(p.target[0], p.target[1], p.target[2]);
  const int b = model.rigid->output_bodies[p.index];
  const Eigen::Vector3d p_W = rigid.kinematics().X_WB[b] * spring.p_B;
  const std::vector<multibody::Vector6d> V =
      multibody::CalcSpatialVelocities(rigid.tree(), rigid.kinematics(), rigid.state().v);
  const Eigen::Vector3d v_P = multibody::PointVelocity(V[b], p_W);
  const double m = std::max(rigid.tree().body(b).mass, 1e-6);
  rigid.ApplyBodyWrench(b, p_W, m * (omega * omega * (target - p_W) - 2 * omega * v_P - Gravity(model)),
                        Eigen::Vector3d::Zero());
}

// The spring acts on the whole object's mass M, as on a rigid body: F = M (ω² (target − c) − 2ω v_c − g), with c
// and v_c the grabbed patch's weighted centre and velocity. F is spread over the patch, more near the grabbed point
// (the weights), so the material deforms there and the rest is dragged along.
void PullObject(const Model& model, const PerturbationState& spring, const mpm::Particles& particles,
                std::vector<Vec3f>& velocities) {
  const Perturbation& p = spring.spec;
  const double omega = 2 * kPi * p.frequency;
  const Eigen::Vector3d target(p.target[0], p.target[1], p.target[2]);
  const std::vector<std::int32_t> index = mpm::IndexById(particles);
  Eigen::Vector3d c, v;
  const double wm = PatchCentre(spring, particles, index, c, v);
  const double M = model.objects[p.index].mass;
  const Eigen::Vector3d F = M * (omega * omega * (target - c) - 2 * omega * v - Gravity(model));
  // Δv_i = Δt F w_i / Σ w m, at most a quarter cell per substep so a hard pull cannot tear the grid apart.
  Eigen::Vector3d dv = model.dt * F / wm;
  const double limit = 0.25 * model.h * model.substeps / model.dt;
  if (dv.norm() > limit) dv *= limit / dv.norm();
  for (std::size_t k = 0; k < spring.ids.size(); ++k) {
    Vec3f& vi = velocities[index[spring.ids[k]]];
    for (int a = 0; a < 3; ++a) vi[a] += static_cast<float>(spring.weights[k] * dv[a]);
  }
}

// Particles of object `object` within 3 grid cells of `anchor` (the nearest one if none is that close), by id, with
// weights 1 − (d/r)² towards the edge.
void GrabObject(const Model& model, const mpm::Particles& particles, int object, const Eigen::Vector3d& anchor,
                PerturbationState& spring) {
  const double radius = 3 * model.h;
  double nearest = std::numeric_limits<double>::infinity();
  std::int32_t nearest_id = -1;
  std::vector<std::pair<std::int32_t, double>> grabbed;  // (id, weight)
  for (std::size_t i = 0; i < particles.size(); ++i) {
    if (particles.object[i] != object) continue;
    const Eigen::Vector3d x(particles.x[i].x, particles.x[i].y, particles.x[i].z);
    const double d = (x - anchor).norm();
    if (d <= radius) grabbed.emplace_back(particles.id[i], 1 - (d / radius) * (d / radius));
    if (d < nearest) {
      nearest = d;
      nearest_id = particles.id[i];
    }
  }
  if (grabbed.empty() && nearest_id >= 0) grabbed.emplace_back(nearest_id, 1.0);
  std::sort(grabbed.begin(), grabbed.end());  // id order: independent of the block sort
  for (const auto& [id, w] : grabbed) {
    spring.ids.push_back(id);
    spring.weights.push_back(w);
  }
}

// The self-collision pairs of robot `robot` (RobotModel), null when the model has no such robot.
const std::vector<robot::SelfCollisionPair>* SelfCollisionPairs(const Model& model, const std::string& robot) {
  for (const RobotModel& r : model.rigid->robots)
    if (r.name == robot) return &r.self_collision_pairs;
  return nullptr;
}

// Sets the teleoperation of every scripted robot that no person has taken over to its script at the step's end,
// t + Δt: the tool path's pose, and the gripper command in force then.
void ApplyScripts(const Model& model, State::Data& state, const Workspace& workspace) {
  const double t = state.clock.time + model.dt;
  for (const RobotScript& script : model.rigid->scripts) {
    bool manual = false;
    for (const RobotTeleop& entry : state.inputs.teleops)
      manual = manual || (entry.robot == script.robot && entry.manual);
    if (manual) continue;
    const Eigen::Isometry3d X = script.path.Pose(t);
    const Eigen::Quaterniond R(X.linear());
    TeleopTarget target;
    target.robot = script.robot;
    target.link = script.link;
    target.tool_point = {script.tool_point.x(), script.tool_point.y(), script.tool_point.z()};
    target.position = {X.translation().x(), X.translation().y(), X.translation().z()};
    target.quaternion = {R.w(), R.x(), R.y(), R.z()};
    target.track_orientation = script.track_orientation;
    // CompileModel checked the link, the arm's controllers and the fingers; the targets are finite.
    SetArmTarget(target, state, workspace);
    RobotScript::GripperKey key;
    if (script.GripperAt(t, key)) SetGripperCommand({script.robot, key.opening, key.force}, state, workspace);
  }
}

}  // namespace

RobotTeleop& TeleopOf(InputState& inputs, const std::string& robot) {
  for (RobotTeleop& t : inputs.teleops) {
    if (t.robot == robot) return t;
  }
  inputs.teleops.push_back(RobotTeleop{});
  inputs.teleops.back().robot = robot;
  return inputs.teleops.back();
}

std::string SetArmTarget(const TeleopTarget& target, State::Data& state, const Workspace& workspace,
                         RobotTeleop** entry) {
  if (!workspace.rigid) return "no robot named '" + target.robot + "' (the scene has no rigid bodies)";
  for (double x : target.position) {
    if (!std::isfinite(x)) return "teleop target of '" + target.robot + "': position is not finite";
  }
  for (double x : target.tool_point) {
    if (!std::isfinite(x)) return "teleop target of '" + target.robot + "': tool point is not finite";
  }
  const Eigen::Quaterniond R(target.quaternion[0], target.quaternion[1], target.quaternion[2], target.quaternion[3]);
  if (!std::isfinite(R.norm()) || R.norm() < 1e-6) {
    return "teleop target of '" + target.robot + "': the quaternion is not a rotation";
  }
  robot::ArmTeleop arm;
  RobotTeleop* existing = nullptr;
  for (RobotTeleop& t : state.inputs.teleops) {
    if (t.robot == target.robot && t.arm_active && t.arm.link() == target.link) existing = &t;
  }
  if (existing == nullptr) {
    std::string problem = arm.Configure(*workspace.rigid, target.robot, target.link);
    if (!problem.empty()) return problem;
  }
  RobotTeleop& t = existing ? *existing : TeleopOf(state.inputs, target.robot);
  if (!existing) {
    t.arm = std::move(arm);
    t.arm_active = true;
  }
  t.arm.SetTarget(Eigen::Vector3d(target.tool_point[0], target.tool_point[1], target.tool_point[2]),
                  Eigen::Vector3d(target.position[0], target.position[1], target.position[2]), R,
                  target.track_orientation);
  if (entry) *entry = &t;
  return {};
}

std::string SetGripperCommand(const GripperCommand& command, State::Data& state, const Workspace& workspace,
                              RobotTeleop** entry) {
  if (!(command.opening >= 0 && command.opening <= 1)) {
    return "gripper of '" + command.robot + "': opening " + std::to_string(command.opening) + " is outside [0, 1]";
  }
  if (!(command.force >= 0) || !std::isfinite(command.force)) {
    return "gripper of '" + command.robot + "': force " + std::to_string(command.force) + " N must be >= 0";
  }
  bool known = false;
  if (workspace.rigid) {
    for (const multibody::Body& b : workspace.rigid->tree().bodies())
      known = known || b.name.rfind(command.robot + "/", 0) == 0;
  }
  if (!known) return "no robot named '" + command.robot + "'";
  RobotTeleop* existing = nullptr;
  for (RobotTeleop& t : state.inputs.teleops) {
    if (t.robot == command.robot) existing = &t;
  }
  robot::GripperTeleop gripper;
  if (existing == nullptr || !existing->gripper_active) {
    std::vector<int> arm_bodies;
    if (existing && existing->arm_active) {
      for (int b = existing->arm.link_body(); b >= 0; b = workspace.rigid->tree().body(b).parent)
        arm_bodies.push_back(b);
    }
    std::string problem = gripper.Configure(*workspace.rigid, command.robot, arm_bodies);
    if (!problem.empty()) return problem;
  }
  RobotTeleop& t = existing ? *existing : TeleopOf(state.inputs, command.robot);
  if (!t.gripper_active) {
    t.gripper = std::move(gripper);
    t.gripper_active = true;
  }
  t.gripper.Set(command.opening, command.force);
  if (entry) *entry = &t;
  return {};
}

void ApplyInputs(const Model& model, State::Data& state, Workspace& workspace) {
  const PerturbationState& spring = state.inputs.perturbation;
  if (spring.spec.kind == Perturbation::Kind::kBody && workspace.rigid) {
    PullBody(model, spring, *workspace.rigid);
  } else if (spring.PullsObject()) {
    workspace.mpm().EditVelocities([&](const mpm::Particles& particles, std::vector<Vec3f>& velocities) {
      PullObject(model, spring, particles, velocities);
    });
  }
  if (workspace.rigid) {
    ApplyScripts(model, state, workspace);
    for (RobotTeleop& t : state.inputs.teleops) {
      if (t.arm_active) t.arm.Apply(*workspace.rigid, Gravity(model), model.dt, SelfCollisionPairs(model, t.robot));
      if (t.gripper_active) t.gripper.Apply(*workspace.rigid);
    }
  }
  // The spring's velocity edits before every step would void a P2G prepared for the next step: skip preparing it.
  workspace.mpm().set_prepare_next_step(!spring.PullsObject());
}

void SetPerturbation(const Model& model, const Perturbation& perturbation, State::Data& state,
                     const Workspace& workspace) {
  PerturbationState& spring = state.inputs.perturbation;
  Perturbation& p = spring.spec;
  const bool same = perturbation.kind == p.kind && perturbation.index == p.index;
  if (same && p.kind != Perturbation::Kind::kNone) {
    p.target = perturbation.target;
    p.frequency = perturbation.frequency;
    return;
  }
  spring = {};
  p = perturbation;
  const Eigen::Vector3d anchor(p.anchor[0], p.anchor[1], p.anchor[2]);
  if (p.kind == Perturbation::Kind::kBody) {
    const int bodies = static_cast<int>(model.rigid->output_bodies.size());
    if (!workspace.rigid || p.index < 0 || p.index >= bodies) {
      p.kind = Perturbation::Kind::kNone;
      return;
    }
    spring.p_B = workspace.rigid->kinematics().X_WB[model.rigid->output_bodies[p.index]].inverse() * anchor;
  } else if (p.kind == Perturbation::Kind::kObject) {
    workspace.SyncToHost();
    GrabObject(model, state.mpm.particles, p.index, anchor, spring);
    if (spring.ids.empty()) p.kind = Perturbation::Kind::kNone;
  }
}

bool PerturbationAnchor(const Model& model, const State::Data& state, const Workspace& workspace,
                        Eigen::Vector3d& anchor) {
  const PerturbationState& spring = state.inputs.perturbation;
  if (spring.spec.kind == Perturbation::Kind::kBody && workspace.rigid) {
    anchor = workspace.rigid->kinematics().X_WB[model.rigid->output_bodies[spring.spec.index]] * spring.p_B;
    return true;
  }
  if (spring.PullsObject()) {
    workspace.SyncToHost();
    Eigen::Vector3d v;
    PatchCentre(spring, state.mpm.particles, mpm::IndexById(state.mpm.particles), anchor, v);  // the point it pulls
    return true;
  }
  return false;
}

}  // namespace ductile
