// SimController under ThreadSanitizer: the UI side (this thread) posts every kind of command and reads
// snapshots, telemetry, events and status while the simulation thread steps. The controller's own code is
// instrumented (the engine is not), so a data race in its protocol (triple buffer, telemetry ring, command queue,
// status, demo log) is reported and the process exits non-zero. Teleoperation commands posted while the simulation
// plays are recorded in a demo log that replays to the same final state.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "../physics/arm_scene.h"
#include "ductile/model.h"
#include "ductile/scene.h"
#include "sim_controller.h"
#include "tsan_test_support.h"

namespace ductile::studio {
namespace {

using tsan_test::ArmScene;
using tsan_test::kCubeAndBallScene;
using tsan_test::ReadText;
using tsan_test::Replay;
using tsan_test::WaitFor;

TEST(SimControllerTsan, UiAndSimulationThreadsShareNothingUnsynchronised) {
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kCubeAndBallScene, "tsan.yaml")));
  SimController controller(model, kCubeAndBallScene, "tsan.yaml", {}, 1);
  controller.Post(command::Play{});
  std::vector<TelemetrySample> telemetry;
  std::size_t snapshots = 0, events = 0, particles = 0;
  bool edited = false;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; std::chrono::steady_clock::now() - start < std::chrono::seconds(2); ++i) {
    if (controller.AcquireSnapshot()) {
      ++snapshots;
      particles = controller.snapshot().particles.position.size();
      for (const auto& p : controller.snapshot().particles.position) ASSERT_TRUE(std::isfinite(p[2]));
    }
    controller.DrainTelemetry(telemetry);
    for (const Event& e : controller.DrainEvents()) {
      ++events;
      edited |= e.message.find("applied") != std::string::npos;
    }
    const ControllerStatus st = controller.status();
    ASSERT_GE(st.time, 0.0);
    switch (i % 50) {
      case 5:
        controller.Post(command::SetSpeed{0.5});
        break;
      case 10:
        controller.Post(command::SetSpeed{1.0});
        break;
      case 15: {
        controller.Post(command::SetOverride{"materials.rubber.youngs_modulus", i % 100 == 15 ? "2e4" : "1e4"});
        break;
      }
      case 20:
        controller.Post(command::Pause{});
        break;
      case 25:
        controller.Post(command::Step{});
        break;
      case 30:
        controller.Post(command::Play{});
        break;
      case 45:
        if (i % 500 == 45) controller.Post(command::Reset{});
        break;
      default:
        break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_GT(snapshots, 10u);
  EXPECT_GT(telemetry.size(), 10u);
  EXPECT_GT(events, 0u);
  EXPECT_TRUE(edited);
  EXPECT_EQ(particles, static_cast<std::size_t>(model->num_particles));
  // The destructor stops and joins the simulation thread while it may be mid-step.
}

TEST(SimControllerTsan, DivergencePausesWithAMessageNamingWhere) {
  // Far too few substeps for a stiff material: the first steps blow up.
  const std::string scene = R"(
simulation: {dt: 1.0e-2, substeps: 1, gravity: [0, 0, -9.81]}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}}
materials:
  steelish: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}
objects:
  cube: {material: steelish, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.1]},
         velocity: [0, 0, -1]}
)";
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "diverge.yaml")));
  SimController controller(model, scene, "diverge.yaml", {}, 1);
  controller.Post(command::Play{});
  std::string message;
  const auto start = std::chrono::steady_clock::now();
  while (message.empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    for (const Event& e : controller.DrainEvents())
      if (e.kind == Event::Kind::kError) message = e.message;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_NE(message.find("diverged"), std::string::npos) << message;
  EXPECT_NE(message.find("object 'cube'"), std::string::npos) << message;
  EXPECT_NE(message.find("paused"), std::string::npos) << message;
  // It stays paused: the step count no longer moves.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const ControllerStatus st = controller.status();
  EXPECT_FALSE(st.playing);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(controller.status().step, st.step);
}

