// The requests the UI makes of the simulation thread (docs/studio.md, "Threads"): one small struct per kind, and a
// Command is any one of them. The SimController applies them in order between steps (one function per kind), and
// its CommandQueue lets a newer request of some kinds take the place of a queued older one (command_queue.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <variant>

#include "ductile/demo_log.h"
#include "ductile/simulator.h"
#include "frame_sink.h"

namespace ductile::studio {
namespace command {

/// Run continuously. From a past state of the history (Scrub), the run continues from it and the kept states after
/// it are discarded.
struct Play {};
/// Stop after the current step; the state it stopped at joins the history.
struct Pause {};
/// One step of Δt, when paused (from a past state: as Play).
struct Step {};
/// Back to t = 0 with the parameters in force; a new demo log and a new history.
struct Reset {};
/// The requested fraction of real time, clamped to [0.01, 1].
struct SetSpeed {
  double fraction = 1;
};
/// A live edit: `key` = `value` (a dotted scene key, as `ductile-cli --set`), applied or refused with the reason.
struct SetOverride {
  std::string key;
  std::string value;
};
/// Start, move (the same kind, index and anchor: only the target is taken) or end (kind kNone) the mouse spring.
struct Perturb {
  Perturbation perturbation;
};
/// Hand frames to `sink` from now on (frame 0: the current state); ends a recording running.
struct StartRecording {
  std::shared_ptr<FrameSink> sink;
};
/// End the recording (FrameSink::Finish); nothing when none runs.
struct StopRecording {};
/// Start or move a teleoperation target (Simulator::SetTeleopTarget).
struct Teleop {
  TeleopTarget target;
};
/// Stop teleoperating `robot`'s arm; its controllers keep their last targets.
struct TeleopClear {
  std::string robot;
};
/// Open, close or squeeze a gripper (Simulator::SetGripper).
struct Gripper {
  GripperCommand command;
};
/// Fulfil `log` with the demo log so far (what SimController::CaptureDemoLog posts), or with an exception naming
/// why there is none (no scene; a loaded state, which a log replayed from t = 0 cannot reach).
struct CaptureDemoLog {
  std::shared_ptr<std::promise<DemoLog>> log;
};
/// Write the current state to `file` (Simulator::SaveStateFile); the outcome is an Event with key kSaveStateKey.
struct SaveState {
  std::filesystem::path file;
};
/// Continue from the state in `file` (Simulator::LoadStateFile), paused there: a new history starts at it, and the
/// demo log cannot be saved until a reset. A file that cannot be used leaves the running state as it was; the
/// outcome is an Event with key kLoadStateKey.
struct LoadState {
  std::filesystem::path file;
};
/// Show a state of the history, pausing first: the kept state numbered `serial` (HistoryStatus), or with
/// `from_newest` the one `serial` places before the newest; a number outside the history is taken as its nearest
/// end. `request` is the UI's count of scrubs, reported back in HistoryStatus::scrub_request once applied.
struct Scrub {
  std::uint64_t serial = 0;
  bool from_newest = false;
  std::uint64_t request = 0;
};
/// The history's memory bound [bytes] and the steps between kept states while playing (0: automatic, so that the
/// bound holds kAutomaticHistorySpan of simulated time where it can).
struct SetHistoryLimit {
  std::size_t bytes = 0;
  int interval = 0;
};
/// Read, load and compile the scene `file` on the simulation thread and continue with it, paused at t = 0. A scene
/// that does not load keeps the open one; the error (FILE:LINE:COL) is an Event with key kSceneKey.
struct OpenScene {
  std::filesystem::path file;
};

}  // namespace command

/// What the UI asks of the simulation thread.
using Command =
    std::variant<command::Play, command::Pause, command::Step, command::Reset, command::SetSpeed, command::SetOverride,
                 command::Perturb, command::StartRecording, command::StopRecording, command::Teleop,
                 command::TeleopClear, command::Gripper, command::CaptureDemoLog, command::SaveState,
                 command::LoadState, command::Scrub, command::SetHistoryLimit, command::OpenScene>;

}  // namespace ductile::studio
