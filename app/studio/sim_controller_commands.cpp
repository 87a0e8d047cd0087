// SimController's commands (commands.h), one Apply per kind, as the simulation thread applies them between steps.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "ductile/parameters.h"
#include "sim_controller.h"

namespace ductile::studio {
namespace {

std::string Seconds(double t) {
  std::ostringstream out;
  out.precision(4);
  out << std::fixed << t;
  return out.str();
}

// The scene file's text; throws SceneError naming the path when it cannot be read.
std::string ReadSceneText(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SceneError(file.string(), 0, 0, file.string() + ": cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void SimController::Dispatch(const Command& command) {
  if (!sim_ && !std::holds_alternative<command::OpenScene>(command) &&
      !std::holds_alternative<command::SetSpeed>(command) &&
      !std::holds_alternative<command::SetHistoryLimit>(command)) {
    IgnoreWithoutScene(command);
    return;
  }
  std::visit([this](const auto& c) { Apply(c); }, command);
}

void SimController::IgnoreWithoutScene(const Command& command) {
  if (const auto* c = std::get_if<command::CaptureDemoLog>(&command); c && c->log)
    c->log->set_exception(std::make_exception_ptr(std::runtime_error("no scene is open")));
  if (const auto* c = std::get_if<command::StartRecording>(&command); c && c->sink) c->sink->Finish(0);
  if (std::holds_alternative<command::SaveState>(command))
    Emit(Event::Kind::kError, "cannot save the state: no scene is open", kSaveStateKey);
  if (std::holds_alternative<command::LoadState>(command))
    Emit(Event::Kind::kError, "cannot load the state: no scene is open", kLoadStateKey);
}

void SimController::Apply(const command::Play&) {
  BranchFromPastState();
  playing_ = true;
}

void SimController::Apply(const command::Pause&) {
  playing_ = false;
  last_step_end_ = {};
  KeepCurrentState();  // so that scrubbing back and forth comes back to it
  PublishSnapshot();   // the state it stopped at, if the last step's snapshot was skipped
}

void SimController::Apply(const command::Step&) {
  if (playing_) return;
  BranchFromPastState();
  StepOnce();
}

void SimController::Apply(const command::Reset&) {
  EndRecording();  // its frames would go back in time
  sim_->Reset();
  StartDemoLog();
  rtf_window_.clear();
  last_step_end_ = {};
  measured_rtf_ = 0;
  RestartHistory();
  PublishSnapshot();
  Emit(Event::Kind::kInfo, "reset to t = 0");
}

void SimController::Apply(const command::SetSpeed& c) {
  speed_ = std::clamp(c.fraction, 0.01, 1.0);
}

void SimController::Apply(const command::SetOverride& c) {
  std::vector<Override> overrides = this->overrides();
  Override edit;
  const std::string what = c.key + " = " + c.value;
  bool live = false;
  std::shared_ptr<const Model> model;  // the recompiled model, for a key that is not live
  try {
    edit = ParseOverride(c.key + "=" + c.value);
    SetOverride(overrides, edit);
    const std::optional<ParameterKey> row = MatchParameter(edit.path);
    live = row && row->info->apply == ParameterApply::kLive;
    // A live key patches the running model in place (Simulator::SetParameter: no parse, no sampling); any other
    // goes through the scene with the edit among its overrides, which UpdateModel takes only if the structure stays.
    if (!live)
      model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene_text_, scene_file_, overrides)));
  } catch (const std::exception& e) {
    Emit(Event::Kind::kError, what + " refused: " + e.what(), c.key);
    return;
  }
  // A bad value is an error; a key that SetParameter cannot take (it changes the model's structure) only a warning.
  if (live && sim_->model().scene) {
    std::string bad = CheckParameter(*sim_->model().scene, edit.path, edit.value);
    if (const std::string prefix = edit.path + " = " + edit.value + ": "; bad.rfind(prefix, 0) == 0)
      bad.erase(0, prefix.size());
    if (!bad.empty()) {
      Emit(Event::Kind::kError, what + " refused: " + bad, c.key);
      return;
    }
  }
  std::vector<std::string> later;  // what the model changes that acts only at the next reset or reload
  const std::string refused = live ? sim_->SetParameter(edit.path, edit.value) : sim_->UpdateModel(model, &later);
  if (!refused.empty()) {
    Emit(Event::Kind::kWarning, what + " not applied: " + refused, c.key);
    return;
  }
  for (const std::string& line : later) {
    std::string message = what;
    message.append(": ").append(line);
    Emit(Event::Kind::kInfo, message, c.key);
  }
  BranchFromPastState();
  if (live) {
    // Consecutive edits of one key (a value typed over and over) keep only the last.
    if (!live_edits_.empty() && live_edits_.back().path == edit.path) live_edits_.pop_back();
    live_edits_.push_back(edit);
  } else {
    model_ = std::move(model);  // compiled with every override in force, the live edits' too
    live_edits_.clear();
  }
  at_serial_ = 0;  // the kept state ran with other parameters
  {
    std::lock_guard<std::mutex> lock(mutex_);
    overrides_ = std::move(overrides);
  }
  DemoEvent applied;
  applied.type = DemoEvent::Type::kSet;
  applied.set = edit;
  RecordInput(std::move(applied));
  PublishSnapshot();
  Emit(Event::Kind::kInfo, what + " applied at t = " + std::to_string(sim_->time()) + " s", c.key);
}

void SimController::Apply(const command::Perturb& c) {
  DemoEvent e;
  e.type = DemoEvent::Type::kPerturb;
  e.perturbation = c.perturbation;
  ApplyInput(std::move(e), "mouse spring", "");
  PublishSnapshot();  // the spring is drawn at once, also while paused
}

