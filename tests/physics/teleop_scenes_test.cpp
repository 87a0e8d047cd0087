// The teleoperation scenes of issue 6 run from their files by a scripted operator (tests/physics/teleop_scenarios.h).
// Short runs; the full 2 s hold of the pinched dough is in tests/slow/teleop_scenes_slow_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "teleop_scenarios.h"

namespace ductile {
namespace {

// The pinch and lift with a 0.5 s hold (the slow test holds 2 s).
TEST(TeleopScenes, GripperPinchesLiftsAndHoldsTheDough) {
  testing::ExpectLiftedAndHeld(testing::RunPinchLift(testing::kPieceSqueeze, 0.5, "gripper_pinch_lift"));
}

// The control: the same motion with the gripper left open leaves the piece on the table.
TEST(TeleopScenes, OpenGripperLeavesTheDoughOnTheTable) {
  const testing::PinchLiftResult r = testing::RunPinchLift(0.0, 0.0, "gripper_pinch_lift_open");
  std::printf("pinch-lift, gripper open: rise %.2f mm\n", 1e3 * (r.lifted_z - r.start_z));
  // The open fingers (8 cm apart) pass either side of the 4 cm piece: it moves less than a particle spacing (5 mm).
  EXPECT_LT(std::abs(r.lifted_z - r.start_z), 5e-3);
}

}  // namespace
}  // namespace ductile
