#include "ductile/robot_warnings.h"

#include <cstdio>

namespace ductile {

std::vector<std::size_t> RobotWarnings::Add(double time, const std::vector<RobotContactAlert>& alerts) {
  std::vector<std::size_t> started;
  for (const RobotContactAlert& a : alerts) {
    std::size_t w = 0;
    while (w < warnings_.size() &&
           !(warnings_[w].first.kind == a.kind && warnings_[w].first.robot == a.robot &&
             warnings_[w].first.link == a.link && warnings_[w].first.other_link == a.other_link))
      ++w;
    if (w == warnings_.size()) {
      warnings_.push_back({a, time, a.force, time, 0});
      started.push_back(w);
    }
    RobotWarning& warning = warnings_[w];
    ++warning.steps;
    if (a.force > warning.max_force) {
      warning.max_force = a.force;
      warning.max_force_time = time;
    }
  }
  return started;
}

void RobotWarnings::DiscardAfter(double time) {
  std::erase_if(warnings_, [time](const RobotWarning& w) { return w.time > time; });
}

std::string DescribeRobotWarning(const RobotWarning& warning) {
  const RobotContactAlert& a = warning.first;
  char text[512];
  if (a.kind == RobotContactAlert::Kind::kSelfContact) {
    std::snprintf(text, sizeof text, "robot '%s': links %s and %s touch (self-contact), %.0f N", a.robot.c_str(),
                  a.link.c_str(), a.other_link.c_str(), a.force);
  } else {
    std::snprintf(text, sizeof text,
                  "robot '%s': link %s carries %.0f N of contact force, above its limit of %.0f N "
                  "(robots.%s.link_force_limit)",
                  a.robot.c_str(), a.link.c_str(), a.force, a.limit, a.robot.c_str());
  }
  return text;
}

const char* RobotAlertKindName(RobotContactAlert::Kind kind) {
  return kind == RobotContactAlert::Kind::kSelfContact ? "self_contact" : "link_force";
}

}  // namespace ductile
