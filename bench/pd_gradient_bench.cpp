// Projective-dynamics gradients (grad/pd_gradient.h) on a bridge of the paper's size (Qiao et al. 2021, Sec. 5.2:
// 668 cells): a 42 x 4 x 4-cell beam (672 cells, 4,032 tets, 1,075 vertices) pinned at both ends, sagging under
// gravity for N steps of 10 ms from rest, its loss the squared distance of every vertex from its rest position after
// every step. `BM_PdForward` runs the N steps alone (N = 20 for profiles and paired runs, 200 for the record);
// `BM_PdGradient` the loss and its gradient with respect to every tet's E and ν, the initial state and the pinned
// targets, with a checkpoint every k steps (k = 1: every state kept). Counters: seconds per run, the backward pass's
// time over the forward's (gradient time minus forward time, over forward time), the states held at the peak and their
// bytes, and the process's peak resident memory.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <random>

#include "fem/tetrahedralise.h"
#include "grad/optimize.h"
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

// System identification of the per-cell moduli of a 10-cell beam (tests/physics/pd_system_identification_test.cpp's
// setup) by L-BFGS-B on the adjoint gradient and by CMA-ES from the same start (ln E = ln 5e4 everywhere; CMA-ES's
// σ = 0.5 in ln E), each with a budget of 600 loss evaluations. Counters per method: the evaluations until every
// cell's modulus was within 1% of the truth (−1: never), and the worst relative error at the end.
struct Beam {
  pd::PdModel model;
  std::vector<double> truth;  // per cell
  std::vector<Eigen::MatrixX3d> target;
};

Beam MakeBeam() {
  pd::PdBodyDesc desc;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d(0.1, 0.01, 0.01), 0.02);
  for (std::size_t i = 0; i < desc.mesh.vertices.size(); ++i)
    if (std::abs(desc.mesh.vertices[i].x()) > 0.099) desc.pinned.push_back(static_cast<int>(i));
  Beam beam;
  std::mt19937 random(31);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t c = 0; c < desc.mesh.tets.size() / 6; ++c)
    beam.truth.push_back(std::exp(std::log(2e4) + unit(random) * std::log(5.0)));
  for (std::size_t t = 0; t < desc.mesh.tets.size(); ++t) desc.youngs_modulus.push_back(beam.truth[t / 6]);
  desc.poisson_ratio = {0.3};
  beam.model = pd::MakePdModel(std::move(desc)).model;
  return beam;
}

void BM_PdSystemIdentification(benchmark::State& state) {
  Beam beam = MakeBeam();
  pd::PdSolver solver(beam.model);
  const int steps = 10;
  const std::vector<pd::PdControls> controls(steps, pd::PdControls::Rest(solver.model()));
  PdGradientOptions options;
  options.forward = {.max_iterations = 300, .tolerance = 1e-11};
  const pd::PdState initial = pd::PdState::AtRest(solver.model());
  pd::PdState s = initial, next;
  for (int n = 0; n < steps; ++n) {
    solver.Step(s, controls[static_cast<std::size_t>(n)], next, options.forward);
    s = next;
    beam.target.push_back(s.q);
  }
  const PdLoss loss{[&](int step, const pd::PdState& st, Eigen::MatrixX3d* dq, Eigen::MatrixX3d*) {
    if (step == 0) return 0.0;
    const Eigen::MatrixX3d d = st.q - beam.target[static_cast<std::size_t>(step - 1)];
    if (dq) *dq += 2e6 * d;
    return 1e6 * d.squaredNorm();
  }};
  const std::size_t tets = static_cast<std::size_t>(solver.model().tet_count()), cells = tets / 6;
  const std::vector<double> nu(tets, 0.3);
  int evaluations = 0, first_within = -1;
  double worst = 0;
  auto set = [&](const Eigen::VectorXd& x) {
    std::vector<double> E(tets);
    for (std::size_t t = 0; t < tets; ++t) E[t] = std::exp(x(static_cast<Eigen::Index>(t / 6)));
    solver.SetMaterials(E, nu);
    worst = 0;
    for (std::size_t c = 0; c < cells; ++c)
      worst = std::max(worst, std::abs(std::exp(x(static_cast<Eigen::Index>(c))) / beam.truth[c] - 1));
    ++evaluations;
    if (first_within < 0 && worst < 0.01) first_within = evaluations;
  };
  const Eigen::VectorXd x0 = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(cells), std::log(5e4));
  const Eigen::VectorXd lower = Eigen::VectorXd::Constant(x0.size(), std::log(1e3));
  const Eigen::VectorXd upper = Eigen::VectorXd::Constant(x0.size(), std::log(1e7));
  const bool cma = state.range(0) == 1;
  OptimizeResult result;
  for (auto _ : state) {
    evaluations = 0;
    first_within = -1;
    if (cma) {
      result = MinimizeCmaes(
          [&](const Eigen::VectorXd& x) {
            set(x);
            return PdLossAndGradient(solver, initial, controls, loss, options).loss;
          },
          x0, lower, upper, {.max_evaluations = 600, .sigma = 0.5});
    } else {
      result = MinimizeLbfgsb(
          [&](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
            set(x);
            const PdGradient g = PdLossAndGradient(solver, initial, controls, loss, options);
            gradient = Eigen::VectorXd::Zero(x.size());
            for (std::size_t t = 0; t < tets; ++t)
              gradient(static_cast<Eigen::Index>(t / 6)) +=
                  g.materials.youngs_modulus[t] * std::exp(x(static_cast<Eigen::Index>(t / 6)));
            return g.loss;
          },
          x0, lower, upper, {.max_iterations = 600, .gradient_tolerance = 1e-10});
    }
  }
  double final_worst = 0;
  for (std::size_t c = 0; c < cells; ++c)
    final_worst = std::max(final_worst, std::abs(std::exp(result.x(static_cast<Eigen::Index>(c))) / beam.truth[c] - 1));
  state.counters["evaluations"] = evaluations;
  state.counters["evaluations_to_1pct"] = first_within;
  state.counters["final_worst_error"] = final_worst;
  state.counters["final_loss"] = result.value;
  state.SetLabel(cma ? "CMA-ES" : "L-BFGS-B");
}

BENCHMARK(BM_PdSystemIdentification)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_PdForward)->Arg(20)->Arg(200)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_PdGradient)->Args({200, 1})->Args({200, 14})->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace ductile::grad
