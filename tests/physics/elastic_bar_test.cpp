// Longitudinal vibration of a free-free elastic bar. With ν = 0 the Lamé λ vanishes and the 3-D P-wave speed
// √((λ + 2μ)/ρ) equals the one-dimensional bar speed c = √(E/ρ). The two halves of the bar start moving apart at
// ±v₀: that velocity profile is odd about the centre, so only the odd free-free modes cos(nπx/L), n = 1, 3, ...
// are excited, whose periods 2L/(nc) make the elongation ΔL(t) antiperiodic with half-period L/c: ΔL changes sign
// at t_k = k·L/c (d'Alembert). We measure the zero crossings of ΔL and fit their spacing.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "scene_fixture.h"

namespace ductile {
namespace {

constexpr char kBarScene[] = R"(
simulation: {dt: 2.0e-4, substeps: 1, gravity: [0, 0, 0]}
grid: {h: 0.01, domain: {min: [-0.4, -0.1, -0.1], max: [0.4, 0.1, 0.1]}}
materials:
  bar: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.0}
objects:
  left: {material: bar, shape: {type: box, size: [0.2, 0.04, 0.04]}, pose: {position: [-0.1, 0, 0]}, velocity: [-0.1, 0, 0]}
  right: {material: bar, shape: {type: box, size: [0.2, 0.04, 0.04]}, pose: {position: [0.1, 0, 0]}, velocity: [0.1, 0, 0]}
)";

TEST(ElasticBar, LongitudinalPeriodMatchesWaveSpeed) {
  auto sim = testing::SimulatorFromYaml(kBarScene);
  const double L = 0.4, c = std::sqrt(1.0e5 / 1000.0);
  const double half_period = L / c;  // 0.04 s

  auto length = [&] { return sim->SummarizeObject(1).bounds_max[0] - sim->SummarizeObject(0).bounds_min[0]; };
  const double L0 = length();
  std::vector<double> crossings;
  double prev_t = 0, prev_d = 0;
  while (sim->time() < 6.5 * half_period) {
    sim->Step();
    const double d = length() - L0;
    if (sim->step_count() > 1 && ((prev_d > 0 && d <= 0) || (prev_d < 0 && d >= 0))) {
      crossings.push_back(prev_t + (sim->time() - prev_t) * prev_d / (prev_d - d));
    }
    prev_t = sim->time();
    prev_d = d;
  }
  ASSERT_GE(crossings.size(), 5u) << "the bar did not oscillate";
  // Least-squares slope of crossing time against crossing number.
  const int n = static_cast<int>(crossings.size());
  double sk = 0, st = 0, skk = 0, skt = 0;
  for (int k = 0; k < n; ++k) {
    sk += k;
    st += crossings[k];
    skk += double(k) * k;
    skt += k * crossings[k];
  }
  const double spacing = (n * skt - sk * st) / (n * skk - sk * sk);
  // Tolerance 3%: the fundamental spans 80 cells per wavelength, where the quadratic B-spline MPM's dispersion
  // is well under 1%; the rest allows for the bar's effective length (particles fill [−L/2, L/2] only to within
  // a quarter cell) and the stencil's smoothing of the free ends. A wrong wave speed (e.g. √((λ+2μ)/ρ) with ν
  // not zero, or a stress off by a factor) misses by 10% or more.
  EXPECT_NEAR(spacing, half_period, 0.03 * half_period);
}

}  // namespace
}  // namespace ductile
