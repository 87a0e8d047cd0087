// `ductile-cli bench`: runs scenes headless and prints the Table I columns of Yu et al. 2025 for each (
// h, particles, average active grid nodes n_v, Δt, N, ms per step, particle contacts average and max) plus the
// contact solver's iterations per substep and the real-time factor (docs/cli.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ductile/scene.h"

namespace ductile::cli {

struct BenchOptions {
  std::vector<std::string> scenes;  ///< Empty: the coupling scenes of DefaultBenchScenes().
  std::optional<double> duration;   ///< Overrides each scene's simulation.duration [s].
  std::vector<Override> overrides;  ///< --set, applied to every scene.
  std::string json_file;            ///< JSON list of rows; empty = none.
  int threads = 0;                  ///< 0 = each scene's value.
  bool quiet = false;               ///< No progress lines.
  /// --strong-table: the Table I scenes of Zong et al. 2024 (StrongTableScenes) under the strong coupling at
  /// Δt = 10 ms, one step each (before the --set overrides, which may change them).
  bool strong_table = false;
};

/// scenes/panel_squeeze.yaml, close_lift_shake.yaml, dough_rolling.yaml and the cloth scenes box_bagging.yaml,
/// laundry.yaml and tshirt_folding.yaml of the source tree.
std::vector<std::string> DefaultBenchScenes();

/// scenes/ball_on_slope.yaml, dough_tearing.yaml, dough_rolling.yaml, water_pouring.yaml and close_lift_shake.yaml
/// of the source tree: the five rows of Zong et al. 2024, Table I.
std::vector<std::string> StrongTableScenes();

/// The overrides that --strong-table puts before the --set ones: simulation.coupling=strong, simulation.dt=0.01,
/// simulation.substeps=1.
std::vector<Override> StrongTableOverrides();

/// Runs every scene in turn and prints the table. Returns the exit code (kExitBadInput for a bad scene or an
/// unwritable --json path, before anything runs; kExitFailure when a scene diverged).
int Bench(const BenchOptions& options);

}  // namespace ductile::cli
