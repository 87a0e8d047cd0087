// Explicit MPM substeps of a fixed-corotated cube at about 6k, 50k and 500k particles, on 1 and 2 threads, as the
// simulator takes them (MpmSolver::Advance): BM_MpmSubstep one substep per iteration, BM_MpmStep10 an outer step of
// 10 substeps. Every substep is a P2G, a grid update and a G2P; Advance fuses each G2P with the next P2G, the last
// one with the next Advance's first, so in steady state a substep is a grid update and one pass over the particles.
// BM_MpmSubstepUnfused switches that last fusion off (as the simulator does while the mouse spring edits particles
// between steps): each iteration runs its P2G, grid update and G2P as three phases. All sort only when needed.
// Reports particle-substeps per second, nanoseconds per particle-substep per core and each phase's share.
// Results: bench/results/ (see bench/README.md).
#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <memory>
#include <string>

#include "backend/device_mpm.h"
#include "ductile/model.h"
#include "ductile/scene.h"
#include "mpm/mpm_solver.h"

namespace ductile {
namespace {

// A cube of cells³ cells with 8 particles per cell, h = 1 cm, in a domain with room around it.
std::shared_ptr<const Model> CubeModel(int cells) {
  const double side = cells * 0.01;
  const double half_domain = side / 2 + 0.05;
  const std::string yaml =
      "simulation: {dt: 1.0e-4, substeps: 1, gravity: [0, 0, -9.81]}\n"
      "grid: {h: 0.01, domain: {min: [" +
      std::to_string(-half_domain) + ", " + std::to_string(-half_domain) + ", 0.0], max: [" +
      std::to_string(half_domain) + ", " + std::to_string(half_domain) + ", " + std::to_string(side + 0.1) +
      "]}}\n"
      "materials:\n"
      "  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, "
      "poisson_ratio: 0.3}\n"
      "objects:\n"
      "  cube: {material: rubber, shape: {type: box, size: [" +
      std::to_string(side) + ", " + std::to_string(side) + ", " + std::to_string(side) +
      "]}, pose: {position: [0, 0, " + std::to_string(side / 2 + 0.02) + "]}, velocity: [0.1, 0, 0]}\n";
  return std::make_shared<const Model>(CompileModel(LoadSceneFromString(yaml, "bench.yaml")));
}

// One iteration: `substeps` substeps as the simulator takes them each step, the particles reordered in memory
// (which does nothing while the last reorder holds), then one Advance. `prepare`: its last G2P also does the next
// iteration's first P2G (MpmSolver::set_prepare_next_step), else its first P2G and last G2P run on their own.
void RunMpmSubsteps(benchmark::State& state, int substeps, bool prepare) {
  const int cells = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const auto model = CubeModel(cells);
  tbb::task_arena arena(threads);
  mpm::MpmState solver_state;
  mpm::MpmSolver solver(*model, solver_state);
  solver.set_prepare_next_step(prepare);
  // Settle into a deformed, moving state first, so the constitutive model has real work.
  arena.execute([&] {
    solver.SortParticlesByBlock();
    for (int i = 0; i < 20; ++i) solver.Substep(1e-4f);
  });
  mpm::SubstepCounters phases;  // summed over the iterations
  double runs = 0;              // runs of particles sharing a cell, summed over the iterations' last passes
  for (auto _ : state) {
    arena.execute([&] {
      solver.SortParticlesByBlock();
      phases.Accumulate(solver.Advance(1e-4f, substeps));
    });
    runs += static_cast<double>(solver.runs());
  }
  if (solver.diverged()) state.SkipWithError("diverged");
  const double particles = model->num_particles;
  state.counters["particles"] = particles;
  state.counters["threads"] = threads;
  state.counters["Mparticle_substeps_per_s"] =
      benchmark::Counter(particles * substeps * 1e-6, benchmark::Counter::kIsIterationInvariantRate);
  // Where the time goes: ns per particle-substep (wall) of each phase.
  const double per_particle = 1e9 / (particles * substeps * static_cast<double>(state.iterations()));
  state.counters["sort_ns"] = phases.sort_seconds * per_particle;
  state.counters["p2g_ns"] = phases.p2g_seconds * per_particle;
  state.counters["grid_ns"] = phases.grid_seconds * per_particle;
  state.counters["g2p_ns"] = phases.g2p_seconds * per_particle;
  state.counters["g2p2g_ns"] = phases.g2p2g_seconds * per_particle;
  state.counters["sorts_per_substep"] = static_cast<double>(phases.sorts) / (substeps * state.iterations());
  // The SIMD batch fill: particles per run of a shared stencil base (at most 8 of a run share a batch).
  state.counters["particles_per_run"] = particles * static_cast<double>(state.iterations()) / runs;
  state.counters["p2g_passes_per_iteration"] = static_cast<double>(phases.p2g_passes) / state.iterations();
  state.counters["ns_per_particle_substep_per_core"] =
      benchmark::Counter(particles * substeps / threads * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// One substep per iteration, as the simulator steps with substeps: 1 (the target names this one).
void BM_MpmSubstep(benchmark::State& state) {
  RunMpmSubsteps(state, 1, true);
}

// One substep per iteration with its P2G, grid update and G2P as separate phases.
void BM_MpmSubstepUnfused(benchmark::State& state) {
  RunMpmSubsteps(state, 1, false);
}

// One outer step of 10 substeps per iteration, as the simulator steps the scenes.
void BM_MpmStep10(benchmark::State& state) {
  RunMpmSubsteps(state, 10, true);
}

// cells per axis: 9³·8 = 5,832; 18³·8 = 46,656; 40³·8 = 512,000 particles; 1 and 2 threads.
void CubesOnThreads(benchmark::internal::Benchmark* b) {
  b->ArgsProduct({{9, 18, 40}, {1, 2}})
      ->ArgNames({"cells", "threads"})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(1.0);
}
BENCHMARK(BM_MpmSubstep)->Apply(CubesOnThreads);
BENCHMARK(BM_MpmSubstepUnfused)->Apply(CubesOnThreads);
BENCHMARK(BM_MpmStep10)->Apply(CubesOnThreads);

// The device backend (backend/device_mpm.h): one outer step of 10 substeps of the same cube per iteration, with
// the particles and the grid resident on the device (nothing copied to the host). Arg backend: 0 the emulated
// backend (the CUDA backend's code on the CPU, all threads), 1 CUDA (skipped where there is no device).
// bench/gpu-check runs it; cells 80 is 4,096,000 particles.
void BM_DeviceMpmStep10(benchmark::State& state) {
  const int cells = static_cast<int>(state.range(0));
  const bool cuda = state.range(1) == 1;
  std::string reason;
  if (cuda && !backend::CudaAvailable(&reason)) {
    state.SkipWithError(("no CUDA: " + reason).c_str());
    return;
  }
  const auto model = CubeModel(cells);
  std::unique_ptr<backend::DeviceMpm> device = cuda ? backend::MakeCudaMpm(*model) : backend::MakeEmulatedMpm(*model);
  mpm::Particles particles;
  mpm::InitialParticles(*model, particles);
  device->Upload(particles);
  constexpr int kSubsteps = 10;
  device->Advance(1e-4f, 2 * kSubsteps);  // settle into a deformed, moving state
  mpm::SubstepCounters phases;
  for (auto _ : state) phases.Accumulate(device->Advance(1e-4f, kSubsteps));
  if (device->diverged()) state.SkipWithError("diverged");
  const double n = model->num_particles;
  state.counters["particles"] = n;
  state.counters["Mparticle_substeps_per_s"] =
      benchmark::Counter(n * kSubsteps * 1e-6, benchmark::Counter::kIsIterationInvariantRate);
  const double per_particle = 1e9 / (n * kSubsteps * static_cast<double>(state.iterations()));
  state.counters["sort_ns"] = phases.sort_seconds * per_particle;
  state.counters["grid_ns"] = phases.grid_seconds * per_particle;
  state.counters["g2p2g_ns"] = phases.g2p2g_seconds * per_particle;
  state.counters["device_MB"] = static_cast<double>(device->memory_bytes()) * 1e-6;
}
BENCHMARK(BM_DeviceMpmStep10)
    ->ArgsProduct({{18, 40, 80}, {0, 1}})
    ->ArgNames({"cells", "backend"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);

}  // namespace
}  // namespace ductile

BENCHMARK_MAIN();
