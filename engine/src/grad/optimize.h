// Minimisers for gradients from the adjoints (grad/pd_gradient.h): L-BFGS-B over a box, by LBFGS++ (Qiu,
// header-only, Debian's liblbfgspp-dev; the algorithm of Byrd, Lu, Nocedal, Zhu 1995, "A limited memory algorithm
// for bound constrained optimization"), and Adam (Kingma, Ba 2015, "Adam: a method for stochastic optimization",
// Algorithm 1) for losses too noisy for a line search. Moduli are best optimised in log space (the callers map).
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

}  // namespace ductile::grad
