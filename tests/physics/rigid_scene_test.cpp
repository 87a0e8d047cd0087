// Rigid bodies through the whole path a user takes: a YAML scene (rpy poses, density, contact defaults) compiled
// and stepped by the Simulator. A crate slides down a ramp (a static box tilted 20°, box-box contact through FCL)
// with a = g(sin θ − μ cos θ); the tolerance is the issue's 2%.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "ductile/model.h"
#include "ductile/simulator.h"
#include "ductile/telemetry.h"

namespace ductile {
namespace {

TEST(RigidScene, CrateSlidesDownARampWithTheCoulombAcceleration) {
  const double theta = 20 * M_PI / 180, mu = 0.2, g = 9.81;
  // The ramp's top face passes through the origin; the crate starts resting on it, rotated with it.
  const std::string scene = R"(
simulation: {dt: 1.0e-3, duration: 1.5}
contact: {friction: 0.2, stiffness: 1.0e6, dissipation: 10}
rigid_bodies:
  ramp:
    type: static
    shape: {type: box, size: [6.0, 1.0, 0.2]}
    pose: {position: [0.0342020, 0, -0.0939693], rpy_deg: [0, -20, 0]}
  crate:
    shape: {type: box, size: [0.2, 0.2, 0.2]}
    density: 250
    pose: {position: [-0.0342020, 0, 0.0939693], rpy_deg: [0, -20, 0]}
)";
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "ramp.yaml")));
  Simulator sim(model);
  ASSERT_EQ(sim.num_rigid_bodies(), 1);
  const Eigen::Vector3d down(-std::cos(theta), 0, -std::sin(theta));
  const auto position = [&] {
    const RigidBodySummary s = sim.SummarizeRigidBody(0);
    return Eigen::Vector3d(s.position[0], s.position[1], s.position[2]);
  };
  const Eigen::Vector3d start = position();
  std::vector<double> s;
  for (int step = 1; step <= 1500; ++step) {
    sim.Step();
    ASSERT_TRUE(sim.last_step().sap_converged) << "step " << step;
    const std::vector<double>& cost = sim.last_step().sap_cost_history;
    for (std::size_t k = 1; k < cost.size(); ++k)
      ASSERT_LE(cost[k], cost[k - 1] + 1e-12 * std::abs(cost[k - 1])) << "step " << step;
    if (step % 500 == 0) s.push_back((position() - start).dot(down));
  }
  const double a = (s[2] - 2 * s[1] + s[0]) / (0.5 * 0.5);
  const double expected = g * (std::sin(theta) - mu * std::cos(theta));
  RecordProperty("acceleration", std::to_string(a));
  EXPECT_NEAR(a, expected, 0.02 * expected);
  // The contact report: the ramp (static, "world") pushes the 2 kg crate with the normal force m·g·cos θ plus the
  // sliding friction μ·m·g·cos θ up the slope.
  const std::vector<ContactReport>& contacts = sim.last_step().contacts;
  ASSERT_GT(contacts.size(), 0u);
  Eigen::Vector3d total = Eigen::Vector3d::Zero();
  for (const ContactReport& c : contacts) {
    EXPECT_EQ(c.body_a, "world");
    EXPECT_EQ(c.body_b, "crate");
    total += Eigen::Vector3d(c.force[0], c.force[1], c.force[2]);
  }
  const double m = 2.0, n = m * g * std::cos(theta);
  EXPECT_NEAR(total.dot(Eigen::Vector3d(-std::sin(theta), 0, std::cos(theta))), n, 0.01 * n);
  EXPECT_NEAR(total.dot(-down), mu * n, 0.01 * mu * n);
}

TEST(RigidScene, AppliedForcesJointEffortsAndAMocapWeldThroughTheSceneFormat) {
  // In zero gravity: a free 2 kg box pushed by 4 N accelerates at 2 m/s²; a 1 kg slider on a prismatic joint
  // (a one-joint robot from a URDF written here) driven by a 3 N effort at 3 m/s²; a 0.5 kg cup hanging in gravity
  // from a kinematic handle through a spring-damper weld sags m·g/k below it.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ductile_rigid_scene_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "slider.urdf") << R"(<robot name="slider">
  <link name="base"/>
  <link name="carriage">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="rail" type="prismatic">
    <parent link="base"/><child link="carriage"/><axis xyz="1 0 0"/>
    <limit lower="-10" upper="10" effort="100" velocity="10"/>
  </joint>
</robot>)";
  std::ofstream(dir / "scene.yaml") << R"(
simulation: {dt: 1.0e-3, gravity: [0, 0, 0]}
rigid_bodies:
  box: {shape: {type: box, size: [0.1, 0.1, 0.1]}, mass: 2, pose: {position: [0, 1, 0]}, force: [4, 0, 0]}
  handle:
    type: kinematic
    shape: {type: sphere, radius: 0.01}
    keyframes: [{time: 0, position: [0, -1, 1]}]
  cup: {shape: {type: cylinder, radius: 0.03, length: 0.1}, mass: 0.5, pose: {position: [0, -1, 1]}, force: [0, 0, -4.905]}
