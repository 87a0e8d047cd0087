// SimController under ThreadSanitizer: the UI side (this thread) posts every kind of command and reads
// snapshots, telemetry, events and status while the simulation thread steps. The controller's own code is
// instrumented (the engine is not), so a data race in its protocol (triple buffer, telemetry ring, command queue,
// status) is reported and the process exits non-zero.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "sim_controller.h"

namespace ductile::studio {
namespace {

constexpr const char* kScene = R"(
simulation: {dt: 2.0e-3, substeps: 2, gravity: [0, 0, -9.81]}
grid: {h: 0.04, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 1.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.12, 0.12, 0.12]}, pose: {position: [0, 0, 0.1]},
         particles_per_cell: 1}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  ball: {shape: {type: sphere, radius: 0.03}, mass: 0.1, pose: {position: [0.1, 0.1, 0.2]}}
)";

TEST(SimControllerTsan, UiAndSimulationThreadsShareNothingUnsynchronised) {
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kScene, "tsan.yaml")));
  SimController controller(model, kScene, "tsan.yaml", {}, 1);
  controller.Post(Command::Of(Command::Type::kPlay));
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
        controller.Post(Command::Of(Command::Type::kSetSpeed, 0.5));
        break;
      case 10:
        controller.Post(Command::Of(Command::Type::kSetSpeed, 1.0));
        break;
      case 15: {
        Command c = Command::Of(Command::Type::kSetOverride);
        c.key = "materials.rubber.youngs_modulus";
        c.text = i % 100 == 15 ? "2e4" : "1e4";
        controller.Post(c);
        break;
      }
      case 20:
        controller.Post(Command::Of(Command::Type::kPause));
        break;
      case 25:
        controller.Post(Command::Of(Command::Type::kStep));
        break;
      case 30:
        controller.Post(Command::Of(Command::Type::kPlay));
        break;
      case 45:
        if (i % 500 == 45) controller.Post(Command::Of(Command::Type::kReset));
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
  controller.Post(Command::Of(Command::Type::kPlay));
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
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kScene, "tsan.yaml")));
  SimController controller(model, kScene, "tsan.yaml", {}, 1);
  const auto edit = [&](const std::string& key, const std::string& text) {
    Command c = Command::Of(Command::Type::kSetOverride);
    c.key = key;
    c.text = text;
    controller.Post(c);
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
  controller.Post(Command::Of(Command::Type::kStep));
  const auto t0 = std::chrono::steady_clock::now();
  while (controller.status().step < 1 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(controller.status().step, 1);
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

}  // namespace
}  // namespace ductile::studio