TEST(SimControllerTsan, MalformedEditsAreRefusedWithTheReason) {
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kCubeAndBallScene, "tsan.yaml")));
  SimController controller(model, kCubeAndBallScene, "tsan.yaml", {}, 1);
  const auto edit = [&](const std::string& key, const std::string& text) {
    controller.Post(command::SetOverride{key, text});
  };
  edit("materials..youngs_modulus", "1e4");          // not a dotted key
  edit("materials.rubber.youngs_modulus", "[1, 2");  // not YAML
  edit("materials.rubber.youngs_modulus", "-5");     // out of range
  edit("objects.cube.particles_per_cell", "27");     // structural: needs a reset
  std::vector<Event> events;
  const auto start = std::chrono::steady_clock::now();
  while (events.size() < 4 && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    for (Event& e : controller.DrainEvents()) events.push_back(std::move(e));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(events.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(events[i].kind, Event::Kind::kError) << events[i].message;
    EXPECT_NE(events[i].message.find("refused"), std::string::npos) << events[i].message;
  }
  EXPECT_NE(events[2].message.find("'youngs_modulus' must be > 0"), std::string::npos) << events[2].message;
  EXPECT_EQ(events[3].kind, Event::Kind::kWarning);
  EXPECT_NE(events[3].message.find("reset to apply"), std::string::npos) << events[3].message;
  // None took effect; the simulation still runs.
  EXPECT_TRUE(controller.overrides().empty());
  controller.Post(command::Step{});
  const auto t0 = std::chrono::steady_clock::now();
  while (controller.status().step < 1 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(controller.status().step, 1);
}

// While the simulation plays, this thread moves a teleoperation target on a circle, opens and squeezes the gripper,
// makes a live edit, sends a refused target, ends the teleoperation and reads the status and the demo log; the log
// captured after pausing has every applied input and replays to the controller's final state hash (and without
// its events to another one: they mattered).
TEST(SimControllerTsan, TeleopCommandsRecordADemoLogThatReplaysToTheSameState) {
  const std::filesystem::path file = ArmScene();
  const std::string text = ReadText(file);
  auto model = std::make_shared<const Model>(CompileModel(LoadScene(file)));
  SimController controller(model, text, file, {}, 1);
  ASSERT_EQ(controller.robots(), std::vector<std::string>{"arm"});
  // The tool's pose from the initial snapshot, as the teleop dock takes it.
  ASSERT_TRUE(controller.AcquireSnapshot());
  TeleopTarget target;
  target.robot = "arm";
  target.link = "gripper_tcp";
  std::array<double, 3> p0{};
  for (const SnapshotBody& b : controller.snapshot().bodies) {
    if (b.name != "arm/gripper_tcp") continue;
    for (int a = 0; a < 3; ++a) p0[a] = b.position[a];
    for (int a = 0; a < 4; ++a) target.quaternion[a] = b.quaternion[a];
  }
  ASSERT_GT(p0[2], 0.1);
  controller.Post(command::Play{});
  const auto start = std::chrono::steady_clock::now();
  double worst_ik = 0;
  int refused = 0;
  // 1.5 s, and at least the 121 turns that post the second gripper command and the 51 steps checked below (a loaded
  // machine, or an engine built with ThreadSanitizer too, takes longer).
  const auto going = [&](int i) {
    return std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1500) || i <= 120 ||
           controller.status().step <= 50;
  };
  for (int i = 0; going(i); ++i) {
    const double a = 0.02 * i;
    target.position = {p0[0], p0[1] + 0.05 * std::sin(a), p0[2] + 0.05 * (std::cos(a) - 1)};
    controller.Post(command::Teleop{target});
    if (i == 20 || i == 120) controller.Post(command::Gripper{{"arm", i == 20 ? 1.0 : 0.0, i == 20 ? 0.0 : 15.0}});
    if (i == 60) {
      controller.Post(command::SetOverride{"contact.friction", "0.5"});
      TeleopTarget bad = target;
      bad.link = "no_such_link";
      controller.Post(command::Teleop{bad});
    }
    if (i % 40 == 30) {
      const DemoLog so_far = controller.CaptureDemoLog();  // one step boundary's count, never ahead of the status
      EXPECT_LE(so_far.steps, controller.status().step);
    }
    const ControllerStatus st = controller.status();
    ASSERT_EQ(st.teleop.size(), 1u);
    if (st.teleop[0].status.active) worst_ik = std::max(worst_ik, st.teleop[0].status.ik_position);
    for (const Event& e : controller.DrainEvents()) {
      if (e.key != kTeleopKey) continue;
      ++refused;
      EXPECT_EQ(e.kind, Event::Kind::kWarning);
      EXPECT_NE(e.message.find("has no link 'no_such_link'"), std::string::npos) << e.message;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
  }
  controller.Post(command::TeleopClear{"arm"});
  controller.Post(command::Pause{});
  ASSERT_TRUE(WaitFor([&] { return !controller.status().playing; }));
  for (const Event& e : controller.DrainEvents()) refused += e.key == kTeleopKey;
  EXPECT_EQ(refused, 1);
  EXPECT_LT(worst_ik, 1e-3);  // targets within a few centimetres of the start are within reach
  EXPECT_FALSE(controller.status().teleop[0].status.active);

  const DemoLog log = controller.CaptureDemoLog();
  EXPECT_EQ(log.scene, std::filesystem::absolute(file));
  EXPECT_TRUE(log.overrides.empty());
  EXPECT_EQ(log.steps, controller.status().step);
  ASSERT_TRUE(log.final_state_hash.has_value());
  ASSERT_GT(log.steps, 50) << "the simulation played";
  int targets = 0, grips = 0, clears = 0, sets = 0;
  for (std::size_t i = 0; i < log.events.size(); ++i) {
    const DemoEvent& e = log.events[i];
    if (i > 0) {
      EXPECT_GE(e.step, log.events[i - 1].step);
    }
    targets += e.type == DemoEvent::Type::kTeleopTarget;
    grips += e.type == DemoEvent::Type::kGripper;
    clears += e.type == DemoEvent::Type::kTeleopClear;
    sets += e.type == DemoEvent::Type::kSet;
    if (e.type == DemoEvent::Type::kTeleopTarget) {
      EXPECT_EQ(e.teleop.link, "gripper_tcp");
    }
  }
  std::printf("demo log: %d targets, %d gripper commands over %lld steps; worst IK residual %.3g m\n", targets, grips,
              static_cast<long long>(log.steps), worst_ik);
  EXPECT_GT(targets, 20);
  EXPECT_EQ(grips, 2);
  EXPECT_EQ(clears, 1);
  EXPECT_EQ(sets, 1);
  EXPECT_EQ(controller.status().demo_events, log.events.size());
  EXPECT_EQ(Replay(log, true), *log.final_state_hash);
  EXPECT_NE(Replay(log, false), *log.final_state_hash);
}

// Robot warnings (issue 45): the iiwa's wrist folded into itself by its joint target, with its link_force_limit at
// 5 N. Each warning (the self-contact of links 5 and 7, each of them above the limit) is emitted once as a kWarning
// event however long it lasts, the status lists them for the HUD, and the telemetry sample of the step they started
// is marked for the force plot (all three start in the same step); after a reset (a new run) they come again.
TEST(SimControllerTsan, RobotWarningsAreEmittedOncePerRunAndMarkedInTheTelemetry) {
  const std::string scene = ductile::testing::IiwaGripperScene("    link_force_limit: 5\n");
  const std::vector<Override> fold{{"robots.arm.controllers.iiwa_joint_6.target", "2.09"}};
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "arm.yaml", fold)));
  SimController controller(model, scene, "arm.yaml", fold, 1);
  std::vector<Event> events;
  std::vector<TelemetrySample> telemetry;
  const auto run_to = [&](std::int64_t steps) {
    controller.Post(command::Play{});
    ASSERT_TRUE(WaitFor([&] { return controller.status().step >= steps; }));
    controller.Post(command::Pause{});
    ASSERT_TRUE(WaitFor([&] { return !controller.status().playing; }));
    for (Event& e : controller.DrainEvents()) events.push_back(std::move(e));
    controller.DrainTelemetry(telemetry);
  };
  const auto count = [&](const std::string& what) {
    return std::count_if(events.begin(), events.end(), [&](const Event& e) {
      return e.kind == Event::Kind::kWarning && e.message.find(what) != std::string::npos;
    });
  };
  run_to(100);
  EXPECT_EQ(count("links iiwa_link_5 and iiwa_link_7 touch (self-contact)"), 1);
  EXPECT_EQ(count("above its limit of 5 N"), 2);
  const ControllerStatus st = controller.status();
  ASSERT_EQ(st.robot_warnings.size(), 3u);
  EXPECT_EQ(st.robot_warnings[0].rfind("t = ", 0), 0u) << st.robot_warnings[0];
  EXPECT_EQ(std::count_if(telemetry.begin(), telemetry.end(), [](const TelemetrySample& s) { return s.robot_warning; }),
            1);
  controller.Post(command::Reset{});
  ASSERT_TRUE(WaitFor([&] { return controller.status().step == 0 && controller.status().robot_warnings.empty(); }));
  run_to(100);
  EXPECT_EQ(count("links iiwa_link_5 and iiwa_link_7 touch (self-contact)"), 2);
}

