// SimController: owns the simulation thread of the studio (docs/studio.md, "Threads"). The UI posts Commands; the
// thread applies them between steps, steps at the requested fraction of real time, publishes a Snapshot after every
// step into a triple buffer and appends a TelemetrySample per step to a single-producer ring. Neither side ever waits
// for the other: posting takes a mutex held for one push, publishing and reading the snapshot swap an atomic
// index, and the ring's indices are atomics. No Qt here, so the ThreadSanitizer test runs it without a window.
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
// step count and state hash of one step boundary, so `ductile-cli replay` can run it again and compare.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ductile/demo_log.h"
#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"

namespace ductile::studio {

/// Where a recording's frames go: the studio's Recorder renders and encodes them. Every call comes from the
/// simulation thread, so an implementation needs no lock for what only these calls touch. A sink handed over with
/// kStartRecording gets exactly one Finish: at kStopRecording, at a reset, when another recording starts, when it
/// fails, or at the latest when the SimController is destroyed (a start still queued then is finished at once).
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  /// Frames per second of simulated time, > 0; read once, when the recording starts.
  virtual double fps() const = 0;
  /// `snapshot` is the state at the step boundary that is due as the next `count` (>= 1) frames. Returns false when
  /// the recording failed (the sink keeps the reason): the controller then finishes it and sends no more frames.
  virtual bool WriteFrames(const Snapshot& snapshot, std::int64_t count) = 0;
  /// Ends the recording at simulated time `end_time` [s] (the state reached when it was stopped); the last call.
  virtual void Finish(double end_time) = 0;
};

/// What the UI asks of the simulation thread.
struct Command {
  enum class Type {
    kPlay,            ///< Run continuously.
    kPause,           ///< Stop after the current step.
    kStep,            ///< One step (when paused).
    kReset,           ///< Back to t = 0 with the current parameters.
    kSetSpeed,        ///< `value`: requested fraction of real time, (0, 1].
    kSetOverride,     ///< `key` = `text` (a dotted scene key, as `--set`), applied live or refused with the reason.
    kPerturb,         ///< Start, move or end (kind kNone) the mouse spring `perturbation`.
    kStartRecording,  ///< Hand frames to `sink` from now on (frame 0: the current state); ends a recording running.
    kStopRecording,   ///< End the recording (FrameSink::Finish); nothing when none runs.
    kTeleop,          ///< Start or move the teleoperation target `teleop` (Simulator::SetTeleopTarget).
    kTeleopClear,     ///< Stop teleoperating `teleop.robot`'s arm; its controllers keep their last targets.
    kGripper,         ///< Open, close or squeeze a gripper: `gripper` (Simulator::SetGripper).
    kDemoLog,         ///< Fulfil `demo_log` with the log so far (what CaptureDemoLog posts).
  };
  Type type = Type::kPause;
  double value = 0;
  std::string key;
  std::string text;
  Perturbation perturbation;
  std::shared_ptr<FrameSink> sink;                  ///< For kStartRecording.
  TeleopTarget teleop;                              ///< For kTeleop; kTeleopClear reads `teleop.robot`.
  GripperCommand gripper;                           ///< For kGripper.
  std::shared_ptr<std::promise<DemoLog>> demo_log;  ///< For kDemoLog.

  static Command Of(Type type, double value = 0) {
    Command c;
    c.type = type;
    c.value = value;
    return c;
  }
};

/// What happened on the simulation thread that the UI should show (divergence, a refused edit, an applied one).
struct Event {
  enum class Kind { kInfo, kWarning, kError };
  Kind kind = Kind::kInfo;
  double time = 0;  ///< Simulated time [s].
  std::string message;
  /// The edited parameter's key, for the outcome of a kSetOverride; kTeleopKey or kGripperKey for a refused
  /// kTeleop or kGripper; else empty.
  std::string key;
};

/// Event::key of a refused teleoperation target and of a refused gripper command.
inline constexpr const char* kTeleopKey = "teleop";
inline constexpr const char* kGripperKey = "gripper";

/// Moving bodies whose contact force a TelemetrySample carries.
inline constexpr int kMaxPlotBodies = 16;

