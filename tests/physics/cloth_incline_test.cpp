// Cloth on a rigid incline (issue 22): a 10 × 10 cm sheet (11 × 11 vertices, 1 cm apart, on h = 1/64 m; 1 mm thick,
// ρ = 1000 kg/m³, 10 g) lies on the top face of a static rigid box of 0.8 × 0.3 × 0.1 m pitched by θ about y, held
// only by the MPM-rigid contact (Yu et al. 2025) of its vertex particles, which carry all of its mass. The friction
// coefficient μ is the box's own `friction` (it replaces `contact.friction`; the cloth material sets none, so it
// applies alone). Coulomb's law: the sheet sticks when tan θ ≤ μ and otherwise slides down with
// a = g (sin θ − μ cos θ). The grid domain reaches at least 0.1 m past the sheet's path on every side.
//
// The contact solve runs to ε_r = 1e-6 (`simulation.contact_tolerance_relative`) instead of the default 5e-2. The
// default stopping rule bounds the residual by ε_r times the stencil nodes' momentum norm ‖√M v‖; a sheet sliding
// at 1 m/s has ‖√M v‖ ≈ 0.1 while the contact impulse of a substep is only ~m g Δt (D-norm ~1e-4), so the rule is
// met by the unsolved initial guess (0.4 iterations per 8 substeps, 43 of 121 vertices in contact per substep)
// and the sliding sheet feels about 37% of Coulomb's friction: a = 3.95 m/s² instead of 2.36 at θ = 30°,
// μ = 0.3, and 4.90 instead of 2.55 at θ = 40°, μ = 0.5 (measured; with ε_r = 1e-3 it is 2.39, with 1e-4 2.37).
// What is tested here is the contact model converged (docs/architecture.md, "MPM-rigid contact", notes the
// default stopping rule's error).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "scene_fixture.h"
#include "trajectory_fit.h"

