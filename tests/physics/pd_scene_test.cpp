// The projective-dynamics domain inside the Simulator (docs/architecture.md, "Projective dynamics"): a pd ball
// dropped on a rigid box rests on it and the box feels its weight through the weak coupling's impulses; a rigid
// body's surface, linearised per vertex, holds a body as a plane does; a saved state resumes bitwise; live edits of
// the material and the actuators act; a figure with a skeleton raises its arms and stands on its legs; a skeleton's
// torques are live and its joints saved and restored; bad scenes are refused with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"
#include "model/pd_bodies.h"
#include "physics/coupling_scenarios.h"
#include "physics/scene_fixture.h"
#include "physics/teleop_scenarios.h"
#include "state/state_data.h"

namespace ductile {
namespace {

constexpr double kGravity = 9.81;

std::unique_ptr<Simulator> SceneFromText(const std::string& text) {
  return std::make_unique<Simulator>(std::make_shared<const Model>(CompileModel(LoadSceneFromString(text, "pd.yaml"))));
}

BodySummary Body(const Simulator& sim, const std::string& name) {
  for (int b = 0; b < sim.num_bodies(); ++b)
    if (sim.SummarizeBody(b).name == name) return sim.SummarizeBody(b);
  ADD_FAILURE() << "no body " << name;
  return {};
}

// scenes/pd_ball_on_box.yaml: the ball lands at about 0.08 s and rests on the box's top (z = 0.08 m) from about
// 0.3 s. Over 0.6–0.8 s the impulses it gives the box, divided by Δt, sum to its weight within 2% (the solver's
// tolerance leaves far less; what is left is the ball's rocking on its faceted underside, a polyhedron of 1 cm tets),
// and its centre rests within 3 mm under r above the top (Hertz's flattening of this ball is about 1.5 mm).
TEST(PdScene, ABallRestsOnARigidBoxAndTheBoxFeelsItsWeight) {
  auto sim = testing::SimulatorForScene("pd_ball_on_box.yaml", {});
  testing::RunUntil(*sim, 0.6);
  double fz = 0;
  int samples = 0;
  while (sim->time() < 0.8 - 1e-9) {
    sim->Step();
    ASSERT_TRUE(sim->last_step().pd_converged) << "t = " << sim->time();
    const RigidImpulses& impulses = sim->state().data().impulses;
    ASSERT_TRUE(impulses.has(0));
    fz += impulses.linear[0].z() / sim->model().dt;
    ++samples;
  }
  const double weight = sim->model().pd->bodies[0].mass * kGravity;
  EXPECT_NEAR(-fz / samples, weight, 0.02 * weight);
  const BodySummary ball = Body(*sim, "ball");
  EXPECT_EQ(ball.kind, DomainBodyKind::kPdBody);
  EXPECT_LT(ball.center_of_mass[2], 0.08 + 0.03);
  EXPECT_GT(ball.center_of_mass[2], 0.08 + 0.03 - 0.003);
  EXPECT_LT(std::abs(ball.velocity[2]), 1e-3);
}

// A block dropped on a static rigid box whose top is at z = 0 moves as the same block dropped on the ground plane
// z = 0: the box's surface reaches each vertex as its own tangent plane (here the top face, static), the ground as
// one plane of every vertex; the two solves differ only in the contacts' order, so in round-off.
TEST(PdScene, ARigidSurfaceHoldsABodyAsAPlaneDoes) {
  const std::string block = R"(
simulation: {dt: 0.01}
pd_bodies:
  block: {shape: {type: box, size: [0.04, 0.04, 0.04]}, resolution: 0.02, youngs_modulus: 1.0e5,
          pose: {position: [0, 0, 0.03], rpy_deg: [10, 5, 0]}}
rigid_bodies:
)";
  auto on_plane = SceneFromText(block + "  ground: {type: static, shape: {type: plane}}\n");
  auto on_box = SceneFromText(
      block + "  table: {type: static, shape: {type: box, size: [0.3, 0.3, 0.1]}, pose: {position: [0, 0, -0.05]}}\n");
  // Every step converges at the defaults, the landing ones too (Newton with contacts keeps going by its line search
  // where a full step overshot the sharp friction law; before, the sweeps took over and stopped at the cap).
  for (int step = 0; step < 40; ++step) {
    on_plane->Step();
    on_box->Step();
    ASSERT_TRUE(on_plane->last_step().pd_converged) << "step " << step;
    ASSERT_TRUE(on_box->last_step().pd_converged) << "step " << step;
  }
  const BodySummary a = Body(*on_plane, "block"), b = Body(*on_box, "block");
  EXPECT_GT(on_box->last_step().pd_contacts, 0);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.center_of_mass[k], b.center_of_mass[k], 1e-6) << "axis " << k;
  EXPECT_LT(a.bounds_min[2], 1e-4);  // it landed
}

