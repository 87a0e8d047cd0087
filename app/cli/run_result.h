// What a run of `ductile-cli run` did, for the outputs written at its end.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ductile/robot_warnings.h"
#include "step_statistics.h"

namespace ductile::cli {

struct RunResult {
  StepStatistics statistics;     ///< The steps taken.
  double start_time = 0;         ///< Simulated time the run started from [s]: 0, or a loaded state's.
  double wall_seconds = 0;       ///< Wall-clock time of the stepping loop, output included [s].
  bool diverged = false;         ///< The run stopped because the state diverged.
  bool interrupted = false;      ///< SIGINT or SIGTERM stopped the run between two steps.
  std::string failure;           ///< Why the run failed (divergence, an output, a replay); empty when it did not.
  RobotWarnings robot_warnings;  ///< The robots' self-contacts and overloaded links (printed as they start).
  /// Per robot (scene order): its most loaded link over the run, and when [s].
  std::vector<std::pair<RobotLinkLoad, double>> robot_load_max;

  /// Simulated seconds per wall-clock second of this run, from its start time to `end_time`.
  double RealtimeFactor(double end_time) const { return wall_seconds > 0 ? (end_time - start_time) / wall_seconds : 0; }
};

}  // namespace ductile::cli
