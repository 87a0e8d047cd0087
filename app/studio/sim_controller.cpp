#include "sim_controller.h"

#include <algorithm>
#include <chrono>

#include "cpu_placement.h"
#include "ductile/simulator.h"

namespace ductile::studio {

void TelemetryRing::Push(const TelemetrySample& sample) {
  const std::size_t head = head_.load(std::memory_order_relaxed);
  const std::size_t next = (head + 1) % slots_.size();
  if (next == tail_.load(std::memory_order_acquire)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  slots_[head] = sample;
  head_.store(next, std::memory_order_release);
}

std::size_t TelemetryRing::Drain(std::vector<TelemetrySample>& out) {
  std::size_t tail = tail_.load(std::memory_order_relaxed);
  const std::size_t head = head_.load(std::memory_order_acquire);
  std::size_t n = 0;
  while (tail != head) {
    out.push_back(slots_[tail]);
    tail = (tail + 1) % slots_.size();
    ++n;
  }
  tail_.store(tail, std::memory_order_release);
  return n;
}

void SnapshotBuffer::Publish() {
  // acq_rel: the writes into the back buffer happen before the reader can take it, and the buffer handed back
  // is no longer read.
  back_ = middle_.exchange(back_ | kFresh, std::memory_order_acq_rel) & ~kFresh;
}

bool SnapshotBuffer::Acquire() {
  if (!(middle_.load(std::memory_order_relaxed) & kFresh)) return false;
  front_ = middle_.exchange(front_, std::memory_order_acq_rel) & ~kFresh;
  return true;
}

SimController::SimController(std::shared_ptr<const Model> model, std::string scene_text,
                             std::filesystem::path scene_file, std::vector<Override> overrides, int threads)
    : scene_text_(std::move(scene_text)), scene_file_(std::move(scene_file)), overrides_(std::move(overrides)) {
  sim_ = std::make_unique<Simulator>(std::move(model), SimulatorOptions{threads});
  robots_ = sim_->RobotNames();
  StartDemoLog();
  PublishSnapshot();
  UpdateStatus();
  // At the process's normal priority: the UI thread that makes a controller may run at a lower one (cpu_placement.h).
  thread_ = StartNormalPriorityThread([this] { Run(); });
}

SimController::~SimController() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void SimController::Post(Command command) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(std::move(command));
  }
  wake_.notify_all();
}

std::vector<Event> SimController::DrainEvents() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Event> out;
  out.swap(events_);
  return out;
}

ControllerStatus SimController::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

std::vector<Override> SimController::overrides() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return overrides_;
}

DemoLog SimController::CaptureDemoLog() {
  Command c = Command::Of(Command::Type::kDemoLog);
  c.demo_log = std::make_shared<std::promise<DemoLog>>();
  std::future<DemoLog> log = c.demo_log->get_future();
  Post(std::move(c));
  return log.get();
}

std::chrono::steady_clock::time_point NextStepDue(std::chrono::steady_clock::time_point due,
                                                  std::chrono::steady_clock::time_point now,
                                                  std::chrono::steady_clock::duration interval,
                                                  std::chrono::steady_clock::duration max_lag) {
  return std::max(due + interval, now - std::max(max_lag, interval));
}

void SimController::Run() {
  using Clock = std::chrono::steady_clock;
  Clock::time_point next_step = Clock::now();
  std::deque<Command> commands;
  thread_id_.store(CurrentThreadId(), std::memory_order_relaxed);
  for (;;) {
    if (const int core = core_request_.exchange(kNoRequest, std::memory_order_relaxed); core != kNoRequest) {
      PinCallingThread(core == kAllCores ? std::vector<int>{} : std::vector<int>{core});
    }
    commands.clear();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Paused: sleep until a command arrives. Playing: only collect what is there.
      if (!playing_) wake_.wait(lock, [&] { return stop_ || !commands_.empty(); });
      commands.swap(commands_);
      if (stop_) break;
    }
    bool step_once = false;
    const bool was_playing = playing_;
    for (const Command& c : commands) {
      if (c.type == Command::Type::kStep)
        step_once = !playing_;
      else
        Apply(c);
    }
    if (step_once) {
      StepOnce();
      next_step = Clock::now();
    }
    // Playing starts its schedule now: the time paused is not owed.
    if (playing_ && !was_playing) next_step = Clock::now();
    if (playing_) {
      // Real-time pacing: a step of Δt is due every Δt / speed of wall time; steps that end late are followed by
      // steps due sooner, up to kMaxPacingLag behind the clock (NextStepDue).
      const Clock::time_point now = Clock::now();
      if (now < next_step) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait_until(lock, next_step, [&] { return stop_ || !commands_.empty(); });
        continue;  // commands first; the step is still due at next_step
      }
      StepOnce();
      const auto interval = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(sim_->model().dt / std::max(speed_, 1e-3)));
      next_step = NextStepDue(next_step, Clock::now(), interval, kMaxPacingLag);
    }
    UpdateStatus();
  }
  // Shutting down: the recording and any still waiting to start are finished, so that every file is complete.
  EndRecording();
  for (const Command& c : commands)
    if (c.type == Command::Type::kStartRecording && c.sink) c.sink->Finish(sim_->time());
}