// Save at 0.2 s (the ball on the box), go on 0.1 s; restore and go on again: the same state, bitwise.
TEST(PdScene, ASavedStateResumesBitwise) {
  auto sim = testing::SimulatorForScene("pd_ball_on_box.yaml", {});
  testing::RunUntil(*sim, 0.2);
  const std::vector<std::uint8_t> saved = sim->SaveState();
  testing::RunUntil(*sim, 0.3);
  const std::uint64_t straight = sim->StateHash();
  sim->RestoreState(saved);
  testing::RunUntil(*sim, 0.3);
  EXPECT_EQ(sim->StateHash(), straight);
}

// Live edits: in zero gravity a free block driven to the pneumatic volume ratio a = 1.5 grows by a^(1/3) = 1.145
// in every direction (the volume energy's target; the strain energy's rest shape pulls it back a little, so at least
// 1.10 and at most 1.145); muscle fibres along x at full activation shorten it along x by at least 10%; a new
// Young's modulus is taken; a new mesh needs a reset.
TEST(PdScene, LiveEditsOfTheActuatorsAndTheMaterialAct) {
  const std::string text = R"(
simulation: {dt: 0.01, gravity: [0, 0, 0]}
pd_bodies:
  block: {shape: {type: box, size: [0.04, 0.04, 0.04]}, resolution: 0.02, youngs_modulus: 1.0e5,
          muscle_stiffness: 1.0e5, muscle_direction: [1, 0, 0]}
)";
  const auto extent = [](const BodySummary& s, int axis) { return s.bounds_max[axis] - s.bounds_min[axis]; };
  auto inflated = SceneFromText(text.substr(0, text.find(",\n          muscle_stiffness")) + "}\n");
  ASSERT_EQ(inflated->SetParameter("pd_bodies.block.pneumatic_ratio", "1.5"), "");
  testing::RunUntil(*inflated, 1.0);
  for (int k = 0; k < 3; ++k) {
    EXPECT_GT(extent(Body(*inflated, "block"), k), 0.04 * 1.10) << "axis " << k;
    EXPECT_LT(extent(Body(*inflated, "block"), k), 0.04 * 1.145 + 1e-9) << "axis " << k;
  }
  auto flexed = SceneFromText(text);
  ASSERT_EQ(flexed->SetParameter("pd_bodies.block.muscle_activation", "1"), "");
  testing::RunUntil(*flexed, 1.0);
  EXPECT_LT(extent(Body(*flexed, "block"), 0), 0.9 * 0.04);
  EXPECT_TRUE(flexed->last_step().pd_converged);
  EXPECT_EQ(flexed->SetParameter("pd_bodies.block.youngs_modulus", "2e5"), "");
  EXPECT_EQ(flexed->model().pd->bodies[0].youngs_modulus, 2e5);
  flexed->Step();
  EXPECT_TRUE(flexed->last_step().pd_converged);
  EXPECT_NE(flexed->SetParameter("pd_bodies.block.resolution", "0.01"), "") << "a new mesh needs a reset";
  EXPECT_NE(flexed->SetParameter("pd_bodies.block.poisson_ratio", "0.5"), "") << "ν = 0.5 is refused";
}

