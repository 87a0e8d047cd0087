// The FEM–IPC step: projected Newton with a CCD-bounded backtracking line search (the method: fem/ipc_system.h).
#include <Eigen/SparseCore>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "fem/affine_body.h"
#include "fem/ipc_barrier.h"
#include "fem/ipc_ccd.h"
#include "fem/ipc_system.h"

namespace ductile::fem {

using Eigen::Vector3d;

namespace {

// Seconds since `start`, added to `total`.
class PhaseTimer {
 public:
  explicit PhaseTimer(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

double MaxDisplacement(const std::vector<Vector3d>& from, const std::vector<Vector3d>& to) {
  double max = 0;
  for (std::size_t i = 0; i < from.size(); ++i) max = std::max(max, (to[i] - from[i]).norm());
  return max;
}

}  // namespace

double IpcSystem::StepBound(const std::vector<Vector3d>& from, const std::vector<Vector3d>& to,
                            const Candidates& swept) const {
  double t = 1;
  for (const PointTriangleCandidate& c : swept.point_triangle) {
    const auto& f = surface_.faces[c.face];
    t = std::min(
        t, PointTriangleTimeOfImpact(from[c.vertex], from[f[0]], from[f[1]], from[f[2]], to[c.vertex] - from[c.vertex],
                                     to[f[0]] - from[f[0]], to[f[1]] - from[f[1]], to[f[2]] - from[f[2]], t));
  }
  for (const EdgeEdgeCandidate& c : swept.edge_edge) {
    const auto& a = surface_.edges[c.edge_a];
    const auto& b = surface_.edges[c.edge_b];
    t = std::min(t, EdgeEdgeTimeOfImpact(from[a[0]], from[a[1]], from[b[0]], from[b[1]], to[a[0]] - from[a[0]],
                                         to[a[1]] - from[a[1]], to[b[0]] - from[b[0]], to[b[1]] - from[b[1]], t));
  }
  // Kinematic and held points never meet a fixed plane (CollectPairs skips them too): the rigid step handles a
  // robot link on the ground.
  for (std::size_t p = 0; p < from.size(); ++p) {
    if (SurfacePointMap(static_cast<int>(p)).count == 0) continue;
    for (const HalfSpaceDesc& plane : half_spaces_)
      t = std::min(t, PointPlaneTimeOfImpact(from[p], to[p] - from[p], plane.normal, plane.offset, t));
  }
  return t;
}

// κ at a step's start (Li et al. 2020, supplement "adaptive barrier stiffness"): the lower bound κ_min makes the
// barrier's stiffness at a tiny distance (10⁻⁸ of the scene's size) comparable to the average mass, κ_max = 100 κ_min;
// with contacts, κ balances the barrier's gradient against the rest, −∇Eᵀ∇B / ‖∇B‖², clamped to [κ_min, κ_max]. A
// user-set stiffness [J/m⁴ per s²] is used as it is.
//
// Our addition, an elastic floor in κ_min: the barrier's normal stiffness ∂²(κ b)/∂d² at d = d̂/10 is at least h² E ℓ,
// the stiffness of one element of the stiffest soft body (E its Young's modulus, ℓ its element size), as in the
// elasticity-inclusive contact stiffness of Ando 2024 ("A cubic barrier with elasticity-inclusive dynamic
// stiffness"). The mass-based bound alone is far softer than a soft body's elements: a gripper's squeeze (a
// prescribed motion, absent from the balance at the step's start) then drives the gap down to 10⁻⁹ m, deep in the
// barrier's singular part, where Newton crawls in short CCD-bounded steps (8 iterations a step while the fingers of
// bench/ipc_bench.cpp close, 5.06 on average: BM_IpcGripperCloseLift at commit fe4ce46). With the floor the gap
// settles at microns (a physical contact layer) and the close–lift takes 3.1 iterations a step
// (bench/results/amd-epyc-2core-ipc.md).
void IpcSystem::UpdateBarrierStiffnessAtStart(const Eigen::VectorXd& z, const Candidates& candidates, double h) {
  if (settings_.barrier_stiffness > 0) {
    state_.kappa = settings_.barrier_stiffness * h * h;
    return;
  }
  const double s_hat = settings_.dhat * settings_.dhat;
  const double s0 = std::min(std::pow(1e-8 * bbox_diagonal_, 2), 0.25 * s_hat);
  double kappa_min = 1e11 * average_mass_ / (4 * s0 * Barrier(s0, s_hat).second);
  const double s_ref = 0.01 * s_hat;
  const ScalarDerivatives b_ref = Barrier(s_ref, s_hat);
  const double normal_stiffness = 2 * b_ref.first + 4 * s_ref * b_ref.second;  // ∂²b(d²)/∂d² at d̂/10
  for (const SoftBody& body : soft_)
    kappa_min = std::max(kappa_min, h * h * YoungsModulus(body.lame) * body.element_size / normal_stiffness);
  const double kappa_max = 100 * kappa_min;
  Derivative free, barrier;
  Derivatives(z, state_.kinematic_points, {}, candidates, h, kInertiaAndElastic, false, free);
  const double saved = state_.kappa;
  state_.kappa = 1;
  Derivatives(z, state_.kinematic_points, {}, candidates, h, kBarrier, false, barrier);
  state_.kappa = saved;
  const double norm2 = barrier.gradient.squaredNorm();
  const double balance = norm2 > 0 ? -free.gradient.dot(barrier.gradient) / norm2 : 0;
  state_.kappa = std::clamp(std::max(balance, state_.kappa), kappa_min, kappa_max);
  kappa_max_ = kappa_max;
}

IpcStepReport IpcSystem::Step(double h) {
  IpcStepReport report;
  iterate_min_distance_.clear();
  Predict(h);
  NewtonState newton;
  newton.z = GatherDofs();
  newton.kinematic = state_.kinematic_points;
  newton.target = KinematicTargets();
  {
    PhaseTimer timer(report.time_collision);
    const std::vector<Vector3d> surface = SurfaceFrom(newton.z, newton.kinematic);
    FindCandidates(surface_, surface, surface, settings_.dhat, newton.candidates);
  }
  UpdateBarrierStiffnessAtStart(newton.z, newton.candidates, h);
  LagFriction(SurfaceFrom(newton.z, newton.kinematic), newton.candidates, h);
  for (int iteration = 0; iteration < settings_.max_newton_iterations; ++iteration) {
    const IterationResult result = NewtonIteration(newton, h, report);
    if (result == IterationResult::kFailed) break;
    report.newton_iterations = iteration + 1;
    if (result == IterationResult::kConverged) {
      report.converged = true;
      break;
    }
  }
  FinishStep(newton, h, report);
  return report;
}

// Predictions z̃ = zᵗ + h żᵗ + h² g of implicit Euler.
void IpcSystem::Predict(double h) {
  x_start_ = state_.x;
  x_tilde_.resize(state_.x.size());
  for (std::size_t i = 0; i < state_.x.size(); ++i)
    x_tilde_[i] = state_.x[i] + h * state_.v[i] + h * h * settings_.gravity;
  for (std::size_t b = 0; b < affine_.size(); ++b) {
    affine_[b].q_start = state_.q[b];
    affine_[b].q_tilde = state_.q[b] + h * state_.q_dot[b];
    affine_[b].q_tilde.segment<3>(0) += h * h * settings_.gravity;
  }
}

// One Newton iteration: derivatives over the candidates (those of the previous iteration's swept query, a superset
// of the pairs within d̂ now), the direction, its convergence test, one broad-phase query over the whole motion
// inflated by d̂ (what CCD, the line search and the next iteration read), the CCD bound, backtracking, the update.
IpcSystem::IterationResult IpcSystem::NewtonIteration(NewtonState& newton, double h, IpcStepReport& report) {
  // The kinematic points' prescribed motion is part of the direction until what is left of it is below the
  // tolerance (CCD may shorten each approach, so it shrinks geometrically); the rest is the step's kinematic lag.
  const std::size_t kinematic_count = newton.kinematic.size();
  const bool kinematic_moves = MaxDisplacement(newton.kinematic, newton.target) / h >= settings_.newton_tolerance;
  std::vector<Vector3d> kinematic_step(kinematic_count, Vector3d::Zero());
  std::vector<Vector3d> kinematic_end = kinematic_moves ? newton.target : newton.kinematic;
  for (std::size_t k = 0; k < kinematic_count && kinematic_moves; ++k)
    kinematic_step[k] = newton.target[k] - newton.kinematic[k];
  const std::vector<Vector3d> surface = SurfaceFrom(newton.z, newton.kinematic);
  {
    PhaseTimer timer(report.time_hessian);
    Derivatives(newton.z, newton.kinematic, kinematic_step, newton.candidates, h, kAllTerms, true, derivative_);
  }
  Eigen::VectorXd dz;
  {
    PhaseTimer timer(report.time_linear_solve);
    if (!SolveNewtonSystem(derivative_, dz, report)) return IterationResult::kFailed;
  }
  const std::vector<Vector3d> surface_end = SurfaceFrom(newton.z + dz, kinematic_end);
  const double step_size =
      std::max(MaxDisplacement(surface, surface_end), MaxDisplacement(SoftFrom(newton.z), SoftFrom(newton.z + dz)));
  // A direction below the tolerance ends the loop, but it is taken too (CCD-bounded and backtracked as any other):
  // its solve is paid for, and the last iterate's contact forces (the gradients the kinematic bodies take) are then
  // a Newton step more accurate. The grasp's fingers feel the cube's weight within 2% at the tolerance 1e-3 m/s this
  // way, against 39% when the loop stops before the step (scenes/soft_cube_grasp.yaml).
  const bool converged = step_size / h < settings_.newton_tolerance;
  {
    PhaseTimer timer(report.time_collision);
    FindCandidates(surface_, surface, surface_end, settings_.dhat, newton.candidates);
  }
  double alpha = 1;
  {
    PhaseTimer timer(report.time_ccd);
    alpha = StepBound(surface, surface_end, newton.candidates);
  }
  auto kinematic_at = [&](double a) {
    std::vector<Vector3d> k(kinematic_count);
    for (std::size_t i = 0; i < kinematic_count; ++i) k[i] = newton.kinematic[i] + a * kinematic_step[i];
    return k;
  };
  {
    PhaseTimer timer(report.time_energy);
    const double e0 = Energy(newton.z, newton.kinematic, newton.candidates, h);
    // A prescribed kinematic motion may add energy: only a finite energy is asked of its steps until what is left of
    // it is below the tolerance; then the energy must decrease (no cycling of the free side).
    for (int halving = 0; halving < 40; ++halving) {
      const double e = Energy(newton.z + alpha * dz, kinematic_at(alpha), newton.candidates, h);
      if (std::isfinite(e) && (kinematic_moves || e <= e0)) break;
      alpha *= 0.5;
    }
  }
  newton.z += alpha * dz;
  newton.kinematic = alpha == 1 ? kinematic_end : kinematic_at(alpha);
  RecordIterate(newton, report);
  return converged ? IterationResult::kConverged : IterationResult::kContinue;
}

// The iterate's minimum distance, and κ doubled when the gap keeps closing at a tiny distance (Li et al. 2020,
// supplement).
void IpcSystem::RecordIterate(NewtonState& newton, IpcStepReport& report) {
  std::vector<ActivePair> pairs;
  double min_distance = settings_.dhat;
  {
    PhaseTimer timer(report.time_collision);
    CollectPairs(SurfaceFrom(newton.z, newton.kinematic), newton.candidates, pairs, min_distance);
  }
  iterate_min_distance_.push_back(min_distance);
  const double tiny = 1e-9 * bbox_diagonal_;
  if (settings_.barrier_stiffness <= 0 && min_distance < tiny && min_distance < newton.previous_min)
    state_.kappa = std::min(kappa_max_, 2 * state_.kappa);
  newton.previous_min = min_distance;
}

void IpcSystem::FinishStep(const NewtonState& newton, double h, IpcStepReport& report) {
  const Eigen::VectorXd& z = newton.z;
  ScatterDofs(z);
  for (std::size_t i = 0; i < state_.x.size(); ++i)
    if (soft_dof_[i] >= 0) state_.v[i] = (state_.x[i] - x_start_[i]) / h;
  for (std::size_t b = 0; b < affine_.size(); ++b) state_.q_dot[b] = (state_.q[b] - affine_[b].q_start) / h;
  report.kinematic_lag = MaxDisplacement(newton.kinematic, newton.target);
  state_.kinematic_points = newton.kinematic;
  // Contact forces on kinematic bodies and half-spaces at the final configuration: −∇(barrier + friction)/h², over
  // the last iteration's candidates (a superset of the pairs within d̂ there).
  const Candidates& candidates = newton.candidates;
  const std::vector<Vector3d> surface = SurfaceFrom(z, state_.kinematic_points);
  Derivative d;
  Derivatives(z, state_.kinematic_points, {}, candidates, h, kBarrier | kFriction, false, d);
  for (KinematicBody& b : kinematic_) b.wrench = {};
  for (std::size_t k = 0; k < state_.kinematic_points.size(); ++k) {
    KinematicBody& b = kinematic_[kinematic_point_body_[k]];
    const Vector3d f = -d.kinematic_gradient[k] / (h * h);
    b.wrench.force += f;
    b.wrench.moment += (state_.kinematic_points[k] - b.target.translation()).cross(f);
  }
  half_space_force_ = d.half_space_force;
  std::vector<ActivePair> pairs;
  double min_distance = settings_.dhat;
  CollectPairs(surface, candidates, pairs, min_distance);
  report.active_pairs = static_cast<int>(pairs.size());
  report.min_distance = min_distance;
  for (double m : iterate_min_distance_) report.min_distance = std::min(report.min_distance, m);
  report.barrier_stiffness = state_.kappa / (h * h);
}

}  // namespace ductile::fem
