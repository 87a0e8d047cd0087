// The FEM–IPC system against analytic references: resting contact forces, free rotation of an affine body, friction
// on an incline, a stack, a fast body against a thin plate; IPC's invariant (no iterate closer than zero, no
// intersecting triangles) in each.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>

#include "fem/affine_body.h"
#include "fem/ipc_distance.h"
#include "fem/ipc_system.h"
#include "fem/tet_mesh.h"
#include "fem/tetrahedralise.h"
#include "physics/cloth_checks.h"
#include "support/ipc_fixture.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;
using testing::At;
using testing::BoxSurface;
using testing::CloseLift;
using testing::SoftBox;

constexpr double kGravity = 9.81;

AffineBodyDesc AffineBox(const Vector3d& half, double density, const Eigen::Isometry3d& pose) {
  AffineBodyDesc d;
  BoxSurface(half, d.vertices, d.faces);
  d.volume = 8 * half.prod();
  d.mass = density * d.volume;
  // S = ∫ρ x̄x̄ᵀ = m/3 diag(hx², hy², hz²) for a box.
  d.second_moment = d.mass / 3 * half.cwiseProduct(half).asDiagonal();
  d.stiffness = 1e8;
  d.pose = pose;
  return d;
}

// Whether any two surface triangles that share no vertex intersect (exactly: support/triangle_intersection.h).
bool AnyTrianglesIntersect(const IpcSystem& system) {
  const std::vector<Vector3d> x = system.SurfacePositions();
  std::vector<testing::Triangle> triangles;
  std::vector<std::array<std::uint32_t, 3>> corners;
  for (const auto& f : system.surface().faces) {
    testing::Triangle t;
    for (int k = 0; k < 3; ++k) t[k] = {x[f[k]].x(), x[f[k]].y(), x[f[k]].z()};
    triangles.push_back(t);
    corners.push_back(
        {static_cast<std::uint32_t>(f[0]), static_cast<std::uint32_t>(f[1]), static_cast<std::uint32_t>(f[2])});
  }
  return testing::CountIntersectingPairs(triangles, corners) > 0;
}

// Runs `steps` steps, checking the invariant in every iterate and every output frame.
void RunChecked(IpcSystem& system, double h, int steps, bool check_intersections = true) {
  for (int s = 0; s < steps; ++s) {
    const IpcStepReport r = system.Step(h);
    for (double d : system.iterate_min_distances()) ASSERT_GT(d, 0) << "step " << s;
    ASSERT_GT(r.min_distance, 0);
    if (check_intersections) {
      ASSERT_FALSE(AnyTrianglesIntersect(system)) << "step " << s;
    }
  }
}

// A resting affine box's weight is carried by the ground's barrier: their sum equals m g within 1% (the step's
// velocity has decayed: implicit Euler damps the bounce).
TEST(FemIpc, AnAffineBoxRestsOnTheGroundWithItsWeight) {
  IpcSystem system;
  const double density = 500;
  system.AddAffineBody(AffineBox({0.05, 0.05, 0.05}, density, At({0, 0, 0.0505})));
  system.AddHalfSpace({});
  system.Finalize();
  RunChecked(system, 0.01, 60);
  const double weight = density * 0.001 * kGravity;
  EXPECT_NEAR(system.half_space_normal_forces()[0], weight, 0.01 * weight);
  EXPECT_NEAR(system.affine_q_dot(0).norm(), 0, 1e-3);
  EXPECT_GT(system.affine_q(0)[2], 0.05);
}

// A two-box stack: the ground carries both boxes' weight within 1%.
TEST(FemIpc, AStacksWeightReachesTheGround) {
  IpcSystem system;
  system.AddAffineBody(AffineBox({0.05, 0.05, 0.05}, 500, At({0, 0, 0.0505})));
  system.AddAffineBody(AffineBox({0.03, 0.03, 0.03}, 800, At({0.01, 0, 0.1315})));
  system.AddHalfSpace({});
  system.Finalize();
  RunChecked(system, 0.01, 80);
  const double weight = (500 * 0.001 + 800 * 0.000216) * kGravity;
  EXPECT_NEAR(system.half_space_normal_forces()[0], weight, 0.01 * weight);
  EXPECT_GT(system.affine_q(1)[2], system.affine_q(0)[2] + 0.079);
}

