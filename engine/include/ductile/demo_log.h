// The demo log (docs/cli.md, "Demo logs"): what a run needs to be reproduced bitwise on the CPU backend. The scene
// file and its `--set` overrides, then every input a person gave while it ran (teleoperation targets, gripper
// commands, the mouse spring, live parameter edits), each with the step before which it was applied, and the number
// of steps and the state hash at the end. The studio writes it (Simulation > Save demo log); `ductile-cli replay LOG`
// runs it again, optionally rendering a video, and checks the final hash.
//
// Format: YAML, documented in docs/cli.md ("Demo logs"). Numbers are written with 17 significant digits, so every
// double reads back bitwise the same.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ductile/scene.h"
#include "ductile/simulator.h"

namespace ductile {

/// One input, applied when Simulator::step_count() == step, before that step runs.
struct DemoEvent {
  enum class Type {
    kTeleopTarget,  ///< Simulator::SetTeleopTarget(teleop).
    kTeleopClear,   ///< Simulator::ClearTeleopTarget(teleop.robot).
    kGripper,       ///< Simulator::SetGripper(gripper).
    kPerturb,       ///< Simulator::SetPerturbation(perturbation).
    kSet,           ///< A parameter edit: Simulator::SetParameter for a live parameter of the table, else the scene
                    ///< recompiled with `set` added to the overrides and Simulator::UpdateModel.
  };
  Type type = Type::kTeleopTarget;
  std::int64_t step = 0;
  double time = 0;  ///< Simulated time when it was applied [s]; for people reading the log, `step` decides.
  TeleopTarget teleop;
  GripperCommand gripper;
  Perturbation perturbation;
  Override set;
};

struct DemoLog {
  /// The scene file; a relative path is relative to the log's folder.
  std::filesystem::path scene;
  std::vector<Override> overrides;                ///< In force at t = 0.
  std::vector<DemoEvent> events;                  ///< In step order.
  std::int64_t steps = 0;                         ///< Steps the run took.
  std::optional<std::uint64_t> final_state_hash;  ///< Simulator::StateHash() after the last step.
  /// The BLAS kernels the run used (BlasKernels()), which FEM bodies' and the strong coupling's results depend on;
  /// empty: not recorded.
  std::string blas_kernels;
};

/// The kernels OpenBLAS chose for this CPU ("Haswell", "SkylakeX"; OPENBLAS_CORETYPE forces others), when OpenBLAS
/// is the BLAS loaded; empty otherwise. A run with FEM bodies or the strong coupling rounds as its kernels do.
std::string BlasKernels();

/// Writes `log` to `file` atomically (a temporary file, then a rename). Throws std::runtime_error naming the path
/// when it cannot be written.
void WriteDemoLog(const std::filesystem::path& file, const DemoLog& log);

/// Reads a demo log; the scene path comes back resolved against the log's folder. Throws SceneError
/// (FILE:LINE:COL: message) for a missing or malformed log.
DemoLog LoadDemoLog(const std::filesystem::path& file);

/// Applies a log's events to a simulator as it steps. Live edits of the parameter table's live parameters go to
/// Simulator::SetParameter; other edits recompile the scene file with the overrides so far (the scene file as it is
/// at construction).
class DemoPlayer {
 public:
  /// Throws SceneError when the scene file cannot be read.
  explicit DemoPlayer(const DemoLog& log);
  /// Applies every event due at sim.step_count(). Returns an error message naming the event when one is refused
  /// (the replay then no longer reproduces the run), empty otherwise.
  std::string ApplyDue(Simulator& sim);
  /// Events not yet applied.
  std::size_t remaining() const { return log_.events.size() - next_; }

 private:
  DemoLog log_;
  std::string scene_text_;
  std::vector<Override> overrides_;
  std::size_t next_ = 0;
};

/// Puts a live edit into a list of overrides: replaces the override of the same key, else appends it (the order
/// of first appearance is kept, which is the order LoadScene applies them in).
void SetOverride(std::vector<Override>& overrides, const Override& edit);

/// Applies one event to `sim`. kSet adds the edit to `overrides` (or replaces the override of the same key) and
/// applies it with Simulator::SetParameter when the parameter table says it is live, else by recompiling
/// `scene_text` of `scene_file` with `overrides` and Simulator::UpdateModel. Returns an error message when refused,
/// empty on success.
std::string ApplyDemoEvent(Simulator& sim, const DemoEvent& event, const std::string& scene_text,
                           const std::filesystem::path& scene_file, std::vector<Override>& overrides);

}  // namespace ductile
