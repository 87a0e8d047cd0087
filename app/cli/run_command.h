// `ductile-cli run`: loads a scene, steps it for a duration and writes the trajectory, probe and statistics
// files (formats in docs/cli.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ductile/scene.h"

namespace ductile::cli {

struct RunOptions {
  std::string scene;
  std::optional<double> duration;   ///< Overrides simulation.duration [s].
  std::vector<Override> overrides;  ///< --set
  std::string trajectory_file;      ///< CSV; empty = none.
  std::string probes_file;          ///< CSV; empty = none.
  std::string csv_file;             ///< CSV of contact forces per rigid body; empty = none.
  std::string stats_file;           ///< JSON; empty = none.
  int threads = 0;                  ///< 0 = scene's value.
  bool quiet = false;
  std::string screenshot_file;          ///< PNG rendered offscreen; empty = none.
  std::optional<double> screenshot_at;  ///< Simulated time of the screenshot [s]; default: the end of the run.
  std::string screenshot_size = "1280x720";
  std::string color_mode = "material";  ///< Particle colours: material, speed, stress, plastic.
};

/// Exit codes of the command line.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   ///< Internal error or a simulation that diverged.
inline constexpr int kExitBadInput = 2;  ///< Bad scene, bad arguments, unwritable output path.
inline constexpr int kExitInterrupted = 130;

/// Runs the scene. Returns the exit code; messages go to stderr.
int Run(const RunOptions& options);

/// Loads and compiles the scene, reporting problems. Returns the exit code.
int Validate(const std::string& scene, const std::vector<Override>& overrides);

}  // namespace ductile::cli
