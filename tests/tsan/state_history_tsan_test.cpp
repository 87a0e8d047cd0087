// The history of recent states (state_history.h) and the commands that use states, under ThreadSanitizer: the
// history's memory bound, numbering and automatic interval; scrubbing back through a SimController shows the state
// of that step exactly and a run resumed from it repeats the original bit for bit, with the demo log cut to match;
// a scrub brings back the live edits the state ran with, and a later edit leaves a kept state's model as it was; Save
// state and Load state round-trip through a file, and a file that cannot be written or used is refused with the reason
// and leaves the running state untouched; a scene opens on the simulation thread, and a bad one is refused with its
// error.
#include <gtest/gtest.h>

#include <unistd.h>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "sim_controller.h"
#include "state_history.h"
#include "tsan_test_support.h"

namespace ductile::studio {
namespace {

using tsan_test::ArmScene;
using tsan_test::kCubeAndBallScene;
using tsan_test::ReadText;
using tsan_test::Replay;
using tsan_test::WaitFor;

std::shared_ptr<const Model> Compile(const char* scene) {
  return std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "tsan.yaml")));
}

// A folder of its own for this process's files, removed at the end.
class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("ductile_history_" + std::to_string(getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// One paused step; the status after it.
ControllerStatus StepAndWait(SimController& controller) {
  const std::int64_t step = controller.status().step;
  controller.Post(command::Step{});
  EXPECT_TRUE(WaitFor([&] { return controller.status().step == step + 1; }));
  return controller.status();
}

// Waits for the first event with `key`, keeping the others out of the way.
Event WaitForEvent(SimController& controller, const std::string& key) {
  Event found;
  EXPECT_TRUE(WaitFor([&] {
    for (const Event& e : controller.DrainEvents())
      if (e.key == key && found.message.empty()) found = e;
    return !found.message.empty();
  })) << "no event "
      << key;
  return found;
}

void Scrub(SimController& controller, std::uint64_t serial, std::uint64_t request) {
  controller.Post(command::Scrub{serial, false, request});
  ASSERT_TRUE(WaitFor([&] { return controller.status().history.scrub_request == request; }));
}

// What one kept copy of `sim`'s state costs (a copy's vectors hold no spare capacity, so it may cost less than the
// state it copies).
std::size_t KeptBytes(const Simulator& sim, const std::shared_ptr<const Model>& model) {
  StateHistory probe;
  probe.SetLimit(std::size_t{1} << 40, 1);
  probe.Keep(sim.state(), model, {}, 0);
  return probe.newest().bytes;
}

TEST(StateHistory, KeepsTheNewestStatesWithinItsBoundNumberedWithoutGaps) {
  auto model = Compile(kCubeAndBallScene);
  Simulator sim(model, {1});
  sim.Step();  // the transfer cache of a state that has stepped: its size from now on
  const std::size_t bytes = KeptBytes(sim, model);
  ASSERT_GT(bytes, 1000u);
  StateHistory history;
  history.SetLimit(5 * bytes + bytes / 2, 1);  // room for about five
  std::map<std::uint64_t, std::uint64_t> hash_of_serial;
  for (std::uint64_t i = 1; i <= 12; ++i) {
    EXPECT_TRUE(history.Due(sim.step_count()));
    EXPECT_EQ(history.Keep(sim.state(), model, {}, 0), i);
    hash_of_serial[i] = sim.StateHash();
    EXPECT_LE(history.bytes(), history.limit());
    sim.Step();
  }
  // The newest ones, numbered without gaps.
  EXPECT_GE(history.size(), 4u);
  EXPECT_LE(history.size(), 6u);
  EXPECT_EQ(history.last_serial(), 12u);
  EXPECT_EQ(history.first_serial(), 12u - history.size() + 1);
  EXPECT_EQ(history.newest().state.step_count(), 12);
  EXPECT_EQ(history.oldest().state.step_count(), static_cast<std::int64_t>(13 - history.size()));
  // Out of range: the nearest end.
  EXPECT_EQ(history.Nearest(1)->serial, history.first_serial());
  EXPECT_EQ(history.Nearest(99)->serial, 12u);
  // Exact copies: the kept state of serial 10 is the state that was kept.
  Simulator replay(model, {1});
  replay.SetState(history.Nearest(10)->state);
  EXPECT_EQ(replay.StateHash(), hash_of_serial[10]);
  // Discarding after 10 numbers the next one 11.
  history.DiscardAfter(10);
  EXPECT_EQ(history.last_serial(), 10u);
  EXPECT_EQ(history.Keep(sim.state(), model, {}, 0), 11u);
  // A lower bound drops the oldest; a bound under one state keeps none.
  history.SetLimit(2 * bytes + bytes / 2, 1);
  EXPECT_LE(history.size(), 2u);
  EXPECT_EQ(history.last_serial(), 11u);
  history.SetLimit(bytes / 2, 1);
  EXPECT_TRUE(history.empty());
  EXPECT_FALSE(history.Keep(sim.state(), model, {}, 0).has_value());
}

TEST(StateHistory, TheAutomaticIntervalSpansTheTargetTimeWithTheFewestStepsApart) {
  auto model = Compile(kCubeAndBallScene);  // Δt = 2 ms
  Simulator sim(model, {1});
  sim.Step();
  const std::size_t bytes = KeptBytes(sim, model);
  StateHistory history;
  // Room for 100 states: 100 · k · 2 ms ≥ 5 s needs k ≥ 25, so 50 (of 1, 2, 5, 10, 20, 50, ...).
  history.SetLimit(100 * bytes + bytes / 2, 0);
  history.Keep(sim.state(), model, {}, 0);
  EXPECT_TRUE(history.automatic_interval());
  EXPECT_EQ(history.interval(), 50);
  EXPECT_FALSE(history.Due(50));  // the kept state is step 1
  EXPECT_TRUE(history.Due(51));
  // Room for 5000: every step spans 10 s.
  history.SetLimit(5000 * bytes, 0);
  EXPECT_EQ(history.interval(), 1);
  history.SetLimit(5000 * bytes, 10);
  EXPECT_EQ(history.interval(), 10);
  EXPECT_FALSE(history.automatic_interval());
}

// Steps 40 times, scrubs back to step 25 (the viewport's snapshot and the state hash are those of step 25), steps on
// from there (the same hashes as the first time) and checks that the later states were discarded, that a scrub from
// the newest goes back from the newest, and that the demo log, cut at step 25, replays to the end.
TEST(SimControllerHistory, ScrubbingBackAndResumingRepeatsTheRunExactly) {
  auto model = Compile(kCubeAndBallScene);
  SimController controller(model, kCubeAndBallScene, "tsan.yaml", {}, 1);
  controller.Post(command::SetHistoryLimit{std::size_t{256} << 20, 1});
  std::map<std::int64_t, std::uint64_t> hash;
  std::map<std::int64_t, double> time;
  std::map<std::int64_t, std::uint64_t> serial;
  for (int i = 0; i < 40; ++i) {
    if (i == 20) controller.Post(command::Gripper{{"nobody", 1, 0}});  // refused: not logged, not a change
    const ControllerStatus st = StepAndWait(controller);
    ASSERT_TRUE(st.state_hash.has_value());
    hash[st.step] = *st.state_hash;
    time[st.step] = st.time;
    serial[st.step] = st.history.shown;
    ASSERT_EQ(st.history.shown, st.history.last) << "a single step keeps its state";
  }
  ASSERT_EQ(controller.status().history.states, 41u);  // t = 0 and every step
  const std::uint64_t run = controller.status().run;
  Scrub(controller, serial[25], 1);
  ControllerStatus st = controller.status();
  EXPECT_EQ(st.step, 25);
  EXPECT_EQ(st.time, time[25]);
  EXPECT_EQ(st.state_hash, hash[25]);
  EXPECT_EQ(st.history.shown, serial[25]);
  EXPECT_EQ(st.history.last, serial[40]);     // the later states are kept until the run changes
  ASSERT_TRUE(controller.AcquireSnapshot());  // published by the scrub, before its status
  EXPECT_EQ(controller.snapshot().step, 25);
  EXPECT_EQ(controller.snapshot().time, time[25]);
  EXPECT_EQ(st.run, run);
  for (std::int64_t step = 26; step <= 30; ++step) {
    st = StepAndWait(controller);
    EXPECT_EQ(st.state_hash, hash[step]) << "step " << step;
    EXPECT_EQ(st.time, time[step]);
  }
  EXPECT_EQ(st.history.last, serial[30]) << "the states after step 25 were discarded and numbered again";
  EXPECT_EQ(st.run, run + 1);
  EXPECT_EQ(st.run_from, time[25]);
  // Two back from the newest (step 30): step 28.
  controller.Post(command::Scrub{2, true, 2});
  ASSERT_TRUE(WaitFor([&] { return controller.status().history.scrub_request == 2; }));
  EXPECT_EQ(controller.status().step, 28);
  EXPECT_EQ(controller.status().state_hash, hash[28]);
  const DemoLog log = controller.CaptureDemoLog();
  EXPECT_EQ(log.steps, 28);
  EXPECT_TRUE(log.events.empty());
}

// Step 10, edit the friction, step 10 more, then scrub back to step 5: the edit is undone with the state (the
// overrides and the inspector's count say so); resuming from there drops the edit from the demo log, which then
// replays to the controller's hash.
TEST(SimControllerHistory, ScrubbingBackBringsBackTheParametersOfThatState) {
  TempDir dir;
  const std::filesystem::path file = dir / "scene.yaml";
  std::ofstream(file) << kCubeAndBallScene;
  auto model = std::make_shared<const Model>(CompileModel(LoadScene(file)));
  SimController controller(model, kCubeAndBallScene, file, {}, 1);
  std::map<std::int64_t, std::uint64_t> serial;
  for (int i = 0; i < 10; ++i) {
    const ControllerStatus st = StepAndWait(controller);
    serial[st.step] = st.history.shown;
  }
  controller.Post(command::SetOverride{"contact.friction", "0.1"});
  EXPECT_EQ(WaitForEvent(controller, "contact.friction").kind, Event::Kind::kInfo);
  for (int i = 0; i < 10; ++i) StepAndWait(controller);
  ASSERT_EQ(controller.overrides().size(), 1u);
  ASSERT_EQ(controller.CaptureDemoLog().events.size(), 1u);
  const std::uint64_t restored = controller.status().overrides_restored;
  Scrub(controller, serial[5], 1);
  EXPECT_TRUE(controller.overrides().empty());
  EXPECT_EQ(controller.status().overrides_restored, restored + 1);
  for (int i = 0; i < 10; ++i) StepAndWait(controller);
  const DemoLog log = controller.CaptureDemoLog();
  EXPECT_TRUE(log.events.empty()) << "the edit came after step 5";
  EXPECT_EQ(log.steps, 15);
  Simulator replay(std::make_shared<const Model>(CompileModel(LoadScene(log.scene, log.overrides))), {1});
  for (std::int64_t i = 0; i < log.steps; ++i) replay.Step();
  EXPECT_EQ(replay.StateHash(), *log.final_state_hash);
}

// Live edits patch the running model in place (Simulator::SetParameter), and a state kept in the history keeps the
// parameters it ran with (the compiled model and the live edits since): gravity -9.81 for steps 1-5, -5 for 6-10
// (the state at step 10 kept), -2 for 11-15. Back at step 10, five more steps run with -5 again, bitwise as a
// Simulator edited at the same steps; had the second edit patched the model kept with step 10, or the scrub not
// applied the first edit again, they would have run with -2 or -9.81.
TEST(SimControllerHistory, ALiveEditLeavesTheModelOfAKeptStateAsItWas) {
  auto model = Compile(kCubeAndBallScene);
  SimController controller(model, kCubeAndBallScene, "tsan.yaml", {}, 1);
  controller.Post(command::SetHistoryLimit{std::size_t{256} << 20, 1});
  const auto edit = [&](const char* value) {
    controller.Post(command::SetOverride{"simulation.gravity.2", value});
    EXPECT_EQ(WaitForEvent(controller, "simulation.gravity.2").kind, Event::Kind::kInfo);
  };
  for (int i = 0; i < 5; ++i) StepAndWait(controller);
  edit("-5");
  std::uint64_t at_10 = 0;
  for (int i = 0; i < 5; ++i) at_10 = StepAndWait(controller).history.shown;
  edit("-2");
  std::optional<std::uint64_t> edited_hash;
  for (int i = 0; i < 5; ++i) edited_hash = StepAndWait(controller).state_hash;
  Scrub(controller, at_10, 1);
  ASSERT_EQ(controller.status().step, 10);
  std::optional<std::uint64_t> hash;
  for (int i = 0; i < 5; ++i) hash = StepAndWait(controller).state_hash;

  Simulator reference(model, {1});
  for (int i = 0; i < 5; ++i) reference.Step();
  ASSERT_EQ(reference.SetParameter("simulation.gravity.2", "-5"), "");
  for (int i = 0; i < 10; ++i) reference.Step();
  ASSERT_TRUE(hash.has_value());
  EXPECT_EQ(*hash, reference.StateHash());
  EXPECT_NE(hash, edited_hash) << "the run with -2 ends elsewhere, so the comparison can tell them apart";
  EXPECT_EQ(model->gravity[2], -9.81f) << "the opened model is never patched";
}

// Paused, a teleop target, a pause (which keeps the state with it), a second target of the same step, three steps;
// back to the paused state and three steps from it: the demo log has the first target, the one that state ran with,
// and replays to the controller's hash. (Two targets of one step are one entry of the log, the last, unless a state
// was kept between them.)
TEST(SimControllerHistory, AResumedRunsDemoLogHasTheInputsItsStateRanWith) {
  const std::filesystem::path file = ArmScene();
  SimController controller(std::make_shared<const Model>(CompileModel(LoadScene(file))), ReadText(file), file, {}, 1);
  ASSERT_TRUE(controller.AcquireSnapshot());
  TeleopTarget target;
  target.robot = "arm";
  target.link = "gripper_tcp";
  for (const SnapshotBody& b : controller.snapshot().bodies) {
    if (b.name != "arm/gripper_tcp") continue;
    for (int a = 0; a < 3; ++a) target.position[a] = b.position[a];
    for (int a = 0; a < 4; ++a) target.quaternion[a] = b.quaternion[a];
  }
  for (int i = 0; i < 3; ++i) StepAndWait(controller);
  target.position[2] -= 0.03;
  controller.Post(command::Teleop{target});
  controller.Post(command::Pause{});
  // The teleoperation command is taken (one demo event), then the pause keeps the state (shown is set again): the
  // status between the two has shown = 0.
  ASSERT_TRUE(WaitFor([&] {
    const auto status = controller.status();
    return status.demo_events == 1 && status.history.shown != 0;
  }));
  const std::uint64_t paused = controller.status().history.shown;
  ASSERT_EQ(paused, controller.status().history.last) << "the pause kept the state with the first target";
  target.position[1] += 0.05;
  controller.Post(command::Teleop{target});
  for (int i = 0; i < 3; ++i) StepAndWait(controller);
  ASSERT_EQ(controller.CaptureDemoLog().events.size(), 2u);
  Scrub(controller, paused, 1);
  for (int i = 0; i < 3; ++i) StepAndWait(controller);
  const DemoLog log = controller.CaptureDemoLog();
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].teleop.position[1], target.position[1] - 0.05);
  EXPECT_EQ(log.steps, 6);
  EXPECT_EQ(Replay(log, true), *log.final_state_hash);
}

