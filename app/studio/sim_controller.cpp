#include "sim_controller.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cpu_placement.h"
#include "ductile/model_checks.h"
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

SimController::SimController(int threads) : threads_(threads) {
  UpdateStatus();
  // At the process's normal priority: the UI thread that makes a controller may run at a lower one (cpu_placement.h).
  thread_ = StartNormalPriorityThread([this] { Run(); });
}

SimController::SimController(std::shared_ptr<const Model> model, std::string scene_text,
                             std::filesystem::path scene_file, std::vector<Override> overrides, int threads)
    : threads_(threads) {
  SceneDesc scene = LoadSceneFromString(scene_text, scene_file);
  auto sim = std::make_unique<Simulator>(model, SimulatorOptions{threads});
  UseScene(std::move(sim), std::move(model), std::move(scene_text), std::move(scene_file), std::move(scene),
           std::move(overrides));
  UpdateStatus();
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
    commands_.Push(std::move(command));
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

std::shared_ptr<const OpenedScene> SimController::scene() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return scene_;
}

std::vector<std::string> SimController::robots() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return scene_ ? scene_->robots : std::vector<std::string>{};
}

std::vector<Override> SimController::overrides() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return overrides_;
}

DemoLog SimController::CaptureDemoLog() {
  command::CaptureDemoLog c{std::make_shared<std::promise<DemoLog>>()};
  std::future<DemoLog> log = c.log->get_future();
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
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Paused: sleep until a command arrives. Playing: only collect what is there.
      if (!playing_) wake_.wait(lock, [&] { return stop_ || !commands_.empty(); });
      commands_.TakeAll(commands);
      if (stop_) break;
    }
    const bool was_playing = playing_;
    for (const Command& c : commands) Dispatch(c);
    // Playing starts its schedule now: the time paused is not owed.
    if (playing_ && !was_playing) next_step = Clock::now();
    if (playing_) {
      // Real-time pacing: a step of Δt is due every Δt / speed of wall time; steps that end late are followed by
      // steps due sooner, up to kMaxPacingLag behind the clock (NextStepDue).
      const Clock::time_point now = Clock::now();
      if (now < next_step) {
        if (!commands.empty()) UpdateStatus();
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
  for (const Command& c : commands) {
    if (const auto* start = std::get_if<command::StartRecording>(&c); start && start->sink)
      start->sink->Finish(sim_ ? sim_->time() : 0.0);
  }
}

void SimController::UseScene(std::unique_ptr<Simulator> sim, std::shared_ptr<const Model> model, std::string text,
                             std::filesystem::path file, SceneDesc scene, std::vector<Override> overrides) {
  EndRecording();  // the old scene's, finished at its time
  sim_ = std::move(sim);
  model_ = std::move(model);
  live_edits_.clear();
  scene_text_ = std::move(text);
  scene_file_ = std::move(file);
  scene_robots_ = sim_->RobotNames();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    overrides_ = std::move(overrides);
  }
  playing_ = false;
  rtf_window_.clear();
  last_step_end_ = {};
  measured_rtf_ = 0;
  StartDemoLog();
  for (std::string& warning : ClothSpacingWarnings(*model_)) Emit(Event::Kind::kWarning, std::move(warning));
  RestartHistory();
  auto opened = std::make_shared<OpenedScene>();
  opened->generation = ++scene_generation_;
  opened->file = scene_file_;
  opened->text = scene_text_;
  opened->scene = std::move(scene);
  opened->robots = scene_robots_;
  for (int b = 0; b < sim_->num_rigid_bodies(); ++b) opened->bodies.push_back(sim_->SummarizeRigidBody(b).name);
  opened->num_particles = model_->num_particles;
  opened->run = run_;
  PublishSnapshot();  // before the scene: the UI that sees the scene finds its snapshot
  std::lock_guard<std::mutex> lock(mutex_);
  scene_ = std::move(opened);
}