void SimController::Apply(const Command& c) {
  switch (c.type) {
    case Command::Type::kPlay:
      playing_ = true;
      break;
    case Command::Type::kPause:
      playing_ = false;
      last_step_end_ = {};
      PublishSnapshot();  // the state it stopped at, if the last step's snapshot was skipped
      break;
    case Command::Type::kStep:
      break;
    case Command::Type::kReset:
      EndRecording();  // its frames would go back in time
      sim_->Reset();
      StartDemoLog();
      rtf_window_.clear();
      last_step_end_ = {};
      measured_rtf_ = 0;
      PublishSnapshot();
      Emit(Event::Kind::kInfo, "reset to t = 0");
      break;
    case Command::Type::kSetSpeed:
      speed_ = std::clamp(c.value, 0.01, 1.0);
      break;
    case Command::Type::kSetOverride:
      ApplyOverride(c.key, c.text);
      break;
    case Command::Type::kPerturb:
      ApplyInput(c);
      PublishSnapshot();  // the spring is drawn at once, also while paused
      break;
    case Command::Type::kStartRecording:
      EndRecording();
      if (!c.sink) break;
      sink_ = c.sink;
      record_start_ = sim_->time();
      record_fps_ = sink_->fps();
      record_frames_ = 0;
      if (!(record_fps_ > 0)) {  // no frame would ever be due
        EndRecording();
        break;
      }
      WriteDueFrames();  // frame 0: the state now
      break;
    case Command::Type::kStopRecording:
      EndRecording();
      break;
    case Command::Type::kTeleop:
    case Command::Type::kTeleopClear:
    case Command::Type::kGripper:
      ApplyInput(c);
      break;
    case Command::Type::kDemoLog: {
      if (!c.demo_log) break;
      DemoLog log = demo_log_;
      log.steps = sim_->step_count();
      log.final_state_hash = sim_->StateHash();
      c.demo_log->set_value(std::move(log));
      break;
    }
  }
}

void SimController::ApplyInput(const Command& c) {
  DemoEvent e;
  const char* key = kTeleopKey;
  switch (c.type) {
    case Command::Type::kPerturb:
      e.type = DemoEvent::Type::kPerturb;
      e.perturbation = c.perturbation;
      break;
    case Command::Type::kTeleop:
      e.type = DemoEvent::Type::kTeleopTarget;
      e.teleop = c.teleop;
      break;
    case Command::Type::kTeleopClear:
      e.type = DemoEvent::Type::kTeleopClear;
      e.teleop.robot = c.teleop.robot;
      break;
    case Command::Type::kGripper:
      e.type = DemoEvent::Type::kGripper;
      e.gripper = c.gripper;
      key = kGripperKey;
      break;
    default:
      return;
  }
  // The replay's own way of applying an input, so that what the log says is what was done.
  std::vector<Override> no_edits;  // only live edits (kSet, not applied here) use them
  if (std::string refused = ApplyDemoEvent(*sim_, e, scene_text_, scene_file_, no_edits); !refused.empty()) {
    Emit(Event::Kind::kWarning,
         std::string(key == kGripperKey ? "gripper command" : "teleoperation") + " refused: " + refused, key);
    return;
  }
  RecordInput(std::move(e));
}

void SimController::StartDemoLog() {
  demo_log_ = {};
  demo_log_.scene = std::filesystem::absolute(scene_file_);
  std::lock_guard<std::mutex> lock(mutex_);
  demo_log_.overrides = overrides_;
}

void SimController::RecordInput(DemoEvent event) {
  event.step = sim_->step_count();
  event.time = sim_->time();
  // A target that moves several times before a step: only the last one acts, so only it is kept.
  if (event.type == DemoEvent::Type::kTeleopTarget && !demo_log_.events.empty()) {
    DemoEvent& last = demo_log_.events.back();
    if (last.type == DemoEvent::Type::kTeleopTarget && last.step == event.step &&
        last.teleop.robot == event.teleop.robot && last.teleop.link == event.teleop.link) {
      last = std::move(event);
      return;
    }
  }
  demo_log_.events.push_back(std::move(event));
}

void SimController::ApplyOverride(const std::string& key, const std::string& text) {
  std::vector<Override> overrides;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    overrides = overrides_;
  }
  std::shared_ptr<const Model> model;
  Override edit;
  try {
    edit = ParseOverride(key + "=" + text);
    SetOverride(overrides, edit);
    model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene_text_, scene_file_, overrides)));
  } catch (const std::exception& e) {
    Emit(Event::Kind::kError, key + " = " + text + " refused: " + e.what(), key);
    return;
  }
  const std::string refused = sim_->UpdateModel(model);
  if (!refused.empty()) {
    Emit(Event::Kind::kWarning, key + " = " + text + " not applied: " + refused, key);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    overrides_ = std::move(overrides);
  }
  DemoEvent applied;
  applied.type = DemoEvent::Type::kSet;
  applied.set = edit;
  RecordInput(std::move(applied));
  PublishSnapshot();
  Emit(Event::Kind::kInfo, key + " = " + text + " applied at t = " + std::to_string(sim_->time()) + " s", key);
}

