// What a run of `ductile-cli run` (or `replay`) is before it steps: the scene, its compiled model, the simulator
// at the state the run starts from (t = 0, or a --load-state file), and how many steps it takes.
#pragma once

#include <cstdint>
#include <memory>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "run_command.h"

namespace ductile::cli {

struct RunPlan {
  SceneDesc scene;
  std::shared_ptr<const Model> model;
  std::unique_ptr<Simulator> sim;  ///< At the run's start.
  double start_time = 0;           ///< Simulated time the run starts from [s].
  double duration = 0;             ///< Requested simulated seconds of this run [s].
  std::int64_t steps = 0;          ///< round(duration / Δt), at least 1; a replay's steps.

  /// Simulated time at the end of the run [s].
  double end_time() const { return start_time + static_cast<double>(steps) * model->dt; }
};

/// Loads the scene (refused when its run cannot fit in memory, run_checks.h), compiles it, creates the
/// simulator, loads --load-state, and works out the run's length: --duration seconds from the start; without it,
/// a fresh run lasts simulation.duration and a resumed run goes on until t = simulation.duration. Warns about an
/// unstable substep count or a run that would take hours. Prints what is wrong; returns the exit code.
int PlanRun(const RunOptions& options, RunPlan& plan);

}  // namespace ductile::cli
