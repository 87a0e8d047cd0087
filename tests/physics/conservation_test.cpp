// P2G/G2P conserve mass and linear momentum. With quadratic B-splines Σ_i w_ip = 1 and Σ_i w_ip (x_i − x_p) = 0,
// so P2G puts exactly Σ m_p on the grid and the APIC/MLS affine and stress terms add no net momentum; G2P with
// the grid velocities returns it. With no gravity and no boundary in reach, one substep must leave the total
// momentum unchanged up to float round-off, whatever the particles' velocities, C and deformation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

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
  mpm::MpmState solver_state;
  mpm::MpmSolver solver(*model, solver_state);
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
  mpm::MpmState solver_state;
  mpm::MpmSolver solver(*model, solver_state);
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
  mpm::MpmState fused_state;
  mpm::MpmSolver fused(*model, fused_state);
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
  mpm::MpmState single_state;
  mpm::MpmSolver single(*model, single_state);
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

// Advance's last pass also does the next Advance's P2G, which that Advance skips (MpmSolver::next_p2g_ready). The
// prepared P2G is the one the next Advance would compute. The fused pass batches particles by the cell they were in
// before the gather moved them; a P2G on its own batches them by their new cell. So while no particle changes cell
// (0.3 m/s for 1.8 ms here: at most 0.54 mm against 2 cm cells, and no particle starts within that of a cell's
// edge) and nothing is sorted, the motion must be bitwise the same as with the preparation off. Both materials
// (fixed corotated, and plastic linear corotated with its reused R₀) deform and yield.
void RandomMotion(mpm::Particles& p, float speed) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.v[i] = {speed * u(rng), speed * u(rng), speed * u(rng)};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) p.F[i].m[r][c] = (r == c ? 1.0f : 0.0f) + 0.05f * u(rng);
  }
}

// Steps `steps` Advances of `substeps` substeps each, sorting before each as the simulator does.
mpm::SubstepCounters Steps(mpm::MpmSolver& solver, int steps, int substeps, float dt) {
  mpm::SubstepCounters sums;
  for (int step = 0; step < steps; ++step) {
    solver.SortParticlesByBlock();
    sums.Accumulate(solver.Advance(dt, substeps));
  }
  return sums;
}

// Particles whose x, v, F, C or plastic strain differ in any bit between two states of the same particles.
int DifferingParticles(const mpm::Particles& a, const mpm::Particles& b) {
  EXPECT_EQ(a.size(), b.size());
  int differing = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const bool same = std::memcmp(&a.x[i], &b.x[i], sizeof(Vec3f)) == 0 &&
                      std::memcmp(&a.v[i], &b.v[i], sizeof(Vec3f)) == 0 &&
                      std::memcmp(&a.F[i], &b.F[i], sizeof(Mat3f)) == 0 &&
                      std::memcmp(&a.C[i], &b.C[i], sizeof(Mat3f)) == 0 && a.plastic_strain[i] == b.plastic_strain[i];
    differing += same ? 0 : 1;
  }
  return differing;
}

// Two solvers of one model with the same initial motion (`start` applied to both): one prepares each next P2G, the
// other never does.
struct PreparedAndPlain {
  PreparedAndPlain(const Model& model, const std::function<void(mpm::Particles&)>& start)
      : prepared(model, prepared_state), plain(model, plain_state) {
    plain.set_prepare_next_step(false);
    start(prepared.mutable_particles());
    start(plain.mutable_particles());
  }
  mpm::MpmState prepared_state, plain_state;
  mpm::MpmSolver prepared;
  mpm::MpmSolver plain;
};

TEST(Conservation, PreparedP2GGivesTheSameMotionBitwise) {
  const auto model = testing::ModelFromYaml(kBlobScene);
  PreparedAndPlain solvers(*model, [](mpm::Particles& p) { RandomMotion(p, 0.3f); });
  mpm::MpmSolver& prepared = solvers.prepared;
  mpm::MpmSolver& plain = solvers.plain;
  const mpm::SubstepCounters prepared_sums = Steps(prepared, 6, 3, 1e-4f);
  const mpm::SubstepCounters plain_sums = Steps(plain, 6, 3, 1e-4f);
  ASSERT_FALSE(prepared.diverged());
  EXPECT_TRUE(prepared.next_p2g_ready());
  EXPECT_FALSE(plain.next_p2g_ready());
  EXPECT_EQ(prepared_sums.sorts, 0);
  // The preparing solver did one P2G on its own (the first step's), the other one per step.
  EXPECT_EQ(prepared_sums.p2g_passes, 1);
  EXPECT_EQ(plain_sums.p2g_passes, 6);
  EXPECT_EQ(DifferingParticles(prepared.particles(), plain.particles()), 0);
}

