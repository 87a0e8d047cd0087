// The CUDA backend against the CPU reference: one substep of a mixed-material scene from the same state.
// Skips when no CUDA device is present (the backend still has to compile and link for the test to build).
#include <gtest/gtest.h>

#include <cmath>

#include "../physics/scene_fixture.h"
#include "backend/cuda/mpm_cuda.h"
#include "mpm/mpm_solver.h"

namespace ductile {
namespace {

constexpr char kScene[] = R"(
simulation: {dt: 1.0e-3, substeps: 1, gravity: [0, 0, -9.81]}
grid: {h: 0.01, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.4]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 5.0e4, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 1.0e3}
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e5, poisson_ratio: 0.3, friction_angle: 30}
objects:
  ball: {material: rubber, shape: {type: sphere, radius: 0.04}, pose: {position: [0, 0, 0.1]}, velocity: [0.5, 0, -1]}
  dough: {material: dough, shape: {type: box, size: [0.08, 0.08, 0.04]}, pose: {position: [0, 0, 0.03]}}
  sand: {material: sand, shape: {type: cylinder, radius: 0.03, length: 0.08}, pose: {position: [0.1, 0.1, 0.05]}}
colliders:
  ground: {shape: {type: plane, normal: [0, 0, 1]}, pose: {position: [0, 0, 0.02]}, boundary: {type: friction, friction: 0.5}}
)";

TEST(CudaParity, SubstepMatchesCpu) {
  std::string reason;
  if (!cuda::DeviceAvailable(&reason)) GTEST_SKIP() << "no CUDA device: " << reason;
  const auto model = testing::ModelFromYaml(kScene);
  mpm::MpmState cpu_state;
  mpm::MpmSolver cpu(*model, cpu_state);
  // A few CPU substeps first, so the state has stress, C and plastic flow.
  for (int i = 0; i < 20; ++i) cpu.Substep(1e-4f);
  mpm::Particles gpu = cpu.particles();
  cpu.Substep(1e-4f);
  cuda::Substep(*model, gpu, 1e-4f);
  const mpm::Particles& ref = cpu.particles();
  ASSERT_EQ(ref.size(), gpu.size());
  double max_dv = 0, max_dx = 0;
  for (std::size_t p = 0; p < ref.size(); ++p) {
    max_dv = std::max<double>(max_dv, Norm(ref.v[p] - gpu.v[p]));
    max_dx = std::max<double>(max_dx, Norm(ref.x[p] - gpu.x[p]));
  }
  // Only the summation order of P2G differs (atomics vs per-block windows): float round-off on velocities of
  // ~1 m/s, so 1e-4 m/s; positions move by Δt·v.
  EXPECT_LT(max_dv, 1e-4);
  EXPECT_LT(max_dx, 1e-7);
}

}  // namespace
}  // namespace ductile