// A soft cube dropped on the ground comes to rest on it, carried by the ground (1%). A step ends when its Newton
// increment is below the tolerance, so a resting body's force balance holds to about m·tol/h: 1e-5 m/s keeps that
// at 0.01% of the weight (IPC's usual 1e-3 m/s would leave 1%).
TEST(FemIpc, ASoftCubeComesToRestOnTheGround) {
  IpcSystem system;
  IpcSettings settings;
  settings.newton_tolerance = 1e-5;
  system.set_settings(settings);
  system.AddSoftBody(SoftBox({0.025, 0.025, 0.025}, 0.0125, {0, 0, 0.04}, 1e5, 0.4));
  system.AddHalfSpace({});
  system.Finalize();
  ASSERT_FALSE(AnyTrianglesIntersect(system));
  RunChecked(system, 0.01, 150);
  const double weight = 1000 * std::pow(0.05, 3) * kGravity;
  EXPECT_NEAR(system.half_space_normal_forces()[0], weight, 0.01 * weight);
  double min_z = 1;
  for (const Vector3d& p : system.soft_positions()) min_z = std::min(min_z, p.z());
  EXPECT_GT(min_z, 0);
  EXPECT_LT(min_z, 1e-3);  // within d̂ of the ground
}

// An affine box spinning freely (no gravity, no contact) about a principal axis: ‖AAᵀ − I‖ stays small, the
// momentum stays about that axis, and its magnitude follows implicit Euler's damping of a rotation kept on SO(3) by
// a stiff potential. With θₙ the angle turned in step n: the prediction 2Aₙ − Aₙ₋₁ = Aₙ(2I − R(θₙ)ᵀ) projects back
// onto the rotation by atan(sin θₙ / (2 − cos θₙ)), so θ₁ = atan(ωh) and θₙ₊₁ = atan(sin θₙ / (2 − cos θₙ)), a loss
// of about θ² per step (−22% over 1 s at ω = 5 rad/s, h = 0.01 s); the angular momentum is then S-weighted
// sin θₙ / h. The test checks the turned angle and the momentum against that recurrence within 0.5%.
TEST(FemIpc, AFreelySpinningAffineBoxKeepsItsShapeAndLosesMomentumAsImplicitEulerDoes) {
  IpcSystem system;
  IpcSettings settings;
  settings.gravity.setZero();
  settings.newton_tolerance = 1e-6;  // the angle's recurrence, not the Newton tolerance, sets the result
  system.set_settings(settings);
  const double omega = 5, h = 0.01;
  AffineBodyDesc box = AffineBox({0.1, 0.05, 0.025}, 1000, At({0, 0, 1}));
  box.angular_velocity = Vector3d(0, 0, omega);
  system.AddAffineBody(box);
  system.Finalize();
  const Vector3d L0 = AffineAngularMomentum(system.affine_q(0), system.affine_q_dot(0), system.affine_mass(0),
                                            system.affine_second_moment(0));
  double max_orthogonality = 0, theta = std::atan(omega * h), angle = 0;
  constexpr int kSteps = 100;
  for (int s = 0; s < kSteps; ++s) {
    system.Step(h);
    const Eigen::Matrix3d A = AffineMatrix(system.affine_q(0));
    max_orthogonality = std::max(max_orthogonality, (A * A.transpose() - Eigen::Matrix3d::Identity()).norm());
    angle += theta;
    if (s + 1 < kSteps) theta = std::atan(std::sin(theta) / (2 - std::cos(theta)));
  }
  const Vector3d L = AffineAngularMomentum(system.affine_q(0), system.affine_q_dot(0), system.affine_mass(0),
                                           system.affine_second_moment(0));
  EXPECT_LT(max_orthogonality, 1e-5);
  const double expected_L = L0.z() * std::sin(theta) / (omega * h);
  EXPECT_NEAR(L.z(), expected_L, 0.005 * expected_L);
  EXPECT_LT(L.z(), 0.85 * L0.z());  // the damping is real: this is what the recurrence predicts, not conservation
  EXPECT_NEAR(L.head<2>().norm(), 0, 1e-9 * L0.z());
  const Eigen::Matrix3d A = AffineMatrix(system.affine_q(0));
  EXPECT_NEAR(std::remainder(std::atan2(A(1, 0), A(0, 0)) - angle, 2 * M_PI), 0, 0.005 * angle);
}

