// Minimisers for gradients from the adjoints (grad/pd_gradient.h): L-BFGS-B over a box, by LBFGS++ (Qiu,
// header-only, Debian's liblbfgspp-dev; the algorithm of Byrd, Lu, Nocedal, Zhu 1995, "A limited memory algorithm
// for bound constrained optimization"), and Adam (Kingma, Ba 2015, "Adam: a method for stochastic optimization",
// Algorithm 1) for losses too noisy for a line search; and the derivative-free CMA-ES (Hansen 2016, "The CMA
// evolution strategy: a tutorial", arXiv:1604.00772, its default (μ/μ_w, λ) strategy with rank-one and rank-μ
// updates and cumulative step-size adaptation; our own, as no C++ implementation is packaged for Debian), the
// baseline the gradients are compared with. Moduli are best optimised in log space (the callers map).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

namespace ductile::grad {

/// f(x, gradient) returns the loss at x and writes its gradient.
using Objective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd& gradient)>;

/// When a minimiser stops. Plain data.
struct OptimizeOptions {
  int max_iterations = 100;
  double gradient_tolerance = 1e-8;  ///< Stop when ‖projected gradient‖∞ ≤ this · max(1, ‖x‖).
  double value_tolerance = 1e-12;    ///< L-BFGS-B: stop when the loss fell by less than this (relative) in a step.
  double learning_rate = 0.01;       ///< Adam's α.
};

/// What a minimiser did. Plain data.
struct OptimizeResult {
  Eigen::VectorXd x;  ///< The best point found.
  double value = 0;   ///< The loss there.
  int iterations = 0;
  int evaluations = 0;          ///< Loss-and-gradient evaluations.
  std::vector<double> history;  ///< The loss at every evaluation.
  std::string stop;             ///< Why it stopped, in words.
};

/// L-BFGS-B from x0 within [lower, upper] (x0 is projected into the box first).
OptimizeResult MinimizeLbfgsb(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                              const Eigen::VectorXd& upper, const OptimizeOptions& options = {});

/// Adam from x0 (β₁ = 0.9, β₂ = 0.999, ε = 1e-8), each iterate clipped into [lower, upper]; returns the best iterate.
OptimizeResult MinimizeAdam(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                            const Eigen::VectorXd& upper, const OptimizeOptions& options = {});

/// f(x) returns the loss at x (no gradient).
using Loss = std::function<double(const Eigen::VectorXd& x)>;

/// CMA-ES's settings. Plain data.
struct CmaesOptions {
  int max_evaluations = 1000;
  double sigma = 0.3;          ///< The initial step size, in x's units.
  int population = 0;          ///< λ; 0: the default 4 + ⌊3 ln n⌋.
  unsigned seed = 1;           ///< Of the sampling (the run is deterministic for a seed).
  double value_tolerance = 0;  ///< Stop once the best loss is at or below this.
};

/// CMA-ES from the mean x0 within [lower, upper]: samples are projected into the box before they are evaluated (and
/// enter the update as projected). Returns the best sample; `iterations` counts generations.
OptimizeResult MinimizeCmaes(const Loss& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                             const Eigen::VectorXd& upper, const CmaesOptions& options = {});

}  // namespace ductile::grad
