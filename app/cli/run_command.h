// `ductile-cli run`: loads a scene (and a saved state to start from), steps it for a duration and writes the
// trajectory, probe and statistics files, a screenshot, a video and the final state (formats in docs/cli.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ductile/demo_log.h"
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
  std::string export_dir;           ///< Folder of frames.h5 and frames.xmf per output frame; empty = none.
  int threads = 0;                  ///< 0 = scene's value.
  bool quiet = false;
  std::string screenshot_file;             ///< PNG rendered offscreen; empty = none.
  std::optional<double> screenshot_at;     ///< Simulated time of the screenshot [s]; default: the end of the run.
  std::string video_file;                  ///< H.264 MP4 rendered offscreen; empty = none.
  int video_fps = 30;                      ///< Video frames per simulated second, in [1, 240].
  std::string size = "1280x720";           ///< WIDTHxHEIGHT of the screenshot and the video [pixels].
  std::string color_mode = "material";     ///< Particle colours: material, speed, stress, plastic.
  std::string particle_style = "surface";  ///< How continua are drawn: surface or beads.
  /// Replaying a demo log: its events are applied as the run steps, it runs the log's number of steps (duration is
  /// ignored), and the final state hash is checked against the log's.
  std::shared_ptr<const DemoLog> replay;
  std::string demo_log_file;  ///< Demo log of this run written at its end (YAML); empty = none.
  bool overlay = false;       ///< The HUD (time, step, particles, contacts) on the screenshot and video.
  /// State file (Simulator::SaveState) written at the end of a run that did not diverge; empty = none.
  std::string save_state_file;
  /// State file the run starts from instead of t = 0 (Simulator::LoadStateFile); empty = none.
  std::string load_state_file;
};

/// Exit codes of the command line.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   ///< Internal error or a simulation that diverged.
inline constexpr int kExitBadInput = 2;  ///< Bad scene, bad arguments, unwritable output path.
inline constexpr int kExitInterrupted = 130;

/// Runs the scene. Returns the exit code; messages go to stderr.
int Run(const RunOptions& options);

/// `ductile-cli replay LOG`: runs the demo log's scene with `options` (outputs, video) and its events, and checks
/// the final state hash. Returns the exit code: 1 when the replay does not reproduce the log.
int Replay(const std::string& log_file, RunOptions options);

/// Loads and compiles the scene, reporting problems, and warns about a run of `duration` seconds (default:
/// simulation.duration) that would need more memory or time than is sensible (run_checks.h). Returns the exit
/// code.
int Validate(const std::string& scene, const std::vector<Override>& overrides, std::optional<double> duration);

}  // namespace ductile::cli
