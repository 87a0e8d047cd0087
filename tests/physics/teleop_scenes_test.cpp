// The teleoperation scenes of issue 6 run from their files by a scripted operator (tests/physics/teleop_scenarios.h).
// Short or coarse runs; the full 2 s hold of the pinched dough, the rolling pin's pass over the whole slab and
// the sand scoop at the scene's resolution are in tests/slow/teleop_scenes_slow_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cloth_checks.h"
#include "ductile/snapshot.h"
#include "support/particles_of.h"
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

// Pick and place on dough (scenes/box_on_dough.yaml): the gripper comes down over the 1 kg box on the table, closes
// on it (opening 0: the finger springs squeeze it with about 12 N each), lifts it, carries it 20 cm along y to above
// the dough bed, presses it 1 cm into the bed, lets go and withdraws.
TEST(TeleopScenes, BoxIsPickedAndPlacedIntoTheDoughBed) {
  auto sim = testing::SimulatorForScene("box_on_dough.yaml", {});
  using testing::Vec3;
  // The box (5 cm, centre at z = 0.223 m) is grasped 1.2 cm above its centre so that the fingertips stay clear of
  // the dough when it is pressed in; the bed's surface is at z = 0.245 m.
  const Vec3 start{0.6, 0, 0.33}, above_box{0.6, -0.1, 0.30}, grasp{0.6, -0.1, 0.235}, carried{0.6, -0.1, 0.33},
      above_bed{0.6, 0.1, 0.33}, pressed{0.6, 0.1, 0.272};
  std::vector<testing::TeleopScript> scripts{testing::TeleopScript("arm",
                                                                   {{0.0, start},
                                                                    {0.4, above_box},
                                                                    {0.8, grasp},
                                                                    {1.0, grasp},
                                                                    {1.4, carried},
                                                                    {2.0, above_bed},
                                                                    {2.5, pressed},
                                                                    {2.8, pressed},
                                                                    {3.2, above_bed}},
                                                                   {{0.8, 0.0, 0.0}, {2.6, 1.0, 0.0}})};
  const int box = testing::RigidBodyIndex(*sim, "box");
  ASSERT_GE(box, 0);
  double carried_z = 0;
  testing::Drive(*sim, "box_on_dough.yaml", "box_on_dough", scripts, 3.5, [&] {
    if (std::abs(sim->time() - 2.0) < 0.5 * sim->model().dt) carried_z = sim->SummarizeRigidBody(box).position[2];
  });
  const RigidBodySummary b = sim->SummarizeRigidBody(box);
  // The dough's top surface (the highest particle) under the middle of the box (within 2 cm of its centre) and
  // around it (more than 4.5 cm from its centre along x or y: the rim of the bed).
  double under = 0, around = 0;
  const mpm::Particles& p = testing::ParticlesOf(*sim);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double dx = std::abs(p.x[i].x - b.position[0]), dy = std::abs(p.x[i].y - b.position[1]);
    if (dx < 0.02 && dy < 0.02) under = std::max(under, static_cast<double>(p.x[i].z));
    if (dx > 0.045 || dy > 0.045) around = std::max(around, static_cast<double>(p.x[i].z));
  }
  const double tilt = 2 * std::acos(std::min(1.0, std::abs(b.quaternion[0])));
  std::printf("box on dough: carried at z %.4f m, placed at (%.4f, %.4f, %.4f) m, tilt %.2f deg, dent %.2f mm\n",
              carried_z, b.position[0], b.position[1], b.position[2], tilt * 180 / M_PI, 1e3 * (around - under));
  RecordProperty("dent_m", std::to_string(around - under));
  // Lifted off the table (its centre at 0.223 m): carried with the tool 9.5 cm up, it hangs about 1.5 cm below the
  // tool point, as grasped.
  EXPECT_GT(carried_z, 0.3);
  // Placed where the tool let go, (0.6, 0.1): within 1 cm, a fifth of the box (measured 3 mm: letting go tips it by
  // about 4 degrees on the dough).
  EXPECT_LT(std::hypot(b.position[0] - 0.6, b.position[1] - 0.1), 0.01);
  EXPECT_LT(tilt, 10 * M_PI / 180);
  // Sitting in the dough: its bottom below the bed's surface (0.245 m) by more than half a centimetre (measured
  // 1.2 cm: pressed in 1 cm, then sinking a little under its 10 N on the 1 kPa-yield dough).
  EXPECT_LT(b.position[2] - 0.025, 0.245 - 0.005);
  // The dough under it is dented below the untouched rim by at least 5 mm (measured 6.8 mm); a flat bed differs by
  // nothing (its top particles lie in one lattice plane).
  EXPECT_GT(around - under, 0.005);
}

