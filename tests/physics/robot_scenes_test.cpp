// Every shipped scene with a robot, its robots alone (issue 45): with their MPM objects and soft bodies left out, the
// robots follow their scripts (the IK keeping its margins) among the scene's rigid bodies for the scene's whole
// duration, and no link touches another link of its robot (a self-contact) nor carries more contact force than its
// robot's link_force_limit. The self-contacts of box_bagging, laundry and the T-shirt were the scripts' and the IK's
// doing (the wrist folded into itself with the cloth nowhere near): this checks that part of every scene in seconds;
// tests/slow/robot_scenes_slow_test.cpp runs the whole scenes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "robot_scene_checks.h"

namespace ductile {
namespace {

class RobotScenes : public ::testing::TestWithParam<std::string> {};

TEST_P(RobotScenes, RobotsAloneNeverTouchThemselvesNorCarryTooMuch) {
  const testing::RobotSceneRun run = testing::RunRobotScene(testing::RobotSceneModel(GetParam(), true));
  testing::ExpectRobotsRespected(GetParam(), run);
  EXPECT_FALSE(run.most_loaded.empty()) << "no robot in " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Shipped, RobotScenes, ::testing::ValuesIn(testing::ShippedRobotScenes()),
                         [](const ::testing::TestParamInfo<std::string>& scene) { return scene.param; });

// The scenes the test runs: every scene file with a `robots:` section, at least the three of issue 45.
TEST(RobotScenes, EveryShippedSceneWithARobotIsRun) {
  const std::vector<std::string> scenes = testing::ShippedRobotScenes();
  for (const char* name : {"box_bagging", "laundry", "tshirt_folding"})
    EXPECT_NE(std::find(scenes.begin(), scenes.end(), name), scenes.end()) << name;
}

}  // namespace
}  // namespace ductile
