// Cloth on a rigid incline (issue 22): a 10 × 10 cm sheet (11 × 11 vertices, 1 cm apart, on h = 1/64 m; 1 mm thick,
// ρ = 1000 kg/m³, 10 g) lies on the top face of a static rigid box of 0.8 × 0.3 × 0.1 m pitched by θ about y, held
// only by the MPM-rigid contact (Yu et al. 2025) of its vertex particles, which carry all of its mass. The friction
// coefficient μ is the box's own `friction` (it replaces `contact.friction`; the cloth material sets none, so it
// applies alone). Coulomb's law: the sheet sticks when tan θ ≤ μ and otherwise slides down with
// a = g (sin θ − μ cos θ). The grid domain reaches at least 0.1 m past the sheet's path on every side.
//
// The contact is the default (near-rigid cone, contact.mpm_stiffness = 0) with the default tolerances. Under the
// lagged Hunt-Crossley model that was the default before issue 45, the default stopping rule (ε_r = 5e-2 of the
// stencil nodes' momentum norm ‖√M v‖, which for a sheet sliding at 1 m/s is far above a substep's contact impulse)
// was met by the unsolved initial guess, and the sliding sheet felt about 37% of Coulomb's friction (3.95 m/s²
// instead of 2.36 at θ = 30°, μ = 0.3); the test then ran at ε_r = 1e-6. The cone's solve starts from the last
// substep's impulses of a stable contact set, and its sliding friction is μ times the solved normal impulse.
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
simulation: {dt: 1.0e-3, substeps: 8}
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

// The sheet neither lifts off nor sinks in: its centre stays on the face within 0.3 mm. At rest it stays within
// 1 µm; sliding, it wrinkles a little (the contacts' friction, solved to ε_r = 5e-2, is not quite uniform over the
// sheet), raising its centre by up to 0.18 mm in 0.5 s (0.04 mm when solved to ε_r = 1e-6).
void ExpectOnTheFace(const Trajectory& tr) {
  for (std::size_t i = 0; i < tr.t.size(); i += 50)
    EXPECT_NEAR(tr.normal[i], tr.normal.front(), 3e-4) << "t = " << tr.t[i];
}

// tan θ ≤ μ: after settling (0.1 s) the sheet stays put. Not exactly: the cone's regularisation R_t = σ w lets a
// sticking contact slip by σ = 1e-2 of the velocity change its friction makes in a substep (friction_cone_contact.h),
// about σ g sin θ Δt/N = 4e-6 m/s at θ = 30° (measured 2e-6 and 3e-6 m/s at 20° and 30° over [0.1, 0.5] s). The
// bound is the creep of the lagged Hunt-Crossley model's regularised friction (Castro, Han, Masterjohn 2023,
// Sec. V), μ n v_t/√(v_t² + v_s²), which holds the slope's pull only while slipping at v_creep = v_s r/√(1 − r²),
// r = tan θ/μ: twice that over the 0.4 s, 0.085 and 0.12 mm; sliding would cover about 0.2 m.
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
// the sheet slides 0.3 m, staying on the 0.8 m face) against g (sin θ − μ cos θ). Measured 2.3561 against 2.3563 at
// θ = 30°, μ = 0.3 and 2.5483 against 2.5483 at θ = 40°, μ = 0.5. Bound 1%: a sliding contact's friction is μ times
// its normal impulse, and the solver stops once its residual is below 5% of the stencil's momentum or impulse norm,
// an error spread over the contacts in no preferred direction; gravity, the transfers and the cloth's internal
// forces conserve momentum.
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
