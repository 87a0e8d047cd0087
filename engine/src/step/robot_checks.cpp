#include "step/robot_checks.h"

#include <algorithm>
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
  const coupling::RigidImpulses& impulses = state.impulses;
  // None right after a reset or a live edit rebuilt the coupling.
  if (state.clock.steps > 0 && impulses.has(b) && b < static_cast<int>(impulses.stats.body_contacts.size())) {
    f_W += impulses.linear[b] / model.dt;
    t_W += impulses.angular[b] / model.dt;
  }
}

void CheckRobotContacts(const Model& model, const State::Data& state, const contact::RigidSystem& rigid,
                        StepTelemetry& telemetry) {
  telemetry.robot_alerts.clear();
  telemetry.robot_loads.clear();
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
    // Each link's contact force against the limit, and the most loaded link.
    RobotLinkLoad load{robot.name, {}, 0.0, robot.link_force_limit};
    for (int b = robot.first_body; b < robot.end_body; ++b) {
      Eigen::Vector3d f, t;
      BodyContactWrench(model, state, rigid, b, f, t);
      const double force = f.norm();
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