void SimController::StepOnce() {
  try {
    sim_->Step();
  } catch (const SimulationDiverged& e) {
    playing_ = false;
    at_serial_ = 0;  // the history keeps the last good states to go back to
    PublishSnapshot();
    Emit(Event::Kind::kError, std::string(e.what()) + " — paused");
    return;
  } catch (const std::exception& e) {  // anything else a step throws also pauses, never ends the thread
    playing_ = false;
    at_serial_ = 0;
    PublishSnapshot();
    Emit(Event::Kind::kError, std::string("the step failed: ") + e.what() + " — paused");
    return;
  }
  at_serial_ = 0;
  if (!playing_ || history_.Due(sim_->step_count())) KeepCurrentState();
  // While playing, a snapshot at most at the display's rate (60 Hz): a copy per step would cost fast small scenes
  // more than they step. A single step and a pause always publish.
  if (!playing_ || std::chrono::steady_clock::now() - last_publish_ >= std::chrono::milliseconds(15)) PublishSnapshot();
  WriteDueFrames();
  MeasureSpeed();
  CheckRobots();
  PushTelemetry();
}

void SimController::CheckRobots() {
  for (const std::size_t w : robot_warnings_.Add(sim_->time(), sim_->last_step().robot_alerts)) {
    Emit(Event::Kind::kWarning, DescribeRobotWarning(robot_warnings_.warnings()[w]));
    robot_warning_started_ = true;
  }
}

void SimController::MeasureSpeed() {
  // Measured real-time factor over about the last second of wall time: while playing, the wall time between step
  // ends (the pacing's waits included, so at 50% speed it reads 0.5); for a single step, its compute time.
  const auto now = std::chrono::steady_clock::now();
  double wall = sim_->last_step().wall_ms * 1e-3;
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
}

void SimController::PushTelemetry() {
  const StepTelemetry& t = sim_->last_step();
  TelemetrySample sample;
  sample.time = sim_->time();
  sample.step_ms = t.wall_ms;
  sample.realtime_factor = measured_rtf_;
  const std::vector<TelemetryChannel>& channels = TelemetryChannels();
  for (int c = 0; c < kMaxSampleChannels && c < static_cast<int>(channels.size()); ++c) {
    const TelemetryChannel& channel = channels[static_cast<std::size_t>(c)];
    if (!channel.In(t)) continue;
    sample.channels[static_cast<std::size_t>(c)] = static_cast<float>(channel.read(t));
    sample.present |= std::uint64_t{1} << c;
  }
  sample.num_bodies = std::min(sim_->num_rigid_bodies(), kMaxPlotBodies);
  for (int b = 0; b < sample.num_bodies; ++b) {
    const RigidBodySummary body = sim_->SummarizeRigidBody(b);
    for (int a = 0; a < 3; ++a) sample.force[b][a] = static_cast<float>(body.contact_force[a]);
  }
  sample.robot_warning = robot_warning_started_;
  robot_warning_started_ = false;
  sample.run = run_;
  sample.run_from = run_from_;
  telemetry_.Push(sample);
}

void SimController::PublishSnapshot() {
  if (!sim_) return;
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
  sim_->CaptureSnapshot(record_snapshot_, stress_wanted_.load(std::memory_order_relaxed) || sink_->wants_stress());
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
  const double time = sim_ ? sim_->time() : 0.0;
  pending_events_.push_back({kind, time, std::move(message), std::move(key)});
}

void SimController::StartDemoLog() {
  demo_log_ = {};
  demo_log_.scene = std::filesystem::absolute(scene_file_);
  demo_log_available_ = true;
  std::lock_guard<std::mutex> lock(mutex_);
  demo_log_.overrides = overrides_;
}

void SimController::RecordInput(DemoEvent event) {
  event.step = sim_->step_count();
  event.time = sim_->time();
  // A target that moves several times before a step: only the last one acts, so only it is kept; unless a state was
  // kept since the one before (at a pause), which a run resumed from it must find in the log as it was.
  const bool kept_since = !history_.empty() && history_.newest().demo_events == demo_log_.events.size();
  if (event.type == DemoEvent::Type::kTeleopTarget && !demo_log_.events.empty() && !kept_since) {
    DemoEvent& last = demo_log_.events.back();
    if (last.type == DemoEvent::Type::kTeleopTarget && last.step == event.step &&
        last.teleop.robot == event.teleop.robot && last.teleop.link == event.teleop.link) {
      last = std::move(event);
      return;
    }
  }
  demo_log_.events.push_back(std::move(event));
}

