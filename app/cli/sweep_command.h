// `ductile-cli sweep SCENE --grid KEY=V1,V2,... [--grid ...] [--seeds N] --out DIR` (docs/cli.md, "Sweeps"): the
// runs of the product of the grids' overrides, times N samplings of the particles (simulation.seed) (or, with --replay
// DIR_OF_LOGS, a replay of every demo log there), each in its own folder DIR/run_NNNN (stats.json, trajectory.csv,
// log.txt, an optional video, result.txt), and DIR/summary.csv with a row per run. Each run is a child process of its
// own (a crash or divergence is that run's row, never the sweep's end), up to --jobs at once. Under Open MPI's mpirun
// the ranks split the runs (run i to rank i mod size) and rank 0 writes the summary after all are done. A run's folder
// is written as DIR/run_NNNN.partial and renamed when the run is over, so a sweep started again with the same arguments
// skips the runs already done and redoes the ones that were cut off.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ductile::cli {

struct SweepOptions {
  std::string scene;
  std::vector<std::string> grids;  ///< KEY=V1,V2,...
  int seeds = 0;                   ///< > 0: one more axis, simulation.seed = 0 .. seeds − 1 (varying fastest).
  std::vector<std::string> sets;   ///< --set KEY=VALUE, for every run
  std::string out;
  std::optional<double> duration;
  bool video = false;
  int jobs = 0;        ///< Concurrent runs per process; 0: the cores (one under mpirun).
  std::string replay;  ///< A folder of demo logs to replay (each *.demo.yaml a run) instead of SCENE and grids.
  std::string self;    ///< This program's path, for the child runs.
};

/// Returns the exit code: 0 when every run was done (failed runs included: they are rows), 2 for bad arguments, 1
/// when a run has no result (it could not be started or its folder written; said on stderr) or no summary.
int Sweep(const SweepOptions& options);

}  // namespace ductile::cli
