// The warnings of a run about its robots' contacts (docs/architecture.md, "Robot contact checks"): the alerts of its
// steps (StepTelemetry::robot_alerts) merged by robot, kind and links, so that each is reported once per episode (a
// run from t = 0 or a loaded state) with where it started and how large it grew. ductile-cli and the studio share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ductile/telemetry.h"

namespace ductile {

/// One kind of alert on one link, or one pair of links, over an episode.
struct RobotWarning {
  RobotContactAlert first;    ///< The alert of the first step after which it held.
  double time = 0;            ///< That step's end [s].
  double max_force = 0;       ///< The largest force over the steps it held [N].
  double max_force_time = 0;  ///< When [s].
  std::int64_t steps = 0;     ///< Steps after which it held.
};

/// The warnings of one episode. Not thread-safe.
class RobotWarnings {
 public:
  /// Takes the alerts of the step that ended at `time` [s]; returns the indices into warnings() of the warnings
  /// they started (those seen for the first time this episode), in the alerts' order.
  std::vector<std::size_t> Add(double time, const std::vector<RobotContactAlert>& alerts);
  const std::vector<RobotWarning>& warnings() const { return warnings_; }
  /// A new episode: forgets every warning.
  void Clear() { warnings_.clear(); }
  /// The episode goes on from an earlier state at `time` [s]: forgets the warnings that started after it.
  void DiscardAfter(double time);

 private:
  std::vector<RobotWarning> warnings_;
};

/// The warning as one line, as it started (its time, RobotWarning::time, is not in it): "robot 'arm': links
/// iiwa_link_5 and iiwa_link_7 touch (self-contact), 612 N" or "robot 'arm': link iiwa_link_5 carries 650 N of
/// contact force, above its limit of 275 N (robots.arm.link_force_limit)".
std::string DescribeRobotWarning(const RobotWarning& warning);

/// The name of an alert's kind in outputs: "self_contact" or "link_force".
const char* RobotAlertKindName(RobotContactAlert::Kind kind);

}  // namespace ductile
