// L-BFGS-B through LBFGS++ and Adam (grad/optimize.h).
#include "grad/optimize.h"

#include <LBFGSB.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ductile::grad {

OptimizeResult MinimizeLbfgsb(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                              const Eigen::VectorXd& upper, const OptimizeOptions& options) {
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = options.max_iterations;
  param.epsilon = options.gradient_tolerance;
  param.epsilon_rel = options.gradient_tolerance;
  param.delta = options.value_tolerance;
  param.past = 1;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  OptimizeResult result;
  result.x = x0.cwiseMax(lower).cwiseMin(upper);
  result.value = std::numeric_limits<double>::infinity();
  Eigen::VectorXd best = result.x;
  // LBFGS++ evaluates at trial points of its line search too; the best evaluation is kept, so a stop by an exception
  // (a line search that found no decrease: the loss is at its noise floor) still returns the best point.
  auto counted = [&](const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
    const double value = f(x, gradient);
    ++result.evaluations;
    result.history.push_back(value);
    if (value < result.value) {
      result.value = value;
      best = x;
    }
    return value;
  };
  Eigen::VectorXd x = result.x;
  double fx = 0;
  try {
    result.iterations = solver.minimize(counted, x, fx, lower, upper);
    result.stop = result.iterations >= options.max_iterations ? "the iteration limit" : "converged";
  } catch (const std::exception& e) {
    result.stop = std::string("the line search: ") + e.what();
  }
  result.x = best;
  return result;
}

OptimizeResult MinimizeAdam(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                            const Eigen::VectorXd& upper, const OptimizeOptions& options) {
  constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;
  OptimizeResult result;
  Eigen::VectorXd x = x0.cwiseMax(lower).cwiseMin(upper), gradient(x.size());
  Eigen::VectorXd m = Eigen::VectorXd::Zero(x.size()), v = Eigen::VectorXd::Zero(x.size());
  result.x = x;
  result.value = std::numeric_limits<double>::infinity();
  result.stop = "the iteration limit";
  for (int t = 1; t <= options.max_iterations; ++t) {
    const double value = f(x, gradient);
    ++result.evaluations;
    result.history.push_back(value);
    if (value < result.value) {
      result.value = value;
      result.x = x;
    }
    result.iterations = t;
    if (gradient.lpNorm<Eigen::Infinity>() <= options.gradient_tolerance * std::max(1.0, x.norm())) {
      result.stop = "converged";
      break;
    }
    m = kBeta1 * m + (1 - kBeta1) * gradient;
    v = kBeta2 * v + (1 - kBeta2) * gradient.cwiseProduct(gradient);
    const Eigen::VectorXd m_hat = m / (1 - std::pow(kBeta1, t));
    const Eigen::VectorXd v_hat = v / (1 - std::pow(kBeta2, t));
    x -= options.learning_rate * m_hat.cwiseQuotient((v_hat.cwiseSqrt().array() + kEpsilon).matrix());
    x = x.cwiseMax(lower).cwiseMin(upper);
  }
  return result;
}

}  // namespace ductile::grad
