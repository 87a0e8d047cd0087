// FEM–IPC step benchmarks (fem/ipc_system.h): a soft body of about the embedded-IPC teddy's size (1,200 tets) at
// Δt = 0.02 s, squeezed by two kinematic fingers and lifted (the close–lift protocol of ZeMa, Du, Yao et al.), with
// the time by phase; and how a step grows with an affine body's mesh size (ZeMa's Table IV: 680 to 78k vertices).
// Counters: ms per step by phase, Newton iterations per step, real-time factor (Δt over the step's wall time).
#include <benchmark/benchmark.h>

#include <Eigen/Geometry>
#include <cmath>

#include "fem/ipc_system.h"
#include "fem/tetrahedralise.h"
#include "support/ipc_fixture.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;
using testing::At;
using testing::CloseLift;
using testing::SoftBox;

// A UV sphere of `rings` × `segments` (+ 2 poles) vertices, outward.
void SphereSurface(double r, int rings, int segments, std::vector<Vector3d>& v, std::vector<std::array<int, 3>>& f) {
  v = {Vector3d(0, 0, r)};
  for (int i = 1; i <= rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const double theta = M_PI * i / (rings + 1), phi = 2 * M_PI * j / segments;
      v.emplace_back(r * std::sin(theta) * std::cos(phi), r * std::sin(theta) * std::sin(phi), r * std::cos(theta));
    }
  v.emplace_back(0, 0, -r);
  const int south = static_cast<int>(v.size()) - 1;
  auto at = [&](int i, int j) { return 1 + (i - 1) * segments + (j % segments); };
  f.clear();
  for (int j = 0; j < segments; ++j) {
    f.push_back({0, at(1, j), at(1, j + 1)});
    f.push_back({south, at(rings, j + 1), at(rings, j)});
  }
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      f.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      f.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
}

struct PhaseTotals {
  IpcStepReport sum;
  int steps = 0;
  void Add(const IpcStepReport& r) {
    sum.newton_iterations += r.newton_iterations;
    sum.time_collision += r.time_collision;
    sum.time_energy += r.time_energy;
    sum.time_hessian += r.time_hessian;
    sum.time_linear_solve += r.time_linear_solve;
    sum.time_ccd += r.time_ccd;
    sum.factorizations += r.factorizations;
    sum.cg_iterations += r.cg_iterations;
    ++steps;
  }
  void Report(benchmark::State& state, double dt) const {
    const double n = std::max(steps, 1);
    state.counters["newton_per_step"] = sum.newton_iterations / n;
    state.counters["ms_collision"] = 1e3 * sum.time_collision / n;
    state.counters["ms_energy"] = 1e3 * sum.time_energy / n;
    state.counters["ms_hessian"] = 1e3 * sum.time_hessian / n;
    state.counters["ms_linear_solve"] = 1e3 * sum.time_linear_solve / n;
    state.counters["ms_ccd"] = 1e3 * sum.time_ccd / n;
    state.counters["factorizations_per_step"] = sum.factorizations / n;
    state.counters["cg_per_step"] = sum.cg_iterations / n;
    state.counters["realtime_factor"] =
        benchmark::Counter(dt * n, benchmark::Counter::kIsRate);  // simulated seconds per wall second
  }
};

// A soft cube (E = 1e5 Pa, ν = 0.4, 1,000 kg/m³; 5 cm, meshed to about 1,200 tets) on the ground between two
// kinematic fingers (4 × 4 × 1 cm boxes) that close by 4 mm over 0.2 s, then lift 5 cm over 0.5 s, μ = 0.8. Each
// iteration is one step of Δt = 0.02 s along that schedule (repeating it when it ends).
void BM_IpcGripperCloseLift(benchmark::State& state) {
  const double dt = 0.02;
  IpcSystem system;
  IpcSettings settings;
  settings.friction = 0.8;
  system.set_settings(settings);
  CloseLift::Build(system, 0.05 / 6);
  system.Finalize();
  PhaseTotals totals;
  int step = 0;
  for (auto _ : state) {
    CloseLift::SetTargets(system, (step % 35 + 1) * dt);  // the 0.7 s schedule, repeated
    totals.Add(system.Step(dt));
    ++step;
  }
  state.counters["tets"] = static_cast<double>(system.soft_tet_count());
  totals.Report(state, dt);
}
BENCHMARK(BM_IpcGripperCloseLift)->Unit(benchmark::kMillisecond)->Iterations(35)->UseRealTime();

// An affine sphere of radius 5 cm whose surface has `state.range(0)` vertices, resting on a soft slab (10 × 10 × 2 cm,
// E = 1e5 Pa) on the ground, Δt = 0.02 s: the step time against the rigid mesh's size.
void BM_IpcRigidMeshSize(benchmark::State& state) {
  const double dt = 0.02;
  IpcSystem system;
  system.AddSoftBody(SoftBox({0.05, 0.05, 0.01}, 0.01, {0, 0, 0.0105}, 1e5, 0.4));
  AffineBodyDesc ball;
  const int segments = static_cast<int>(std::sqrt(2.0 * state.range(0)));
  SphereSurface(0.05, segments / 2, segments, ball.vertices, ball.faces);
  ball.volume = 4.0 / 3.0 * M_PI * std::pow(0.05, 3);
  ball.mass = 500 * ball.volume;
  ball.second_moment = ball.mass * 0.05 * 0.05 / 5 * Eigen::Matrix3d::Identity();
  ball.pose = At({0, 0, 0.0212 + 0.05});
  system.AddAffineBody(ball);
  system.AddHalfSpace({});
  system.Finalize();
  for (int s = 0; s < 10; ++s) system.Step(dt);  // settle into contact
  PhaseTotals totals;
  for (auto _ : state) totals.Add(system.Step(dt));
  state.counters["rigid_vertices"] = static_cast<double>(ball.vertices.size());
  totals.Report(state, dt);
}
BENCHMARK(BM_IpcRigidMeshSize)
    ->Arg(680)
    ->Arg(2500)
    ->Arg(10000)
    ->Arg(40000)
    ->Arg(78000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5)
    ->UseRealTime();

}  // namespace
}  // namespace ductile::fem