// Towel fold (scenes/towel_fold.yaml): the open gripper comes down over the middle of the towel's far edge (x =
// 0.72 m) until the fingertips touch the table, squeezes with 10 N per finger (the pads gather the cloth into a pleat
// between them), lifts the edge, carries it over the near edge (x = 0.48 m), lays it down, lets go, lifts the open
// fingers straight out of the fold and withdraws.
//
// How sensitive the outcome is (measured by editing the squeeze below, one run each, at the scene's MPM contact
// stiffness 1e5 N/m): 3, 8, 10 and 12 N all fold the towel (8 to 12 N give the same run: the pads close on the
// pleat as far as it lets them). The pads press the pleat's layers through one another in many steps (exact test
// below: 580 of 1,200 at 10 N, 952 at 3 N, before the contact solver took exact Newton directions; 528 at 10 N after).
// An earlier version slid the open fingers off along the towel before withdrawing; that run hung on rounding: a change
// of summation order in the cloth's force scatter turned a clean fold into a towel dragged into a heap by the
// fingertips, which lie within the folded layers. Lifting first does not drag it. With the default 1e4 N/m the towel
// came away on the opened fingers (highest point 0.31 to 0.34 m, with the earlier motion). The pleat between the pads
// is where cloth self-contact is weakest: the transverse resistance k(1 − r₃₃)² of Jiang, Gast, Teran 2017 holds at
// most about k t/h (t the thickness, h the grid spacing), 2 kPa here, against the pads' tens of kPa.
TEST(TeleopScenes, TowelIsFoldedInHalf) {
  auto sim = testing::SimulatorForScene("towel_fold.yaml", {});
  using testing::Vec3;
  const Vec3 start{0.6, 0, 0.33}, above_edge{0.7, 0, 0.26}, at_edge{0.7, 0, 0.222}, lifted{0.66, 0, 0.30},
      over_near_edge{0.51, 0, 0.28}, laid{0.50, 0, 0.225}, lifted_out{0.50, 0, 0.26}, withdrawn{0.42, 0, 0.32};
  std::vector<testing::TeleopScript> scripts{testing::TeleopScript("arm",
                                                                   {{0.0, start},
                                                                    {0.6, above_edge},
                                                                    {1.0, at_edge},
                                                                    {1.6, at_edge},
                                                                    {2.2, lifted},
                                                                    {3.0, over_near_edge},
                                                                    {3.6, laid},
                                                                    {4.0, laid},
                                                                    {4.6, lifted_out},
                                                                    {5.2, withdrawn}},
                                                                   {{1.0, 0.0, 10.0}, {3.8, 1.0, 0.0}})};
  // The towel's vertices at rest (a 25 x 17 sheet from x = 0.48 to 0.72 m, rows along x) and those of its far
  // half, beyond the fold line x = 0.6 m by more than two spacings.
  Snapshot s;
  sim->CaptureSnapshot(s, false);
  ASSERT_EQ(s.cloths.size(), 1u);
  const auto first = static_cast<std::size_t>(s.cloths[0].first_particle);
  const auto vertices = static_cast<std::size_t>(s.cloths[0].num_vertices);
  std::vector<std::size_t> far_half;
  for (std::size_t v = 0; v < vertices; ++v)
    if (s.particles.position[first + v][0] > 0.625) far_half.push_back(v);
  double carried_top = 0, worst_tracking = 0;
  int steps_with_intersections = 0, worst = 0;
  double first_intersection = -1;
  std::vector<std::array<std::uint32_t, 3>> corners;
  testing::Drive(*sim, "towel_fold.yaml", "towel_fold", scripts, 6.0, [&] {
    sim->CaptureSnapshot(s, false);
    worst_tracking = std::max(worst_tracking, sim->GetTeleopStatus("arm").tracking);
    if (sim->time() > 2.4 && sim->time() < 2.8)
      for (std::size_t v = 0; v < vertices; ++v)
        carried_top = std::max(carried_top, static_cast<double>(s.particles.position[first + v][2]));
    const int intersecting = testing::CountIntersectingPairs(testing::ClothTriangles(s, corners), corners);
    if (intersecting > 0 && steps_with_intersections++ == 0) first_intersection = sim->time();
    worst = std::max(worst, intersecting);
  });
  // Where the far half ended up, and how high the towel lies.
  int folded_over = 0;
  double lo = 1, hi = 0, top = 0;
  for (std::size_t v = 0; v < vertices; ++v) {
    const std::array<float, 3>& p = s.particles.position[first + v];
    lo = std::min(lo, static_cast<double>(p[0]));
    hi = std::max(hi, static_cast<double>(p[0]));
    top = std::max(top, static_cast<double>(p[2]));
  }
  for (const std::size_t v : far_half) folded_over += s.particles.position[first + v][0] < 0.6;
  const double folded_fraction = static_cast<double>(folded_over) / static_cast<double>(far_half.size());
  std::printf(
      "towel fold: carried edge up to z %.3f m; at rest: x from %.3f to %.3f m, top %.3f m, %.0f%% of the "
      "far half over the near half; %d of %d steps with intersecting triangles (at most %d pairs); "
      "worst tracking %.2f mm\n",
      carried_top, lo, hi, top, 100 * folded_fraction, steps_with_intersections, static_cast<int>(sim->step_count()),
      worst, 1e3 * worst_tracking);
  RecordProperty("folded_fraction", std::to_string(folded_fraction));
  RecordProperty("length_after_m", std::to_string(hi - lo));
  // Picked up: while carried, the pinched edge is more than 4 cm above the table (0.2 m; measured 8.3 cm: the grip
  // is 10 cm up, the pleat hangs below it).
  EXPECT_GT(carried_top, 0.24);
  // Folded: most of the far half now lies over the near half (measured: all of it), and the towel is about half as
  // long as it was, 24 cm: under 17 cm, 70% (measured 12.7 cm: half of it, 12 cm, plus the rounded crease).
  EXPECT_GT(folded_fraction, 0.75);
  EXPECT_LT(hi - lo, 0.17);
  // Lying on the table again, not carried off on the fingers (0.31 m and more when it was): its highest point
  // within 8 cm of the table (two layers and the pleat the pads gathered, standing up; measured 5.7 cm).
  EXPECT_LT(top, 0.28);
  // Cloth passing through itself (exact test, every step): not required here (see above), recorded; measured in
  // this run: up to 35 pairs of triangles in 528 of the 1,200 steps, in the pleat.
  RecordProperty("steps_with_intersections", steps_with_intersections);
  RecordProperty("first_intersection_s", std::to_string(first_intersection));
  RecordProperty("most_intersecting_pairs", worst);
  // The tool followed the scripted path (measured 2.2 mm at worst): a loose bound that fails a robot left behind,
  // not a tracking benchmark (the pinch-lift test holds the 5 mm).
  EXPECT_LT(worst_tracking, 0.01);
}

// The rolling pin pressed into the slab and rolled 10 cm in 0.8 s (the slow test rolls it over the whole slab).
TEST(TeleopScenes, TwoArmsRollThePinAndItSpinsAndFlattensTheDough) {
  const testing::RollingResult r = testing::RunRollingPin(testing::kPinStartX + 0.1, 0.8, false, "two_arm_rolling_pin");
  testing::ExpectRolledByFriction(r);
  // The pressed dough goes sideways and forwards: the slab's footprint grows by more than 10% (measured 18%).
  EXPECT_GT(r.area_after, 1.1 * r.area_before);
}

// The sand scoop at a coarser grid, h = 2.5 cm (912 particles, 4 substeps: the CFL bound's), to run in seconds;
// the slow test runs the scene's own h = 1.5 cm.
TEST(TeleopScenes, ScoopCarriesSandIntoTheBin) {
  testing::ExpectSandInTheBin(testing::RunSandScoop({"grid.h=0.025", "simulation.substeps=4"}, "sand_scoop_coarse"));
}

}  // namespace
}  // namespace ductile
