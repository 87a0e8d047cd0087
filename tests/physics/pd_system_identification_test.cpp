// System identification with PD gradients (Qiao et al. 2021, Sec. 5.2, the bridge): a beam pinned at both ends
// sags under gravity with a Young's modulus per cell (the 6 tets of a grid cell share it, as the paper's cells);
// from the positions of every vertex over the motion (a synthetic recording made with the true moduli), L-BFGS-B on
// the adjoint gradient (grad/pd_gradient.h, grad/optimize.h), in log space, recovers every cell's modulus from a
// uniform guess.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fem/tetrahedralise.h"
#include "grad/optimize.h"
#include "grad/pd_gradient.h"

namespace ductile::grad {
namespace {

TEST(PdSystemIdentification, PerCellYoungsModulusOfASaggingBeamIsRecovered) {
  // A 20 cm x 2 cm x 2 cm beam, 10 x 1 x 1 cells of 6 tets (TetrahedraliseBox writes a cell's 6 tets in a row), its
  // end faces pinned; 10 moduli.
  pd::PdBodyDesc desc;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d(0.1, 0.01, 0.01), 0.02);
  for (std::size_t i = 0; i < desc.mesh.vertices.size(); ++i)
    if (std::abs(desc.mesh.vertices[i].x()) > 0.099) desc.pinned.push_back(static_cast<int>(i));
  const std::size_t tets = desc.mesh.tets.size();
  const std::size_t cells = tets / 6;
  std::mt19937 random(31);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> truth;  // per cell, 2e4 to 1e5 Pa
  for (std::size_t c = 0; c < cells; ++c) truth.push_back(std::exp(std::log(2e4) + unit(random) * std::log(5.0)));
  for (std::size_t t = 0; t < tets; ++t) desc.youngs_modulus.push_back(truth[t / 6]);
  desc.poisson_ratio = {0.3};
  desc.dt = 0.01;
  pd::PdModelResult made = pd::MakePdModel(std::move(desc));
  ASSERT_TRUE(made.ok()) << made.error;
  pd::PdSolver solver(made.model);
  const pd::PdState initial = pd::PdState::AtRest(solver.model());
  const int steps = 10;
  const std::vector<pd::PdControls> controls(steps, pd::PdControls::Rest(solver.model()));
  const pd::PdSolverSettings tight{.max_iterations = 300, .tolerance = 1e-11};
  // The recording: every vertex's position after every step.
  std::vector<Eigen::MatrixX3d> target;
  pd::PdState state = initial, next;
  for (int n = 0; n < steps; ++n) {
    ASSERT_TRUE(solver.Step(state, controls[static_cast<std::size_t>(n)], next, tight).converged);
    state = next;
    target.push_back(state.q);
  }
  // L = Σₙ ‖qₙ − q̂ₙ‖² / (1 mm)², over the steps 1..N.
  constexpr double kScale = 1e6;
  const PdLoss loss{[&](int step, const pd::PdState& s, Eigen::MatrixX3d* dq, Eigen::MatrixX3d*) {
    if (step == 0) return 0.0;
    const Eigen::MatrixX3d difference = s.q - target[static_cast<std::size_t>(step - 1)];
    if (dq) *dq += 2 * kScale * difference;
    return kScale * difference.squaredNorm();
  }};
  // x = ln E per cell, from E = 5e4 Pa everywhere (0.5 to 2.5 times the truth).
  const Eigen::VectorXd x0 = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(cells), std::log(5e4));
  const Eigen::VectorXd lower = Eigen::VectorXd::Constant(x0.size(), std::log(1e3));
  const Eigen::VectorXd upper = Eigen::VectorXd::Constant(x0.size(), std::log(1e7));
  PdGradientOptions options;
  options.forward = tight;
  const std::vector<double> nu(tets, 0.3);
  auto objective = [&](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
    std::vector<double> E(tets);
    for (std::size_t t = 0; t < tets; ++t) E[t] = std::exp(x(static_cast<Eigen::Index>(t / 6)));
    EXPECT_TRUE(solver.SetMaterials(E, nu));
    const PdGradient g = PdLossAndGradient(solver, initial, controls, loss, options);
    gradient = Eigen::VectorXd::Zero(x.size());  // ∂L/∂ln E_cell = Σ over its tets of E ∂L/∂E
    for (std::size_t t = 0; t < tets; ++t)
      gradient(static_cast<Eigen::Index>(t / 6)) += g.materials.youngs_modulus[t] * E[t];
    return g.loss;
  };
  const OptimizeResult result =
      MinimizeLbfgsb(objective, x0, lower, upper, {.max_iterations = 200, .gradient_tolerance = 1e-10});
  double worst = 0;
  for (std::size_t c = 0; c < cells; ++c)
    worst = std::max(worst, std::abs(std::exp(result.x(static_cast<Eigen::Index>(c))) / truth[c] - 1));
  // Issue 47: every recovered modulus within 1% of the truth once the optimiser stops.
  EXPECT_LT(worst, 0.01) << "after " << result.iterations << " iterations (" << result.stop << "), loss "
                         << result.history.front() << " -> " << result.value;
}

}  // namespace
}  // namespace ductile::grad