// A robot teleoperated against a pd body (scenes/pd_pinch_lift.yaml): the pinch and lift of
// scenes/gripper_pinch_lift.yaml (the open gripper down 10 cm around the cube in 0.4 s, 2 N per finger, the tool up
// 10 cm in 0.5 s, then held 0.4 s). The cube rises with the tool (more than 9 cm: it hangs a little lower in the grip
// than it sat on the table), does not slide out of the pads over the hold (1 cm, the acceptance of the dough's
// pinch), every pd step converges, and the fingers carry its weight: the pd impulses on the arm's links, over the hold,
// sum to m g within 5% (the arm accelerates nothing then; what is left is the grip's creep).
TEST(PdScene, ARobotPinchesAndLiftsAPdCube) {
  using testing::kAbovePiece, testing::kAtPiece, testing::kPieceLift, testing::kPieceLiftEnd, testing::kPieceLiftStart,
      testing::kPieceSqueeze;
  auto sim = testing::SimulatorForScene("pd_pinch_lift.yaml", {});
  const testing::Vec3 lifted{kAtPiece[0], kAtPiece[1], kAtPiece[2] + kPieceLift};
  std::vector<testing::TeleopScript> scripts{testing::TeleopScript(
      "arm", {{0.0, kAbovePiece}, {0.4, kAtPiece}, {kPieceLiftStart, kAtPiece}, {kPieceLiftEnd, lifted}},
      {{0.4, 0.0, kPieceSqueeze}})};
  const double start_z = Body(*sim, "cube").center_of_mass[2];
  double lifted_z = 0, drift = 0, carried = 0;
  int held_steps = 0;
  bool converged = true;
  testing::Drive(*sim, "pd_pinch_lift.yaml", "pd_pinch_lift", scripts, kPieceLiftEnd + 0.4, [&] {
    const double z = Body(*sim, "cube").center_of_mass[2];
    converged = converged && sim->last_step().pd_converged;
    if (std::abs(sim->time() - kPieceLiftEnd) < 0.5 * sim->model().dt) lifted_z = z;
    if (sim->time() <= kPieceLiftEnd + 0.1) return;
    drift = std::max(drift, std::abs(z - lifted_z));
    const RigidImpulses& impulses = sim->state().data().impulses;
    for (std::size_t b = 0; b < impulses.linear.size(); ++b) carried -= impulses.linear[b].z() / sim->model().dt;
    ++held_steps;
  });
  std::printf("pd pinch-lift: rise %.2f mm, drift %.2f mm, carried %.4f N of %.4f N\n", 1e3 * (lifted_z - start_z),
              1e3 * drift, carried / held_steps, sim->model().pd->bodies[0].mass * kGravity);
  EXPECT_TRUE(converged);
  EXPECT_GT(lifted_z - start_z, 0.09);
  EXPECT_LT(drift, 0.01);
  const double weight = sim->model().pd->bodies[0].mass * kGravity;
  EXPECT_NEAR(carried / held_steps, weight, 0.05 * weight);
}