// What voids the prepared P2G: edited velocities (the mouse spring), edited particles, new model parameters and
// another substep Δt. After each, the next Advance must do its own P2G from the edited state: the motion stays
// bitwise that of a solver that never prepares (with a stale P2G it would differ, the edits being large).
TEST(Conservation, EditsBetweenStepsVoidThePreparedP2G) {
  const auto model = testing::ModelFromYaml(kBlobScene);
  // The same particles and grid with twice the rubber's Young's modulus.
  std::string yaml = kBlobScene;
  yaml.replace(yaml.find("youngs_modulus: 1.0e5"), 21, "youngs_modulus: 2.0e5");
  const auto stiffer = testing::ModelFromYaml(yaml);
  PreparedAndPlain solvers(*model, [](mpm::Particles& p) { RandomMotion(p, 0.3f); });
  mpm::MpmSolver& prepared = solvers.prepared;
  mpm::MpmSolver& plain = solvers.plain;
  const auto both = [&](const auto& edit) {
    Steps(prepared, 1, 2, 1e-4f);
    Steps(plain, 1, 2, 1e-4f);
    ASSERT_TRUE(prepared.next_p2g_ready());
    edit(prepared);
    edit(plain);
    EXPECT_FALSE(prepared.next_p2g_ready());
  };
  both([](mpm::MpmSolver& s) {
    for (Vec3f& v : s.mutable_velocities()) v = v + Vec3f{0.0f, 0.0f, 0.2f};
  });
  both([](mpm::MpmSolver& s) {
    for (Mat3f& F : s.mutable_particles().F) F.m[0][0] *= 1.01f;
  });
  both([&](mpm::MpmSolver& s) { s.SetModel(*stiffer); });
  both([](mpm::MpmSolver& s) { s.Reset(); });
  // A different Δt: the prepared P2G (with the old Δt in its stress term) is not used.
  Steps(prepared, 1, 2, 1e-4f);
  Steps(plain, 1, 2, 1e-4f);
  const mpm::SubstepCounters sums = Steps(prepared, 1, 2, 0.5e-4f);
  Steps(plain, 1, 2, 0.5e-4f);
  EXPECT_EQ(sums.p2g_passes, 1);
  Steps(prepared, 2, 2, 0.5e-4f);
  Steps(plain, 2, 2, 0.5e-4f);
  ASSERT_FALSE(prepared.diverged());
  EXPECT_EQ(DifferingParticles(prepared.particles(), plain.particles()), 0);
}

// The same with particles crossing cells and blocks, so the P2G is batched differently, the particles are sorted
// and reordered in memory between steps (the prepared P2G and the rotations R₀ it computed must survive that), and
// escape their blocks' reach in prepared passes. A drift of 70 m/s crosses 0.35 cells per substep. The motion
// agrees to float round-off: 1e-6 m is 5e-5 cells after 18 substeps (float spacing at 0.2-0.6 m is 3-6e-8 m).
TEST(Conservation, PreparedP2GSurvivesSortsBetweenSteps) {
  const auto model = testing::ModelFromYaml(kBlobScene);
  const auto drift = [](mpm::Particles& p) {
    RandomMotion(p, 1.0f);
    for (Vec3f& v : p.v) v = v + Vec3f{70.0f, 0.0f, -70.0f};
  };
  PreparedAndPlain solvers(*model, drift);
  mpm::MpmSolver& prepared = solvers.prepared;
  mpm::MpmSolver& plain = solvers.plain;
  const Totals before = ParticleTotals(prepared.particles());
  const float x0 = prepared.particles().x[0].x;
  Steps(prepared, 6, 3, 1e-4f);
  Steps(plain, 6, 3, 1e-4f);
  ASSERT_FALSE(prepared.diverged());
  ASSERT_FALSE(plain.diverged());
  // Every particle drifted more than a block (4 cells, 8 cm), so the particles were sorted again and reordered.
  EXPECT_GT(prepared.particles().x[0].x - x0, 0.1f);
  const Totals after = ParticleTotals(prepared.particles());
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(after.momentum[a], before.momentum[a], 18 * 1e-5 * before.momentum_scale);
  double worst = 0, worst_plastic = 0;
  for (std::size_t i = 0; i < prepared.particles().size(); ++i) {
    worst = std::max<double>(worst, Norm(prepared.particles().x[i] - plain.particles().x[i]));
    worst_plastic = std::max<double>(
        worst_plastic, std::abs(prepared.particles().plastic_strain[i] - plain.particles().plastic_strain[i]));
  }
  EXPECT_LT(worst, 1e-6);
  // The dough yields (plastic strain up to 0.095 here) and round-off moves it by about 1e-6; R₀ left in the old
  // order after a reorder (tried by skipping its permutation) moves it by 4e-3.
  EXPECT_LT(worst_plastic, 1e-5);
}

// A fused pass keeps v and C in its lanes, and stores them only where they are read before the next pass. A grid
// hook (the rigid-body contact solve) reads the particles' positions, velocities and stencils in every substep, so
// with a hook each pass must store them: what the hook sees in an Advance of four substeps must be bitwise what it
// sees between four Advances of one substep (the same passes; each of those stores its state at its end). With
// stale velocities (tried by storing v only after the last substep) the hook's view differs from the second
// substep on.
TEST(Conservation, GridHookSeesEachSubstepsParticleState) {
  const auto model = testing::ModelFromYaml(kBlobScene);
  constexpr int kSubsteps = 4;
  const auto run = [&](int advances, int substeps) {
    mpm::MpmState solver_state;
    mpm::MpmSolver solver(*model, solver_state);
    RandomMotion(solver.mutable_particles(), 0.3f);
    std::vector<mpm::Particles> seen;
    const auto hook = [&](float) { seen.push_back(solver.particles()); };
    for (int k = 0; k < advances; ++k) solver.Advance(1e-4f, substeps, hook);
    EXPECT_FALSE(solver.diverged());
    return seen;
  };
  const std::vector<mpm::Particles> fused = run(1, kSubsteps);
  const std::vector<mpm::Particles> stepped = run(kSubsteps, 1);
  ASSERT_EQ(fused.size(), static_cast<std::size_t>(kSubsteps));
  ASSERT_EQ(stepped.size(), static_cast<std::size_t>(kSubsteps));
  for (int k = 0; k < kSubsteps; ++k) EXPECT_EQ(DifferingParticles(fused[k], stepped[k]), 0) << "substep " << k;
}

}  // namespace
}  // namespace ductile
