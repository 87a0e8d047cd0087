// The coupling experiments of Yu et al. 2025 at its smallest time steps (label `slow`: minutes on 2 cores; run with
// `ctest --test-dir build/release -L slow`). Bars and reasons as in tests/physics/mpm_rigid_coupling_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "../physics/coupling_scenarios.h"

namespace ductile {
namespace {

// Panel squeeze (Fig. 2) at the paper's Δt = 0.1 ms with one substep: the same bars as the Δt = 1 ms, N = 10 run
// in the default tests (testing::ExpectPanelSqueezeBars).
TEST(CouplingSlow, PanelSqueezeAtTheLargestRateOfRigidSteps) {
  testing::ExpectPanelSqueezeBars(testing::RunPanelSqueeze(1e-4, 1, 0.5, 1.5));
}

// Close, lift and shake (Fig. 3) at Δt = 0.1 ms, N = 10, ε_r = 1e-2 (the scene's own settings): the 15 kg block
// and both soft cubes stay in the grasp, none of the three centres moving more than 1 cm relative to the panels
// while the carrier shakes the stack (scenes/close_lift_shake.yaml: the shake runs from 0.45 s to 0.95 s).
TEST(CouplingSlow, CloseLiftShakeKeepsAllThreeCubesInTheGrasp) {
  const testing::CloseLiftShakeResult r = testing::RunCloseLiftShake(1e-4, 10, 0.45, 0.95);
  RecordProperty("lift_m", std::to_string(r.lift));
  const char* names[3] = {"left_cube", "block", "right_cube"};
  for (int i = 0; i < 3; ++i) RecordProperty(std::string(names[i]) + "_slip_m", std::to_string(r.max_slip[i]));
  RecordProperty("mpm_contacts_max", r.mpm_contacts_max);
  EXPECT_EQ(r.steps_not_converged, 0);
  EXPECT_GT(r.lift, 0.09);  // lifted with the carrier's 10 cm, not left on the ground
  for (int i = 0; i < 3; ++i) EXPECT_LT(r.max_slip[i], 0.01) << names[i];
}

// The same under the strong coupling at Δt = 10 ms, one implicit step each (Zong et al. 2024, Table I): the block
// is held through the shake by the joint solve (about 1 s a step here: the contacts' 2,000-odd grid dofs make a
// dense Schur complement).
TEST(CouplingSlow, CloseLiftShakeAtTenMillisecondStepsUnderTheStrongCoupling) {
  const testing::CloseLiftShakeResult r =
      testing::RunCloseLiftShake(1e-2, 1, 0.45, 0.95, {"simulation.coupling=strong"});
  RecordProperty("lift_m", std::to_string(r.lift));
  const char* names[3] = {"left_cube", "block", "right_cube"};
  for (int i = 0; i < 3; ++i) RecordProperty(std::string(names[i]) + "_slip_m", std::to_string(r.max_slip[i]));
  std::printf("strong close-lift-shake: lift %.4f m, slips %.4f %.4f %.4f m\n", r.lift, r.max_slip[0], r.max_slip[1],
              r.max_slip[2]);
  EXPECT_EQ(r.steps_not_converged, 0);
  EXPECT_GT(r.lift, 0.09);
  for (int i = 0; i < 3; ++i) EXPECT_LT(r.max_slip[i], 0.01) << names[i];
}

}  // namespace
}  // namespace ductile