void SimController::Apply(const command::StartRecording& c) {
  EndRecording();
  if (!c.sink) return;
  sink_ = c.sink;
  record_start_ = sim_->time();
  record_fps_ = sink_->fps();
  record_frames_ = 0;
  if (!(record_fps_ > 0)) {  // no frame would ever be due
    EndRecording();
    return;
  }
  WriteDueFrames();  // frame 0: the state now
}

void SimController::Apply(const command::StopRecording&) {
  EndRecording();
}

void SimController::Apply(const command::Teleop& c) {
  DemoEvent e;
  e.type = DemoEvent::Type::kTeleopTarget;
  e.teleop = c.target;
  ApplyInput(std::move(e), "teleoperation", kTeleopKey);
}

void SimController::Apply(const command::TeleopClear& c) {
  DemoEvent e;
  e.type = DemoEvent::Type::kTeleopClear;
  e.teleop.robot = c.robot;
  ApplyInput(std::move(e), "teleoperation", kTeleopKey);
}

void SimController::Apply(const command::Gripper& c) {
  DemoEvent e;
  e.type = DemoEvent::Type::kGripper;
  e.gripper = c.command;
  ApplyInput(std::move(e), "gripper command", kGripperKey);
}

void SimController::ApplyInput(DemoEvent event, const char* what, const char* key) {
  // The replay's own way of applying an input, so that what the log says is what was done.
  std::vector<Override> no_edits;  // only live edits (kSet, not applied here) use them
  if (std::string refused = ApplyDemoEvent(*sim_, event, scene_text_, scene_file_, no_edits); !refused.empty()) {
    Emit(Event::Kind::kWarning, std::string(what) + " refused: " + refused, key);
    return;
  }
  BranchFromPastState();
  at_serial_ = 0;  // the state has the input now
  RecordInput(std::move(event));
}

void SimController::Apply(const command::CaptureDemoLog& c) {
  if (!c.log) return;
  if (!demo_log_available_) {
    c.log->set_exception(std::make_exception_ptr(std::runtime_error(
        "a state was loaded since the last reset, and a demo log replays from t = 0, which cannot reach it: reset "
        "to start a new log")));
    return;
  }
  DemoLog log = demo_log_;
  log.steps = sim_->step_count();
  log.final_state_hash = sim_->StateHash();
  log.blas_kernels = BlasKernels();
  c.log->set_value(std::move(log));
}

void SimController::Apply(const command::SaveState& c) {
  try {
    sim_->SaveStateFile(c.file.string());
  } catch (const std::exception& e) {
    Emit(Event::Kind::kError, std::string("cannot save the state: ") + e.what(), kSaveStateKey);
    return;
  }
  Emit(Event::Kind::kInfo,
       "saved the state at t = " + Seconds(sim_->time()) + " s (step " + std::to_string(sim_->step_count()) + ") to " +
           c.file.string(),
       kSaveStateKey);
}

void SimController::Apply(const command::LoadState& c) {
  try {
    sim_->LoadStateFile(c.file.string());  // leaves the state as it was when it throws
  } catch (const std::exception& e) {
    Emit(Event::Kind::kError, std::string("cannot load the state: ") + e.what(), kLoadStateKey);
    return;
  }
  EndRecording();  // its frames would jump in time
  playing_ = false;
  last_step_end_ = {};
  rtf_window_.clear();
  measured_rtf_ = 0;
  demo_log_available_ = false;
  RestartHistory();
  PublishSnapshot();
  Emit(Event::Kind::kInfo,
       "loaded the state of " + c.file.string() + ": t = " + Seconds(sim_->time()) + " s, step " +
           std::to_string(sim_->step_count()) +
           "; paused. The demo log cannot be saved until a reset (it replays from t = 0)",
       kLoadStateKey);
}

void SimController::Apply(const command::Scrub& c) {
  playing_ = false;
  last_step_end_ = {};
  KeepCurrentState();  // so that scrubbing forward comes back to it
  scrub_request_ = std::max(scrub_request_, c.request);
  const std::uint64_t last = history_.last_serial();
  const HistoryEntry* entry = history_.Nearest(c.from_newest ? (c.serial < last ? last - c.serial : 0) : c.serial);
  if (entry == nullptr) return;
  if (entry->serial != at_serial_) {
    EndRecording();  // its frames would go back in time
    Restore(*entry);
  }
  PublishSnapshot();
}

void SimController::Apply(const command::SetHistoryLimit& c) {
  history_.SetLimit(c.bytes, c.interval);
  if (at_serial_ != 0 && (history_.empty() || at_serial_ < history_.first_serial())) at_serial_ = 0;
}

void SimController::Apply(const command::OpenScene& c) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_.opening = c.file;
  }
  std::unique_ptr<Simulator> sim;
  std::shared_ptr<const Model> model;
  std::string text;
  SceneDesc scene;
  try {
    text = ReadSceneText(c.file);
    scene = LoadSceneFromString(text, c.file);
    // Compiling samples the particles in parallel: on all cores but one, so that the UI thread, which may run at a
    // low priority beside the simulation (cpu_placement.h), keeps a core while a large scene compiles.
    tbb::task_arena arena(std::max(1, tbb::info::default_concurrency() - 1));
    arena.execute([&] { model = std::make_shared<const Model>(CompileModel(scene)); });
    sim = std::make_unique<Simulator>(model, SimulatorOptions{threads_});
  } catch (const std::exception& e) {
    Emit(Event::Kind::kError, e.what(), kSceneKey);
  }
  if (sim) UseScene(std::move(sim), std::move(model), std::move(text), c.file, std::move(scene), {});
  std::lock_guard<std::mutex> lock(mutex_);
  status_.opening.clear();
}

}  // namespace ductile::studio
