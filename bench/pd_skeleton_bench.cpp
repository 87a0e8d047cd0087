// The projective-dynamics step of a body with a skeleton and contact (pd/pd_solver.h): the figure of
// scenes/pd_character.yaml (508 vertices, five bones, standing on the ground) for its first N steps from rest under
// the scene's shoulder torques, at the scene's tolerance (1e-6), with Newton over the free vertices and the joints
// (arg 1, the default) or with the local/global sweeps alone (arg 0; an iteration cap of 5,000 so that they finish).
// Counters: ms per step, iterations per step (mean), steps that did not converge.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "model/pd_bodies.h"

namespace ductile {
namespace {

void BM_PdSkeletonStep(benchmark::State& state) {
  const bool newton = state.range(0) != 0;
  const int steps = static_cast<int>(state.range(1));
  const Model model = CompileModel(LoadScene(std::string(DUCTILE_SOURCE_DIR) + "/scenes/pd_character.yaml"));
  const PdBodiesModel::Body& figure = model.pd->bodies.front();
  pd::PdSolver solver(figure.model);
  std::vector<pd::PdHalfSpace> planes = model.pd->planes;
  for (pd::PdHalfSpace& plane : planes) plane.friction = model.pd->friction;
  if (!solver.SetObstacles(planes)) state.SkipWithError(solver.error().c_str());
  const pd::PdControls controls = ControlsOf(figure);
  const pd::PdSolverSettings settings{
      .max_iterations = 5000, .tolerance = model.pd->settings.tolerance, .newton = newton};
  double seconds = 0;
  int iterations = 0, unconverged = 0;
  for (auto _ : state) {
    iterations = unconverged = 0;
    pd::PdState s = InitialStateOf(figure.model, figure.velocity), next;
    const auto start = std::chrono::steady_clock::now();
    for (int n = 0; n < steps; ++n) {
      const pd::PdStepReport report = solver.Step(s, controls, next, settings);
      iterations += report.iterations;
      unconverged += report.converged ? 0 : 1;
      std::swap(s, next);
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["ms_per_step"] = 1e3 * seconds / steps;
  state.counters["iterations_per_step"] = static_cast<double>(iterations) / steps;
  state.counters["not_converged"] = unconverged;
}

BENCHMARK(BM_PdSkeletonStep)->Args({1, 20})->Args({0, 20})->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace ductile
