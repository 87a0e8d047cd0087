// Per-step measurements the simulator publishes (timings, grid occupancy) for stats, plots and benchmarks.
#pragma once

namespace ductile {

/// What one outer step did and how long it took.
struct StepTelemetry {
  double wall_ms = 0;           ///< Wall-clock time of the step [ms].
  double active_nodes_avg = 0;  ///< Grid nodes with mass, averaged over the substeps.
  int active_blocks = 0;        ///< Allocated 4x4x4 grid blocks in the last substep.
  int substeps = 0;             ///< MPM substeps taken.
  // The step's wall-clock time by MPM phase, summed over its substeps [ms].
  double sort_ms = 0;  ///< Particle sort into grid blocks and block activation.
  double p2g_ms = 0;   ///< Stress and particle-to-grid transfer.
  double grid_ms = 0;  ///< Grid velocity update and boundary conditions.
  double g2p_ms = 0;   ///< Grid-to-particle transfer, F update and plasticity.
};

}  // namespace ductile