// A reset starts a new log: no events, the overrides in force at the reset, the step count from 0.
TEST(SimControllerTsan, ResetStartsANewDemoLogWithTheOverridesInForce) {
  const std::filesystem::path file = ArmScene();
  const std::string text = ReadText(file);
  SimController controller(std::make_shared<const Model>(CompileModel(LoadScene(file))), text, file, {}, 1);
  command::Gripper grip{{"arm", 0.5, 0.0}};
  controller.Post(grip);
  controller.Post(command::SetOverride{"contact.friction", "0.4"});
  controller.Post(command::Step{});
  ASSERT_TRUE(WaitFor([&] { return controller.status().step == 1; }));
  DemoLog log = controller.CaptureDemoLog();
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].type, DemoEvent::Type::kGripper);
  EXPECT_EQ(log.events[0].step, 0);
  EXPECT_EQ(log.events[1].set.path, "contact.friction");
  EXPECT_EQ(log.steps, 1);
  controller.Post(command::Reset{});
  log = controller.CaptureDemoLog();
  EXPECT_TRUE(log.events.empty());
  EXPECT_EQ(log.steps, 0);
  ASSERT_EQ(log.overrides.size(), 1u);
  EXPECT_EQ(log.overrides[0].path, "contact.friction");
  EXPECT_EQ(log.overrides[0].value, "0.4");
  // A gripper command for a robot that is not there is refused with the reason and not logged.
  grip.command.robot = "nobody";
  controller.Post(grip);
  std::vector<Event> events;
  ASSERT_TRUE(WaitFor([&] {
    for (Event& e : controller.DrainEvents()) events.push_back(std::move(e));
    return std::any_of(events.begin(), events.end(), [](const Event& e) { return e.key == kGripperKey; });
  }));
  const auto refused = std::find_if(events.begin(), events.end(), [](const Event& e) { return e.key == kGripperKey; });
  EXPECT_NE(refused->message.find("no robot named 'nobody'"), std::string::npos) << refused->message;
  EXPECT_TRUE(controller.CaptureDemoLog().events.empty());
}

