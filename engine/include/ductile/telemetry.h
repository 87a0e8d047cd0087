// Per-step measurements the simulator publishes (timings, grid occupancy) for stats, plots and benchmarks.
#pragma once

namespace ductile {

/// What one outer step did and how long it took.
struct StepTelemetry {
  double wall_ms = 0;           ///< Wall-clock time of the step [ms].
  double active_nodes_avg = 0;  ///< Grid nodes with mass, averaged over the substeps.
  int active_blocks = 0;        ///< Allocated 4x4x4 grid blocks in the last substep.
  int substeps = 0;             ///< MPM substeps taken.
};

}  // namespace ductile
