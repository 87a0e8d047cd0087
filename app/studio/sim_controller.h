// SimController: owns the simulation thread of the studio (docs/studio.md, "Threads"), as RenderDoc's replay thread
// owns its core: the UI posts Commands (commands.h) into a CommandQueue, where a newer request may replace a queued
// older one of the same kind (command_queue.h); the thread applies them in order between steps, steps at the requested
// fraction of real time, publishes a Snapshot after every step into a triple buffer and appends a TelemetrySample per
// step to a single-producer ring. Neither side ever waits for the other: posting takes a mutex held for one push,
// publishing and reading the snapshot swap an atomic index, and the ring's indices are atomics. No Qt here, so the
// ThreadSanitizer test runs it without a window.
//
// Scenes: the thread opens them too (command::OpenScene reads, loads and compiles the scene, which for a large one
// takes seconds of sampling particles), so the UI never waits for a compile; scene() tells the UI what it opened.
//
// History (docs/studio.md, "History"): the thread keeps recent states in a StateHistory (state_history.h): every
// `interval` steps while playing, after every single step and whenever it pauses. command::Scrub pauses and
// continues from a kept state, with the parameters it ran with; whatever changes the run from there (play, a step,
// an input, an edit) discards the states after it, the demo log's inputs after it, and the plots' samples after it
// (a new run: ControllerStatus::run).
//
// Recording (docs/studio.md, "Recording"): while a FrameSink is attached, the thread hands it the state at fixed
// intervals of simulated time, frame k at t0 + k / fps where t0 is the time the recording started: after every step
// the frames whose time the step reached are due, and the state at that step boundary fills them all (several when a
// step spans several frame intervals). The sink renders and encodes on this thread, so recording slows the
// simulation down but never drops or shifts a frame.
//
// The demo log (docs/studio.md, "Teleoperation"): every input the thread applies (teleoperation targets and their
// end, gripper commands, the mouse spring, live edits that took effect) is kept as a DemoEvent with the step before
// which it was applied, from the last reset or the opening of the scene on. CaptureDemoLog hands it over with the
// step count and state hash of one step boundary, so `ductile-cli replay` can run it again and compare. A loaded
// state cannot be reached by a replay from t = 0, so after one there is no demo log until a reset.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "command_queue.h"
#include "commands.h"
#include "ductile/demo_log.h"
#include "ductile/model.h"
#include "ductile/robot_warnings.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"
#include "frame_sink.h"
#include "state_history.h"

