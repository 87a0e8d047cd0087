#include "run_plan.h"

#include <iostream>

#include "run_checks.h"
#include "run_support.h"

namespace ductile::cli {
namespace {

// The scene and its model, after the memory check that comes before any particle is sampled.
int LoadSceneAndModel(const RunOptions& options, RunPlan& plan) {
  try {
    plan.scene = LoadScene(options.scene, options.overrides);
    if (const std::string refused = CheckMemory(plan.scene); !refused.empty()) {
      std::cerr << refused << '\n';
      return kExitBadInput;
    }
    plan.model = std::make_shared<const Model>(CompileModel(plan.scene));
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  return kExitOk;
}

// A state goes on only with the Δt it was saved with: the engine counts time as the steps since the clock's base
// times Δt, so another Δt would move the time elsewhere (backwards, even). A run from t = 0 that never changed Δt
// has its time at exactly steps × Δt; a loaded state whose time is not that was saved with another Δt (or, in the
// studio, after a live edit of Δt).
int CheckStateClock(const std::string& file, const Simulator& sim) {
  const double steps = static_cast<double>(sim.step_count());
  if (sim.time() == steps * sim.model().dt) return kExitOk;
  std::cerr << "cannot load state " << file << ": its time " << FormatNumber(sim.time()) << " s after "
            << sim.step_count()
            << " steps is not a multiple of this scene's simulation.dt = " << FormatNumber(sim.model().dt)
            << " s: it was saved with another simulation.dt"
            << (steps > 0 ? " (" + FormatNumber(sim.time() / steps) + " s)" : std::string())
            << ", and a run goes on from a state only with the simulation.dt it was saved with\n";
  return kExitBadInput;
}

// The simulator at the run's start: the scene's initial state, or the --load-state file's.
int CreateSimulator(const RunOptions& options, RunPlan& plan) {
  plan.sim = std::make_unique<Simulator>(plan.model, SimulatorOptions{options.threads});
  if (options.load_state_file.empty()) return kExitOk;
  try {
    plan.sim->LoadStateFile(options.load_state_file);
  } catch (const StateError& e) {
    std::cerr << "cannot load state " << e.what() << '\n';
    return kExitBadInput;
  }
  plan.start_time = plan.sim->time();
  return CheckStateClock(options.load_state_file, *plan.sim);
}

// The run's simulated seconds: a replay's steps, --duration, or what is left of simulation.duration.
int ChooseDuration(const RunOptions& options, RunPlan& plan) {
  const Model& model = *plan.model;
  if (options.replay) {
    plan.duration = static_cast<double>(options.replay->steps) * model.dt;
  } else if (options.duration) {
    plan.duration = *options.duration;
  } else if (!options.load_state_file.empty()) {
    plan.duration = model.duration - plan.start_time;
    if (plan.duration < 0.5 * model.dt) {
      std::cerr << options.load_state_file << ": the state is at t = " << FormatNumber(plan.start_time)
                << " s, at or past the scene's simulation.duration " << FormatNumber(model.duration)
                << " s: give --duration for how many more seconds to run\n";
      return kExitBadInput;
    }
  } else {
    plan.duration = model.duration;
  }
  if (!(plan.duration > 0)) {
    std::cerr << "--duration must be > 0, got " << plan.duration << '\n';
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

int PlanRun(const RunOptions& options, RunPlan& plan) {
  if (!options.demo_log_file.empty() && !options.load_state_file.empty()) {
    std::cerr << "--demo-log cannot follow --load-state: a demo log replays its run from t = 0\n";
    return kExitBadInput;
  }
  if (const int code = LoadSceneAndModel(options, plan); code != kExitOk) return code;
  if (const int code = CreateSimulator(options, plan); code != kExitOk) return code;
  if (const int code = ChooseDuration(options, plan); code != kExitOk) return code;
  if (options.replay) {
    plan.steps = options.replay->steps;
  } else if (const std::string refused = CountSteps(plan.duration, plan.model->dt, plan.steps); !refused.empty()) {
    std::cerr << refused << '\n';
    return kExitBadInput;
  }
  WarnIfUnstable(*plan.model);
  WarnIfSlow(*plan.model, plan.steps, plan.sim->threads());
  return kExitOk;
}

}  // namespace ductile::cli
