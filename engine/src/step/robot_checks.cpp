#include "step/robot_checks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "model/rigid_model.h"

namespace ductile {
namespace {

// The link's name without the robot's prefix ("arm/iiwa_link_5" → "iiwa_link_5").
std::string LinkName(const contact::RigidSystem& rigid, int b) {
  return rigid.tree().body(b).link;
}

// Whether tree body b is a link of `robot`.
bool OnRobot(const RobotModel& robot, int b) {
  return b >= robot.first_body && b < robot.end_body;
}

}  // namespace

void BodyContactWrench(const Model& model, const State::Data& state, const contact::RigidSystem& rigid, int b,
                       Eigen::Vector3d& f_W, Eigen::Vector3d& t_W) {
  rigid.ContactWrench(b, f_W, t_W);
  const RigidImpulses& impulses = state.impulses;
  // None right after a reset or a live edit rebuilt the coupling.
  if (state.clock.steps > 0 && impulses.has(b)) {
    f_W += impulses.linear[b] / model.dt;
    t_W += impulses.angular[b] / model.dt;
  }
}

void RobotForceWindow::Add(double dt, const std::vector<Eigen::Vector3d>& forces, std::vector<Eigen::Vector3d>& mean) {
  if (dt != dt_ || (!steps_.empty() && steps_.front().size() != forces.size())) {
    Clear();
    dt_ = dt;
  }
  const auto length = static_cast<std::size_t>(std::max(1L, std::lround(kSeconds / dt)));
  if (steps_.size() < length) {
    steps_.push_back(forces);
  } else {
    steps_[next_] = forces;
    next_ = (next_ + 1) % length;
  }
  mean.assign(forces.size(), Eigen::Vector3d::Zero());
  for (const std::vector<Eigen::Vector3d>& step : steps_)
    for (std::size_t i = 0; i < forces.size(); ++i) mean[i] += step[i];
  for (Eigen::Vector3d& f : mean) f /= static_cast<double>(steps_.size());
}

void CheckRobotContacts(const Model& model, const State::Data& state, const contact::RigidSystem& rigid,
                        RobotForceWindow& window, StepTelemetry& telemetry) {
  telemetry.robot_alerts.clear();
  telemetry.robot_loads.clear();
  // Every robot link's contact force this step, and its mean over the window.
  std::vector<Eigen::Vector3d> forces, mean;
  for (const RobotModel& robot : model.rigid->robots) {
    for (int b = robot.first_body; b < robot.end_body; ++b) {
      Eigen::Vector3d f, t;
      BodyContactWrench(model, state, rigid, b, f, t);
      forces.push_back(f);
    }
  }
  window.Add(model.dt, forces, mean);
  std::size_t link = 0;
  for (const RobotModel& robot : model.rigid->robots) {
    // Self-contacts: the force between each pair of its links that touch (its self-collision pairs'), summed over
    // their contact points.
    std::map<std::pair<int, int>, Eigen::Vector3d> touching;
    for (const contact::RigidContact& c : rigid.contacts()) {
      if (!OnRobot(robot, c.body_a) || !OnRobot(robot, c.body_b)) continue;
      const std::pair<int, int> key = std::minmax(c.body_a, c.body_b);
      const bool pair = std::any_of(robot.self_collision_pairs.begin(), robot.self_collision_pairs.end(),
                                    [&](const robot::SelfCollisionPair& p) {
                                      return std::pair<int, int>(std::minmax(p.body_a, p.body_b)) == key;
                                    });
      if (!pair) continue;  // a parallel gripper's fingers
      auto [it, added] = touching.try_emplace(key, Eigen::Vector3d::Zero());
      it->second += c.f_W;
    }
    for (const auto& [links, f] : touching) {
      telemetry.robot_alerts.push_back({RobotContactAlert::Kind::kSelfContact, robot.name, LinkName(rigid, links.first),
                                        LinkName(rigid, links.second), f.norm(), robot.link_force_limit});
    }
    // Each link's windowed contact force against the limit, and the most loaded link.
    RobotLinkLoad load{robot.name, {}, 0.0, robot.link_force_limit};
    for (int b = robot.first_body; b < robot.end_body; ++b, ++link) {
      const double force = mean[link].norm();
      if (force > load.force || load.link.empty())
        load = {robot.name, LinkName(rigid, b), force, robot.link_force_limit};
      if (force > robot.link_force_limit) {
        telemetry.robot_alerts.push_back(
            {RobotContactAlert::Kind::kLinkForce, robot.name, LinkName(rigid, b), {}, force, robot.link_force_limit});
      }
    }
    telemetry.robot_loads.push_back(load);
  }
}

}  // namespace ductile