TEST(SimControllerTsan, TripleBufferHandsOverWholeSnapshots) {
  // One writer publishing snapshots whose step and time agree, one reader checking each one it takes.
  SnapshotBuffer buffer;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 1; i <= 20000; ++i) {
      Snapshot& s = buffer.back();
      s.step = i;
      s.time = 0.5 * i;
      s.object_names.assign(1 + i % 3, std::to_string(i));
      buffer.Publish();
    }
    done = true;
  });
  std::int64_t last = 0;
  int taken = 0;
  for (;;) {
    const bool finished = done.load();  // read before trying: a publish before `done` is then still taken
    if (!buffer.Acquire()) {
      if (finished) break;
      continue;
    }
    const Snapshot& s = buffer.front();
    ASSERT_EQ(s.time, 0.5 * static_cast<double>(s.step));
    ASSERT_EQ(s.object_names.front(), std::to_string(s.step));
    ASSERT_GT(s.step, last) << "snapshots arrive in order";
    last = s.step;
    ++taken;
  }
  writer.join();
  EXPECT_GT(taken, 0);
  EXPECT_EQ(last, 20000) << "the newest snapshot is the last one taken";
}

// Real-time pacing (NextStepDue), on a simulated clock: each step starts when it is due (or when the previous one
// ended, if later) and takes the given wall time.
double PacedRealTimeFactor(const std::vector<int>& step_ms, int steps, std::chrono::milliseconds interval,
                           int* back_to_back_after_stall = nullptr) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start{};
  Clock::time_point now = start, due = start;
  // Steps that began as soon as the one before ended, counted from a step of a second or more until one waits.
  int back_to_back = 0;
  bool counting = false;
  for (int i = 0; i < steps; ++i) {
    const Clock::time_point begin = std::max(now, due);
    if (counting && begin == now) {
      ++back_to_back;
    } else {
      counting = false;
    }
    const int cost = step_ms[static_cast<std::size_t>(i) % step_ms.size()];
    if (cost >= 1000) counting = true;
    now = begin + std::chrono::milliseconds(cost);
    due = NextStepDue(due, now, interval, kMaxPacingLag);
  }
  if (back_to_back_after_stall != nullptr) *back_to_back_after_stall = back_to_back;
  return static_cast<double>(steps) * std::chrono::duration<double>(interval).count() /
         std::chrono::duration<double>(now - start).count();
}