namespace ductile::studio {

/// What happened on the simulation thread that the UI should show (divergence, a refused edit, an applied one).
struct Event {
  enum class Kind { kInfo, kWarning, kError };
  Kind kind = Kind::kInfo;
  double time = 0;  ///< Simulated time [s].
  std::string message;
  /// The edited parameter's key, for the outcome of a command::SetOverride; kTeleopKey or kGripperKey for a refused
  /// command::Teleop or command::Gripper; kSaveStateKey or kLoadStateKey for the outcome of
  /// command::SaveState or command::LoadState; kSceneKey for a scene that could not be opened; else empty.
  std::string key;
};

/// Event::key of a refused teleoperation target and of a refused gripper command.
inline constexpr const char* kTeleopKey = "teleop";
inline constexpr const char* kGripperKey = "gripper";
/// Event::key of the outcome of command::SaveState and command::LoadState: kInfo when the file was written or the
/// state loaded, kError (the file not written, or not usable; the running state unchanged) with the reason.
inline constexpr const char* kSaveStateKey = "save state";
inline constexpr const char* kLoadStateKey = "load state";
/// Event::key of a scene that could not be opened (kError; the message is the scene's FILE:LINE:COL error).
inline constexpr const char* kSceneKey = "scene";

/// Moving bodies whose contact force a TelemetrySample carries.
inline constexpr int kMaxPlotBodies = 16;

/// The most telemetry channels a TelemetrySample carries (the table has fewer; a GUI test checks).
inline constexpr int kMaxSampleChannels = 48;

/// One step's numbers for the plots.
struct TelemetrySample {
  double time = 0;             ///< Simulated time after the step [s].
  double step_ms = 0;          ///< Wall time of the step [ms].
  double realtime_factor = 0;  ///< Simulated over wall time, over the last second of wall time.
  /// The step's telemetry channels (ductile/telemetry.h, TelemetryChannels(), in its order; the first
  /// kMaxSampleChannels), as floats: what the plots draw and their CSV holds.
  std::array<float, kMaxSampleChannels> channels{};
  std::uint64_t present = 0;  ///< Bit c set: the step has channel c (an IPC channel only with soft or affine bodies).
  bool Has(int c) const { return c >= 0 && ((present >> c) & 1U) != 0; }
  int num_bodies = 0;  ///< Bodies in `force` (the first kMaxPlotBodies moving bodies).
  std::array<std::array<float, 3>, kMaxPlotBodies> force{};  ///< Contact force per body [N], world.
  /// A robot warning (a self-contact, a link above its force limit; ductile/robot_warnings.h) started with this
  /// step: the force plot marks its time.
  bool robot_warning = false;
  std::uint64_t run = 0;  ///< ControllerStatus::run of the step: the samples of an earlier run after `run_from` are
  double run_from = 0;    ///< not this run's past [s] (see ControllerStatus::run_from).
};

/// A bounded single-producer single-consumer queue. When full, push drops the sample and counts it.
class TelemetryRing {
 public:
  explicit TelemetryRing(std::size_t capacity = 8192) : slots_(capacity) {}
  void Push(const TelemetrySample& sample);
  /// Appends every waiting sample to `out`; returns how many.
  std::size_t Drain(std::vector<TelemetrySample>& out);
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  std::vector<TelemetrySample> slots_;
  std::atomic<std::size_t> head_{0};  // next write (producer)
  std::atomic<std::size_t> tail_{0};  // next read (consumer)
  std::atomic<std::uint64_t> dropped_{0};
};

/// Three snapshots: the writer fills its back buffer and swaps it into the middle; the reader swaps the middle
/// into its front buffer when a newer one is there. Lock-free, one writer and one reader.
class SnapshotBuffer {
 public:
  Snapshot& back() { return slots_[back_]; }
  /// Makes the back buffer the newest published one.
  void Publish();
  /// Takes the newest published snapshot if there is one since the last call; true then.
  bool Acquire();
  const Snapshot& front() const { return slots_[front_]; }

