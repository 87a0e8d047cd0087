// P2G/G2P conserve mass and linear momentum. With quadratic B-splines Σ_i w_ip = 1 and Σ_i w_ip (x_i − x_p) = 0,
// so P2G puts exactly Σ m_p on the grid and the APIC/MLS affine and stress terms add no net momentum; G2P with
// the grid velocities returns it. With no gravity and no boundary in reach, one substep must leave the total
// momentum unchanged up to float round-off, whatever the particles' velocities, C and deformation.
#include <gtest/gtest.h>

#include <random>

#include "mpm/mpm_solver.h"
#include "scene_fixture.h"

namespace ductile {
namespace {

constexpr char kBlobScene[] = R"(
simulation: {dt: 1.0e-4, substeps: 1, gravity: [0, 0, 0]}
grid: {h: 0.02, domain: {min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 800, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 500}
objects:
  ball: {material: rubber, shape: {type: sphere, radius: 0.1}, pose: {position: [-0.05, 0, 0]}}
  slab: {material: dough, shape: {type: box, size: [0.1, 0.2, 0.1]}, pose: {position: [0.1, 0, 0.05]}}
)";

struct Totals {
  double mass = 0;
  double momentum[3] = {0, 0, 0};
  double momentum_scale = 0;  // Σ m |v|, the size round-off is relative to
};

Totals ParticleTotals(const mpm::Particles& p) {
  Totals t;
  for (std::size_t i = 0; i < p.size(); ++i) {
    t.mass += p.mass[i];
    for (int a = 0; a < 3; ++a) t.momentum[a] += static_cast<double>(p.mass[i]) * p.v[i][a];
    t.momentum_scale += p.mass[i] * Norm(p.v[i]);
  }
  return t;
}

TEST(Conservation, SubstepConservesMassAndMomentum) {
  const auto model = testing::ModelFromYaml(kBlobScene);
  mpm::MpmSolver solver(*model);
  mpm::Particles& p = solver.mutable_particles();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.v[i] = {u(rng), u(rng), u(rng)};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        p.C[i].m[r][c] = 5 * u(rng);
        p.F[i].m[r][c] = (r == c ? 1.0f : 0.0f) + 0.1f * u(rng);
      }
  }
  const Totals before = ParticleTotals(p);
  solver.Substep(1e-4f);
  ASSERT_FALSE(solver.diverged());
  const Totals after = ParticleTotals(solver.particles());

  // Grid mass: float sums of ~10⁴ terms of similar size, relative error ≲ 1e-6.
  double grid_mass = 0;
  for (const Float4& node : solver.grid().nodes_data) grid_mass += node[3];
  EXPECT_NEAR(grid_mass, before.mass, 1e-6 * before.mass);
  EXPECT_EQ(after.mass, before.mass);

  // Momentum: each particle's 27 float contributions and 27 float gathers; the cancellation of Σ w (x_i − x_p)
  // and of the internal stress forces holds to float precision relative to Σ m|v| (1e-5 leaves room for
  // 10⁴ particles' round-off, and is 10⁴ times smaller than the momentum one stress impulse would add).
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(after.momentum[a], before.momentum[a], 1e-5 * before.momentum_scale) << "axis " << a;
  }
}

TEST(Conservation, StressImpulseIsNotNegligible) {
  // Guards the test above: the deformation and C it uses do change particle velocities a lot, so a momentum
  // match is a real check and not the trivial result of nothing happening.
  const auto model = testing::ModelFromYaml(kBlobScene);
  mpm::MpmSolver solver(*model);
  mpm::Particles& p = solver.mutable_particles();
  for (std::size_t i = 0; i < p.size(); ++i) p.F[i] = Mat3f::Diagonal(1.1f, 0.95f, 1.0f);
  solver.Substep(1e-4f);
  double change = 0;
  for (std::size_t i = 0; i < p.size(); ++i) change += Norm(solver.particles().v[i]);
  EXPECT_GT(change / static_cast<double>(p.size()), 1e-3);
}

}  // namespace
}  // namespace ductile
