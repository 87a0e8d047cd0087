// The demo logs shipped in scenes/demos/ (scripts/make-demos) load, name a scene of this source tree by a path
// relative to the log (so a clone anywhere replays them), and record a run: steps, a final state hash, inputs.
// Replaying them to that hash is the `slow` test ShippedDemos.ReplayToTheirRecordedState.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ductile/demo_log.h"

namespace ductile {
namespace {

TEST(ShippedDemos, LoadAndNameTheirScenesRelatively) {
  const std::filesystem::path folder = std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes" / "demos";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (!entry.path().string().ends_with(".demo.yaml")) continue;
    ++count;
    SCOPED_TRACE(entry.path().string());
    std::ifstream text(entry.path());
    std::string line;
    bool relative = false;
    while (std::getline(text, line))
      if (line.rfind("scene: ", 0) == 0) relative = line.rfind("scene: \"../", 0) == 0;
    EXPECT_TRUE(relative) << "the scene path must be relative to the log";
    const DemoLog log = LoadDemoLog(entry.path());
    EXPECT_TRUE(std::filesystem::is_regular_file(log.scene)) << log.scene;
    EXPECT_EQ(log.scene.parent_path(), folder.parent_path().lexically_normal());
    EXPECT_GT(log.steps, 0);
    EXPECT_TRUE(log.final_state_hash.has_value());
    EXPECT_FALSE(log.events.empty());
  }
  // scripts/make-demos writes one per scripted run of tests/physics/teleop_scenes_test.cpp (five now); at least the
  // four teleoperation scenes' runs must be there.
  EXPECT_GE(count, 4);
}

}  // namespace
}  // namespace ductile