robots:
  slider: {urdf: slider.urdf, joint_efforts: {rail: 3}}
welds:
  mocap: {body_a: handle, body_b: cup, stiffness: 1000, damping: 44.7}
)";
  auto model = std::make_shared<const Model>(CompileModel(LoadScene(dir / "scene.yaml")));
  Simulator sim(model);
  const auto find = [&](const std::string& name) {
    for (int i = 0; i < sim.num_rigid_bodies(); ++i)
      if (sim.SummarizeRigidBody(i).name == name) return i;
    return -1;
  };
  const int box = find("box"), carriage = find("slider/carriage"), cup = find("cup");
  ASSERT_GE(box, 0);
  ASSERT_GE(carriage, 0);
  ASSERT_GE(cup, 0);
  for (int i = 0; i < 1000; ++i) sim.Step();
  // Symplectic Euler from rest: x(n·Δt) = a·Δt²·n(n + 1)/2, i.e. ½at² + ½aΔt·t.
  const double t = 1.0, dt = 1e-3;
  EXPECT_NEAR(sim.SummarizeRigidBody(box).position[0], 0.5 * 2 * t * (t + dt), 1e-9);
  EXPECT_NEAR(sim.SummarizeRigidBody(carriage).position[0], 0.5 * 3 * t * (t + dt), 1e-9);
  // The cup's weight is applied as a force (gravity is off): 4.905 N over k = 1000 N/m.
  EXPECT_NEAR(1.0 - sim.SummarizeRigidBody(cup).position[2], 4.905 / 1000, 0.02 * 4.905e-3);
  std::filesystem::remove_all(dir);
}

TEST(RigidScene, ACollisionFilterLetsABodyPassThrough) {
  const std::string scene = R"(
simulation: {dt: 1.0e-3}
rigid_bodies:
  table: {type: static, shape: {type: box, size: [1, 1, 0.1]}, pose: {position: [0, 0, 0.5]}}
  kept: {shape: {type: box, size: [0.1, 0.1, 0.1]}, mass: 1, pose: {position: [-0.2, 0, 0.6]}}
  ghost: {shape: {type: box, size: [0.1, 0.1, 0.1]}, mass: 1, pose: {position: [0.2, 0, 0.6]}}
collision_filters:
  through_the_table: {body_a: ghost, body_b: table}
)";
  Simulator sim(std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "filter.yaml"))));
  for (int i = 0; i < 500; ++i) sim.Step();
  EXPECT_NEAR(sim.SummarizeRigidBody(0).position[2], 0.6, 1e-3);  // rests on the table
  EXPECT_LT(sim.SummarizeRigidBody(1).position[2], 0.0);          // fell through it (0.5 s: 1.2 m)
}

TEST(RigidScene, APinOnAKinematicCarrierRollsWithoutSlipping) {
  // A rolling pin (radius 3 cm) on a revolute joint about its own axis, carried at 0.2 m/s along x and pressed
  // 0.2 mm into the ground, spins by friction at ω = v/r = 6.67 rad/s (tolerance 2%: the regularised friction's
  // creep is v_s = 1e-4 m/s, 0.05% of v).
  const std::string scene = R"(
simulation: {dt: 1.0e-3}
contact: {friction: 0.8}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  carrier:
    type: kinematic
    shape: {type: sphere, radius: 0.005}
    keyframes: [{time: 0, position: [0, 0, 0.0298]}, {time: 2, position: [0.4, 0, 0.0298]}]
  pin:
    shape: {type: cylinder, radius: 0.03, length: 0.3}
    mass: 0.5
    joint: {type: revolute, parent: carrier, origin: {rpy_deg: [90, 0, 0]}, axis: [0, 0, 1]}
collision_filters:
  carrier_free: {body_a: carrier, body_b: ground}
)";
  Simulator sim(std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "pin.yaml"))));
  int pin = -1;
  for (int i = 0; i < sim.num_rigid_bodies(); ++i)
    if (sim.SummarizeRigidBody(i).name == "pin") pin = i;
  ASSERT_GE(pin, 0);
  const auto rotation = [&] {
    const auto q = sim.SummarizeRigidBody(pin).quaternion;
    return Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
  };
  for (int i = 0; i < 1000; ++i) sim.Step();
  const Eigen::Quaterniond before = rotation();
  for (int i = 0; i < 100; ++i) sim.Step();
  const Eigen::AngleAxisd turn(rotation() * before.conjugate());
  const double spin = turn.angle() / 0.1;
  RecordProperty("spin_rad_per_s", std::to_string(spin));
  EXPECT_NEAR(spin, 0.2 / 0.03, 0.02 * 0.2 / 0.03);
  EXPECT_GT(std::abs(turn.axis().y()), 0.999);  // about the pin's axis, world y
}

}  // namespace
}  // namespace ductile
