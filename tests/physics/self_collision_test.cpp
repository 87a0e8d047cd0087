// Robots that respect themselves (issue 45): the self-collision pairs of the iiwa 7 with its gripper, the distance
// Jacobian the teleoperation IK uses, the IK's margin from self-collision, and the step's report of self-contacts
// and overloaded links, warned about once per episode (docs/architecture.md, "Teleoperation" and "Robot contact
// checks"). The IK's margin from joint limits: Teleop.IkAtJointLimitsEndsWhereNoFeasibleMoveLowersTheError.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arm_scene.h"
#include "contact/rigid_system.h"
#include "ductile/robot_warnings.h"
#include "model/rigid_model.h"
#include "multibody/multibody_tree.h"
#include "robot/self_collision.h"
#include "robot/teleop.h"
#include "scene_fixture.h"
#include "step/robot_checks.h"

namespace ductile {
namespace {

using robot::ArmTeleop;
using robot::SelfCollisionPair;

// The link 7 flange's distance from link 5 as joint 6 folds the wrist (measured with the arm scene's other joints):
// 8.1 cm at 0, 0.9 cm at 1.8 rad, −0.5 cm at 2.0 rad and −1.2 cm at 2.09 rad, within the joint's limit of 2.094 rad:
// the URDF's collision cylinders let the wrist fold into itself.
constexpr double kFolded = 2.09;  // [rad]

const std::vector<SelfCollisionPair>& Pairs(const Model& model) {
  return model.rigid->robots.at(0).self_collision_pairs;
}

int JointPosition(const RigidModel& rm, const std::string& link) {
  return rm.tree.body(rm.tree.FindBody("arm/" + link)).q_start;
}

// The smallest distance between the robot's pairs at positions q [m]; `which` gets the pair's links.
double MinDistance(const RigidModel& rm, const std::vector<SelfCollisionPair>& pairs, const Eigen::VectorXd& q,
                   std::string* which = nullptr) {
  multibody::Kinematics kin;
  multibody::CalcKinematics(rm.tree, q, 0, kin);
  double least = std::numeric_limits<double>::infinity();
  for (const SelfCollisionPair& p : pairs) {
    const double d = robot::PairDistance(rm.world, p, kin).distance;
    if (d >= least) continue;
    least = d;
    if (which) *which = rm.tree.body(p.body_a).link + " and " + rm.tree.body(p.body_b).link;
  }
  return least;
}

// The arm scene's robot with its controllers' targets as the arm's positions (what the IK commands).
Eigen::VectorXd CommandedPositions(const contact::RigidSystem& rigid) {
  Eigen::VectorXd q = rigid.state().q;
  for (std::size_t c = 0; c < rigid.controllers().size(); ++c)
    q[rigid.tree().body(rigid.controllers()[c].body).q_start] = rigid.state().targets[c].q_target;
  return q;
}

// Every pair joins two links of the robot that the collision filter lets touch. Among them is link 5 with link 7's
// flange, which the wrist folds together (the box-bagging contact); not the neighbours on a joint (links 5 and
// 6), not the links welded together (link 7 and the palm), not the gripper's fingers, which meet by design when it
// closes; and not a pair that the scene's collision filter leaves out.
TEST(SelfCollision, PairsAreTheLinksThatJointsMoveAgainstEachOtherButTheFingers) {
  for (const bool filtered : {false, true}) {
    const std::string filter = "collision_filters:\n  wrist: {body_a: arm/iiwa_link_5, body_b: arm/iiwa_link_7}\n";
    const auto model = testing::ModelFromYaml(testing::IiwaGripperScene() + (filtered ? filter : ""));
    const RigidModel& rm = *model->rigid;
    std::set<std::pair<std::string, std::string>> links;
    for (const SelfCollisionPair& p : Pairs(*model)) {
      EXPECT_LT(p.geometry_a, p.geometry_b);
      EXPECT_TRUE(rm.world.Collides(p.body_a, p.body_b));
      EXPECT_EQ(rm.world.geometry(p.geometry_a).body, p.body_a);
      EXPECT_EQ(rm.world.geometry(p.geometry_b).body, p.body_b);
      const auto [a, b] = std::minmax(rm.tree.body(p.body_a).link, rm.tree.body(p.body_b).link);
      links.insert({a, b});
    }
    const auto has = [&](const std::string& a, const std::string& b) { return links.count(std::minmax(a, b)) > 0; };
    EXPECT_EQ(has("iiwa_link_5", "iiwa_link_7"), !filtered);
    EXPECT_TRUE(has("iiwa_link_5", "gripper_palm"));
    EXPECT_TRUE(has("iiwa_link_0", "gripper_finger_left"));
    EXPECT_FALSE(has("iiwa_link_5", "iiwa_link_6"));
    EXPECT_FALSE(has("iiwa_link_7", "gripper_palm"));
    EXPECT_FALSE(has("iiwa_link_6", "gripper_palm"));
    EXPECT_FALSE(has("gripper_finger_left", "gripper_finger_right"));
  }
}

// ∂d/∂q of link 5 against link 7's flange and against the palm (cylinder–cylinder, cylinder–box) with the wrist half
// folded (joint 6 at 1.7 rad, about 1.2 cm apart), against central differences of FCL's distances over h = 1e-3
// rad. The derivatives along joints 6 and 7 are of the order of 1e-2 m/rad, the others 0 (joints 1 to 5 move both
// links alike); they agree within 2e-5 m/rad (measured up to 6e-6, the palm's box against the cylinder: GJK's
// tolerance over 2h and the distance's curvature over h²).
TEST(SelfCollision, DistanceJacobianMatchesFiniteDifferences) {
  const auto model = testing::ModelFromYaml(testing::IiwaGripperScene());
  const RigidModel& rm = *model->rigid;
  Eigen::VectorXd q = rm.q0;
  q[JointPosition(rm, "iiwa_link_6")] = 1.7;
  q[JointPosition(rm, "iiwa_link_5")] = 0.3;
  q[JointPosition(rm, "iiwa_link_7")] = 0.5;
  int checked = 0;
  for (const SelfCollisionPair& p : Pairs(*model)) {
    const std::string b = rm.tree.body(p.body_b).link;
    if (rm.tree.body(p.body_a).link != "iiwa_link_5" || (b != "iiwa_link_7" && b != "gripper_palm")) continue;
    multibody::Kinematics kin;
    multibody::CalcKinematics(rm.tree, q, 0, kin);
    const geometry::GeometryDistance d = robot::PairDistance(rm.world, p, kin);
    ASSERT_GT(d.distance, 0) << b;
    const Eigen::RowVectorXd J = robot::DistanceJacobian(rm.tree, kin, p, d);
    for (int joint = 1; joint <= 7; ++joint) {
      const multibody::Body& body = rm.tree.body(rm.tree.FindBody("arm/iiwa_link_" + std::to_string(joint)));
      constexpr double h = 1e-3;
      Eigen::VectorXd up = q, down = q;
      up[body.q_start] += h;
      down[body.q_start] -= h;
      multibody::Kinematics kin_up, kin_down;
      multibody::CalcKinematics(rm.tree, up, 0, kin_up);
      multibody::CalcKinematics(rm.tree, down, 0, kin_down);
      const double fd =
          (robot::PairDistance(rm.world, p, kin_up).distance - robot::PairDistance(rm.world, p, kin_down).distance) /
          (2 * h);
      EXPECT_NEAR(J[body.v_start], fd, 2e-5) << "link 5 and " << b << ", joint " << joint;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 14);
}

// The IK's pose target is where the wrist folded to 2.09 rad puts the tool (the arm's start pose otherwise), so that
// the IK would fold link 7's flange 1.2 cm into link 5. Without the robot's pairs it does (the commanded pose ends
// with the two overlapping: the test can fail); with them no command of 300 steps brings any pair nearer than the
// margin (1 cm; to GJK's tolerance, 1e-6 m), and it ends within the barrier's reach (under 2 cm): the target pulled
// the wrist as far as the margin lets it.
TEST(SelfCollision, IkKeepsItsMarginWhereTheTargetWouldFoldTheWristIntoItself) {
  const auto model = testing::ModelFromYaml(testing::IiwaGripperScene());
  const RigidModel& rm = *model->rigid;
  Eigen::VectorXd folded = rm.q0;
  folded[JointPosition(rm, "iiwa_link_6")] = kFolded;
  ASSERT_LT(MinDistance(rm, Pairs(*model), folded), -0.01);
  multibody::Kinematics kin;
  multibody::CalcKinematics(rm.tree, folded, 0, kin);
  const Eigen::Isometry3d X_WT = kin.X_WB[rm.tree.FindBody("arm/gripper_tcp")];
  const Eigen::Vector3d gravity(0, 0, -9.81);
  for (const bool avoid : {false, true}) {
    contact::RigidState state = contact::InitialRigidState(rm.tree);
    state.targets = contact::InitialTargets(rm.controllers);
    contact::RigidSystem rigid(rm.tree, rm.world, rm.welds, rm.controllers, contact::RigidSystemParams{}, state);
    rigid.state().q = rm.q0;
    ArmTeleop arm;
    ASSERT_EQ(arm.Configure(rigid, "arm", "gripper_tcp"), "");
    arm.SetTarget(Eigen::Vector3d::Zero(), X_WT.translation(), Eigen::Quaterniond(X_WT.linear()), true);
    double least = std::numeric_limits<double>::infinity();
    for (int step = 0; step < 300; ++step) {
      arm.Apply(rigid, gravity, 0.01, avoid ? &Pairs(*model) : nullptr);
      least = std::min(least, MinDistance(rm, Pairs(*model), CommandedPositions(rigid)));
    }
    std::string which;
    const double end = MinDistance(rm, Pairs(*model), CommandedPositions(rigid), &which);
    std::printf("%s pairs: least distance %.4f m, %.4f m at the end (%s); IK residual %.4f m, %.4f rad\n",
                avoid ? "with" : "without", least, end, which.c_str(), arm.position_residual(),
                arm.rotation_residual());
    if (!avoid) {
      EXPECT_LT(end, 0);
      continue;
    }
    EXPECT_GE(least, ArmTeleop::kSelfCollisionMargin - 1e-6);
    EXPECT_LT(end, ArmTeleop::kSelfCollisionMargin + ArmTeleop::kSelfCollisionReach);
  }
}

// The same target through the Simulator (scene scripts and the Teleop dock go this way): the arm, which its PD
// controllers move, never touches itself over 3 s (no self-contact reported after any step), while joint targets
// that fold the wrist directly (the scene's controllers, no IK) press link 7 into link 5.
TEST(SelfCollision, TeleoperatedArmNeverTouchesItselfWhereItsJointTargetsWould) {
  const auto model = testing::ModelFromYaml(testing::IiwaGripperScene());
  const RigidModel& rm = *model->rigid;
  Eigen::VectorXd folded = rm.q0;
  folded[JointPosition(rm, "iiwa_link_6")] = kFolded;
  multibody::Kinematics kin;
  multibody::CalcKinematics(rm.tree, folded, 0, kin);
  const Eigen::Isometry3d X_WT = kin.X_WB[rm.tree.FindBody("arm/gripper_tcp")];
  const Eigen::Quaterniond R(X_WT.linear());
  Simulator sim(model, SimulatorOptions{1});
  TeleopTarget target;
  target.robot = "arm";
  target.link = "gripper_tcp";
  target.position = {X_WT.translation().x(), X_WT.translation().y(), X_WT.translation().z()};
  target.quaternion = {R.w(), R.x(), R.y(), R.z()};
  ASSERT_EQ(sim.SetTeleopTarget(target), "");
  int self_contacts = 0;
  while (sim.time() < 3.0 - 1e-9) {
    sim.Step();
    for (const RobotContactAlert& a : sim.last_step().robot_alerts)
      self_contacts += a.kind == RobotContactAlert::Kind::kSelfContact;
  }
  EXPECT_EQ(self_contacts, 0);
  Simulator folding(model, SimulatorOptions{1});
  ASSERT_EQ(folding.SetJointTarget("arm", "iiwa_joint_6", kFolded), "");
  while (folding.time() < 3.0 - 1e-9) {
    folding.Step();
    for (const RobotContactAlert& a : folding.last_step().robot_alerts)
      self_contacts += a.kind == RobotContactAlert::Kind::kSelfContact;
  }
  EXPECT_GT(self_contacts, 0);
}

// A wrist folded into itself by its joint target (2.09 rad) with the robot's link_force_limit at 5 N: after the steps
// in which link 7 presses on link 5, the step reports the self-contact (the two links, a force) and both links above
// the limit (their contact forces, equal and opposite within the other contacts: the fingers touch nothing); the
// most loaded link is one of them. RobotWarnings keeps each as one warning from the first step it held, counts the
// steps and the largest force; after a reset (a new episode) the same run warns again from the same time, and going
// on from a state before that time forgets it.
TEST(RobotContacts, SelfContactAndOverloadedLinksAreReportedAndWarnedOncePerEpisode) {
  const auto model = testing::ModelFromYaml(testing::IiwaGripperScene("    link_force_limit: 5\n"));
  ASSERT_EQ(model->rigid->robots.at(0).link_force_limit, 5);
  Simulator sim(model, SimulatorOptions{1});
  RobotWarnings warnings;
  std::vector<double> first_times;
  for (int episode = 0; episode < 2; ++episode) {
    sim.Reset();
    warnings.Clear();
    ASSERT_EQ(sim.SetJointTarget("arm", "iiwa_joint_6", kFolded), "");
    std::int64_t self_steps = 0;
    double largest = 0;
    while (sim.time() < 1.5 - 1e-9) {
      sim.Step();
      const StepTelemetry& t = sim.last_step();
      ASSERT_EQ(t.robot_loads.size(), 1u);
      for (const RobotContactAlert& a : t.robot_alerts) {
        EXPECT_EQ(a.robot, "arm");
        EXPECT_EQ(a.limit, 5);
        if (a.kind == RobotContactAlert::Kind::kSelfContact) {
          EXPECT_EQ(a.link, "iiwa_link_5");
          EXPECT_EQ(a.other_link, "iiwa_link_7");
          EXPECT_GE(a.force, 0);
          ++self_steps;
          largest = std::max(largest, a.force);
        } else {
          EXPECT_GT(a.force, 5);
          EXPECT_LE(a.force, t.robot_loads[0].force);
        }
      }
      warnings.Add(sim.time(), t.robot_alerts);
    }
    ASSERT_GT(self_steps, 10);
    EXPECT_GT(largest, 5);
    int self_warnings = 0, force_warnings = 0;
    for (const RobotWarning& w : warnings.warnings()) {
      if (w.first.kind == RobotContactAlert::Kind::kSelfContact) {
        ++self_warnings;
        EXPECT_EQ(w.steps, self_steps);
        EXPECT_EQ(w.max_force, largest);
        first_times.push_back(w.time);
        EXPECT_NE(DescribeRobotWarning(w).find("links iiwa_link_5 and iiwa_link_7 touch"), std::string::npos)
            << DescribeRobotWarning(w);
      } else {
        ++force_warnings;
        EXPECT_TRUE(w.first.link == "iiwa_link_5" || w.first.link == "iiwa_link_7") << w.first.link;
        EXPECT_NE(DescribeRobotWarning(w).find("above its limit of 5 N"), std::string::npos);
      }
    }
    EXPECT_EQ(self_warnings, 1);
    EXPECT_EQ(force_warnings, 2);
  }
  ASSERT_EQ(first_times.size(), 2u);
  EXPECT_EQ(first_times[0], first_times[1]);
  warnings.DiscardAfter(first_times[0] - 1e-3);
  EXPECT_TRUE(warnings.warnings().empty());
}

// The link force checked against the limit is its mean over the last 20 ms: at Δt = 2 ms a force alternating between
// 0 and 400 N from step to step (a contact that chatters) reads 200 N once 10 steps are in, a steady 300 N reads
// 300 N, the first steps are averaged over those there are, and a change of Δt starts the window anew.
TEST(RobotContacts, LinkForceIsItsMeanOverTwentyMilliseconds) {
  RobotForceWindow window;
  std::vector<Eigen::Vector3d> mean;
  const auto add = [&](double dt, double chattering, double steady) {
    window.Add(dt, {Eigen::Vector3d(0, 0, chattering), Eigen::Vector3d(steady, 0, 0)}, mean);
  };
  add(2e-3, 400, 300);
  EXPECT_DOUBLE_EQ(mean[0].z(), 400);
  for (int step = 1; step < 25; ++step) add(2e-3, step % 2 ? 0 : 400, 300);
  EXPECT_DOUBLE_EQ(mean[0].z(), 200);
  EXPECT_DOUBLE_EQ(mean[1].x(), 300);
  add(1e-2, 0, 100);  // a new Δt: 2 steps from here on
  EXPECT_DOUBLE_EQ(mean[1].x(), 100);
  add(1e-2, 0, 300);
  add(1e-2, 0, 500);
  EXPECT_DOUBLE_EQ(mean[1].x(), 400);
}

}  // namespace
}  // namespace ductile