 private:
  static constexpr int kFresh = 4;  // bit of middle_: published and not yet acquired
  std::array<Snapshot, 3> slots_;
  int back_ = 0;
  int front_ = 1;
  std::atomic<int> middle_{2};
};

/// A robot's teleoperation status (Simulator::GetTeleopStatus) after the last step.
struct RobotTeleopStatus {
  std::string robot;
  TeleopStatus status;
};

/// The history of recent states (StateHistory) as the UI shows it beside its scrubber.
struct HistoryStatus {
  std::size_t states = 0;   ///< Kept states.
  std::uint64_t first = 0;  ///< Serial of the oldest (0: none kept).
  std::uint64_t last = 0;   ///< Serial of the newest; the history holds every serial from `first` to `last`.
  std::uint64_t shown = 0;  ///< Serial of the kept state the simulation is at; 0 when it ran on or changed since.
  double oldest_time = 0;   ///< Simulated time of the oldest kept state [s].
  double newest_time = 0;   ///< ... and of the newest [s].
  std::size_t bytes = 0;    ///< Memory the kept states hold [bytes].
  std::size_t limit = 0;    ///< The bound [bytes].
  int interval = 1;         ///< Steps between the states kept while playing.
  bool automatic = true;    ///< `interval` is chosen for the bound (command::SetHistoryLimit's 0).
  std::uint64_t scrub_request = 0;  ///< command::Scrub::request of the last scrub applied.
};

/// The scene the simulation thread opened: what the UI's panels show of it. Fixed once published.
struct OpenedScene {
  std::uint64_t generation = 0;     ///< 1 for the controller's first scene, one more for each later one.
  std::filesystem::path file;       ///< As given to command::OpenScene (or the constructor).
  std::string text;                 ///< The file's text: live edits reload it with their overrides.
  SceneDesc scene;                  ///< As loaded, without overrides.
  std::vector<std::string> robots;  ///< Simulator::RobotNames, in scene order.
  std::vector<std::string> bodies;  ///< The moving bodies, in Snapshot::bodies order.
  int num_particles = 0;
  std::uint64_t run = 0;  ///< ControllerStatus::run of its start.
};

/// The state the UI shows in its toolbar, HUD and history dock, updated by the simulation thread after every command
/// and step.
struct ControllerStatus {
  bool playing = false;
  double speed = 1;            ///< Requested fraction of real time.
  double realtime_factor = 0;  ///< Measured, over about the last second.
  double time = 0;             ///< Simulated time [s].
  std::int64_t step = 0;
  std::vector<RobotTeleopStatus> teleop;  ///< One per robot of the scene, in scene order.
  std::size_t demo_events = 0;            ///< Inputs in the demo log so far.
  bool demo_log_available = true;         ///< False after a loaded state, until a reset or another scene.
  HistoryStatus history;
  /// Counts the runs: one more at a reset, a loaded state, an opened scene and a run resumed from a past state.
  /// Samples of an earlier run after `run_from` [s] are not this run's past: −infinity for a new run, the time of the
  /// state it resumed from for a resumed one.
  std::uint64_t run = 0;
  double run_from = -std::numeric_limits<double>::infinity();
  /// Counts the scrubs that brought back other live edits than those in force (the inspector shows them anew).
  std::uint64_t overrides_restored = 0;
  /// While paused: Simulator::StateHash() of the state it is at; none while playing.
  std::optional<std::uint64_t> state_hash;
  std::filesystem::path opening;  ///< The scene being opened (command::OpenScene); empty when none.
  /// The robot warnings of this run so far, as the Log shows them ("t = 6.105 s: robot 'arm': ..."), oldest first.
  std::vector<std::string> robot_warnings;
};

/// Real-time pacing: when the step after one that was due at `due` is due, the step having ended at `now`; steps are
/// due every `interval` of wall time (Δt / speed). A step that ends late leaves the next ones due sooner, so that a
/// simulation whose steps vary in cost around the interval keeps the requested speed on average; but no step is due
/// more than `max_lag` before `now`: a simulation that cannot keep up runs its steps back to back and is then slower
/// than requested, without running a burst of steps to win back time it lost long ago (MuJoCo's simulate likewise
/// lets its simulation fall at most 0.1 s out of step with the clock before it starts over).
std::chrono::steady_clock::time_point NextStepDue(std::chrono::steady_clock::time_point due,
                                                  std::chrono::steady_clock::time_point now,
                                                  std::chrono::steady_clock::duration interval,
                                                  std::chrono::steady_clock::duration max_lag);

/// The most wall time a playing simulation may fall behind its schedule and still catch up (NextStepDue).
inline constexpr std::chrono::milliseconds kMaxPacingLag{100};

class SimController {
 public:
  /// Starts the simulation thread with no scene: until command::OpenScene opens one, it takes only the settings
  /// (speed, history bound), refuses state files and demo logs with the reason, and ignores the rest.
  explicit SimController(int threads = 0);
  /// Starts the simulation thread on `model`, paused. `scene_text` and `scene_file` are the scene the model was
  /// compiled from (with `overrides`): live edits recompile it with one more override. Throws SceneError when the
  /// text does not load.
  SimController(std::shared_ptr<const Model> model, std::string scene_text, std::filesystem::path scene_file,
                std::vector<Override> overrides = {}, int threads = 0);
  /// Finishes the recording (FrameSink::Finish), stops and joins the thread.
  ~SimController();
  SimController(const SimController&) = delete;
  SimController& operator=(const SimController&) = delete;

