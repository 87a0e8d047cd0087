// The FEM–IPC domain inside the Simulator (docs/architecture.md, "FEM with IPC contact"): the soft-cube grasp scene
// (scenes/soft_cube_grasp.yaml) lifts and shakes the cube by friction with every surface apart, the fingers feel its
// weight through the coupling's impulses, a saved state resumes bitwise, live edits act, and bad scenes are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"
#include "fem/affine_body.h"
#include "model/fem_model.h"
#include "physics/cloth_checks.h"
#include "physics/scene_fixture.h"
#include "physics/teleop_scenarios.h"
#include "state/state_data.h"

namespace ductile {
namespace {

constexpr double kGravity = 9.81;

std::shared_ptr<const Model> GraspScene(const std::vector<Override>& overrides = {}) {
  return std::make_shared<const Model>(
      CompileModel(LoadScene(std::string(DUCTILE_SOURCE_DIR) + "/scenes/soft_cube_grasp.yaml", overrides)));
}

// The intersecting pairs of IPC surface triangles at the state's positions (doubles, as the solver has them; corners
// numbered over all surfaces so that triangles sharing a vertex are not counted) of which at least one belongs to a
// soft or affine body: rigid geometry may overlap rigid geometry (a robot's links do), which is the rigid step's
// business.
int IntersectingIpcTriangles(const Model& model, const fem::IpcState& state) {
  const FemModel& fem = *model.fem;
  std::vector<testing::Triangle> triangles;
  std::vector<std::array<std::uint32_t, 3>> corners;
  std::vector<Eigen::Vector3d> points;
  const auto add = [&](const std::vector<std::array<int, 3>>& faces, std::size_t first) {
    for (const std::array<int, 3>& f : faces) {
      testing::Triangle t;
      std::array<std::uint32_t, 3> c{};
      for (int k = 0; k < 3; ++k) {
        const Eigen::Vector3d& p = points[first + static_cast<std::size_t>(f[k])];
        t[k] = {p.x(), p.y(), p.z()};
        c[k] = static_cast<std::uint32_t>(first + static_cast<std::size_t>(f[k]));
      }
      triangles.push_back(t);
      corners.push_back(c);
    }
  };
  std::size_t first = 0;
  points = state.x;
  for (const FemModel::SoftBody& b : fem.soft_bodies) {
    add(b.surface, first);
    first += b.desc.vertices.size();
  }
  for (std::size_t a = 0; a < fem.affine_bodies.size(); ++a) {
    first = points.size();
    for (const Eigen::Vector3d& x_bar : fem.affine_bodies[a].desc.vertices)
      points.push_back(fem::AffinePoint(state.q[a], x_bar));
    add(fem.affine_bodies[a].desc.faces, first);
  }
  const std::size_t deformable_triangles = triangles.size();
  std::size_t kinematic = 0;
  for (const FemModel::Kinematic& k : fem.kinematic) {
    first = points.size();
    for (std::size_t v = 0; v < k.desc.vertices.size(); ++v) points.push_back(state.kinematic_points[kinematic + v]);
    kinematic += k.desc.vertices.size();
    add(k.desc.faces, first);
  }
  return testing::CountIntersectingPairs(triangles, corners, deformable_triangles);
}

// The first soft body's centre of mass (the trajectory's row).
Eigen::Vector3d CubeCentre(const Simulator& sim) {
  const IpcBodySummary s = sim.SummarizeIpcBody(0);
  return {s.position[0], s.position[1], s.position[2]};
}

// Close, lift 5 cm, shake ±1 cm, hold (the scene's comment): the cube rises with the fingers within 5 mm (it may
// slip a little while the grip builds up, and it sags under its weight: the library's close–lift test in
// tests/physics/ipc_test.cpp holds it to the same bound), follows the shake sideways within 3 mm, the minimum
// distance stays positive in every step (over every Newton iterate), and no two IPC surface triangles intersect
// (exact test) at any output frame (every step here: 50 Hz at Δt = 0.02 s).
TEST(FemScene, SoftCubeIsGraspedLiftedAndShakenWithoutInterpenetration) {
  Simulator sim(GraspScene());
  const Eigen::Vector3d start = CubeCentre(sim);
  ASSERT_EQ(IntersectingIpcTriangles(sim.model(), sim.state().data().fem), 0);
  double max_y = -1, min_y = 1;
  while (sim.time() < sim.model().duration - 1e-9) {
    sim.Step();
    const StepTelemetry& t = sim.last_step();
    ASSERT_TRUE(t.has_ipc);
    ASSERT_GT(t.ipc_min_distance, 0) << "t = " << sim.time();
    ASSERT_TRUE(t.ipc_converged) << "t = " << sim.time();
    ASSERT_EQ(IntersectingIpcTriangles(sim.model(), sim.state().data().fem), 0) << "t = " << sim.time();
    if (sim.time() > 0.7 && sim.time() < 1.3) {
      max_y = std::max(max_y, CubeCentre(sim).y());
      min_y = std::min(min_y, CubeCentre(sim).y());
    }
    if (std::abs(sim.time() - 0.7) < 1e-9) {
      EXPECT_NEAR(CubeCentre(sim).z() - start.z(), 0.05, 0.005);
    }
  }
  EXPECT_NEAR(CubeCentre(sim).z() - start.z(), 0.05, 0.005);
  EXPECT_NEAR(max_y, 0.01, 0.003);
  EXPECT_NEAR(min_y, -0.01, 0.003);
}

// While the fingers hold the cube still (from t = 1.3 s), their contact forces (the IPC impulses the rigid step
// takes, divided by Δt) carry its weight: the vertical forces on the two fingers sum to −m g within 5% (measured 2.0%:
// what the last Newton direction below the tolerance 1e-3 m/s leaves of the friction force, the scene's comment;
// the cube also creeps down at under ε_v, which the smoothed friction needs to carry it).
TEST(FemScene, TheFingersFeelTheCubesWeight) {
  Simulator sim(GraspScene());
  testing::RunUntil(sim, 1.36);
  double fz = 0;
  int samples = 0;
  while (sim.time() < 1.6 - 1e-9) {
    sim.Step();
    for (int b = 0; b < sim.num_rigid_bodies(); ++b) fz += sim.SummarizeRigidBody(b).contact_force[2];
    ++samples;
  }
  const double weight = sim.model().fem->soft_bodies[0].mass * kGravity;
  EXPECT_NEAR(-fz / samples, weight, 0.05 * weight);
}

// Save at 0.4 s (the cube in the lifting grip), go on 0.2 s; restore and go on again: the same state, bitwise.
TEST(FemScene, ASavedStateResumesBitwise) {
  Simulator sim(GraspScene());
  testing::RunUntil(sim, 0.4);
  const std::vector<std::uint8_t> saved = sim.SaveState();
  testing::RunUntil(sim, 0.6);
  const std::uint64_t straight = sim.StateHash();
  sim.RestoreState(saved);
  testing::RunUntil(sim, 0.6);
  EXPECT_EQ(sim.StateHash(), straight);

  Simulator other(GraspScene());  // a fresh simulator of the same scene takes the state too
  other.RestoreState(saved);
  testing::RunUntil(other, 0.6);
  EXPECT_EQ(other.StateHash(), straight);
}

// A live edit of the soft body's Young's modulus acts from the next step: the squeezed cube of E = 4e5 Pa pushes the
// fingers apart harder than the one of 1e5 Pa (the finger force grows with the stiffness at a given squeeze).
TEST(FemScene, ALiveEditOfTheStiffnessActs) {
  Simulator soft(GraspScene()), stiff(GraspScene());
  testing::RunUntil(soft, 0.2);
  testing::RunUntil(stiff, 0.2);
  ASSERT_EQ(stiff.SetParameter("soft_bodies.cube.youngs_modulus", "4e5"), "");
  testing::RunUntil(soft, 0.3);
  testing::RunUntil(stiff, 0.3);
  const auto squeeze = [](const Simulator& sim) {
    double f = 0;
    for (int b = 0; b < sim.num_rigid_bodies(); ++b) f += std::abs(sim.SummarizeRigidBody(b).contact_force[0]);
    return f;
  };
  EXPECT_GT(squeeze(stiff), 2 * squeeze(soft));
  EXPECT_NE(soft.SetParameter("soft_bodies.cube.resolution", "0.01"), "") << "a new mesh needs a reset";
}

// Steps `sim` until `t_end` [s], checking in every step that the minimum distance stayed positive (over every Newton
// iterate) and that no IPC surface triangles intersect.
void RunCheckingContact(Simulator& sim, double t_end) {
  while (sim.time() + 0.5 * sim.model().dt < t_end) {
    sim.Step();
    ASSERT_GT(sim.last_step().ipc_min_distance, 0) << "t = " << sim.time();
    ASSERT_EQ(IntersectingIpcTriangles(sim.model(), sim.state().data().fem), 0) << "t = " << sim.time();
  }
}

// The soft ball dropped on the stack of three affine blocks (scenes/soft_ball_on_stack.yaml) comes to rest on the
// top block (its centre within its radius of the block's top: it squashes by about 1 mm under its weight), and the
// stack stands: no block moves more than 2 mm sideways or tilts more than 1°.
TEST(FemScene, ASoftBallSettlesOnAStackOfAffineBlocks) {
  auto sim = testing::SimulatorForScene("soft_ball_on_stack.yaml", {});
  std::vector<IpcBodySummary> start;
  for (int b = 1; b < sim->num_ipc_bodies(); ++b) start.push_back(sim->SummarizeIpcBody(b));
  RunCheckingContact(*sim, 1.0);
  const double top_of_stack = 0.1825;  // the top block's upper face
  EXPECT_NEAR(sim->SummarizeIpcBody(0).position[2], top_of_stack + 0.03, 0.003);
  for (int b = 1; b < sim->num_ipc_bodies(); ++b) {
    const IpcBodySummary now = sim->SummarizeIpcBody(b);
    const IpcBodySummary& then = start[static_cast<std::size_t>(b - 1)];
    SCOPED_TRACE(now.name);
    EXPECT_LT(std::hypot(now.position[0] - then.position[0], now.position[1] - then.position[1]), 0.002);
    EXPECT_LT(2 * std::acos(std::min(1.0, std::abs(now.quaternion[0]))), M_PI / 180);
  }
}

// The soft sheet dropped on the cone (scenes/soft_sheet_on_cone.yaml) drapes over it: after 1 s it rests on the apex
// (its highest point above the cone's 12 cm), its edges hang at least 3 cm lower, and its surface never touched or
// crossed the cone or itself.
TEST(FemScene, ASoftSheetDrapesOverAConeWithoutInterpenetration) {
  auto sim = testing::SimulatorForScene("soft_sheet_on_cone.yaml", {});
  RunCheckingContact(*sim, 1.0);
  double low = 1, high = -1;
  for (const Eigen::Vector3d& x : sim->state().data().fem.x) {
    low = std::min(low, x.z());
    high = std::max(high, x.z());
  }
  EXPECT_GT(high, 0.12);
  EXPECT_LT(high, 0.135);
  EXPECT_LT(low, high - 0.03);
}

// The iiwa picks the soft toy off the table (scenes/soft_toy_pick.yaml) as a person at the Teleop dock would: the tool
// comes down 10 cm around the toy in 0.5 s, the gripper closes with 2 N per finger, the tool lifts 10 cm from 0.8 s
// to 1.4 s and holds until 2 s. The toy rises with the tool (within 1.5 cm: it sags in the grip and the fingers'
// pads sit a little off its centre), stays in the grip over the hold (drift under 5 mm), and in every step the
// minimum distance is positive and no IPC surface triangles intersect (exact test) — the robot's links, the
// fingers, the table and the toy. With DUCTILE_TELEOP_DEMO_DIR set it writes the shipped demo log
// (scripts/make-demos).
TEST(TeleopScenes, SoftToyIsPickedOffTheTable) {
  auto sim = testing::SimulatorForScene("soft_toy_pick.yaml", {});
  using testing::Vec3;
  const Vec3 above{0.6, 0, 0.33}, at{0.6, 0, 0.23}, lifted{0.6, 0, 0.33};
  std::vector<testing::TeleopScript> scripts{
      testing::TeleopScript("arm", {{0.0, above}, {0.5, at}, {0.8, at}, {1.4, lifted}}, {{0.5, 0.0, 2.0}})};
  const double start_z = CubeCentre(*sim).z();
  double lifted_z = 0, drift = 0, worst_tracking = 0;
  testing::Drive(*sim, "soft_toy_pick.yaml", "soft_toy_pick", scripts, 2.0, [&] {
    ASSERT_GT(sim->last_step().ipc_min_distance, 0) << "t = " << sim->time();
    ASSERT_EQ(IntersectingIpcTriangles(sim->model(), sim->state().data().fem), 0) << "t = " << sim->time();
    worst_tracking = std::max(worst_tracking, sim->GetTeleopStatus("arm").tracking);
    const double z = CubeCentre(*sim).z();
    if (std::abs(sim->time() - 1.4) < 0.5 * sim->model().dt) lifted_z = z;
    if (sim->time() > 1.4) drift = std::max(drift, std::abs(z - lifted_z));
  });
  double low = 1, high = -1;
  for (const Eigen::Vector3d& x : sim->state().data().fem.x) {
    low = std::min(low, x.z());
    high = std::max(high, x.z());
  }
  std::printf(
      "soft toy pick: rise %.2f mm, drift over the hold %.2f mm, worst tracking %.2f mm, toy from z = %.4f to "
      "%.4f m\n",
      1e3 * (lifted_z - start_z), 1e3 * drift, 1e3 * worst_tracking, low, high);
  // Off the table (its top at z = 0.2 m), in one piece: squeezed, the 5 cm ball is taller than it is wide but not
  // twice its diameter.
  EXPECT_GT(low, 0.25);
  EXPECT_LT(high - low, 0.1);
  EXPECT_NEAR(lifted_z - start_z, 0.1, 0.015);
  EXPECT_LT(drift, 0.005);
  EXPECT_LT(worst_tracking, 5e-3);
}

// A bar hanging from its pinned top face (`pin_box`) stretches under its weight as linear elasticity says: with ν = 0
// the displacement at depth s below the top is u(s) = ρg(Ls − s²/2)/E, so its centre of mass sinks by ρgL²/(3E)
// (0.327 mm for the 10 cm bar of E = 1e5 Pa). Within 2%: the strain is at most 1e-3, where neo-Hookean is linear to
// 0.1%; lumped masses and linear tets in uniaxial stretch are exact up to the mesh's discretisation of the weight
// (measured 0.3%). Implicit Euler damps the first oscillation out well before 0.6 s.
TEST(FemScene, AHangingBarStretchesUnderItsWeightAsLinearElasticitySays) {
  auto sim = testing::SimulatorFromYaml(R"(
simulation: {dt: 0.01}
grid: {h: 0.05, domain: {min: [-0.1, -0.1, 0], max: [0.1, 0.1, 0.3]}}
soft_bodies:
  bar:
    shape: {type: box, size: [0.02, 0.02, 0.1]}
    resolution: 0.005
    youngs_modulus: 1.0e5
    poisson_ratio: 0.0
    density: 1000
    pose: {position: [0, 0, 0.15]}
    pin_box: {min: [-1, -1, 0.1999], max: [1, 1, 1]}
ipc: {newton_tolerance: 1.0e-6}
)");
  testing::RunUntil(*sim, 0.6);
  const double L = 0.1, expected = 1000 * kGravity * L * L / (3 * 1e5);
  EXPECT_NEAR(0.15 - sim->SummarizeIpcBody(0).position[2], expected, 0.02 * expected);
  // The pinned top face stays where it was.
  double top = 0;
  for (const Eigen::Vector3d& x : sim->state().data().fem.x) top = std::max(top, x.z());
  EXPECT_EQ(top, 0.2);
}

// A snapshot holds each soft and affine body once, at the state's positions, also when the caller reuses it from step
// to step (the studio and the recorder do: a video once showed every earlier pose of the toy); with stresses, the
// squeezed cube's von Mises stress is positive where the fingers press.
TEST(FemScene, ASnapshotHoldsEachBodyOnceAtItsPosition) {
  Simulator sim(GraspScene());
  Snapshot snapshot;
  sim.CaptureSnapshot(snapshot, false);
  testing::RunUntil(sim, 0.3);
  sim.CaptureSnapshot(snapshot, true);
  ASSERT_EQ(snapshot.soft_bodies.size(), 1u);
  const SnapshotSoftBody& body = snapshot.soft_bodies[0];
  EXPECT_EQ(body.name, "cube");
  EXPECT_FALSE(body.affine);
  const std::vector<Eigen::Vector3d>& x = sim.state().data().fem.x;
  ASSERT_EQ(body.vertices.size(), x.size());
  for (std::size_t v = 0; v < x.size(); ++v)
    for (int a = 0; a < 3; ++a) EXPECT_EQ(body.vertices[v][a], static_cast<float>(x[v][a]));
  ASSERT_EQ(body.von_mises.size(), x.size());
  EXPECT_GT(*std::max_element(body.von_mises.begin(), body.von_mises.end()), 0.0f);
  ASSERT_TRUE(body.triangles);
  EXPECT_EQ(body.triangles->size(), sim.model().fem->soft_bodies[0].surface.size());
}

// Bad input names what and where: a soft body that starts inside a rigid body, a missing Gmsh file, a pin box that
// holds nothing, the strong coupling.
TEST(FemScene, BadScenesAreRefusedWithTheReason) {
  const std::string base = R"(
grid: {h: 0.05, domain: {min: [-0.1, -0.1, 0], max: [0.1, 0.1, 0.2]}}
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
  EXPECT_NE(error("soft_bodies: {cube: {shape: {type: box, size: [0.04, 0.04, 0.04]}, pose: {position: [0, 0, 0.01]}}}")
                .find("touching or intersecting"),
            std::string::npos);
  EXPECT_NE(error("soft_bodies: {cube: {shape: {type: mesh, file: missing.msh}}}").find("not found"),
            std::string::npos);
  EXPECT_NE(error("soft_bodies: {cube: {shape: {type: box, size: [0.04, 0.04, 0.04]}, pose: {position: [0, 0, 0.03]},"
                  " pin_box: {min: [1, 1, 1], max: [2, 2, 2]}}}")
                .find("holds none"),
            std::string::npos);
  EXPECT_NE(error("soft_bodies: {cube: {shape: {type: box, size: [0.04, 0.04, 0.04]}, poisson_ratio: 0.5}}")
                .find("poisson_ratio"),
            std::string::npos);
  // The strong coupling takes one soft body (tests/physics/fem_strong_test.cpp), not two.
  EXPECT_NE(error("simulation: {coupling: strong}\n"
                  "soft_bodies: {cube: {shape: {type: box, size: [0.04, 0.04, 0.04]}, pose: {position: [0, 0, 0.03]}},"
                  " other: {shape: {type: box, size: [0.04, 0.04, 0.04]}, pose: {position: [0.1, 0, 0.03]}}}")
                .find("takes one soft body"),
            std::string::npos);
  EXPECT_NE(error("affine_bodies: {plate: {shape: {type: sheet, width: 0.1, length: 0.1, vertices: 3}}}").find("sheet"),
            std::string::npos);
}

}  // namespace
}  // namespace ductile
