// The teleoperation scenes of issue 6 at full length and resolution (label `slow`: MPM in contact with the grippers
// and the roller costs 3.5-4 s of wall time per simulated second on 2 cores, the sand 7 s): the acceptance,
// the gripper lifting the dough piece 10 cm and holding it for 2 s, the rolling pin's pass over the whole slab and
// the sand scoop at h = 1.5 cm. The default physics tests run shortened or coarser versions
// (tests/physics/teleop_scenes_test.cpp).
#include <gtest/gtest.h>

#include "../physics/teleop_scenarios.h"

namespace ductile {
namespace {

TEST(TeleopScenesSlow, GripperLiftsTheDoughTenCentimetresAndHoldsItForTwoSeconds) {
  testing::ExpectLiftedAndHeld(testing::RunPinchLift(testing::kPieceSqueeze, 2.0, "gripper_pinch_lift_2s"));
}

// The rolling pin over the whole slab: pressed in, rolled 26 cm in 2 s and lifted off.
TEST(TeleopScenesSlow, TwoArmsRollThePinOverTheWholeSlab) {
  const testing::RollingResult r =
      testing::RunRollingPin(testing::kPinStartX + 0.26, 2.0, true, "two_arm_rolling_pin_full");
  testing::ExpectRolledByFriction(r);
  // The whole slab is flatter: its highest point lower (measured 3.6 mm: the bow of dough pushed off the far end
  // stays below the slab's old top) and its footprint a quarter larger (measured 34%).
  EXPECT_LT(r.highest_after, r.highest_before - 0.002);
  EXPECT_GT(r.area_after, 1.25 * r.area_before);
}

// The sand scoop at the scene's own resolution (h = 1.5 cm, 3840 particles): about 30 s.
TEST(TeleopScenesSlow, ScoopCarriesSandIntoTheBin) {
  testing::ExpectSandInTheBin(testing::RunSandScoop({}, "sand_scoop"));
}

}  // namespace
}  // namespace ductile
