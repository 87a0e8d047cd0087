// Projective-dynamics gradients (grad/pd_gradient.h) on a bridge of the paper's size (Qiao et al. 2021, Sec. 5.2:
// 668 cells): a 42 x 4 x 4-cell beam (672 cells, 4,032 tets, 1,075 vertices) pinned at both ends, sagging under
// gravity for N steps of 10 ms from rest, its loss the squared distance of every vertex from its rest position after
// every step. `BM_PdForward` runs the N steps alone; `BM_PdGradient` the loss and its gradient with respect to every
// tet's E and ν, the initial state and the pinned targets, with a checkpoint every k steps (k = 1: every state kept).
// Counters: seconds per run, the backward pass's time over the forward's (gradient time minus forward time, over
// forward time), the states held at the peak and their bytes, and the process's peak resident memory.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>

#include "fem/tetrahedralise.h"
#include "grad/pd_gradient.h"

namespace ductile::grad {
namespace {

pd::PdModel Bridge() {
  pd::PdBodyDesc desc;
  const double cell = 0.01;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d(21 * cell, 2 * cell, 2 * cell), cell);
  for (std::size_t i = 0; i < desc.mesh.vertices.size(); ++i)
    if (std::abs(desc.mesh.vertices[i].x()) > 20.99 * cell) desc.pinned.push_back(static_cast<int>(i));
  desc.youngs_modulus = {5e4};
  desc.poisson_ratio = {0.3};
  desc.dt = 0.01;
  return pd::MakePdModel(std::move(desc)).model;
}

PdLoss SagLoss(const pd::PdModel& model) {
  const pd::PdState rest = pd::PdState::AtRest(model);
  return {[q0 = rest.q](int, const pd::PdState& s, Eigen::MatrixX3d* dq, Eigen::MatrixX3d*) {
    if (dq) *dq += 2 * (s.q - q0);
    return (s.q - q0).squaredNorm();
  }};
}

double Seconds(const std::chrono::steady_clock::time_point& start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double ForwardSeconds(const pd::PdSolver& solver, int steps, const pd::PdSolverSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  pd::PdState state = pd::PdState::AtRest(solver.model()), next;
  const pd::PdControls controls = pd::PdControls::Rest(solver.model());
  for (int n = 0; n < steps; ++n) {
    solver.Step(state, controls, next, settings);
    std::swap(state, next);
  }
  return Seconds(start);
}

void BM_PdForward(benchmark::State& state) {
  const pd::PdSolver solver(Bridge());
  const int steps = static_cast<int>(state.range(0));
  double seconds = 0;
  for (auto _ : state) seconds = ForwardSeconds(solver, steps, PdGradientOptions{}.forward);
  state.counters["forward_s"] = seconds;
  state.counters["ms_per_step"] = 1e3 * seconds / steps;
}

void BM_PdGradient(benchmark::State& state) {
  const pd::PdSolver solver(Bridge());
  const int steps = static_cast<int>(state.range(0));
  PdGradientOptions options;
  options.checkpoint_interval = static_cast<int>(state.range(1));
  const std::vector<pd::PdControls> controls(static_cast<std::size_t>(steps), pd::PdControls::Rest(solver.model()));
  const PdLoss loss = SagLoss(solver.model());
  const pd::PdState initial = pd::PdState::AtRest(solver.model());
  PdGradient gradient;
  double seconds = 0, forward = 0;
  for (auto _ : state) {
    forward = ForwardSeconds(solver, steps, options.forward);
    const auto start = std::chrono::steady_clock::now();
    gradient = PdLossAndGradient(solver, initial, controls, loss, options);
    seconds = Seconds(start);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double state_bytes = 2.0 * 3 * sizeof(double) * static_cast<double>(initial.q.rows());
  state.counters["gradient_s"] = seconds;
  state.counters["forward_s"] = forward;
  state.counters["backward_over_forward"] = (seconds - forward) / forward;
  state.counters["peak_states"] = static_cast<double>(gradient.peak_states);
  state.counters["states_MB"] = static_cast<double>(gradient.peak_states) * state_bytes / 1e6;
  state.counters["recomputed_steps"] = gradient.recomputed_steps;
  state.counters["direct_solves"] = gradient.direct_solves;
  state.counters["max_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

BENCHMARK(BM_PdForward)->Arg(200)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_PdGradient)->Args({200, 1})->Args({200, 14})->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace ductile::grad