/// One step's numbers for the plots.
struct TelemetrySample {
  double time = 0;             ///< Simulated time after the step [s].
  double step_ms = 0;          ///< Wall time of the step [ms].
  double realtime_factor = 0;  ///< Simulated over wall time, over the last second of wall time.
  int mpm_iterations = 0;      ///< MPM contact-solver iterations, summed over the substeps.
  double mpm_residual = 0;     ///< Final residual of the last substep's contact solve.
  int sap_iterations = 0;      ///< Rigid (SAP) Newton iterations.
  int num_bodies = 0;          ///< Bodies in `force` (the first kMaxPlotBodies moving bodies).
  std::array<std::array<float, 3>, kMaxPlotBodies> force{};  ///< Contact force per body [N], world.
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

/// The state the UI shows in its toolbar and HUD, updated by the simulation thread after every command and step.
struct ControllerStatus {
  bool playing = false;
  double speed = 1;            ///< Requested fraction of real time.
  double realtime_factor = 0;  ///< Measured, over about the last second.
  double time = 0;             ///< Simulated time [s].
  std::int64_t step = 0;
  std::vector<RobotTeleopStatus> teleop;  ///< One per robot of the scene, in scene order.
  std::size_t demo_events = 0;            ///< Inputs in the demo log so far.
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
  /// Starts the simulation thread on `model`, paused. `scene_text` and `scene_file` are the scene the model was
  /// compiled from (with `overrides`): live edits recompile it with one more override.
  SimController(std::shared_ptr<const Model> model, std::string scene_text, std::filesystem::path scene_file,
                std::vector<Override> overrides = {}, int threads = 0);
  /// Finishes the recording (FrameSink::Finish), stops and joins the thread.
  ~SimController();
  SimController(const SimController&) = delete;
  SimController& operator=(const SimController&) = delete;

  /// Queues a command; returns at once.
  void Post(Command command);

  // UI side (one thread).
  /// Takes the newest snapshot if one was published since the last call.
  bool AcquireSnapshot() { return snapshots_.Acquire(); }
  const Snapshot& snapshot() const { return snapshots_.front(); }
  std::size_t DrainTelemetry(std::vector<TelemetrySample>& out) { return telemetry_.Drain(out); }
  std::vector<Event> DrainEvents();
  ControllerStatus status() const;
  /// Whether snapshots carry the particles' von Mises stress (costly; the viewport's stress colours need it).
  void SetStressWanted(bool wanted) { stress_wanted_.store(wanted, std::memory_order_relaxed); }
  /// Pins the simulation thread to `core` from its next loop on (−1: every allowed core again; cpu_placement.h). Any
  /// thread.
  void SetSimulationCore(int core) { core_request_.store(core < 0 ? kAllCores : core, std::memory_order_relaxed); }
  /// The simulation thread's id (Linux thread id; 0 until it runs, and elsewhere). Any thread.
  int thread_id() const { return thread_id_.load(std::memory_order_relaxed); }
  /// The overrides in force, in the order given.
  std::vector<Override> overrides() const;
  /// The scene's robots (Simulator::RobotNames), in scene order; fixed for the controller's life, any thread.
  const std::vector<std::string>& robots() const { return robots_; }
  /// The demo log since the last reset or the opening of the scene: the scene file (absolute), the overrides in
  /// force then, every input applied since, and the step count and state hash now. Waits for the simulation thread
  /// to reach a step boundary (at most one step). UI thread.
  DemoLog CaptureDemoLog();

 private:
  void Run();
  void Apply(const Command& command);
  void ApplyOverride(const std::string& key, const std::string& text);
  void StepOnce();
  void PublishSnapshot();
  void WriteDueFrames();
  void EndRecording();
  void Emit(Event::Kind kind, std::string message, std::string key = {});
  void UpdateStatus();
  /// Applies a kPerturb, kTeleop, kTeleopClear or kGripper command and logs it, or emits why it was refused.
  void ApplyInput(const Command& c);
  /// Starts a new demo log from the current state (after a reset; at construction).
  void StartDemoLog();
  /// Appends an applied input to the demo log at the current step.
  void RecordInput(DemoEvent event);

  // Owned by the simulation thread after construction.
  std::unique_ptr<Simulator> sim_;
  std::string scene_text_;
  std::filesystem::path scene_file_;
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

  // Shared with the UI thread.
  mutable std::mutex mutex_;  // guards commands_, events_, status_, overrides_
  std::condition_variable wake_;
  std::deque<Command> commands_;
  std::vector<Event> events_;
  ControllerStatus status_;
  std::vector<Override> overrides_;
  bool stop_ = false;

  // Fixed at construction.
  std::vector<std::string> robots_;

  SnapshotBuffer snapshots_;
  TelemetryRing telemetry_;
  std::thread thread_;
};

}  // namespace ductile::studio