TEST(SimControllerStates, SaveAndLoadRoundTripThroughAFile) {
  TempDir dir;
  auto model = Compile(kCubeAndBallScene);
  SimController controller(model, kCubeAndBallScene, "tsan.yaml", {}, 1);
  for (int i = 0; i < 12; ++i) StepAndWait(controller);
  const ControllerStatus saved = controller.status();
  const std::filesystem::path file = dir / "t.state";
  controller.Post(command::SaveState{file});
  const Event written = WaitForEvent(controller, kSaveStateKey);
  EXPECT_EQ(written.kind, Event::Kind::kInfo) << written.message;
  EXPECT_NE(written.message.find(file.string()), std::string::npos) << written.message;
  EXPECT_TRUE(std::filesystem::exists(file));
  controller.Post(command::Play{});
  ASSERT_TRUE(WaitFor([&] { return controller.status().step >= 40; }));
  controller.Post(command::LoadState{file});
  const Event loaded = WaitForEvent(controller, kLoadStateKey);
  EXPECT_EQ(loaded.kind, Event::Kind::kInfo) << loaded.message;
  const ControllerStatus st = controller.status();
  EXPECT_FALSE(st.playing) << "a loaded state pauses";
  EXPECT_EQ(st.step, saved.step);
  EXPECT_EQ(st.time, saved.time);
  EXPECT_EQ(st.state_hash, saved.state_hash);
  EXPECT_EQ(st.history.states, 1u) << "a new history starts at the loaded state";
  EXPECT_GT(st.run, saved.run);
  EXPECT_FALSE(st.demo_log_available);
  EXPECT_THROW(controller.CaptureDemoLog(), std::runtime_error);
  controller.Post(command::Reset{});
  EXPECT_EQ(controller.CaptureDemoLog().steps, 0) << "a reset starts a new log";
}