TEST(RealTimePacing, NextStepIsDueOneIntervalOnOrCatchingUpAtMostTheLagBehind) {
  using Clock = std::chrono::steady_clock;
  using std::chrono::milliseconds;
  const Clock::time_point t0{};
  // On time: one interval after the last due time.
  EXPECT_EQ(NextStepDue(t0, t0 + milliseconds(8), milliseconds(10), kMaxPacingLag), t0 + milliseconds(10));
  // 25 ms late: due at once (10 ms after the last due time, already past), to catch up.
  EXPECT_EQ(NextStepDue(t0, t0 + milliseconds(35), milliseconds(10), kMaxPacingLag), t0 + milliseconds(10));
  // Half a second late: no more than the lag behind now.
  EXPECT_EQ(NextStepDue(t0, t0 + milliseconds(500), milliseconds(10), kMaxPacingLag),
            t0 + milliseconds(500) - kMaxPacingLag);
  // At 1% speed the interval (1 s) is longer than the lag: a step one interval late is due at once, none earlier.
  EXPECT_EQ(NextStepDue(t0, t0 + milliseconds(5000), milliseconds(1000), kMaxPacingLag), t0 + milliseconds(4000));
}

// Steps of 7 ms with a 30 ms one every tenth (9.3 ms on average, as a simulation sharing its cores with drawing
// varies) against 10 ms of simulated time each: at 100% speed the simulation keeps real time (the rule it replaced,
// catching up at most one interval, gave 0.91). Steps of 11.5 ms on average cannot: 10 / 11.5, no faster. After a
// one-second stall it catches up no more than kMaxPacingLag: then it runs at most 100 ms / (10 − 7) ms back to back.
TEST(RealTimePacing, VaryingStepsKeepRealTimeOnAverageAndAStallIsNotMadeUp) {
  using std::chrono::milliseconds;
  std::vector<int> spiky(10, 7);
  spiky[9] = 30;
  EXPECT_NEAR(PacedRealTimeFactor(spiky, 10000, milliseconds(10)), 1.0, 0.005);
  EXPECT_NEAR(PacedRealTimeFactor({7, 7, 7, 25}, 10000, milliseconds(10)), 10.0 / 11.5, 0.005);
  int back_to_back = 0;
  std::vector<int> stall(200, 7);
  stall[99] = 1000;
  PacedRealTimeFactor(stall, 200, milliseconds(10), &back_to_back);
  EXPECT_GE(back_to_back, 30);
  EXPECT_LE(back_to_back, 100 / 3 + 1);
}

}  // namespace
}  // namespace ductile::studio