  /// Queues a command (CommandQueue::Push: it may replace a queued older one); returns at once. Any thread.
  void Post(Command command);

  // UI side (one thread).
  /// Takes the newest snapshot if one was published since the last call.
  bool AcquireSnapshot() { return snapshots_.Acquire(); }
  const Snapshot& snapshot() const { return snapshots_.front(); }
  std::size_t DrainTelemetry(std::vector<TelemetrySample>& out) { return telemetry_.Drain(out); }
  std::vector<Event> DrainEvents();
  ControllerStatus status() const;
  /// The open scene; null before the first. Any thread.
  std::shared_ptr<const OpenedScene> scene() const;
  /// The open scene's robots (Simulator::RobotNames), in scene order; empty without a scene. Any thread.
  std::vector<std::string> robots() const;
  /// Whether snapshots carry the particles' von Mises stress (costly; the viewport's stress colours need it).
  void SetStressWanted(bool wanted) { stress_wanted_.store(wanted, std::memory_order_relaxed); }
  /// Pins the simulation thread to `core` from its next loop on (−1: every allowed core again; cpu_placement.h). Any
  /// thread.
  void SetSimulationCore(int core) { core_request_.store(core < 0 ? kAllCores : core, std::memory_order_relaxed); }
  /// The simulation thread's id (Linux thread id; 0 until it runs, and elsewhere). Any thread.
  int thread_id() const { return thread_id_.load(std::memory_order_relaxed); }
  /// The overrides in force, in the order given.
  std::vector<Override> overrides() const;
  /// The demo log since the last reset or the opening of the scene: the scene file (absolute), the overrides in
  /// force then, every input applied since, and the step count and state hash now. Waits for the simulation thread
  /// to reach a step boundary (at most one step, or the scene being opened). Throws std::runtime_error saying why
  /// there is none: no scene is open, or a state was loaded since (a replay from t = 0 cannot reach it). UI thread.
  DemoLog CaptureDemoLog();

 private:
  void Run();
  /// Applies a command of the open scene; without one, what command::* says happens then (IgnoreWithoutScene).
  void Dispatch(const Command& command);
  void IgnoreWithoutScene(const Command& command);
  // One per kind of command (commands.h).
  void Apply(const command::Play&);
  void Apply(const command::Pause&);
  void Apply(const command::Step&);
  void Apply(const command::Reset&);
  void Apply(const command::SetSpeed& c);
  void Apply(const command::SetOverride& c);
  void Apply(const command::Perturb& c);
  void Apply(const command::StartRecording& c);
  void Apply(const command::StopRecording&);
  void Apply(const command::Teleop& c);
  void Apply(const command::TeleopClear& c);
  void Apply(const command::Gripper& c);
  void Apply(const command::CaptureDemoLog& c);
  void Apply(const command::SaveState& c);
  void Apply(const command::LoadState& c);
  void Apply(const command::Scrub& c);
  void Apply(const command::SetHistoryLimit& c);
  void Apply(const command::OpenScene& c);