TEST(SimControllerStates, UnusableFilesAreRefusedWithTheReasonAndChangeNothing) {
  TempDir dir;
  auto model = Compile(kCubeAndBallScene);
  SimController controller(model, kCubeAndBallScene, "tsan.yaml", {}, 1);
  for (int i = 0; i < 5; ++i) StepAndWait(controller);
  const ControllerStatus before = controller.status();
  // A folder that does not exist.
  const std::filesystem::path unwritable = dir / "no_such_folder" / "t.state";
  controller.Post(command::SaveState{unwritable});
  Event e = WaitForEvent(controller, kSaveStateKey);
  EXPECT_EQ(e.kind, Event::Kind::kError);
  EXPECT_NE(e.message.find(unwritable.string()), std::string::npos) << e.message;
  // A missing file, a file of other bytes, a truncated state, another scene's state.
  // Eight particles per cell instead of one: another scene.
  Simulator other(std::make_shared<const Model>(CompileModel(LoadSceneFromString(
                      kCubeAndBallScene, "other.yaml", {ParseOverride("objects.cube.particles_per_cell=8")}))),
                  {1});
  other.SaveStateFile((dir / "other.state").string());
  controller.Post(command::SaveState{dir / "good.state"});
  ASSERT_EQ(WaitForEvent(controller, kSaveStateKey).kind, Event::Kind::kInfo);
  const std::uintmax_t size = std::filesystem::file_size(dir / "good.state");
  std::filesystem::copy_file(dir / "good.state", dir / "short.state");
  std::filesystem::resize_file(dir / "short.state", size / 2);
  std::ofstream(dir / "text.state") << "not a state\n";
  const std::vector<std::pair<std::string, std::string>> cases = {{"missing.state", "missing.state"},
                                                                  {"text.state", "text.state"},
                                                                  {"short.state", "short.state"},
                                                                  {"other.state", "another scene"}};
  for (const auto& [name, reason] : cases) {
    controller.Post(command::LoadState{dir / name});
    e = WaitForEvent(controller, kLoadStateKey);
    EXPECT_EQ(e.kind, Event::Kind::kError) << name;
    EXPECT_NE(e.message.find(reason), std::string::npos) << e.message;
    const ControllerStatus st = controller.status();
    EXPECT_EQ(st.step, before.step) << name;
    EXPECT_EQ(st.state_hash, before.state_hash) << name;
    EXPECT_TRUE(st.demo_log_available) << name;
  }
}