void SimController::NewRun(double from) {
  ++run_;
  run_from_ = from;
  robot_warnings_.DiscardAfter(from);  // all of them for a new run (from −infinity)
}

void SimController::RestartHistory() {
  history_.Clear();
  at_serial_ = 0;
  NewRun();
  KeepCurrentState();
}

void SimController::KeepCurrentState() {
  if (at_serial_ != 0) return;
  const std::vector<Override> overrides = this->overrides();
  at_serial_ = history_.Keep(sim_->state(), model_, overrides, demo_log_.events.size(), live_edits_).value_or(0);
}

void SimController::BranchFromPastState() {
  if (at_serial_ == 0 || at_serial_ == history_.last_serial()) return;
  const HistoryEntry* entry = history_.Nearest(at_serial_);
  demo_log_.events.resize(std::min(demo_log_.events.size(), entry->demo_events));
  history_.DiscardAfter(at_serial_);
  NewRun(sim_->time());
}

void SimController::Restore(const HistoryEntry& entry) {
  const auto same = [](const Override& a, const Override& b) { return a.path == b.path && a.value == b.value; };
  if (entry.model != model_ ||
      !std::equal(live_edits_.begin(), live_edits_.end(), entry.live_edits.begin(), entry.live_edits.end(), same)) {
    // The parameters of that state: its compiled model with its live edits applied again. Never refused, as they
    // were applied before to a model of the same structure.
    std::string refused = sim_->UpdateModel(entry.model);
    for (std::size_t i = 0; i < entry.live_edits.size() && refused.empty(); ++i)
      refused = sim_->SetParameter(entry.live_edits[i].path, entry.live_edits[i].value);
    if (!refused.empty()) {
      Emit(Event::Kind::kError,
           "cannot go back to the parameters of t = " + std::to_string(entry.state.time()) + " s: " + refused);
      return;
    }
    model_ = entry.model;
    live_edits_ = entry.live_edits;
  }
  sim_->SetState(entry.state);
  at_serial_ = entry.serial;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!std::equal(overrides_.begin(), overrides_.end(), entry.overrides.begin(), entry.overrides.end(), same)) {
    overrides_ = entry.overrides;
    ++overrides_restored_;
  }
}

void SimController::UpdateStatus() {
  ControllerStatus st;
  st.playing = playing_;
  st.speed = speed_;
  st.realtime_factor = measured_rtf_;
  st.demo_events = demo_log_.events.size();
  st.demo_log_available = demo_log_available_;
  st.run = run_;
  st.run_from = run_from_;
  st.overrides_restored = overrides_restored_;
  HistoryStatus& h = st.history;
  h.states = history_.size();
  h.first = history_.first_serial();
  h.last = history_.last_serial();
  h.shown = at_serial_;
  if (!history_.empty()) {
    h.oldest_time = history_.oldest().state.time();
    h.newest_time = history_.newest().state.time();
  }
  h.bytes = history_.bytes();
  h.limit = history_.limit();
  h.interval = history_.interval();
  h.automatic = history_.automatic_interval();
  h.scrub_request = scrub_request_;
  if (sim_) {
    st.time = sim_->time();
    st.step = sim_->step_count();
    for (const std::string& robot : scene_robots_) st.teleop.push_back({robot, sim_->GetTeleopStatus(robot)});
    if (!playing_) st.state_hash = sim_->StateHash();
  }
  for (const RobotWarning& w : robot_warnings_.warnings()) {
    char time[32];
    std::snprintf(time, sizeof time, "t = %.3f s: ", w.time);
    st.robot_warnings.push_back(time + DescribeRobotWarning(w));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  st.opening = std::move(status_.opening);
  status_ = std::move(st);
  // The events of what this status shows become visible with it, never before (a reader that saw "loaded the
  // state" read the status of before the load when events went out at once).
  for (Event& event : pending_events_) events_.push_back(std::move(event));
  pending_events_.clear();
}

}  // namespace ductile::studio