  /// Continues with `sim` (compiled from `text` of `file`, loaded as `scene`), paused at its initial state.
  void UseScene(std::unique_ptr<Simulator> sim, std::shared_ptr<const Model> model, std::string text,
                std::filesystem::path file, SceneDesc scene, std::vector<Override> overrides);
  void StepOnce();
  /// The step's robot alerts into this run's warnings; a warning that starts is emitted (once a run) and marked in
  /// the telemetry.
  void CheckRobots();
  void MeasureSpeed();
  void PushTelemetry();
  void PublishSnapshot();
  void WriteDueFrames();
  void EndRecording();
  /// Queues an event (controller thread); the next UpdateStatus publishes it with the status it belongs to.
  void Emit(Event::Kind kind, std::string message, std::string key = {});
  void UpdateStatus();
  /// Applies `event` (an input) as the demo log's replay does and logs it, or emits why it was refused (`what` names
  /// the kind of input, `key` is the Event's key).
  void ApplyInput(DemoEvent event, const char* what, const char* key);
  /// Starts a new demo log from the current state (after a reset; at construction).
  void StartDemoLog();
  /// Appends an applied input to the demo log at the current step.
  void RecordInput(DemoEvent event);
  /// Starts a new run, for the plots (ControllerStatus::run): from −infinity, or from a past state's time.
  void NewRun(double from = -std::numeric_limits<double>::infinity());
  /// A new history that starts at the current state (a reset, a loaded state, an opened scene).
  void RestartHistory();
  /// Keeps the current state in the history unless it is the kept state it is at already.
  void KeepCurrentState();
  /// Before the run changes at a past state of the history: discards the states kept after it and the demo log's
  /// inputs applied since it was kept, and starts a new run from its time. Nothing when not at a past state.
  void BranchFromPastState();
  /// Continues from `entry`: its parameters (model and overrides) and its state.
  void Restore(const HistoryEntry& entry);

  // Owned by the simulation thread after construction.
  std::unique_ptr<Simulator> sim_;  // null until a scene is open
  // The model compiled from the scene, which sim_ runs with live_edits_ applied (Simulator::SetParameter copies it
  // on its first edit, so the history's entries can share it).
  std::shared_ptr<const Model> model_;
  std::vector<Override> live_edits_;
  int threads_ = 0;
  std::string scene_text_;
  std::filesystem::path scene_file_;
  std::vector<std::string> scene_robots_;
  bool playing_ = false;
  double speed_ = 1;
  double measured_rtf_ = 0;
  std::deque<std::pair<double, double>> rtf_window_;       // (wall seconds, simulated seconds) per step
  std::chrono::steady_clock::time_point last_step_end_{};  // while playing: when the last step ended
  std::chrono::steady_clock::time_point last_publish_{};   // when the last snapshot was published
  std::atomic<bool> stress_wanted_{true};
  static constexpr int kNoRequest = -2, kAllCores = -1;
  std::atomic<int> core_request_{kNoRequest};  // SetSimulationCore's, taken by the simulation thread
  std::atomic<int> thread_id_{0};
  std::shared_ptr<FrameSink> sink_;  // the recording, or null
  double record_start_ = 0;          // simulated time of frame 0 [s]
  double record_fps_ = 0;            // [frames/s]
  std::int64_t record_frames_ = 0;   // frames handed to sink_
  Snapshot record_snapshot_;         // the state of the frames being written
  DemoLog demo_log_;                 // inputs since the last reset; steps and hash are filled when captured
  bool demo_log_available_ = true;   // false after a loaded state until a reset or another scene
  StateHistory history_;
  std::uint64_t at_serial_ = 0;      // the kept state the simulation is at; 0 when it ran on or changed since
  std::uint64_t scrub_request_ = 0;  // command::Scrub::request of the last scrub applied
  std::uint64_t run_ = 0;
  double run_from_ = -std::numeric_limits<double>::infinity();
  RobotWarnings robot_warnings_;        // this run's (NewRun forgets those after where it resumes)
  bool robot_warning_started_ = false;  // in the last step, for its TelemetrySample
  std::uint64_t overrides_restored_ = 0;
  std::uint64_t scene_generation_ = 0;

  // Shared with the UI thread.
  mutable std::mutex mutex_;  // guards commands_, events_, status_, overrides_, scene_, stop_
  std::condition_variable wake_;
  CommandQueue commands_;
  std::vector<Event> events_;
  std::vector<Event> pending_events_;  // the controller thread's, until UpdateStatus publishes them with its status
  ControllerStatus status_;
  std::vector<Override> overrides_;
  std::shared_ptr<const OpenedScene> scene_;
  bool stop_ = false;

  SnapshotBuffer snapshots_;
  TelemetryRing telemetry_;
  std::thread thread_;
};

}  // namespace ductile::studio
