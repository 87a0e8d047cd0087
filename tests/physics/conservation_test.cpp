// P2G/G2P conserve mass and linear momentum. With quadratic B-splines Σ_i w_ip = 1 and Σ_i w_ip (x_i − x_p) = 0,
// so P2G puts exactly Σ m_p on the grid and the APIC/MLS affine and stress terms add no net momentum; G2P with
// the grid velocities returns it. With no gravity and no boundary in reach, one substep must leave the total
// momentum unchanged up to float round-off, whatever the particles' velocities, C and deformation.
#include <gtest/gtest.h>

#include <algorithm>
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

// Advance fuses each G2P with the next P2G and sorts the particles into blocks only when one has moved out of its
// block's reach; the particles that leave during a fused pass are scattered one by one. Here every particle
// crosses about 0.6 cells per substep (a uniform drift of 120 m/s with h = 2 cm, Δt = 0.1 ms, plus the random
// motion, deformation and C of the test above), so 12 substeps take every particle out of reach and the escape
// path and the re-sorts run several times.
TEST(Conservation, FusedSubstepsConserveMassAndMomentumAsParticlesLeaveTheirBlocks) {
  const auto model = testing::ModelFromYaml(kBlobScene);
  const auto randomise = [](mpm::Particles& p) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1, 1);
    for (std::size_t i = 0; i < p.size(); ++i) {
      p.v[i] = Vec3f{70.0f, 70.0f, 70.0f} + Vec3f{u(rng), u(rng), u(rng)};
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          p.C[i].m[r][c] = 5 * u(rng);
          p.F[i].m[r][c] = (r == c ? 1.0f : 0.0f) + 0.1f * u(rng);
        }
    }
  };
  constexpr int kSubsteps = 12;
  mpm::MpmSolver fused(*model);
  randomise(fused.mutable_particles());
  const Totals before = ParticleTotals(fused.particles());
  const mpm::SubstepCounters counters = fused.Advance(1e-4f, kSubsteps);
  ASSERT_FALSE(fused.diverged());
  EXPECT_GE(counters.sorts, 2) << "the test must make particles leave their blocks";
  const Totals after = ParticleTotals(fused.particles());
  // As above; the escaped particles' mass reached the grid of the last substep too.
  double grid_mass = 0;
  for (const Float4& node : fused.grid().nodes_data) grid_mass += node[3];
  EXPECT_NEAR(grid_mass, before.mass, 1e-6 * before.mass);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(after.momentum[a], before.momentum[a], kSubsteps * 1e-5 * before.momentum_scale) << "axis " << a;
  }

  // The same substeps one at a time, re-sorting before each: the same motion up to float round-off (the fused
  // passes sum the same contributions in a different order). 1e-6 m is 5e-5 cells after 12 substeps of
  // positions of 0.2-0.6 m (float spacing 3-6e-8 m).
  mpm::MpmSolver single(*model);
  randomise(single.mutable_particles());
  for (int k = 0; k < kSubsteps; ++k) {
    single.mutable_particles();  // invalidates the sort
    single.Substep(1e-4f);
  }
  ASSERT_FALSE(single.diverged());
  const mpm::Particles& a = fused.particles();
  const mpm::Particles& b = single.particles();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max<double>(worst, Norm(a.x[i] - b.x[i]));
  EXPECT_LT(worst, 1e-6);
}

}  // namespace
}  // namespace ductile