// The stress the studio colours by: a bar hanging from its pinned top carries the weight below each section, so the
// axial stress, which von Mises reads as it is, grows linearly from 0 at the free end (z = 0.17 m) as ρ g (z − 0.17).
// Each tet's stress is constant and a vertex averages the tets around it, which for an interior layer of a uniform
// mesh is the stress at the layer's height: the four interior layers of a 1 cm mesh read it within 5% (measured 0.3%
// to 3.8%; the end layers average one-sided tets and the pinned top's constraint, so they are left out).
TEST(PdScene, AHangingBarsStressGrowsWithTheWeightBelow) {
  auto sim = SceneFromText(R"(
simulation: {dt: 0.01}
pd_bodies:
  bar: {shape: {type: box, size: [0.02, 0.02, 0.06]}, resolution: 0.01, youngs_modulus: 1.0e5, poisson_ratio: 0.3,
        pose: {position: [0, 0, 0.2]}, pin_box: {min: [-1, -1, 0.229], max: [1, 1, 1]}}
)");
  testing::RunUntil(*sim, 1.0);
  Snapshot snapshot;
  sim->CaptureSnapshot(snapshot, true);
  ASSERT_EQ(snapshot.soft_bodies.size(), 1u);
  const SnapshotSoftBody& bar = snapshot.soft_bodies[0];
  ASSERT_EQ(bar.von_mises.size(), bar.vertices.size());
  for (const double z : {0.18, 0.19, 0.20, 0.21}) {
    double sum = 0;
    int n = 0;
    for (std::size_t v = 0; v < bar.vertices.size(); ++v)
      if (std::abs(bar.vertices[v][2] - z) < 0.004) sum += bar.von_mises[v], ++n;
    ASSERT_GT(n, 0) << z;
    const double expected = 1000 * kGravity * (z - 0.17);
    EXPECT_NEAR(sum / n, expected, 0.05 * expected) << "layer z = " << z;
  }
  sim->CaptureSnapshot(snapshot, false);
  EXPECT_TRUE(snapshot.soft_bodies[0].von_mises.empty());
}

// scenes/pd_character.yaml at its defaults: the figure's shoulders, driven by constant torques, swing its arms up
// about the Y-pose (no damping but implicit Euler's, so they keep swinging: 0.3–0.95 rad in one-off runs; their mean
// over 0.3–1 s between 0.4 and 0.85 rad, 23°–49°, where the T-pose is 0); the torso, on a vertical slide, sinks into
// the flesh of the legs below it by the uniaxial compression F L/(E A) of the whole weight F = m g over the legs'
// length L (the torso bone's lowest vertex's height) and cross-section A = 12 cm x 6 cm. Within 15%: the legs are
// two to three tets tall, the ground's friction holds their base from spreading (stiffer than uniaxial stress), and
// the arms' swinging loads them dynamically (a mean over 0.7 s). Every step converges; the bones keep their shape.
TEST(PdScene, ASkeletonFigureRaisesItsArmsAndStandsOnItsLegs) {
  auto sim = testing::SimulatorForScene("pd_character.yaml", {});
  const PdBodiesModel::Body& figure = sim->model().pd->bodies[0];
  const pd::PdModel& model = figure.model;
  ASSERT_EQ(figure.bone_names,
            (std::vector<std::string>{"torso", "left_upper_arm", "left_forearm", "right_upper_arm", "right_forearm"}));
  double legs = 1;
  for (const int v : model.bones[0].vertices) legs = std::min(legs, model.rest[static_cast<std::size_t>(v)].z());
  double sink = 0, left = 0, right = 0;
  int samples = 0;
  while (sim->time() < 1.0 - 1e-9) {
    sim->Step();
    ASSERT_TRUE(sim->last_step().pd_converged) << "t = " << sim->time();
    if (sim->time() < 0.3) continue;
    const Eigen::VectorXd& z = sim->state().data().pd.bodies[0].z;
    sink -= z(0);
    left += z(1);
    right += z(3);
    ++samples;
  }
  const double expected = figure.mass * kGravity * legs / (figure.youngs_modulus * 0.12 * 0.06);
  EXPECT_NEAR(sink / samples, expected, 0.15 * expected);
  for (const double shoulder : {left / samples, right / samples}) {
    EXPECT_GT(shoulder, 0.4);
    EXPECT_LT(shoulder, 0.85);
  }
  const Eigen::MatrixX3d& q = sim->state().data().pd.bodies[0].q;
  double worst = 0;
  for (const pd::PdBone& bone : model.bones)
    for (const int a : bone.vertices)
      for (const int b : bone.vertices)
        worst = std::max(
            worst,
            std::abs((q.row(a) - q.row(b)).norm() -
                     (model.rest[static_cast<std::size_t>(a)] - model.rest[static_cast<std::size_t>(b)]).norm()));
  EXPECT_LT(worst, 1e-12);
}