namespace ductile {
namespace {

constexpr double kG = 9.81;
constexpr double kPi = 3.14159265358979323846;
constexpr double kStictionSpeed = 1e-4;  // contact.stiction_speed's default v_s [m/s]

struct Incline {
  double theta_deg = 0;
  double mu = 0;
  double theta() const { return theta_deg * kPi / 180; }
  double Acceleration() const { return kG * (std::sin(theta()) - mu * std::cos(theta())); }
};

std::string InclineScene(const Incline& incline) {
  // The sheet's centre 0.3 m up the slope from the face's middle, on the face (box frame z = 0.05), rotated with
  // the box: its vertices start on the surface and press into it under their weight.
  const double local_x = -0.3, local_z = 0.05;
  const double x = std::cos(incline.theta()) * local_x + std::sin(incline.theta()) * local_z;
  const double z = -std::sin(incline.theta()) * local_x + std::cos(incline.theta()) * local_z;
  char buffer[1024];
  std::snprintf(buffer, sizeof buffer, R"(
simulation: {dt: 1.0e-3, substeps: 8, contact_tolerance_relative: 1.0e-6}
grid: {h: 0.015625, domain: {min: [-0.5, -0.25, -0.4], max: [0.5, 0.25, 0.45]}}
materials:
  cotton: {model: cloth, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3, thickness: 0.001}
objects:
  sheet:
    material: cotton
    shape: {type: sheet, width: 0.1, length: 0.1, vertices: 11}
    pose: {position: [%.9f, 0, %.9f], rpy_deg: [0, %.9f, 0]}
rigid_bodies:
  ramp:
    type: static
    shape: {type: box, size: [0.8, 0.3, 0.1]}
    pose: {rpy_deg: [0, %.9f, 0]}
    friction: %.9f
)",
                x, z, incline.theta_deg, incline.theta_deg, incline.mu);
  return buffer;
}

// The sheet's centre of mass after every step, along the slope (down-slope positive; the box's x axis, which the
// pitch turns to (cos θ, 0, −sin θ)) and along the face's normal (sin θ, 0, cos θ).
struct Trajectory {
  std::vector<double> t, along, normal;
};

Trajectory SlideOrStick(const Incline& incline, double duration) {
  auto sim = testing::SimulatorFromYaml(InclineScene(incline));
  const double c = std::cos(incline.theta()), s = std::sin(incline.theta());
  Trajectory tr;
  while (sim->time() + 0.5 * sim->model().dt < duration) {
    sim->Step();
    EXPECT_TRUE(sim->last_step().mpm_contact_converged) << "t = " << sim->time();
    const std::array<double, 3> p = sim->SummarizeObject(0).center_of_mass;
    tr.t.push_back(sim->time());
    tr.along.push_back(c * p[0] - s * p[2]);
    tr.normal.push_back(s * p[0] + c * p[2]);
  }
  return tr;
}

std::size_t At(const Trajectory& tr, double t) {
  return testing::FirstSampleAt(tr.t, t);
}

double FitAcceleration(const Trajectory& tr, double t0, double t1) {
  return testing::FitQuadraticAcceleration(tr.t, tr.along, t0, t1);
}

// The sheet neither lifts off nor sinks in: its centre stays on the face within 0.1 mm (measured under 1e-7 m; the
// penalty sinks each vertex by its weight over contact.mpm_stiffness, m g cos θ / k ≈ 1e-7 m).
void ExpectOnTheFace(const Trajectory& tr) {
  for (std::size_t i = 0; i < tr.t.size(); i += 50)
    EXPECT_NEAR(tr.normal[i], tr.normal.front(), 1e-4) << "t = " << tr.t[i];
}

// tan θ ≤ μ: after settling (0.1 s) the sheet stays put. Not exactly: the regularised friction (Castro, Han,
// Masterjohn 2023, Sec. V) is μ n v_t/√(v_t² + v_s²), so it holds the slope's pull m g sin θ only while slipping at
// v_creep = v_s r/√(1 − r²), r = tan θ/μ: 1.06e-4 m/s at θ = 20°, μ = 0.5 and 1.46e-4 m/s at θ = 30°, μ = 0.7
// (measured 1.26e-4 and 1.38e-4 over [0.1, 0.5] s; the vertices' slip is that of the grid velocities they
// interpolate). Bound: twice v_creep over the 0.4 s, 0.085 and 0.12 mm; sliding would cover about 0.2 m.
TEST(ClothIncline, SticksWhereTheSlopeIsWithinTheFrictionCone) {
  for (const Incline incline : {Incline{20, 0.5}, Incline{30, 0.7}}) {
    SCOPED_TRACE(::testing::Message() << "θ = " << incline.theta_deg << "°, μ = " << incline.mu);
    ASSERT_LE(std::tan(incline.theta()), incline.mu);
    const Trajectory tr = SlideOrStick(incline, 0.5);
    const double r = std::tan(incline.theta()) / incline.mu;
    const double creep = kStictionSpeed * r / std::sqrt(1 - r * r);
    const std::size_t start = At(tr, 0.1);
    const double window = tr.t.back() - tr.t[start];
    const double moved = tr.along.back() - tr.along[start];
    RecordProperty("creep_m_s_theta_" + std::to_string(static_cast<int>(incline.theta_deg)),
                   std::to_string(moved / window));
    EXPECT_LT(std::abs(moved), 2 * creep * window);
    ExpectOnTheFace(tr);
  }
}

// tan θ > μ: the acceleration fitted to the centre of mass over [0.1, 0.5] s (after the vertices' first contacts;
// the sheet slides 0.3 m, staying on the 0.8 m face) against g (sin θ − μ cos θ). Measured 2.3572 against 2.3563 at
// θ = 30°, μ = 0.3 and 2.5503 against 2.5483 at θ = 40°, μ = 0.5. Bound 1%: the solver's absolute tolerance
// (contact_tolerance_absolute, 1e-6 in the D-norm) is 1% of a substep's contact impulse m g Δt/√m ≈ 1e-4, which
// bounds the friction impulse's error; the regularisation takes μ n v_s²/(2 v²) off the friction, under 1e-7 of it
// at the slip speeds here (over 0.2 m/s); gravity, the transfers and the cloth's internal forces conserve momentum.
TEST(ClothIncline, SlidesWithTheCoulombAcceleration) {
  for (const Incline incline : {Incline{30, 0.3}, Incline{40, 0.5}}) {
    SCOPED_TRACE(::testing::Message() << "θ = " << incline.theta_deg << "°, μ = " << incline.mu);
    ASSERT_GT(std::tan(incline.theta()), incline.mu);
    const Trajectory tr = SlideOrStick(incline, 0.5);
    const double a = FitAcceleration(tr, 0.1, 0.5);
    RecordProperty("acceleration_m_s2_theta_" + std::to_string(static_cast<int>(incline.theta_deg)), std::to_string(a));
    EXPECT_NEAR(a, incline.Acceleration(), 0.01 * incline.Acceleration());
    ExpectOnTheFace(tr);
  }
}

}  // namespace
}  // namespace ductile
