#include "bench_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <iomanip>
#include <iostream>
#include <memory>

#include "atomic_file.h"
#include "ductile/model.h"
#include "ductile/simulator.h"
#include "run_command.h"
#include "run_support.h"
#include "step_statistics.h"

namespace ductile::cli {
namespace {

struct BenchRow {
  std::string scene;
  double h = 0;
  int particles = 0;  // MPM particles plus cloth triangles (the paper's element particles)
  double n_v = 0;     // active grid nodes, mean over substeps
  double dt = 0;
  int substeps = 0;
  double ms_per_step = 0;
  double contacts_avg = 0;
  int contacts_max = 0;
  double iterations_avg = 0;  // contact-solver iterations per substep
  double realtime_factor = 0;
  std::string failure;  // why the scene stopped early; empty when it ran to the end
};

BenchRow RunOne(const std::string& scene, const std::shared_ptr<const Model>& model, const BenchOptions& options) {
  Simulator sim(model, SimulatorOptions{options.threads});
  const double duration = options.duration.value_or(model->duration);
  const std::int64_t steps = std::max<std::int64_t>(1, std::llround(duration / model->dt));
  StepStatistics stats;
  BenchRow row;
  row.scene = std::filesystem::path(scene).stem().string();
  Progress progress(duration, !options.quiet && ::isatty(STDERR_FILENO), row.scene + ": ");
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < steps; ++i) {
    try {
      sim.Step();
    } catch (const SimulationDiverged& e) {
      row.failure = e.what();
      break;
    }
    stats.Add(sim.last_step());
    progress.Update(sim.time(), static_cast<double>(i + 1) / static_cast<double>(steps));
  }
  progress.Finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.h = model->h;
  // Yu et al. 2025 count a cloth's triangles as element particles (Jiang et al. 2017); so does this column.
  row.particles = model->num_particles + static_cast<int>(model->cloth_elements.size());
  row.n_v = stats.Summary("active_nodes", ChannelStat::kMean);
  row.dt = model->dt;
  row.substeps = model->substeps;
  row.ms_per_step = stats.MeanStepMs();
  row.contacts_avg = stats.Summary("mpm_contacts", ChannelStat::kMean);
  row.contacts_max = static_cast<int>(stats.Summary("mpm_contacts_max", ChannelStat::kMax));
  row.iterations_avg = stats.Summary("mpm_contact_iterations", ChannelStat::kMeanPerSubstep, model->substeps);
  row.realtime_factor = wall > 0 ? sim.time() / wall : 0;
  return row;
}

void PrintHeader() {
  std::printf("%-18s %7s %9s %9s %9s %4s %10s %12s %12s %11s %10s\n", "scene", "h [m]", "particles", "n_v avg",
              "dt [s]", "N", "ms/step", "contacts avg", "contacts max", "iterations", "real time");
}

void PrintRow(const BenchRow& r) {
  std::printf("%-18s %7.3g %9d %9.0f %9.3g %4d %10.2f %12.1f %12d %11.2f %9.3fx\n", r.scene.c_str(), r.h, r.particles,
              r.n_v, r.dt, r.substeps, r.ms_per_step, r.contacts_avg, r.contacts_max, r.iterations_avg,
              r.realtime_factor);
  std::fflush(stdout);
}

void WriteJson(const std::vector<BenchRow>& rows, std::ostream& out) {
  out << std::setprecision(9) << "[\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    out << "  {\"scene\": " << JsonString(r.scene) << ", \"h\": " << r.h << ", \"particles\": " << r.particles
        << ", \"n_v\": " << r.n_v << ", \"dt\": " << r.dt << ", \"substeps\": " << r.substeps
        << ", \"ms_per_step\": " << r.ms_per_step << ", \"contacts_avg\": " << r.contacts_avg
        << ", \"contacts_max\": " << r.contacts_max << ", \"iterations_avg\": " << r.iterations_avg
        << ", \"realtime_factor\": " << r.realtime_factor
        << ", \"diverged\": " << (r.failure.empty() ? "false" : "true") << "}" << (i + 1 < rows.size() ? "," : "")
        << "\n";
  }
  out << "]\n";
}

// The shipped scenes `names` of this source tree, as paths.
std::vector<std::string> ShippedScenes(std::initializer_list<const char*> names) {
  const std::filesystem::path dir = std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes";
  std::vector<std::string> paths;
  for (const char* name : names) paths.push_back((dir / name).string());
  return paths;
}

}  // namespace

std::vector<std::string> DefaultBenchScenes() {
  return ShippedScenes({"panel_squeeze.yaml", "close_lift_shake.yaml", "dough_rolling.yaml", "box_bagging.yaml",
                        "laundry.yaml", "tshirt_folding.yaml"});
}

std::vector<std::string> StrongTableScenes() {
  return ShippedScenes({"ball_on_slope.yaml", "dough_tearing.yaml", "dough_rolling.yaml", "water_pouring.yaml",
                        "close_lift_shake.yaml"});
}

std::vector<Override> StrongTableOverrides() {
  return {ParseOverride("simulation.coupling=strong"), ParseOverride("simulation.dt=0.01"),
          ParseOverride("simulation.substeps=1")};
}

int Bench(const BenchOptions& options) {
  if (options.strong_table && !options.scenes.empty()) {
    std::cerr << "--strong-table runs its own five scenes: give no SCENE with it\n";
    return kExitBadInput;
  }
  const std::vector<std::string> scenes = options.strong_table     ? StrongTableScenes()
                                          : options.scenes.empty() ? DefaultBenchScenes()
                                                                   : options.scenes;
  std::vector<Override> overrides = options.strong_table ? StrongTableOverrides() : std::vector<Override>{};
  overrides.insert(overrides.end(), options.overrides.begin(), options.overrides.end());
  if (options.duration && !(*options.duration > 0)) {
    std::cerr << "--duration must be > 0, got " << *options.duration << '\n';
    return kExitBadInput;
  }
  // Every scene loads and the output opens before anything runs, so a typo fails at once.
  std::vector<std::shared_ptr<const Model>> models;
  std::unique_ptr<AtomicFile> json;
  try {
    for (const std::string& scene : scenes) models.push_back(LoadModel(scene, overrides));
    if (!options.json_file.empty()) json = std::make_unique<AtomicFile>(options.json_file);
  } catch (const std::exception& e) {  // a SceneError or an unwritable path
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  PrintHeader();
  std::vector<BenchRow> rows;
  bool failed = false;
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    rows.push_back(RunOne(scenes[i], models[i], options));
    PrintRow(rows.back());
    if (!rows.back().failure.empty()) {
      std::cerr << scenes[i] << ": " << rows.back().failure << '\n';
      failed = true;
    }
  }
  if (json) {
    WriteJson(rows, json->stream());
    try {
      json->Commit();
    } catch (const std::exception& e) {
      std::cerr << e.what() << '\n';
      return kExitFailure;
    }
  }
  return failed ? kExitFailure : kExitOk;
}

}  // namespace ductile::cli