// A bar whose +x end is a bone on a hinge about y (no gravity): the joint's torque is live (it turns the bone one
// way, then the other), a saved state, joint coordinates included, resumes bitwise, and the snapshot draws the bone
// along the bar (its vertices span 3 cm along x, more than the bar's 2 cm width) and joins it to its hinge at x = 1 cm.
TEST(PdScene, ASkeletonsTorquesAreLiveAndItsJointsAreSaved) {
  auto sim = SceneFromText(R"(
simulation: {dt: 0.01, gravity: [0, 0, 0]}
pd_bodies:
  bar:
    shape: {type: box, size: [0.1, 0.02, 0.02]}
    resolution: 0.01
    youngs_modulus: 1.0e5
    pin_box: {min: [-0.051, -0.02, -0.02], max: [-0.049, 0.02, 0.02]}
    skeleton:
      tip: {joint: revolute, axis: [0, 1, 0], anchor: [0.01, 0, 0], box: {min: [0.015, -0.02, -0.02], max: [0.06, 0.02, 0.02]},
            torque: 0.01}
)");
  ASSERT_EQ(sim->model().pd->bodies[0].model.bones.size(), 1u);
  testing::RunUntil(*sim, 0.2);
  const double turned = sim->state().data().pd.bodies[0].z(0);
  EXPECT_GT(turned, 0.01);
  const std::vector<std::uint8_t> saved = sim->SaveState();
  ASSERT_EQ(sim->SetParameter("pd_bodies.bar.skeleton.tip.torque", "-0.03"), "");
  testing::RunUntil(*sim, 0.5);
  EXPECT_LT(sim->state().data().pd.bodies[0].z(0), turned - 0.01);
  const std::uint64_t straight = sim->StateHash();
  sim->RestoreState(saved);
  ASSERT_EQ(sim->SetParameter("pd_bodies.bar.skeleton.tip.torque", "-0.03"), "");
  testing::RunUntil(*sim, 0.5);
  EXPECT_EQ(sim->StateHash(), straight);
  Snapshot snapshot;
  sim->CaptureSnapshot(snapshot, false);
  ASSERT_EQ(snapshot.soft_bodies.size(), 1u);
  const auto& segments = snapshot.soft_bodies[0].bones;
  ASSERT_EQ(segments.size(), 2u);  // the bone, and its hinge to the bone's nearer end
  const auto length = [](const std::array<std::array<float, 3>, 2>& s) {
    return std::hypot(s[1][0] - s[0][0], s[1][1] - s[0][1], s[1][2] - s[0][2]);
  };
  EXPECT_NEAR(length(segments[0]), 0.03, 1e-6);
  const Eigen::Vector3d hinge(0.01, 0, 0);
  EXPECT_NEAR(segments[1][0][0], hinge.x(), 1e-6);
  EXPECT_NEAR(segments[1][0][2], hinge.z(), 1e-6);
  EXPECT_NE(sim->SetParameter("pd_bodies.bar.skeleton.tip.anchor", "[0.02, 0, 0]"), "") << "a new skeleton resets";
  EXPECT_NE(sim->SetParameter("pd_bodies.bar.skeleton.elbow.torque", "1"), "");
}

