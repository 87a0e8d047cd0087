// The trajectory gradient with uniform checkpoints (grad/pd_gradient.h).
#include "grad/pd_gradient.h"

#include <algorithm>

#include "pd/pd_skeleton.h"

namespace ductile::grad {

namespace {

/// The adjoint state: ∂L/∂q and ∂L/∂v of the state the backward pass has reached.
struct Adjoint {
  Eigen::MatrixX3d q;
  Eigen::MatrixX3d v;
};

void AddLoss(const PdLoss& loss, int step, const pd::PdState& state, Adjoint& adjoint) {
  loss.term(step, state, &adjoint.q, &adjoint.v);
}

}  // namespace

PdGradient PdLossAndGradient(const pd::PdSolver& solver, const pd::PdState& initial,
                             std::span<const pd::PdControls> controls, const PdLoss& loss,
                             const PdGradientOptions& options) {
  const int steps = static_cast<int>(controls.size());
  const int k = std::max(1, options.checkpoint_interval);
  PdGradient gradient;
  // Forward: the loss of every state, a checkpoint every k steps.
  std::vector<pd::PdState> checkpoints{initial};
  pd::PdState state = initial, next;
  gradient.loss = loss.term(0, state, nullptr, nullptr);
  for (int n = 0; n < steps; ++n) {
    gradient.converged &= solver.Step(state, controls[static_cast<std::size_t>(n)], next, options.forward).converged;
    std::swap(state, next);
    gradient.loss += loss.term(n + 1, state, nullptr, nullptr);
    if ((n + 1) % k == 0 && n + 1 < steps) checkpoints.push_back(state);
  }
  // Backward, a segment [first, last] at a time from the end: its states recomputed from its checkpoint.
  const auto rows = initial.q.rows();
  Adjoint adjoint{Eigen::MatrixX3d::Zero(rows, 3), Eigen::MatrixX3d::Zero(rows, 3)};
  AddLoss(loss, steps, state, adjoint);
  gradient.controls.resize(controls.size());
  std::vector<pd::PdState> segment;
  for (int first = (steps - 1) / k * k; first >= 0 && steps > 0; first -= k) {
    const int last = std::min(first + k, steps);  // the segment's steps are first .. last − 1
    // States first .. last: the two ends are kept (a checkpoint, or the forward pass's final state), the ones
    // between recomputed.
    segment.assign(1, checkpoints[static_cast<std::size_t>(first / k)]);
    for (int n = first; n < last - 1; ++n) {
      segment.emplace_back();
      solver.Step(segment[segment.size() - 2], controls[static_cast<std::size_t>(n)], segment.back(), options.forward);
      ++gradient.recomputed_steps;
    }
    segment.push_back(last == steps ? state : checkpoints[static_cast<std::size_t>(last / k)]);
    gradient.peak_states = std::max(gradient.peak_states, checkpoints.size() + segment.size());
    for (int n = last - 1; n >= first; --n) {
      const pd::PdState& end = segment[static_cast<std::size_t>(n + 1 - first)];
      Adjoint previous;
      const pd::PdAdjointReport report =
          pd::StepAdjoint(solver, segment[static_cast<std::size_t>(n - first)], controls[static_cast<std::size_t>(n)],
                          end, adjoint.q, adjoint.v, previous.q, previous.v, gradient.materials,
                          gradient.controls[static_cast<std::size_t>(n)], options.adjoint);
      gradient.converged &= report.ok;
      gradient.direct_solves += report.direct ? 1 : 0;
      adjoint = std::move(previous);
      AddLoss(loss, n, segment[static_cast<std::size_t>(n - first)], adjoint);
    }
  }
  if (steps == 0) {
    const auto tets = static_cast<std::size_t>(solver.model().tet_count());
    gradient.materials = {std::vector<double>(tets, 0.0), std::vector<double>(tets, 0.0),
                          std::vector<double>(solver.model().obstacles.size(), 0.0)};
  }
  gradient.initial_q = std::move(adjoint.q);
  gradient.initial_v = std::move(adjoint.v);
  const std::vector<Eigen::MatrixX3d> B = pd::JointJacobian(solver.model(), initial.z, initial.q);
  gradient.initial_z.resize(static_cast<Eigen::Index>(B.size()));
  for (std::size_t j = 0; j < B.size(); ++j)
    gradient.initial_z(static_cast<Eigen::Index>(j)) = B[j].cwiseProduct(gradient.initial_q).sum();
  return gradient;
}

}  // namespace ductile::grad
