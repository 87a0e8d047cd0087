// Parameter edits in a demo log replay as the studio applies them: a live parameter of the table through
// Simulator::SetParameter, anything else by recompiling the scene with the edits so far and Simulator::UpdateModel.
// The replay reaches bitwise the state that recompiling the scene for every edit reaches (how logs were replayed
// before the parameter table), so logs recorded either way replay to their hash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ductile/demo_log.h"
#include "ductile/model.h"
#include "ductile/simulator.h"

namespace ductile {
namespace {

constexpr const char* kScene = R"(
simulation: {dt: 1.0e-3, substeps: 4}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 2.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.08, 0.08, 0.08]}, pose: {position: [0, 0, 0.06]}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  ball: {shape: {type: sphere, radius: 0.02}, mass: 0.1, pose: {position: [0.1, 0, 0.1]}}
)";

constexpr int kSteps = 12;

DemoEvent Set(std::int64_t step, const std::string& text) {
  DemoEvent e;
  e.type = DemoEvent::Type::kSet;
  e.step = step;
  e.set = ParseOverride(text);
  return e;
}

class DemoLogEdits : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() / ("ductile_demo_log_edits_" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
    scene_ = folder_ / "scene.yaml";
    std::ofstream(scene_) << kScene;
    log_.scene = scene_;
    log_.steps = kSteps;
    // Live edits at steps 2, 4 and 8; the cube's initial velocity is not live (it is recompiled, and changes only
    // what a reset would start from).
    log_.events = {Set(2, "materials.rubber.youngs_modulus=8e4"),
                   Set(4, "contact.mpm_stiffness=3e4"),
                   Set(4, "simulation.gravity.2=-3"),
                   Set(6, "objects.cube.velocity=[0, 0, -2]"),
                   Set(8, "materials.rubber.density=800"),
                   Set(8, "rigid_bodies.ball.friction=0.2")};
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::shared_ptr<const Model> Compile(const std::vector<Override>& overrides = {}) const {
    return std::make_shared<const Model>(CompileModel(LoadScene(scene_, overrides)));
  }

  std::filesystem::path folder_, scene_;
  DemoLog log_;
};

TEST_F(DemoLogEdits, ReplayEqualsRecompilingTheSceneForEveryEdit) {
  // The replay, from the log as written and read back.
  WriteDemoLog(folder_ / "run.demo.yaml", log_);
  const DemoLog loaded = LoadDemoLog(folder_ / "run.demo.yaml");
  Simulator replay(Compile());
  DemoPlayer player(loaded);
  for (int s = 0; s < kSteps; ++s) {
    ASSERT_EQ(player.ApplyDue(replay), "") << "step " << s;
    replay.Step();
  }
  EXPECT_EQ(player.remaining(), 0u);

  // Every edit by recompiling the scene with the edits so far.
  Simulator recompiled(Compile());
  std::vector<Override> overrides;
  std::size_t next = 0;
  for (int s = 0; s < kSteps; ++s) {
    for (; next < log_.events.size() && log_.events[next].step == s; ++next) {
      SetOverride(overrides, log_.events[next].set);
      ASSERT_EQ(recompiled.UpdateModel(Compile(overrides)), "") << log_.events[next].set.path;
    }
    recompiled.Step();
  }
  EXPECT_EQ(replay.StateHash(), recompiled.StateHash());

  Simulator unedited(Compile());
  for (int s = 0; s < kSteps; ++s) unedited.Step();
  EXPECT_NE(replay.StateHash(), unedited.StateHash()) << "the edits took effect";
}

TEST_F(DemoLogEdits, ARefusedLiveEditNamesTheEvent) {
  log_.events = {Set(1, "materials.rubber.poisson_ratio=0.5")};
  Simulator sim(Compile());
  DemoPlayer player(log_);
  sim.Step();
  const std::string refused = player.ApplyDue(sim);
  EXPECT_NE(refused.find("event at step 1"), std::string::npos) << refused;
  EXPECT_NE(refused.find("'poisson_ratio' must be in (-1, 0.5), got 0.5"), std::string::npos) << refused;
}

}  // namespace
}  // namespace ductile