// A skeleton from a URDF (tests/data/urdf/soft_arm_skeleton.urdf): its movable joints are the bones, named by the
// joints, at their placement at q = 0 under the body's pose (the shoulder about y at x = −0.05, the elbow about z at
// x = 0.05, its forearm with the tool ball that a fixed joint hangs on it); the base link's vertices are pinned. The
// vertex counts are the lattice points of the 1 cm mesh inside each link's solids: the upper arm's cylinder (r = 1.2
// cm, turned along x) 5 per slice over 7 slices, the forearm's 2 cm box 9 per slice over 5 and the tool ball (r = 1.1
// cm, centred on a lattice point) 7, the base's 3 cm box 9 per slice over 3. The joints' torques are live rows.
TEST(PdScene, ASkeletonFromAUrdfHasItsMovableJointsAsBones) {
  const std::string urdf = std::string(DUCTILE_TEST_DATA_DIR) + "/urdf/soft_arm_skeleton.urdf";
  auto sim = SceneFromText(
      "simulation: {dt: 0.01}\npd_bodies:\n  arm: {shape: {type: box, size: [0.3, 0.04, 0.04]}, "
      "resolution: 0.01, pose: {position: [0, 0, 0.3]}, skeleton_urdf: '" +
      urdf + "'}\n");
  const PdBodiesModel::Body& arm = sim->model().pd->bodies[0];
  ASSERT_EQ(arm.bone_names, (std::vector<std::string>{"shoulder", "elbow"}));
  const std::vector<pd::PdBone>& bones = arm.model.bones;
  EXPECT_EQ(bones[0].parent, -1);
  EXPECT_EQ(bones[1].parent, 0);
  EXPECT_EQ(bones[1].joint, pd::JointKind::kRevolute);  // URDF "continuous"
  EXPECT_LT((bones[0].axis - Eigen::Vector3d::UnitY()).norm(), 1e-12);
  EXPECT_LT((bones[1].axis - Eigen::Vector3d::UnitZ()).norm(), 1e-12);
  EXPECT_LT((bones[0].anchor - Eigen::Vector3d(-0.05, 0, 0.3)).norm(), 1e-12);
  EXPECT_LT((bones[1].anchor - Eigen::Vector3d(0.05, 0, 0.3)).norm(), 1e-12);
  EXPECT_EQ(bones[0].vertices.size(), 35u);
  EXPECT_EQ(bones[1].vertices.size(), 45u + 7u);
  EXPECT_EQ(arm.model.pinned.size(), 27u);
  ASSERT_EQ(sim->SetParameter("pd_bodies.arm.skeleton.shoulder.torque", "0.5"), "");
  for (int step = 0; step < 5; ++step) {
    sim->Step();
    EXPECT_TRUE(sim->last_step().pd_converged);
  }
  EXPECT_GT(std::abs(sim->state().data().pd.bodies[0].z(0)), 1e-3);
  // Refused: a skeleton given twice, a URDF that is not there, a joint that moves no geometry, a mesh geometry.
  const auto error = [&](const std::string& extra) {
    try {
      LoadSceneFromString("pd_bodies:\n  arm: {shape: {type: box, size: [0.3, 0.04, 0.04]}, " + extra + "}\n",
                          "bad.yaml");
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      error("skeleton_urdf: '" + urdf + "', skeleton: {x: {joint: revolute, box: {min: [0, 0, 0], max: [1, 1, 1]}}}")
          .find("not both"),
      std::string::npos);
  EXPECT_NE(error("skeleton_urdf: missing.urdf").find("not found"), std::string::npos);
  // A movable joint whose child link has no geometry.
  const std::filesystem::path bare = std::filesystem::temp_directory_path() / "ductile_bare_skeleton.urdf";
  std::ofstream(bare) << "<robot name='bare'><link name='base'/><link name='tip'/>"
                         "<joint name='hinge' type='revolute'><parent link='base'/><child link='tip'/>"
                         "<axis xyz='0 1 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>";
  EXPECT_NE(error("skeleton_urdf: '" + bare.string() + "'").find("joint 'hinge' moves no geometry"), std::string::npos)
      << error("skeleton_urdf: '" + bare.string() + "'");
  const std::string mesh_urdf = std::string(DUCTILE_TEST_DATA_DIR) + "/urdf/ductile_test_robot/urdf/robot.urdf";
  EXPECT_NE(error("skeleton_urdf: '" + mesh_urdf + "'").find("select a bone's vertices"), std::string::npos)
      << error("skeleton_urdf: '" + mesh_urdf + "'");
}

TEST(PdScene, BadScenesAreRefusedWithTheReason) {
  const std::string base = R"(
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
)";
  const auto error = [&](const std::string& extra) {
    try {
      CheckModel(CompileModel(LoadSceneFromString(base + extra, "bad.yaml")));
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string cube = "{type: box, size: [0.04, 0.04, 0.04]}";
  EXPECT_NE(error("pd_bodies: {b: {shape: " + cube + ", poisson_ratio: 0.5}}").find("poisson_ratio"),
            std::string::npos);
  EXPECT_NE(error("pd_bodies: {b: {shape: " + cube + ", youngs_modulus: -1}}").find("youngs_modulus"),
            std::string::npos);
  EXPECT_NE(
      error("pd_bodies: {b: {shape: " + cube + ", pin_box: {min: [1, 1, 1], max: [2, 2, 2]}}}").find("holds none"),
      std::string::npos);
  EXPECT_NE(error("pd_bodies: {b: {shape: {type: sheet, width: 0.1, length: 0.1, vertices: 3}}}").find("sheet"),
            std::string::npos);
  EXPECT_NE(error("pd_bodies: {b: {shape: {type: mesh, file: missing.msh}}}").find("not found"), std::string::npos);
  EXPECT_NE(error("pd_bodies: {b: {shape: " + cube + ", muscle_direction: [0, 0, 0]}}").find("must not be zero"),
            std::string::npos);
  EXPECT_NE(error("pd: {friction: -1}\npd_bodies: {b: {shape: " + cube + "}}").find("'friction' must be >= 0"),
            std::string::npos);
  EXPECT_NE(error("simulation: {coupling: strong}\npd_bodies: {b: {shape: " + cube + "}}").find("pd bodies"),
            std::string::npos);
  EXPECT_NE(error("pd_bodies: {b: {shape: " + cube + ", stiffness: 3}}").find("stiffness"), std::string::npos);
  // Skeletons.
  const auto bone = [&](const std::string& b) {
    return error("pd_bodies: {b: {shape: " + cube + ", resolution: 0.02, skeleton: {" + b + "}}}");
  };
  const std::string box = "box: {min: [-0.03, -0.03, -0.03], max: [0.03, 0.03, 0.03]}";
  EXPECT_NE(bone("x: {joint: hinge, " + box + "}").find("revolute"), std::string::npos);
  EXPECT_NE(bone("x: {joint: revolute, parent: y, " + box + "}").find("not a bone listed before it"),
            std::string::npos);
  EXPECT_NE(bone("x: {joint: revolute, axis: [0, 0, 0], " + box + "}").find("must not be zero"), std::string::npos);
  EXPECT_NE(bone("x: {joint: revolute}").find("'box'"), std::string::npos);
  EXPECT_NE(bone("x: {joint: revolute, box: {min: [1, 1, 1], max: [2, 2, 2]}}").find("holds no vertex"),
            std::string::npos);
  EXPECT_NE(bone("x: {joint: revolute, " + box + "}, y: {joint: revolute, parent: x, " + box + "}")
                .find("bone 'y': its box holds no vertex"),
            std::string::npos);
  EXPECT_NE(
      error("pd_bodies: {b: {shape: " + cube + ", resolution: 0.02, pin_box: {min: [-1, -1, -1], max: [1, 1, 1]}, " +
            "skeleton: {x: {joint: revolute, " + box + "}}}}")
          .find("pinned vertices"),
      std::string::npos);
  EXPECT_NE(bone("x: {joint: revolute, " + box + ", torque: .nan}").find("torque"), std::string::npos);
  EXPECT_NE(bone("world: {joint: revolute, " + box + "}").find("names the world"), std::string::npos);
  EXPECT_NE(bone("'a.b': {joint: revolute, " + box + "}").find("may not hold a '.'"), std::string::npos);
}

}  // namespace
}  // namespace ductile