// A box on a plane inclined by θ: it sticks when tan θ ≤ μ and otherwise slides with a = g (sin θ − μ cos θ).
void InclineRun(double theta, double mu, double& acceleration, double& slip) {
  IpcSystem system;
  IpcSettings settings;
  settings.friction = mu;
  settings.gravity = kGravity * Vector3d(std::sin(theta), 0, -std::cos(theta));  // the incline's frame: ground z = 0
  system.set_settings(settings);
  system.AddAffineBody(AffineBox({0.05, 0.05, 0.05}, 500, At({0, 0, 0.0505})));
  system.AddHalfSpace({});
  system.Finalize();
  const double h = 0.01;
  RunChecked(system, h, 30, false);  // settle onto the plane
  const double x0 = system.affine_q(0)[0], v0 = system.affine_q_dot(0)[0];
  constexpr int kSteps = 40;
  RunChecked(system, h, kSteps, false);
  const double t = kSteps * h;
  acceleration = (system.affine_q_dot(0)[0] - v0) / t;
  slip = system.affine_q(0)[0] - x0;
}

TEST(FemIpc, ABoxOnAnInclineSticksOrSlidesAsCoulombSays) {
  double a = 0, slip = 0;
  // tan 20° = 0.364 < μ = 0.5: sticks (the smoothed friction creeps below ε_v = 1 mm/s: < 0.4 mm in 0.4 s).
  InclineRun(20 * M_PI / 180, 0.5, a, slip);
  EXPECT_LT(std::abs(slip), 4e-4);
  // tan 30° = 0.577 > μ = 0.2: slides at g (sin θ − μ cos θ) = 3.206 m/s², within 2% (the lagged normal force
  // follows the settled contact).
  const double theta = 30 * M_PI / 180;
  InclineRun(theta, 0.2, a, slip);
  const double expected = kGravity * (std::sin(theta) - 0.2 * std::cos(theta));
  EXPECT_NEAR(a, expected, 0.02 * expected);
}

// A small affine cube shot at 20 m/s at a fixed 2 mm thin (kinematic) plate, no gravity, stays on its side: CCD
// bounds every step, whatever the speed.
TEST(FemIpc, AFastSmallBodyNeverPassesThroughAThinPlate) {
  IpcSystem system;
  IpcSettings settings;
  settings.gravity.setZero();
  system.set_settings(settings);
  KinematicBodyDesc plate;
  BoxSurface({0.1, 0.1, 0.001}, plate.vertices, plate.faces);
  plate.pose = At({0, 0, 0});
  system.AddKinematicBody(plate);
  AffineBodyDesc bullet = AffineBox({0.005, 0.005, 0.005}, 2000, At({0.003, -0.002, 0.05}));
  bullet.velocity = Vector3d(0, 0, -20);
  system.AddAffineBody(bullet);
  system.Finalize();
  RunChecked(system, 0.01, 10);
  EXPECT_GT(system.affine_q(0)[2], 0.001 + 0.005);  // above the plate's top face
}

