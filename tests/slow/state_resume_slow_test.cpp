// Saved states of every shipped scene: `run S --duration 1 --save-state`, then `run S --load-state --duration 1`,
// ends with the state hash of `run S --duration 2` (docs/cli.md, "Saved states"). Label `slow`: 4 simulated seconds
// a scene, from seconds (elastic_cube_drop) to half an hour (close_lift_shake, Δt = 0.1 ms) on 2 cores; run with
// `ctest -L slow --timeout 3600`. Every scene in scenes/ is a test of its own, none skipped.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../cli/state_resume.h"

namespace ductile {
namespace {

namespace fs = std::filesystem;

// The scene files in scenes/, by name.
std::vector<std::string> ShippedScenes() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(DUCTILE_SOURCE_DIR) / "scenes"))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class ShippedSceneResume : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedSceneResume, OneSecondSavedPlusOneResumedEqualsTwoSeconds) {
  const fs::path scene = fs::path(DUCTILE_SOURCE_DIR) / "scenes" / (GetParam() + ".yaml");
  const fs::path dir = fs::temp_directory_path() / ("ductile_resume_" + std::to_string(::getpid()) + "_" + GetParam());
  fs::create_directories(dir);
  const testing::ResumeRuns runs = testing::RunResumeCheck(scene, "1", "1", "2", dir);
  EXPECT_EQ(runs.first.exit_code, 0) << runs.first.output;
  EXPECT_EQ(runs.resumed.exit_code, 0) << runs.resumed.output;
  EXPECT_EQ(runs.straight.exit_code, 0) << runs.straight.output;
  EXPECT_EQ(runs.resumed_hash.size(), 16u);
  EXPECT_EQ(runs.resumed_hash, runs.straight_hash);
  EXPECT_EQ(testing::StatsValue(dir / "resumed.json", "sim_time"),
            testing::StatsValue(dir / "straight.json", "sim_time"));
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Scenes, ShippedSceneResume, ::testing::ValuesIn(ShippedScenes()),
                         [](const ::testing::TestParamInfo<std::string>& scene) { return scene.param; });

}  // namespace
}  // namespace ductile
