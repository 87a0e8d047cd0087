// Every shipped scene with a robot, whole and to its end (issue 45; label `slow`: together about seven minutes on 2
// cores, of which the strong coupling's dough tearing and water pouring take three and two, the T-shirt one and a
// half): no link touches another link of its robot, and none carries more contact force (rigid contact plus MPM and
// IPC, averaged over 20 ms) than its robot's link_force_limit. tests/physics/robot_scenes_test.cpp runs the robots
// alone in every scene by default.
#include <gtest/gtest.h>

#include "../physics/robot_scene_checks.h"

namespace ductile {
namespace {

class RobotScenesSlow : public ::testing::TestWithParam<std::string> {};

TEST_P(RobotScenesSlow, NoRobotTouchesItselfNorCarriesTooMuch) {
  testing::ExpectRobotsRespected(GetParam(), testing::RunRobotScene(testing::RobotSceneModel(GetParam(), false)));
}

INSTANTIATE_TEST_SUITE_P(Shipped, RobotScenesSlow, ::testing::ValuesIn(testing::ShippedRobotScenes()),
                         [](const ::testing::TestParamInfo<std::string>& scene) { return scene.param; });

}  // namespace
}  // namespace ductile