// Two kinematic fingers close 4 mm on a soft cube (E = 1e5 Pa, 5 cm) resting on the ground, then lift 5 cm in
// 0.5 s (ZeMa's close–lift): friction (μ = 0.8) carries the cube up with them — its centre rises by the lift within
// 5 mm of slip — and the fingers feel its weight: the vertical force on them, averaged over the last 0.1 s of the
// lift (constant speed), is m g within 10%. The Newton tolerance is 1e-6 m/s: the stopping rule bounds the step, so
// the force left unbalanced is up to the stiffness times h·tol, and sticking friction is stiff (μλ/(ε_v h) ≈ 2e6 N/m
// here: 1e-3 m/s would leave tens of newtons).
TEST(FemIpc, KinematicFingersLiftASoftCubeByFriction) {
  IpcSystem system;
  IpcSettings settings;
  settings.friction = 0.8;
  settings.newton_tolerance = 1e-6;
  system.set_settings(settings);
  CloseLift::Build(system, 0.0125);
  system.Finalize();
  auto centre = [&] {
    Vector3d c = Vector3d::Zero();
    for (const Vector3d& p : system.soft_positions()) c += p;
    return Vector3d(c / static_cast<double>(system.soft_positions().size()));
  };
  const double z0 = centre().z(), dt = 0.02;
  double lift_force = 0;
  int averaged = 0;
  for (int step = 1; step <= 35; ++step) {
    CloseLift::SetTargets(system, step * dt);
    const IpcStepReport r = system.Step(dt);
    ASSERT_GT(r.min_distance, 0);
    ASSERT_TRUE(r.converged) << "step " << step;
    ASSERT_FALSE(AnyTrianglesIntersect(system)) << "step " << step;
    ASSERT_LE(r.kinematic_lag, settings.newton_tolerance * dt) << "step " << step;
    if (step > 30) {
      lift_force -= system.kinematic_wrench(0).force.z() + system.kinematic_wrench(1).force.z();
      ++averaged;
    }
  }
  ASSERT_FALSE(AnyTrianglesIntersect(system));
  EXPECT_NEAR(centre().z() - z0, 0.05, 0.005);
  const double weight = 1000 * std::pow(0.05, 3) * kGravity;
  EXPECT_NEAR(lift_force / averaged, weight, 0.1 * weight);
}

// A saved state restores bitwise: the run from it repeats exactly; a state of another scene is refused.
// A kinematic body that overlaps the ground (a robot link or rigid body resting on it, as the rigid step leaves it)
// moves freely: kinematic points never meet a half-space, in the pairs nor in the CCD bound, so the step ends at its
// target in a few iterations (it ran into the iteration limit with the bound blocking every step at zero).
TEST(FemIpc, AKinematicBodyThroughTheGroundMovesFreely) {
  IpcSystem system;
  system.AddSoftBody(SoftBox({0.02, 0.02, 0.02}, 0.02, {0.3, 0, 0.0205}, 1e5, 0.4));
  fem::KinematicBodyDesc ball;
  testing::BoxSurface({0.02, 0.02, 0.02}, ball.vertices, ball.faces);
  ball.pose = At({0, 0, 0.0195});  // 0.5 mm into the ground
  system.AddKinematicBody(ball);
  system.AddHalfSpace({});
  system.Finalize();
  for (int s = 1; s <= 5; ++s) {
    system.SetKinematicTarget(0, At({0.01 * s, 0, 0.0195}));
    const IpcStepReport r = system.Step(0.01);
    EXPECT_TRUE(r.converged);
    EXPECT_LT(r.newton_iterations, 10);
    EXPECT_EQ(r.kinematic_lag, 0);
  }
}

TEST(FemIpc, ASavedStateRestoresBitwise) {
  IpcSystem system;
  system.AddAffineBody(AffineBox({0.05, 0.05, 0.05}, 500, At({0, 0, 0.06})));
  system.AddSoftBody(SoftBox({0.02, 0.02, 0.02}, 0.02, {0.01, 0, 0.14}, 1e5, 0.3));
  system.AddHalfSpace({});
  system.Finalize();
  for (int s = 0; s < 5; ++s) system.Step(0.01);
  const IpcState saved = system.state();
  for (int s = 0; s < 10; ++s) system.Step(0.01);
  const IpcState first = system.state();
  system.set_state(saved);
  for (int s = 0; s < 10; ++s) system.Step(0.01);
  const IpcState second = system.state();
  ASSERT_EQ(first.x.size(), second.x.size());
  for (std::size_t i = 0; i < first.x.size(); ++i) EXPECT_EQ(first.x[i], second.x[i]);
  EXPECT_EQ(first.q[0], second.q[0]);
  EXPECT_EQ(first.kappa, second.kappa);
  IpcState wrong = saved;
  wrong.x.pop_back();
  EXPECT_THROW(system.set_state(wrong), std::invalid_argument);
}

}  // namespace
}  // namespace ductile::fem
