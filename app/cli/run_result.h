// What a run of `ductile-cli run` did, for the outputs written at its end.
#pragma once

#include <string>

#include "step_statistics.h"

namespace ductile::cli {

struct RunResult {
  StepStatistics statistics;  ///< The steps taken.
  double start_time = 0;      ///< Simulated time the run started from [s]: 0, or a loaded state's.
  double wall_seconds = 0;    ///< Wall-clock time of the stepping loop, output included [s].
  bool diverged = false;      ///< The run stopped because the state diverged.
  bool interrupted = false;   ///< SIGINT or SIGTERM stopped the run between two steps.
  std::string failure;        ///< Why the run failed (divergence, an output, a replay); empty when it did not.

  /// Simulated seconds per wall-clock second of this run, from its start time to `end_time`.
  double RealtimeFactor(double end_time) const { return wall_seconds > 0 ? (end_time - start_time) / wall_seconds : 0; }
};

}  // namespace ductile::cli