void SimController::StepOnce() {
  try {
    sim_->Step();
  } catch (const SimulationDiverged& e) {
    playing_ = false;
    PublishSnapshot();
    Emit(Event::Kind::kError, std::string(e.what()) + " — paused");
    return;
  } catch (const std::exception& e) {  // anything else a step throws also pauses, never ends the thread
    playing_ = false;
    PublishSnapshot();
    Emit(Event::Kind::kError, std::string("the step failed: ") + e.what() + " — paused");
    return;
  }
  // While playing, a snapshot at most at the display's rate (60 Hz): a copy per step would cost fast small scenes
  // more than they step. A single step and a pause always publish.
  if (!playing_ || std::chrono::steady_clock::now() - last_publish_ >= std::chrono::milliseconds(15)) PublishSnapshot();
  WriteDueFrames();
  // Measured real-time factor over about the last second of wall time: while playing, the wall time between step
  // ends (the pacing's waits included, so at 50% speed it reads 0.5); for a single step, its compute time.
  const StepTelemetry& t = sim_->last_step();
  const auto now = std::chrono::steady_clock::now();
  double wall = t.wall_ms * 1e-3;
  if (playing_ && last_step_end_ != std::chrono::steady_clock::time_point{})
    wall = std::min(1.0, std::chrono::duration<double>(now - last_step_end_).count());
  last_step_end_ = playing_ ? now : std::chrono::steady_clock::time_point{};
  rtf_window_.emplace_back(wall, sim_->model().dt);
  double wall_sum = 0, sim_sum = 0;
  for (const auto& [w, s] : rtf_window_) {
    wall_sum += w;
    sim_sum += s;
  }
  while (rtf_window_.size() > 1 && wall_sum - rtf_window_.front().first > 1.0) {
    wall_sum -= rtf_window_.front().first;
    sim_sum -= rtf_window_.front().second;
    rtf_window_.pop_front();
  }
  measured_rtf_ = wall_sum > 0 ? sim_sum / wall_sum : 0;
  TelemetrySample sample;
  sample.time = sim_->time();
  sample.step_ms = t.wall_ms;
  sample.realtime_factor = measured_rtf_;
  sample.mpm_iterations = t.mpm_contact_iterations;
  sample.mpm_residual = t.mpm_contact_residual;
  sample.sap_iterations = t.sap_iterations;
  sample.num_bodies = std::min(sim_->num_rigid_bodies(), kMaxPlotBodies);
  for (int b = 0; b < sample.num_bodies; ++b) {
    const RigidBodySummary body = sim_->SummarizeRigidBody(b);
    for (int a = 0; a < 3; ++a) sample.force[b][a] = static_cast<float>(body.contact_force[a]);
  }
  telemetry_.Push(sample);
}

void SimController::PublishSnapshot() {
  last_publish_ = std::chrono::steady_clock::now();
  sim_->CaptureSnapshot(snapshots_.back(), stress_wanted_.load(std::memory_order_relaxed));
  snapshots_.Publish();
}

void SimController::WriteDueFrames() {
  if (!sink_) return;
  // Frame k is due once the simulated time reaches t0 + k / fps; the slack absorbs the round-off that step
  // boundaries accumulate [s].
  constexpr double kTimeSlack = 1e-9;
  std::int64_t due = 0;
  while (record_start_ + static_cast<double>(record_frames_ + due) / record_fps_ <= sim_->time() + kTimeSlack) ++due;
  if (due == 0) return;
  sim_->CaptureSnapshot(record_snapshot_, stress_wanted_.load(std::memory_order_relaxed));
  record_frames_ += due;
  if (!sink_->WriteFrames(record_snapshot_, due)) EndRecording();
}

void SimController::EndRecording() {
  if (!sink_) return;
  const std::shared_ptr<FrameSink> sink = std::move(sink_);
  sink_.reset();
  sink->Finish(sim_->time());
}

void SimController::Emit(Event::Kind kind, std::string message, std::string key) {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back({kind, sim_->time(), std::move(message), std::move(key)});
}

void SimController::UpdateStatus() {
  std::vector<RobotTeleopStatus> teleop;
  teleop.reserve(robots_.size());
  for (const std::string& robot : robots_) teleop.push_back({robot, sim_->GetTeleopStatus(robot)});
  std::lock_guard<std::mutex> lock(mutex_);
  status_.teleop = std::move(teleop);
  status_.demo_events = demo_log_.events.size();
  status_.playing = playing_;
  status_.speed = speed_;
  status_.realtime_factor = measured_rtf_;
  status_.time = sim_->time();
  status_.step = sim_->step_count();
}

}  // namespace ductile::studio
