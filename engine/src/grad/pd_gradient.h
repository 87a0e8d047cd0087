// Gradients of a loss over a projective-dynamics trajectory (docs/architecture.md, "Gradients"): a forward pass of
// N steps from an initial state under a control per step, then the backward pass of the step adjoints
// (pd/pd_adjoint.h) from step N down to 0, with the loss's own sensitivities added at every state.
//
// Checkpointing (Griewank, Walther 2000, "Algorithm 799: revolve", the uniform variant; Qiao et al. 2021, Sec. 4.3):
// the forward pass keeps the state (q, v) every `checkpoint_interval` steps only; the backward pass recomputes each
// segment's states from its checkpoint, one segment at a time, just before it needs them. The adjoint of a step needs
// only its end state and controls (the projections are recomputed from the end positions), never the iterations
// that reached it, so memory is (N/k + k) states instead of a tape of every iteration. Recomputing a step repeats the
// forward pass's arithmetic exactly (same inputs, same order), so the gradient does not depend on k: a test checks
// it bitwise.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <span>
#include <vector>

#include "pd/pd_adjoint.h"
#include "pd/pd_model.h"
#include "pd/pd_solver.h"

namespace ductile::grad {

/// A loss summed over the states of a trajectory: `term(step, state, dq, dv)` returns the loss of state `step`
/// (0 = the initial state, N = the last) and, when dq and dv are non-null, adds ∂/∂q and ∂/∂v of it (n x 3) into
/// them.
struct PdLoss {
  std::function<double(int step, const pd::PdState& state, Eigen::MatrixX3d* dq, Eigen::MatrixX3d* dv)> term;
};

/// How the gradient is computed. Plain data.
struct PdGradientOptions {
  int checkpoint_interval = 1;  ///< k ≥ 1: a state kept every k steps (file comment).
  pd::PdSolverSettings forward{.max_iterations = 200, .tolerance = 1e-10, .newton = true};
  pd::PdAdjointSettings adjoint;
};

/// The loss and its gradient with respect to every input of the trajectory. Plain data.
struct PdGradient {
  double loss = 0;
  pd::PdMaterialGradient materials;      ///< Per tet.
  Eigen::MatrixX3d initial_q;            ///< ∂L/∂q⁰.
  Eigen::MatrixX3d initial_v;            ///< ∂L/∂v⁰.
  Eigen::VectorXd initial_z;             ///< ∂L/∂z⁰, the bones' rows of q⁰ following z⁰ (pd/pd_adjoint.h).
  std::vector<pd::PdControls> controls;  ///< ∂L/∂(controls of step n), shaped as the controls.
  bool converged = true;                 ///< Every forward step met its tolerance, every adjoint solve succeeded.
  int direct_solves = 0;                 ///< Adjoint solves that needed the sparse LU.
  int recomputed_steps = 0;              ///< Forward steps the backward pass recomputed.
  std::size_t peak_states = 0;           ///< The most states held at once (checkpoints and one segment).
};

/// L and ∂L for the trajectory of `controls.size()` steps from `initial` (file comment).
PdGradient PdLossAndGradient(const pd::PdSolver& solver, const pd::PdState& initial,
                             std::span<const pd::PdControls> controls, const PdLoss& loss,
                             const PdGradientOptions& options = {});

}  // namespace ductile::grad