TEST(SimControllerScenes, ScenesOpenOnTheSimulationThreadAndBadOnesAreRefused) {
  TempDir dir;
  std::ofstream(dir / "good.yaml") << kCubeAndBallScene;
  std::ofstream(dir / "bad.yaml") << "simulation: {dt: 2.0e-3, substeps: 2}\nmaterials:\n  rubber: {modle: x}\n";
  SimController controller(1);
  EXPECT_EQ(controller.scene(), nullptr);
  EXPECT_THROW(controller.CaptureDemoLog(), std::runtime_error);
  controller.Post(command::Play{});  // nothing to play
  controller.Post(command::OpenScene{dir / "bad.yaml"});
  const Event bad = WaitForEvent(controller, kSceneKey);
  EXPECT_EQ(bad.kind, Event::Kind::kError);
  EXPECT_NE(bad.message.find("bad.yaml:3:"), std::string::npos) << bad.message;
  EXPECT_EQ(controller.scene(), nullptr);
  controller.Post(command::OpenScene{dir / "good.yaml"});
  controller.Post(command::Step{});
  ASSERT_TRUE(WaitFor([&] { return controller.status().step == 1; }));
  const std::shared_ptr<const OpenedScene> opened = controller.scene();
  ASSERT_NE(opened, nullptr);
  EXPECT_EQ(opened->generation, 1u);
  EXPECT_EQ(opened->bodies, std::vector<std::string>{"ball"});
  EXPECT_GT(opened->num_particles, 0);
  EXPECT_FALSE(controller.status().playing);
  // A bad scene now keeps the open one.
  controller.Post(command::OpenScene{dir / "missing.yaml"});
  EXPECT_NE(WaitForEvent(controller, kSceneKey).message.find("missing.yaml"), std::string::npos);
  EXPECT_EQ(controller.scene()->generation, 1u);
  EXPECT_EQ(controller.status().step, 1);
}

}  // namespace
}  // namespace ductile::studio
