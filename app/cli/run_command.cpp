#include "run_command.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "run_checks.h"
#include "run_outputs.h"
#include "run_plan.h"
#include "run_result.h"
#include "run_support.h"

namespace ductile::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int) {
  g_interrupted.store(true);
}

// Applies a replay's events due before the next step; returns the refusal, or an empty string.
std::string ApplyReplayEvents(DemoPlayer* player, Simulator& sim) {
  if (!player) return {};
  const std::string refused = player->ApplyDue(sim);
  return refused.empty() ? refused : "replay: " + refused;
}

// After each step: its robot alerts into the run's warnings, the new ones printed (on a line of their own above the
// progress line), and the most loaded link of each robot.
void CheckRobots(const Simulator& sim, RunResult& result, Progress& progress) {
  const StepTelemetry& t = sim.last_step();
  for (const std::size_t w : result.robot_warnings.Add(sim.time(), t.robot_alerts)) {
    progress.Finish();
    const RobotWarning& warning = result.robot_warnings.warnings()[w];
    std::cerr << "warning: t = " << FormatNumber(warning.time, 6) << " s: " << DescribeRobotWarning(warning) << '\n';
  }
  result.robot_load_max.resize(t.robot_loads.size());
  for (std::size_t r = 0; r < t.robot_loads.size(); ++r) {
    auto& [load, time] = result.robot_load_max[r];
    if (load.robot.empty() || t.robot_loads[r].force > load.force) {
      load = t.robot_loads[r];
      time = sim.time();
    }
  }
}

// Steps the planned run, feeding every output, until its last step, a divergence, a failed output or a signal
// (SIGINT, SIGTERM: the run stops between two steps).
RunResult Simulate(const RunOptions& options, RunPlan& plan, RunOutputs& outputs) {
  Simulator& sim = *plan.sim;
  RunResult result;
  result.start_time = plan.start_time;
  std::unique_ptr<DemoPlayer> player;
  if (options.replay) player = std::make_unique<DemoPlayer>(*options.replay);
  outputs.Start(plan, result.failure);
  const auto start = std::chrono::steady_clock::now();
  Progress progress(plan.end_time(), !options.quiet && ::isatty(STDERR_FILENO), "", plan.start_time);
  SlowRunWatch watch(plan.steps);
  for (std::int64_t i = 0; i < plan.steps && result.failure.empty(); ++i) {
    if (g_interrupted.load()) break;
    result.failure = ApplyReplayEvents(player.get(), sim);
    if (!result.failure.empty()) break;
    try {
      sim.Step();
    } catch (const SimulationDiverged& e) {
      result.failure = e.what();
      result.diverged = true;
      break;
    }
    result.statistics.Add(sim.last_step());
    CheckRobots(sim, result, progress);
    outputs.AfterStep(sim, result.failure);
    progress.Update(sim.time(), static_cast<double>(i + 1) / static_cast<double>(plan.steps));
    watch.Check(i + 1);
  }
  result.interrupted = g_interrupted.load();
  outputs.AfterRun(sim, result);
  progress.Finish();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// The worker threads a run of `model` would use: simulation.threads, else every core.
int DefaultThreads(const Model& model) {
  if (model.threads > 0) return model.threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

int Validate(const std::string& scene, const std::vector<Override>& overrides, std::optional<double> duration) {
  try {
    const SceneDesc desc = LoadScene(scene, overrides);
    if (const std::string refused = CheckMemory(desc); !refused.empty()) {
      std::cerr << refused << '\n';
      return kExitBadInput;
    }
    const Model model = CompileModel(desc);
    CheckModel(model);  // what the domains refuse (a coupling scheme, a backend), as a run would
    WarnIfUnstable(model);
    std::int64_t steps = 0;
    if (const std::string refused = CountSteps(duration.value_or(model.duration), model.dt, steps); !refused.empty()) {
      std::cerr << refused << '\n';
      return kExitBadInput;
    }
    WarnIfSlow(model, steps, DefaultThreads(model));
    std::cout << scene << ": ok (" << model.num_particles << " particles, " << model.objects.size() << " objects, "
              << model.materials.size() << " materials, " << model.RigidOutputBodies() << " moving rigid bodies with "
              << model.RigidDofs() << " dofs";
    if (!desc.soft_bodies.empty() || !desc.affine_bodies.empty())
      std::cout << ", " << desc.soft_bodies.size() << " soft and " << desc.affine_bodies.size() << " affine bodies";
    if (!desc.pd_bodies.empty()) std::cout << ", " << desc.pd_bodies.size() << " pd bodies";
    std::cout << ")\n";
    return kExitOk;
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
}

// The run as its stages: plan it (scene, model, start state, steps, checks), open every output, step, finish the
// outputs. From the moment the outputs' temporary files exist, SIGINT and SIGTERM stop the run between two steps
// (Simulate) instead of killing it, so that they are cleaned up.
int Run(const RunOptions& options) {
  RunPlan plan;
  if (const int code = PlanRun(options, plan); code != kExitOk) return code;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  RunOutputs outputs(options);
  if (const int code = outputs.Open(plan); code != kExitOk) return code;
  RunResult result = Simulate(options, plan, outputs);
  return outputs.Finish(*plan.sim, result);
}

int Replay(const std::string& log_file, RunOptions options) {
  DemoLog log;
  try {
    log = LoadDemoLog(log_file);
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  if (!std::filesystem::exists(log.scene)) {
    std::cerr << log_file << ": the scene '" << log.scene.string() << "' does not exist\n";
    return kExitBadInput;
  }
  options.scene = log.scene.string();
  options.overrides = log.overrides;
  options.duration.reset();
  options.replay = std::make_shared<const DemoLog>(std::move(log));
  return Run(options);
}

}  // namespace ductile::cli
